/*
 * test_fprofile_omp.c - OpenMP constructs as frames of the function profile, on synthetic
 * streams of a master and a worker whose times are known exactly: the parallel region on the
 * master inside the function that opened it, the worker's implicit task as the root of its
 * calls, the waits (a lock, the closing barrier: libgomp's from ITASK_END to PARALLEL_END,
 * OMPT's from its own records) as frames of their own, out of the enclosing exclusive times;
 * a wait inside a call, and a run killed inside its implicit task; energy charged to frames.
 */
#include "synth-exp.h"

#include <math.h>
#include <string.h>

#include "analysis/profile/func-profile.h"
#include "model/experiment-open.h"
#include "model/symbols.h"

#define PID  10
#define SITE 0x401000u
#define MAIN 0x500000u
#define ROW  0x500100u

enum shape { GOMP, OMPT };

struct fixture {
	char dir[256];
	struct experiment e;
	struct symtab syms;
	struct func_profile p, merged;
	struct func_tree t;
};

static void w_omp(struct words *s, uint64_t t, enum psc_rec_type type, uint32_t arg,
		  const uint64_t *pl, size_t n)
{
	w_ext(s, t, type, arg, pl, n);
}

static void w_sync(struct words *s, uint64_t enter, uint64_t leave, enum psc_omp_sync kind)
{
	const uint64_t pl[] = {0x403000, 0};

	w_omp(s, enter, PSC_REC_OMP_SYNC_ENTER, kind, pl, 2);
	w_omp(s, leave, PSC_REC_OMP_SYNC_LEAVE, kind, NULL, 0);
}

/*
 * Master (tid PID): main 1100..2500 opens region 7 at 2000..2400; its implicit task calls row
 * 2010..2110 and arrives at the closing barrier at 2120 (OMPT: waits 2120..2400 in it, its
 * ITASK_END at 2400). Worker (tid PID + 1): its implicit task 2000..2340 (OMPT: 2400) calls
 * row 2020..2320 and waits for a lock 2320..2330 (OMPT: then the barrier 2340..2400).
 */
static void write_run(const char *dir, enum shape sh)
{
	static struct words s[2];
	const uint64_t par[] = {7, SITE, 0x402000, 1}, task[] = {7, 2}, id = 7;

	for (int k = 0; k < 2; k++) {
		s[k].n = 0;
		w_clock(&s[k], 1000);
	}
	w_call(&s[0], 1100, 1, MAIN);
	w_omp(&s[0], 2000, PSC_REC_OMP_PARALLEL_BEGIN, 2, par, 4);
	w_omp(&s[0], 2000, PSC_REC_OMP_ITASK_BEGIN, 0, task, 2);
	w_call(&s[0], 2010, 1, ROW);
	w_call(&s[0], 2110, 0, ROW);
	if (sh == OMPT)
		w_sync(&s[0], 2120, 2400, PSC_OMP_SYNC_BARRIER_IMPLICIT);
	w_omp(&s[0], sh == OMPT ? 2400 : 2120, PSC_REC_OMP_ITASK_END, 0, &id, 1);
	w_omp(&s[0], 2400, PSC_REC_OMP_PARALLEL_END, 2, &id, 1);
	w_call(&s[0], 2500, 0, MAIN);

	w_omp(&s[1], 2000, PSC_REC_OMP_ITASK_BEGIN, 1, task, 2);
	w_call(&s[1], 2020, 1, ROW);
	w_call(&s[1], 2320, 0, ROW);
	w_sync(&s[1], 2320, 2330, PSC_OMP_SYNC_LOCK);
	if (sh == OMPT)
		w_sync(&s[1], 2340, 2400, PSC_OMP_SYNC_BARRIER_IMPLICIT);
	w_omp(&s[1], sh == OMPT ? 2400 : 2340, PSC_REC_OMP_ITASK_END, 1, &id, 1);

	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, PID, "[]");
	for (int k = 0; k < 2; k++) {
		w_end(&s[k], 9000);
		write_stream(dir, PID, PID + k, &s[k], NULL, 0);
	}
}

static void build(struct fixture *x, enum shape sh)
{
	char err[512] = "";

	memset(x, 0, sizeof(*x));
	new_dir(x->dir, sizeof(x->dir));
	write_run(x->dir, sh);
	if (experiment_open(&x->e, x->dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(&x->syms, x->dir), 0);
	if (func_profile_build(&x->p, &x->e, &x->syms, NULL, NULL, err, sizeof(err)))
		fail_msg("func_profile_build: %s", err);
	assert_int_equal(func_profile_merge(&x->p, &x->merged), 0);
	assert_int_equal(func_tree_build(&x->t, &x->p, 0), 0);
}

static void release(struct fixture *x)
{
	func_tree_release(&x->t);
	func_profile_release(&x->merged);
	func_profile_release(&x->p);
	symtab_release(&x->syms);
	experiment_release(&x->e);
}

/* The row of P named NAME in thread TID (0: merged). */
static size_t row_named(const struct func_profile *p, pid_t tid, const char *name)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].tid == tid && !strcmp(p->rows[i].sym.name, name))
			return i;
	fail_msg("no row %s in thread %d", name, (int)tid);
	return SIZE_MAX;
}

