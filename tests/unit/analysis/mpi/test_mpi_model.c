/*
 * test_mpi_model.c - the MPI model (mpi-model.h) from synthetic MPI experiments
 * (synth-mpi.h): messages matched (ring, Sendrecv, wildcard and non-blocking receives,
 * persistent requests), collectives on the world and on a split communicator, clock
 * alignment, causality correction, damaged and missing input.
 *
 * `test_mpi_model --bench N` instead writes a 4-rank experiment of N MPI calls and times
 * experiment_open + mpi_model_load on it.
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
#include <time.h>

#include "model/experiment-open.h"
#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "synth-exp.h"
#include "synth-mpi.h"

/* ---- point-to-point ------------------------------------------------------------------------- */

/* A ring of blocking sends (rank 2's synchronous), then a ring of Sendrecv. */
static void test_ring(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 4, 1 * MS);
	for (int r = 0; r < 4; r++) {
		struct mitem snd =
		    r == 2 ? it_ssend((r + 1) % 4, 1, 8, 0) : it_send((r + 1) % 4, 1, 8, 0);
		struct mitem rcv = it_recv((r + 3) % 4, 1, 8, 0, 0);
		unsigned sr = r == 2 ? MPI_ROUTINE_Ssend : MPI_ROUTINE_Send;
		struct mitem both[2] = {it_send((r + 1) % 4, 2, 16, 0),
					it_recv((r + 3) % 4, 2, 16, 0, 0)};
		uint64_t t = 2 * MS + 100 * US + (uint64_t)r * 200 * US;

		if (r == 0) {
			ms_call1(&j.s[r], 2 * MS, 2 * MS + 100 * US, sr, &snd);
			ms_call1(&j.s[r], 2200 * US, 2900 * US, MPI_ROUTINE_Recv, &rcv);
		} else {
			ms_call1(&j.s[r], 2 * MS, t - 50 * US, MPI_ROUTINE_Recv, &rcv);
			ms_call1(&j.s[r], t, t + 50 * US, sr, &snd);
		}
		ms_call(&j.s[r], 3 * MS, 3100 * US, MPI_ROUTINE_Sendrecv, 0x401234, both, 2);
		finalize(&j.s[r], 4 * MS);
	}
	job_write(&j, dir, 0xf);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.world_size, 4);
	assert_int_equal(m.nmsgs, 8);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 0);
	assert_int_equal(m.violations_before, 0);
	assert_int_equal(m.violations_after, 0);
	assert_int_equal(m.ncolls, 0);
	assert_true(m.clock_aligned);
	for (int r = 0; r < 4; r++) {
		int d = (r + 1) % 4;
		const struct mpi_message *g = msg_of(&m, call_of(&m, r, r == 0 ? 1 : 2));

		assert_int_equal(g->src, r);
		assert_int_equal(g->dst, d);
		assert_int_equal(g->tag, 1);
		assert_int_equal(g->bytes, 8);
		assert_int_equal(g->recv_call, call_of(&m, d, d == 0 ? 2 : 1));
		assert_int_equal(g->recv_post_call, g->recv_call);
		assert_int_equal(g->send_done_call, g->send_call);
		assert_int_equal(g->sync, r == 2);
		assert_int_equal(m.comms[g->comm].key, 0);
		g = msg_of(&m, call_of(&m, r, 3));
		assert_int_equal(g->dst, d);
		assert_int_equal(g->tag, 2);
		assert_int_equal(g->bytes, 16);
		assert_int_equal(g->recv_call, call_of(&m, d, 3));
		assert_int_equal(g->recv_post_call, call_of(&m, d, 3));
		assert_int_equal(m.ranks[r].start_ns, 1 * MS);
		assert_int_equal(m.ranks[r].end_ns, 4 * MS + 1000);
		assert_int_equal(m.ranks[r].pid, 1000 + r);
	}
	/* every item of a message points back at it */
	for (size_t i = 0; i < m.nitems; i++)
		if (m.items[i].kind == PSC_MPI_ITEM_SEND || m.items[i].kind == PSC_MPI_ITEM_RECV)
			assert_true(m.items[i].msg < m.nmsgs);
	assert_int_equal(m.start_ns, 1 * MS);
	assert_int_equal(m.end_ns, 4 * MS + 1000);
	/* call sites: one per (rank, return address) */
	assert_int_equal(m.sites[m.calls[call_of(&m, 1, 3)].site].addr, 0x401234);
	assert_int_equal(m.sites[m.calls[call_of(&m, 1, 3)].site].rank, 1);
	done(&e, &m);
}

/* Wildcard receives, Irecv + Waitall completing out of posting order, persistent requests,
 * an Isend never completed. */
