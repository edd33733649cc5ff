/*
 * test_omp_profile.c - the OpenMP profile from synthetic streams with known arrival times:
 * exact barrier waits, work, imbalance and efficiencies; the libgomp shape (the closing
 * barrier derived from the team's arrivals) and the OMPT shape (its own records) giving the
 * same rows; two instances of a region; a nested region; a killed run; tasks of a parallel
 * region that never began.
 */
#include "synth-exp.h"

#include "analysis/openmp/omp-profile.h"
#include "model/experiment-open.h"
#include "model/pass.h"
#include "model/session.h"

#include <math.h>

#define PID  10
#define SITE 0x401000u
#define FN   0x402000u

enum shape { GOMP, OMPT };

/* P: the OpenMP profile of DIR (no symbols: sites named by address). */
static void build(const char *dir, struct omp_profile *p)
{
	struct ev_consumer c, *list[] = {&c};
	struct experiment e;
	struct ev_source *src;
	char err[512];

	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(ev_source_experiment(&src, &e, err, sizeof(err)), 0);
	assert_int_equal(omp_profile_consumer(&c, p, NULL), 0);
	if (ev_pass_run(src, list, 1, err, sizeof(err)))
		fail_msg("pass: %s", err);
	ev_consumer_release(&c);
	ev_source_close(src);
	experiment_release(&e);
}

static void w_par_begin(struct words *s, uint64_t t, uint64_t id, uint64_t site, uint32_t level,
			uint32_t team)
{
	const uint64_t pl[] = {id, site, FN, level};

	w_ext(s, t, PSC_REC_OMP_PARALLEL_BEGIN, team, pl, 4);
}

static void w_par_end(struct words *s, uint64_t t, uint64_t id, uint32_t team)
{
	w_ext(s, t, PSC_REC_OMP_PARALLEL_END, team, &id, 1);
}

static void w_itask_begin(struct words *s, uint64_t t, uint64_t id, uint32_t thread, uint32_t team)
{
	const uint64_t pl[] = {id, team};

	w_ext(s, t, PSC_REC_OMP_ITASK_BEGIN, thread, pl, 2);
}

static void w_sync(struct words *s, uint64_t enter, uint64_t leave, enum psc_omp_sync kind)
{
	const uint64_t pl[] = {0x403000, 0};

	w_ext(s, enter, PSC_REC_OMP_SYNC_ENTER, kind, pl, 2);
	w_ext(s, leave, PSC_REC_OMP_SYNC_LEAVE, kind, NULL, 0);
}

/* The end of THREAD's implicit task of ID: arrived at the closing barrier at ARRIVE, the last
 * thread of the team at LAST; with OMPT the barrier's records, then the end at LAST. */
static void w_itask_end(struct words *s, enum shape sh, uint64_t arrive, uint64_t last, uint64_t id,
			uint32_t thread)
{
	if (sh == OMPT)
		w_sync(s, arrive, last, PSC_OMP_SYNC_BARRIER_IMPLICIT);
	w_ext(s, sh == OMPT ? last : arrive, PSC_REC_OMP_ITASK_END, thread, &id, 1);
}

/* One instance ID of the region at SITE by a team of 4 (threads 0-3 in S[0..4)) starting at
 * T0, thread k arriving at the closing barrier at ARRIVE[k]; thread 1 waits 20 ns for a lock,
 * thread 2 runs a loop of 3 chunks, 30 iterations. */
static void team4(struct words *s, enum shape sh, uint64_t id, uint64_t t0, const uint64_t *arrive)
{
	const uint64_t work[] = {0x404000, t0, 3, 30};
	uint64_t last = 0;

	for (int k = 0; k < 4; k++)
		last = arrive[k] > last ? arrive[k] : last;
	w_par_begin(&s[0], t0, id, SITE, 1, 4);
	for (uint32_t k = 0; k < 4; k++) {
		w_itask_begin(&s[k], t0, id, k, 4);
		if (k == 1)
			w_sync(&s[k], t0 + 50, t0 + 70, PSC_OMP_SYNC_LOCK);
		if (k == 2)
			w_ext(&s[k], arrive[k], PSC_REC_OMP_WORK, PSC_OMP_WORK_LOOP_DYNAMIC, work,
			      4);
		w_itask_end(&s[k], sh, arrive[k], last, id, k);
	}
	w_par_end(&s[0], last, id, 4);
}