/* The one node of P for ROW; its parent's row in *PARENT_ROW (SIZE_MAX for a root). */
static const struct func_node *node_of(const struct func_profile *p, size_t row, size_t *parent_row)
{
	const struct func_node *found = NULL;

	for (size_t i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].row != row)
			continue;
		if (found)
			fail_msg("row %zu in two nodes", row);
		found = &p->nodes[i];
	}
	if (!found)
		fail_msg("no node for row %zu", row);
	*parent_row = found->parent == FUNC_NO_PARENT ? SIZE_MAX : p->nodes[found->parent].row;
	return found;
}

/* Row R of P: its calls, inclusive and exclusive times, and its node's parent row PARENT. */
static void expect(const struct func_profile *p, size_t r, uint64_t calls, int64_t incl,
		   int64_t excl, size_t parent)
{
	size_t pr;
	const struct func_node *n = node_of(p, r, &pr);

	assert_int_equal(p->rows[r].calls, calls);
	assert_int_equal(p->rows[r].incl_ns, incl);
	assert_int_equal(p->rows[r].excl_ns, excl);
	assert_int_equal(n->calls, calls);
	assert_int_equal(n->incl_ns, incl);
	assert_int_equal(n->excl_ns, excl);
	assert_int_equal(pr, parent);
}

static const char PAR[] = "[omp parallel 0x401000]";

static void check(enum shape sh)
{
	struct fixture x;
	const struct func_profile *p = &x.p;
	size_t mmain, mpar, mrow, mbar, wpar, wrow, wlock;
	char mname[64], rname[64];

	build(&x, sh);
	snprintf(mname, sizeof(mname), "[unknown]+0x%x", MAIN);
	snprintf(rname, sizeof(rname), "[unknown]+0x%x", ROW);
	mmain = row_named(p, PID, mname);
	mpar = row_named(p, PID, PAR);
	mrow = row_named(p, PID, rname);
	mbar = row_named(p, PID, "[omp barrier]");
	/* main: 1400 ns, of which the region's 400 are no longer its own */
	expect(p, mmain, 1, 1400, 1000, SIZE_MAX);
	/* the region 2000..2400: row 100, the closing barrier 2120..2400 */
	expect(p, mpar, 1, 400, 20, mmain);
	expect(p, mrow, 1, 100, 100, mpar);
	expect(p, mbar, 1, 280, 280, mpar);

	wpar = row_named(p, PID + 1, PAR);
	wrow = row_named(p, PID + 1, rname);
	wlock = row_named(p, PID + 1, "[omp lock]");
	/* the worker's implicit task is the root of its call, and of its lock wait */
	if (sh == GOMP) {
		expect(p, wpar, 1, 340, 30, SIZE_MAX);
	} else {
		size_t wbar = row_named(p, PID + 1, "[omp barrier]");

		expect(p, wpar, 1, 400, 30, SIZE_MAX);
		expect(p, wbar, 1, 60, 60, wpar);
	}
	expect(p, wrow, 1, 300, 300, wpar);
	expect(p, wlock, 1, 10, 10, wpar);

	/* merged over threads: exact call counts, the region named once */
	assert_int_equal(x.merged.rows[row_named(&x.merged, 0, rname)].calls, 2);
	assert_int_equal(x.merged.rows[row_named(&x.merged, 0, rname)].incl_ns, 400);
	assert_int_equal(x.merged.rows[row_named(&x.merged, 0, PAR)].calls, 2);
	assert_int_equal(x.merged.rows[row_named(&x.merged, 0, PAR)].incl_ns,
			 sh == GOMP ? 740 : 800);
	assert_int_equal(x.merged.rows[row_named(&x.merged, 0, mname)].excl_ns, 1000);
	/* the tree as shown keeps the parents */
	assert_int_equal(x.t.nnodes, p->nnodes);
	release(&x);
}

/* 1 W from the start: at(t) = t ns in nJ. */
static double one_watt(const void *ctx, int64_t ns, size_t *hint)
{
	(void)ctx, (void)hint;
	return (double)ns * 1e-9;
}

/* With energy charged at 1 W, every row's energy is its time: a frame takes its part of the
 * bookkeeping as a call does. */