static void test_nonblocking(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128];
	const struct mpi_message *g;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 3, 1 * MS);
	{
		struct mstream *s = &j.s[0];
		struct mitem a = it_irecv(PSC_MPI_ANY, PSC_MPI_ANY, 64, 11, 0);
		struct mitem b = it_irecv(PSC_MPI_ANY, PSC_MPI_ANY, 64, 12, 0);
		struct mitem w[2] = {it_recv(2, 6, 32, 12, 0), it_recv(1, 5, 16, 11, 0)};
		struct mitem rany = it_recv(1, 7, 8, 0, 0);
		struct mitem c = it_irecv(1, 9, 1000, 41, 0), d = it_irecv(1, 9, 1000, 42, 0);
		struct mitem w2[2] = {it_recv(1, 9, 200, 42, 0), it_recv(1, 9, 100, 41, 0)};

		ms_call1(s, 2000 * US, 2010 * US, MPI_ROUTINE_Irecv, &a);
		ms_call1(s, 2020 * US, 2030 * US, MPI_ROUTINE_Irecv, &b);
		ms_call(s, 2040 * US, 2500 * US, MPI_ROUTINE_Waitall, 0x4010, w, 2);
		ms_call1(s, 2600 * US, 2800 * US, MPI_ROUTINE_Recv, &rany);
		ms_call1(s, 3000 * US, 3010 * US, MPI_ROUTINE_Irecv, &c);
		ms_call1(s, 3020 * US, 3030 * US, MPI_ROUTINE_Irecv, &d);
		ms_call(s, 3040 * US, 3500 * US, MPI_ROUTINE_Waitall, 0x4010, w2, 2);
		finalize(s, 4 * MS);
	}
	{
		struct mstream *s = &j.s[1];
		struct mitem s5 = it_send(0, 5, 16, 0), s7 = it_send(0, 7, 8, 0);
		struct mitem p1 = it_isend(2, 3, 50, 21, 0), d1 = it_done(21);
		struct mitem p2 = it_isend(2, 3, 50, 22, 0), d2 = it_done(22);
		struct mitem s9a = it_send(0, 9, 100, 0), s9b = it_send(0, 9, 200, 0);
		struct mitem lone = it_isend(2, 4, 10, 23, 0);

		ms_call1(s, 2100 * US, 2110 * US, MPI_ROUTINE_Send, &s5);
		ms_call1(s, 2200 * US, 2210 * US, MPI_ROUTINE_Send, &s7);
		ms_call1(s, 2300 * US, 2310 * US, MPI_ROUTINE_Send_init, NULL);
		ms_call1(s, 2320 * US, 2330 * US, MPI_ROUTINE_Start, &p1);
		ms_call1(s, 2340 * US, 2400 * US, MPI_ROUTINE_Wait, &d1);
		ms_call1(s, 2410 * US, 2420 * US, MPI_ROUTINE_Start, &p2);
		ms_call1(s, 2430 * US, 2500 * US, MPI_ROUTINE_Wait, &d2);
		ms_call1(s, 3100 * US, 3110 * US, MPI_ROUTINE_Send, &s9a);
		ms_call1(s, 3200 * US, 3210 * US, MPI_ROUTINE_Send, &s9b);
		ms_call1(s, 3300 * US, 3310 * US, MPI_ROUTINE_Isend, &lone);
		finalize(s, 4 * MS);
	}
	{
		struct mstream *s = &j.s[2];
		struct mitem s6 = it_send(0, 6, 32, 0);
		struct mitem q1 = it_irecv(1, 3, 50, 31, 0), r1 = it_recv(1, 3, 50, 31, 0);
		struct mitem q2 = it_irecv(1, 3, 50, 32, 0), r2 = it_recv(1, 3, 50, 32, 0);
		struct mitem r4 = it_recv(1, 4, 10, 0, 0);

		ms_call1(s, 2150 * US, 2160 * US, MPI_ROUTINE_Send, &s6);
		ms_call1(s, 2200 * US, 2210 * US, MPI_ROUTINE_Recv_init, NULL);
		ms_call1(s, 2220 * US, 2230 * US, MPI_ROUTINE_Start, &q1);
		ms_call1(s, 2240 * US, 2450 * US, MPI_ROUTINE_Wait, &r1);
		ms_call1(s, 2460 * US, 2470 * US, MPI_ROUTINE_Start, &q2);
		ms_call1(s, 2480 * US, 2550 * US, MPI_ROUTINE_Wait, &r2);
		ms_call1(s, 3300 * US, 3400 * US, MPI_ROUTINE_Recv, &r4);
		finalize(s, 4 * MS);
	}
	job_write(&j, dir, 0x7);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.nmsgs, 8);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 0);
	assert_int_equal(m.violations_before, 0);
	/* wildcard Irecvs completed in the other order */
	g = msg_of(&m, call_of(&m, 1, 1));
	assert_int_equal(g->recv_call, call_of(&m, 0, 3));
	assert_int_equal(g->recv_post_call, call_of(&m, 0, 1));
	g = msg_of(&m, call_of(&m, 2, 1));
	assert_int_equal(g->recv_call, call_of(&m, 0, 3));
	assert_int_equal(g->recv_post_call, call_of(&m, 0, 2));
	assert_int_equal(g->bytes, 32);
	/* wildcard blocking receive */
	g = msg_of(&m, call_of(&m, 1, 2));
	assert_int_equal(g->recv_call, call_of(&m, 0, 4));
	assert_int_equal(g->recv_post_call, call_of(&m, 0, 4));
	/* same channel, completed out of order: matched in posting order */
	g = msg_of(&m, call_of(&m, 1, 8));
	assert_int_equal(g->recv_post_call, call_of(&m, 0, 5));
	assert_int_equal(g->recv_call, call_of(&m, 0, 7));
	assert_int_equal(g->bytes, 100);
	g = msg_of(&m, call_of(&m, 1, 9));
	assert_int_equal(g->recv_post_call, call_of(&m, 0, 6));
	assert_int_equal(g->bytes, 200);
	/* persistent requests: each Start is one message, completed by its Wait */
	g = msg_of(&m, call_of(&m, 1, 4));
	assert_int_equal(g->send_done_call, call_of(&m, 1, 5));
	assert_int_equal(g->recv_post_call, call_of(&m, 2, 3));
	assert_int_equal(g->recv_call, call_of(&m, 2, 4));
	g = msg_of(&m, call_of(&m, 1, 6));
	assert_int_equal(g->send_done_call, call_of(&m, 1, 7));
	assert_int_equal(g->recv_post_call, call_of(&m, 2, 5));
	assert_int_equal(g->recv_call, call_of(&m, 2, 6));
	/* an Isend never completed: received, completion unknown */
	g = msg_of(&m, call_of(&m, 1, 10));
	assert_int_equal(g->send_done_call, MPI_NONE);
	assert_int_equal(g->recv_call, call_of(&m, 2, 7));
	done(&e, &m);
}

