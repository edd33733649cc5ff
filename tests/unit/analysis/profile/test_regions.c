/*
 * test_regions.c - the region profile (regions.h) built from synthetic experiment directories
 * (experiment.h), and experiment_open's errors.
 *
 * Every process uses "clock":"monotonic", so ticks are ns and every duration below is a plain
 * tick difference. Streams are written with the record layout of format.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/experiment-open.h"
#include "format/format.h"
#include "analysis/profile/regions.h"
#include "synth-exp.h"

/* ---- writing experiments -------------------------------------------------------------------- */

static const struct region_row *find_row(const struct region_profile *p, const char *name,
					 pid_t tid)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (!strcmp(p->rows[i].name, name) && p->rows[i].tid == tid)
			return &p->rows[i];
	fail_msg("no row '%s' for tid %d", name, (int)tid);
	return NULL;
}

/* Open DIR and build its profile; both must succeed. */
static void build(const char *dir, struct experiment *e, struct region_profile *p)
{
	char err[512] = "";

	if (experiment_open(e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	if (region_profile_build(p, e, err, sizeof(err)))
		fail_msg("region_profile_build: %s", err);
}

/* ---- timing --------------------------------------------------------------------------------- */

/* outer 1000..1100 contains inner 1010..1030 and 1040..1060. */
static void test_nested(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	const struct region_row *outer, *inner;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "outer");
	w_def(&s, 1000, 2, "inner");
	w_enter(&s, 1000, 1);
	w_enter(&s, 1010, 2);
	w_leave(&s, 1030, 2);
	w_enter(&s, 1040, 2);
	w_leave(&s, 1060, 2);
	w_leave(&s, 1100, 1);
	w_end(&s, 1100);
	write_stream(dir, 100, 100, &s, NULL, 0);

	build(dir, &e, &p);
	assert_int_equal(e.nprocs, 1);
	assert_int_equal(e.nstreams, 1);
	assert_true(e.procs[0].fit.ns_per_tick == 1.0);
	assert_int_equal(p.nrows, 2);
	assert_int_equal(p.nthreads, 1);
	outer = find_row(&p, "outer", 100);
	inner = find_row(&p, "inner", 100);
	assert_int_equal(outer->pid, 100);
	assert_int_equal(outer->calls, 1);
	assert_true(outer->incl_ns == 100.0);
	assert_true(outer->excl_ns == 60.0);
	assert_true(outer->min_ns == 100.0);
	assert_true(outer->max_ns == 100.0);
	assert_int_equal(outer->unclosed, 0);
	assert_int_equal(inner->calls, 2);
	assert_true(inner->incl_ns == 40.0);
	assert_true(inner->excl_ns == 40.0);
	assert_true(inner->min_ns == 20.0);
	assert_true(inner->max_ns == 20.0);
	assert_int_equal(inner->unclosed, 0);
	assert_int_equal(p.unmatched_ends, 0);
	assert_int_equal(p.unclosed, 0);
	assert_true(p.duration_ns == 100.0);
	assert_int_equal(p.threads[0].pid, 100);
	assert_int_equal(p.threads[0].tid, 100);
	assert_true(p.threads[0].ended);
	assert_int_equal(p.threads[0].end_reason, PSC_END_EXIT);
	assert_int_equal(p.threads[0].truncated_at, 0);
	assert_int_equal(p.threads[0].records, 10);
	/* the event list is empty: no counters, no gaps */
	assert_int_equal(p.nevents, 0);
	assert_int_equal(outer->counter_gaps, 0);

	region_profile_release(&p);
	experiment_release(&e);
}

/*
 * Recursion: A 0..100 { A 10..50 { B 20..30 } } (offsets from 1000). A's inclusive time is
 * the outermost interval only (100, not 140); exclusive: inner A 40 - 10 = 30, outer A
 * 100 - 40 = 60, so 90; B 10.
 */
static void test_recursion(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	const struct region_row *a, *b;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 200, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 0, "A");
	w_def(&s, 1000, 5, "B");
	w_enter(&s, 1000, 0);
	w_enter(&s, 1010, 0);
	w_enter(&s, 1020, 5);
	w_leave(&s, 1030, 5);
	w_leave(&s, 1050, 0);
	w_leave(&s, 1100, 0);
	w_end(&s, 1100);
	write_stream(dir, 200, 201, &s, NULL, 0);

	build(dir, &e, &p);
	a = find_row(&p, "A", 201);
	b = find_row(&p, "B", 201);
	assert_int_equal(a->calls, 2);
	assert_true(a->incl_ns == 100.0);
	assert_true(a->excl_ns == 90.0);
	assert_true(a->min_ns == 40.0);
	assert_true(a->max_ns == 100.0);
	assert_int_equal(b->calls, 1);
	assert_true(b->incl_ns == 10.0);
	assert_true(b->excl_ns == 10.0);
	assert_int_equal(p.unclosed, 0);
	region_profile_release(&p);
	experiment_release(&e);
}

