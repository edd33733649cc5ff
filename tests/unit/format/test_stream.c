/*
 * test_stream.c - the validating stream reader (stream.h) on synthetic stream files built with
 * the record layout of format.h: every record kind, cut-short streams, and every defect class
 * with the exact byte offset in the message.
 *
 * Layout used throughout: the header is H bytes (sizeof(struct psc_stream_header), documented
 * as 64: see test_header_size), so chunk 0's header is at byte H and its first record at
 * H + 16; a record at word k of a chunk whose payload starts at P is at byte P + 8 * k.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "format/mpi-routines.h"
#include "format/stream.h"

#include "stream-build.h"

/*
 * format.h ("fixed 64 bytes", "a 64-byte header") and docs/format.md (the field table ends
 * with the reserved u32 at offset 60) document a 64-byte stream header.
 */
static void test_header_size(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct psc_stream_header), 64);
	assert_int_equal(sizeof(struct psc_chunk_header), 16);
}

/* ---- every record kind ---------------------------------------------------------------------- */

static void test_all_records(void **state)
{
	/* chunk 0: payload at H + 16 */
	const uint64_t c0[] = {
	    EXT(100, PSC_REC_CLOCK_SYNC, 3, 0),
	    5000, /* @H+16, 3 words */
	    EXT(100, PSC_REC_THREAD_NAME, 3, 0),
	    0x72656b726f77ull, /* @H+40 "worker" */
	    EXT(101, PSC_REC_REGION_DEF, 3, 7),
	    0x6e69616dull, /* @H+64 "main" */
	    EXT(102, PSC_REC_COUNTERS, 4, 2),
	    0, /* @H+88 */
	    0xffffffffull | ((uint64_t)(uint32_t)-ENOENT << 32),
	    psc_word0(103, PSC_KIND_FUNC_ENTER),
	    0x401000, /* @H+120 */
	    EXT(104, PSC_REC_REGION_ENTER, 6, 7),
	    1,
	    10,
	    9,
	    77, /* @H+136 */
	    psc_word0(105, PSC_KIND_FUNC_EXIT),
	    0x401000, /* @H+184 */
	};
	/* chunk 1: header at H + 16 + 23 * 8 = H + 200, payload at H + 216 */
	const uint64_t c1[] = {
	    EXT(200, PSC_REC_CLOCK_SYNC, 3, 0),
	    9000,				  /* @H+216 */
	    EXT(201, PSC_REC_REGION_LEAVE, 2, 7), /* @H+240 */
	    EXT(202, PSC_REC_LOST, 4, 0),
	    5,
	    40,							  /* @H+256 */
	    EXT(203, PSC_REC_STREAM_END, 2, PSC_END_THREAD_EXIT), /* @H+288 */
	};
	struct buf b = {0};
	struct stream_reader r;
	struct stream_record rec;
	char path[256], err[512] = "";

	(void)state;
	assert_int_equal(sizeof(c0) / 8, 23);
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, sizeof(c0) / 8);
	put_chunk(&b, 1, c1, sizeof(c1) / 8);
	assert_int_equal(b.len, H + 304);
	write_file(&b, "stream.all", path, sizeof(path));

	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.hdr.pid, 4242);
	assert_int_equal(r.hdr.tid, 4243);
	assert_int_equal(r.hdr.rank, -1);
	assert_int_equal(r.hdr.start_ns, 5000);
	assert_int_equal(r.file_size, H + 304);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.kind, PSC_KIND_EXT);
	assert_int_equal(rec.type, PSC_REC_CLOCK_SYNC);
	assert_int_equal(rec.ticks, 100);
	assert_int_equal(rec.offset, H + 16);
	assert_int_equal(rec.arg, 0);
	assert_int_equal(rec.npayload, 1);
	assert_int_equal(rec.payload[0], 5000);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_THREAD_NAME);
	assert_int_equal(rec.offset, H + 40);
	assert_int_equal(rec.npayload, 1);
	assert_string_equal((const char *)rec.payload, "worker");

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_REGION_DEF);
	assert_int_equal(rec.ticks, 101);
	assert_int_equal(rec.offset, H + 64);
	assert_int_equal(rec.arg, 7);
	assert_int_equal(rec.npayload, 1);
	assert_string_equal((const char *)rec.payload, "main");

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_COUNTERS);
	assert_int_equal(rec.offset, H + 88);
	assert_int_equal(rec.arg, 2);
	assert_int_equal(rec.npayload, 2);
	assert_int_equal(rec.payload[0], 0);
	assert_int_equal((uint32_t)rec.payload[1], PSC_NO_GROUP);
	assert_int_equal((int32_t)(rec.payload[1] >> 32), -ENOENT);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.kind, PSC_KIND_FUNC_ENTER);
	assert_int_equal(rec.ticks, 103);
	assert_int_equal(rec.offset, H + 120);
	assert_int_equal(rec.addr, 0x401000);
	assert_int_equal(rec.npayload, 0);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.kind, PSC_KIND_EXT);
	assert_int_equal(rec.type, PSC_REC_REGION_ENTER);
	assert_int_equal(rec.ticks, 104);
	assert_int_equal(rec.offset, H + 136);
	assert_int_equal(rec.arg, 7);
	assert_int_equal(rec.npayload, 4);
	assert_int_equal(rec.payload[0], 1);
	assert_int_equal(rec.payload[1], 10);
	assert_int_equal(rec.payload[2], 9);
	assert_int_equal(rec.payload[3], 77);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.kind, PSC_KIND_FUNC_EXIT);
	assert_int_equal(rec.ticks, 105);
	assert_int_equal(rec.offset, H + 184);
	assert_int_equal(rec.addr, 0x401000);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_CLOCK_SYNC);
	assert_int_equal(rec.ticks, 200);
	assert_int_equal(rec.offset, H + 216);
	assert_int_equal(rec.payload[0], 9000);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_REGION_LEAVE);
	assert_int_equal(rec.ticks, 201);
	assert_int_equal(rec.offset, H + 240);
	assert_int_equal(rec.arg, 7);
	assert_int_equal(rec.npayload, 0);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_LOST);
	assert_int_equal(rec.offset, H + 256);
	assert_int_equal(rec.npayload, 2);
	assert_int_equal(rec.payload[0], 5);
	assert_int_equal(rec.payload[1], 40);
	assert_false(r.ended);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.type, PSC_REC_STREAM_END);
	assert_int_equal(rec.ticks, 203);
	assert_int_equal(rec.offset, H + 288);
	assert_int_equal(rec.arg, PSC_END_THREAD_EXIT);
	assert_true(r.ended);
	assert_int_equal(r.end_reason, PSC_END_THREAD_EXIT);

	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 0);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 0);
	assert_int_equal(r.truncated_at, 0);
	stream_close(&r);
}

