/* textline.c - errors and numbers of the line-based text file readers. */
#include "lib/textline.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

int textline_vfail(char *err, size_t errlen, const char *path, size_t line, int ret,
		   const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "%s: line %zu: ", path, line);

	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return ret;
}

int textline_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || __builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return -EINVAL;
	}
	*v = x;
	return 0;
}
