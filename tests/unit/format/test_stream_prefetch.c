/*
 * test_stream_prefetch.c - the reader's prefetch thread (stream-chunk.c) changes nothing a
 * caller sees: the same records with the same offsets, the same end of a cut-short stream, the
 * same error with the same message and byte offset, read with STREAM_PREFETCH_OFF (every chunk
 * loaded in the calling thread), _ON (from the first chunk) and _AUTO; closing a reader while
 * the thread loads, or after an error, frees everything (ASan build).
 */
#include "stream-build.h"

#include <lz4.h>

enum { N = 1000, NZ = 4 }; /* function records per compressed chunk, compressed chunks */

/* A compressed chunk of the N words WORDS, whose first record is a clock-sync record. */
static void put_zchunk(struct buf *b, uint64_t seq, const uint64_t *words, size_t n)
{
	const size_t head = PSC_ZCHUNK_HEAD_WORDS, raw = (n - head) * 8;
	char *z = calloc(1, (size_t)LZ4_compressBound((int)raw) + 8);
	int csize;
	uint64_t zw;
	struct psc_chunk_header ch;

	assert_non_null(z);
	csize = LZ4_compress_default((const char *)(words + head), z, (int)raw,
				     LZ4_compressBound((int)raw));
	assert_true(csize > 0);
	ch = (struct psc_chunk_header){PSC_CHUNK_MAGIC_LZ4,
				       (uint32_t)(head * 8 + 8 + ((size_t)csize + 7) / 8 * 8), seq};
	zw = psc_zchunk_word((uint32_t)raw, (uint32_t)csize);
	put(b, &ch, sizeof(ch));
	put(b, words, head * 8);
	put(b, &zw, 8);
	put(b, z, ((size_t)csize + 7) / 8 * 8);
	free(z);
}

/* N function records after a clock-sync record at ticks T0, into W (3 + 2 N words). */
static void func_chunk(uint64_t *w, uint64_t t0)
{
	w[0] = psc_word0(t0, PSC_KIND_EXT);
	w[1] = psc_ext_word1(PSC_REC_CLOCK_SYNC, 3, 0);
	w[2] = 1000 * t0;
	for (size_t i = 0; i < N; i++) {
		w[3 + 2 * i] =
		    psc_word0(t0 + 1 + i, i % 2 ? PSC_KIND_FUNC_EXIT : PSC_KIND_FUNC_ENTER);
		w[4 + 2 * i] = 0x401000 + 16 * (i / 2 % 7) + t0;
	}
}

/* Offsets of the chunks of the stream build_stream() writes: 0 plain, 1..NZ compressed, then
 * a plain one with the end record. */
static uint64_t choff[NZ + 2];

/*
 * The test stream into B; BACKWARDS: compressed chunk 1's 10th function record goes back in
 * time (a defect of a record, not of a chunk).
 */
static void build_stream(struct buf *b, int backwards)
{
	static uint64_t cz[3 + 2 * N];
	const uint64_t c0[] = {EXT(10, PSC_REC_CLOCK_SYNC, 3, 0), 10000,
			       psc_word0(11, PSC_KIND_FUNC_ENTER), 0x500000};
	const uint64_t cend[] = {EXT(90000, PSC_REC_CLOCK_SYNC, 3, 0), 90000000,
				 psc_word0(90001, PSC_KIND_FUNC_EXIT), 0x500000,
				 EXT(90002, PSC_REC_STREAM_END, 2, PSC_END_EXIT)};

	put_header(b, 2, PSC_STREAM_MAGIC);
	choff[0] = b->len;
	put_chunk(b, 0, c0, 5);
	for (int i = 1; i <= NZ; i++) {
		func_chunk(cz, 100 + 10000 * (uint64_t)i);
		if (backwards && i == 1)
			cz[3 + 2 * 9] = psc_word0(50, PSC_KIND_FUNC_EXIT);
		choff[i] = b->len;
		put_zchunk(b, (uint64_t)i, cz, 3 + 2 * N);
	}
	choff[NZ + 1] = b->len;
	put_chunk(b, NZ + 1, cend, 7);
}

/* What a caller sees of one record. */
struct seen {
	enum psc_kind kind;
	enum psc_rec_type type;
	uint64_t arg; /* 64 bits: no padding, the entries are compared with memcmp */
	uint64_t ticks, offset, addr, npayload, payload0;
	uint64_t next_seq, chunk_offset, chunk_words;
};