/* Empty chunks and a stream without chunks are valid. */
static void test_empty(void **state)
{
	const uint64_t c1[] = {psc_word0(1, PSC_KIND_FUNC_ENTER), 0x10};
	struct buf b = {0};
	struct stream_reader r;
	struct stream_record rec;
	char path[256], err[512] = "";
	int n;

	(void)state;
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	write_file(&b, "stream.nochunk", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(read_all(&r, err, sizeof(err), &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(r.truncated_at, 0);
	assert_false(r.ended);
	stream_close(&r);

	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, NULL, 0);
	put_chunk(&b, 1, c1, 2); /* header at H + 16, record at H + 32 */
	write_file(&b, "stream.emptychunk", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.offset, H + 32);
	assert_int_equal(rec.addr, 0x10);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 0);
	stream_close(&r);
}

/* ---- cut-short streams ---------------------------------------------------------------------- */

static void test_truncated_chunk(void **state)
{
	const uint64_t c0[] = {EXT(10, PSC_REC_CLOCK_SYNC, 3, 0), 1000,
			       psc_word0(11, PSC_KIND_FUNC_ENTER), 0x1234}; /* 40 bytes */
	const uint64_t c1[] = {EXT(20, PSC_REC_CLOCK_SYNC, 3, 0), 2000,
			       psc_word0(21, PSC_KIND_FUNC_EXIT), 0x1234};
	struct buf b = {0};
	struct stream_reader r;
	struct stream_record rec;
	char path[256], err[512] = "";
	int n;

	(void)state;
	/* chunk 1 (header at H + 16 + 40 = H + 56) loses its last 8 bytes */
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_chunk(&b, 1, c1, 5);
	assert_int_equal(b.len, H + 112);
	b.len -= 8;
	write_file(&b, "stream.cut-payload", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.offset, H + 16);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 1);
	assert_int_equal(rec.offset, H + 40);
	assert_int_equal(rec.kind, PSC_KIND_FUNC_ENTER);
	assert_int_equal(stream_next(&r, &rec, err, sizeof(err)), 0);
	assert_int_equal(r.truncated_at, H + 56);
	assert_false(r.ended);
	stream_close(&r);

	/* only 10 bytes of chunk 1's header were written */
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	put_chunk(&b, 1, c1, 5);
	b.len = H + 56 + 10;
	write_file(&b, "stream.cut-header", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(read_all(&r, err, sizeof(err), &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r.truncated_at, H + 56);
	stream_close(&r);

	/* the first chunk itself is cut: no records, truncated at H */
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 5);
	b.len -= 1;
	write_file(&b, "stream.cut-first", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(read_all(&r, err, sizeof(err), &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(r.truncated_at, H);
	stream_close(&r);
}

/* ---- defects -------------------------------------------------------------------------------- */

static void test_bad_header(void **state)
{
	struct buf b = {0};
	struct stream_reader r;
	char path[256], err[512] = "";

	(void)state;
	put_header(&b, PSC_FORMAT_VERSION, "PSCSTRM2");
	write_file(&b, "stream.badmagic", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 0, "magic");

	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	b.len = H - 1;
	write_file(&b, "stream.short", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 0, "shorter");

	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -ENOENT);
	assert_true(!strncmp(err, path, strlen(path)));
}

/* stream_read_header: the header alone, checked as stream_open checks it. */
static void test_read_header(void **state)
{
	struct psc_stream_header h;
	struct buf b = {0};
	char path[256], err[512] = "";

	(void)state;
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	write_file(&b, "stream.header-only", path, sizeof(path));
	memset(&h, 0, sizeof(h));
	assert_int_equal(stream_read_header(path, &h, err, sizeof(err)), 0);
	assert_int_equal(h.pid, 4242);
	assert_int_equal(h.tid, 4243);
	assert_int_equal(h.rank, -1);
	assert_int_equal(h.features, PSC_FEAT_REGIONS);

	put_header(&b, PSC_FORMAT_VERSION, "PSCSTRM2");
	write_file(&b, "stream.header-magic", path, sizeof(path));
	assert_int_equal(stream_read_header(path, &h, err, sizeof(err)), -EINVAL);
	check_error(err, path, 0, "magic");

	put_header(&b, 5, PSC_STREAM_MAGIC);
	write_file(&b, "stream.header-version", path, sizeof(path));
	assert_int_equal(stream_read_header(path, &h, err, sizeof(err)), -EINVAL);
	check_error(err, path, 8, "format version 5, this perfscope reads 1 to 4");

	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	b.len = H - 1;
	write_file(&b, "stream.header-short", path, sizeof(path));
	assert_int_equal(stream_read_header(path, &h, err, sizeof(err)), -EINVAL);
	check_error(err, path, 0, "shorter than the 64-byte header (63 bytes)");

	assert_int_equal(stream_read_header(tmpdir, &h, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	assert_int_equal(stream_read_header(path, &h, err, sizeof(err)), -ENOENT);
	assert_true(!strncmp(err, path, strlen(path)));
}

/* The message names the version found in the file. */
static void test_bad_version(void **state)
{
	struct buf b = {0};
	struct stream_reader r;
	char path[256], err[512] = "";

	(void)state;
	put_header(&b, 5, PSC_STREAM_MAGIC);
	write_file(&b, "stream.version", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 8, "format version 5, this perfscope reads 1 to 4");
	put_header(&b, 3, PSC_STREAM_MAGIC);
	write_file(&b, "stream.version3", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 8,
		    "format version 3 is a samples file's, the header says it is none");
	put_header(&b, 0, PSC_STREAM_MAGIC);
	write_file(&b, "stream.version0", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 8, "format version 0");
}

/* The message names the header size found in the file. */
static void test_bad_header_size(void **state)
{
	struct buf b = {0};
	struct stream_reader r;
	char path[256], err[512] = "";
	struct psc_stream_header *h;

	(void)state;
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	h = (struct psc_stream_header *)b.p;
	h->header_size = 60;
	write_file(&b, "stream.hsize", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 12, "bad header size 60");

	/* not a multiple of 8 */
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	h = (struct psc_stream_header *)b.p;
	h->header_size = (uint32_t)H + 4;
	put(&b, "\0\0\0\0\0\0\0\0", 8);
	write_file(&b, "stream.hsize8", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), -EINVAL);
	check_error(err, path, 12, NULL);
}

/* Two good chunks of 2 records each, then a third chunk built by the caller. */
static void two_good_chunks(struct buf *b)
{
	const uint64_t c0[] = {EXT(10, PSC_REC_CLOCK_SYNC, 3, 0), 1000,
			       psc_word0(11, PSC_KIND_FUNC_ENTER), 0x1234};
	const uint64_t c1[] = {EXT(20, PSC_REC_CLOCK_SYNC, 3, 0), 2000,
			       psc_word0(21, PSC_KIND_FUNC_EXIT), 0x1234};

	/* chunk 0 at H, chunk 1 at H + 56, chunk 2 at H + 112 (payload at H + 128) */
	put_header(b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(b, 0, c0, 5);
	put_chunk(b, 1, c1, 5);
	assert_int_equal(b->len, H + 112);
}

static void test_bad_chunks(void **state)
{
	const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000};
	struct psc_chunk_header ch;
	struct buf b = {0};
	char path[256];

	(void)state;
	/* bad chunk magic at H + 112 */
	two_good_chunks(&b);
	ch = (struct psc_chunk_header){0x4b435351u, 24, 2};
	put(&b, &ch, sizeof(ch));
	put(&b, c2, sizeof(c2));
	write_file(&b, "stream.chunkmagic", path, sizeof(path));
	expect_read_error(path, 4, H + 112, "chunk magic");

	/* a gap in the chunk sequence: 2 expected, 3 found; the seq field is at H + 112 + 8 */
	two_good_chunks(&b);
	put_chunk(&b, 3, c2, 3);
	write_file(&b, "stream.seqgap", path, sizeof(path));
	expect_read_error(path, 4, H + 120, "sequence 3, expected 2");

	/* a repeated chunk: sequence 1 again */
	two_good_chunks(&b);
	put_chunk(&b, 1, c2, 3);
	write_file(&b, "stream.seqrepeat", path, sizeof(path));
	expect_read_error(path, 4, H + 120, "sequence 1, expected 2");

	/* a chunk size that is not a multiple of 8: the size field at H + 112 + 4 */
	two_good_chunks(&b);
	ch = (struct psc_chunk_header){PSC_CHUNK_MAGIC, 20, 2};
	put(&b, &ch, sizeof(ch));
	put(&b, c2, sizeof(c2));
	write_file(&b, "stream.chunksize", path, sizeof(path));
	expect_read_error(path, 4, H + 116, "chunk size 20");
}

static void test_bad_records(void **state)
{
	struct buf b = {0};
	char path[256];

	(void)state;
	/* an extended record of 5 words with 3 words left in its chunk: the length is in word 1 */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       EXT(31, PSC_REC_REGION_ENTER, 5, 1), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 6); /* second record at H + 128 + 24 = H + 152 */
		write_file(&b, "stream.overrun", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "overruns");
	}
	/* a length below the two header words */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       EXT(31, PSC_REC_REGION_LEAVE, 1, 1)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 5);
		write_file(&b, "stream.len1", path, sizeof(path));
		expect_read_error(path, 5, H + 160, NULL);
	}
	/* a function record cut by the end of its chunk (one word left) */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_FUNC_ENTER)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 4);
		write_file(&b, "stream.halfrec", path, sizeof(path));
		expect_read_error(path, 5, H + 152, "overruns");
	}
	/* an unknown record type (200): the type is in word 1 */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT), psc_ext_word1(200, 2, 0)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 5);
		write_file(&b, "stream.type200", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "unknown record type 200");
	}
	/* MPI records: an unknown routine, an item of unknown kind, a communicator short of its
	 * members, an init whose rank is outside its world */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_ENTER, 2, MPI_ROUTINE_COUNT)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 5);
		write_file(&b, "stream.mpirout", path, sizeof(path));
		expect_read_error(path, 5, H + 164, "unknown MPI routine id");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),
				       3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 7, MPI_ROUTINE_Send),
				       0,
				       psc_mpi_item_word0(9, 0, 0),
				       psc_mpi_pack2(1, 0),
				       8,
				       0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 10);
		write_file(&b, "stream.mpiitem", path, sizeof(path));
		expect_read_error(path, 5, H + 176, "unknown MPI item kind 9");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),
				       3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_COMM, 5, 2),
				       7,
				       5,
				       psc_mpi_pack2(0, 1)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 8);
		write_file(&b, "stream.mpicomm", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "for 5 members");
	}
	{
		const uint64_t c2[] = {
		    EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),	   3000, psc_word0(31, PSC_KIND_EXT),
		    psc_ext_word1(PSC_REC_MPI_INIT, 4, 4), 4,	 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 7);
		write_file(&b, "stream.mpiinit", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "rank 4 of a world of 4");
	}
	/* a samples-file record (9, sample group) in a thread's stream */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT), psc_ext_word1(9, 3, 0), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 6);
		write_file(&b, "stream.type9", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "outside a samples file");
	}
	/* type 0 is not a record type either */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT), psc_ext_word1(0, 2, 0)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 5);
		write_file(&b, "stream.type0", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "unknown record type 0");
	}
	/* the reserved kind 3 */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_RESERVED), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 5);
		write_file(&b, "stream.kind3", path, sizeof(path));
		expect_read_error(path, 5, H + 152, "reserved record kind 3");
	}
	/* time going backwards within a chunk: 31 after 32 */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),  3000,
				       psc_word0(32, PSC_KIND_FUNC_ENTER), 1,
				       psc_word0(31, PSC_KIND_FUNC_EXIT),  1};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 7);
		write_file(&b, "stream.backwards", path, sizeof(path));
		expect_read_error(path, 6, H + 168, "backwards");
	}
	/* time going backwards across chunks: chunk 2 starts at 19 after 21 */
	{
		const uint64_t c2[] = {EXT(19, PSC_REC_CLOCK_SYNC, 3, 0), 3000};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 3);
		write_file(&b, "stream.backwards2", path, sizeof(path));
		expect_read_error(path, 4, H + 128, "backwards");
	}
	/* records after the end record */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       EXT(31, PSC_REC_STREAM_END, 2, PSC_END_EXIT),
				       psc_word0(32, PSC_KIND_FUNC_ENTER), 1};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, 7);
		write_file(&b, "stream.afterend", path, sizeof(path));
		expect_read_error(path, 6, H + 168, "after the end record");
	}
}

