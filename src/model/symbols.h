/*
 * symbols.h - post-mortem symbol resolution: an address recorded in a traced process becomes a
 * function name (C++ names demangled), the source file and line, and the module (executable or
 * shared library, also ones opened with dlopen) with the address's ELF virtual address in it.
 *
 * Addresses are placed with the memory maps the runtime recorded (maps.h): `maps.<pid>` for a
 * process's first program image, `maps.<pid>.<N>` for the image after its Nth exec, and with
 * the mappings the sampler's kernel records reported (`pmaps.*`) where the runtime's have none.
 * An address is resolved as it was at the time of its event: a library closed and another
 * opened at its addresses keep their own names (maps_at says which mapping held an address
 * when). Each module is opened once (libelf + libdw, with separate debug files found by
 * build-id or debuglink under /usr/lib/debug), and only when it is the file that ran: one
 * rebuilt or gone since is read from its copy in the build-id cache (objcache.h), or not at
 * all. Every answer is cached per address. Nothing here crashes on a bad input: an address that
 * cannot be named comes back as "module+0xoffset" or "[unknown]+0xaddr".
 */
#ifndef PSC_SYMBOLS_H
#define PSC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/maps.h"

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
	/* 1 when the module's file is not the one that ran (rebuilt or gone since the recording)
	 * and the build-id cache has no copy: the name is module+offset, never a guess */
	int stale;
	const struct maps_object *object; /* what the recording says of the module, or NULL */
	/* symtab_lookup_inlined() only: the function whose code the compiler inlined at the
	 * address (the innermost), NULL when the code there is the function's own */
	const char *inlined;
};

/* Where the function of S is, for a row that stands for the whole function: its declaration
 * when DWARF gives one, else the source line of its address. */
static inline const char *sym_info_def_file(const struct sym_info *s)
{
	return s->func_file && s->func_file[0] ? s->func_file : s->file;
}

static inline unsigned sym_info_def_line(const struct sym_info *s)
{
	return s->func_file && s->func_file[0] ? s->func_line : s->line;
}

struct sym_proc;
struct elf_module;
struct sym_slot;
struct sym_fit;

/* Symbols of one experiment: processes' maps (read on first use), modules, an address cache. */
struct symtab {
	char *dir;
	struct sym_proc *procs;
	size_t nprocs, proccap;
	struct elf_module **mods;
	size_t nmods, modcap;
	const struct maps_object **mod_ids; /* per module: the object it was opened as, or NULL */
	struct sym_slot *slots;		    /* address cache: open addressing, power-of-two size */
	size_t nslots, nused;
	uint64_t scope_walks; /* walks of DWARF's inlined scopes (symtab_lookup_inlined() misses) */
	struct str_arena strings; /* formatted and demangled names */
	char *cache;		  /* the build-id cache's root, or NULL */
	struct sym_fit *fits;	  /* the processes' clocks, read when first needed */
	size_t nfits;
	int fits_read;
	struct sym_proc *last; /* the process of the last lookup */
	/* symtab_place's fast path: pid << 32 | image of the last process placed when a single
	 * object ever held each of its addresses, else UINT64_MAX */
	uint64_t plain;
};

/* Prepares st for the experiment directory dir (which must exist). 0 or -errno. */
int symtab_init(struct symtab *st, const char *dir);

/*
 * A place: the address ADDR of process PID in program image IMAGE (0 = as started) at time NS
 * (CLOCK_MONOTONIC ns as the experiment's clock fit gives it, an event's time), in a form that
 * symtab_lookup takes and that can key tables by function. It is ADDR itself where a single
 * object ever held ADDR, the common case; where several did one after the other (a library
 * closed and another opened at its addresses), it is ADDR with a tag of the one that held it
 * at NS in bits 56 to 61 (SYMTAB_PLACE_ADDR gives the address back). NS = SYMTAB_END: the end
 * of the process, for an address without a time.
 */
uint64_t symtab_place_slow(struct symtab *st, pid_t pid, unsigned image, uint64_t addr, int64_t ns);

static inline uint64_t symtab_place(struct symtab *st, pid_t pid, unsigned image, uint64_t addr,
				    int64_t ns)
{
	/* once per event of a profile: the common case without a call */
	if (st->plain == ((uint64_t)(uint32_t)pid << 32 | image))
		return addr;
	return symtab_place_slow(st, pid, image, addr, ns);
}

#define SYMTAB_END	       INT64_MAX
#define SYMTAB_PLACE_TAG_SHIFT 56
#define SYMTAB_PLACE_ADDR(p)                                                                       \
	(((p) >> 62) ? (p) : (p) & ((UINT64_C(1) << SYMTAB_PLACE_TAG_SHIFT) - 1))

/*
 * Resolves PLACE (symtab_place; a bare address is taken at the end of the process) of process
 * pid in program image `image` into *out. Strings stay valid until symtab_release(). 0, or
 * -ENOMEM (then *out still holds the "[unknown]" form).
 */
int symtab_lookup(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
		  struct sym_info *out);

/* symtab_lookup() with si->inlined too, from DWARF's inlined scopes at the address: for the
 * addresses that name a region, such as an OpenMP construct's call site. Cached as
 * symtab_lookup() is (a region's site is named at each of its instances). */
int symtab_lookup_inlined(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
			  struct sym_info *out);

/* symtab_lookup of addr as it was at time ns (symtab_place). */
int symtab_lookup_at(struct symtab *st, pid_t pid, unsigned image, uint64_t addr, int64_t ns,
		     struct sym_info *out);

/*
 * Opens into mod the file that si's symbols were read from (its module, or that module's copy
 * in the build-id cache); mod->path is si->module. Returns mod->err (-ESTALE when si->stale).
 */
int symtab_open_module(struct symtab *st, const struct sym_info *si, struct elf_module *mod);

/*
 * The ELF virtual address of the function `name` (raw symbol name or demangled form) in the
 * module at path `module`, for filters written before a run. 0, -ENOENT when the module has no
 * such function, or the -errno of opening the module.
 */
int symtab_find_function(struct symtab *st, const char *module, const char *name, uint64_t *offset);

/* The maps of a process as read: the runtime's, else the sampler's (pmaps); NULL when it has
 * neither. */
const struct maps *symtab_maps(struct symtab *st, pid_t pid, unsigned image);

void symtab_release(struct symtab *st);

#endif /* PSC_SYMBOLS_H */
