/*
 * test_sample_out.c - the samples file writer (src/record/sample-out.h): records queued out of time
 * order come out in time order (stable for equal times), a flush writes only what is not later
 * than its watermark, every chunk starts with a clock-sync record, the file reads back with the
 * validating stream reader, and the executable mappings land in pmaps.<pid>[.<image>] of the
 * image their time falls in (the root's first exec starts image 0, later execs the next one;
 * another process's first exec starts its image 1, as docs/format.md numbers images). Records
 * reach the file in bounded time (sample_out_sync), and a chunk the file cannot take
 * (RLIMIT_FSIZE standing for a full disk) is cut off again and counted, so the file reads whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "model/maps.h"
#include "record/sample-out.h"
#include "format/stream.h"

static char tmpdir[64];
static char dir[128]; /* a fresh directory per test */

static int make_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_make(tmpdir, sizeof(tmpdir), "sample-out"), 0);
	return 0;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_remove(tmpdir), 0);
	return 0;
}

static void new_dir(const char *name)
{
	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, name);
	assert_int_equal(mkdir(dir, 0755), 0);
}

/* A throttle record is the smallest record whose one payload word is free: the tag. */
static void add_tagged(struct sample_out *o, uint64_t ns, uint64_t tag)
{
	assert_int_equal(sample_out_add(o, ns, PSC_REC_THROTTLE, 1, &tag, 1), 0);
}

/* The records of a samples file as the reader returns them. */
struct readback {
	size_t n;
	uint64_t ticks[4096];
	enum psc_rec_type type[4096];
	uint32_t arg[4096];
	uint64_t word[4096]; /* the first payload word, 0 when empty */
	struct psc_stream_header hdr;
};

/* Read DIR/samples.PID fully: it must have no error and be complete. */
static void read_back(pid_t pid, struct readback *b)
{
	char path[256], err[512] = "";
	struct stream_reader r;
	struct stream_record rec;
	int ret;

	snprintf(path, sizeof(path), "%s/samples.%d", dir, (int)pid);
	memset(b, 0, sizeof(*b));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	b->hdr = r.hdr;
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		assert_true(b->n < 4096);
		assert_int_equal(rec.kind, PSC_KIND_EXT);
		b->ticks[b->n] = rec.ticks;
		b->type[b->n] = rec.type;
		b->arg[b->n] = rec.arg;
		b->word[b->n] = rec.npayload ? rec.payload[0] : 0;
		b->n++;
	}
	if (ret)
		fail_msg("reading %s: %s", path, err);
	assert_int_equal(r.truncated_at, 0);
	stream_close(&r);
}

/* Out of order in, time order out; a flush writes up to its watermark and keeps the rest. */
static void test_order_and_watermark(void **state)
{
	static const uint64_t ns[] = {50, 30, 40, 30, 70, 10}; /* tags 1..6 */
	static const uint64_t want_tags[] = {6, 2, 4, 3, 8, 1, 7, 5};
	static const uint64_t want_ns[] = {10, 30, 30, 40, 45, 50, 60, 70};
	struct sample_out *o;
	struct readback b;

	(void)state;
	new_dir("order");
	assert_int_equal(sample_out_open(&o, dir, 4242, 2, 0), 0);
	for (size_t i = 0; i < 6; i++)
		add_tagged(o, ns[i], i + 1);
	assert_int_equal(sample_out_written(o), 0);
	assert_int_equal(sample_out_flush(o, 40), 0); /* 10, 30, 30, 40 */
	assert_int_equal(sample_out_written(o), 4);
	assert_int_equal(sample_out_flush(o, 44), 0); /* nothing new is due */
	assert_int_equal(sample_out_written(o), 4);
	add_tagged(o, 60, 7);
	add_tagged(o, 45, 8);
	assert_int_equal(sample_out_flush(o, 60), 0); /* 45, 50, 60 */
	assert_int_equal(sample_out_written(o), 7);
	assert_int_equal(sample_out_close(o), 0);

	read_back(4242, &b);
	assert_memory_equal(b.hdr.magic, PSC_STREAM_MAGIC, 8);
	assert_int_equal(b.hdr.features, PSC_FEAT_SAMPLES);
	assert_int_equal(b.hdr.pid, 4242);
	assert_int_equal(b.hdr.nevents, 2);
	assert_int_equal(b.n, 9); /* one chunk: its clock-sync, then the 8 records */
	assert_int_equal(b.type[0], PSC_REC_CLOCK_SYNC);
	assert_int_equal(b.ticks[0], 10);
	assert_int_equal(b.word[0], 10); /* the file's ticks are CLOCK_MONOTONIC ns */
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(b.type[i + 1], PSC_REC_THROTTLE);
		assert_int_equal(b.ticks[i + 1], want_ns[i]);
		assert_int_equal(b.word[i + 1], want_tags[i]);
	}
}

