/*
 * kallsyms.h - kernel text symbols for samples whose IP is in the kernel.
 *
 * `record --sample` copies the text symbols of /proc/kallsyms into the experiment (`kallsyms`,
 * docs/format.md), so that kernel addresses are named on any machine the experiment is read
 * on. kernel.kptr_restrict can hide the addresses (all read as 0): then no file is written and
 * kernel samples stay "[kernel]".
 */
#ifndef PSC_AN_KALLSYMS_H
#define PSC_AN_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kallsym {
	uint64_t addr;
	const char *name; /* "name" or "name [module]" */
};

struct kallsyms {
	struct kallsym *v; /* sorted by address */
	size_t n;
	char *text;  /* the names */
	int missing; /* the experiment has no kallsyms file */
};

/*
 * Copy the text symbols (types t, T, w, W) of PROCFS/kallsyms to DIR/kallsyms. 0; -EPERM when
 * the addresses are hidden (kernel.kptr_restrict), with the reason in WHY; or another negative
 * errno (reading or writing), with the reason in WHY.
 */
int kallsyms_save(const char *procfs, const char *dir, char *why, size_t whylen);

/*
 * kallsyms_save through a cache of the copy in CACHEDIR (NULL or "": no cache), one entry per
 * boot and set of loaded modules (PROCFS/sys/kernel/random/boot_id, PROCFS/modules): an entry
 * is hard linked (or else copied) to DIR/kallsyms, sparing the kernel's slow listing; without
 * one, the copy is made as kallsyms_save makes it and then stored. The cache is used only when
 * the addresses are visible to this process, so a hidden run never takes a visible copy nor
 * stores a zeroed one. Returns what kallsyms_save
 * returns; a cache that cannot be read or written is no error (the copy is made directly).
 */
int kallsyms_save_cached(const char *procfs, const char *dir, const char *cachedir, char *why,
			 size_t whylen);

/*
 * Read DIR/kallsyms into K. 0 (K->missing set when there is no such file: lookups then fail),
 * or a negative errno (-EINVAL for a malformed file, -ENOMEM) with one line in ERR:
 * "DIR/kallsyms: line N: ..." for a malformed line, "DIR/kallsyms: ..." otherwise.
 */
int kallsyms_load(struct kallsyms *k, const char *dir, char *err, size_t errlen);

/*
 * The symbol holding ADDR: the last one at or below it; NULL below the first symbol, without
 * symbols, or more than 16 MiB above the last.
 */
const struct kallsym *kallsyms_find(const struct kallsyms *k, uint64_t addr);

void kallsyms_release(struct kallsyms *k);

#endif /* PSC_AN_KALLSYMS_H */
