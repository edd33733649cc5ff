/*
 * test_mpi_scope.c - time per scope in computation, MPI and MPI waiting (mpi-scope.h) on a
 * synthetic 3-rank experiment whose streams hold function, region and MPI records together
 * (synth-mpi.h), with exact answers; the per-call waits of mpi_waits; the CSV (scope-print.h).
 *
 * Every rank (times in us):
 *   main entered at 500, MPI_Init 1000-1001, region "phase" from 2000 holding work() and then
 *   exch(), a Barrier, Finalize at 7000-7001, main left at 8000.
 *   rank 0: work 2000-3000, exch 3000-3300 with a Send to rank 1 at 3000-3100; phase ends at
 *           3300; Barrier 4000-6100 (waits 2000 for rank 2).
 *   rank 1: work 2000-2500, exch 2500-3300 with a Recv from rank 0 at 2500-3150 (waits 500:
 *           Late Sender); phase ends 3300; Barrier 5000-6100 (waits 1000).
 *   rank 2: work 2000-5500, exch 5500-5600 without MPI; phase ends 5600; Barrier 6000-6100
 *           (last in: no wait); main left at 6500, before its Finalize (outside any scope).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/experiment.h"
#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/mpi/mpi-waits.h"
#include "view/scope-print.h"
#include "model/symbols.h"
#include "synth-exp.h"
#include "synth-mpi.h"

#define F_MAIN 0x1000u
#define F_WORK 0x2000u
#define F_EXCH 0x3000u
#define PHASE  1u

static void write_job(const char *dir)
{
	struct job j;
	const uint64_t work_end[3] = {3000, 2500, 5500}, exch_end[3] = {3300, 3300, 5600};
	const uint64_t bar_in[3] = {4000, 5000, 6000};

	memset(&j, 0, sizeof(j));
	j.world = 3;
	for (int r = 0; r < 3; r++) {
		struct mstream *s = &j.s[r];
		struct mitem snd = it_send(1, 0, 8, 0), rcv = it_recv(0, 0, 8, 0, 0),
			     bar = it_coll(-1, 0, 0, 0);

		ms_sync(s, 500 * US);
		ms_func(s, 500 * US, 1, F_MAIN);
		ms_begin(s, 1 * MS, r, 3);
		ms_clock(s, 1 * MS + 1000, PSC_MPI_CLOCK_INIT, (int64_t)(1 * MS + 1000), 0, 500);
		ms_region_def(s, 2 * MS, PHASE, "phase");
		ms_region(s, 2 * MS, 1, PHASE);
		ms_func(s, 2 * MS, 1, F_WORK);
		ms_func(s, work_end[r] * US, 0, F_WORK);
		ms_func(s, work_end[r] * US, 1, F_EXCH);
		if (r == 0)
			ms_call1(s, 3000 * US, 3100 * US, MPI_ROUTINE_Send, &snd);
		if (r == 1)
			ms_call1(s, 2500 * US, 3150 * US, MPI_ROUTINE_Recv, &rcv);
		ms_func(s, exch_end[r] * US, 0, F_EXCH);
		ms_region(s, exch_end[r] * US, 0, PHASE);
		ms_call1(s, bar_in[r] * US, 6100 * US, MPI_ROUTINE_Barrier, &bar);
		if (r == 2)
			ms_func(s, 6500 * US, 0, F_MAIN);
		ms_call1(s, 7 * MS, 7 * MS + 1000, MPI_ROUTINE_Finalize, NULL);
		if (r != 2)
			ms_func(s, 8 * MS, 0, F_MAIN);
		ms_end(s, r != 2 ? 8 * MS : 7 * MS + 1000);
	}
	job_write(&j, dir, 7);
}

struct fixture {
	char dir[128];
	struct experiment e;
	struct mpi_model m;
	struct mpi_waits w;
	struct symtab syms;
	struct mpi_scope_profile p;
};

static void build(struct fixture *x)
{
	char err[512] = "";

	new_dir(x->dir, sizeof(x->dir));
	write_job(x->dir);
	load(x->dir, &x->e, &x->m, 0);
	print_warnings(&x->m);
	assert_int_equal(x->m.nwarnings, 0);
	assert_int_equal(mpi_waits_compute(&x->w, &x->m), 0);
	assert_int_equal(symtab_init(&x->syms, x->dir), 0);
	if (mpi_scope_build(&x->p, &x->e, &x->syms, &x->m, &x->w, err, sizeof(err)))
		fail_msg("mpi_scope_build: %s", err);
}

static void release(struct fixture *x)
{
	mpi_scope_release(&x->p);
	symtab_release(&x->syms);
	mpi_waits_release(&x->w);
	done(&x->e, &x->m);
}

static size_t scope_named(const struct mpi_scope_profile *p, enum mpi_scope_kind kind,
			  const char *part)
{
	for (size_t i = 0; i < p->nscopes; i++)
		if (p->scopes[i].kind == kind && strstr(p->scopes[i].name, part))
			return i;
	fail_msg("no scope '%s'", part);
	return 0;
}

/* Expected exclusive categories and inclusive MPI time and wait of a cell, in us. */
struct want {
	uint64_t calls;
	int64_t incl, excl, comp, mpi, wait, mpi_incl, wait_incl;
};

