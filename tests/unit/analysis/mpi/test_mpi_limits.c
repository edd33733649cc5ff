/*
 * test_mpi_limits.c - the MPI model at the edges of what it accepts: times and clock offsets
 * beyond the plausible range (mpi-match.h MPI_TIME_LIMIT_NS) never overflow the analyses and
 * are rejected by the loader with their file and byte offset; a drift no clock has is
 * ignored with a warning; version 1 records' MPI_Cancel items are read as unconfirmed; a
 * receive whose communicator comes from its request is matched on that communicator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/experiment.h"
#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-stats.h"
#include "synth-exp.h"
#include "synth-mpi.h"

#define FAR (INT64_C(1) << 62)

/* A call from -2^62 to 2^62 through the builder: its time is clamped, so the routine table's
 * durations and sums stay positive (leave - enter was 2^63, which wrapped). */
static void test_builder_clamps(void **state)
{
	struct mpi_model m;
	struct mpi_routines ro;
	char err[256];
	int32_t world[1] = {0};
	struct mpi_item coll = {.kind = PSC_MPI_ITEM_COLL, .peer = -1};

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(mpi_model_set_world(&m, 1), 0);
	assert_true(mpi_model_add_comm(&m, 0, world, 1) == 0);
	assert_true(mpi_model_add_loc(&m, 0, 100) == 0);
	assert_true(mpi_model_add_call(&m, 0, MPI_ROUTINE_Barrier, -FAR, FAR, MPI_NONE) == 0);
	coll.comm = 0;
	assert_int_equal(mpi_model_add_item(&m, &coll), 0);
	assert_true(mpi_model_add_call(&m, 0, MPI_ROUTINE_Barrier, FAR, FAR, MPI_NONE) == 1);
	assert_int_equal(mpi_model_add_item(&m, &coll), 0);
	assert_int_equal(mpi_model_build(&m, MPI_BUILD_ALIGNED, err, sizeof(err)), 0);
	assert_true(m.calls[0].enter_ns >= -(INT64_C(1) << 60));
	assert_true(m.calls[0].leave_ns <= INT64_C(1) << 60);
	assert_int_equal(mpi_routines_compute(&ro, &m), 0);
	assert_true(ro.all[MPI_ROUTINE_Barrier].total_ns > 0);
	assert_true(ro.all[MPI_ROUTINE_Barrier].max_ns > 0);
	assert_true(ro.mpi_total_ns > 0);
	assert_true(ro.run_total_ns > 0);
	mpi_routines_release(&ro);
	mpi_model_release(&m);
}

/* Rank 1 measured an offset of 2^62 ns: the loader ignores that record, naming the stream and
 * the record's byte offset; the rank's times stay on its own clock. */
static void test_offset_out_of_range(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128], where[256];
	struct mitem s1 = it_send(1, 1, 8, 0), r1 = it_recv(0, 1, 8, 0, 0);

	(void)state;
	new_dir(dir, sizeof(dir));
	memset(&j, 0, sizeof(j));
	j.world = 2;
	ms_begin(&j.s[0], 1 * MS, 0, 2);
	ms_clock(&j.s[0], 1 * MS + 1000, PSC_MPI_CLOCK_INIT, 1 * MS + 1000, 0, 0);
	ms_begin(&j.s[1], 1 * MS, 1, 2);
	/* the clock record of rank 1 follows, after the 64-byte header, the 16-byte chunk header,
	 * the clock sync (3 words), enter (2), init (4), two communicators (5 + 5), leave (3) */
	ms_clock(&j.s[1], 1 * MS + 1000, PSC_MPI_CLOCK_INIT, 1 * MS + 1000, FAR, 0);
	ms_call1(&j.s[0], 2 * MS, 2 * MS + 10, MPI_ROUTINE_Send, &s1);
	ms_call1(&j.s[1], 2 * MS, 2 * MS + 20, MPI_ROUTINE_Recv, &r1);
	finalize(&j.s[0], 3 * MS);
	finalize(&j.s[1], 3 * MS);
	job_write(&j, dir, 0x3);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	snprintf(where, sizeof(where), "%s/stream.1001.1001: byte %d: clock offset %" PRId64, dir,
		 64 + 16 + (3 + 2 + 4 + 5 + 5 + 3) * 8, FAR);
	assert_true(has_warning(&m, where));
	assert_int_equal(m.ranks[1].has_clock[0], 0);
	assert_int_equal(m.nmsgs, 1);
	assert_true(m.calls[call_of(&m, 1, 1)].leave_ns < INT64_C(1) << 40);
	done(&e, &m);
}

/* Two ranks, a Barrier each at 2 ms; rank 1 measured offset 0 at init (round trip 500 ns)
 * and OFFSET with round trip RTT at finalize, 10 ms later: loaded into E and M. */