/* A leave without a begin is counted, never fatal; the rest is unaffected. */
static void test_unmatched_end(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	const struct region_row *x;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 300, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "X");
	w_def(&s, 1000, 2, "Y");
	w_leave(&s, 1005, 1); /* nothing open */
	w_enter(&s, 1010, 2);
	w_leave(&s, 1020, 1); /* Y is open, X is not */
	w_leave(&s, 1030, 2);
	w_end(&s, 1030);
	write_stream(dir, 300, 300, &s, NULL, 0);

	build(dir, &e, &p);
	assert_int_equal(p.unmatched_ends, 2);
	assert_int_equal(p.threads[0].unmatched_ends, 2);
	assert_int_equal(p.unclosed, 0);
	assert_int_equal(p.nrows, 1);
	x = find_row(&p, "Y", 300);
	assert_int_equal(x->calls, 1);
	assert_true(x->incl_ns == 20.0);
	assert_int_equal(x->unclosed, 0);
	region_profile_release(&p);
	experiment_release(&e);
}

/*
 * Begins never ended: B (inside A) is closed when A ends, and C, open when the stream stops
 * (no end record: a killed run), is closed at the last timestamp.
 *   A 1000..1050, B 1010..1050 (unclosed), C 1060..1080 (unclosed; last record at 1080)
 */
static void test_unclosed(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	const struct region_row *a, *b, *c;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 400, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "A");
	w_def(&s, 1000, 2, "B");
	w_def(&s, 1000, 3, "C");
	w_enter(&s, 1000, 1);
	w_enter(&s, 1010, 2);
	w_leave(&s, 1050, 1);
	w_enter(&s, 1060, 3);
	w_put(&s, psc_word0(1080, PSC_KIND_FUNC_ENTER));
	w_put(&s, 0x401000);
	write_stream(dir, 400, 400, &s, NULL, 0);

	build(dir, &e, &p);
	a = find_row(&p, "A", 400);
	b = find_row(&p, "B", 400);
	c = find_row(&p, "C", 400);
	assert_int_equal(a->calls, 1);
	assert_int_equal(a->unclosed, 0);
	assert_true(a->incl_ns == 50.0);
	assert_true(a->excl_ns == 10.0);
	assert_int_equal(b->calls, 1);
	assert_int_equal(b->unclosed, 1);
	assert_true(b->incl_ns == 40.0);
	assert_int_equal(c->calls, 1);
	assert_int_equal(c->unclosed, 1);
	assert_true(c->incl_ns == 20.0);
	assert_true(c->excl_ns == 20.0);
	assert_int_equal(p.unclosed, 2);
	assert_int_equal(p.unmatched_ends, 0);
	assert_false(p.threads[0].ended);
	assert_true(p.duration_ns == 80.0);
	region_profile_release(&p);
	experiment_release(&e);
}

/* ---- counters ------------------------------------------------------------------------------- */

/*
 * Events page-faults (group 0, counting) and cycles (not opened: -ENOENT). Snapshots hold
 * group 0 only: nr 1, enabled, running, value.
 *   W: 1000..1100 enabled/running 100 -> 300, value 10 -> 17: +7, +200, +200
 *      1200..1300 enabled/running 400 -> 500, value 20 -> 25: +5, +100, +100
 *      sum 12, enabled 300, running 300 -> value 12
 *   M: 1400..1500 enabled 600 -> 1000, running 600 -> 800, value 30 -> 40: +10, +400, +200
 *      scaled 10 * 400 / 200 = 20
 *   G: 1600..1700 without snapshots: a counter gap on every call -> no value
 */
