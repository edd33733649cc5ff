/* strbuf.c - a growable string buffer (strbuf.h). */
#include "lib/strbuf.h"

#include "lib/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void strbuf_init(struct strbuf *sb)
{
	*sb = STRBUF_INIT;
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need, ncap;
	char *p;

	if (sb->err)
		return sb->err;
	if (extra > SIZE_MAX - 1 - sb->len) {
		sb->err = -ENOMEM;
		return sb->err;
	}
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	ncap = sb->alloc ? sb->alloc : 64;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p = psc_mem_realloc(sb->buf, ncap);
	if (!p) {
		sb->err = -ENOMEM;
		return sb->err;
	}
	if (!sb->buf)
		p[0] = 0;
	sb->buf = p;
	sb->alloc = ncap;
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (strbuf_grow(sb, len))
		return sb->err;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = 0;
	return 0;
}

int strbuf_adds(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	return strbuf_add(sb, &ch, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (strbuf_grow(sb, 0))
		return sb->err;
	va_copy(again, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	if (n >= 0 && (size_t)n >= sb->alloc - sb->len) {
		if (strbuf_grow(sb, (size_t)n) == 0)
			n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
	}
	va_end(again);
	if (n < 0 && !sb->err)
		sb->err = -EINVAL; /* a format vsnprintf refuses (bad multibyte in %ls) */
	if (sb->err) {
		sb->buf[sb->len] = 0; /* the part the first try wrote */
		return sb->err;
	}
	sb->len += (size_t)n;
	return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return ret;
}

int strbuf_join(struct strbuf *sb, const char *const *items, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_adds(sb, sep);
		strbuf_adds(sb, items[i]);
	}
	return sb->err;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->err = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s;

	if (sb->err || strbuf_grow(sb, 0)) {
		strbuf_release(sb);
		return NULL;
	}
	s = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb);
	return s;
}

void strbuf_release(struct strbuf *sb)
{
	psc_mem_free(sb->buf);
	strbuf_init(sb);
}