/* An experiment of one process with the streams S[0..n) (tids PID, PID + 1, ...), from 1000
 * to 9000. */
static void write_team(const char *dir, struct words *s, size_t n)
{
	write_proc(dir, PID, "[]");
	for (size_t k = 0; k < n; k++) {
		w_end(&s[k], 9000);
		write_stream(dir, PID, PID + (int)k, &s[k], NULL, 0);
	}
}

static void start(struct words *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		s[k].n = 0;
		w_clock(&s[k], 1000);
	}
}

static const uint64_t ARRIVE1[] = {2100, 2200, 2300, 2400};

static void one_instance(char *dir, size_t len, enum shape sh, struct omp_profile *p)
{
	static struct words s[4];

	start(s, 4);
	team4(s, sh, 7, 2000, ARRIVE1);
	new_dir(dir, len);
	write_team(dir, s, 4);
	build(dir, p);
}

/* A team of 4 arriving at 100, 200, 300 and 400 ns: barrier waits 300, 200, 100, 0. */
static void test_team_of_4(void **state)
{
	const int64_t work[] = {100, 180, 300, 400}, barrier[] = {300, 200, 100, 0};
	struct omp_profile p;
	char dir[256];

	(void)state;
	one_instance(dir, sizeof(dir), GOMP, &p);
	assert_int_equal(p.nregions, 1);
	assert_string_equal(p.regions[0].name, "0x401000");
	assert_int_equal(p.regions[0].calls, 1);
	assert_int_equal(p.regions[0].time_ns, 400);
	assert_int_equal(p.regions[0].level, 1);
	assert_int_equal(p.regions[0].team, 4);
	assert_int_equal(p.nrows, 4);
	for (uint32_t k = 0; k < 4; k++) {
		const struct omp_row *r = &p.rows[k];

		assert_int_equal(r->thread, k);
		assert_int_equal(r->calls, 1);
		assert_int_equal(r->time_ns, 400);
		assert_int_equal(r->barrier_ns, barrier[k]);
		assert_int_equal(r->work_ns, work[k]);
		assert_int_equal(r->lock_ns, k == 1 ? 20 : 0);
		assert_int_equal(r->chunks, k == 2 ? 3 : 0);
		assert_int_equal(r->iterations, k == 2 ? 30 : 0);
	}
	/* work 100 + 180 + 300 + 400 = 980: mean 245, max 400 */
	assert_int_equal(p.regions[0].work_ns, 980);
	assert_int_equal(p.regions[0].work_max_ns, 400);
	assert_true(fabs(p.regions[0].work_mean_ns - 245) < 1e-9);
	assert_true(fabs(p.regions[0].imbalance - 155.0 / 400) < 1e-12);
	assert_true(fabs(p.regions[0].load_balance - 245.0 / 400) < 1e-12);
	assert_true(fabs(p.regions[0].region_eff - 980.0 / 1600) < 1e-12);
	/* every thread: span 1000..9000, 400 ns in the region */
	assert_int_equal(p.nthreads, 4);
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(p.threads[k].span_ns, 8000);
		assert_int_equal(p.threads[k].parallel_ns, 400);
		assert_int_equal(p.threads[k].serial_ns, 7600);
		assert_int_equal(p.threads[k].initial, k == 0);
	}
	assert_int_equal(p.ncaveats, 0);
	omp_profile_release(&p);
}

