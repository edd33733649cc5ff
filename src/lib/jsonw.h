/*
 * jsonw.h - a small JSON writer into a growing memory buffer. Used by the runtime (which must
 * not pull in a JSON library) for per-process files and by the CLI for --json output.
 * Commas and escaping are handled here; the caller states structure.
 */
#ifndef PSC_JSONW_H
#define PSC_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jsonw {
	char *buf;
	size_t len, cap;
	int need_comma; /* a value was written at the current nesting level */
	int failed;	/* an allocation failed: the output is incomplete */
	int pretty;
	int depth;
};

/* Pretty output indents by two spaces per level up to this depth, no further: a document
 * nested a million levels deep (a call chain) stays linear in size, not quadratic. */
#define JSONW_INDENT_MAX 32

void jsonw_init(struct jsonw *w, int pretty);
void jsonw_release(struct jsonw *w);

void jsonw_object_begin(struct jsonw *w);
void jsonw_object_end(struct jsonw *w);
void jsonw_array_begin(struct jsonw *w);
void jsonw_array_end(struct jsonw *w);
/* An object key; the next call writes its value. */
void jsonw_key(struct jsonw *w, const char *key);
/* S (NULL: "") as a string, escaped as jsonw_escape() says: valid JSON whatever S holds. */
void jsonw_string(struct jsonw *w, const char *s);
void jsonw_u64(struct jsonw *w, uint64_t v);
void jsonw_i64(struct jsonw *w, int64_t v);
/* A finite double with up to 17 significant digits; NaN and infinities become null. */
void jsonw_double(struct jsonw *w, double v);
void jsonw_bool(struct jsonw *w, int v);
void jsonw_null(struct jsonw *w);

/* Shorthands for "key": value. */
void jsonw_kv_string(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_double(struct jsonw *w, const char *key, double v);
void jsonw_kv_bool(struct jsonw *w, const char *key, int v);

/*
 * The LEN bytes at S as the inside of a JSON string into DST (room for 6 * LEN bytes needed),
 * so that any bytes give valid JSON: '"' and '\\' escaped, newline, CR and tab as \n \r \t,
 * the other control characters (C0, DEL, and C1 U+0080 to U+009F, which some terminals obey)
 * as \u00XX, each byte that is not part of valid UTF-8 (utf8.h) as \ufffd; valid UTF-8 is kept
 * as it is. Keys and strings of the writer are escaped so; the Chrome trace writer calls it
 * directly. Returns the bytes written (no NUL).
 */
size_t jsonw_escape(char *dst, const char *s, size_t len);

/* Write the document and a newline to F, then release W: the end of every --json output.
 * 0, -ENOMEM (an allocation failed while writing) or -EIO. */
int jsonw_print(struct jsonw *w, FILE *f);

/* The text written so far, NUL-terminated (never NULL), or NULL if an allocation failed. */
const char *jsonw_text(struct jsonw *w);

/* PART ready for members or elements written apart from W (in another thread, say) at W's
 * current level, which jsonw_splice() then appends to W. */
void jsonw_init_part(struct jsonw *part, const struct jsonw *w);

/* PART's text (jsonw_init_part) appended to W, with the comma it needs there; PART released.
 * After a key, PART must hold its one value. */
void jsonw_splice(struct jsonw *w, struct jsonw *part);

#endif /* PSC_JSONW_H */