static void drift_job(struct experiment *e, struct mpi_model *m, int64_t offset, uint64_t rtt)
{
	struct job j;
	char dir[128];

	new_dir(dir, sizeof(dir));
	job_begin(&j, 2, 1 * MS);
	ms_call1(&j.s[0], 2 * MS, 2 * MS + 10, MPI_ROUTINE_Barrier, NULL);
	ms_call1(&j.s[1], 2 * MS, 2 * MS + 10, MPI_ROUTINE_Barrier, NULL);
	ms_clock(&j.s[1], 11 * MS, PSC_MPI_CLOCK_FINALIZE, 11 * MS, offset, rtt);
	finalize(&j.s[0], 12 * MS);
	finalize(&j.s[1], 12 * MS);
	job_write(&j, dir, 0x3);
	load(dir, e, m, 0);
	print_warnings(m);
}

/* Offsets of 0 at init and 1 s at finalize 10 ms later: 10^5 ppm is no clock's drift; the
 * finalize one is ignored with a warning and the rank keeps offset 0 throughout. */
static void test_drift_bounded(void **state)
{
	struct experiment e;
	struct mpi_model m;

	(void)state;
	drift_job(&e, &m, 1000 * MS, 500);
	assert_true(has_warning(&m, "rank 1: clock offsets 0 ns at init and 1000000000 ns at "
				    "finalize"));
	assert_int_equal(m.ranks[1].has_clock[1], 0);
	assert_int_equal(m.calls[call_of(&m, 1, 1)].enter_ns, 2 * MS);
	done(&e, &m);
}

/*
 * Offsets of 0 at init (round trip 500 ns) and 3 ms at finalize 10 ms later: beyond 1000 ppm
 * of drift plus 1 ms, so ignored when the finalize round trip is 500 ns; kept when it is
 * 5 ms, since each offset is only known within half its round trip (a loaded machine measured
 * -3.49 ms with a 1.9 ms round trip at init and -1.86 ms with 2.4 ms at finalize for a clock
 * 3 ms behind, and lost the second).
 */
static void test_drift_within_round_trips(void **state)
{
	(void)state;
	for (int slow = 0; slow < 2; slow++) {
		struct experiment e;
		struct mpi_model m;

		drift_job(&e, &m, 3 * MS, slow ? 5 * MS : 500);
		assert_int_equal(has_warning(&m,
					     "rank 1: clock offsets 0 ns at init and 3000000 ns "
					     "at finalize"),
				 !slow);
		assert_int_equal(m.ranks[1].has_clock[1], slow);
		done(&e, &m);
	}
}

/* Rank 0 sends tag 5 twice (the first Isend cancelled), rank 1 receives it once. Version 1
 * (no version in the init record): MPI_Cancel's item only asked, so the Isend is a message
 * like a freed one, matched first; version 2: a cancel item in MPI_Cancel is taken as written
 * (confirmed), so the blocking send is the one received. */
static void cancel_job(const char *dir, unsigned version)
{
	struct job j;
	struct mitem a = it_isend(1, 5, 64, 21, 0), ca = it_cancel(21, 0);
	struct mitem b = it_send(1, 5, 8, 0), r = it_recv(0, 5, 8, 0, 0);

	job_begin(&j, 2, 1 * MS);
	for (int k = 0; k < 2; k++) {
		/* the init record of ms_begin with the version in the thread level's high bits */
		uint64_t *w = j.s[k].w + 3 + 2;

		assert_int_equal(psc_rec_type(w[1]), PSC_REC_MPI_INIT);
		w[3] |= (uint64_t)version << 32;
	}
	ms_call1(&j.s[0], 2000 * US, 2010 * US, MPI_ROUTINE_Isend, &a);
	ms_call1(&j.s[0], 2020 * US, 2030 * US, MPI_ROUTINE_Cancel, &ca);
	ms_call1(&j.s[0], 2100 * US, 2110 * US, MPI_ROUTINE_Send, &b);
	ms_call1(&j.s[1], 2050 * US, 2120 * US, MPI_ROUTINE_Recv, &r);
	finalize(&j.s[0], 4 * MS);
	finalize(&j.s[1], 4 * MS);
	job_write(&j, dir, 0x3);
}

