/*
 * test_sample_timeline.c - a timeline (src/analysis/timeline.h) from a hand-made samples file
 * with exact expected values: with switch records (PSC_FEAT_SWITCHES) a sample's deltas are
 * spread over the spans its thread was on that CPU since its previous sample there (not over
 * the wall time before the sample, nor over its time on another CPU); a thread on the CPU
 * before any record said so counts from the start; a file without the feature bit (recorded
 * before switch records existed) spreads over the wall time before each sample as it did;
 * more spans than a state keeps still hand out the whole delta.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "format.h"
#include "sample-out.h"
#include "symbols.h"
#include "timeline.h"

#define MS   1000000ull
#define ROOT 100
#define PF   1 /* page-faults: event 1 */

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_make(tmpdir, sizeof(tmpdir), "sample-tl"), 0);
	return 0;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_remove(tmpdir), 0);
	return 0;
}

struct gen {
	struct sample_out *o;
	uint64_t t0;		      /* the file's start: the timeline's time 0 */
	uint64_t clock[2], faults[2]; /* root's values per CPU, as the kernel counts them */
};

static void sw(struct gen *g, uint64_t at, pid_t tid, unsigned cpu, int out)
{
	uint64_t pt = (uint64_t)ROOT | (uint64_t)tid << 32;
	uint32_t arg = cpu | (out ? PSC_SWITCH_OUT : 0u) << 16;

	assert_int_equal(sample_out_add(g->o, g->t0 + at, PSC_REC_SWITCH, arg, &pt, 1), 0);
}

/* A sample of the root on CPU at AT that counted RUN ns and FAULTS more there. */
static void sample(struct gen *g, uint64_t at, unsigned cpu, uint64_t run, uint64_t faults)
{
	uint64_t p[8];

	g->clock[cpu] += run;
	g->faults[cpu] += faults;
	p[0] = (uint64_t)ROOT | (uint64_t)ROOT << 32;
	p[1] = 0x1000;
	p[2] = cpu;
	p[3] = 2;
	p[4] = p[5] = g->clock[cpu];
	p[6] = g->clock[cpu];
	p[7] = g->faults[cpu];
	assert_int_equal(sample_out_add(g->o, g->t0 + at, PSC_REC_SAMPLE, 0, p, 8), 0);
}

/*
 * The root runs on CPU 0 from its exec (no switch-in) to 0.5 ms, is off until 2.5 ms, sampled
 * at 3 ms (100 faults); off CPU 0 at 3.25, on CPU 1 3.5-4.5, on CPU 0 again at 5.5, sampled
 * there at 6 ms (60 faults); off at 6.5, on CPU 1 at 7, sampled there at 7.5 ms (30 faults, its
 * first sample on CPU 1); off at 8 ms, the end. NSWITCH > 0: thread 101 also flips on and off
 * CPU 1 NSWITCH times in 1 ms steps after 8 ms before one sample of 1000 faults.
 */
static void write_experiment(const char *dir, uint64_t features, int nswitch)
{
	char path[256];
	struct gen g = {0};
	struct psc_stream_header h;
	uint64_t members[2] = {0, PF};
	FILE *f;
	int fd;

	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": true, "
		   "\"events\": [{\"name\": \"cpu-clock\", \"state\": \"group\", \"status\": 0}, "
		   "{\"name\": \"page-faults\", \"state\": \"group\", \"status\": 0}]}}\n");
	fclose(f);
	assert_int_equal(sample_out_open(&g.o, dir, ROOT, 2, features), 0);
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	g.t0 = h.start_ns;
	assert_int_equal(sample_out_add(g.o, g.t0, PSC_REC_SAMPLE_GROUP, 0, members, 2), 0);
	sw(&g, MS / 2, ROOT, 0, 1);
	sw(&g, 5 * MS / 2, ROOT, 0, 0);
	sample(&g, 3 * MS, 0, MS, 100);
	sw(&g, 13 * MS / 4, ROOT, 0, 1);
	sw(&g, 7 * MS / 2, ROOT, 1, 0);
	sw(&g, 9 * MS / 2, ROOT, 1, 1);
	sw(&g, 11 * MS / 2, ROOT, 0, 0);
	sample(&g, 6 * MS, 0, 3 * MS / 4, 60);
	sw(&g, 13 * MS / 2, ROOT, 0, 1);
	sw(&g, 7 * MS, ROOT, 1, 0);
	sample(&g, 15 * MS / 2, 1, 3 * MS / 2, 30);
	sw(&g, 8 * MS, ROOT, 1, 1);
	for (int i = 0; i < nswitch; i++) {
		uint64_t at = 8 * MS + (uint64_t)i * MS, pt = (uint64_t)ROOT | 101ull << 32;
		uint64_t p[8] = {pt, 0x1000, 1, 2, 0, 0, 0, 1000};

		sw(&g, at, 101, 1, 0);
		sw(&g, at + MS / 2, 101, 1, 1);
		if (i + 1 == nswitch)
			assert_int_equal(
			    sample_out_add(g.o, g.t0 + at + MS / 2, PSC_REC_SAMPLE, 0, p, 8), 0);
	}
	assert_int_equal(sample_out_close(g.o), 0);
}

