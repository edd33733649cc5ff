/*
 * symbols.h - post-mortem symbol resolution: an address recorded in a traced process becomes a
 * function name (C++ names demangled), the source file and line, and the module (executable or
 * shared library, also ones opened with dlopen) with the address's ELF virtual address in it.
 *
 * Addresses are placed with the memory maps the runtime recorded (maps.h): `maps.<pid>` for a
 * process's first program image, `maps.<pid>.<N>` for the image after its Nth exec. Each module
 * is opened once (libelf + libdw, with separate debug files found by build-id or debuglink under
 * /usr/lib/debug) and every answer is cached per address. Nothing here crashes on a bad input:
 * an address that cannot be named comes back as "module+0xoffset" or "[unknown]+0xaddr".
 */
#ifndef PSC_SYMBOLS_H
#define PSC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"

struct sym_info {
	/*
	 * The function's name, demangled. Where no symbol holds the address:
	 * "<base name of the module>+0x<offset>", or "[unknown]+0x<addr>" outside file mappings.
	 */
	const char *name;
	const char *module; /* path of the mapped file ("[vdso]" etc. as recorded), "" if none */
	/*
	 * addr - load bias: the ELF virtual address in the module. The file offset instead where
	 * the module could not be read (missing, deleted, not ELF); addr outside file mappings.
	 */
	uint64_t offset;
	const char *file;      /* source file of the address (DWARF line table), "" unknown */
	unsigned line;	       /* its line, 0 unknown */
	const char *func_file; /* where the function is declared (DW_AT_decl_file), "" unknown */
	unsigned func_line;    /* the function's declaration line, 0 unknown */
	uint64_t start;	       /* the function's first address (runtime), 0 unknown */
	int known;	       /* 1 when a symbol was found */
};

struct sym_proc;
struct elf_module;
struct sym_slot;

/* Symbols of one experiment: processes' maps (read on first use), modules, an address cache. */
struct symtab {
	char *dir;
	struct sym_proc *procs;
	size_t nprocs, proccap;
	struct elf_module **mods;
	size_t nmods, modcap;
	struct sym_slot *slots; /* address cache: open addressing, power-of-two size */
	size_t nslots, nused;
	struct str_arena strings; /* formatted and demangled names */
};

/* Prepares st for the experiment directory dir (which must exist). 0 or -errno. */
int symtab_init(struct symtab *st, const char *dir);

/*
 * Resolves addr of process pid in program image `image` (0 = as started) into *out. Strings stay
 * valid until symtab_release(). 0, or -ENOMEM (then *out still holds the "[unknown]" form).
 */
int symtab_lookup(struct symtab *st, pid_t pid, unsigned image, uint64_t addr,
		  struct sym_info *out);

/*
 * The ELF virtual address of the function `name` (raw symbol name or demangled form) in the
 * module at path `module`, for filters written before a run. 0, -ENOENT when the module has no
 * such function, or the -errno of opening the module.
 */
int symtab_find_function(struct symtab *st, const char *module, const char *name, uint64_t *offset);

/* The maps of a process as read (NULL when its maps file is missing or unreadable). */
const struct maps *symtab_maps(struct symtab *st, pid_t pid, unsigned image);

void symtab_release(struct symtab *st);

#endif /* PSC_SYMBOLS_H */
