/*
 * test_sample_timeline.c - a timeline (src/analysis/timeline/timeline.h) from a hand-made samples
 * file with exact expected values: with switch records (PSC_FEAT_SWITCHES) a sample's deltas are
 * spread over the spans its thread was on that CPU since its previous sample there (not over
 * the wall time before the sample, nor over its time on another CPU); a thread on the CPU
 * before any record said so counts from the start; a file without the feature bit (recorded
 * before switch records existed) spreads over the wall time before each sample as it did;
 * more spans than a state keeps still hand out the whole delta; with two groups each sample
 * takes the spans after its own group's previous sample from the one set its thread has on
 * that CPU, and a group that never samples there does not hold them (test_silent_group). Losses
 * and markers: the kernel's
 * lost records and throttling are counted exactly, exec, throttle and exit are markers at their
 * times, and the timeline and the report say them.
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

#include "model/experiment-open.h"
#include "format/format.h"
#include "record/sample-out.h"
#include "model/symbols.h"
#include "view/sample-print.h"
#include "analysis/profile/sample-profile.h"
#include "view/timeline-print.h"
#include "analysis/timeline/timeline.h"

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

/* One extended record of TYPE and ARG at T0 + AT with the N words P. */
static void rec(struct sample_out *o, uint64_t t0, uint64_t at, uint32_t type, uint32_t arg,
		const uint64_t *p, size_t n)
{
	assert_int_equal(sample_out_add(o, t0 + at, type, arg, p, n), 0);
}

/* The root switched on (OUT 0) or off CPU 0 at T0 + AT. */
static void sw_at(struct sample_out *o, uint64_t t0, uint64_t at, int out)
{
	uint64_t pt = (uint64_t)ROOT | (uint64_t)ROOT << 32;

	rec(o, t0, at, PSC_REC_SWITCH, (out ? PSC_SWITCH_OUT : 0u) << 16, &pt, 1);
}

/*
 * Two groups, one set of spans per (thread, cpu): cpu-clock leads group 0, page-faults is alone
 * in group 1. The root runs on CPU 0 from its exec to 0.5 ms, is off until 2.5 ms, group 0
 * samples at 3 ms, off at 3.25, on at 5.5, group 1 samples at 6 ms (100 faults, its first
 * sample: over 0-0.5, 2.5-3.25, 5.5-6), group 0 again at 7 ms (over 3-3.25 and 5.5-7, the
 * spans after its own previous sample, although group 1 took 3-3.25 too).
 */
static void test_groups_share_spans(void **state)
{
	const uint64_t pt = (uint64_t)ROOT | (uint64_t)ROOT << 32, m0 = 0, m1 = PF;
	static const double faults[7] = {100 / 3.5, 0, 100 / 3.5, 100 / 7.0, 0, 100 / 3.5, 0};
	static const double clock[7] = {MS / 2, 0, MS / 2, MS / 4, 0, MS / 2, MS};
	char dir[128], path[256];
	struct psc_stream_header h;
	struct sample_out *o;
	struct experiment e;
	struct symtab syms;
	struct timeline t;
	uint64_t p[7];
	size_t th;
	FILE *f;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/groups", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": true, "
		   "\"events\": [{\"name\": \"cpu-clock\", \"state\": \"group\", \"status\": 0}, "
		   "{\"name\": \"page-faults\", \"state\": \"own group\", \"status\": 0}]}}\n");
	fclose(f);
	assert_int_equal(sample_out_open(&o, dir, ROOT, 2, PSC_FEAT_SWITCHES), 0);
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	rec(o, h.start_ns, 0, PSC_REC_SAMPLE_GROUP, 0, &m0, 1);
	rec(o, h.start_ns, 0, PSC_REC_SAMPLE_GROUP, 1, &m1, 1);
	sw_at(o, h.start_ns, MS / 2, 1);
	sw_at(o, h.start_ns, 5 * MS / 2, 0);
	/* pid/tid, ip, cpu 0, nr 1, enabled, running, value */
	p[0] = pt, p[1] = 0x1000, p[2] = 0, p[3] = 1, p[4] = p[5] = p[6] = MS;
	rec(o, h.start_ns, 3 * MS, PSC_REC_SAMPLE, 0, p, 7);
	sw_at(o, h.start_ns, 13 * MS / 4, 1);
	sw_at(o, h.start_ns, 11 * MS / 2, 0);
	p[4] = p[5] = 7 * MS / 4, p[6] = 100;
	rec(o, h.start_ns, 6 * MS, PSC_REC_SAMPLE, 1, p, 7);
	p[4] = p[5] = p[6] = MS + 7 * MS / 4;
	rec(o, h.start_ns, 7 * MS, PSC_REC_SAMPLE, 0, p, 7);
	assert_int_equal(sample_out_close(o), 0);

	th = build(dir, &e, &syms, &t);
	assert_int_equal(t.nintervals, 7);
	for (size_t i = 0; i < 7; i++) {
		double pf = timeline_value(&t, th, i, PF), cc = timeline_value(&t, th, i, 0);

		if (pf < faults[i] - 1e-9 || pf > faults[i] + 1e-9 || cc < clock[i] - 1e-6 ||
		    cc > clock[i] + 1e-6)
			fail_msg("interval %zu: %.12g faults and %.12g ns, want %.12g and %.12g", i,
				 pf, cc, faults[i], clock[i]);
	}
	release(&e, &syms, &t);
}