/*
 * A chunk after the chunk that holds the end record: the end record has "nothing following
 * it" (docs/format.md), so this is corruption, reported at the start of that chunk.
 */
/*
 * MPI enter and leave records, which the walker reads through stream_next_mpi_call() first
 * (read_all() checks it against stream_next() record by record): good ones of every length,
 * then each defect the inline step must leave to stream_next(), which reports it.
 */
static void test_mpi_call_records(void **state)
{
	/* chunk 2's payload at H + 128: the records after the clock sync from H + 152 on */
	const uint64_t good[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),
				 3000,
				 psc_word0(31, PSC_KIND_EXT),
				 psc_ext_word1(PSC_REC_MPI_ENTER, 2, MPI_ROUTINE_Send),
				 psc_word0(32, PSC_KIND_EXT),
				 psc_ext_word1(PSC_REC_MPI_LEAVE, 7, MPI_ROUTINE_Send),
				 0x401234,
				 psc_mpi_item_word0(PSC_MPI_ITEM_SEND, 0, 0),
				 psc_mpi_pack2(1, 5),
				 8,
				 0,
				 psc_word0(32, PSC_KIND_EXT),
				 psc_ext_word1(PSC_REC_MPI_ENTER, 2, MPI_ROUTINE_Barrier),
				 psc_word0(33, PSC_KIND_EXT),
				 psc_ext_word1(PSC_REC_MPI_LEAVE, 3, MPI_ROUTINE_Barrier),
				 0x401240};
	struct stream_reader r;
	struct buf b = {0};
	char path[256], err[512] = "";
	int n;

	(void)state;
	two_good_chunks(&b);
	put_chunk(&b, 2, good, sizeof(good) / sizeof(good[0]));
	write_file(&b, "stream.mpicalls", path, sizeof(path));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(read_all(&r, err, sizeof(err), &n), 0);
	assert_int_equal(n, 4 + 5);
	stream_close(&r);
	/* an enter with a payload */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_ENTER, 3, MPI_ROUTINE_Send), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpienter3", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "MPI enter record of 3 words");
	}
	/* a leave without its site word, and one with an item cut short */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 2, MPI_ROUTINE_Send)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpileave2", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "MPI leave record of 2 words");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),
				       3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 6, MPI_ROUTINE_Send),
				       0,
				       psc_mpi_item_word0(PSC_MPI_ITEM_SEND, 0, 0),
				       psc_mpi_pack2(1, 5),
				       8};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpileave6", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "MPI leave record of 6 words");
	}
	/* an unknown routine in a leave, an item kind of 0, a leave longer than its chunk, a
	 * length below the two header words, time going backwards */
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 3, MPI_ROUTINE_COUNT), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpileaverout", path, sizeof(path));
		expect_read_error(path, 5, H + 164, "unknown MPI routine id");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0),
				       3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 7, MPI_ROUTINE_Recv),
				       0,
				       0,
				       psc_mpi_pack2(1, 5),
				       8,
				       0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpiitem0", path, sizeof(path));
		expect_read_error(path, 5, H + 176, "unknown MPI item kind 0");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_LEAVE, 7, MPI_ROUTINE_Send), 0};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpioverrun", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "overruns");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(31, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_ENTER, 1, MPI_ROUTINE_Send)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpilen1", path, sizeof(path));
		expect_read_error(path, 5, H + 160, "overruns");
	}
	{
		const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
				       psc_word0(29, PSC_KIND_EXT),
				       psc_ext_word1(PSC_REC_MPI_ENTER, 2, MPI_ROUTINE_Send)};
		two_good_chunks(&b);
		put_chunk(&b, 2, c2, sizeof(c2) / sizeof(c2[0]));
		write_file(&b, "stream.mpiback", path, sizeof(path));
		expect_read_error(path, 5, H + 152, "time goes backwards");
	}
}

