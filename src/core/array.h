/* array.h - growing a malloc'd array by doubling. */
#ifndef PSC_ARRAY_H
#define PSC_ARRAY_H

#include <stddef.h>

/* Make *ARR (elements of SIZE bytes, room for *CAP) hold at least NEED elements, doubling its
 * capacity (from 16). 0, or -ENOMEM (also on size overflow) with *ARR unchanged. */
int array_reserve(void **arr, size_t *cap, size_t need, size_t size);

#endif /* PSC_ARRAY_H */
