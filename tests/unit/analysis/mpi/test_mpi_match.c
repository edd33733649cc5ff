/*
 * test_mpi_match.c - message matching (mpi-match.c) where the order the items are stored in
 * is not the order MPI matches them in. All times in ns on one clock (MPI_BUILD_ALIGNED),
 * every message from rank 0 to rank 1 with tag 5 on communicator 0 (one channel) unless
 * said.
 *  - Two threads of rank 0 send in turns (10, 20, 30, 40 ns; thread A at 10 and 30): the
 *    receives take them in time order, not thread by thread, while the messages stay in the
 *    order of their send items.
 *  - An Isend cancelled before a Send, two receives: the first takes the Send, the second is
 *    unmatched; the cancelled one is no message and leaves no hole in the channel (a message
 *    with tag 6, the next channel, is matched as it is).
 *  - Two Irecvs completed in the reverse order: each takes the send of its posting order, and
 *    the message names the Irecv that posted it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "mpi-model-build.h"
#include "format/mpi-routines.h"

#define R(name) MPI_ROUTINE_##name

/* A location of rank R, thread TID, where the next calls go. */
static void loc(struct mpi_model *m, int r, pid_t tid)
{
	assert_true(mpi_model_add_loc(m, r, tid) >= 0);
}

/* A call of the last location, from T to T + 5, with one item of KIND (peer PEER, tag TAG,
 * communicator 0; a cancellation has neither tag nor communicator). */
static uint32_t call_tag(struct mpi_model *m, unsigned routine, int64_t t, unsigned kind, int peer,
			 uint64_t bytes, uint64_t request, int32_t tag)
{
	uint32_t c = call(m, routine, t, t + 5);
	struct mpi_item it = {.kind = (uint8_t)kind,
			      .comm = kind == PSC_MPI_ITEM_CANCEL ? MPI_NONE : 0,
			      .peer = peer,
			      .tag = kind == PSC_MPI_ITEM_CANCEL ? 0 : tag,
			      .bytes = bytes,
			      .request = request};

	assert_int_equal(mpi_model_add_item(m, &it), 0);
	return c;
}

/* call_tag with tag 5. */
static uint32_t call1(struct mpi_model *m, unsigned routine, int64_t t, unsigned kind, int peer,
		      uint64_t bytes, uint64_t request)
{
	return call_tag(m, routine, t, kind, peer, bytes, request, 5);
}

/* The message whose send is call C. */
static const struct mpi_message *msg_of_send(const struct mpi_model *m, uint32_t c)
{
	for (size_t i = 0; i < m->nmsgs; i++)
		if (m->msgs[i].send_call == c)
			return &m->msgs[i];
	fail_msg("no message sent by call %u", c);
	return NULL;
}

static void test_threads_in_turns(void **state)
{
	struct mpi_model m;
	uint32_t a10, a30, b20, b40, rc[4];

	(void)state;
	begin(&m, 2);
	loc(&m, 0, 100);
	a10 = call1(&m, R(Send), 10, PSC_MPI_ITEM_SEND, 1, 1, 0);
	a30 = call1(&m, R(Send), 30, PSC_MPI_ITEM_SEND, 1, 3, 0);
	loc(&m, 0, 200);
	b20 = call1(&m, R(Send), 20, PSC_MPI_ITEM_SEND, 1, 2, 0);
	b40 = call1(&m, R(Send), 40, PSC_MPI_ITEM_SEND, 1, 4, 0);
	loc(&m, 1, 101);
	for (int k = 0; k < 4; k++)
		rc[k] =
		    call1(&m, R(Recv), 100 + 100 * k, PSC_MPI_ITEM_RECV, 0, (uint64_t)(10 + k), 0);
	build(&m, MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.nmsgs, 4);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 0);
	/* messages in the order of the send items: thread A's, then thread B's */
	assert_int_equal(m.msgs[0].send_call, a10);
	assert_int_equal(m.msgs[1].send_call, a30);
	assert_int_equal(m.msgs[2].send_call, b20);
	assert_int_equal(m.msgs[3].send_call, b40);
	/* the receives in the order of the sends' times; bytes as the receiver says */
	assert_int_equal(msg_of_send(&m, a10)->recv_call, rc[0]);
	assert_int_equal(msg_of_send(&m, b20)->recv_call, rc[1]);
	assert_int_equal(msg_of_send(&m, a30)->recv_call, rc[2]);
	assert_int_equal(msg_of_send(&m, b40)->recv_call, rc[3]);
	assert_int_equal(msg_of_send(&m, b20)->bytes, 11);
	assert_int_equal(msg_of_send(&m, b20)->recv_post_call, rc[1]);
	for (size_t i = 0; i < m.nmsgs; i++) {
		const struct mpi_message *g = &m.msgs[i];

		assert_int_equal(g->src, 0);
		assert_int_equal(g->dst, 1);
		assert_int_equal(g->send_done_call, g->send_call);
		assert_int_equal(m.items[m.calls[g->send_call].first_item].msg, i);
		assert_int_equal(m.items[m.calls[g->recv_call].first_item].msg, i);
	}
	mpi_model_release(&m);
}