/* The same run recorded through OMPT (barrier records, ITASK_END after the barrier). */
static void test_gomp_ompt_same(void **state)
{
	struct omp_profile a, b;
	char dir[256];

	(void)state;
	one_instance(dir, sizeof(dir), GOMP, &a);
	one_instance(dir, sizeof(dir), OMPT, &b);
	assert_int_equal(a.nrows, b.nrows);
	assert_int_equal(a.nrows, 4);
	for (size_t k = 0; k < a.nrows; k++)
		assert_memory_equal(&a.rows[k], &b.rows[k], sizeof(a.rows[k]));
	assert_int_equal(a.regions[0].time_ns, b.regions[0].time_ns);
	assert_int_equal(a.regions[0].team_ns, b.regions[0].team_ns);
	assert_true(a.regions[0].region_eff == b.regions[0].region_eff);
	assert_true(a.regions[0].imbalance == b.regions[0].imbalance);
	for (size_t k = 0; k < a.nthreads; k++)
		assert_int_equal(a.threads[k].parallel_ns, b.threads[k].parallel_ns);
	omp_profile_release(&a);
	omp_profile_release(&b);
}

/* OMPT, the process's last region: libomp tells the workers they left its closing barrier
 * only after the tool stopped, so their streams end in it (a barrier entered, neither left
 * nor the task ended). They leave it at the team's last arrival: the rows of the complete
 * run, and no caveat. */
static void test_ompt_ends_in_barrier(void **state)
{
	static struct words s[4];
	const uint64_t enter[] = {0x403000, 0};
	struct omp_profile a, b;
	char dir[256];

	(void)state;
	one_instance(dir, sizeof(dir), OMPT, &a);
	start(s, 4);
	w_par_begin(&s[0], 2000, 7, SITE, 1, 4);
	for (uint32_t k = 0; k < 4; k++) {
		w_itask_begin(&s[k], 2000, 7, k, 4);
		if (k == 1)
			w_sync(&s[k], 2050, 2070, PSC_OMP_SYNC_LOCK);
		if (k == 2) {
			const uint64_t work[] = {0x404000, 2000, 3, 30};

			w_ext(&s[k], ARRIVE1[k], PSC_REC_OMP_WORK, PSC_OMP_WORK_LOOP_DYNAMIC, work,
			      4);
		}
		if (k == 0)
			w_itask_end(&s[k], OMPT, ARRIVE1[k], 2400, 7, k);
		else
			w_ext(&s[k], ARRIVE1[k], PSC_REC_OMP_SYNC_ENTER,
			      PSC_OMP_SYNC_BARRIER_IMPLICIT, enter, 2);
	}
	w_par_end(&s[0], 2400, 7, 4);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 4);
	build(dir, &b);
	assert_int_equal(b.nrows, 4);
	for (size_t k = 0; k < a.nrows; k++)
		assert_memory_equal(&a.rows[k], &b.rows[k], sizeof(a.rows[k]));
	assert_int_equal(b.open_tasks, 0);
	assert_int_equal(b.ncaveats, 0);
	omp_profile_release(&a);
	omp_profile_release(&b);
}

/* A wait whose end the runtime never told (a failed lock test, with an older libomp) inside a
 * barrier: the barrier's leave ends the barrier, not the lock wait entered after it. */
static void test_unpaired_wait(void **state)
{
	static struct words s[1];
	const uint64_t site[] = {0x403000, 0xbeef};
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 1);
	w_par_begin(&s[0], 2000, 7, SITE, 1, 1);
	w_itask_begin(&s[0], 2000, 7, 0, 1);
	w_ext(&s[0], 2010, PSC_REC_OMP_SYNC_ENTER, PSC_OMP_SYNC_BARRIER_EXPLICIT, site, 2);
	w_ext(&s[0], 2020, PSC_REC_OMP_SYNC_ENTER, PSC_OMP_SYNC_LOCK, site, 2);
	w_ext(&s[0], 2050, PSC_REC_OMP_SYNC_LEAVE, PSC_OMP_SYNC_BARRIER_EXPLICIT, NULL, 0);
	w_ext(&s[0], 2100, PSC_REC_OMP_ITASK_END, 0, (const uint64_t[]){7}, 1);
	w_par_end(&s[0], 2100, 7, 1);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 1);
	build(dir, &p);
	assert_int_equal(p.nrows, 1);
	assert_int_equal(p.rows[0].sync_ns, 40);
	assert_int_equal(p.rows[0].lock_ns, 0);
	assert_int_equal(p.rows[0].work_ns, 60);
	omp_profile_release(&p);
}

