/*
 * test_mpi_causal.c - causality of collectives (mpi-causal.c) on models built through the
 * builder with times on one clock (MPI_BUILD_ALIGNED), all times in ns: a barrier one rank
 * leaves 5 us before the last enter, a Bcast whose non-root leaves before the root entered,
 * a Reduce whose root leaves before the last non-root entered, a Scan whose rank 2 leaves
 * before rank 1 entered, an Iallreduce whose Wait ends before the other rank started it. Exact
 * counts before and after, exact corrected times (the leave moved to the last enter it follows plus
 * the smallest collective latency seen, the events since the previous MPI event amortised, the
 * later ones shifted); a consistent trace and an operation moving no data stay untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "mpi-model-build.h"
#include "view/mpi-print.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"

#define R(name) MPI_ROUTINE_##name

static char *render(const struct mpi_model *m, int json, int no_correction)
{
	struct mpi_routines rs;
	struct mpi_traffic tr;
	struct mpi_waits w;
	struct mpi_report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(mpi_routines_compute(&rs, m), 0);
	assert_int_equal(mpi_traffic_compute(&tr, m), 0);
	assert_int_equal(mpi_waits_compute(&w, m), 0);
	r = (struct mpi_report){.m = m,
				.routines = &rs,
				.traffic = &tr,
				.waits = &w,
				.rel = MPI_REL_EXEC,
				.no_correction = no_correction};
	if (json)
		assert_int_equal(mpi_print_json(&r, MPI_VIEW_SUMMARY, f), 0);
	else
		assert_int_equal(mpi_print_text(&r, MPI_VIEW_SUMMARY, f), 0);
	fclose(f);
	mpi_routines_release(&rs);
	mpi_traffic_release(&tr);
	mpi_waits_release(&w);
	return text;
}

/*
 * Barrier of 3 ranks, rank 2 the last to enter (20000):
 *   rank 0: Init 0..1000, Barrier 10000..15000 (left 5 us before the last enter), Finalize
 *           30000..31000;
 *   rank 1: Barrier 12000..20500 (500 after the last enter: the smallest latency);
 *   rank 2: Barrier 20000..21000.
 * Corrected: rank 0 leaves at 20000 + 500, a shift of 5500. The barrier's enter stays (the
 * others' leaves were checked against it), so nothing before it moves either (Init keeps
 * 0..1000); Finalize + 5500.
 */
static void barrier_model(struct mpi_model *m, uint32_t *c)
{
	begin(m, 3);
	rank(m, 0);
	c[0] = call(m, R(Init), 0, 1000);
	c[1] = call(m, R(Barrier), 10000, 15000);
	coll(m, -1, 0, 0);
	c[2] = call(m, R(Finalize), 30000, 31000);
	rank(m, 1);
	c[3] = call(m, R(Barrier), 12000, 20500);
	coll(m, -1, 0, 0);
	rank(m, 2);
	c[4] = call(m, R(Barrier), 20000, 21000);
	coll(m, -1, 0, 0);
}

static void test_barrier(void **state)
{
	struct mpi_model m;
	uint32_t c[5];
	char *text;

	(void)state;
	barrier_model(&m, c);
	build(&m, 0);
	assert_int_equal(m.ncolls, 1);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.violations_before, 0);
	assert_int_equal(m.violations_after, 0);
	assert_int_equal(m.max_correction_ns, 5500);
	assert_times(&m, c[0], 0, 1000);
	assert_times(&m, c[1], 10000, 20500);
	assert_times(&m, c[2], 35500, 36500);
	assert_times(&m, c[3], 12000, 20500);
	assert_times(&m, c[4], 20000, 21000);
	/* the summary line, the caveat and the JSON say it */
	text = render(&m, 0, 0);
	assert_non_null(strstr(text, "causality violations: 0 as recorded, 0 after correction; "
				     "in collectives 1 as recorded, 0 after correction "
				     "(largest shift "));
	assert_non_null(strstr(text, "  ! 1 collective calls left before a rank they depend on "
				     "entered (clock error): corrected, 0 left, largest shift "));
	free(text);
	text = render(&m, 1, 0);
	assert_non_null(strstr(text, "\"coll_violations_before\": 1,"));
	assert_non_null(strstr(text, "\"coll_violations_after\": 0,"));
	free(text);
	mpi_model_release(&m);

	/* --no-correction: counted, times as they were */
	barrier_model(&m, c);
	build(&m, MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 1);
	assert_int_equal(m.max_correction_ns, 0);
	assert_times(&m, c[0], 0, 1000);
	assert_times(&m, c[1], 10000, 15000);
	assert_times(&m, c[2], 30000, 31000);
	text = render(&m, 0, 1);
	assert_non_null(strstr(text, "in collectives 1 as recorded, 1 (not corrected)\n"));
	assert_non_null(strstr(text, "  ! 1 collective calls left before a rank they depend on "
				     "entered (clock error), not corrected (--no-correction)"));
	free(text);
	mpi_model_release(&m);
}

