/*
 * test_mpi_cancel.c - cancelled and freed requests in the MPI model (mpi-model.h) from a
 * synthetic experiment (synth-mpi.h): an Isend whose cancellation MPI confirmed sends nothing,
 * so the receive of the same channel matches the next send; a freed Isend still sends; a
 * cancelled Irecv receives nothing; an Isend whose cancellation failed is an ordinary message.
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

#include "format/experiment.h"
#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-stats.h"
#include "synth-exp.h"
#include "synth-mpi.h"

static void test_cancel(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	struct mpi_traffic tr;
	char dir[128];
	const struct mpi_message *g;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 2, 1 * MS);
	{
		struct mstream *s = &j.s[0];
		struct mitem a = it_isend(1, 5, 64, 21, 0), ca = it_cancel(21, 0);
		struct mitem b = it_send(1, 5, 8, 0);
		struct mitem f = it_isend(1, 6, 16, 22, 0), cf = it_cancel(22, PSC_MPI_F_FREED);
		struct mitem u = it_isend(1, 7, 4, 23, 0), du = it_done(23);

		/* 1-3: cancelled (confirmed by the Wait), then a blocking send on the same channel
		 */
		ms_call1(s, 2000 * US, 2010 * US, MPI_ROUTINE_Isend, &a);
		ms_call1(s, 2020 * US, 2030 * US, MPI_ROUTINE_Cancel, NULL);
		ms_call1(s, 2040 * US, 2050 * US, MPI_ROUTINE_Wait, &ca);
		ms_call1(s, 2100 * US, 2110 * US, MPI_ROUTINE_Send, &b);
		/* 5-6: freed while active: still sent */
		ms_call1(s, 2200 * US, 2210 * US, MPI_ROUTINE_Isend, &f);
		ms_call1(s, 2220 * US, 2230 * US, MPI_ROUTINE_Request_free, &cf);
		/* 7-9: a cancellation that failed: completed normally */
		ms_call1(s, 2300 * US, 2310 * US, MPI_ROUTINE_Isend, &u);
		ms_call1(s, 2320 * US, 2330 * US, MPI_ROUTINE_Cancel, NULL);
		ms_call1(s, 2340 * US, 2350 * US, MPI_ROUTINE_Wait, &du);
		finalize(s, 4 * MS);
	}
	{
		struct mstream *s = &j.s[1];
		struct mitem r5 = it_recv(0, 5, 8, 0, 0), r6 = it_recv(0, 6, 16, 0, 0);
		struct mitem r7 = it_recv(0, 7, 4, 0, 0);
		struct mitem q = it_irecv(0, 9, 32, 31, 0), cq = it_cancel(31, 0);

		ms_call1(s, 2050 * US, 2120 * US, MPI_ROUTINE_Recv, &r5);
		ms_call1(s, 2250 * US, 2260 * US, MPI_ROUTINE_Recv, &r6);
		ms_call1(s, 2360 * US, 2370 * US, MPI_ROUTINE_Recv, &r7);
		/* 4-6: a receive nobody sends to, cancelled */
		ms_call1(s, 2400 * US, 2410 * US, MPI_ROUTINE_Irecv, &q);
		ms_call1(s, 2420 * US, 2430 * US, MPI_ROUTINE_Cancel, NULL);
		ms_call1(s, 2440 * US, 2450 * US, MPI_ROUTINE_Wait, &cq);
		finalize(s, 4 * MS);
	}
	job_write(&j, dir, 0x3);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.nmsgs, 3);
	assert_int_equal(m.cancelled_sends, 1);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 0);
	/* the blocking send is the one tag 5 received, not the cancelled Isend */
	g = msg_of(&m, call_of(&m, 0, 4));
	assert_int_equal(g->recv_call, call_of(&m, 1, 1));
	assert_int_equal(g->bytes, 8);
	/* the freed Isend was received; its completion is unknown */
	g = msg_of(&m, call_of(&m, 0, 5));
	assert_int_equal(g->recv_call, call_of(&m, 1, 2));
	assert_int_equal(g->send_done_call, MPI_NONE);
	/* the cancellation that failed: a message completed by its Wait */
	g = msg_of(&m, call_of(&m, 0, 7));
	assert_int_equal(g->recv_call, call_of(&m, 1, 3));
	assert_int_equal(g->send_done_call, call_of(&m, 0, 9));
	for (size_t i = 0; i < m.nmsgs; i++)
		assert_int_not_equal(m.msgs[i].send_call, call_of(&m, 0, 1));
	/* the traffic view lists nothing unmatched: the cancelled send is no message */
	assert_int_equal(mpi_traffic_compute(&tr, &m), 0);
	assert_int_equal(tr.nunmatched, 0);
	mpi_traffic_release(&tr);
	done(&e, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
