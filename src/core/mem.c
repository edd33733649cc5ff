/* mem.c - calloc and free, unless the runtime defines psc_mem_* itself (mem.h). */
#include "mem.h"

#include <stdlib.h>

__attribute__((weak)) void *psc_mem_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

__attribute__((weak)) void psc_mem_free(void *p)
{
	free(p);
}
