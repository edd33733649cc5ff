/* mem.c - calloc, realloc, strdup and free, unless the runtime defines psc_mem_* itself (mem.h). */
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

__attribute__((weak)) void *psc_mem_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

__attribute__((weak)) void *psc_mem_realloc(void *p, size_t size)
{
	return realloc(p, size);
}

__attribute__((weak)) char *psc_mem_strdup(const char *s)
{
	return strdup(s);
}

__attribute__((weak)) void psc_mem_free(void *p)
{
	free(p);
}
