/*
 * test_otf2_icoll.c - non-blocking collectives through OTF2: a synthetic experiment whose
 * I-calls and completions carry COLL_REQ items is exported (NonBlockingCollectiveRequest in
 * the I-call, NonBlockingCollectiveComplete in the completing Wait/Test) and read back by
 * mpi_model_load_otf2 with the same items (the I-call's COLL item gets its completion's
 * communicator, root and bytes) and the same waits, to the ns, also when another thread of the
 * rank completes it, and when two threads of a rank reuse a request id (paired by time). A
 * request never completed is left out of the collectives with a warning;
 * a completion without its start is left alone.
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

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-waits.h"
#include "export/otf2-export.h"
#include "model/symbols.h"
#include "synth-exp.h"
#include "synth-mpi.h"

#define R(name) MPI_ROUTINE_##name

/* Under the sanitizers: libopen-trace-format2 keeps a few allocations of its own. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2\n";
}

/* The communicator of index 2 in every rank: world ranks {1, 2, 0}, so that a root's rank in
 * it differs from its world rank. */
static const int32_t rot[3] = {1, 2, 0};

static struct mitem it_coll_req(uint64_t req, uint32_t comm)
{
	return (struct mitem){
	    {psc_mpi_item_word0(PSC_MPI_ITEM_COLL_REQ, 0, comm), psc_mpi_pack2(-1, 0), 0, req}};
}

/* A non-blocking collective on COMM started from T to T + 0.1 ms: root ROOT (world rank),
 * SENT and RECEIVED bytes, request REQ. */
static void istart(struct mstream *s, uint64_t t, unsigned routine, int32_t root, uint64_t sent,
		   uint64_t received, uint64_t req, uint32_t comm)
{
	struct mitem it[2] = {it_coll(root, sent, received, comm), it_coll_req(req, comm)};

	ms_call(s, t, t + 100 * US, routine, 0x402000 + routine * 16, it, 2);
}

/* A completion (Wait, Test) of the collective request REQ from ENTER to LEAVE. */
static void idone(struct mstream *s, uint64_t enter, uint64_t leave, unsigned routine, uint64_t req,
		  uint32_t comm)
{
	struct mitem it = it_coll_req(req, comm);

	ms_call(s, enter, leave, routine, 0x403000 + routine * 16, &it, 1);
}

/*
 * 3 ranks (ms): Iallreduce on the world started at 10, 20, 50 (rank 2 last), completed by
 * rank 0's Wait 11..52, rank 1's Waitall 30..56 with a receive from rank 2 (sent at 55) and
 * rank 2's Wait 56..57; Ibcast on {1, 2, 0} with root world rank 1 (its rank 0 there) started
 * at 62 (rank 0), 70 (rank 1, the root), 58 (rank 2), completed by Waits and rank 2's Test.
 * OPEN: rank 2 also starts an Ibarrier at 74 it never completes, after the others did, and
 * completes a request at 76 it never started.
 */