static void test_chunk_after_end(void **state)
{
	const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000,
			       EXT(31, PSC_REC_STREAM_END, 2, PSC_END_EXIT)};
	const uint64_t c3[] = {EXT(40, PSC_REC_CLOCK_SYNC, 3, 0), 4000};
	struct buf b = {0};
	char path[256];

	(void)state;
	two_good_chunks(&b);
	put_chunk(&b, 2, c2, 5); /* H + 112 .. H + 168 */
	put_chunk(&b, 3, c3, 3); /* chunk 3 at H + 168 */
	write_file(&b, "stream.chunkafterend", path, sizeof(path));
	expect_read_error(path, 6, H + 168, NULL);
}

/* ---- samples files (the launcher's samples.<pid>) ------------------------------------------- */

/* A samples file of 3 events with WORDS as its only chunk (records from H + 16). */
static void samples_file(const char *name, const uint64_t *words, size_t n, char *path)
{
	struct buf b = {0};
	struct psc_stream_header *h;

	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	h = (struct psc_stream_header *)b.p;
	h->features = PSC_FEAT_SAMPLES;
	h->tid = 0; /* a samples file is per process */
	h->nevents = 3;
	put_chunk(&b, 0, words, n);
	write_file(&b, name, path, 256);
}

#define SAMPLE_HEAD(t, g, nw) EXT(t, PSC_REC_SAMPLE, nw, g), 7 | 8ull << 32, 0x401000

