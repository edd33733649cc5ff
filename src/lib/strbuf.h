/*
 * strbuf.h - a growable string buffer (after git's strbuf), for every text built piece by
 * piece: lists joined with separators, messages, environment values. No fixed buffer, so no
 * silent truncation.
 *
 * Appends can be chained and checked once: the first one that fails is remembered in sb->err
 * (-ENOMEM; -EINVAL for a format vsnprintf refuses), every later append does nothing and
 * returns it, and strbuf_detach returns NULL. The memory comes from psc_mem_* (lib/mem.h),
 * so the runtime can use a strbuf without calling the measured program's allocator.
 */
#ifndef PSC_LIB_STRBUF_H
#define PSC_LIB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;    /* NUL-terminated when alloc > 0; NULL before the first append */
	size_t len;   /* bytes in buf, the NUL not counted */
	size_t alloc; /* bytes allocated at buf */
	int err;      /* 0, or the error of the first append that failed */
};

#define STRBUF_INIT ((struct strbuf){NULL, 0, 0, 0})

/* An empty buffer, nothing allocated (same as STRBUF_INIT). */
void strbuf_init(struct strbuf *sb);

/* Room for EXTRA more bytes and the NUL. 0, or sb->err (-ENOMEM, also on size overflow). */
int strbuf_grow(struct strbuf *sb, size_t extra);

/* Append LEN bytes of DATA. 0 or sb->err. */
int strbuf_add(struct strbuf *sb, const void *data, size_t len);

/* Append the string S. 0 or sb->err. */
int strbuf_adds(struct strbuf *sb, const char *s);

/* Append the byte C. 0 or sb->err. */
int strbuf_addch(struct strbuf *sb, int c);

/* Append printf(FMT, ...). 0 or sb->err. */
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* strbuf_addf with a va_list. */
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Append the N strings ITEMS separated by SEP (not before the first, not after the last).
 * 0 or sb->err. */
int strbuf_join(struct strbuf *sb, const char *const *items, size_t n, const char *sep);

/* The text so far: "" when nothing was appended (never NULL). */
const char *strbuf_str(const struct strbuf *sb);

/* Empty the buffer and clear sb->err, keeping its memory. */
void strbuf_reset(struct strbuf *sb);

/* The text, now owned by the caller (free it with psc_mem_free, which is free() outside the
 * runtime), and *LEN its length when LEN is not NULL; the buffer is left empty. NULL, the
 * buffer released, when an append failed. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Free the memory; the buffer is empty and usable again. */
void strbuf_release(struct strbuf *sb);

#endif /* PSC_LIB_STRBUF_H */