static void write_counter_stream(const char *dir, int pid, int tid, uint64_t scale)
{
	struct words s = {{0}, 0};
	const uint64_t layout[] = {0, 0xffffffffull | ((uint64_t)(uint32_t)-ENOENT << 32)};
	const size_t bounds[] = {22};

	w_clock(&s, 1000);
	w_ext(&s, 1000, PSC_REC_COUNTERS, 2, layout, 2);
	w_def(&s, 1000, 1, "W");
	w_def(&s, 1000, 2, "M");
	w_def(&s, 1000, 3, "G");
	/* words: clock 0-2, counters 3-6, definitions 7-15, W's first enter 16-21 */
	w_enter_snap(&s, 1000, 1, 100, 100, 10 * scale);
	assert_int_equal(s.n, 22);
	/* a second chunk starts here, with its own clock record (a calibration pair) */
	w_clock(&s, 1050);
	w_leave_snap(&s, 1100, 1, 300, 300, 17 * scale);
	w_enter_snap(&s, 1200, 1, 400, 400, 20 * scale);
	w_leave_snap(&s, 1300, 1, 500, 500, 25 * scale);
	w_enter_snap(&s, 1400, 2, 600, 600, 30 * scale);
	w_leave_snap(&s, 1500, 2, 1000, 800, 40 * scale);
	w_enter(&s, 1600, 3);
	w_leave(&s, 1700, 3);
	w_end(&s, 1700);
	write_stream(dir, pid, tid, &s, bounds, 1);
}

static void test_counters(void **state)
{
	struct experiment e;
	struct region_profile p;
	const struct region_row *w, *m, *g;
	uint64_t v;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 500, "[{\"name\":\"page-faults\"},{\"name\":\"cycles\"}]");
	write_counter_stream(dir, 500, 500, 1);

	build(dir, &e, &p);
	assert_int_equal(p.nevents, 2);
	assert_string_equal(p.events[0], "page-faults");
	assert_string_equal(p.events[1], "cycles");
	w = find_row(&p, "W", 500);
	m = find_row(&p, "M", 500);
	g = find_row(&p, "G", 500);

	assert_int_equal(w->calls, 2);
	assert_true(w->incl_ns == 200.0);
	assert_int_equal(w->status[0], 0);
	assert_int_equal(w->status[1], -ENOENT);
	assert_int_equal(w->counts[0].raw, 12);
	assert_int_equal(w->counts[0].enabled, 300);
	assert_int_equal(w->counts[0].running, 300);
	assert_int_equal(w->counter_gaps, 0);
	assert_int_equal(region_row_value(w, 0, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(region_row_value(w, 1, &v), -ENODATA);

	assert_int_equal(m->counts[0].raw, 10);
	assert_int_equal(m->counts[0].enabled, 400);
	assert_int_equal(m->counts[0].running, 200);
	assert_int_equal(region_row_value(m, 0, &v), 0);
	assert_int_equal(v, 20);

	assert_int_equal(g->calls, 1);
	assert_int_equal(g->counter_gaps, 1);
	assert_int_equal(region_row_value(g, 0, &v), -ENODATA);
	region_profile_release(&p);
	experiment_release(&e);
}

/* Counter deltas in recursion: only the outermost interval counts. */
static void test_counters_recursion(void **state)
{
	struct words s = {{0}, 0};
	const uint64_t layout[] = {0};
	struct experiment e;
	struct region_profile p;
	const struct region_row *r;
	uint64_t v;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 600, "[{\"name\":\"page-faults\"}]");
	w_clock(&s, 1000);
	w_ext(&s, 1000, PSC_REC_COUNTERS, 1, layout, 1);
	w_def(&s, 1000, 1, "R");
	w_enter_snap(&s, 1000, 1, 10, 10, 100);
	w_enter_snap(&s, 1010, 1, 20, 20, 130);
	w_leave_snap(&s, 1020, 1, 30, 30, 150);
	w_leave_snap(&s, 1100, 1, 110, 110, 300);
	w_end(&s, 1100);
	write_stream(dir, 600, 600, &s, NULL, 0);

	build(dir, &e, &p);
	r = find_row(&p, "R", 600);
	assert_int_equal(r->calls, 2);
	assert_true(r->incl_ns == 100.0);
	/* 300 - 100, not 200 + 20 */
	assert_int_equal(r->counts[0].raw, 200);
	assert_int_equal(r->counts[0].enabled, 100);
	assert_int_equal(region_row_value(r, 0, &v), 0);
	assert_int_equal(v, 200);
	region_profile_release(&p);
	experiment_release(&e);
}