/* Two instances of one region, the second with the arrivals reversed: calls 2, the waits and
 * work summed, the imbalance of the sums. */
static void test_two_instances(void **state)
{
	static const uint64_t arrive2[] = {5400, 5300, 5200, 5100};
	const int64_t work[] = {500, 460, 500, 500}, barrier[] = {300, 300, 300, 300};
	struct words s[4];
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 4);
	team4(s, GOMP, 7, 2000, ARRIVE1);
	team4(s, GOMP, 8, 5000, arrive2);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 4);
	build(dir, &p);
	assert_int_equal(p.nregions, 1);
	assert_int_equal(p.regions[0].calls, 2);
	assert_int_equal(p.regions[0].time_ns, 800);
	assert_int_equal(p.nrows, 4);
	for (uint32_t k = 0; k < 4; k++) {
		assert_int_equal(p.rows[k].calls, 2);
		assert_int_equal(p.rows[k].time_ns, 800);
		assert_int_equal(p.rows[k].barrier_ns, barrier[k]);
		assert_int_equal(p.rows[k].work_ns, work[k]);
	}
	/* work 1960: mean 490, max 500 */
	assert_true(fabs(p.regions[0].imbalance - 10.0 / 500) < 1e-12);
	assert_true(fabs(p.regions[0].region_eff - 1960.0 / 3200) < 1e-12);
	assert_int_equal(p.threads[0].parallel_ns, 800);
	omp_profile_release(&p);
}

/* Thread 0 of an outer region (2000..2400, team of 2) opens a nested region (level 2,
 * 2100..2200) with a new thread: the nested one is its own region; its time is work of the
 * outer task that opened it. */
static void test_nested(void **state)
{
	struct words s[3];
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 3);
	w_par_begin(&s[0], 2000, 1, SITE, 1, 2);
	w_itask_begin(&s[0], 2000, 1, 0, 2);
	w_par_begin(&s[0], 2100, 2, SITE + 0x100, 2, 2);
	w_itask_begin(&s[0], 2100, 2, 0, 2);
	w_itask_end(&s[0], GOMP, 2150, 2200, 2, 0);
	w_par_end(&s[0], 2200, 2, 2);
	w_itask_end(&s[0], GOMP, 2300, 2400, 1, 0);
	w_par_end(&s[0], 2400, 1, 2);
	w_itask_begin(&s[1], 2000, 1, 1, 2);
	w_itask_end(&s[1], GOMP, 2400, 2400, 1, 1);
	w_itask_begin(&s[2], 2100, 2, 1, 2);
	w_itask_end(&s[2], GOMP, 2200, 2200, 2, 1);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 3);
	build(dir, &p);
	assert_int_equal(p.nregions, 2);
	/* by time: the outer region first */
	assert_string_equal(p.regions[0].name, "0x401000");
	assert_int_equal(p.regions[0].level, 1);
	assert_int_equal(p.regions[0].time_ns, 400);
	assert_string_equal(p.regions[1].name, "0x401100");
	assert_int_equal(p.regions[1].level, 2);
	assert_int_equal(p.regions[1].time_ns, 100);
	assert_int_equal(p.nrows, 4);
	assert_int_equal(p.rows[0].work_ns, 300); /* 400 - 100 of barrier */
	assert_int_equal(p.rows[0].barrier_ns, 100);
	assert_int_equal(p.rows[1].work_ns, 400);
	assert_int_equal(p.rows[2].region, 1);
	assert_int_equal(p.rows[2].time_ns, 100);
	assert_int_equal(p.rows[2].barrier_ns, 50);
	assert_int_equal(p.rows[2].work_ns, 50);
	assert_int_equal(p.rows[3].work_ns, 100);
	assert_true(fabs(p.regions[1].region_eff - 150.0 / 200) < 1e-12);
	/* the nested region's thread: its task is its parallel time */
	assert_int_equal(p.threads[0].parallel_ns, 400);
	assert_int_equal(p.threads[1].parallel_ns, 400);
	assert_int_equal(p.threads[2].parallel_ns, 100);
	omp_profile_release(&p);
}

