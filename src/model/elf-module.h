/*
 * elf-module.h - one ELF file (executable or shared library) as symbols.c needs it: its PT_LOAD
 * headers, its function symbols sorted by address, and its DWARF for source lines.
 *
 * Symbols come from .symtab and .dynsym, and from the .symtab of a separate debug file when the
 * module has none; DWARF from the module or from that debug file, found under /usr/lib/debug by
 * build-id or by .gnu_debuglink (or next to the module). All addresses here are ELF virtual
 * addresses (runtime address minus the load bias).
 */
#ifndef PSC_ELF_MODULE_H
#define PSC_ELF_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "model/maps.h"

struct Elf;
struct Dwarf;

struct elf_func {
	uint64_t addr;
	uint64_t end;	  /* of the address's group of aliases: [addr, end) */
	const char *raw;  /* as in the symbol table (in the module's string table) */
	const char *name; /* demangled or raw; NULL until elf_func_name() */
	const char *decl_file;
	unsigned decl_line;
	int decl_done; /* decl_file/decl_line looked up (elf_module_decl) */
	unsigned rank; /* lower is preferred among aliases of one address */
};

struct elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	unsigned flags; /* PF_R | PF_W | PF_X */
};

struct elf_cu_range;

struct elf_module {
	char *path;   /* the path it was mapped from */
	char *source; /* the file read: path, or its copy in the build-id cache */
	int state;    /* enum obj_state (objcache.h): whether source is what ran at path */
	int err;      /* 0, or -errno why the module cannot be read (-ESTALE: not what ran) */
	int fd, dbg_fd;
	struct Elf *elf, *dbg;
	struct Dwarf *dw; /* NULL without DWARF */
	struct elf_load *loads;
	size_t nloads;
	struct elf_func *funcs; /* sorted by address; aliases together, preferred first */
	size_t nfuncs, funccap;
	struct elf_cu_range *cus; /* compilation units by address, built on first need */
	size_t ncus;
	int cus_built;
};

/*
 * Opens the ELF file at path into mod (which need not be zeroed). 0, -ENOMEM, or the -errno why
 * it cannot be used (also left in mod->err); mod is always to be released.
 */
int elf_module_open(struct elf_module *mod, const char *path);

/*
 * Opens the object a recording mapped from PATH, that O describes (its `# object` line; NULL:
 * unknown, PATH is taken as it is): PATH when it is still that object, else its copy in the
 * build-id cache under CACHE (NULL: no cache). mod->path is PATH either way, mod->state says
 * which; an object that changed or is gone and has no copy is not read at all (mod->err
 * -ESTALE, or the -errno of opening PATH), so that no name from another build is given.
 * Returns mod->err.
 */
int elf_module_open_object(struct elf_module *mod, const char *path, const struct maps_object *o,
			   const char *cache);
void elf_module_release(struct elf_module *mod);

/*
 * The load bias of mapping e of this module: runtime address = ELF address + bias. Found with the
 * PT_LOAD that holds e's file offset (with the same execute permission). 0, or -1 if none does.
 */
int elf_module_bias(const struct elf_module *mod, const struct maps_entry *e, uint64_t *bias);

/* The function holding ELF address vaddr (its preferred alias), or NULL. */
struct elf_func *elf_module_func(struct elf_module *mod, uint64_t vaddr);

/* Source file and line of vaddr from the DWARF line table; leaves them unchanged if unknown. */
void elf_module_line(struct elf_module *mod, uint64_t vaddr, const char **file, unsigned *line);

/* Fills f's declaration file and line (DW_AT_decl_*) if the DWARF has them; sets decl_done. */
void elf_module_decl(struct elf_module *mod, struct elf_func *f);

/* The name (demangled, in A) of the innermost function whose code the compiler inlined at the
 * ELF virtual address VADDR (DWARF's DW_TAG_inlined_subroutine), NULL when the code there is the
 * enclosing function's own, or without DWARF. */
const char *elf_module_inlined(struct elf_module *mod, uint64_t vaddr, struct str_arena *a);

/* f's name for people: demangled (copied into a) when it is a mangled C++ name, else raw. */
const char *elf_func_name(struct elf_func *f, struct str_arena *a);

#endif /* PSC_ELF_MODULE_H */