/* ---- collectives ---------------------------------------------------------------------------- */

/* World collectives, a split communicator {2, 0} (index 2 on rank 0, whose second thread
 * uses it, index 3 on rank 2) and one {1, 2}. */
static void test_collectives(void **state)
{
	const int32_t s_members[2] = {2, 0}, t_members[2] = {1, 2};
	const uint64_t s_key = 1ull << 32 | 0, t_key = 2ull << 32 | 1;
	struct mstream thr = {0};
	struct job j;
	struct experiment e;
	struct mpi_model m;
	const struct mpi_coll *co;
	char dir[128];
	uint32_t tcall;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 3, 1 * MS);
	ms_comm(&j.s[0], 1500 * US, 2, s_key, s_members, 2);
	ms_comm(&j.s[1], 1500 * US, 2, t_key, t_members, 2);
	ms_comm(&j.s[2], 1500 * US, 2, t_key, t_members, 2);
	ms_comm(&j.s[2], 1500 * US, 3, s_key, s_members, 2);
	for (int r = 0; r < 3; r++) {
		struct mitem bar = it_coll(PSC_MPI_ANY, 0, 0, 0);
		struct mitem bc = it_coll(1, r == 1 ? 100 : 0, r == 1 ? 0 : 100, 0);

		ms_call1(&j.s[r], 2 * MS + (uint64_t)r * 100 * US, 2500 * US, MPI_ROUTINE_Barrier,
			 &bar);
		ms_call1(&j.s[r], 3 * MS, 3200 * US, MPI_ROUTINE_Bcast, &bc);
	}
	{
		struct mitem ar = it_coll(PSC_MPI_ANY, 8, 8, 2),
			     ar3 = it_coll(PSC_MPI_ANY, 8, 8, 3);
		struct mitem tb = it_coll(PSC_MPI_ANY, 0, 0, 2);

		/* rank 0's second thread: the communicator's record is in the main stream */
		ms_ext(&thr, 3900 * US, PSC_REC_CLOCK_SYNC, 0, (const uint64_t[]){3900 * US}, 1);
		ms_call1(&thr, 4000 * US, 4100 * US, MPI_ROUTINE_Allreduce, &ar);
		ms_end(&thr, 4100 * US);
		ms_call1(&j.s[2], 4000 * US, 4100 * US, MPI_ROUTINE_Allreduce, &ar3);
		ms_call1(&j.s[1], 4000 * US, 4200 * US, MPI_ROUTINE_Barrier, &tb);
		ms_call1(&j.s[2], 4150 * US, 4300 * US, MPI_ROUTINE_Barrier, &tb);
	}
	for (int r = 0; r < 3; r++) {
		struct mitem bar = it_coll(PSC_MPI_ANY, 0, 0, 0);

		ms_call1(&j.s[r], 5 * MS, 5100 * US, MPI_ROUTINE_Barrier, &bar);
		finalize(&j.s[r], 6 * MS);
	}
	write_mpi_stream(dir, 1000, 1001, &thr, 4096);
	free(thr.w);
	job_write(&j, dir, 0x7);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.ncomms, 6); /* world, 3 x self, the two splits */
	assert_int_equal(m.nlocs, 4);
	assert_int_equal(m.ranks[0].nlocs, 2);
	assert_int_equal(m.ncolls, 5);
	assert_int_equal(m.ncoll_calls, 13);
	/* first barrier on the world, in rank order */
	co = &m.colls[m.calls[call_of(&m, 0, 1)].coll];
	assert_int_equal(m.comms[co->comm].key, 0);
	assert_int_equal(co->routine, MPI_ROUTINE_Barrier);
	assert_int_equal(co->root, -1);
	assert_int_equal(co->n, 3);
	assert_int_equal(co->nmissing, 0);
	for (int r = 0; r < 3; r++)
		assert_int_equal(m.coll_calls[co->first + r], call_of(&m, r, 1));
	co = &m.colls[m.calls[call_of(&m, 2, 2)].coll];
	assert_int_equal(co->routine, MPI_ROUTINE_Bcast);
	assert_int_equal(co->root, 1);
	assert_int_equal(m.coll_calls[co->first + 1], call_of(&m, 1, 2));
	/* the split communicator: communicator rank 0 is world rank 2 */
	tcall = m.locs[m.ranks[0].first_loc + 1].first_call;
	assert_int_equal(m.locs[m.ranks[0].first_loc + 1].tid, 1001);
	co = &m.colls[m.calls[tcall].coll];
	assert_int_equal(m.comms[co->comm].key, s_key);
	assert_int_equal(co->routine, MPI_ROUTINE_Allreduce);
	assert_int_equal(co->n, 2);
	assert_int_equal(co->nmissing, 0);
	assert_int_equal(m.coll_calls[co->first], call_of(&m, 2, 3));
	assert_int_equal(m.coll_calls[co->first + 1], tcall);
	co = &m.colls[m.calls[call_of(&m, 1, 3)].coll];
	assert_int_equal(m.comms[co->comm].key, t_key);
	assert_int_equal(m.coll_calls[co->first], call_of(&m, 1, 3));
	assert_int_equal(m.coll_calls[co->first + 1], call_of(&m, 2, 4));
	/* the last barrier: the world's third operation */
	co = &m.colls[m.calls[call_of(&m, 0, 3)].coll];
	assert_int_equal(m.comms[co->comm].key, 0);
	assert_int_equal(m.coll_calls[co->first + 2], call_of(&m, 2, 5));
	assert_int_equal(m.calls[call_of(&m, 1, 4)].coll, m.calls[call_of(&m, 0, 3)].coll);
	done(&e, &m);
}

