/*
 * test_mpi_causal_zero.c - causality of collectives (mpi-causal.c) where participants move no
 * data, and at a large P. All times in ns on one clock (MPI_BUILD_ALIGNED).
 *  - An Alltoallv rank with a zero row (receives nothing) leaves before the last enter: no
 *    violation, nothing moved.
 *  - A Scatterv non-root with recvcount 0 leaves before the root entered: no violation; a
 *    non-root receiving 8 bytes that does the same is one, and is corrected.
 *  - A Gatherv root whose late non-root sent 0 bytes: no violation; a late sender of 8
 *    bytes at the next Gatherv is one.
 *  - 2048 ranks: three Bcasts with every odd rank leaving before the root entered, and two
 *    Scans; exact counts and times derived by hand (the correction looks at the root alone
 *    for a one-to-all and keeps a prefix maximum for a scan: O(P) per operation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "mpi-model-build.h"
#include "format/mpi-routines.h"

#define R(name) MPI_ROUTINE_##name
#define BIG	2048

/*
 * Alltoallv of 3 ranks; rank 0's row of receive counts is all 0:
 *   rank 0: Alltoallv 10000..11000 (sends 16, receives 0), Finalize 20000..21000;
 *   rank 1: Alltoallv 11500..13000 (sends 8, receives 16);
 *   rank 2: Alltoallv 12000..12800 (sends 8, receives 16).
 * Rank 0 leaves before rank 2 entered, but its end waits for no data: not a violation (it
 * was one before the fix). Ranks 1 and 2 leave after the last enter. Nothing moves.
 */
static void test_alltoallv_zero_row(void **state)
{
	struct mpi_model m;
	uint32_t c[4];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Alltoallv), 10000, 11000);
	coll(&m, -1, 16, 0);
	c[1] = call(&m, R(Finalize), 20000, 21000);
	rank(&m, 1);
	c[2] = call(&m, R(Alltoallv), 11500, 13000);
	coll(&m, -1, 8, 16);
	rank(&m, 2);
	c[3] = call(&m, R(Alltoallv), 12000, 12800);
	coll(&m, -1, 8, 16);
	build(&m, 0);
	assert_int_equal(m.ncolls, 1);
	assert_int_equal(m.coll_violations_before, 0);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 0);
	assert_times(&m, c[0], 10000, 11000);
	assert_times(&m, c[1], 20000, 21000);
	assert_times(&m, c[2], 11500, 13000);
	assert_times(&m, c[3], 12000, 12800);
	mpi_model_release(&m);
}

/*
 * Scatterv from root 0 (enter 10000):
 *   rank 0: Scatterv 10000..10500 (sends 8, to rank 2);
 *   rank 1: Scatterv 9000..9500, recvcount 0: left before the root entered, follows nobody;
 *           Finalize 20000..21000;
 *   rank 2: Scatterv 9200..9800, receives 8: left before the root entered, a violation;
 *           Finalize 20000..21000.
 * No edge has a positive latency: the default 1000. Rank 2 leaves at 10000 + 1000 (shift
 * 1200; its Scatterv is its first event, the enter stays), its Finalize + 1200. Rank 1 stays.
 */
static void test_scatterv_zero_recv(void **state)
{
	struct mpi_model m;
	uint32_t c[5];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Scatterv), 10000, 10500);
	coll(&m, 0, 8, 0);
	rank(&m, 1);
	c[1] = call(&m, R(Scatterv), 9000, 9500);
	coll(&m, 0, 0, 0);
	c[2] = call(&m, R(Finalize), 20000, 21000);
	rank(&m, 2);
	c[3] = call(&m, R(Scatterv), 9200, 9800);
	coll(&m, 0, 0, 8);
	c[4] = call(&m, R(Finalize), 20000, 21000);
	build(&m, 0);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 1200);
	assert_times(&m, c[0], 10000, 10500);
	assert_times(&m, c[1], 9000, 9500);
	assert_times(&m, c[2], 20000, 21000);
	assert_times(&m, c[3], 9200, 11000);
	assert_times(&m, c[4], 21200, 22200);
	mpi_model_release(&m);
}

/*
 * Two Gathervs to root 0; rank 1 sends 0 bytes in both:
 *   first:  root 10000..11000 (receives 8); rank 1 11500..11600 (after the root left, but
 *           it sends nothing); rank 2 9000..9100 (sends 8: latency 11000 - 9000 = 2000);
 *   second: root 12000..12200; rank 1 11800..11900; rank 2 12500..12600 (sends 8 and
 *           entered after the root left: a violation).
 * The latency used is the smallest seen, at most the default 1000: 1000. The root's second
 * Gatherv leaves at 12500 + 1000 (shift 1300); its enter stays.
 */