/* Group 0's samples with their spans (us from the file's start), and the number of group 1's,
 * for the quiet-group tests. */
struct spans_seen {
	uint64_t t0;
	size_t n, n1;
	uint64_t spans[40][12];
	uint32_t nspans[40];
};

static int collect_spans(void *ctx, const struct sample *s)
{
	struct spans_seen *c = ctx;

	if (s->group == 1) {
		c->n1++;
		return 0;
	}
	assert_int_equal(s->group, 0);
	assert_true(c->n < 40 && s->nspans <= 6);
	c->nspans[c->n] = (uint32_t)s->nspans;
	for (size_t i = 0; i < 2 * s->nspans; i++)
		c->spans[c->n][i] = (s->spans[i] - c->t0) / 1000;
	c->n++;
	return 0;
}

/*
 * A group that does not sample on a (thread, CPU) does not hold its spans (review s7 #3): the
 * root runs 100 us spans on CPU 0, 120 of them (more than a state keeps), with off-CPU gaps
 * that shrink (300, 299, .. us), so that merging would join the newest ones. Group 0
 * (cpu-clock) samples 50 us into every 4th span; group 1 (page-faults) never samples, or with
 * ONCE samples 20 us into the first span and never again (review s8 #1: a group gone quiet
 * behind every kept span held them too). Each of group 0's samples has exactly the spans since
 * its previous one: the rest of that span, the three whole spans between, and its own span up
 * to the sample.
 */
