/* jsonw.c - JSON writer. */
#include "lib/jsonw.h"
#include "lib/utf8.h"

#include "lib/mem.h"

#include <inttypes.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, int pretty)
{
	memset(w, 0, sizeof(*w));
	w->pretty = pretty;
}

void jsonw_release(struct jsonw *w)
{
	psc_mem_free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* Room for N more bytes and the NUL in W->buf, grown: 0, or -1 (W failed) */
static int grow(struct jsonw *w, size_t n)
{
	size_t cap = w->cap ? w->cap : 256;
	char *p;

	while (w->len + n + 1 > cap)
		cap *= 2;
	p = psc_mem_realloc(w->buf, cap);
	if (!p) {
		w->failed = 1;
		return -1;
	}
	w->buf = p;
	w->cap = cap;
	return 0;
}

/* Is there room for N more bytes and the NUL (made when not)? A failed writer has none. */
static inline int room(struct jsonw *w, size_t n)
{
	return !w->failed && (w->len + n + 1 <= w->cap || grow(w, n) == 0);
}

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (!room(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

/* put() of the one character C, without a call to memcpy */
static inline void put_char(struct jsonw *w, char c)
{
	if (!room(w, 1))
		return;
	w->buf[w->len++] = c;
	w->buf[w->len] = 0;
}

static void puts_(struct jsonw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void newline(struct jsonw *w)
{
	if (!w->pretty)
		return;
	put_char(w, '\n');
	for (int i = 0; i < w->depth && i < JSONW_INDENT_MAX; i++)
		put(w, "  ", 2);
}

/* Separator before a value that is not an object member's value. */
static void before_value(struct jsonw *w)
{
	if (w->need_comma == 2) { /* right after a key */
		w->need_comma = 1;
		return;
	}
	if (w->need_comma)
		put_char(w, ',');
	if (w->depth)
		newline(w);
	w->need_comma = 1;
}

size_t jsonw_escape(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		uint32_t cp;
		size_t k;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			dst[n++] = (char)c;
			i++;
			continue;
		}
		if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t') {
			dst[n++] = '\\';
			dst[n++] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c;
			i++;
			continue;
		}
		k = c < 0x80 ? 0 : utf8_seq_len(u + i, len - i, &cp);
		if (c < 0x80 || (k && cp < 0xa0)) {
			/* a control character: C0, DEL, or C1 (U+0080 to U+009F) */
			cp = c < 0x80 ? c : cp;
			memcpy(dst + n, "\\u00", 4);
			dst[n + 4] = hex[cp >> 4];
			dst[n + 5] = hex[cp & 15];
			n += 6;
			i += k ? k : 1;
		} else if (k) {
			memcpy(dst + n, u + i, k);
			n += k;
			i += k;
		} else {
			memcpy(dst + n, "\\ufffd", 6);
			n += 6;
			i++;
		}
	}
	return n;
}

/* S as a JSON string, escaped in pieces that never split a UTF-8 sequence. */
static void quoted(struct jsonw *w, const char *s)
{
	size_t len = strlen(s);

	put_char(w, '"');
	while (len && !w->failed) {
		char buf[6 * 256];
		size_t k = len < 256 ? len : 256;

		for (size_t back = 0; k < len && back < 3 && ((unsigned char)s[k] & 0xc0) == 0x80;
		     back++)
			k--;
		put(w, buf, jsonw_escape(buf, s, k));
		s += k;
		len -= k;
	}
	put_char(w, '"');
}

static void open_(struct jsonw *w, const char *c)
{
	before_value(w);
	puts_(w, c);
	w->depth++;
	w->need_comma = 0;
}

static void close_(struct jsonw *w, const char *c)
{
	int had = w->need_comma;

	w->depth--;
	if (had)
		newline(w);
	puts_(w, c);
	w->need_comma = 1;
}

void jsonw_object_begin(struct jsonw *w)
{
	open_(w, "{");
}

void jsonw_object_end(struct jsonw *w)
{
	close_(w, "}");
}

void jsonw_array_begin(struct jsonw *w)
{
	open_(w, "[");
}

void jsonw_array_end(struct jsonw *w)
{
	close_(w, "]");
}

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	quoted(w, key);
	puts_(w, w->pretty ? ": " : ":");
	w->need_comma = 2;
}

void jsonw_string(struct jsonw *w, const char *s)
{
	before_value(w);
	quoted(w, s ? s : "");
}

/* The number of decimal digits of V: about its bit length times log10(2) (1233 / 4096), one
 * more when V reaches the next power of ten. */
static inline size_t dec_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {1ull,
					   10ull,
					   100ull,
					   1000ull,
					   10000ull,
					   100000ull,
					   1000000ull,
					   10000000ull,
					   100000000ull,
					   1000000000ull,
					   10000000000ull,
					   100000000000ull,
					   1000000000000ull,
					   10000000000000ull,
					   100000000000000ull,
					   1000000000000000ull,
					   10000000000000000ull,
					   100000000000000000ull,
					   1000000000000000000ull,
					   10000000000000000000ull};
	size_t t = ((64 - (size_t)__builtin_clzll(v | 1)) * 1233) >> 12;

	return t + (v >= pow10[t]) + (v == 0);
}