static void write_job(const char *dir, int open)
{
	struct job j;

	job_begin(&j, 3, 1 * MS);
	for (int r = 0; r < 3; r++)
		ms_comm(&j.s[r], 2 * MS, 2, 5ull << 32, rot, 3);
	{
		struct mstream *s = &j.s[0];

		istart(s, 10 * MS, R(Iallreduce), -1, 8, 8, 7, 0);
		idone(s, 11 * MS, 52 * MS, R(Wait), 7, 0);
		istart(s, 62 * MS, R(Ibcast), 1, 0, 64, 8, 2);
		idone(s, 63 * MS, 71 * MS, R(Wait), 8, 2);
		if (open) {
			istart(s, 73 * MS, R(Ibarrier), -1, 0, 0, 9, 0);
			idone(s, 73200 * US, 75 * MS, R(Wait), 9, 0);
		}
		finalize(s, 80 * MS);
	}
	{
		struct mstream *s = &j.s[1];
		struct mitem irecv = it_irecv(2, 4, 64, 4, 0);
		struct mitem all[2] = {it_recv(2, 4, 64, 4, 0), it_coll_req(3, 0)};

		istart(s, 20 * MS, R(Iallreduce), -1, 8, 8, 3, 0);
		ms_call1(s, 20200 * US, 20300 * US, R(Irecv), &irecv);
		ms_call(s, 30 * MS, 56 * MS, R(Waitall), 0x404000, all, 2);
		istart(s, 70 * MS, R(Ibcast), 1, 64, 64, 5, 2);
		idone(s, 71 * MS, 72 * MS, R(Wait), 5, 2);
		if (open) {
			istart(s, 73 * MS, R(Ibarrier), -1, 0, 0, 6, 0);
			idone(s, 73200 * US, 75 * MS, R(Wait), 6, 0);
		}
		finalize(s, 80 * MS);
	}
	{
		struct mstream *s = &j.s[2];
		struct mitem send = it_send(1, 4, 64, 0);

		istart(s, 50 * MS, R(Iallreduce), -1, 8, 8, 9, 0);
		ms_call1(s, 55 * MS, 55100 * US, R(Send), &send);
		idone(s, 56 * MS, 57 * MS, R(Wait), 9, 0);
		istart(s, 58 * MS, R(Ibcast), 1, 0, 64, 10, 2);
		idone(s, 65 * MS, 72 * MS, R(Test), 10, 2);
		if (open) {
			istart(s, 74 * MS, R(Ibarrier), -1, 0, 0, 11, 0);
			/* a completion whose start is not in the trace */
			idone(s, 76 * MS, 77 * MS, R(Wait), 99, 0);
		}
		finalize(s, 80 * MS);
	}
	job_write(&j, dir, 7);
}

/* Export DIR's experiment (E, M) and read the archive back into BACK. */
static void round_trip(const char *dir, struct experiment *e, const struct mpi_model *m,
		       struct mpi_model *back)
{
	char archive[160], anchor[192], err[1024];
	struct otf2_export_stats st;
	struct symtab syms;

	assert_int_equal(symtab_init(&syms, dir), 0);
	snprintf(archive, sizeof(archive), "%s/archive", dir);
	if (otf2_export(archive, e, &syms, m, &st, err, sizeof(err)))
		fail_msg("otf2_export: %s", err);
	symtab_release(&syms);
	snprintf(anchor, sizeof(anchor), "%s/" OTF2_EXPORT_NAME ".otf2", archive);
	mpi_model_init(back);
	if (mpi_model_load_otf2(back, anchor, 0, err, sizeof(err)))
		fail_msg("mpi_model_load_otf2: %s", err);
	print_warnings(back);
	assert_int_equal(otf2_export_remove(archive), 0);
}

/* Items I of A and J of B say the same (communicators by their members). */
static void assert_same_item(const struct mpi_model *a, size_t i, const struct mpi_model *b,
			     size_t j)
{
	const struct mpi_item *x = &a->items[i], *y = &b->items[j];

	assert_int_equal(x->kind, y->kind);
	if (x->kind == PSC_MPI_ITEM_IRECV) {
		/* OTF2's MpiIrecvRequest has neither source nor tag nor buffer size */
		assert_int_equal(x->request, y->request);
		return;
	}
	assert_int_equal(x->peer, y->peer);
	assert_int_equal(x->bytes, y->bytes);
	/* one word: a COLL item's bytes received, the others' request */
	if (x->kind == PSC_MPI_ITEM_COLL)
		assert_int_equal(x->bytes2, y->bytes2);
	else
		assert_int_equal(x->request, y->request);
	assert_int_equal(x->comm == MPI_NONE, y->comm == MPI_NONE);
	if (x->comm != MPI_NONE) {
		assert_int_equal(a->comms[x->comm].size, b->comms[y->comm].size);
		assert_memory_equal(a->comms[x->comm].members, b->comms[y->comm].members,
				    a->comms[x->comm].size * sizeof(int32_t));
	}
}

