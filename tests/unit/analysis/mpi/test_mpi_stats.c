/* test_mpi_stats.c - MPI routines per rank and traffic per pair on MPI models built by hand
 * with known times and bytes (mpi-hand.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-hand.h"
#include "view/mpi-print.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"

#define R(name) MPI_ROUTINE_##name

static void close_to(double v, double want)
{
	if (fabs(v - want) > 1e-9 * fabs(want) + 1e-12)
		fail_msg("%.17g, expected %.17g", v, want);
}

/*
 * Rank 0: three Sends of 1, 2 and 3 ms (100 bytes each) and a Recv of 4 ms (50 bytes);
 * rank 1: a Send of 5 ms (10 bytes) and a Bcast of 2 ms (7 bytes sent, 9 received); both run
 * 100 ms.
 */
static void test_routines(void **state)
{
	struct mpi_model m;
	struct mpi_routines rs;
	const struct mpi_routine_stat *s;

	(void)state;
	hand_init(&m, 2, 100);
	for (int i = 1; i <= 3; i++) {
		hand_call(&m, 0, R(Send), 10 * i, 10 * i + i);
		hand_item(&m, PSC_MPI_ITEM_SEND, 0, 1, 0, 100, 0);
	}
	hand_call(&m, 0, R(Recv), 50, 54);
	hand_item(&m, PSC_MPI_ITEM_RECV, 0, 1, 0, 50, 0);
	hand_call(&m, 1, R(Send), 50, 55);
	hand_item(&m, PSC_MPI_ITEM_SEND, 0, 0, 0, 10, 0);
	hand_call(&m, 1, R(Bcast), 60, 62);
	hand_item(&m, PSC_MPI_ITEM_COLL, 0, 0, 0, 7, 9);
	assert_int_equal(mpi_routines_compute(&rs, &m), 0);
	assert_int_equal(rs.nranks, 2);
	assert_int_equal(rs.run_ns[0], MS(100));
	assert_int_equal(rs.mpi_ns[0], MS(10));
	assert_int_equal(rs.mpi_ns[1], MS(7));
	s = mpi_routines_at(&rs, 0, R(Send));
	assert_int_equal(s->calls, 3);
	assert_int_equal(s->total_ns, MS(6));
	assert_int_equal(s->min_ns, MS(1));
	assert_int_equal(s->max_ns, MS(3));
	assert_int_equal(s->bytes, 300);
	close_to(mpi_routine_mean(s), 2e6);
	s = mpi_routines_at(&rs, 0, R(Recv));
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->bytes, 50);
	assert_int_equal(mpi_routines_at(&rs, 0, R(Bcast))->calls, 0);
	assert_int_equal(mpi_routines_at(&rs, 1, R(Bcast))->bytes, 16);
	s = &rs.all[R(Send)];
	assert_int_equal(s->calls, 4);
	assert_int_equal(s->total_ns, MS(11));
	assert_int_equal(s->min_ns, MS(1));
	assert_int_equal(s->max_ns, MS(5));
	assert_int_equal(s->bytes, 310);
	assert_int_equal(rs.run_total_ns, MS(200));
	assert_int_equal(rs.mpi_total_ns, MS(17));
	mpi_routines_release(&rs);
	hand_release(&m);
}

static void test_routines_csv(void **state)
{
	struct mpi_model m;
	struct mpi_routines rs;
	struct mpi_traffic tr;
	struct mpi_waits w;
	struct mpi_report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	hand_init(&m, 2, 100);
	hand_call(&m, 0, R(Send), 10, 11);
	hand_item(&m, PSC_MPI_ITEM_SEND, 0, 1, 0, 100, 0);
	hand_call(&m, 0, R(Send), 20, 23);
	hand_item(&m, PSC_MPI_ITEM_SEND, 0, 1, 0, 100, 0);
	hand_call(&m, 1, R(Recv), 5, 25);
	assert_int_equal(mpi_routines_compute(&rs, &m), 0);
	assert_int_equal(mpi_traffic_compute(&tr, &m), 0);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	r = (struct mpi_report){.m = &m, .routines = &rs, .traffic = &tr, .waits = &w};
	f = open_memstream(&text, &len);
	assert_int_equal(mpi_print_csv(&r, MPI_VIEW_ROUTINES, f, stderr), 0);
	fclose(f);
	assert_string_equal(
	    text, "rank,routine,calls,total_ns,mean_ns,min_ns,max_ns,pct_run,pct_mpi,bytes\n"
		  "all,MPI_Send,2,4000000,2000000.0,1000000,3000000,2.000000,16.666667,200\n"
		  "all,MPI_Recv,1,20000000,20000000.0,20000000,20000000,10.000000,83.333333,0\n"
		  "0,MPI_Send,2,4000000,2000000.0,1000000,3000000,4.000000,100.000000,200\n"
		  "1,MPI_Recv,1,20000000,20000000.0,20000000,20000000,20.000000,100.000000,0\n");
	free(text);
	mpi_routines_release(&rs);
	mpi_traffic_release(&tr);
	mpi_waits_release(&w);
	hand_release(&m);
}