/* ---- threads -------------------------------------------------------------------------------- */

/*
 * Two threads of one process: tid 700 runs "work" 1000..1100; tid 701 runs "work" 1150..1180
 * and 1190..1200 and "only" 1250..1300. Merged: work 3 calls, 100 + 30 + 10 = 140.
 */
static void test_merge_threads(void **state)
{
	struct words s0 = {{0}, 0}, s1 = {{0}, 0};
	struct experiment e;
	struct region_profile p, m;
	const struct region_row *r;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 700, "[]");
	w_clock(&s0, 1000);
	w_def(&s0, 1000, 1, "work");
	w_enter(&s0, 1000, 1);
	w_leave(&s0, 1100, 1);
	w_end(&s0, 1100);
	write_stream(dir, 700, 700, &s0, NULL, 0);
	/* the other thread numbers its regions itself */
	w_clock(&s1, 1150);
	w_def(&s1, 1150, 4, "only");
	w_def(&s1, 1150, 3, "work");
	w_enter(&s1, 1150, 3);
	w_leave(&s1, 1180, 3);
	w_enter(&s1, 1190, 3);
	w_leave(&s1, 1200, 3);
	w_enter(&s1, 1250, 4);
	w_leave(&s1, 1300, 4);
	w_end(&s1, 1300);
	write_stream(dir, 700, 701, &s1, NULL, 0);

	build(dir, &e, &p);
	assert_int_equal(e.nstreams, 2);
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.nrows, 3);
	r = find_row(&p, "work", 700);
	assert_int_equal(r->calls, 1);
	assert_true(r->incl_ns == 100.0);
	r = find_row(&p, "work", 701);
	assert_int_equal(r->calls, 2);
	assert_true(r->incl_ns == 40.0);

	assert_int_equal(region_profile_merge_threads(&p, &m), 0);
	assert_int_equal(m.nrows, 2);
	/* the threads' summaries (which carry the caveats) are kept */
	assert_int_equal(m.nthreads, 2);
	assert_int_equal(m.threads[0].tid, 700);
	assert_int_equal(m.threads[1].tid, 701);
	assert_true(m.threads[1].ended);
	r = find_row(&m, "work", 0);
	assert_int_equal(r->pid, 700);
	assert_int_equal(r->calls, 3);
	assert_true(r->incl_ns == 140.0);
	assert_true(r->excl_ns == 140.0);
	assert_true(r->min_ns == 10.0);
	assert_true(r->max_ns == 100.0);
	r = find_row(&m, "only", 0);
	assert_int_equal(r->calls, 1);
	assert_true(r->incl_ns == 50.0);
	region_profile_release(&m);
	region_profile_release(&p);
	experiment_release(&e);
}

/* Counter deltas are summed over threads; the status of an uncounted event survives. */
static void test_merge_counters(void **state)
{
	struct experiment e;
	struct region_profile p, m;
	const struct region_row *r;
	uint64_t v;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 800, "[{\"name\":\"page-faults\"},{\"name\":\"cycles\"}]");
	write_counter_stream(dir, 800, 800, 1);
	write_counter_stream(dir, 800, 801, 3); /* three times the counts */

	build(dir, &e, &p);
	assert_int_equal(region_profile_merge_threads(&p, &m), 0);
	assert_int_equal(m.nevents, 2);
	r = find_row(&m, "W", 0);
	assert_int_equal(r->calls, 4);
	assert_true(r->incl_ns == 400.0);
	assert_int_equal(r->counts[0].raw, 12 + 36);
	assert_int_equal(r->counts[0].enabled, 600);
	assert_int_equal(r->counts[0].running, 600);
	assert_int_equal(r->status[0], 0);
	assert_int_equal(r->status[1], -ENOENT);
	assert_int_equal(region_row_value(r, 0, &v), 0);
	assert_int_equal(v, 48);
	assert_int_equal(region_row_value(r, 1, &v), -ENODATA);
	r = find_row(&m, "M", 0);
	/* (10 + 30) * 800 / 400 */
	assert_int_equal(region_row_value(r, 0, &v), 0);
	assert_int_equal(v, 80);
	r = find_row(&m, "G", 0);
	assert_int_equal(r->counter_gaps, 2);
	assert_int_equal(region_row_value(r, 0, &v), -ENODATA);
	region_profile_release(&m);
	region_profile_release(&p);
	experiment_release(&e);
}