/* The calls of every rank and their items are the same in A and B (times from the run's
 * start: the archive's count from its first event). */
static void assert_same_calls(const struct mpi_model *a, const struct mpi_model *b)
{
	assert_int_equal(a->ncalls, b->ncalls);
	assert_int_equal(a->nitems, b->nitems);
	for (int r = 0; r < a->world_size; r++) {
		const struct mpi_loc *la = &a->locs[a->ranks[r].first_loc];
		const struct mpi_loc *lb = &b->locs[b->ranks[r].first_loc];

		assert_int_equal(la->ncalls, lb->ncalls);
		for (uint32_t k = 0; k < la->ncalls; k++) {
			const struct mpi_call *x = &a->calls[la->first_call + k];
			const struct mpi_call *y = &b->calls[lb->first_call + k];

			assert_int_equal(x->routine, y->routine);
			assert_int_equal(x->enter_ns - a->start_ns, y->enter_ns - b->start_ns);
			assert_int_equal(x->leave_ns - a->start_ns, y->leave_ns - b->start_ns);
			assert_int_equal(mpi_call_items_end(a, x) - x->first_item,
					 mpi_call_items_end(b, y) - y->first_item);
			for (uint32_t i = 0; i < mpi_call_items_end(a, x) - x->first_item; i++)
				assert_same_item(a, x->first_item + i, b, y->first_item + i);
		}
	}
}

static void assert_same_waits(const struct mpi_model *a, const struct mpi_model *b)
{
	struct mpi_waits wa, wb;

	assert_int_equal(mpi_waits_compute(&wa, a), 0);
	assert_int_equal(mpi_waits_compute(&wb, b), 0);
	assert_int_equal(wa.p, wb.p);
	assert_memory_equal(wa.p2p, wb.p2p, (size_t)wa.p * (size_t)wa.p * sizeof(*wa.p2p));
	assert_memory_equal(wa.coll, wb.coll, (size_t)wa.p * sizeof(*wa.coll));
	assert_memory_equal(wa.total, wb.total, (size_t)wa.p * sizeof(*wa.total));
	assert_memory_equal(wa.pattern, wb.pattern,
			    (size_t)wa.p * MPI_PAT_COUNT * sizeof(*wa.pattern));
	assert_memory_equal(wa.pattern_calls, wb.pattern_calls, sizeof(wa.pattern_calls));
	/* the waits the test_mpi_waits_icoll job has: rank 0 39 at N x N, 7 Late Broadcast */
	assert_int_equal(wb.pattern[0 * MPI_PAT_COUNT + MPI_PAT_WAIT_NXN], 39 * MS);
	assert_int_equal(wb.pattern[0 * MPI_PAT_COUNT + MPI_PAT_LATE_BROADCAST], 7 * MS);
	assert_int_equal(wb.coll[1], 20 * MS);
	assert_int_equal(wb.p2p[1 * 3 + 2], 5 * MS);
	mpi_waits_release(&wa);
	mpi_waits_release(&wb);
}

static void test_icoll_round_trip(void **state)
{
	char dir[128];
	struct experiment e;
	struct mpi_model m, back;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_job(dir, 0);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.ncolls, 2);
	round_trip(dir, &e, &m, &back);
	assert_int_equal(back.nwarnings, 0);
	assert_int_equal(back.ncolls, 2);
	for (size_t i = 0; i < back.ncolls; i++)
		assert_int_equal(back.colls[i].n, 3);
	assert_same_calls(&m, &back);
	assert_same_waits(&m, &back);
	mpi_model_release(&back);
	done(&e, &m);
}

/* Rank 2's Ibarrier is never completed: the archive has its request and no completion, so its
 * communicator is unknown; the others' Ibarrier is a collective that misses rank 2. */