/* ---- clocks --------------------------------------------------------------------------------- */

/*
 * Rank 1's clock: 5 ms behind rank 0's at local 1 ms, 5.001 ms behind at local 101 ms (10
 * ppm drift): rank 0's time = local + 5 ms + (local - 1 ms) / 100000. Rank 2 measured at
 * init only: 0.5 ms ahead.
 */
static void test_clock_alignment(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128];
	struct mitem to1 = it_send(1, 0, 4, 0), from0 = it_recv(0, 0, 4, 0, 0);
	struct mitem to0 = it_send(0, 0, 4, 0), from2 = it_recv(2, 0, 4, 0, 0);

	(void)state;
	new_dir(dir, sizeof(dir));
	memset(&j, 0, sizeof(j));
	j.world = 3;
	ms_begin(&j.s[0], 1 * MS, 0, 3);
	ms_clock(&j.s[0], 1001 * US, PSC_MPI_CLOCK_INIT, 1001 * US, 0, 500);
	ms_call1(&j.s[0], 9 * MS, 9 * MS + 500, MPI_ROUTINE_Send, &to1);
	ms_call1(&j.s[0], 19 * MS, 20150 * US, MPI_ROUTINE_Recv, &from2);
	ms_ext(&j.s[0], 101 * MS, PSC_REC_MPI_ENTER, MPI_ROUTINE_Finalize, NULL, 0);
	ms_clock(&j.s[0], 101 * MS + 500, PSC_MPI_CLOCK_FINALIZE, 101 * MS, 0, 500);
	ms_leave(&j.s[0], 101 * MS + 1000, MPI_ROUTINE_Finalize, 0, NULL, 0);

	ms_begin(&j.s[1], 1 * MS, 1, 3);
	ms_clock(&j.s[1], 1001 * US, PSC_MPI_CLOCK_INIT, 1 * MS, 5 * MS, 500);
	ms_call1(&j.s[1], 5 * MS, 5100 * US, MPI_ROUTINE_Recv, &from0);
	ms_ext(&j.s[1], 101 * MS, PSC_REC_MPI_ENTER, MPI_ROUTINE_Finalize, NULL, 0);
	ms_clock(&j.s[1], 101 * MS + 500, PSC_MPI_CLOCK_FINALIZE, 101 * MS, 5 * MS + 1000, 500);
	ms_leave(&j.s[1], 101 * MS + 1000, MPI_ROUTINE_Finalize, 0, NULL, 0);

	ms_begin(&j.s[2], 1500 * US, 2, 3);
	ms_clock(&j.s[2], 1501 * US, PSC_MPI_CLOCK_INIT, 1 * MS, -500 * (int64_t)US, 500);
	ms_call1(&j.s[2], 20500 * US, 20600 * US, MPI_ROUTINE_Send, &to0);
	for (int r = 0; r < 3; r++)
		ms_end(&j.s[r], 102 * MS);
	job_write(&j, dir, 0x7);

	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_true(m.clock_aligned);
	assert_int_equal(m.violations_before, 0);
	assert_int_equal(m.ranks[1].clock[1].offset_ns, 5 * MS + 1000);
	/* rank 1: Init, the receive, Finalize on rank 0's clock */
	assert_int_equal(m.calls[call_of(&m, 1, 0)].enter_ns, 6 * MS);
	assert_int_equal(m.calls[call_of(&m, 1, 0)].leave_ns, 6001 * US);
	assert_int_equal(m.calls[call_of(&m, 1, 1)].enter_ns, 10 * MS + 40);
	assert_int_equal(m.calls[call_of(&m, 1, 1)].leave_ns, 10100 * US + 41);
	assert_int_equal(m.calls[call_of(&m, 1, 2)].enter_ns, 106 * MS + 1000);
	assert_int_equal(m.calls[call_of(&m, 1, 2)].leave_ns, 106 * MS + 2000);
	/* rank 2: one offset */
	assert_int_equal(m.calls[call_of(&m, 2, 0)].enter_ns, 1 * MS);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].enter_ns, 20 * MS);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].leave_ns, 20100 * US);
	/* rank 0 unchanged */
	assert_int_equal(m.calls[call_of(&m, 0, 1)].enter_ns, 9 * MS);
	assert_int_equal(m.ranks[1].start_ns, 6 * MS);
	assert_int_equal(m.start_ns, 1 * MS);
	assert_int_equal(m.end_ns, 106 * MS + 2000);
	done(&e, &m);

	/* as recorded, rank 1 receives 3.9 ms before rank 0 sends, rank 0 0.35 ms before
	 * rank 2 sends */
	load(dir, &e, &m, MPI_BUILD_ALIGNED | MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.violations_before, 2);
	assert_int_equal(m.violations_after, 2);
	assert_int_equal(m.calls[call_of(&m, 1, 1)].leave_ns, 5100 * US);
	done(&e, &m);
}