/*
 * Many records with many equal times, over several chunks and two flushes: the chunks are
 * complete, each opens with a clock-sync at its first record's time, the order is by time and,
 * for equal times, by arrival, and every record's payload survives the compaction of what waits.
 */
static void test_chunks_and_stability(void **state)
{
	enum { N = 120000, HALF = N / 2, TIMES = 1000 };
	char path[256];
	FILE *f;
	struct psc_stream_header h;
	struct psc_chunk_header ch;
	uint64_t *words = malloc(4 << 20), last_ns = 0, last_tag = 0, tags = 0, syncs = 0;
	size_t nchunks = 0;
	struct sample_out *o;

	(void)state;
	assert_non_null(words);
	new_dir("chunks");
	assert_int_equal(sample_out_open(&o, dir, 77, 1, 0), 0);
	/* tag i at time (i * 7919) % TIMES: every time 120 times, arriving out of order */
	for (uint64_t i = 0; i < HALF; i++)
		add_tagged(o, 1000 + (i * 7919) % TIMES, i);
	assert_int_equal(sample_out_flush(o, 1000 + TIMES / 2 - 1), 0);
	assert_int_equal(sample_out_written(o), HALF / 2);
	for (uint64_t i = HALF; i < N; i++)
		add_tagged(o, 1000 + TIMES / 2 + (i * 7919) % (TIMES / 2), i);
	assert_int_equal(sample_out_close(o), 0);

	snprintf(path, sizeof(path), "%s/samples.77", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	for (uint64_t seq = 0; fread(&ch, sizeof(ch), 1, f) == 1; seq++, nchunks++) {
		size_t nw = ch.size / 8;

		assert_int_equal(ch.magic, PSC_CHUNK_MAGIC);
		assert_int_equal(ch.seq, seq);
		assert_true(ch.size % 8 == 0 && ch.size <= (4u << 20));
		assert_int_equal(fread(words, 8, nw, f), nw);
		/* a clock-sync first, at the time of the record after it */
		assert_true(nw >= 6);
		assert_int_equal(words[1], psc_ext_word1(PSC_REC_CLOCK_SYNC, 3, 0));
		assert_int_equal(psc_rec_ticks(words[0]), words[2]);
		assert_int_equal(psc_rec_ticks(words[0]), psc_rec_ticks(words[3]));
		syncs++;
		for (size_t k = 3; k < nw; k += 3) {
			uint64_t t = psc_rec_ticks(words[k]);

			assert_int_equal(words[k + 1], psc_ext_word1(PSC_REC_THROTTLE, 3, 1));
			assert_true(t >= last_ns);
			if (t == last_ns && tags)
				assert_true(words[k + 2] > last_tag); /* stable: arrival order */
			if (words[k + 2] < HALF)
				assert_int_equal(t, 1000 + (words[k + 2] * 7919) % TIMES);
			else
				assert_int_equal(t, 1000 + TIMES / 2 +
							(words[k + 2] * 7919) % (TIMES / 2));
			last_ns = t;
			last_tag = words[k + 2];
			tags++;
		}
	}
	assert_int_equal(fclose(f), 0);
	free(words);
	assert_int_equal(tags, N);
	assert_true(nchunks >= 2); /* 2.9 MB of records: more than one chunk */
	assert_int_equal(syncs, nchunks);
	{
		/* and the reader agrees: no error, every record */
		struct stream_reader r;
		struct stream_record rec;
		char err[512] = "";
		size_t n = 0;
		int ret;

		assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
		while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0)
			n++;
		if (ret)
			fail_msg("%s", err);
		assert_int_equal(n, N + nchunks);
		stream_close(&r);
	}
}

static void add_exec(struct sample_out *o, uint64_t ns, pid_t pid, const char *name)
{
	uint64_t p[3] = {(uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)pid << 32, 0, 0};

	strncpy((char *)(p + 1), name, 15);
	assert_int_equal(sample_out_add(o, ns, PSC_REC_TASK, PSC_TASK_EXEC, p, 3), 0);
}

static void add_map(struct sample_out *o, uint64_t ns, pid_t pid, uint64_t start, const char *path)
{
	assert_int_equal(sample_out_add_mmap(o, ns, pid, start, 0x2000, 0x1000,
					     PROT_READ | PROT_EXEC, MAP_PRIVATE, path),
			 0);
}