static void test_energy(void **state)
{
	const struct func_energy en = {.at = one_watt, .cover_start = 0, .cover_end = 1000000};
	struct fixture x;
	char err[512] = "";
	struct func_profile e;

	(void)state;
	build(&x, GOMP);
	if (func_profile_build(&e, &x.e, &x.syms, NULL, &en, err, sizeof(err)))
		fail_msg("func_profile_build: %s", err);
	assert_int_equal(e.nrows, x.p.nrows);
	for (size_t i = 0; i < e.nrows; i++) {
		const struct func_row *r = &e.rows[i];

		assert_int_equal(r->excl_ns, x.p.rows[i].excl_ns);
		assert_true(fabs(r->excl_j - (double)r->excl_ns * 1e-9) < 1e-15);
		assert_true(fabs(r->incl_j - (double)r->incl_ns * 1e-9) < 1e-15);
		assert_int_equal(r->covered_ns, r->excl_ns);
		assert_int_equal(r->incl_covered_ns, r->incl_ns);
	}
	func_profile_release(&e);
	release(&x);
}

static void test_gomp(void **state)
{
	(void)state;
	check(GOMP);
}

static void test_ompt(void **state)
{
	(void)state;
	check(OMPT);
}

/* A program without OpenMP: no frame, and nothing else changes (test_fprofile has the rest). */
static void test_no_openmp(void **state)
{
	struct fixture x;
	static struct words s;

	(void)state;
	memset(&x, 0, sizeof(x));
	new_dir(x.dir, sizeof(x.dir));
	s.n = 0;
	w_clock(&s, 1000);
	w_call(&s, 1100, 1, MAIN);
	w_call(&s, 1200, 1, ROW);
	w_call(&s, 1300, 0, ROW);
	w_call(&s, 1500, 0, MAIN);
	w_end(&s, 2000);
	write_text(x.dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(x.dir, PID, "[]");
	write_stream(x.dir, PID, PID, &s, NULL, 0);
	{
		char err[512] = "";

		if (experiment_open(&x.e, x.dir, err, sizeof(err)))
			fail_msg("experiment_open: %s", err);
		assert_int_equal(symtab_init(&x.syms, x.dir), 0);
		if (func_profile_build(&x.p, &x.e, &x.syms, NULL, NULL, err, sizeof(err)))
			fail_msg("func_profile_build: %s", err);
	}
	assert_int_equal(x.p.nrows, 2);
	assert_int_equal(x.p.rows[0].excl_ns, 300);
	assert_int_equal(x.p.rows[1].excl_ns, 100);
	func_profile_release(&x.p);
	symtab_release(&x.syms);
	experiment_release(&x.e);
}

/*
 * A worker's wait inside a call, and a run killed inside the implicit task: F 2100..2200 waits
 * for a lock 2110..2160 (F keeps 50 ns of its own); the stream ends at 9000 with the task open
 * (closed there, 2000..9000, as the source closes calls).
 */
static void test_wait_in_call_killed(void **state)
{
	static struct words s;
	const uint64_t task[] = {7, 2};
	struct fixture x;
	char err[512] = "", fname[64];
	size_t task_row, f, lock;

	(void)state;
	memset(&x, 0, sizeof(x));
	new_dir(x.dir, sizeof(x.dir));
	s.n = 0;
	w_clock(&s, 1000);
	w_omp(&s, 2000, PSC_REC_OMP_ITASK_BEGIN, 1, task, 2);
	w_call(&s, 2100, 1, ROW);
	w_sync(&s, 2110, 2160, PSC_OMP_SYNC_LOCK);
	w_call(&s, 2200, 0, ROW);
	w_end(&s, 9000);
	write_text(x.dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(x.dir, PID, "[]");
	write_stream(x.dir, PID, PID + 1, &s, NULL, 0);
	if (experiment_open(&x.e, x.dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(&x.syms, x.dir), 0);
	if (func_profile_build(&x.p, &x.e, &x.syms, NULL, NULL, err, sizeof(err)))
		fail_msg("func_profile_build: %s", err);
	snprintf(fname, sizeof(fname), "[unknown]+0x%x", ROW);
	/* no PARALLEL_BEGIN in this run: the region has no name */
	task_row = row_named(&x.p, PID + 1, "[omp parallel]");
	f = row_named(&x.p, PID + 1, fname);
	lock = row_named(&x.p, PID + 1, "[omp lock]");
	expect(&x.p, task_row, 1, 7000, 6900, SIZE_MAX);
	assert_int_equal(x.p.rows[task_row].synthetic, 1);
	expect(&x.p, f, 1, 100, 50, task_row);
	expect(&x.p, lock, 1, 50, 50, f);
	func_profile_release(&x.p);
	symtab_release(&x.syms);
	experiment_release(&x.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gomp),      cmocka_unit_test(test_ompt),
	    cmocka_unit_test(test_energy),    cmocka_unit_test(test_wait_in_call_killed),
	    cmocka_unit_test(test_no_openmp),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