static void test_cancel_version1(void **state)
{
	struct experiment e;
	struct mpi_model m;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	cancel_job(dir, 0);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_true(has_warning(&m, "rank 0: 1 MPI_Cancel calls recorded before MPI record "
				    "version 2"));
	assert_int_equal(m.cancelled_sends, 0);
	assert_int_equal(msg_of(&m, call_of(&m, 0, 1))->recv_call, call_of(&m, 1, 1));
	assert_int_equal(m.unmatched_sends, 1);
	done(&e, &m);

	new_dir(dir, sizeof(dir));
	cancel_job(dir, PSC_MPI_RECORD_VERSION);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_false(has_warning(&m, "MPI_Cancel calls recorded before"));
	assert_int_equal(m.cancelled_sends, 1);
	assert_int_equal(msg_of(&m, call_of(&m, 0, 3))->recv_call, call_of(&m, 1, 1));
	assert_int_equal(m.unmatched_sends, 0);
	done(&e, &m);

	/* a version this reader does not know: its records are left out, with the offset of the
	 * init record (after the headers, the clock sync and MPI_Init's enter) */
	new_dir(dir, sizeof(dir));
	cancel_job(dir, PSC_MPI_RECORD_VERSION + 1);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	{
		char want[128];

		snprintf(want, sizeof(want),
			 "/stream.1000.1000: byte 120: MPI records of version %d",
			 PSC_MPI_RECORD_VERSION + 1);
		assert_true(has_warning(&m, want));
	}
	done(&e, &m);
}

/* A receive completed by Wait whose item names no communicator, its Irecv naming the world
 * (as an OTF2 import gives it): the receive takes the Irecv's communicator before its channel
 * is chosen, and matches the send on the world. */
static void test_recv_comm_from_request(void **state)
{
	struct mpi_model m;
	char err[256];
	int32_t world[2] = {0, 1};
	struct mpi_item send = {
	    .kind = PSC_MPI_ITEM_SEND, .comm = 0, .peer = 1, .tag = 4, .bytes = 8};
	struct mpi_item irecv = {
	    .kind = PSC_MPI_ITEM_IRECV, .comm = 0, .peer = 0, .tag = 4, .bytes = 8, .request = 7};
	struct mpi_item recv = {.kind = PSC_MPI_ITEM_RECV,
				.comm = MPI_NONE,
				.peer = 0,
				.tag = 4,
				.bytes = 8,
				.request = 7};

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(mpi_model_set_world(&m, 2), 0);
	assert_true(mpi_model_add_comm(&m, 0, world, 2) == 0);
	assert_true(mpi_model_add_loc(&m, 0, 100) == 0);
	assert_true(mpi_model_add_call(&m, 0, MPI_ROUTINE_Send, 2000, 3000, MPI_NONE) >= 0);
	assert_int_equal(mpi_model_add_item(&m, &send), 0);
	assert_true(mpi_model_add_loc(&m, 1, 101) == 1);
	assert_true(mpi_model_add_call(&m, 1, MPI_ROUTINE_Irecv, 1000, 1100, MPI_NONE) >= 0);
	assert_int_equal(mpi_model_add_item(&m, &irecv), 0);
	assert_true(mpi_model_add_call(&m, 1, MPI_ROUTINE_Wait, 1200, 4000, MPI_NONE) >= 0);
	assert_int_equal(mpi_model_add_item(&m, &recv), 0);
	assert_int_equal(mpi_model_build(&m, MPI_BUILD_ALIGNED, err, sizeof(err)), 0);
	assert_int_equal(m.items[2].comm, 0);
	assert_int_equal(m.nmsgs, 1);
	assert_int_equal(m.msgs[0].recv_call, 2);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 0);
	mpi_model_release(&m);
}

/* A call keeps its location in 23 bits: the builder takes MPI_LOCS_MAX locations and refuses
 * the next, and the last one's calls name it whole. */
static void test_locs_max(void **state)
{
	struct mpi_model m;

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(mpi_model_set_world(&m, 1), 0);
	for (uint32_t l = 0; l < MPI_LOCS_MAX; l++)
		if (mpi_model_add_loc(&m, 0, (pid_t)l) != (long)l)
			fail_msg("location %u refused", l);
	assert_int_equal(mpi_model_add_loc(&m, 0, 1), -E2BIG);
	assert_int_equal(m.nlocs, MPI_LOCS_MAX);
	assert_true(
	    mpi_model_add_call(&m, MPI_LOCS_MAX - 1, MPI_ROUTINE_Finalize, 1, 2, MPI_NONE) == 0);
	assert_int_equal(m.calls[0].loc, MPI_LOCS_MAX - 1);
	assert_int_equal(m.calls[0].routine, MPI_ROUTINE_Finalize);
	assert_int_equal(m.locs[MPI_LOCS_MAX - 1].ncalls, 1);
	mpi_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builder_clamps),  cmocka_unit_test(test_offset_out_of_range),
	    cmocka_unit_test(test_drift_bounded),   cmocka_unit_test(test_drift_within_round_trips),
	    cmocka_unit_test(test_cancel_version1), cmocka_unit_test(test_recv_comm_from_request),
	    cmocka_unit_test(test_locs_max),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
