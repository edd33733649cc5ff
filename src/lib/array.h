/* array.h - growing an array by doubling: the one grower of perfscope's arrays. */
#ifndef PSC_ARRAY_H
#define PSC_ARRAY_H

#include <stddef.h>

/* array_reserve() when *CAP is short of NEED: the reallocation. */
int array_grow(void **arr, size_t *cap, size_t need, size_t size);

/* Make *ARR (elements of SIZE bytes, room for *CAP) hold at least NEED elements, doubling its
 * capacity (from 16). 0, or -ENOMEM (also on size overflow) with *ARR unchanged. The memory
 * comes from psc_mem_realloc (mem.h): realloc outside the runtime, the runtime's own inside.
 * Inline: the check that there is room costs no call (readers grow arrays per record). */
static inline int array_reserve(void **arr, size_t *cap, size_t need, size_t size)
{
	return need <= *cap ? 0 : array_grow(arr, cap, need, size);
}

/* array_reserve for the array ARR (a pointer lvalue) with room for CAP (a size_t lvalue):
 * `if (ARRAY_GROW(x->items, x->n + 1, x->cap)) return -ENOMEM;`. */
#define ARRAY_GROW(arr, need, cap) array_reserve((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif /* PSC_ARRAY_H */