/* ---- causality ------------------------------------------------------------------------------ */

static void write_causality(const char *dir)
{
	struct job j;
	struct mitem s01 = it_send(1, 1, 4, 0), r10 = it_recv(0, 1, 4, 0, 0);
	struct mitem s12 = it_send(2, 2, 4, 0), r21 = it_recv(1, 2, 4, 0, 0);
	struct mitem s20 = it_send(0, 3, 4, 0), r02 = it_recv(2, 3, 4, 0, 0);

	job_begin(&j, 3, 100 * US);
	ms_call1(&j.s[0], 1000 * US, 1000 * US + 500, MPI_ROUTINE_Send, &s01);
	ms_call1(&j.s[0], 3000 * US, 3000 * US + 500, MPI_ROUTINE_Send, &s01);
	ms_call1(&j.s[0], 4000 * US, 4900 * US, MPI_ROUTINE_Recv, &r02);
	/* rank 1: the first message took 200 ns; the second ends 0.2 ms before it was sent */
	ms_call1(&j.s[1], 900 * US, 1000 * US + 200, MPI_ROUTINE_Recv, &r10);
	ms_call1(&j.s[1], 1500 * US, 1600 * US, MPI_ROUTINE_Iprobe, NULL);
	ms_call1(&j.s[1], 2500 * US, 2800 * US, MPI_ROUTINE_Recv, &r10);
	ms_call1(&j.s[1], 3000 * US, 3000 * US + 100, MPI_ROUTINE_Send, &s12);
	/* rank 2: fine as recorded, a violation once rank 1 has moved */
	ms_call1(&j.s[2], 2000 * US, 2100 * US, MPI_ROUTINE_Iprobe, NULL);
	ms_call1(&j.s[2], 2900 * US, 3100 * US, MPI_ROUTINE_Recv, &r21);
	ms_call1(&j.s[2], 5000 * US, 5000 * US + 100, MPI_ROUTINE_Send, &s20);
	for (int r = 0; r < 3; r++)
		finalize(&j.s[r], 6 * MS);
	job_write(&j, dir, 0x7);
}