static void test_icoll_open(void **state)
{
	char dir[128];
	struct experiment e;
	struct mpi_model m, back;
	const struct mpi_call *c;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_job(dir, 1);
	load(dir, &e, &m, 0);
	assert_int_equal(m.ncolls, 3);
	round_trip(dir, &e, &m, &back);
	assert_true(has_warning(&back, "1 non-blocking collectives never completed"));
	assert_int_equal(back.ncolls, 3);
	for (size_t i = 0; i < back.ncolls; i++) {
		const struct mpi_coll *co = &back.colls[i];

		assert_int_equal(co->n + co->nmissing, 3);
		assert_int_equal(co->nmissing, co->routine == R(Ibarrier));
	}
	/* the completion without a start: a Wait of nothing in the archive (no event to say
	 * which request it completed), the experiment's keeps its item */
	assert_int_equal(m.calls[call_of(&m, 2, 7)].routine, R(Wait));
	c = &m.calls[call_of(&m, 2, 7)];
	assert_int_equal(mpi_call_items_end(&m, c) - c->first_item, 1);
	assert_int_equal(back.calls[call_of(&back, 2, 7)].routine, R(Wait));
	c = &back.calls[call_of(&back, 2, 7)];
	assert_int_equal(mpi_call_items_end(&back, c) - c->first_item, 0);
	mpi_model_release(&back);
	done(&e, &m);
}

/* Rank 0 starts an Iallreduce on its main thread at 10 ms and waits for it on a second thread
 * (tid 990) from 11 to 30 ms; rank 1 starts it at 25 ms: rank 0 waits 14 ms at N x N, on
 * either side, whichever of its locations the import reads first. */
static void test_icoll_threads(void **state)
{
	char dir[128];
	struct experiment e;
	struct mpi_model m, back;
	struct mstream t = {0};
	struct mpi_waits w;
	struct job j;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 2, 1 * MS);
	istart(&j.s[0], 10 * MS, R(Iallreduce), -1, 8, 8, 7, 0);
	finalize(&j.s[0], 40 * MS);
	ms_sync(&t, 5 * MS);
	idone(&t, 11 * MS, 30 * MS, R(Wait), 7, 0);
	ms_end(&t, 35 * MS);
	istart(&j.s[1], 25 * MS, R(Iallreduce), -1, 8, 8, 3, 0);
	idone(&j.s[1], 25200 * US, 30 * MS, R(Wait), 3, 0);
	finalize(&j.s[1], 40 * MS);
	write_mpi_stream(dir, 1000, 990, &t, 4096);
	free(t.w);
	job_write(&j, dir, 3);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.ranks[0].nlocs, 2);
	round_trip(dir, &e, &m, &back);
	assert_int_equal(back.nwarnings, 0);
	assert_int_equal(back.ranks[0].nlocs, 2);
	assert_int_equal(back.ncolls, 1);
	assert_int_equal(back.colls[0].n, 2);
	assert_int_equal(mpi_waits_compute(&w, &back), 0);
	assert_int_equal(w.pattern[0 * MPI_PAT_COUNT + MPI_PAT_WAIT_NXN], 14 * MS);
	assert_int_equal(w.total[1], 0);
	mpi_waits_release(&w);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(w.pattern[0 * MPI_PAT_COUNT + MPI_PAT_WAIT_NXN], 14 * MS);
	mpi_waits_release(&w);
	mpi_model_release(&back);
	done(&e, &m);
}

/* The COLL item of call C of M (an I-call), which must have one. */
static const struct mpi_item *coll_item(const struct mpi_model *m, const struct mpi_call *c)
{
	for (uint32_t i = c->first_item; i < mpi_call_items_end(m, c); i++)
		if (m->items[i].kind == PSC_MPI_ITEM_COLL)
			return &m->items[i];
	fail_msg("an I-call without its COLL item");
	return NULL;
}