/* All of it, for one read of a stream. */
struct log {
	struct seen *rec;
	size_t n, cap;
	int ret;
	char err[512];
	uint64_t truncated_at, nrecords, next_seq;
	int ended, prefetched;
};

static void log_add(struct log *l, const struct stream_reader *r, const struct stream_record *rec)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->rec = realloc(l->rec, l->cap * sizeof(*l->rec));
		assert_non_null(l->rec);
	}
	l->rec[l->n++] =
	    (struct seen){rec->kind,
			  rec->kind == PSC_KIND_EXT ? rec->type : 0,
			  rec->kind == PSC_KIND_EXT ? rec->arg : 0,
			  rec->ticks,
			  rec->offset,
			  rec->kind == PSC_KIND_EXT ? 0 : rec->addr,
			  rec->kind == PSC_KIND_EXT ? rec->npayload : 0,
			  rec->kind == PSC_KIND_EXT && rec->npayload ? rec->payload[0] : 0,
			  r->next_seq,
			  r->chunk_offset,
			  r->chunk_words};
}

/*
 * Read PATH in MODE as report does (the inline function-record path first), into *L with an
 * ERRLEN-byte error buffer; stop after STOP records (0: read to the end) and close there.
 */
static void read_log(const char *path, enum stream_prefetch_mode mode, struct log *l, size_t errlen,
		     size_t stop)
{
	struct stream_reader r;
	struct stream_record rec;
	char err[512] = "";

	memset(l, 0, sizeof(*l));
	assert_true(errlen <= sizeof(err));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	stream_set_prefetch(&r, mode);
	for (;;) {
		if (!stream_next_func(&r, &rec)) {
			l->ret = stream_next(&r, &rec, err, errlen);
			if (l->ret <= 0)
				break;
		}
		log_add(l, &r, &rec);
		l->prefetched |= r.pf != NULL;
		if (stop && l->n == stop)
			break;
	}
	snprintf(l->err, sizeof(l->err), "%s", l->ret < 0 ? err : "");
	l->truncated_at = r.truncated_at;
	l->nrecords = r.nrecords;
	l->next_seq = r.next_seq;
	l->ended = r.ended;
	stream_close(&r);
	assert_null(r.pf);
}

static void log_free(struct log *l)
{
	free(l->rec);
	memset(l, 0, sizeof(*l));
}

/* PATH read in every mode: identical; the OFF read into *OFF (for the caller's checks). */
static void expect_same(const char *path, struct log *off, size_t errlen)
{
	const enum stream_prefetch_mode modes[] = {STREAM_PREFETCH_ON, STREAM_PREFETCH_AUTO};

	read_log(path, STREAM_PREFETCH_OFF, off, errlen, 0);
	assert_false(off->prefetched);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct log l;

		read_log(path, modes[m], &l, errlen, 0);
		if (modes[m] == STREAM_PREFETCH_ON && off->n > 0)
			assert_true(l.prefetched);
		assert_int_equal(l.n, off->n);
		for (size_t i = 0; i < l.n; i++)
			if (memcmp(&l.rec[i], &off->rec[i], sizeof(l.rec[i])))
				fail_msg("mode %d: record %zu differs", modes[m], i);
		assert_int_equal(l.ret, off->ret);
		assert_string_equal(l.err, off->err);
		assert_int_equal(l.truncated_at, off->truncated_at);
		assert_int_equal(l.nrecords, off->nrecords);
		assert_int_equal(l.next_seq, off->next_seq);
		assert_int_equal(l.ended, off->ended);
		log_free(&l);
	}
}

/* An intact stream: every record, in every mode. */
static void test_intact(void **state)
{
	struct buf b = {0};
	struct log l;
	char path[256];

	(void)state;
	build_stream(&b, 0);
	write_file(&b, "pf.ok", path, sizeof(path));
	expect_same(path, &l, 512);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.n, 2 + NZ * (1 + N) + 3);
	assert_true(l.ended);
	assert_int_equal(l.next_seq, NZ + 2);
	assert_int_equal(l.rec[2].offset, choff[1]); /* compressed: the chunk's offset */
	assert_int_equal(l.rec[l.n - 1].offset, choff[NZ + 1] + 16 + 5 * 8);
	log_free(&l);
}