/* A rank's range runs from its first to its last record, MPI or not: rank 1 computes in main
 * from 200 us before MPI_Init and until 121 ms, 20 ms after MPI_Finalize, on a clock 5 ms
 * ahead of rank 0's that drifts 1000 ns per 100 ms. Both ends are aligned as its calls are. */
static void test_rank_span(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	memset(&j, 0, sizeof(j));
	j.world = 2;
	ms_begin(&j.s[0], 1 * MS, 0, 2);
	ms_clock(&j.s[0], 1001 * US, PSC_MPI_CLOCK_INIT, 1001 * US, 0, 500);
	finalize(&j.s[0], 101 * MS);

	ms_sync(&j.s[1], 200 * US);
	ms_func(&j.s[1], 200 * US, 1, 0x1000);
	ms_begin(&j.s[1], 1 * MS, 1, 2);
	ms_clock(&j.s[1], 1001 * US, PSC_MPI_CLOCK_INIT, 1 * MS, 5 * MS, 500);
	ms_ext(&j.s[1], 101 * MS, PSC_REC_MPI_ENTER, MPI_ROUTINE_Finalize, NULL, 0);
	ms_clock(&j.s[1], 101 * MS + 500, PSC_MPI_CLOCK_FINALIZE, 101 * MS, 5 * MS + 1000, 500);
	ms_leave(&j.s[1], 101 * MS + 1000, MPI_ROUTINE_Finalize, 0, NULL, 0);
	ms_func(&j.s[1], 121 * MS, 0, 0x1000);
	ms_end(&j.s[1], 121 * MS);
	job_write(&j, dir, 0x3);

	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	/* the calls as before: Init at 6 ms, Finalize left at 106 ms + 2000 */
	assert_int_equal(m.calls[call_of(&m, 1, 0)].enter_ns, 6 * MS);
	assert_int_equal(m.calls[call_of(&m, 1, 1)].leave_ns, 106 * MS + 2000);
	/* 200 us: offset 5 ms - 8 ns; 121 ms: offset 5 ms + 1200 ns */
	assert_int_equal(m.ranks[1].start_ns, 200 * US + 5 * MS - 8);
	assert_int_equal(m.ranks[1].end_ns, 121 * MS + 5 * MS + 1200);
	/* rank 0 made only MPI calls (its end record does not count) */
	assert_int_equal(m.ranks[0].start_ns, 1 * MS);
	assert_int_equal(m.ranks[0].end_ns, 101 * MS + 1000);
	assert_int_equal(m.start_ns, 1 * MS);
	assert_int_equal(m.end_ns, 126 * MS + 1200);
	done(&e, &m);
}

static void test_causality(void **state)
{
	struct experiment e;
	struct mpi_model m;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_causality(dir);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.nmsgs, 4);
	assert_int_equal(m.violations_before, 2);
	assert_int_equal(m.violations_after, 0);
	assert_int_equal(m.max_correction_ns, 200600);
	assert_ordered(&m);
	/* rank 1: the receive ends at the send's start + 200 ns (the smallest latency), the
	 * Iprobe before it takes its share of the 200200 ns, later events all of it */
	assert_int_equal(m.calls[call_of(&m, 1, 1)].leave_ns, 1000 * US + 200);
	assert_int_equal(m.calls[call_of(&m, 1, 2)].enter_ns, 1555595);
	assert_int_equal(m.calls[call_of(&m, 1, 2)].leave_ns, 1666718);
	assert_int_equal(m.calls[call_of(&m, 1, 3)].enter_ns, 2666829);
	assert_int_equal(m.calls[call_of(&m, 1, 3)].leave_ns, 3000 * US + 200);
	assert_int_equal(m.calls[call_of(&m, 1, 4)].enter_ns, 3200200);
	assert_int_equal(m.calls[call_of(&m, 1, 5)].leave_ns, 6 * MS + 1000 + 200200);
	/* rank 2: moved by 100400 ns, amortised from its first event */
	assert_int_equal(m.calls[call_of(&m, 2, 0)].enter_ns, 100 * US);
	assert_int_equal(m.calls[call_of(&m, 2, 0)].leave_ns, 101033);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].enter_ns, 2063586);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].leave_ns, 2166933);
	assert_int_equal(m.calls[call_of(&m, 2, 2)].enter_ns, 2993706);
	assert_int_equal(m.calls[call_of(&m, 2, 2)].leave_ns, 3200400);
	assert_int_equal(m.calls[call_of(&m, 2, 3)].enter_ns, 5100400);
	/* rank 0: its receive from rank 2, amortised back to its previous send */
	assert_int_equal(m.calls[call_of(&m, 0, 2)].leave_ns, 3000500);
	assert_int_equal(m.calls[call_of(&m, 0, 3)].enter_ns, 4105553);
	assert_int_equal(m.calls[call_of(&m, 0, 3)].leave_ns, 5100600);
	assert_int_equal(m.calls[call_of(&m, 0, 4)].enter_ns, 6 * MS + 200600);
	assert_int_equal(m.end_ns, 6 * MS + 1000 + 200600);
	done(&e, &m);

	load(dir, &e, &m, MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.violations_before, 2);
	assert_int_equal(m.violations_after, 2);
	assert_int_equal(m.max_correction_ns, 0);
	assert_int_equal(m.calls[call_of(&m, 1, 3)].leave_ns, 2800 * US);
	done(&e, &m);
}

