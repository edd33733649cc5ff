/*
 * chrome-int.h - what the Chrome export's files (chrome.c, chrome-model.c) share: the buffered
 * output and the head of one trace event.
 */
#ifndef PSC_CHROME_INT_H
#define PSC_CHROME_INT_H

#include "export/chrome.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <string.h>

#define OUT_CAP	 (1u << 20) /* output buffer: written out in blocks of this size */
#define ROOM_MAX 256	    /* the most one event needs besides its name */
#define PREFIX	 64	    /* an event's head up to "ts": fits in this, copied whole */
#define NAME_PAD 48	    /* names up to this long are copied as a whole block */

/* Buffered output: whole blocks go to the FILE, the first write error is kept. */
struct out {
	FILE *f;
	char *buf;
	size_t len;
	int error;
	int first; /* no event written yet: the next needs no comma */
	uint64_t bytes;
	uint64_t events;
	uint64_t ts_us; /* the integer microseconds last printed, and their digits */
	char ts_text[24];
	size_t ts_len;
};

static inline void out_flush(struct out *o)
{
	if (o->len && !o->error && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->error = errno ? -errno : -EIO;
	o->bytes += o->len;
	o->len = 0;
}

/* Room for N (<= OUT_CAP) more bytes at the end of the buffer. */
static inline char *out_room(struct out *o, size_t n)
{
	if (OUT_CAP - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

static inline void out_put(struct out *o, const void *p, size_t n)
{
	if (OUT_CAP - o->len < n) {
		out_flush(o);
		if (n > OUT_CAP) {
			if (!o->error && fwrite(p, 1, n, o->f) != n)
				o->error = errno ? -errno : -EIO;
			o->bytes += n;
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

#define out_lit(o, lit) out_put((o), (lit), sizeof(lit) - 1)

/* S escaped, in pieces that never split a UTF-8 sequence. */
static inline void out_escaped(struct out *o, const char *s, size_t len)
{
	while (len) {
		size_t k = len < 4096 ? len : 4096;

		for (size_t back = 0; k < len && back < 3 && ((unsigned char)s[k] & 0xc0) == 0x80;
		     back++)
			k--;
		o->len += jsonw_escape(out_room(o, 6 * k), s, k);
		s += k;
		len -= k;
	}
}

static inline void out_string(struct out *o, const char *s)
{
	out_lit(o, "\"");
	out_escaped(o, s, strlen(s));
	out_lit(o, "\"");
}

static inline void out_u64(struct out *o, uint64_t v)
{
	o->len += chrome_format_u64(out_room(o, 24), v);
}

/* The separator before an event. */
static inline char *event_start(struct out *o, char *p)
{
	if (o->first) {
		o->first = 0;
		*p++ = '\n';
	} else {
		*p++ = ',';
		*p++ = '\n';
	}
	o->events++;
	return p;
}

/* The time at P: consecutive events mostly share their microseconds, whose digits are kept. */
static inline char *put_ts(struct out *o, char *p, int64_t ns)
{
	uint64_t us;
	uint32_t r, tens;

	if (ns < 0)
		return p + chrome_format_us(p, ns);
	us = (uint64_t)ns / 1000;
	/* the three digits in 32-bit arithmetic, one division by 10 shared by two of them */
	r = (uint32_t)((uint64_t)ns - us * 1000);
	tens = r / 10;
	if (us != o->ts_us) {
		o->ts_us = us;
		o->ts_len = chrome_format_u64(o->ts_text, us);
	}
	memcpy(p, o->ts_text, sizeof(o->ts_text));
	p += o->ts_len;
	p[0] = '.';
	p[1] = (char)('0' + tens / 10);
	p[2] = (char)('0' + tens % 10);
	p[3] = (char)('0' + (r - tens * 10));
	return p + 4;
}

/* Separator, the head PREFIX (up to "ts":, N bytes, in a PREFIX-sized array) and the time. */
static inline char *event_head_at(struct out *o, const char *prefix, size_t n, int64_t rel_ns)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	memcpy(p, prefix, PREFIX);
	return put_ts(o, p + n, rel_ns);
}

static inline void event_head(struct out *o, const char *prefix, size_t n, int64_t rel_ns)
{
	o->len = (size_t)(event_head_at(o, prefix, n, rel_ns) - o->buf);
}

#endif /* PSC_CHROME_INT_H */