/* A killed run: the second instance has no PARALLEL_END, its master no ITASK_END (the
 * workers arrived): counted as unfinished, left out of the times, said. */
static void test_killed(void **state)
{
	struct words s[2];
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 2);
	w_par_begin(&s[0], 2000, 7, SITE, 1, 2);
	for (uint32_t k = 0; k < 2; k++) {
		w_itask_begin(&s[k], 2000, 7, k, 2);
		w_itask_end(&s[k], GOMP, 2100 + 100 * k, 2200, 7, k);
	}
	w_par_end(&s[0], 2200, 7, 2);
	w_par_begin(&s[0], 3000, 8, SITE, 1, 2);
	w_itask_begin(&s[0], 3000, 8, 0, 2);
	w_itask_begin(&s[1], 3000, 8, 1, 2);
	w_itask_end(&s[1], GOMP, 3050, 3050, 8, 1);
	new_dir(dir, sizeof(dir));
	write_proc(dir, PID, "[]");
	write_stream(dir, PID, PID, &s[0], NULL, 0); /* no end record: killed */
	w_end(&s[1], 3100);
	write_stream(dir, PID, PID + 1, &s[1], NULL, 0);
	build(dir, &p);
	assert_int_equal(p.nregions, 1);
	assert_int_equal(p.regions[0].calls, 1);
	assert_int_equal(p.regions[0].unfinished, 1);
	assert_int_equal(p.regions[0].time_ns, 200);
	assert_int_equal(p.nrows, 2);
	assert_int_equal(p.rows[0].calls, 1);
	assert_int_equal(p.rows[0].barrier_ns, 100);
	assert_int_equal(p.rows[1].calls, 1);
	assert_int_equal(p.unfinished, 1);
	assert_int_equal(p.ncaveats, 1);
	assert_non_null(strstr(p.caveats[0], "1 instance of parallel regions did not end"));
	omp_profile_release(&p);
}

/* Implicit tasks of a parallel id no PARALLEL_BEGIN named, and an end with no begin: left
 * out, said, the rest intact. */
static void test_orphans(void **state)
{
	struct words s[5];
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 5);
	team4(s, GOMP, 7, 2000, ARRIVE1);
	w_itask_begin(&s[4], 2000, 99, 1, 2);
	w_itask_end(&s[4], GOMP, 2100, 2100, 99, 1);
	w_itask_end(&s[4], GOMP, 2200, 2200, 98, 0);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 5);
	build(dir, &p);
	assert_int_equal(p.nregions, 1);
	assert_int_equal(p.nrows, 4);
	assert_int_equal(p.rows[3].work_ns, 400);
	assert_int_equal(p.orphan_tasks, 1);
	assert_int_equal(p.unmatched_ends, 1);
	assert_int_equal(p.ncaveats, 2);
	assert_non_null(strstr(p.caveats[0], "1 implicit task of parallel regions that never "
					     "began"));
	omp_profile_release(&p);
}

static void w_task(struct words *s, uint64_t begin, uint64_t end, uint64_t id)
{
	w_ext(s, begin, PSC_REC_OMP_TASK_BEGIN, 0, &id, 1);
	w_ext(s, end, PSC_REC_OMP_TASK_END, 0, &id, 1);
}

/* A team of 2 (2000..2500) with explicit tasks 100 and 101 that thread 0 creates. Both wait
 * in an explicit barrier (thread 0 2050..2080; thread 1 2060..2080, running task 101 in it
 * 2062..2072); thread 0 arrives at the closing barrier at 2100 and runs task 100 in it
 * 2150..2500, thread 1 arrives at 2400: the barrier opens at 2500, when the task is done. */
