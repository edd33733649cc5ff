/* strv.c - arrays of owned strings grown one formatted line at a time (strv.h). */
#include "lib/strv.h"

#include "lib/array.h"

#include <errno.h>
#include <stdio.h>

int strv_vpushf(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
{
	char *s;

	if (ARRAY_GROW(*v, *n + 1, *cap) || vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = s;
	return 0;
}