/* ---- bad input ------------------------------------------------------------------------------ */

/* A world of 4 without rank 3, rank 2 cut short inside a barrier, rank 1 lost records,
 * sends without receives and a receive without a send. */
static void test_bad_input(void **state)
{
	struct job j;
	struct experiment e;
	struct mpi_model m;
	char dir[128];
	struct mitem s01 = it_send(1, 1, 4, 0), s03 = it_send(3, 1, 4, 0);
	struct mitem r10 = it_recv(0, 1, 4, 0, 0), r12 = it_recv(2, 4, 4, 0, 0);
	struct mitem bar = it_coll(PSC_MPI_ANY, 0, 0, 0), bcast = it_coll(0, 4, 0, 0);
	const struct mpi_message *g;
	const struct mpi_coll *co;
	uint32_t r12_item;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 4, 100 * US);
	ms_call1(&j.s[0], 1000 * US, 1010 * US, MPI_ROUTINE_Send, &s01);
	ms_call1(&j.s[0], 1100 * US, 1110 * US, MPI_ROUTINE_Send, &s01);
	ms_call1(&j.s[0], 1200 * US, 1210 * US, MPI_ROUTINE_Send, &s03);
	ms_call1(&j.s[0], 2000 * US, 2100 * US, MPI_ROUTINE_Barrier, &bar);
	ms_call1(&j.s[0], 2200 * US, 2300 * US, MPI_ROUTINE_Bcast, &bcast);
	finalize(&j.s[0], 3 * MS);
	ms_call1(&j.s[1], 900 * US, 1050 * US, MPI_ROUTINE_Recv, &r10);
	ms_call1(&j.s[1], 1300 * US, 1400 * US, MPI_ROUTINE_Recv, &r12);
	ms_call1(&j.s[1], 2000 * US, 2100 * US, MPI_ROUTINE_Barrier, &bar);
	ms_call1(&j.s[1], 2200 * US, 2300 * US, MPI_ROUTINE_Allreduce, &bar);
	finalize(&j.s[1], 3 * MS);
	ms_ext(&j.s[2], 2000 * US, PSC_REC_MPI_ENTER, MPI_ROUTINE_Barrier, NULL, 0);
	j.s[2].cut = j.s[2].n; /* the rest is in a chunk cut short */
	ms_leave(&j.s[2], 2100 * US, MPI_ROUTINE_Barrier, 0, &bar, 1);
	finalize(&j.s[2], 3 * MS);
	job_write(&j, dir, 0x7);
	write_mpi_proc(dir, 1001, 1, 5); /* rank 1 lost 5 records */

	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.world_size, 4);
	assert_false(m.ranks[3].present);
	assert_true(m.ranks[2].present);
	assert_int_equal(m.nmsgs, 3);
	assert_int_equal(m.unmatched_sends, 2);
	assert_int_equal(m.unmatched_recvs, 1);
	g = msg_of(&m, call_of(&m, 0, 1));
	assert_int_equal(g->recv_call, call_of(&m, 1, 1));
	g = msg_of(&m, call_of(&m, 0, 2));
	assert_int_equal(g->recv_call, MPI_NONE);
	assert_int_equal(g->recv_post_call, MPI_NONE);
	g = msg_of(&m, call_of(&m, 0, 3));
	assert_int_equal(g->dst, 3);
	assert_int_equal(g->recv_call, MPI_NONE);
	r12_item = m.calls[call_of(&m, 1, 2)].first_item;
	assert_int_equal(m.items[r12_item].kind, PSC_MPI_ITEM_RECV);
	assert_int_equal(m.items[r12_item].msg, MPI_NONE);
	/* rank 2's barrier: closed at its stream's last record, without its items */
	assert_int_equal(m.locs[m.ranks[2].first_loc].ncalls, 2);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].routine, MPI_ROUTINE_Barrier);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].enter_ns, 2000 * US);
	assert_int_equal(m.calls[call_of(&m, 2, 1)].leave_ns, 2000 * US);
	assert_int_equal(m.ncolls, 2);
	co = &m.colls[0];
	assert_int_equal(co->n, 2);
	assert_int_equal(co->nmissing, 2);
	/* a Bcast on rank 0 meets an Allreduce on rank 1: matched by position, said */
	co = &m.colls[1];
	assert_int_equal(co->routine, MPI_ROUTINE_Bcast);
	assert_int_equal(co->root, 0);
	assert_int_equal(m.coll_calls[co->first + 1], call_of(&m, 1, 4));
	assert_int_equal(m.ranks[1].lost_records, 5);
	assert_true(has_warning(&m, "rank 3 of 4: no streams"));
	assert_true(has_warning(&m, "rank 1: 5 records lost"));
	assert_true(has_warning(&m, "rank 2: thread 1002 ends inside MPI_Barrier"));
	assert_true(has_warning(&m, "rank 2: thread 1002: stream cut short at byte"));
	assert_true(has_warning(&m, "2 of 2 collective operations miss members (rank 2 first)"));
	assert_true(has_warning(&m, "1 collective operations mix routines (operation 1 first)"));
	assert_int_equal(m.nwarnings, 6);
	done(&e, &m);
}