/*
 * duration_ns is "first to last record over all streams": thread 900 records 1000..1100,
 * thread 901 records 1050..1300, so 300 ns (not the longest single stream, 250).
 */
static void test_duration_all_streams(void **state)
{
	struct words s0 = {{0}, 0}, s1 = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 900, "[]");
	w_clock(&s0, 1000);
	w_end(&s0, 1100);
	write_stream(dir, 900, 900, &s0, NULL, 0);
	w_clock(&s1, 1050);
	w_end(&s1, 1300);
	write_stream(dir, 900, 901, &s1, NULL, 0);

	build(dir, &e, &p);
	assert_int_equal(p.nthreads, 2);
	if (p.duration_ns != 300.0)
		fail_msg("duration_ns %g, expected 300", p.duration_ns);
	region_profile_release(&p);
	experiment_release(&e);
}

/* A region record naming an undefined id is a defect reported with its offset. */
static void test_undefined_region(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct region_profile p;
	char dir[128], err[512] = "", expect[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 950, "[]");
	w_clock(&s, 1000);    /* header, chunk header: at H + 16 */
	w_enter(&s, 1010, 9); /* at H + 40: id 9 was never defined */
	w_end(&s, 1020);
	write_stream(dir, 950, 950, &s, NULL, 0);

	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_true(region_profile_build(&p, &e, err, sizeof(err)) < 0);
	snprintf(expect, sizeof(expect), "%s/stream.950.950: byte %zu: ", dir,
		 sizeof(struct psc_stream_header) + 40);
	if (strncmp(err, expect, strlen(expect)))
		fail_msg("'%s' does not start with '%s'", err, expect);
	region_profile_release(&p);
	experiment_release(&e);
}

/* ---- experiment_open errors ----------------------------------------------------------------- */

static void test_open_errors(void **state)
{
	struct experiment e;
	char dir[128], path[256], err[512];

	(void)state;
	/* a missing directory */
	snprintf(dir, sizeof(dir), "%s/no-such-dir", synth_top);
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -ENOENT);
	assert_true(!strncmp(err, dir, strlen(dir)));
	assert_non_null(strstr(err, "no such experiment directory"));
	experiment_release(&e);

	/* a directory with neither meta.json nor proc files */
	new_dir(dir, sizeof(dir));
	write_text(dir, "notes.txt", "hello\n");
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	assert_true(!strncmp(err, dir, strlen(dir)));
	assert_non_null(strstr(err, "not a perfscope experiment"));
	experiment_release(&e);

	/* malformed proc JSON: the message names the file */
	new_dir(dir, sizeof(dir));
	write_text(dir, "proc.12.json", "{\"pid\": 12,, \"clock\": \"tsc\"}");
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/proc.12.json: byte 12: ", dir);
	if (strncmp(err, path, strlen(path)))
		fail_msg("'%s' does not start with '%s'", err, path);
	assert_non_null(strstr(err, "invalid JSON"));
	experiment_release(&e);

	/* proc JSON that stops short (a full disk): the process is left out, not the experiment */
	new_dir(dir, sizeof(dir));
	write_text(dir, "proc.12.json", "{\"pid\": 12, \"clock\": ");
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(e.nprocs, 0);
	assert_int_equal(e.ndamaged, 1);
	assert_string_equal(e.damaged[0].name, "proc.12.json");
	assert_int_equal(e.damaged[0].kind, EXP_DAMAGE_JSON_CUT);
	assert_int_equal(e.damaged[0].at, 21);
	experiment_release(&e);

	/* malformed meta.json */
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\": 1,,}");
	write_proc(dir, 13, "[]");
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/meta.json: ", dir);
	if (strncmp(err, path, strlen(path)))
		fail_msg("'%s' does not start with '%s'", err, path);
	experiment_release(&e);

	/* meta.json of another format version */
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\": 2}");
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/meta.json: ", dir);
	assert_true(!strncmp(err, path, strlen(path)));
	assert_non_null(strstr(err, "version 2"));
	experiment_release(&e);

	/* a proc file without a clock */
	new_dir(dir, sizeof(dir));
	write_text(dir, "proc.14.json", "{\"pid\": 14}");
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/proc.14.json: ", dir);
	assert_true(!strncmp(err, path, strlen(path)));
	experiment_release(&e);

	/* a stream without its process */
	new_dir(dir, sizeof(dir));
	write_proc(dir, 15, "[]");
	{
		struct words s = {{0}, 0};

		w_clock(&s, 1000);
		write_stream(dir, 16, 16, &s, NULL, 0);
	}
	err[0] = 0;
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/stream.16.16: ", dir);
	assert_true(!strncmp(err, path, strlen(path)));
	assert_non_null(strstr(err, "proc.16.json"));
	experiment_release(&e);
}