/* The file DIR/NAME, which must exist, as one string. */
static char *slurp(const char *name)
{
	char path[256], *s = calloc(1, 4096);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s is missing", path);
	assert_non_null(s);
	n = fread(s, 1, 4095, f);
	s[n] = 0;
	fclose(f);
	return s;
}

/* DIR/NAME parsed as a maps file: exactly N mappings, the K-th starting at STARTS[K]. */
static void expect_maps(const char *name, size_t n, const uint64_t *starts,
			const char *const *paths)
{
	char path[256];
	const char *pp = path;
	struct maps m;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&m, 0, sizeof(m));
	assert_int_equal(maps_load(&m, &pp, 1), 0);
	assert_int_equal(m.skipped, 0);
	assert_int_equal(m.n, n);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(m.v[k].start, starts[k]);
		assert_int_equal(m.v[k].end, starts[k] + 0x2000);
		assert_int_equal(m.v[k].offset, 0x1000);
		assert_int_equal(m.v[k].perms, MAPS_R | MAPS_X | MAPS_P);
		assert_string_equal(m.v[k].path, paths[k]);
	}
	maps_release(&m);
}

static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Root 4242 execs at 10 (image 0) and at 100 (image 1); the mapping at 50 is queued after the
 * exec at 100 and still belongs to image 0, the one at 100 (queued after that exec) to image 1.
 * Process 4300 maps at 30 (its first image, no suffix) and execs at 120 (its image 1).
 */
static void test_pmaps_images(void **state)
{
	static const uint64_t root0[] = {0x400000, 0x7f0000000000};
	static const char *const root0_paths[] = {"/bin/prog", "/lib/late.so"};
	static const uint64_t root1[] = {0x500000, 0x600000};
	static const char *const root1_paths[] = {"/bin/other", "/bin/other2"};
	static const uint64_t child0[] = {0x410000}, child1[] = {0x420000};
	static const char *const child0_paths[] = {"/bin/child"}, *const child1_paths[] = {
								      "/bin/child-exec"};
	struct sample_out *o;
	struct readback b;
	char *s;

	(void)state;
	new_dir("pmaps");
	assert_int_equal(sample_out_open(&o, dir, 4242, 1, 0), 0);
	add_exec(o, 10, 4242, "prog");
	add_map(o, 20, 4242, 0x400000, "/bin/prog");
	add_map(o, 30, 4300, 0x410000, "/bin/child");
	assert_int_equal(sample_out_flush(o, 30), 0);
	add_exec(o, 100, 4242, "other");
	add_map(o, 100, 4242, 0x500000, "/bin/other"); /* same time, after the exec */
	add_map(o, 50, 4242, 0x7f0000000000, "/lib/late.so");
	add_map(o, 110, 4242, 0x600000, "/bin/other2");
	add_exec(o, 120, 4300, "child-exec");
	add_map(o, 130, 4300, 0x420000, "/bin/child-exec");
	assert_int_equal(sample_out_close(o), 0);

	/* /proc/PID/maps syntax: start-end perms offset dev inode path, each after its time */
	s = slurp("pmaps.4242");
	assert_string_equal(s, "# mmap 20\n"
			       "400000-402000 r-xp 00001000 00:00 0 /bin/prog\n"
			       "# mmap 50\n"
			       "7f0000000000-7f0000002000 r-xp 00001000 00:00 0 /lib/late.so\n");
	free(s);
	expect_maps("pmaps.4242", 2, root0, root0_paths);
	expect_maps("pmaps.4242.1", 2, root1, root1_paths);
	expect_maps("pmaps.4300", 1, child0, child0_paths);
	expect_maps("pmaps.4300.1", 1, child1, child1_paths);
	assert_int_equal(count_files(), 5); /* and samples.4242, nothing else */

	/* mappings go to the pmaps files only: the samples file has a clock-sync and the execs */
	read_back(4242, &b);
	assert_int_equal(b.n, 4);
	assert_int_equal(b.type[0], PSC_REC_CLOCK_SYNC);
	for (size_t i = 1; i < 4; i++)
		assert_int_equal(b.type[i], PSC_REC_TASK);
	assert_int_equal(b.ticks[1], 10);
	assert_int_equal(b.ticks[2], 100);
	assert_int_equal(b.ticks[3], 120);
	assert_int_equal((uint32_t)b.word[3], 4300);
}

/*
 * A record that arrives after a flush has passed its time (the sampler's drain waits only
 * ORDER_SLACK_NS for a record the kernel published late: a preempted vCPU can take longer)
 * must not make the rest of the file unreadable: the reader stops at the first record whose
 * time goes backwards, so everything after it would be lost for the analyses.
 */
