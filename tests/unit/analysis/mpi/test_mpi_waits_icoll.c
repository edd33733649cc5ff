/*
 * test_mpi_waits_icoll.c - waits of non-blocking collectives (mpi-waits.h) on a synthetic
 * experiment (synth-mpi.h) loaded through mpi_model_load: the blocking call completing a
 * collective's request (its COLL_REQ item) waits until the late arrival the blocking twin
 * would wait for, measured from the starts (the I-calls); a Waitall that also completes a
 * message splits its wait between the two; the Test family is never charged.
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
#include "analysis/mpi/mpi-waits.h"
#include "synth-exp.h"
#include "synth-mpi.h"

#define R(name) MPI_ROUTINE_##name

static struct mitem it_coll_req(uint64_t req, uint32_t comm)
{
	return (struct mitem){
	    {psc_mpi_item_word0(PSC_MPI_ITEM_COLL_REQ, 0, comm), psc_mpi_pack2(-1, 0), 0, req}};
}

/* A non-blocking collective started from T to T + 0.1 ms with root ROOT and request REQ. */
static void istart(struct mstream *s, uint64_t t, unsigned routine, int32_t root, uint64_t req)
{
	struct mitem it[2] = {it_coll(root, 8, 8, 0), it_coll_req(req, 0)};

	ms_call(s, t, t + 100 * US, routine, 0x402000 + routine * 16, it, 2);
}

/* A completion (Wait, Test) of the collective request REQ from ENTER to LEAVE. */
static void idone(struct mstream *s, uint64_t enter, uint64_t leave, unsigned routine, uint64_t req)
{
	struct mitem it = it_coll_req(req, 0);

	ms_call(s, enter, leave, routine, 0x403000 + routine * 16, &it, 1);
}

/*
 * 3 ranks (all times in ms):
 * Iallreduce started by rank 0 at 10, rank 1 at 20, rank 2 at 50 (the last).
 *   rank 0: MPI_Wait 11..52: waits 39 (Wait at N x N) until rank 2 started.
 *   rank 1: Irecv from rank 2 at 20.2, MPI_Waitall 30..56 of the receive and the collective:
 *           20 collective (30..50), then 5 for rank 2, which sends at 55 (Late Sender).
 *   rank 2: sends to rank 1 at 55, MPI_Wait 56..57: no wait (it was the last).
 * Ibcast with root 1: rank 2 starts at 58, rank 0 at 62, rank 1 (the root) at 70.
 *   rank 0: MPI_Wait 63..71: 7 (Late Broadcast) until the root started.
 *   rank 2: MPI_Test 65..72 completes it: never charged.
 *   rank 1: MPI_Wait 71..72: the root waits for nobody.
 */
