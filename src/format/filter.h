/*
 * filter.h - the runtime filter of function tracing: the set of function addresses to
 * record, built from a filter file written by `perfscope select` (docs/cmd-select.md).
 *
 * The file names functions by module and ELF address, so the runtime needs no symbol
 * tables: it adds each loaded module's load bias (dl_iterate_phdr) and keeps the addresses
 * in an open-addressing hash that the hooks probe.
 */
#ifndef PSC_FILTER_H
#define PSC_FILTER_H

#include <stddef.h>
#include <stdint.h>

struct filter_entry {
	char *module; /* absolute path of the ELF file */
	uint64_t vaddr;
};

struct psc_filter {
	struct filter_entry *entries; /* from the file */
	size_t nentries;
	uintptr_t *slots; /* runtime addresses; 0 = empty */
	unsigned bits;	  /* log2 of the slot count */
	size_t resolved;  /* entries whose module is loaded */
};

static inline size_t filter_hash(uintptr_t addr, unsigned bits)
{
	return (size_t)(((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* True when ADDR is one of the selected functions. */
static inline int filter_match(const struct psc_filter *f, uintptr_t addr)
{
	size_t mask = ((size_t)1 << f->bits) - 1;

	for (size_t i = filter_hash(addr, f->bits);; i = (i + 1) & mask) {
		if (f->slots[i] == addr)
			return 1;
		if (f->slots[i] == 0)
			return 0;
	}
}

/* Parse the filter file PATH into *OUT (addresses not resolved yet). 0, or a negative errno
 * with the line number of a malformed line in *LINE. */
int filter_load(const char *path, struct psc_filter **out, size_t *line);

/* Free a filter from filter_load (not a table from filter_resolve, which shares its entries). */
void filter_free(struct psc_filter *f);

/* A new table of F's entries at the addresses where their modules are loaded now (called at
 * start and after every dlopen); NULL when out of memory. F's own table is left alone, since
 * hooks may be reading it. */
struct psc_filter *filter_resolve(const struct psc_filter *f);

#endif /* PSC_FILTER_H */
