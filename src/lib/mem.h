/*
 * mem.h - allocation in the code that the runtime and the CLI share. The runtime defines these
 * itself (src/runtime/rtmem.c), so that nothing it runs inside the measured program calls the
 * program's allocator (which the program may define itself, and instrument); everywhere else
 * they are calloc, realloc, strdup and free.
 */
#ifndef PSC_MEM_H
#define PSC_MEM_H

#include <stddef.h>

/* N zeroed elements of SIZE bytes, or NULL. */
void *psc_mem_calloc(size_t n, size_t size);

/* P (NULL, or from a psc_mem_* function) resized to SIZE bytes, its first bytes kept; NULL,
 * P untouched, when there is no memory. */
void *psc_mem_realloc(void *p, size_t size);

/* A copy of the string S, or NULL. */
char *psc_mem_strdup(const char *s);

/* Free what a psc_mem_* function returned (NULL is fine). */
void psc_mem_free(void *p);

#endif /* PSC_MEM_H */
