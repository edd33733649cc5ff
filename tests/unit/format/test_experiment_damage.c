/*
 * test_experiment_damage.c - what a nearly full disk leaves (issue "Trust"): hand-made
 * experiments with a 0-byte stream among good ones, a stream cut inside its header, one cut
 * inside a chunk, an empty maps file, an empty proc file (its process and streams are left
 * out), an empty or missing pmaps file of a samples file, and the recording errors of the
 * runtime and of perfscope record. The experiment opens; the good streams' regions are read;
 * every damaged file is named in exactly one caveat line, with what it costs and the cause
 * when the experiment knows it (a full disk); the errors are caveats of their own.
 */
#include "synth-exp.h"

#include <errno.h>
#include <unistd.h>

#include "view/caveats.h"
#include "model/experiment-open.h"
#include "analysis/profile/regions.h"
#include "record/sample-out.h"
#include "analysis/profile/samples.h"

struct lines {
	char buf[8192];
	size_t len, n;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s\n", line);
	l->n++;
}

static void write_bytes(const char *dir, const char *name, const void *bytes, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static size_t size_of(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/* A thread's stream: region "work" entered and left, then the end record, in one chunk. */
static void good_stream(const char *dir, int pid, int tid)
{
	struct words s = {.n = 0};

	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "work");
	w_enter(&s, 1100, 1);
	w_leave(&s, 1600, 1);
	w_end(&s, 1700);
	write_stream(dir, pid, tid, &s, NULL, 0);
}

static void test_full_disk_traces(void **state)
{
	static const char full[] = "writing a stream chunk: No space left on device";
	char dir[128], err[512] = "", text[1024], want[4096], path[512];
	struct words s = {.n = 0};
	size_t bounds[1], size13;
	struct experiment e;
	struct region_profile p;
	struct lines l = {.len = 0};
	unsigned char header[64];
	FILE *f;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\": 1, \"exit_status\": 0}");
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"pid\":10,\"ppid\":1,\"rank\":-1,\"exe\":\"/bin/test\","
		 "\"state\":\"exited\",\"clock\":\"monotonic\","
		 "\"calibration\":[[\"1000\",\"1000\"]],\"events\":[],\"paranoid\":2,"
		 "\"lost_records\":0,\"error\":\"%s\"}",
		 full);
	write_text(dir, "proc.10.json", text);
	good_stream(dir, 10, 10);
	write_bytes(dir, "stream.10.11", NULL, 0);
	/* the first 40 bytes of a good header */
	good_stream(dir, 10, 12);
	snprintf(path, sizeof(path), "%s/stream.10.12", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(header, 1, sizeof(header), f), sizeof(header));
	fclose(f);
	write_bytes(dir, "stream.10.12", header, 40);
	/* two chunks, the second cut 8 bytes short */
	w_clock(&s, 2000);
	w_def(&s, 2000, 1, "other");
	w_enter(&s, 2100, 1);
	w_leave(&s, 2200, 1);
	bounds[0] = s.n;
	w_clock(&s, 3000);
	w_enter(&s, 3100, 1);
	w_leave(&s, 3200, 1);
	write_stream(dir, 10, 13, &s, bounds, 1);
	size13 = size_of(dir, "stream.10.13");
	snprintf(path, sizeof(path), "%s/stream.10.13", dir);
	assert_int_equal(truncate(path, (off_t)size13 - 8), 0);
	write_bytes(dir, "maps.10", NULL, 0);
	/* a process whose description the disk could not take: left out with its stream */
	write_bytes(dir, "proc.20.json", NULL, 0);
	good_stream(dir, 20, 20);

	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(e.nprocs, 1);
	assert_int_equal(e.nstreams, 2); /* 10.10 and 10.13 */
	assert_int_equal(e.ndamaged, 5);
	if (region_profile_build(&p, &e, err, sizeof(err)))
		fail_msg("%s", err);
	/* "work" of thread 10 and "other" of the whole chunk of thread 13 */
	assert_int_equal(p.nrows, 2);
	region_profile_release(&p);
	experiment_caveats(&e, 1, collect, &l);
	snprintf(want, sizeof(want),
		 "process 10: %s\n"
		 "maps.10: empty (0 bytes): addresses of process 10 are named from its pmaps "
		 "file alone, if any, else shown as [unknown] (the disk was full)\n"
		 "proc.20.json: empty (0 bytes): process 20 is left out, with its 1 stream\n"
		 "stream.10.11: empty (0 bytes): left out (the disk was full)\n"
		 "stream.10.12: cut at byte 40, inside its 64-byte header: left out (the disk was "
		 "full)\n"
		 "stream.10.13: cut at byte %zu of %zu: the thread's records after it are missing "
		 "(the disk was full)\n",
		 full, 64 + 16 + 8 * bounds[0], size13 - 8);
	assert_string_equal(l.buf, want);
	experiment_release(&e);
}

/* samples.PID with one sample, ended, written by the launcher's writer. */
static void samples_file(const char *dir, int pid)
{
	uint64_t members[1] = {0},
		 p[7] = {(uint64_t)pid | (uint64_t)pid << 32, 0x1000, 0, 1, 5, 5, 5};
	uint64_t totals[3] = {5, 5, 5};
	struct sample_out *o;

	assert_int_equal(sample_out_open(&o, dir, pid, 1, 0), 0);
	assert_int_equal(sample_out_add(o, 1, PSC_REC_SAMPLE_GROUP, 0, members, 1), 0);
	assert_int_equal(sample_out_add(o, 10, PSC_REC_SAMPLE, 0, p, 7), 0);
	assert_int_equal(sample_out_add(o, 20, PSC_REC_SAMPLE_TOTALS, 1, totals, 3), 0);
	assert_int_equal(sample_out_add(o, 30, PSC_REC_STREAM_END, PSC_END_EXIT, NULL, 0), 0);
	assert_int_equal(sample_out_close(o), 0);
}

static void test_full_disk_samples(void **state)
{
	char dir[128], err[512] = "";
	struct experiment e;
	struct lines l = {.len = 0};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json",
		   "{\"version\": 1, \"exit_status\": 0, \"sampling\": {\"frequency\": 1000, "
		   "\"events\": [{\"name\": \"cpu-clock\", \"state\": \"group\"}], \"samples\": 1, "
		   "\"error\": \"writing pmaps.30: No space left on device\"}}");
	samples_file(dir, 30);
	write_bytes(dir, "pmaps.30", NULL, 0);
	/* the runtime's maps of process 31 hold what its empty pmaps file lacks */
	samples_file(dir, 31);
	write_bytes(dir, "pmaps.31", NULL, 0);
	write_text(dir, "maps.31", "1000-2000 r-xp 00000000 00:00 0 /bin/true\n");
	/* no maps file at all for process 32 */
	samples_file(dir, 32);
	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(e.nsamples, 3);
	assert_int_equal(e.ndamaged, 3);
	experiment_caveats(&e, 1, collect, &l);
	assert_string_equal(
	    l.buf,
	    "perfscope record: writing pmaps.30: No space left on device\n"
	    "pmaps.30: empty (0 bytes): the samples of process 30 cannot be symbolised and show "
	    "as [unknown] (the disk was full)\n"
	    "pmaps.31: empty (0 bytes): samples of process 31 are named from the runtime's maps "
	    "alone; libraries loaded after it started show as [unknown] (the disk was full)\n"
	    "pmaps.32: missing (and no maps.32): the samples of process 32 cannot be symbolised "
	    "and show as [unknown] (the disk was full)\n");
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_disk_traces),
	    cmocka_unit_test(test_full_disk_samples),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