static void test_samples_file(void **state)
{
	/* groups {0, 1} and {2}; a sample of each (the second with a call chain of 2) */
	const uint64_t ok1[] = {
	    EXT(10, PSC_REC_CLOCK_SYNC, 3, 0),	 1000, EXT(11, PSC_REC_SAMPLE_GROUP, 4, 0), 0, 1,
	    EXT(11, PSC_REC_SAMPLE_GROUP, 3, 1), 2};
	const uint64_t ok2[] = {SAMPLE_HEAD(12, 0, 10), 1, 2, 5, 5, 100, 200};
	const uint64_t ok3[] = {
	    SAMPLE_HEAD(13, 1, 11), 2ull << 32, 1, 6, 6, 300, 0x401234, 0x401567};
	/* fork, exec of "prog", throttle, lost, totals, end */
	const uint64_t ok4[] = {
	    EXT(14, PSC_REC_TASK, 4, PSC_TASK_FORK), 7 | 8ull << 32, 7 | 7ull << 32,
	    EXT(15, PSC_REC_TASK, 4, PSC_TASK_EXEC), 7 | 7ull << 32, 0x676f7270};
	const uint64_t ok5[] = {EXT(16, PSC_REC_THROTTLE, 3, 1), 7 | 8ull << 32,
				EXT(17, PSC_REC_LOST, 4, 0), 3, 0};
	const uint64_t ok6[] = {
	    EXT(18, PSC_REC_SAMPLE_TOTALS, 11, 3),	 1, 2, 2, 3, 2, 2, 4, 2, 2,
	    EXT(19, PSC_REC_STREAM_END, 2, PSC_END_EXIT)};
	static const char *const names[] = {
	    "clock-sync", "sample-group", "sample-group", "sample", "sample", "task",
	    "task",	  "throttle",	  "lost",	  "totals", "end"};
	const uint64_t sync[] = {EXT(10, PSC_REC_CLOCK_SYNC, 3, 0), 1000}; /* H + 16 .. H + 40 */
	uint64_t w[64];
	struct stream_reader r;
	struct stream_record rec;
	char path[256], err[512] = "";
	int n = 0, ret;

	(void)state;
	memcpy(w, ok1, sizeof(ok1));
	memcpy(w + 10, ok2, sizeof(ok2));
	memcpy(w + 20, ok3, sizeof(ok3));
	memcpy(w + 31, ok4, sizeof(ok4));
	memcpy(w + 39, ok5, sizeof(ok5));
	memcpy(w + 46, ok6, sizeof(ok6));
	samples_file("samples.ok", w, 59, path);
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0)
		assert_string_equal(stream_record_name(&rec), names[n++]);
	assert_int_equal(ret, 0);
	assert_int_equal(n, 11);
	assert_int_equal(r.end_reason, PSC_END_EXIT);
	stream_close(&r);
	/* a sample of group 0 before any group definition: the group is word 1's argument */
	memcpy(w, sync, sizeof(sync));
	memcpy(w + 3, (const uint64_t[]){SAMPLE_HEAD(11, 0, 9), 0, 1, 5, 5, 100}, 9 * 8);
	samples_file("samples.nogroup", w, 12, path);
	expect_read_error(path, 1, H + 52, "group 0, never defined");
	/* a sample of one value where its group (at H + 40) has two: the sample is at H + 72 */
	memcpy(w + 3,
	       (const uint64_t[]){EXT(11, PSC_REC_SAMPLE_GROUP, 4, 0), 0, 1, SAMPLE_HEAD(12, 0, 9),
				  0, 1, 5, 5, 100},
	       13 * 8);
	samples_file("samples.nr", w, 16, path);
	expect_read_error(path, 2, H + 80, "does not hold its 2 values");
	/* totals of 3 events in 8 words instead of 9 */
	memcpy(w + 3,
	       (const uint64_t[]){EXT(11, PSC_REC_SAMPLE_TOTALS, 10, 3), 0, 0, 0, 0, 0, 0, 0, 0},
	       10 * 8);
	samples_file("samples.totals", w, 13, path);
	expect_read_error(path, 1, H + 48, "totals of 3 events in 8 words");
	/* a task record of an unknown event (9) */
	memcpy(w + 3, (const uint64_t[]){EXT(11, PSC_REC_TASK, 4, 9), 7 | 7ull << 32, 0}, 4 * 8);
	samples_file("samples.task", w, 7, path);
	expect_read_error(path, 1, H + 52, "unknown task event 9");
}