static void test_gatherv_zero_sender(void **state)
{
	struct mpi_model m;
	uint32_t c[6];

	(void)state;
	begin(&m, 3);
	rank(&m, 0);
	c[0] = call(&m, R(Gatherv), 10000, 11000);
	coll(&m, 0, 0, 8);
	c[1] = call(&m, R(Gatherv), 12000, 12200);
	coll(&m, 0, 0, 8);
	rank(&m, 1);
	c[2] = call(&m, R(Gatherv), 11500, 11600);
	coll(&m, 0, 0, 0);
	c[3] = call(&m, R(Gatherv), 11800, 11900);
	coll(&m, 0, 0, 0);
	rank(&m, 2);
	c[4] = call(&m, R(Gatherv), 9000, 9100);
	coll(&m, 0, 8, 0);
	c[5] = call(&m, R(Gatherv), 12500, 12600);
	coll(&m, 0, 8, 0);
	build(&m, 0);
	assert_int_equal(m.ncolls, 2);
	assert_int_equal(m.coll_violations_before, 1);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 1300);
	assert_times(&m, c[0], 10000, 11000);
	assert_times(&m, c[1], 12000, 13500);
	assert_times(&m, c[2], 11500, 11600);
	assert_times(&m, c[3], 11800, 11900);
	assert_times(&m, c[4], 9000, 9100);
	assert_times(&m, c[5], 12500, 12600);
	mpi_model_release(&m);
}

/*
 * 2048 ranks, three Bcasts of 8 bytes from root 0 at bases b = 0, 10000, 20000:
 *   root: b+1000..b+1100; a non-root: enters at b+500, leaves at b+900 when odd (before the
 *   root entered: 1024 violations per Bcast, 3072 in all), b+1200 when even (latency 200).
 * Corrected: an odd rank's first Bcast leaves at 1000 + 200 (shift 300, its enter stays);
 * its later Bcasts move by 300 (10800..11200, 20800..21200) and are then consistent.
 */
static void test_big_bcast(void **state)
{
	struct mpi_model m;

	(void)state;
	begin(&m, BIG);
	for (int r = 0; r < BIG; r++) {
		rank(&m, r);
		for (int64_t b = 0; b <= 20000; b += 10000) {
			if (r == 0)
				call(&m, R(Bcast), b + 1000, b + 1100);
			else
				call(&m, R(Bcast), b + 500, b + (r & 1 ? 900 : 1200));
			coll(&m, 0, r ? 0 : 8, r ? 8 : 0);
		}
	}
	build(&m, 0);
	assert_int_equal(m.ncolls, 3);
	assert_int_equal(m.coll_violations_before, 3 * BIG / 2);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 300);
	for (uint32_t r = 0; r < BIG; r++) {
		uint32_t c = 3 * r;

		if (r == 0) {
			assert_times(&m, c, 1000, 1100);
			assert_times(&m, c + 2, 21000, 21100);
		} else if (r & 1) {
			assert_times(&m, c, 500, 1200);
			assert_times(&m, c + 1, 10800, 11200);
			assert_times(&m, c + 2, 20800, 21200);
		} else {
			assert_times(&m, c, 500, 1200);
			assert_times(&m, c + 2, 20500, 21200);
		}
	}
	mpi_model_release(&m);
}

/*
 * 2048 ranks, two Scans of 8 bytes (rank k's end follows the enters of ranks 0..k):
 *   first:  rank r enters at 10000 - r (the latest enter of every prefix is rank 0's, 10000);
 *           leaves at 9999 when r % 4 == 3 (512 violations), else at 10300 (latency 300);
 *   second: rank r enters at 20000 + r (every prefix's latest is its own) and leaves 50
 *           later (latency 50, the smallest).
 * Corrected: a rank r % 4 == 3 leaves the first Scan at 10000 + 50 (shift 51); its second
 * Scan moves by 51. Rank r + 1 then follows r's enter 20000 + r + 51 = its own leave: not a
 * violation (equal), so nothing else moves.
 */
static void test_big_scan(void **state)
{
	struct mpi_model m;

	(void)state;
	begin(&m, BIG);
	for (int r = 0; r < BIG; r++) {
		rank(&m, r);
		call(&m, R(Scan), 10000 - r, r % 4 == 3 ? 9999 : 10300);
		coll(&m, -1, 8, 8);
		call(&m, R(Scan), 20000 + r, 20050 + r);
		coll(&m, -1, 8, 8);
	}
	build(&m, 0);
	assert_int_equal(m.ncolls, 2);
	assert_int_equal(m.coll_violations_before, BIG / 4);
	assert_int_equal(m.coll_violations_after, 0);
	assert_int_equal(m.max_correction_ns, 51);
	for (int r = 0; r < BIG; r++) {
		uint32_t c = 2 * (uint32_t)r;

		if (r % 4 == 3) {
			assert_times(&m, c, 10000 - r, 10050);
			assert_times(&m, c + 1, 20051 + r, 20101 + r);
		} else {
			assert_times(&m, c, 10000 - r, 10300);
			assert_times(&m, c + 1, 20000 + r, 20050 + r);
		}
	}
	mpi_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alltoallv_zero_row),
	    cmocka_unit_test(test_scatterv_zero_recv),
	    cmocka_unit_test(test_gatherv_zero_sender),
	    cmocka_unit_test(test_big_bcast),
	    cmocka_unit_test(test_big_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