/*
 * Bcast of 8 bytes from root 1 (enter 14000):
 *   rank 0: Bcast 10000..12000: left before the root entered;
 *   rank 1: Bcast 14000..15000 (the root waits for nobody);
 *   rank 2: Bcast 13000..14300: 300 after the root's enter, the smallest latency.
 * Corrected: rank 0 leaves at 14300 (shift 2300); its Bcast is its first event: the enter
 * stays; a later Finalize 20000..21000 moves by 2300.
 */
static void test_bcast(void **state)
{
	struct mpi_model m;
	uint32_t c[5];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Bcast), 10000, 12000);
	coll(&m, 1, 0, 8);
	c[1] = call(&m, R(Finalize), 20000, 21000);
	rank(&m, 1);
	c[2] = call(&m, R(Bcast), 14000, 15000);
	coll(&m, 1, 8, 0);
	rank(&m, 2);
	c[3] = call(&m, R(Bcast), 13000, 14300);
	coll(&m, 1, 0, 8);
	build(&m, 0);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 2300);
	assert_times(&m, c[0], 10000, 14300);
	assert_times(&m, c[1], 22300, 23300);
	assert_times(&m, c[2], 14000, 15000);
	assert_times(&m, c[3], 13000, 14300);
	mpi_model_release(&m);
}

/*
 * Reduce of 8 bytes to root 0:
 *   rank 0 (root): Reduce 10000..11000, left before the last non-root entered (12500);
 *   rank 1: Reduce 9000..9500, left before the root entered: no violation (a non-root
 *           depends on nobody);
 *   rank 2: Reduce 12500..13000.
 * No edge is met with a positive latency: the default 1000. Corrected: the root leaves at
 * 12500 + 1000 (shift 2500). Its enter stays, and so does Init 0..9800 before it: amortised
 * from the first event (0) to the old leave (11000) as a receive's would be, Init would
 * leave at 9800 + 2500 * 9800 / 11000 = 12027, after the Reduce's enter.
 */
static void test_reduce(void **state)
{
	struct mpi_model m;
	uint32_t c[5];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Init), 0, 9800);
	c[1] = call(&m, R(Reduce), 10000, 11000);
	coll(&m, 0, 0, 16);
	rank(&m, 1);
	c[2] = call(&m, R(Reduce), 9000, 9500);
	coll(&m, 0, 8, 0);
	rank(&m, 2);
	c[3] = call(&m, R(Reduce), 12500, 13000);
	coll(&m, 0, 8, 0);
	build(&m, 0);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 2500);
	assert_times(&m, c[0], 0, 9800);
	assert_times(&m, c[1], 10000, 13500);
	assert_times(&m, c[2], 9000, 9500);
	assert_times(&m, c[3], 12500, 13000);
	mpi_model_release(&m);
}

/*
 * Scan of 3 ranks (a participant follows the enters of those up to it):
 *   rank 0: Scan 5000..6000, left before the others entered: no violation;
 *   rank 1: Scan 8000..9000: 1000 after the latest of ranks 0-1 (8000);
 *   rank 2: Scan 7000..7600, left before rank 1 entered (8000): a violation.
 * The smallest latency is 1000 (ranks 0 and 1). Corrected: rank 2 leaves at 9000 (shift
 * 1400); its Scan is its first event, the enter stays.
 */
static void test_scan(void **state)
{
	struct mpi_model m;
	uint32_t c[3];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Scan), 5000, 6000);
	coll(&m, -1, 8, 8);
	rank(&m, 1);
	c[1] = call(&m, R(Scan), 8000, 9000);
	coll(&m, -1, 8, 8);
	rank(&m, 2);
	c[2] = call(&m, R(Scan), 7000, 7600);
	coll(&m, -1, 8, 8);
	build(&m, 0);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 1400);
	assert_times(&m, c[0], 5000, 6000);
	assert_times(&m, c[1], 8000, 9000);
	assert_times(&m, c[2], 7000, 9000);
	mpi_model_release(&m);
}

