/*
 * fuzz_stream.c - libFuzzer target for the stream reader (src/format/stream.c).
 *
 * The input is the whole content of one stream file. It is written to a memfd (the reader
 * takes a path: /proc/self/fd/N) and read to the end exactly as the analyses read it:
 * stream_open, stream_next until the end or an error, the counter snapshots decoded with the
 * layout of the counters record, then stream_scan_clock. Besides the sanitizers, the target
 * checks the reader's contract and aborts when it is broken:
 *   - every record lies inside the file, after the header, in increasing order, and its
 *     payload is readable (every word is read); the records of a compressed chunk all lie
 *     at the chunk's offset;
 *   - time never goes backwards; nothing follows an end record;
 *   - an error is a negative errno with a message "PATH: byte N: ..." where N is inside the
 *     file; the end of the data is final (stream_next keeps returning 0);
 *   - a cut-short stream is cut after the header and inside the file;
 *   - stream_next_mpi_call(), the walker's inline step, takes a record only when stream_next()
 *     gives the same one.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_stream CORPUS_DIR
 * (tests/e2e/test_fuzz_reader.sh does both for a bounded time).
 */
#include "format/stream.h"
#include "pmu/counts.h"
#include "fuzz-one-cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_EVENTS 64

struct target {
	int fd;
	char path[64];
	volatile uint64_t sink;
};

static struct target *target_get(void)
{
	static struct target t = {-1, "", 0};

	if (t.fd < 0) {
		t.fd = memfd_create("psc-fuzz-stream", MFD_CLOEXEC);
		if (t.fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(t.path, sizeof(t.path), "/proc/self/fd/%d", t.fd);
	}
	return &t;
}

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_stream: contract broken: %s (err: '%s')\n", what, err);
		abort();
	}
}

/* ERR must read "PATH: byte N: ..." with N < SIZE (N may equal SIZE for a 0-byte file). */
static void check_error_message(const char *err, const char *path, uint64_t size)
{
	size_t len = strlen(path);
	char *end;
	unsigned long long byte;

	check(!strncmp(err, path, len) && !strncmp(err + len, ": byte ", 7),
	      "error message names the file and a byte", err);
	byte = strtoull(err + len + 7, &end, 10);
	check(end != err + len + 7 && !strncmp(end, ": ", 2) && end[2] != 0,
	      "error message has an offset and a cause", err);
	check(byte < size || byte == 0, "error offset inside the file", err);
}

static uint64_t touch(const uint64_t *p, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

static void on_clock(void *ctx, uint64_t ticks, uint64_t ns)
{
	*(uint64_t *)ctx += ticks ^ ns;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_one_cpu();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target *t = target_get();
	struct stream_reader r;
	struct stream_record rec;
	uint32_t group_of[MAX_EVENTS];
	struct count counts[MAX_EVENTS];
	size_t nev = 0;
	uint64_t last_offset = 0, last_ticks = 0, sink = 0;
	int have_layout = 0, ended = 0, nrec = 0, ret;
	char err[512] = "";

	if (ftruncate(t->fd, 0) < 0 || (size && pwrite(t->fd, data, size, 0) != (ssize_t)size))
		abort();
	ret = stream_open(&r, t->path, err, sizeof(err));
	if (ret) {
		check(ret < 0, "stream_open returns 0 or a negative errno", err);
		check_error_message(err, t->path, size);
		stream_close(&r);
		return 0;
	}
	check(r.file_size == size, "file size", err);
	check(r.hdr.header_size >= sizeof(r.hdr) && r.hdr.header_size <= size, "header size", err);
	for (;;) {
		struct stream_reader probe = r;
		struct stream_record fast;
		int took = stream_next_mpi_call(&probe, &fast);
		size_t bytes;

		ret = stream_next(&r, &rec, err, sizeof(err));
		/* the walker's inline step takes only what stream_next() gives, as it gives it */
		check(!took || (ret == 1 && fast.kind == rec.kind && fast.ticks == rec.ticks &&
				fast.offset == rec.offset && fast.type == rec.type &&
				fast.arg == rec.arg && fast.payload == rec.payload &&
				fast.npayload == rec.npayload && probe.pos == r.pos &&
				probe.nrecords == r.nrecords && probe.last_ticks == r.last_ticks),
		      "stream_next_mpi_call() takes the record stream_next() gives", err);
		if (ret <= 0)
			break;
		bytes = 16 + 8 * rec.npayload;
		check(ret == 1, "stream_next returns 1 for a record", err);
		check(!ended, "no record after the end record", err);
		if (r.pos_scale == 0) {
			/* a compressed chunk's records are at the chunk's offset */
			check(rec.offset == r.chunk_offset && rec.offset >= r.hdr.header_size &&
				  rec.offset + 16 + 8 * PSC_ZCHUNK_HEAD_WORDS + 8 <= size,
			      "record of a compressed chunk at the chunk, inside the file", err);
			check(nrec == 0 || rec.offset >= last_offset, "records in file order", err);
		} else {
			check(rec.offset >= r.hdr.header_size + 16 && rec.offset % 8 == 0,
			      "record after the header and a chunk header, word-aligned", err);
			check(rec.offset + bytes <= size, "record inside the file", err);
			check(nrec == 0 || rec.offset > last_offset, "records in file order", err);
		}
		check(rec.ticks >= last_ticks, "time never goes backwards", err);
		check(rec.kind <= PSC_KIND_EXT, "known kind", err);
		check(rec.kind == PSC_KIND_EXT || rec.npayload == 0, "function records: 16 bytes",
		      err);
		last_offset = rec.offset;
		last_ticks = rec.ticks;
		nrec++;
		sink += touch(rec.payload, rec.npayload) + rec.addr;
		if (rec.kind != PSC_KIND_EXT)
			continue;
		switch (rec.type) {
		case PSC_REC_COUNTERS:
			nev = rec.npayload < MAX_EVENTS ? rec.npayload : MAX_EVENTS;
			for (size_t i = 0; i < nev; i++)
				group_of[i] = (uint32_t)rec.payload[i];
			have_layout = 1;
			break;
		case PSC_REC_REGION_ENTER:
		case PSC_REC_REGION_LEAVE:
			if (have_layout && count_snapshot_decode(rec.payload, rec.npayload,
								 group_of, nev, counts) == 0)
				for (size_t i = 0; i < nev; i++)
					sink +=
					    counts[i].raw + counts[i].enabled + counts[i].running;
			break;
		case PSC_REC_REGION_DEF:
		case PSC_REC_THREAD_NAME:
			check(rec.npayload > 0 && memchr(rec.payload, 0, rec.npayload * 8) != NULL,
			      "names are NUL-terminated inside their record", err);
			break;
		case PSC_REC_STREAM_END:
			ended = 1;
			check(r.ended, "the reader saw the end record", err);
			break;
		default:
			break;
		}
	}
	if (ret < 0) {
		check_error_message(err, t->path, size);
	} else {
		check(ret == 0, "stream_next returns 0 at the end", err);
		check(stream_next(&r, &rec, err, sizeof(err)) == 0, "the end is final", err);
		check(r.truncated_at == 0 ||
			  (r.truncated_at >= r.hdr.header_size && r.truncated_at < size),
		      "a cut lies inside the file, after the header", err);
		check(!(r.truncated_at && r.ended), "an ended stream is not cut", err);
	}
	stream_close(&r);
	ret = stream_scan_clock(t->path, on_clock, &sink, err, sizeof(err));
	check(ret == 0, "stream_scan_clock succeeds on a file stream_open accepted", err);
	/* keep the reads observable */
	t->sink = sink;
	return 0;
}