static void test_late_record_keeps_file_readable(void **state)
{
	char path[256], err[512] = "";
	struct stream_reader r;
	struct stream_record rec;
	struct sample_out *o;
	uint64_t last_tag = 0;
	int ret, n = 0;

	(void)state;
	new_dir("late");
	assert_int_equal(sample_out_open(&o, dir, 4242, 1, 0), 0);
	add_tagged(o, 100, 1);
	assert_int_equal(sample_out_flush(o, 100), 0);
	add_tagged(o, 50, 2); /* late: before the watermark already written */
	add_tagged(o, 150, 3);
	assert_int_equal(sample_out_close(o), 0);

	snprintf(path, sizeof(path), "%s/samples.4242", dir);
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		n++;
		if (rec.type == PSC_REC_THROTTLE)
			last_tag = rec.payload[0];
	}
	stream_close(&r);
	if (ret)
		fail_msg("a late record made the file unreadable after %d records: %s", n, err);
	assert_int_equal(last_tag, 3); /* the records after the late one are all there */
}

/* An existing samples file is never replaced; a record above the format's limit is refused. */
static void test_refusals(void **state)
{
	static uint64_t big[600];
	struct sample_out *o, *o2 = NULL;

	(void)state;
	new_dir("refuse");
	assert_int_equal(sample_out_open(&o, dir, 5, 1, 0), 0);
	assert_int_equal(sample_out_open(&o2, dir, 5, 1, 0), -EEXIST);
	assert_null(o2);
	assert_int_equal(sample_out_add(o, 1, PSC_REC_SAMPLE_TOTALS, 1, big, 600), -E2BIG);
	assert_int_equal(sample_out_written(o), 0);
	assert_int_equal(sample_out_close(o), 0);
}

static uint64_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/*
 * Records reach the file in bounded time: sample_out_sync writes the open chunk once it has
 * seen it open for SAMPLE_OUT_SYNC_NS, not before, and at once with UINT64_MAX; an empty chunk
 * is never written.
 */
static void test_sync_bounds(void **state)
{
	const uint64_t t0 = 5000000000ull;
	char path[256];
	struct sample_out *o;
	struct readback b;
	uint64_t size;

	(void)state;
	new_dir("sync");
	snprintf(path, sizeof(path), "%s/samples.77", dir);
	assert_int_equal(sample_out_open(&o, dir, 77, 1, 0), 0);
	size = size_of(path);
	assert_int_equal(size, sizeof(struct psc_stream_header));
	assert_int_equal(sample_out_sync(o, t0), 0); /* nothing open */
	add_tagged(o, 10, 1);
	assert_int_equal(sample_out_flush(o, 10), 0);
	assert_int_equal(sample_out_sync(o, t0), 0); /* seen open from t0 */
	add_tagged(o, 20, 2);
	assert_int_equal(sample_out_flush(o, 20), 0);
	assert_int_equal(sample_out_sync(o, t0 + SAMPLE_OUT_SYNC_NS - 1), 0);
	assert_int_equal(size_of(path), size);
	assert_int_equal(sample_out_sync(o, t0 + SAMPLE_OUT_SYNC_NS), 0);
	/* header + chunk header + clock-sync + two throttle records */
	assert_int_equal(size_of(path), size + 16 + 24 + 2 * 24);
	size = size_of(path);
	assert_int_equal(sample_out_sync(o, t0 + 3 * SAMPLE_OUT_SYNC_NS), 0);
	assert_int_equal(size_of(path), size); /* nothing new: no empty chunk */
	add_tagged(o, 30, 3);
	assert_int_equal(sample_out_flush(o, 30), 0);
	assert_int_equal(sample_out_sync(o, UINT64_MAX), 0); /* at once */
	assert_int_equal(size_of(path), size + 16 + 24 + 24);
	assert_int_equal(sample_out_close(o), 0);
	read_back(77, &b);
	assert_int_equal(b.n, 5); /* two chunks: sync, 1, 2; sync, 3 */
	assert_int_equal(b.word[2], 2);
	assert_int_equal(b.type[3], PSC_REC_CLOCK_SYNC);
	assert_int_equal(b.word[4], 3);
}

/*
 * A chunk the file cannot take (RLIMIT_FSIZE stands for a full disk) is cut off again, so the
 * file keeps its whole chunks and reads to the end; writing goes on when there is room again,
 * the next chunk saying with a lost record (PSC_LOST_UNWRITTEN) how many records are missing,
 * and the error names the file, the offset and the cause.
 */