static void tasks2(enum shape sh, struct omp_profile *p)
{
	const uint64_t created[] = {100, 0x406000};
	struct words s[2];
	char dir[256];

	start(s, 2);
	w_par_begin(&s[0], 2000, 7, SITE, 1, 2);
	w_itask_begin(&s[0], 2000, 7, 0, 2);
	w_ext(&s[0], 2010, PSC_REC_OMP_TASK_CREATE, 0, created, 2);
	w_ext(&s[0], 2011, PSC_REC_OMP_TASK_CREATE, 0, created, 2);
	w_sync(&s[0], 2050, 2080, PSC_OMP_SYNC_BARRIER_EXPLICIT);
	if (sh == OMPT) {
		const uint64_t pl[] = {0x405000, 0};

		w_ext(&s[0], 2100, PSC_REC_OMP_SYNC_ENTER, PSC_OMP_SYNC_BARRIER_IMPLICIT, pl, 2);
		w_task(&s[0], 2150, 2500, 100);
		w_ext(&s[0], 2500, PSC_REC_OMP_SYNC_LEAVE, PSC_OMP_SYNC_BARRIER_IMPLICIT, NULL, 0);
		w_ext(&s[0], 2500, PSC_REC_OMP_ITASK_END, 0, (const uint64_t[]){7}, 1);
	} else {
		w_ext(&s[0], 2100, PSC_REC_OMP_ITASK_END, 0, (const uint64_t[]){7}, 1);
		w_task(&s[0], 2150, 2500, 100);
	}
	w_par_end(&s[0], 2500, 7, 2);
	w_task(&s[0], 3000, 3100, 102); /* an undeferred task in serial code: no region's */
	w_itask_begin(&s[1], 2000, 7, 1, 2);
	{
		const uint64_t pl[] = {0x403000, 0};

		w_ext(&s[1], 2060, PSC_REC_OMP_SYNC_ENTER, PSC_OMP_SYNC_BARRIER_EXPLICIT, pl, 2);
		w_task(&s[1], 2062, 2072, 101);
		w_ext(&s[1], 2080, PSC_REC_OMP_SYNC_LEAVE, PSC_OMP_SYNC_BARRIER_EXPLICIT, NULL, 0);
	}
	w_itask_end(&s[1], sh, 2400, 2500, 7, 1);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 2);
	build(dir, p);
}

/* Explicit tasks run in a barrier are work, not waiting: the same rows in both shapes. */
static void test_tasks(void **state)
{
	struct omp_profile a, b;

	(void)state;
	tasks2(GOMP, &a);
	tasks2(OMPT, &b);
	assert_int_equal(a.nrows, 2);
	/* thread 0: 500 in the region; closing barrier 2100..2500 but the task's 350; explicit
	 * barrier 30 */
	assert_int_equal(a.rows[0].time_ns, 500);
	assert_int_equal(a.rows[0].barrier_ns, 50);
	assert_int_equal(a.rows[0].sync_ns, 30);
	assert_int_equal(a.rows[0].work_ns, 420);
	assert_int_equal(a.rows[0].tasks_created, 2);
	assert_int_equal(a.rows[0].tasks_completed, 1);
	/* thread 1: closing barrier 2400..2500; explicit barrier 20 but its task's 10 */
	assert_int_equal(a.rows[1].time_ns, 500);
	assert_int_equal(a.rows[1].barrier_ns, 100);
	assert_int_equal(a.rows[1].sync_ns, 10);
	assert_int_equal(a.rows[1].work_ns, 390);
	assert_int_equal(a.rows[1].tasks_completed, 1);
	assert_int_equal(b.nrows, 2);
	for (size_t k = 0; k < 2; k++)
		assert_memory_equal(&a.rows[k], &b.rows[k], sizeof(a.rows[k]));
	omp_profile_release(&a);
	omp_profile_release(&b);
}

/* No OpenMP records: an empty profile. */
static void test_none(void **state)
{
	struct words s = {.n = 0};
	struct omp_profile p;
	char dir[256];

	(void)state;
	w_clock(&s, 1000);
	w_call(&s, 1010, 1, 0x10);
	w_call(&s, 1020, 0, 0x10);
	w_end(&s, 1030);
	new_dir(dir, sizeof(dir));
	write_proc(dir, PID, "[]");
	write_stream(dir, PID, PID, &s, NULL, 0);
	build(dir, &p);
	assert_int_equal(p.events, 0);
	assert_int_equal(p.nregions, 0);
	assert_int_equal(p.nrows, 0);
	assert_int_equal(p.nthreads, 0);
	omp_profile_release(&p);
}