/* Timeline of DIR in 1 ms intervals; its root thread's index. */
static size_t build(const char *dir, struct experiment *e, struct symtab *syms, struct timeline *t)
{
	char err[512] = "";

	if (experiment_open(e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(symtab_init(syms, dir), 0);
	if (timeline_build(t, e, syms, MS, 5, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t th = 0; th < t->walk.nthreads; th++)
		if (t->walk.threads[th].tid == ROOT)
			return th;
	fail_msg("no thread %d", ROOT);
	return 0;
}

static void release(struct experiment *e, struct symtab *syms, struct timeline *t)
{
	timeline_release(t);
	symtab_release(syms);
	experiment_release(e);
}

static void test_on_cpu_spans(void **state)
{
	/* 100 over [0, 0.5] and [2.5, 3]; 60 over [3, 3.25] and [5.5, 6]; 30 over [3.5, 4.5]
	 * and [7, 7.5] */
	static const double want[8] = {50, 0, 50, 20 + 10, 10, 40, 0, 10};
	char dir[128];
	struct experiment e;
	struct symtab syms;
	struct timeline t;
	size_t th;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/switches", tmpdir);
	write_experiment(dir, PSC_FEAT_SWITCHES, 0);
	th = build(dir, &e, &syms, &t);
	assert_int_equal(t.nintervals, 8);
	for (size_t i = 0; i < 8; i++)
		if (timeline_value(&t, th, i, PF) != want[i])
			fail_msg("interval %zu: %g faults, want %g", i,
				 timeline_value(&t, th, i, PF), want[i]);
	/* cpu-clock, spread the same way, is the time on the CPU in each interval */
	assert_true(timeline_value(&t, th, 0, 0) == MS / 2);
	assert_true(timeline_value(&t, th, 1, 0) == 0);
	assert_true(timeline_value(&t, th, 4, 0) == MS / 2);
	release(&e, &syms, &t);
}

static void test_without_switch_records(void **state)
{
	/* before switch records: each delta over the wall time just before its sample, as long
	 * as its time_running: 100 over [2, 3], 60 over [5.25, 6], 30 over [6, 7.5] */
	static const double want[8] = {0, 0, 100, 0, 0, 60, 20, 10};
	char dir[128];
	struct experiment e;
	struct symtab syms;
	struct timeline t;
	size_t th;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/old", tmpdir);
	write_experiment(dir, 0, 0);
	th = build(dir, &e, &syms, &t);
	for (size_t i = 0; i < 8; i++)
		if (timeline_value(&t, th, i, PF) != want[i])
			fail_msg("interval %zu: %g faults, want %g", i,
				 timeline_value(&t, th, i, PF), want[i]);
	release(&e, &syms, &t);
}

static void test_many_spans(void **state)
{
	/* thread 101: 200 half-millisecond spans, more than a state keeps, then one sample */
	char dir[128];
	struct experiment e;
	struct symtab syms;
	struct timeline t;
	double sum = 0;
	size_t th = SIZE_MAX;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/many", tmpdir);
	write_experiment(dir, PSC_FEAT_SWITCHES, 200);
	build(dir, &e, &syms, &t);
	for (size_t k = 0; k < t.walk.nthreads; k++)
		if (t.walk.threads[k].tid == 101)
			th = k;
	assert_true(th != SIZE_MAX);
	for (size_t i = 0; i < t.nintervals; i++) {
		sum += timeline_value(&t, th, i, PF);
		/* nothing before the thread's first span */
		if (i < 8)
			assert_true(timeline_value(&t, th, i, PF) == 0);
	}
	assert_true(sum > 1000 - 1e-6 && sum < 1000 + 1e-6);
	/* the last 63 spans are kept as they were: half of each 1 ms interval */
	assert_true(timeline_value(&t, th, t.nintervals - 2, PF) ==
		    timeline_value(&t, th, t.nintervals - 3, PF));
	release(&e, &syms, &t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_on_cpu_spans),
	    cmocka_unit_test(test_without_switch_records),
	    cmocka_unit_test(test_many_spans),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