static void test_unwritable_chunk(void **state)
{
	char path[256], why[512], err[512] = "";
	struct stream_reader r;
	struct stream_record rec;
	struct sample_out *o;
	struct rlimit old, lim;
	uint64_t good, tags = 0, lost = 0, nlost = 0;
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	int ret;

	(void)state;
	new_dir("unwritable");
	snprintf(path, sizeof(path), "%s/samples.78", dir);
	assert_int_equal(sample_out_open(&o, dir, 78, 1, 0), 0);
	add_tagged(o, 10, 1);
	assert_int_equal(sample_out_flush(o, UINT64_MAX), 0);
	assert_int_equal(sample_out_sync(o, UINT64_MAX), 0);
	good = size_of(path);
	/* room for a part of the next chunk only */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = good + 30;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (uint64_t i = 0; i < 5; i++)
		add_tagged(o, 20 + i, 100 + i);
	assert_int_equal(sample_out_flush(o, UINT64_MAX), 0);
	ret = sample_out_sync(o, UINT64_MAX);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	assert_int_equal(ret, -EFBIG);
	assert_int_equal(size_of(path), good); /* the part written was cut off */
	assert_int_equal(sample_out_unwritten(o), 5);
	assert_int_equal(sample_out_error(o, why, sizeof(why)), -EFBIG);
	snprintf(err, sizeof(err), "writing samples.78 at byte %llu: %s", (unsigned long long)good,
		 strerror(EFBIG));
	assert_string_equal(why, err);
	add_tagged(o, 40, 2);
	assert_int_equal(sample_out_close(o), -EFBIG); /* the first error stays */

	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		if (rec.type == PSC_REC_THROTTLE)
			tags = tags * 1000 + rec.payload[0];
		if (rec.type == PSC_REC_LOST) {
			assert_int_equal(rec.arg, PSC_LOST_UNWRITTEN);
			lost = rec.payload[0];
			nlost++;
		}
	}
	if (ret)
		fail_msg("%s", err);
	assert_int_equal(r.truncated_at, 0);
	assert_int_equal(r.next_seq, 2); /* chunks 0 and 1: the one cut off took no number */
	stream_close(&r);
	assert_int_equal(tags, 1002); /* tags 1 and 2; 100-104 were not written */
	assert_int_equal(nlost, 1);
	assert_int_equal(lost, 5);
}

/*
 * The sample group definitions are in the first chunk: when the disk cannot take it, the next
 * chunk that is written begins with them again (once), so the samples after them still name
 * a defined group and the file reads with the validating reader; they are not counted lost.
 */
static void test_unwritable_definitions(void **state)
{
	char path[256], err[512] = "";
	struct stream_reader r;
	struct stream_record rec;
	struct sample_out *o;
	struct rlimit old, lim;
	uint64_t member = 0, sample[7] = {1, 1, 0, 1, 0, 0, 42};
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	int ret, groups = 0, samples = 0, lost = 0;

	(void)state;
	new_dir("unwritable-defs");
	snprintf(path, sizeof(path), "%s/samples.79", dir);
	assert_int_equal(sample_out_open(&o, dir, 79, 1, 0), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = size_of(path) + 20; /* the header fits, the first chunk does not */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(sample_out_add(o, 10, PSC_REC_SAMPLE_GROUP, 0, &member, 1), 0);
	assert_int_equal(sample_out_flush(o, UINT64_MAX), 0);
	ret = sample_out_sync(o, UINT64_MAX);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	assert_int_equal(ret, -EFBIG);
	assert_int_equal(sample_out_unwritten(o), 0);
	assert_int_equal(sample_out_add(o, 20, PSC_REC_SAMPLE, 0, sample, 7), 0);
	assert_int_equal(sample_out_close(o), -EFBIG);

	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		groups += rec.type == PSC_REC_SAMPLE_GROUP;
		samples += rec.type == PSC_REC_SAMPLE;
		lost += rec.type == PSC_REC_LOST;
	}
	if (ret)
		fail_msg("%s", err);
	stream_close(&r);
	assert_int_equal(groups, 1);
	assert_int_equal(samples, 1);
	assert_int_equal(lost, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_watermark),
	    cmocka_unit_test(test_chunks_and_stability),
	    cmocka_unit_test(test_pmaps_images),
	    cmocka_unit_test(test_late_record_keeps_file_readable),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_sync_bounds),
	    cmocka_unit_test(test_unwritable_chunk),
	    cmocka_unit_test(test_unwritable_definitions),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