static void test_cancelled_send(void **state)
{
	struct mpi_model m;
	uint32_t isend, send, recv, send6, recv6;

	(void)state;
	begin(&m, 2);
	loc(&m, 0, 100);
	isend = call1(&m, R(Isend), 10, PSC_MPI_ITEM_ISEND, 1, 8, 7);
	call1(&m, R(Cancel), 15, PSC_MPI_ITEM_CANCEL, -1, 0, 7);
	send = call1(&m, R(Send), 20, PSC_MPI_ITEM_SEND, 1, 16, 0);
	send6 = call_tag(&m, R(Send), 30, PSC_MPI_ITEM_SEND, 1, 32, 0, 6);
	loc(&m, 1, 101);
	recv = call1(&m, R(Recv), 100, PSC_MPI_ITEM_RECV, 0, 16, 0);
	call1(&m, R(Recv), 200, PSC_MPI_ITEM_RECV, 0, 8, 0);
	recv6 = call_tag(&m, R(Recv), 300, PSC_MPI_ITEM_RECV, 0, 32, 0, 6);
	build(&m, MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.cancelled_sends, 1);
	assert_true(m.items[m.calls[isend].first_item].flags & MPI_ITEM_F_CANCELLED);
	assert_int_equal(m.items[m.calls[isend].first_item].msg, MPI_NONE);
	assert_int_equal(m.nmsgs, 2);
	assert_int_equal(m.msgs[0].send_call, send);
	assert_int_equal(m.msgs[0].recv_call, recv);
	assert_int_equal(m.msgs[0].bytes, 16);
	assert_int_equal(m.msgs[1].send_call, send6);
	assert_int_equal(m.msgs[1].recv_call, recv6);
	assert_int_equal(m.msgs[1].tag, 6);
	assert_int_equal(m.unmatched_sends, 0);
	assert_int_equal(m.unmatched_recvs, 1);
	assert_int_equal(m.items[m.calls[recv + 1].first_item].msg, MPI_NONE);
	mpi_model_release(&m);
}

static void test_irecvs_completed_reversed(void **state)
{
	struct mpi_model m;
	uint32_t s1, s2, post1, post2, wait2, wait1;

	(void)state;
	begin(&m, 2);
	loc(&m, 0, 100);
	s1 = call1(&m, R(Send), 10, PSC_MPI_ITEM_SEND, 1, 1, 0);
	s2 = call1(&m, R(Send), 20, PSC_MPI_ITEM_SEND, 1, 2, 0);
	loc(&m, 1, 101);
	post1 = call1(&m, R(Irecv), 50, PSC_MPI_ITEM_IRECV, 0, 0, 1);
	post2 = call1(&m, R(Irecv), 60, PSC_MPI_ITEM_IRECV, 0, 0, 2);
	wait2 = call1(&m, R(Wait), 100, PSC_MPI_ITEM_RECV, 0, 2, 2);
	wait1 = call1(&m, R(Wait), 110, PSC_MPI_ITEM_RECV, 0, 1, 1);
	build(&m, MPI_BUILD_NO_CORRECTION);
	assert_int_equal(m.nmsgs, 2);
	assert_int_equal(msg_of_send(&m, s1)->recv_call, wait1);
	assert_int_equal(msg_of_send(&m, s1)->recv_post_call, post1);
	assert_int_equal(msg_of_send(&m, s2)->recv_call, wait2);
	assert_int_equal(msg_of_send(&m, s2)->recv_post_call, post2);
	assert_int_equal(m.unmatched_recvs, 0);
	mpi_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_in_turns),
	    cmocka_unit_test(test_cancelled_send),
	    cmocka_unit_test(test_irecvs_completed_reversed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
