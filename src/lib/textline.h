/*
 * textline.h - what the readers of perfscope's line-based text files share (power logs, load
 * logs): the "PATH: line N: ..." error and strict decimal numbers.
 */
#ifndef PSC_TEXTLINE_H
#define PSC_TEXTLINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* "PATH: line LINE: " and the message of FMT into ERR; returns RET (a negative errno). */
int textline_vfail(char *err, size_t errlen, const char *path, size_t line, int ret,
		   const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* Decimal digits only (no sign, no blank) into *V. 0 or -EINVAL (syntax, overflow). */
int textline_u64(const char *s, uint64_t *v);

#endif /* PSC_TEXTLINE_H */