/* V in decimal, after a '-' when NEG, written in place two digits at a time (the reports write
 * millions of numbers). */
static void put_dec(struct jsonw *w, uint64_t v, int neg)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
				    "31323334353637383940414243444546474849505152535455565758596061"
				    "62636465666768697071727374757677787980818283848586878889909192"
				    "93949596979899";
	size_t n = dec_digits(v) + (neg != 0);
	char *p;

	if (!room(w, n))
		return;
	p = w->buf + w->len + n;
	*p = 0;
	for (; v >= 100; v /= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	if (neg)
		*--p = '-';
	w->len += n;
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	before_value(w);
	put_dec(w, v, 0);
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	before_value(w);
	put_dec(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/*
 * The significant digits of v when v is a whole number of 1/10000ths
 * below 2^50 (integers, values rounded to 4 decimals: most numbers the
 * reports write), else 0. Printing k/10^4 with fewer digits rounds away
 * a nonzero digit and names another such number, a different double, so
 * this is the precision the shortest round-trip search would find, and
 * as v = k / 10^4 correctly rounded, those digits read back to v.
 */
static int short_prec(double v)
{
	static const double scales[] = {1, 1e4};

	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		double k = v * scales[i];
		uint64_t u;
		int digits = 0;

		if (!(fabs(k) < 0x1p50) || k != floor(k) || k / scales[i] != v)
			continue;
		u = (uint64_t)fabs(k);
		if (u == 0)
			return 1;
		while (u % 10 == 0)
			u /= 10;
		for (; u; u /= 10)
			digits++;
		return digits;
	}
	return 0;
}

/* V with PREC significant digits into BUF (SIZE bytes): 1 when they read back to V. */
static int reads_back(char *buf, size_t size, int prec, double v)
{
	int len = snprintf(buf, size, "%.*g", prec, v);

	return len > 0 && (size_t)len < size && strtod(buf, NULL) == v;
}

void jsonw_double(struct jsonw *w, double v)
{
	char buf[40];
	int prec;

	before_value(w);
	if (!isfinite(v)) {
		puts_(w, "null");
		return;
	}
	prec = short_prec(v);
	if (prec > 0) {
		/* v is the double nearest k/10^4, which these digits spell */
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		puts_(w, buf);
		return;
	}
	/* the shortest form that reads back to the same double. Up to 15 digits, a precision
	 * that reads back is followed by ones that do (the decimal it gives is the nearest one of
	 * more digits too), so 15 is tried first: when it fails, no fewer digits read back and the
	 * answer is 16 or 17 (16 may not read back where 15 does: a power of two, nearer its lower
	 * neighbour), which most values short_prec() leaves here need (rates, means); when it
	 * reads back, bisection over 1..15 finds the fewest. 17 digits always read back. */
	if (reads_back(buf, sizeof(buf), 15, v)) {
		for (int lo = 1, hi = 15; lo < hi;) {
			char tmp[40];
			int mid = (lo + hi) / 2;

			if (reads_back(tmp, sizeof(tmp), mid, v)) {
				hi = mid;
				memcpy(buf, tmp, sizeof(tmp));
			} else {
				lo = mid + 1;
			}
		}
	} else if (!reads_back(buf, sizeof(buf), 16, v)) {
		snprintf(buf, sizeof(buf), "%.17g", v);
	}
	puts_(w, buf);
}

void jsonw_bool(struct jsonw *w, int v)
{
	before_value(w);
	puts_(w, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	puts_(w, "null");
}

void jsonw_kv_string(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_string(w, s);
}

void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_i64(w, v);
}

void jsonw_kv_double(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

void jsonw_kv_bool(struct jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

const char *jsonw_text(struct jsonw *w)
{
	if (w->failed)
		return NULL;
	if (!w->buf)
		put(w, "", 0);
	return w->failed ? NULL : w->buf;
}

void jsonw_init_part(struct jsonw *part, const struct jsonw *w)
{
	jsonw_init(part, w->pretty);
	part->depth = w->depth;
	part->need_comma = w->need_comma == 2 ? 2 : 0; /* right after a key: its value */
}

void jsonw_splice(struct jsonw *w, struct jsonw *part)
{
	if (part->failed) {
		w->failed = 1;
	} else if (part->len) {
		/* the part's first value was written as the first of its level (after a key,
		 * the part is that key's value) */
		if (w->need_comma == 1)
			put_char(w, ',');
		put(w, part->buf, part->len);
		w->need_comma = 1;
	}
	jsonw_release(part);
}

int jsonw_print(struct jsonw *w, FILE *f)
{
	int ret = jsonw_text(w) ? 0 : -ENOMEM;

	if (ret == 0 && (fprintf(f, "%s\n", w->buf) < 0 || ferror(f)))
		ret = -EIO;
	jsonw_release(w);
	return ret;
}