/* Every I-call of M says what it started: an Iallreduce 8 bytes each way, no root; an Ibcast
 * from world rank 1, 64 bytes sent by the root and received by the others. */
static void assert_icoll_items(const struct mpi_model *m)
{
	unsigned n = 0;

	for (size_t i = 0; i < m->ncalls; i++) {
		const struct mpi_call *c = &m->calls[i];
		const struct mpi_item *it;
		int root = mpi_call_rank(m, c) == 1;

		if (mpi_routine_kind(c->routine) != MPI_KIND_ICOLL)
			continue;
		it = coll_item(m, c);
		n++;
		assert_int_not_equal(it->comm, MPI_NONE);
		if (c->routine == R(Iallreduce)) {
			assert_int_equal(it->peer, -1);
			assert_int_equal(it->bytes, 8);
			assert_int_equal(it->bytes2, 8);
		} else {
			assert_int_equal(c->routine, R(Ibcast));
			assert_int_equal(it->peer, 1);
			assert_int_equal(it->bytes, root ? 64 : 0);
			assert_int_equal(it->bytes2, root ? 0 : 64);
		}
	}
	assert_int_equal(n, 4);
}

/*
 * One rank's two threads reuse a request id: rank 0's main thread starts an Iallreduce
 * (request 7) at 10 ms, its thread 990 completes it (Wait 11..30 ms) and then starts an
 * Ibcast from rank 1 with the same request 7 at 50 ms, which the main thread completes (Wait
 * 52..60 ms). Rank 1 starts the Iallreduce at 25 ms and the Ibcast (its root) at 51 ms. Both
 * the export (which completion describes which start) and the import (which start gets which
 * completion's communicator, root and bytes) pair by (rank, request, time): in reading order
 * per location, either location first, the Iallreduce would take the Ibcast's completion.
 */
static void test_icoll_reused_request(void **state)
{
	char dir[128];
	struct experiment e;
	struct mpi_model m, back;
	struct mstream t = {0};
	struct job j;

	(void)state;
	new_dir(dir, sizeof(dir));
	job_begin(&j, 2, 1 * MS);
	istart(&j.s[0], 10 * MS, R(Iallreduce), -1, 8, 8, 7, 0);
	idone(&j.s[0], 52 * MS, 60 * MS, R(Wait), 7, 0);
	finalize(&j.s[0], 70 * MS);
	ms_sync(&t, 5 * MS);
	idone(&t, 11 * MS, 30 * MS, R(Wait), 7, 0);
	istart(&t, 50 * MS, R(Ibcast), 1, 0, 64, 7, 0);
	ms_end(&t, 65 * MS);
	istart(&j.s[1], 25 * MS, R(Iallreduce), -1, 8, 8, 3, 0);
	idone(&j.s[1], 25200 * US, 30 * MS, R(Wait), 3, 0);
	istart(&j.s[1], 51 * MS, R(Ibcast), 1, 64, 0, 4, 0);
	idone(&j.s[1], 51200 * US, 55 * MS, R(Wait), 4, 0);
	finalize(&j.s[1], 70 * MS);
	write_mpi_stream(dir, 1000, 990, &t, 4096);
	free(t.w);
	job_write(&j, dir, 3);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	assert_int_equal(m.ranks[0].nlocs, 2);
	assert_icoll_items(&m);
	round_trip(dir, &e, &m, &back);
	assert_int_equal(back.nwarnings, 0);
	assert_int_equal(back.ranks[0].nlocs, 2);
	assert_icoll_items(&back);
	assert_int_equal(back.ncolls, 2);
	for (size_t i = 0; i < back.ncolls; i++)
		assert_int_equal(back.colls[i].n, 2);
	mpi_model_release(&back);
	done(&e, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_icoll_round_trip),
	    cmocka_unit_test(test_icoll_open),
	    cmocka_unit_test(test_icoll_threads),
	    cmocka_unit_test(test_icoll_reused_request),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