static void quiet_group_case(const char *name, int once)
{
	const uint64_t pt = (uint64_t)ROOT | (uint64_t)ROOT << 32, m0 = 0, m1 = PF, us = 1000;
	char dir[128], path[256], err[512] = "";
	struct psc_stream_header h;
	struct spans_seen *seen = calloc(1, sizeof(*seen));
	struct sample_walk w = {0};
	struct sample_out *o;
	struct experiment e;
	uint64_t on[120], at = 1000 * us, p[7];
	FILE *f;
	int fd;

	assert_non_null(seen);
	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": true, "
		   "\"events\": [{\"name\": \"cpu-clock\", \"state\": \"group\", \"status\": 0}, "
		   "{\"name\": \"page-faults\", \"state\": \"own group\", \"status\": 0}]}}\n");
	fclose(f);
	assert_int_equal(sample_out_open(&o, dir, ROOT, 2, PSC_FEAT_SWITCHES), 0);
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	seen->t0 = h.start_ns;
	rec(o, h.start_ns, 0, PSC_REC_SAMPLE_GROUP, 0, &m0, 1);
	rec(o, h.start_ns, 0, PSC_REC_SAMPLE_GROUP, 1, &m1, 1);
	sw_at(o, h.start_ns, 0, 1);
	for (uint64_t i = 0; i < 120; i++) {
		on[i] = at;
		sw_at(o, h.start_ns, at, 0);
		if (i % 4 == 0) {
			/* pid/tid, ip, cpu 0, nr 1, enabled, running, value */
			p[0] = pt, p[1] = 0x1000, p[2] = 0, p[3] = 1;
			p[4] = p[5] = p[6] = (i + 1) * 100 * us;
			rec(o, h.start_ns, at + 50 * us, PSC_REC_SAMPLE, 0, p, 7);
		}
		if (i == 0 && once) {
			p[0] = pt, p[1] = 0x1000, p[2] = 0, p[3] = 1;
			p[4] = p[5] = 20 * us, p[6] = 1;
			rec(o, h.start_ns, at + 20 * us, PSC_REC_SAMPLE, 1, p, 7);
		}
		sw_at(o, h.start_ns, at + 100 * us, 1);
		at += 100 * us + (300 - i) * us;
	}
	assert_int_equal(sample_out_close(o), 0);

	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	if (samples_walk(&e, &w, collect_spans, seen, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(seen->n, 30);
	assert_int_equal(seen->n1, once ? 1 : 0);
	for (size_t k = 1; k < 30; k++) {
		uint64_t want[10], b = 4 * k;

		want[0] = on[b - 4] / us + 50, want[1] = on[b - 4] / us + 100;
		for (uint64_t j = 1; j <= 3; j++)
			want[2 * j] = on[b - 4 + j] / us,
				 want[2 * j + 1] = on[b - 4 + j] / us + 100;
		want[8] = on[b] / us, want[9] = on[b] / us + 50;
		assert_int_equal(seen->nspans[k], 5);
		for (size_t i = 0; i < 10; i++)
			if (seen->spans[k][i] != want[i])
				fail_msg("sample %zu: span bound %zu at %llu us, want %llu", k, i,
					 (unsigned long long)seen->spans[k][i],
					 (unsigned long long)want[i]);
	}
	sample_walk_release(&w);
	experiment_release(&e);
	free(seen);
}

static void test_silent_group(void **state)
{
	(void)state;
	quiet_group_case("silent", 0);
}

static void test_group_quiet_after_one_sample(void **state)
{
	(void)state;
	quiet_group_case("quiet", 1);
}

/*
 * Losses and markers: the root's exec at 0, a sample at 1 ms, the kernel's two lost records
 * (5 and 7 samples), the root throttled at 2 ms and unthrottled at 3 ms, a second sample at
 * 4 ms, its exit at 5 ms. The walk counts 12 lost and 1 throttling, the markers are exactly
 * those four in time order, the timeline prints them, and the report's caveats say both.
 */
static void test_losses_and_markers(void **state)
{
	const uint64_t pt = (uint64_t)ROOT | (uint64_t)ROOT << 32, members[2] = {0, PF};
	const uint64_t exec[3] = {pt, 0x6b6c6177 /* "walk" */, 0}, exit[2] = {pt, pt};
	const uint64_t lost5[2] = {5, 0}, lost7[2] = {7, 0};
	uint64_t s1[8] = {pt, 0x1000, 0, 2, MS, MS, MS, 10},
		 s2[8] = {pt, 0x1000, 0, 2, 2 * MS, 2 * MS, 2 * MS, 30};
	static const int kinds[4] = {MARK_EXEC, MARK_THROTTLE, MARK_UNTHROTTLE, MARK_EXIT};
	static const uint64_t at[4] = {0, 2 * MS, 3 * MS, 5 * MS};
	char dir[128], path[256], err[512] = "", *text = NULL;
	struct psc_stream_header h;
	struct sample_out *o;
	struct experiment e;
	struct symtab syms;
	struct timeline t;
	struct sample_profile p;
	struct sample_report r = {0};
	size_t len = 0;
	FILE *f;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/losses", tmpdir);
	write_experiment(dir, PSC_FEAT_SWITCHES, 0);
	/* the same meta.json, a new samples file */
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sample_out_open(&o, dir, ROOT, 2, PSC_FEAT_SWITCHES), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	rec(o, h.start_ns, 0, PSC_REC_SAMPLE_GROUP, 0, members, 2);
	rec(o, h.start_ns, 0, PSC_REC_TASK, PSC_TASK_EXEC, exec, 3);
	rec(o, h.start_ns, MS, PSC_REC_SAMPLE, 0, s1, 8);
	rec(o, h.start_ns, 3 * MS / 2, PSC_REC_LOST, 0, lost5, 2);
	rec(o, h.start_ns, 2 * MS, PSC_REC_THROTTLE, 1, &pt, 1);
	rec(o, h.start_ns, 5 * MS / 2, PSC_REC_LOST, 0, lost7, 2);
	rec(o, h.start_ns, 3 * MS, PSC_REC_THROTTLE, 0, &pt, 1);
	rec(o, h.start_ns, 4 * MS, PSC_REC_SAMPLE, 0, s2, 8);
	rec(o, h.start_ns, 5 * MS, PSC_REC_TASK, PSC_TASK_EXIT, exit, 2);
	assert_int_equal(sample_out_close(o), 0);

	build(dir, &e, &syms, &t);
	assert_int_equal(t.walk.samples, 2);
	assert_int_equal(t.walk.lost, 12);
	assert_int_equal(t.walk.throttled, 1);
	assert_int_equal(t.walk.nmarkers, 4);
	for (size_t m = 0; m < 4; m++) {
		assert_int_equal(t.walk.markers[m].kind, kinds[m]);
		assert_int_equal(t.walk.markers[m].ns - h.start_ns, at[m]);
		assert_int_equal(t.walk.markers[m].tid, ROOT);
	}
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(timeline_print_text(&e, &t, f), 0);
	assert_int_equal(fclose(f), 0);
	if (!strstr(text, "\nMarkers\n        0 ns  exec pid 100 tid 100\n"
			  "     2.00 ms  throttled pid 100 tid 100\n"
			  "     3.00 ms  unthrottled pid 100 tid 100\n"
			  "     5.00 ms  exit pid 100 tid 100\n"))
		fail_msg("markers not as expected in:\n%s", text);
	free(text);
	timeline_release(&t);

	if (sample_profile_build(&p, &e, &syms, 0, 0, err, sizeof(err)))
		fail_msg("%s", err);
	r.e = &e;
	r.p = &p;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sample_print_text(&r, f), 0);
	assert_int_equal(fclose(f), 0);
	if (!strstr(text, "12 samples were lost (the ring buffer overflowed): sample at a lower "
			  "frequency") ||
	    !strstr(text, "the kernel throttled sampling 1 times"))
		fail_msg("losses not said in:\n%s", text);
	free(text);
	sample_profile_release(&p);
	symtab_release(&syms);
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_on_cpu_spans),
	    cmocka_unit_test(test_without_switch_records),
	    cmocka_unit_test(test_many_spans),
	    cmocka_unit_test(test_groups_share_spans),
	    cmocka_unit_test(test_silent_group),
	    cmocka_unit_test(test_group_quiet_after_one_sample),
	    cmocka_unit_test(test_losses_and_markers),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