static void expect_cell(const struct mpi_scope_profile *p, size_t s, int rank, struct want w)
{
	const struct mpi_scope_cell *c = mpi_scope_cell(p, s, rank);

	print_message("scope %s rank %d\n", p->scopes[s].name, rank);
	assert_int_equal(c->calls, w.calls);
	assert_int_equal(c->incl_ns, w.incl * (int64_t)US);
	assert_int_equal(c->excl_ns, w.excl * (int64_t)US);
	assert_int_equal(mpi_scope_comp(c), w.comp * (int64_t)US);
	assert_int_equal(mpi_scope_mpi(c), w.mpi * (int64_t)US);
	assert_int_equal(c->wait_excl_ns, w.wait * (int64_t)US);
	assert_int_equal(c->mpi_incl_ns, w.mpi_incl * (int64_t)US);
	assert_int_equal(c->wait_incl_ns, w.wait_incl * (int64_t)US);
	assert_int_equal(mpi_scope_comp(c) + mpi_scope_mpi(c) + c->wait_excl_ns, c->excl_ns);
}

static const struct mpi_scope_op *op_of(const struct mpi_scope_profile *p, size_t s, int rank,
					unsigned routine)
{
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].scope == s && p->ops[i].rank == rank && p->ops[i].routine == routine)
			return &p->ops[i];
	fail_msg("no op of scope %zu rank %d routine %u", s, rank, routine);
	return NULL;
}

/* A rank's start and end are its first and last record, MPI or not. */
static void test_rank_span(void **state)
{
	struct fixture x;

	(void)state;
	build(&x);
	for (int r = 0; r < 3; r++)
		assert_int_equal(x.m.ranks[r].start_ns, 500 * US);
	assert_int_equal(x.m.ranks[0].end_ns, 8 * MS);
	assert_int_equal(x.m.ranks[1].end_ns, 8 * MS);
	assert_int_equal(x.m.ranks[2].end_ns, 7 * MS + 1000);
	assert_int_equal(x.m.start_ns, 500 * US);
	assert_int_equal(x.m.end_ns, 8 * MS);
	assert_int_equal(x.w.exec_ns[0], 7500 * US);
	assert_int_equal(x.w.exec_ns[2], 6500 * US + 1000);
	release(&x);
}

/* The wait of every call: the Recv's Late Sender, the Barrier's, nothing else. */
static void test_call_waits(void **state)
{
	struct fixture x;

	(void)state;
	build(&x);
	assert_int_equal(x.w.ncalls, x.m.ncalls);
	for (size_t c = 0; c < x.m.ncalls; c++) {
		const struct mpi_call *call = &x.m.calls[c];
		int rank = mpi_call_rank(&x.m, call);
		int64_t want = 0;

		if (call->routine == MPI_ROUTINE_Recv)
			want = 500 * US;
		else if (call->routine == MPI_ROUTINE_Barrier)
			want = rank == 0 ? 2000 * US : rank == 1 ? 1000 * US : 0;
		assert_int_equal(x.w.call_wait[c], want);
	}
	assert_int_equal(x.w.total[0], 2000 * US);
	assert_int_equal(x.w.total[1], 1500 * US);
	release(&x);
}