static void test_icoll_waits(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	struct mpi_waits w;
	char dir[128];
	uint32_t waitall;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 3, 1 * MS);
	{
		struct mstream *s = &j.s[0];

		istart(s, 10 * MS, R(Iallreduce), -1, 7);
		idone(s, 11 * MS, 52 * MS, R(Wait), 7);
		istart(s, 62 * MS, R(Ibcast), 1, 8);
		idone(s, 63 * MS, 71 * MS, R(Wait), 8);
		finalize(s, 80 * MS);
	}
	{
		struct mstream *s = &j.s[1];
		struct mitem irecv = it_irecv(2, 4, 64, 4, 0);
		struct mitem all[2] = {it_recv(2, 4, 64, 4, 0), it_coll_req(3, 0)};

		istart(s, 20 * MS, R(Iallreduce), -1, 3);
		ms_call1(s, 20200 * US, 20300 * US, R(Irecv), &irecv);
		ms_call(s, 30 * MS, 56 * MS, R(Waitall), 0x404000, all, 2);
		istart(s, 70 * MS, R(Ibcast), 1, 5);
		idone(s, 71 * MS, 72 * MS, R(Wait), 5);
		finalize(s, 80 * MS);
	}
	{
		struct mstream *s = &j.s[2];
		struct mitem send = it_send(1, 4, 64, 0);

		istart(s, 50 * MS, R(Iallreduce), -1, 9);
		ms_call1(s, 55 * MS, 55100 * US, R(Send), &send);
		idone(s, 56 * MS, 57 * MS, R(Wait), 9);
		istart(s, 58 * MS, R(Ibcast), 1, 10);
		idone(s, 65 * MS, 72 * MS, R(Test), 10);
		finalize(s, 80 * MS);
	}
	job_write(&j, dir, 7);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.ncolls, 2);
	assert_int_equal(m.nmsgs, 1);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);

	assert_int_equal(w.coll[0], 46 * MS);
	assert_int_equal(w.pattern[0 * MPI_PAT_COUNT + MPI_PAT_WAIT_NXN], 39 * MS);
	assert_int_equal(w.pattern[0 * MPI_PAT_COUNT + MPI_PAT_LATE_BROADCAST], 7 * MS);
	assert_int_equal(w.total[0], 46 * MS);

	assert_int_equal(w.coll[1], 20 * MS);
	assert_int_equal(w.p2p[1 * 3 + 2], 5 * MS);
	assert_int_equal(w.total[1], 25 * MS);
	waitall = call_of(&m, 1, 3);
	assert_int_equal(m.calls[waitall].routine, R(Waitall));
	assert_int_equal(w.call_wait[waitall], 25 * MS);

	assert_int_equal(w.total[2], 0);
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			if (!(r == 1 && k == 2))
				assert_int_equal(w.p2p[r * 3 + k], 0);
	/* calls that waited: rank 0's first Wait and rank 1's Waitall; rank 0's second Wait */
	assert_int_equal(w.pattern_calls[MPI_PAT_WAIT_NXN], 2);
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_BROADCAST], 1);
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_SENDER], 1);
	assert_int_equal(w.pattern_total[MPI_PAT_WAIT_BARRIER], 0);
	mpi_waits_release(&w);
	done(&e, &m);
}

/*
 * Ibarrier, Ireduce (root 0) and Iscan on 2 ranks; rank 1 starts each 10 ms after rank 0 and
 * both complete at once in MPI_Wait: rank 0 waits 10 at the barrier and 10 as the reduce's
 * root; at the scan rank 0 waits for nobody (only itself is before it), rank 1 neither (it
 * started last). A completion naming an unknown request is left alone.
 */
static void test_icoll_kinds(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	struct mpi_waits w;
	char dir[128];
	const unsigned routine[3] = {R(Ibarrier), R(Ireduce), R(Iscan)};

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 2, 1 * MS);
	for (int r = 0; r < 2; r++) {
		struct mstream *s = &j.s[r];

		for (int k = 0; k < 3; k++) {
			uint64_t t = (uint64_t)(10 + 20 * k) * MS;

			istart(s, t + (uint64_t)r * 10 * MS, routine[k],
			       routine[k] == R(Ireduce) ? 0 : -1, (uint64_t)(k + 1));
			idone(s, t + (uint64_t)r * 10 * MS + 200 * US, t + 15 * MS, R(Wait),
			      (uint64_t)(k + 1));
		}
		idone(s, 75 * MS, 79 * MS, R(Wait), 99);
		finalize(s, 80 * MS);
	}
	job_write(&j, dir, 3);
	load(dir, &e, &m, 0);
	assert_int_equal(m.ncolls, 3);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	/* from the Wait's enter (0.2 ms after its start) to rank 1's start */
	assert_int_equal(w.pattern[MPI_PAT_WAIT_BARRIER], 9800 * US);
	assert_int_equal(w.pattern[MPI_PAT_EARLY_REDUCE], 9800 * US);
	assert_int_equal(w.pattern_total[MPI_PAT_EARLY_SCAN], 0);
	assert_int_equal(w.coll[0], 19600 * US);
	assert_int_equal(w.total[1], 0);
	mpi_waits_release(&w);
	done(&e, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_icoll_waits),
	    cmocka_unit_test(test_icoll_kinds),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
