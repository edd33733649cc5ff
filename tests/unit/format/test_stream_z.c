/*
 * test_stream_z.c - the reader on stream version 2's compressed chunks (docs/format.md
 * "Compressed chunks"), built with liblz4 as the runtime builds them: records read back
 * exactly, calibration, cut-short chunks (a killed run) and every defect of their framing.
 */
#include "stream-build.h"

#include <lz4.h>

/* A compressed chunk (docs/format.md "Compressed chunks") of the N words WORDS, whose first
 * record is a clock-sync record. */
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
static void func_chunk(uint64_t *w, uint64_t t0, size_t n)
{
	w[0] = psc_word0(t0, PSC_KIND_EXT);
	w[1] = psc_ext_word1(PSC_REC_CLOCK_SYNC, 3, 0);
	w[2] = 1000 * t0;
	for (size_t i = 0; i < n; i++) {
		w[3 + 2 * i] =
		    psc_word0(t0 + 1 + i, i % 2 ? PSC_KIND_FUNC_EXIT : PSC_KIND_FUNC_ENTER);
		w[4 + 2 * i] = 0x401000 + 16 * (i / 2 % 7);
	}
}

/*
 * Stream version 2: a compressed chunk between two plain ones reads back record for record,
 * its records at the chunk's offset; the calibration scan sees its clock-sync record; cut
 * short it ends the stream there (a killed run); a damaged block, bad sizes and a compressed
 * chunk in a version 1 stream are errors at the chunk's fields.
 */
static void test_compressed(void **state)
{
	enum { N = 2000 };
	static uint64_t c1[3 + 2 * N];
	const uint64_t c0[] = {EXT(10, PSC_REC_CLOCK_SYNC, 3, 0), 10000,
			       psc_word0(11, PSC_KIND_FUNC_ENTER), 0x500000};
	const uint64_t c2[] = {EXT(9000, PSC_REC_CLOCK_SYNC, 3, 0), 9000000,
			       psc_word0(9001, PSC_KIND_FUNC_EXIT), 0x500000,
			       EXT(9002, PSC_REC_STREAM_END, 2, PSC_END_EXIT)};
	const uint64_t z1 = H + 16 + 5 * 8; /* the compressed chunk's offset */
	struct stream_reader r;
	struct stream_record rec;
	struct buf b = {0};
	struct pairs p;
	char path[256], err[512] = "";
	size_t full, i = 0;
	int nrec, ret;

	(void)state;
	func_chunk(c1, 100, N);
	put_header(&b, 2, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_zchunk(&b, 1, c1, 3 + 2 * N);
	assert_true(b.len - z1 < N * 16 * 3 / 4); /* it did compress */
	put_chunk(&b, 2, c2, 7);
	full = b.len;
	write_file(&b, "stream.z", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		if (i >= 2 && i < 3 + N) { /* c1's records */
			uint64_t w0 = c1[i == 2 ? 0 : 3 + 2 * (i - 3)];

			assert_int_equal(rec.ticks, psc_rec_ticks(w0));
			assert_int_equal(rec.kind, psc_rec_kind(w0));
			if (i > 2)
				assert_int_equal(rec.addr, c1[4 + 2 * (i - 3)]);
			assert_int_equal(rec.offset, z1);
		}
		i++;
	}
	if (ret)
		fail_msg("%s", err);
	assert_int_equal(i, 2 + 1 + N + 3);
	assert_true(r.ended);
	assert_int_equal(r.truncated_at, 0);
	stream_close(&r);

	memset(&p, 0, sizeof(p));
	assert_int_equal(stream_scan_clock(path, collect, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.ticks[1], 100);
	assert_int_equal(p.ns[1], 100000);

	/* cut inside the compressed chunk: the first chunk's records, then the end */
	for (size_t cut = z1 + 8; cut < full - 7 * 8 - 16; cut += (full - z1) / 5) {
		put_header(&b, 2, PSC_STREAM_MAGIC);
		put_chunk(&b, 0, c0, 5);
		put_zchunk(&b, 1, c1, 3 + 2 * N);
		b.len = cut;
		write_file(&b, "stream.zcut", path, sizeof(path));
		assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
		assert_int_equal(read_all(&r, err, sizeof(err), &nrec), 0);
		assert_int_equal(nrec, 2);
		assert_int_equal(r.truncated_at, z1);
		stream_close(&r);
	}

	/* a block that does not decompress to the size it claims (8 bytes less) */
	put_header(&b, 2, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_zchunk(&b, 1, c1, 3 + 2 * N);
	memcpy(&b.p[z1 + 16 + 24], &(uint32_t){(uint32_t)(2 * N * 8 - 8)}, 4);
	write_file(&b, "stream.zbad", path, sizeof(path));
	expect_read_error(path, 2, z1 + 16 + 24 + 8, "does not decompress");

	/* sizes that do not fit the chunk: the sizes word */
	put_header(&b, 2, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_zchunk(&b, 1, c1, 3 + 2 * N);
	memcpy(&b.p[z1 + 16 + 24 + 4], &(uint32_t){0x7fffffff}, 4);
	write_file(&b, "stream.zsize", path, sizeof(path));
	expect_read_error(path, 2, z1 + 16 + 24, "compressed chunk");

	/* a RAW no LZ4 block of CSIZE bytes can hold (1 GiB from a few bytes): refused before the
	 * reader sizes its buffer for it */
	put_header(&b, 2, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_zchunk(&b, 1, c1, 3 + 2 * N);
	memcpy(&b.p[z1 + 16 + 24], &(uint32_t){1u << 30}, 4);
	write_file(&b, "stream.zraw", path, sizeof(path));
	expect_read_error(path, 2, z1 + 16 + 24, "compressed chunk");

	/* a chunk too short for its head */
	put_header(&b, 2, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	{
		struct psc_chunk_header ch = {PSC_CHUNK_MAGIC_LZ4, 16, 1};

		put(&b, &ch, sizeof(ch));
		put(&b, c0, 16);
	}
	write_file(&b, "stream.zshort", path, sizeof(path));
	expect_read_error(path, 2, z1 + 4, "its head needs");

	/* version 1 has no compressed chunks */
	put_header(&b, 1, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_zchunk(&b, 1, c1, 3 + 2 * N);
	write_file(&b, "stream.zv1", path, sizeof(path));
	expect_read_error(path, 2, z1, "compressed chunk in a version 1 stream");
}
int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compressed),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