static void test_categories(void **state)
{
	struct fixture x;
	struct mpi_scope_total t;
	size_t smain, sphase, swork, sexch, sout;

	(void)state;
	build(&x);
	assert_int_equal(x.p.nranks, 3);
	assert_int_equal(x.p.nscopes, 5);
	assert_int_equal(x.p.misnested, 0);
	assert_int_equal(x.p.unmatched_calls, 0);
	assert_int_equal(x.p.skipped_streams, 0);
	smain = scope_named(&x.p, MPI_SCOPE_FUNCTION, "0x1000");
	swork = scope_named(&x.p, MPI_SCOPE_FUNCTION, "0x2000");
	sexch = scope_named(&x.p, MPI_SCOPE_FUNCTION, "0x3000");
	sphase = scope_named(&x.p, MPI_SCOPE_REGION, "phase");
	sout = scope_named(&x.p, MPI_SCOPE_OUTSIDE, "outside");
	/* most inclusive time first */
	assert_int_equal(smain, 0);
	assert_int_equal(sout, 4);
	/* main: Init, Barrier and Finalize in it; phase nested */
	expect_cell(&x.p, smain, 0, (struct want){1, 7500, 6200, 4098, 102, 2000, 2202, 2000});
	expect_cell(&x.p, smain, 1, (struct want){1, 7500, 6200, 5098, 102, 1000, 1752, 1500});
	expect_cell(&x.p, smain, 2, (struct want){1, 6000, 2400, 2299, 101, 0, 101, 0});
	/* the region holds work and exch: no time of its own */
	expect_cell(&x.p, sphase, 0, (struct want){1, 1300, 0, 0, 0, 0, 100, 0});
	expect_cell(&x.p, sphase, 1, (struct want){1, 1300, 0, 0, 0, 0, 650, 500});
	expect_cell(&x.p, sphase, 2, (struct want){1, 3600, 0, 0, 0, 0, 0, 0});
	expect_cell(&x.p, swork, 0, (struct want){1, 1000, 1000, 1000, 0, 0, 0, 0});
	expect_cell(&x.p, swork, 2, (struct want){1, 3500, 3500, 3500, 0, 0, 0, 0});
	expect_cell(&x.p, sexch, 0, (struct want){1, 300, 300, 200, 100, 0, 100, 0});
	expect_cell(&x.p, sexch, 1, (struct want){1, 800, 800, 150, 150, 500, 650, 500});
	expect_cell(&x.p, sexch, 2, (struct want){1, 100, 100, 100, 0, 0, 0, 0});
	/* rank 2's Finalize after main returned; a Finalize takes 1000 ns */
	expect_cell(&x.p, sout, 0, (struct want){0, 0, 0, 0, 0, 0, 0, 0});
	assert_int_equal(mpi_scope_cell(&x.p, sout, 2)->mpi_excl_ns, 1000);
	assert_int_equal(mpi_scope_cell(&x.p, sout, 2)->calls, 1);
	/* per routine: exch's Recv on rank 1, main's Barriers summed over the ranks */
	assert_int_equal(op_of(&x.p, sexch, 1, MPI_ROUTINE_Recv)->wait_ns, 500 * US);
	assert_int_equal(op_of(&x.p, sexch, 1, MPI_ROUTINE_Recv)->time_ns, 650 * US);
	assert_int_equal(op_of(&x.p, sexch, 0, MPI_ROUTINE_Send)->calls, 1);
	assert_int_equal(op_of(&x.p, smain, MPI_SCOPE_ALL, MPI_ROUTINE_Barrier)->calls, 3);
	assert_int_equal(op_of(&x.p, smain, MPI_SCOPE_ALL, MPI_ROUTINE_Barrier)->time_ns,
			 (2100 + 1100 + 100) * US);
	assert_int_equal(op_of(&x.p, smain, MPI_SCOPE_ALL, MPI_ROUTINE_Barrier)->wait_ns,
			 3000 * US);
	assert_int_equal(op_of(&x.p, smain, MPI_SCOPE_ALL, MPI_ROUTINE_Finalize)->calls, 2);
	/* summed over the ranks, with the spread of the exclusive categories */
	mpi_scope_total(&x.p, sexch, &t);
	assert_int_equal(t.nranks, 3);
	assert_int_equal(t.sum.excl_ns, 1200 * US);
	assert_int_equal(t.sum.wait_excl_ns, 500 * US);
	assert_int_equal(t.comp.min, 100 * US);
	assert_int_equal(t.comp.max, 200 * US);
	assert_true(t.comp.mean == 150.0 * US);
	assert_int_equal(t.wait.min, 0);
	assert_int_equal(t.wait.max, 500 * US);
	release(&x);
}

/* Print R as CSV into a malloc'd string. */
static char *csv_of(const struct scope_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(scope_print_csv(r, f, stderr), 0);
	fclose(f);
	return text;
}

static void test_csv(void **state)
{
	struct fixture x;
	struct scope_report r;
	char *text, line[512];

	(void)state;
	build(&x);
	r = (struct scope_report){&x.p, &x.m, &x.e, 1, 0, 0};
	text = csv_of(&r);
	print_message("%s", text);
	assert_non_null(strstr(text, "scope,kind,rank,calls,incl_ns,excl_ns,comp_ns,mpi_ns,wait_ns,"
				     "comp_incl_ns,mpi_incl_ns,wait_incl_ns,mpi_calls,comp_min_ns,"
				     "comp_mean_ns,comp_max_ns,mpi_min_ns,mpi_mean_ns,mpi_max_ns,"
				     "wait_min_ns,wait_mean_ns,wait_max_ns\n"));
	snprintf(line, sizeof(line),
		 "\nphase,region,1,1,1300000,0,0,0,0,650000,150000,500000,0,,,,,,,,,\n");
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "\n\nscope,kind,rank,routine,calls,time_ns,wait_ns\n"));
	assert_non_null(strstr(text, ",function,1,MPI_Recv,1,650000,500000\n"));
	/* rank 1 only: no other rank's rows */
	assert_null(strstr(text, ",function,0,"));
	assert_null(strstr(text, ",all,"));
	free(text);
	/* summed: the spread columns */
	r.rank = MPI_SCOPE_ALL;
	text = csv_of(&r);
	assert_non_null(strstr(text, ",function,all,3,1200000,1200000,450000,250000,500000,"
				     "450000,250000,500000,2,100000,150000,200000,0,83333,150000,"
				     "0,166667,500000\n"));
	assert_null(strstr(text, ",function,1,"));
	free(text);
	release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rank_span),
	    cmocka_unit_test(test_call_waits),
	    cmocka_unit_test(test_categories),
	    cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