static void test_no_mpi(void **state)
{
	struct words s = {{0}, 0};
	struct experiment e;
	struct mpi_model m;
	char dir[128], err[512] = "", want[600];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "work");
	w_enter(&s, 1000, 1);
	w_leave(&s, 2000, 1);
	w_end(&s, 2000);
	write_stream(dir, 100, 100, &s, NULL, 0);
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	mpi_model_init(&m);
	assert_int_equal(mpi_model_load(&m, &e, 0, err, sizeof(err)), -ENODATA);
	snprintf(want, sizeof(want), "%s: no MPI records (record with perfscope record --mpi)",
		 dir);
	assert_string_equal(err, want);
	done(&e, &m);
}

/* ---- throughput ----------------------------------------------------------------------------- */

/* 4 ranks in a ring, each iteration: Irecv from the left, Isend to the right, Waitall, and
 * every 4th an Allreduce: N calls in all. Prints the load + build rate. */
static int bench(long n)
{
	const int world = 4;
	struct job j;
	struct experiment e;
	struct mpi_model m;
	struct timespec a, b;
	char dir[128], err[512];
	long iters = 0;
	double s;

	snprintf(synth_top, sizeof(synth_top), "/tmp/psc-bench-XXXXXX");
	if (!mkdtemp(synth_top))
		return 1;
	new_dir(dir, sizeof(dir));
	job_begin(&j, world, 1 * MS);
	for (int r = 0; r < world; r++) {
		uint64_t t = 2 * MS;
		long k = 0;

		for (long i = 0; k < n / world - 2; i++, t += 10 * US) {
			uint64_t q = 2 * (uint64_t)i + 1;
			struct mitem ir = it_irecv((r + world - 1) % world, 0, 64, q, 0);
			struct mitem is = it_isend((r + 1) % world, 0, 64, q + 1, 0);
			struct mitem wa[2] = {it_recv((r + world - 1) % world, 0, 64, q, 0),
					      it_done(q + 1)};
			struct mitem ar = it_coll(PSC_MPI_ANY, 8, 8, 0);

			ms_call1(&j.s[r], t, t + 100, MPI_ROUTINE_Irecv, &ir);
			ms_call1(&j.s[r], t + 200, t + 300, MPI_ROUTINE_Isend, &is);
			ms_call(&j.s[r], t + 400, t + 5 * US, MPI_ROUTINE_Waitall, 0x4100, wa, 2);
			k += 3;
			if (i % 4 == 3) {
				ms_call1(&j.s[r], t + 6 * US, t + 9 * US, MPI_ROUTINE_Allreduce,
					 &ar);
				k++;
			}
			if (r == 0)
				iters = i + 1;
		}
		finalize(&j.s[r], t + 1 * MS);
	}
	job_write(&j, dir, 0xf);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (experiment_open(&e, dir, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 1;
	mpi_model_init(&m);
	if (mpi_model_load(&m, &e, 0, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%zu calls (%ld iterations per rank), %zu messages, %zu collectives: "
	       "open + load + build %.3f s, %.2f M calls/s, %.2f M enter+leave events/s\n",
	       m.ncalls, iters, m.nmsgs, m.ncolls, s, (double)m.ncalls / s / 1e6,
	       2.0 * (double)m.ncalls / s / 1e6);
	done(&e, &m);
	return synth_remove_top(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring),	cmocka_unit_test(test_nonblocking),
	    cmocka_unit_test(test_collectives), cmocka_unit_test(test_clock_alignment),
	    cmocka_unit_test(test_causality),	cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_no_mpi),	cmocka_unit_test(test_rank_span),
	};

	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return bench(atol(argv[2]));
	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