/* A regular file is "not a directory", whatever errno held before the call. */
static void test_open_not_a_directory(void **state)
{
	struct experiment e;
	char dir[128], path[256], err[512] = "";

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "plain", "x");
	snprintf(path, sizeof(path), "%s/plain", dir);
	errno = ENOENT; /* left over from some earlier call */
	assert_true(experiment_open(&e, path, err, sizeof(err)) < 0);
	assert_true(!strncmp(err, path, strlen(path)));
	if (!strstr(err, "not a directory"))
		fail_msg("'%s' should say 'not a directory'", err);
	experiment_release(&e);
}

/* Calibration from proc.json and from every chunk's clock record; process fields. */
static void test_open_fields(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	char dir[128], err[512] = "";
	const size_t bounds[] = {3};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"perfscope record\",\"host\":\"h1\","
		   "\"exit_status\":3,\"command\":[\"./a\",\"b c\"]}");
	write_proc(dir, 1234, "[{\"name\":\"page-faults\"},{\"name\":\"cycles:u\"}]");
	w_clock(&s, 1000);
	w_clock(&s, 2000);
	write_stream(dir, 1234, 1235, &s, bounds, 1);
	/* files that are not streams are ignored */
	write_text(dir, "stream.1234.1235.tmp", "junk");
	write_text(dir, "maps.1234", "junk");

	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_true(e.has_meta);
	assert_string_equal(e.created_by, "perfscope record");
	assert_string_equal(e.host, "h1");
	assert_int_equal(e.exit_status, 3);
	assert_int_equal(e.ncommand, 2);
	assert_string_equal(e.command[1], "b c");
	assert_int_equal(e.nprocs, 1);
	assert_int_equal(e.procs[0].pid, 1234);
	assert_int_equal(e.procs[0].ppid, 1);
	assert_int_equal(e.procs[0].rank, -1);
	assert_string_equal(e.procs[0].state, "exited");
	assert_int_equal(e.procs[0].clock, CLOCK_SOURCE_MONOTONIC);
	assert_int_equal(e.procs[0].nevents, 2);
	assert_string_equal(e.procs[0].events[1], "cycles:u");
	/* ["1000","1000"] from the file, then one per chunk */
	assert_int_equal(e.procs[0].npairs, 3);
	assert_int_equal(e.procs[0].pairs[1].ticks, 1000);
	assert_int_equal(e.procs[0].pairs[2].ticks, 2000);
	assert_int_equal(e.procs[0].fit.ref_ticks, 1000);
	assert_int_equal(e.procs[0].fit.ref_ns, 1000);
	assert_int_equal(e.nstreams, 1);
	assert_int_equal(e.streams[0].pid, 1234);
	assert_int_equal(e.streams[0].tid, 1235);
	assert_ptr_equal(e.streams[0].proc, &e.procs[0]);
	assert_ptr_equal(experiment_process(&e, 1234, 0), &e.procs[0]);
	assert_null(experiment_process(&e, 999, 0));
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_recursion),
	    cmocka_unit_test(test_unmatched_end),
	    cmocka_unit_test(test_unclosed),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_counters_recursion),
	    cmocka_unit_test(test_merge_threads),
	    cmocka_unit_test(test_merge_counters),
	    cmocka_unit_test(test_duration_all_streams),
	    cmocka_unit_test(test_undefined_region),
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_open_not_a_directory),
	    cmocka_unit_test(test_open_fields),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