static void test_scan_clock(void **state)
{
	const uint64_t c0[] = {
	    EXT(10, PSC_REC_CLOCK_SYNC, 3, 0),	1000,
	    EXT(15, PSC_REC_CLOCK_SYNC, 3, 0),	1500, /* not the first: skipped */
	    psc_word0(16, PSC_KIND_FUNC_ENTER), 0x1234};
	const uint64_t c1[] = {psc_word0(20, PSC_KIND_FUNC_EXIT), 0x1234}; /* no clock record */
	const uint64_t c2[] = {EXT(30, PSC_REC_CLOCK_SYNC, 3, 0), 3000};
	const uint64_t c3[] = {EXT(40, PSC_REC_CLOCK_SYNC, 3, 0), 4000,
			       EXT(41, PSC_REC_STREAM_END, 2, PSC_END_EXIT)};
	const uint64_t c4[] = {EXT(50, PSC_REC_CLOCK_SYNC, 3, 0), 5000};
	struct pairs p;
	struct buf b = {0};
	char path[256], err[512] = "";

	(void)state;
	put_header(&b, PSC_FORMAT_VERSION, PSC_STREAM_MAGIC);
	put_chunk(&b, 0, c0, 8);
	put_chunk(&b, 1, c1, 2);
	put_chunk(&b, 2, c2, 3);
	put_chunk(&b, 3, c3, 5);
	put_chunk(&b, 4, c4, 3);
	b.len -= 8; /* the last chunk is cut short: not used */
	write_file(&b, "stream.scan", path, sizeof(path));

	memset(&p, 0, sizeof(p));
	assert_int_equal(stream_scan_clock(path, collect, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.ticks[0], 10);
	assert_int_equal(p.ns[0], 1000);
	assert_int_equal(p.ticks[1], 30);
	assert_int_equal(p.ns[1], 3000);
	assert_int_equal(p.ticks[2], 40);
	assert_int_equal(p.ns[2], 4000);

	/* a file that is not a stream: the open error */
	put_header(&b, 3, PSC_STREAM_MAGIC);
	write_file(&b, "stream.scanbad", path, sizeof(path));
	memset(&p, 0, sizeof(p));
	assert_int_equal(stream_scan_clock(path, collect, &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(p.n, 0);
	check_error(err, path, 8, "version");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_size),	    cmocka_unit_test(test_all_records),
	    cmocka_unit_test(test_empty),	    cmocka_unit_test(test_truncated_chunk),
	    cmocka_unit_test(test_bad_header),	    cmocka_unit_test(test_bad_version),
	    cmocka_unit_test(test_bad_header_size), cmocka_unit_test(test_bad_chunks),
	    cmocka_unit_test(test_bad_records),	    cmocka_unit_test(test_chunk_after_end),
	    cmocka_unit_test(test_scan_clock),	    cmocka_unit_test(test_samples_file),
	    cmocka_unit_test(test_read_header),	    cmocka_unit_test(test_mpi_call_records),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