/*
 * Iallreduce (request 5 on both ranks); its end is the Wait completing the request:
 *   rank 0: Iallreduce 10000..10100, Wait 10200..11000: ended before rank 1 started (12000);
 *   rank 1: Iallreduce 12000..12100, Wait 12200..13000: 1000 after the last start.
 * Corrected: rank 0's Wait leaves at 12000 + 1000 (shift 2000), amortised from the previous
 * MPI event (the Iallreduce's leave, 10100) to the old leave: its enter
 * 10200 + 2000 * 100 / 900 = 10422.
 */
static void test_icoll(void **state)
{
	struct mpi_model m;
	uint32_t c[4];

	(void)state;
	begin(&m, 2);
	rank(&m, 0);
	c[0] = call(&m, R(Iallreduce), 10000, 10100);
	coll(&m, -1, 8, 8);
	coll_req(&m, 5);
	c[1] = call(&m, R(Wait), 10200, 11000);
	coll_req(&m, 5);
	rank(&m, 1);
	c[2] = call(&m, R(Iallreduce), 12000, 12100);
	coll(&m, -1, 8, 8);
	coll_req(&m, 5);
	c[3] = call(&m, R(Wait), 12200, 13000);
	coll_req(&m, 5);
	build(&m, 0);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 2000);
	assert_times(&m, c[0], 10000, 10100);
	assert_times(&m, c[1], 10422, 13000);
	assert_times(&m, c[2], 12000, 12100);
	assert_times(&m, c[3], 12200, 13000);
	mpi_model_release(&m);
}

/*
 * A consistent run: a message, a barrier, a Bcast, a Reduce and an Iallreduce in the right
 * order; then a Bcast of no bytes whose non-root left before the root entered (no data, no
 * edge). Nothing counted, no time moved.
 */
static void test_consistent(void **state)
{
	struct mpi_model m;
	struct mpi_item send = {.kind = PSC_MPI_ITEM_SEND, .comm = 0, .peer = 1, .bytes = 8};
	struct mpi_item recv = {.kind = PSC_MPI_ITEM_RECV, .comm = 0, .peer = 0, .bytes = 8};
	static const int64_t t[2][14] = {
	    {1000, 2000, 3000, 6000, 7000, 9000, 10000, 13000, 14000, 15000, 16000, 19000, 20000,
	     20500},
	    {1500, 2500, 4000, 6500, 8000, 9500, 12000, 12500, 14500, 15500, 17000, 19500, 19600,
	     19800},
	};
	int64_t before[2][14];

	(void)state;
	begin(&m, 2);
	for (int r = 0; r < 2; r++) {
		const int64_t *x = t[r];

		rank(&m, r);
		call(&m, r ? R(Recv) : R(Send), x[0], x[1]);
		assert_int_equal(mpi_model_add_item(&m, r ? &recv : &send), 0);
		call(&m, R(Barrier), x[2], x[3]);
		coll(&m, -1, 0, 0);
		call(&m, R(Bcast), x[4], x[5]);
		coll(&m, 0, r ? 0 : 8, r ? 8 : 0);
		call(&m, R(Reduce), x[6], x[7]);
		coll(&m, 1, r ? 0 : 8, r ? 8 : 0);
		call(&m, R(Iallreduce), x[8], x[9]);
		coll(&m, -1, 8, 8);
		coll_req(&m, 9);
		call(&m, R(Wait), x[10], x[11]);
		coll_req(&m, 9);
		/* no bytes: rank 1 leaves (19800) before root 0 entered (20000), unchecked */
		call(&m, R(Bcast), x[12], x[13]);
		coll(&m, 0, 0, 0);
	}
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 7; k++) {
			before[r][2 * k] = m.calls[7 * r + k].enter_ns;
			before[r][2 * k + 1] = m.calls[7 * r + k].leave_ns;
		}
	build(&m, 0);
	assert_int_equal(m.ncolls, 5);
	assert_int_equal(m.nmsgs, 1);
	assert_int_equal(m.violations_before, 0);
	assert_int_equal(m.coll_violations_before, 0);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 0);
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 7; k++) {
			assert_int_equal(m.calls[7 * r + k].enter_ns, before[r][2 * k]);
			assert_int_equal(m.calls[7 * r + k].leave_ns, before[r][2 * k + 1]);
		}
	mpi_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_barrier), cmocka_unit_test(test_bcast),
	    cmocka_unit_test(test_reduce),  cmocka_unit_test(test_scan),
	    cmocka_unit_test(test_icoll),   cmocka_unit_test(test_consistent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