/*
 * 0 -> 1: 1000 bytes from send start 0 to receive end 1 ms (8 Mbit/s), 1000 bytes from 10 to
 * 12 ms (4 Mbit/s), 0 bytes (no rate). 1 -> 2: a send at 20 ms no receive matched. Rank 2: a
 * send item at 25 ms without a message (to 0), a receive from 0 at 30 ms without one.
 */
static void test_traffic(void **state)
{
	struct mpi_model m;
	struct mpi_traffic t;
	uint32_t s, r;
	const struct mpi_pair *p;

	(void)state;
	hand_init(&m, 3, 100);
	s = hand_call(&m, 0, R(Send), 0, 0.5);
	r = hand_call(&m, 1, R(Recv), 0.2, 1);
	hand_msg(&m, 0, 1, 1000, s, s, r, r, 0, MPI_NONE, MPI_NONE);
	s = hand_call(&m, 0, R(Send), 10, 10.5);
	r = hand_call(&m, 1, R(Recv), 11, 12);
	hand_msg(&m, 0, 1, 1000, s, s, r, r, 0, MPI_NONE, MPI_NONE);
	s = hand_call(&m, 0, R(Send), 13, 13.5);
	r = hand_call(&m, 1, R(Recv), 13, 14);
	hand_msg(&m, 0, 1, 0, s, s, r, r, 0, MPI_NONE, MPI_NONE);
	s = hand_call(&m, 1, R(Isend), 20, 20.1);
	hand_msg(&m, 1, 2, 64, s, MPI_NONE, MPI_NONE, MPI_NONE, 0,
		 hand_item(&m, PSC_MPI_ITEM_ISEND, 0, 2, 5, 64, 0), MPI_NONE);
	hand_call(&m, 2, R(Send), 25, 25.1);
	hand_item(&m, PSC_MPI_ITEM_SEND, 0, 0, 6, 16, 0);
	hand_call(&m, 2, R(Recv), 30, 31);
	hand_item(&m, PSC_MPI_ITEM_RECV, 0, 0, 7, 32, 0);
	assert_int_equal(mpi_traffic_compute(&t, &m), 0);
	assert_int_equal(t.npairs, 4);
	p = &t.pairs[0];
	assert_int_equal(p->src, 0);
	assert_int_equal(p->dst, 1);
	assert_int_equal(p->messages, 3);
	assert_int_equal(p->matched, 3);
	assert_int_equal(p->bytes, 2000);
	assert_int_equal(p->nrates, 2);
	close_to(p->rate_mean, 6e6);
	close_to(p->rate_min, 4e6);
	close_to(p->rate_max, 8e6);
	p = &t.pairs[1]; /* 0 -> 2: the receive without a send */
	assert_int_equal(p->src, 0);
	assert_int_equal(p->dst, 2);
	assert_int_equal(p->unmatched_recvs, 1);
	assert_int_equal(p->messages, 1);
	assert_int_equal(p->bytes, 32);
	assert_int_equal(p->nrates, 0);
	p = &t.pairs[2];
	assert_int_equal(p->src, 1);
	assert_int_equal(p->dst, 2);
	assert_int_equal(p->unmatched_sends, 1);
	assert_int_equal(p->matched, 0);
	p = &t.pairs[3];
	assert_int_equal(p->src, 2);
	assert_int_equal(p->dst, 0);
	assert_int_equal(p->unmatched_sends, 1);
	assert_int_equal(t.messages, 6);
	assert_int_equal(t.matched, 3);
	assert_int_equal(t.bytes, 2000 + 64 + 16 + 32);
	assert_int_equal(t.nunmatched, 3);
	assert_int_equal(t.unmatched[0].kind, MPI_UNMATCHED_SEND);
	assert_int_equal(t.unmatched[0].rank, 1);
	assert_int_equal(t.unmatched[0].routine, R(Isend));
	assert_int_equal(t.unmatched[0].peer, 2);
	assert_int_equal(t.unmatched[0].tag, 0); /* the message's tag */
	assert_int_equal(t.unmatched[0].bytes, 64);
	assert_int_equal(t.unmatched[1].rank, 2);
	assert_int_equal(t.unmatched[1].tag, 6);
	assert_int_equal(t.unmatched[1].enter_ns, MS(25));
	assert_int_equal(t.unmatched[2].kind, MPI_UNMATCHED_RECV);
	assert_int_equal(t.unmatched[2].peer, 0);
	assert_int_equal(t.unmatched[2].tag, 7);
	assert_int_equal(t.unmatched[2].bytes, 32);
	mpi_traffic_release(&t);
	hand_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_routines),
	    cmocka_unit_test(test_routines_csv),
	    cmocka_unit_test(test_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
