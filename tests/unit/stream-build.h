/*
 * stream-build.h - building synthetic stream files for the reader's tests (test_stream*.c):
 * byte buffers, headers, chunks, a temporary directory, and checks of read errors with their
 * exact byte offsets. Included by one test program each: the functions are static.
 */
#ifndef PSC_TEST_STREAM_BUILD_H
#define PSC_TEST_STREAM_BUILD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/stream.h"
#include "tmpdir.h"

/* The stream header's size: every offset below is relative to it. */
#define H ((uint64_t)sizeof(struct psc_stream_header))

/* ---- building stream files ------------------------------------------------------------------ */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static inline void put(struct buf *b, const void *data, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void put_header(struct buf *b, uint32_t version, const char *magic)
{
	struct psc_stream_header h;

	assert_int_equal(sizeof(h), H);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, magic, 8);
	h.version = version;
	h.header_size = sizeof(h);
	h.features = PSC_FEAT_REGIONS;
	h.pid = 4242;
	h.tid = 4243;
	h.rank = -1;
	h.clock_source = 2;
	h.start_ticks = 100;
	h.start_ns = 5000;
	put(b, &h, sizeof(h));
}

static inline void put_chunk(struct buf *b, uint64_t seq, const uint64_t *words, size_t n)
{
	struct psc_chunk_header ch = {PSC_CHUNK_MAGIC, (uint32_t)(n * 8), seq};

	put(b, &ch, sizeof(ch));
	put(b, words, n * 8);
}

/* Word builders. */
#define EXT(ticks, type, nwords, arg)                                                              \
	psc_word0((ticks), PSC_KIND_EXT), psc_ext_word1((type), (nwords), (arg))

static char tmpdir[64];

static inline int make_tmpdir(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir, sizeof(tmpdir), "unit-stream");
}

static inline int remove_tmpdir(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

/* Write B to a new file named NAME in the test directory; PATH receives its path. */
static inline void write_file(struct buf *b, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (b->len)
		assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
	assert_int_equal(fclose(f), 0);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Whether A and B are the same record (the fields of its kind). */
static inline int same_record(const struct stream_record *a, const struct stream_record *b)
{
	if (a->kind != b->kind || a->ticks != b->ticks || a->offset != b->offset)
		return 0;
	if (a->kind != PSC_KIND_EXT)
		return a->addr == b->addr;
	return a->type == b->type && a->arg == b->arg && a->payload == b->payload &&
	       a->npayload == b->npayload;
}

/* Read every record with stream_next(); returns its last result. Before each, the inline
 * steps the walker tries first (stream_next_mpi_call(), stream_next_func()) are tried on a
 * copy of R: a record one of them takes must be the record stream_next() gives, with R left
 * where it leaves it; a record stream_next() refuses must be refused by both. */
static inline int read_all(struct stream_reader *r, char *err, size_t errlen, int *nrec)
{
	struct stream_record rec, fast;
	int ret;

	*nrec = 0;
	for (;;) {
		struct stream_reader probe = *r;
		int took = stream_next_mpi_call(&probe, &fast);

		if (!took) {
			probe = *r;
			memset(&fast, 0, sizeof(fast));
			took = stream_next_func(&probe, &fast);
		}
		ret = stream_next(r, &rec, err, errlen);
		if (took) {
			assert_int_equal(ret, 1);
			assert_true(same_record(&fast, &rec));
			assert_true(probe.pos == r->pos && probe.nrecords == r->nrecords &&
				    probe.last_ticks == r->last_ticks);
		}
		if (ret <= 0)
			return ret;
		(*nrec)++;
	}
}

/* ERR must be exactly "PATH: byte N: " followed by WHAT (a substring of the rest). */
static inline void check_error(const char *err, const char *path, unsigned long long byte,
			       const char *what)
{
	char prefix[512];

	snprintf(prefix, sizeof(prefix), "%s: byte %llu: ", path, byte);
	if (strncmp(err, prefix, strlen(prefix)))
		fail_msg("error '%s' does not start with '%s'", err, prefix);
	if (what && !strstr(err + strlen(prefix), what))
		fail_msg("error '%s' does not say '%s'", err, what);
}

/* Open PATH (must succeed), read to the end, expect an error at BYTE. */
static inline void expect_read_error(const char *path, int nrec_expected, unsigned long long byte,
				     const char *what)
{
	struct stream_reader r;
	char err[512] = "";
	int nrec;

	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(read_all(&r, err, sizeof(err), &nrec), -EINVAL);
	assert_int_equal(nrec, nrec_expected);
	check_error(err, path, byte, what);
	stream_close(&r);
}

/* Clock pairs collected by stream_scan_clock(). */
struct pairs {
	uint64_t ticks[8], ns[8];
	int n;
};

static inline void collect(void *ctx, uint64_t ticks, uint64_t ns)
{
	struct pairs *p = ctx;

	assert_true(p->n < 8);
	p->ticks[p->n] = ticks;
	p->ns[p->n] = ns;
	p->n++;
}

#endif /* PSC_TEST_STREAM_BUILD_H */