/* The session builds the profile alone, or in the pass of the function and region profiles
 * when both are required: the same rows either way. */
static void test_session(void **state)
{
	struct words s[4];
	struct session a, b;
	struct omp_profile *pa, *pb;
	char dir[256], err[512];

	(void)state;
	start(s, 4);
	team4(s, GOMP, 7, 2000, ARRIVE1);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 4);
	session_init(&a, dir, SESSION_DIR, NULL);
	assert_int_equal(session_get(&a, SESSION_OPENMP, (void **)&pa, err, sizeof(err)), 0);
	assert_int_equal(session_state(&a, SESSION_PROFILES), 0);
	session_init(&b, dir, SESSION_DIR, NULL);
	session_require(&b, SESSION_PROFILES);
	session_require(&b, SESSION_OPENMP);
	assert_int_equal(session_get(&b, SESSION_PROFILES, NULL, err, sizeof(err)), 0);
	assert_int_equal(session_state(&b, SESSION_OPENMP), 1);
	assert_int_equal(session_get(&b, SESSION_OPENMP, (void **)&pb, err, sizeof(err)), 0);
	assert_int_equal(pa->nrows, 4);
	assert_int_equal(pb->nrows, 4);
	for (size_t k = 0; k < 4; k++)
		assert_memory_equal(&pa->rows[k], &pb->rows[k], sizeof(pa->rows[k]));
	session_close(&a);
	session_close(&b);
}

/* Two instances of the region; in the second, thread 2's loop comes from a runtime that does
 * not tell its chunks (PSC_OMP_NOT_COUNTED, as libomp writes) but tells its iterations: the
 * row's chunks are not known (not the first instance's 3), its iterations are summed. */
static void test_not_counted(void **state)
{
	static const uint64_t arrive2[] = {5400, 5300, 5200, 5100};
	const uint64_t work[] = {0x404000, 5000, PSC_OMP_NOT_COUNTED, 12};
	struct words s[4];
	struct omp_profile p;
	char dir[256];

	(void)state;
	start(s, 4);
	team4(s, GOMP, 7, 2000, ARRIVE1);
	w_par_begin(&s[0], 5000, 8, SITE, 1, 4);
	for (uint32_t k = 0; k < 4; k++) {
		w_itask_begin(&s[k], 5000, 8, k, 4);
		if (k == 2)
			w_ext(&s[k], arrive2[k], PSC_REC_OMP_WORK, PSC_OMP_WORK_OTHER, work, 4);
		w_itask_end(&s[k], GOMP, arrive2[k], 5400, 8, k);
	}
	w_par_end(&s[0], 5400, 8, 4);
	new_dir(dir, sizeof(dir));
	write_team(dir, s, 4);
	build(dir, &p);
	assert_int_equal(p.nrows, 4);
	for (uint32_t k = 0; k < 4; k++) {
		const struct omp_row *r = &p.rows[k];

		assert_int_equal(r->thread, k);
		assert_int_equal(r->not_counted, k == 2 ? OMP_NOT_COUNTED_CHUNKS : 0);
		assert_int_equal(r->iterations, k == 2 ? 30 + 12 : 0);
	}
	assert_int_equal(p.rows[2].chunks, 3); /* the counted part, not shown: not_counted */
	omp_profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_team_of_4),
	    cmocka_unit_test(test_gomp_ompt_same),
	    cmocka_unit_test(test_ompt_ends_in_barrier),
	    cmocka_unit_test(test_unpaired_wait),
	    cmocka_unit_test(test_two_instances),
	    cmocka_unit_test(test_not_counted),
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_killed),
	    cmocka_unit_test(test_orphans),
	    cmocka_unit_test(test_tasks),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_session),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