/* Cut inside compressed chunk 3, or in its header: the stream ends before it, in every mode. */
static void test_cut(void **state)
{
	struct buf b = {0};
	struct log l;
	char path[256];
	size_t len;

	(void)state;
	build_stream(&b, 0);
	free(b.p);
	memset(&b, 0, sizeof(b));
	len = choff[4] - choff[3];
	for (size_t cut = choff[3] + 8; cut < choff[4]; cut += len / 4) {
		build_stream(&b, 0);
		b.len = cut;
		write_file(&b, "pf.cut", path, sizeof(path));
		expect_same(path, &l, 512);
		assert_int_equal(l.ret, 0);
		assert_int_equal(l.n, 2 + 2 * (1 + N));
		assert_int_equal(l.truncated_at, choff[3]);
		assert_false(l.ended);
		log_free(&l);
	}
}

/* Defective chunks in the middle: the same error, message and offset in every mode, after the
 * same records; also with an error buffer too short for the message. */
static void test_corrupt(void **state)
{
	struct buf b = {0};
	struct log l;
	char path[256], want[64];

	(void)state;
	/* chunk 2's block does not decompress to the size it claims */
	build_stream(&b, 0);
	memcpy(&b.p[choff[2] + 16 + 24], &(uint32_t){(uint32_t)(2 * N * 8 - 8)}, 4);
	write_file(&b, "pf.zbad", path, sizeof(path));
	expect_same(path, &l, 512);
	assert_int_equal(l.ret, -EINVAL);
	assert_int_equal(l.n, 2 + 1 + N);
	check_error(l.err, path, choff[2] + 16 + 24 + 8, "does not decompress");
	log_free(&l);
	expect_same(path, &l, 20);
	assert_int_equal(l.ret, -EINVAL);
	assert_int_equal(strlen(l.err), 19);
	log_free(&l);

	/* chunk 3's sequence number */
	build_stream(&b, 0);
	memcpy(&b.p[choff[3] + 8], &(uint64_t){7}, 8);
	write_file(&b, "pf.seq", path, sizeof(path));
	expect_same(path, &l, 512);
	assert_int_equal(l.ret, -EINVAL);
	assert_int_equal(l.n, 2 + 2 * (1 + N));
	check_error(l.err, path, choff[3] + 8, "chunk sequence 7, expected 3");
	log_free(&l);

	/* the last chunk's magic */
	build_stream(&b, 0);
	memcpy(&b.p[choff[NZ + 1]], &(uint32_t){0x12345678}, 4);
	write_file(&b, "pf.magic", path, sizeof(path));
	expect_same(path, &l, 512);
	assert_int_equal(l.ret, -EINVAL);
	assert_int_equal(l.n, 2 + NZ * (1 + N));
	snprintf(want, sizeof(want), "bad chunk magic 0x%08x", 0x12345678);
	check_error(l.err, path, choff[NZ + 1], want);
	log_free(&l);

	/* a record of chunk 1 goes back in time while chunk 2 is damaged: chunk 1's error */
	build_stream(&b, 1);
	memcpy(&b.p[choff[2] + 16 + 24], &(uint32_t){(uint32_t)(2 * N * 8 - 8)}, 4);
	write_file(&b, "pf.back", path, sizeof(path));
	expect_same(path, &l, 512);
	assert_int_equal(l.ret, -EINVAL);
	assert_int_equal(l.n, 2 + 1 + 9);
	check_error(l.err, path, choff[1], "time goes backwards");
	log_free(&l);
}

/* Closing while the thread loads the next chunk, at every point of the stream, and after an
 * error: nothing leaks (ASan), nothing is left running (stream_close joins). */
static void test_close_early(void **state)
{
	struct buf b = {0};
	struct log l;
	char path[256];

	(void)state;
	build_stream(&b, 0);
	write_file(&b, "pf.early", path, sizeof(path));
	for (size_t stop = 1; stop < 2 + NZ * (1 + N); stop += 1 + N / 3) {
		read_log(path, STREAM_PREFETCH_ON, &l, 512, stop);
		assert_int_equal(l.n, stop);
		assert_true(l.prefetched);
		log_free(&l);
	}
	build_stream(&b, 0);
	memcpy(&b.p[choff[2] + 16 + 24], &(uint32_t){(uint32_t)(2 * N * 8 - 8)}, 4);
	write_file(&b, "pf.early-bad", path, sizeof(path));
	read_log(path, STREAM_PREFETCH_ON, &l, 512, 0);
	assert_int_equal(l.ret, -EINVAL);
	log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intact),
	    cmocka_unit_test(test_cut),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_close_early),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
