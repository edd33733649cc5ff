/*
 * test_otf2.c - OTF2 import (otf2-import.c) of the real Score-P traces in tests/data/otf2 (a
 * 2-rank ping-pong: 8 messages each way, 16 KiB to 2 MiB) with every message matched and its
 * exact sizes and tags, the PAPI variant read the same, an unreadable archive's error; and
 * the export (otf2-export.c) of a synthetic 3-rank experiment (messages of every kind,
 * collectives on two communicators, a causality violation the model corrects, a drifting
 * clock) read back through the import with identical calls, times, items, messages and
 * collectives.
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
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "export/otf2-export.h"
#include "model/symbols.h"
#include "synth-exp.h"
#include "synth-mpi.h"

#define DATA PSC_TEST_DATA_DIR "/otf2"

/* Under the sanitizers: OTF2_Reader_Open leaks its half-made archive when it fails (inside
 * libopen-trace-format2, nothing a caller can free). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2\n";
}

static char err[1024];

static size_t count_routine(const struct mpi_model *m, int rank, unsigned routine)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ncalls; i++)
		n += m->calls[i].routine == routine && mpi_call_rank(m, &m->calls[i]) == rank;
	return n;
}

/* The ping-pong: rank 0 sends tag 10 to rank 1, rank 1 answers with tag 20, sizes doubling
 * from 16 KiB to 2 MiB; every message matched from the send call to the receive call. */
static void check_ping_pong(const struct mpi_model *m)
{
	uint64_t bytes[2][8], n[2] = {0, 0};

	assert_int_equal(m->world_size, 2);
	assert_true(m->ranks[0].present);
	assert_true(m->ranks[1].present);
	assert_int_equal(m->nmsgs, 16);
	assert_int_equal(m->unmatched_sends, 0);
	assert_int_equal(m->unmatched_recvs, 0);
	for (int r = 0; r < 2; r++) {
		assert_int_equal(count_routine(m, r, MPI_ROUTINE_Send), 8);
		assert_int_equal(count_routine(m, r, MPI_ROUTINE_Recv), 8);
		assert_int_equal(count_routine(m, r, MPI_ROUTINE_Init), 1);
		assert_int_equal(count_routine(m, r, MPI_ROUTINE_Finalize), 1);
	}
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *msg = &m->msgs[i];
		const struct mpi_call *s = &m->calls[msg->send_call], *r;

		assert_true(msg->src == 0 || msg->src == 1);
		assert_int_equal(msg->dst, 1 - msg->src);
		assert_int_equal(msg->tag, msg->src == 0 ? 10 : 20);
		assert_int_not_equal(msg->recv_call, MPI_NONE);
		r = &m->calls[msg->recv_call];
		assert_int_equal(s->routine, MPI_ROUTINE_Send);
		assert_int_equal(r->routine, MPI_ROUTINE_Recv);
		assert_int_equal(mpi_call_rank(m, s), msg->src);
		assert_int_equal(mpi_call_rank(m, r), msg->dst);
		/* the receive completes after the send started: an effective rate exists */
		assert_true(r->leave_ns > s->enter_ns);
		assert_true(n[msg->src] < 8);
		bytes[msg->src][n[msg->src]++] = msg->bytes;
	}
	for (int r = 0; r < 2; r++) {
		uint64_t sum = 0;

		assert_int_equal(n[r], 8);
		for (int k = 0; k < 8; k++)
			sum += bytes[r][k];
		/* 16 KiB .. 2 MiB, doubling: 16 KiB * (2^8 - 1) */
		assert_int_equal(sum, 16384ull * 255);
	}
	/* times in ns from the trace's start: MPI_Init of rank 1 enters about 85 us in */
	assert_true(m->start_ns >= 0);
	assert_true(m->end_ns - m->start_ns > 1000000);
	assert_true(m->end_ns - m->start_ns < 1000000000);
}

static void test_scorep_ping_pong(void **state)
{
	struct mpi_model m;

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(
	    mpi_model_load_otf2(&m, DATA "/ping-pong-otf2/traces.otf2", 0, err, sizeof(err)), 0);
	check_ping_pong(&m);
	/* MPI_Comm_size and MPI_Comm_rank are not modelled: said, not dropped silently */
	assert_true(m.nwarnings >= 1);
	assert_non_null(strstr(m.warnings[0], "not model"));
	mpi_model_release(&m);
}

static void test_scorep_papi(void **state)
{
	struct mpi_model m;

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(
	    mpi_model_load_otf2(&m, DATA "/ping-pong-otf2-papi/traces.otf2", 0, err, sizeof(err)),
	    0);
	check_ping_pong(&m);
	mpi_model_release(&m);
}

static void test_unreadable(void **state)
{
	struct mpi_model m;
	char dir[] = "/tmp/test_otf2.XXXXXX", path[64];
	FILE *f;

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(
	    mpi_model_load_otf2(&m, "/nonexistent/traces.otf2", 0, err, sizeof(err)) < 0, 1);
	assert_non_null(strstr(err, "/nonexistent/traces.otf2"));
	assert_null(strchr(err, '\n'));
	mpi_model_release(&m);

	/* an anchor file that is not OTF2 */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/traces.otf2", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not an anchor\n", f);
	fclose(f);
	mpi_model_init(&m);
	assert_true(mpi_model_load_otf2(&m, path, 0, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	mpi_model_release(&m);
	unlink(path);
	rmdir(dir);
}

/* ---- export, then import: the same model ---- */

/* Items survive the round trip but for what OTF2 does not carry: a posted receive's source,
 * tag and buffer size (MpiIrecvRequest has only the request id). */
static void assert_same_item(const struct mpi_model *a, const struct mpi_item *x,
			     const struct mpi_model *b, const struct mpi_item *y)
{
	assert_int_equal(x->kind, y->kind);
	if (x->kind != PSC_MPI_ITEM_COLL) /* a COLL item's word is bytes2, checked below */
		assert_int_equal(x->request, y->request);
	if (x->kind == PSC_MPI_ITEM_IRECV || x->kind == PSC_MPI_ITEM_ISEND_DONE ||
	    x->kind == PSC_MPI_ITEM_CANCEL)
		return;
	assert_int_equal(x->flags, y->flags);
	assert_int_equal(x->peer, y->peer);
	assert_int_equal(x->bytes, y->bytes);
	if (x->kind != PSC_MPI_ITEM_COLL) {
		assert_int_equal(x->tag, y->tag);
	} else {
		assert_int_equal(x->bytes2, y->bytes2);
	}
	/* the communicator by its members */
	assert_int_equal(a->comms[x->comm].size, b->comms[y->comm].size);
	assert_memory_equal(a->comms[x->comm].members, b->comms[y->comm].members,
			    a->comms[x->comm].size * sizeof(int32_t));
}

/* A and B describe the same run: the same calls in the same order with times shifted by one
 * constant, the same items, messages and collective operations. */
static void assert_same_model(const struct mpi_model *a, const struct mpi_model *b)
{
	int64_t shift;

	assert_int_equal(a->world_size, b->world_size);
	assert_int_equal(a->ncalls, b->ncalls);
	assert_int_equal(a->nitems, b->nitems);
	assert_int_equal(a->nmsgs, b->nmsgs);
	assert_int_equal(a->ncolls, b->ncolls);
	assert_int_equal(a->unmatched_sends, b->unmatched_sends);
	assert_int_equal(a->unmatched_recvs, b->unmatched_recvs);
	shift = b->calls[0].enter_ns - a->calls[0].enter_ns;
	for (size_t i = 0; i < a->ncalls; i++) {
		const struct mpi_call *x = &a->calls[i], *y = &b->calls[i];

		assert_int_equal(x->routine, y->routine);
		assert_int_equal(mpi_call_rank(a, x), mpi_call_rank(b, y));
		assert_int_equal(x->enter_ns + shift, y->enter_ns);
		assert_int_equal(x->leave_ns + shift, y->leave_ns);
		assert_int_equal(mpi_call_items_end(a, x) - x->first_item,
				 mpi_call_items_end(b, y) - y->first_item);
		for (uint32_t k = 0; k < mpi_call_items_end(a, x) - x->first_item; k++)
			assert_same_item(a, &a->items[x->first_item + k], b,
					 &b->items[y->first_item + k]);
	}
	for (size_t i = 0; i < a->nmsgs; i++) {
		const struct mpi_message *x = &a->msgs[i], *y = &b->msgs[i];

		assert_int_equal(x->src, y->src);
		assert_int_equal(x->dst, y->dst);
		assert_int_equal(x->tag, y->tag);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->send_call, y->send_call);
		assert_int_equal(x->send_done_call, y->send_done_call);
		assert_int_equal(x->recv_call, y->recv_call);
		assert_int_equal(x->sync, y->sync);
	}
	for (size_t i = 0; i < a->ncolls; i++) {
		assert_int_equal(a->colls[i].routine, b->colls[i].routine);
		assert_int_equal(a->colls[i].root, b->colls[i].root);
		assert_int_equal(a->colls[i].n, b->colls[i].n);
		assert_int_equal(a->colls[i].nmissing, b->colls[i].nmissing);
	}
}

/* Three ranks: blocking, synchronous and non-blocking messages, Sendrecv, a barrier, a
 * rooted broadcast, a split communicator; rank 1 receives a message before rank 2 sent it on
 * the recorded clocks (the model corrects it), rank 2's clock drifts 2 us over the run. */
static void write_job(const char *dir)
{
	struct job j;
	const int32_t odd[1] = {1}, even[2] = {0, 2};

	job_begin(&j, 3, 1 * MS);
	for (int r = 0; r < 3; r++) {
		struct mstream *s = &j.s[r];
		int right = (r + 1) % 3, left = (r + 2) % 3;
		struct mitem snd = r == 1 ? it_ssend(right, 1, 8, 0) : it_send(right, 1, 8, 0);
		struct mitem rcv = it_recv(left, 1, 8, 0, 0);
		struct mitem post = it_irecv(PSC_MPI_ANY, 2, 64, 100 + r, 0);
		struct mitem isnd = it_isend(left, 2, 32, 200 + r, 0);
		struct mitem wait[2] = {it_recv(right, 2, 32, 100 + r, 0), it_done(200 + r)};
		struct mitem both[2] = {it_send(right, 3, 16, 0), it_recv(left, 3, 16, 0, 0)};
		struct mitem bar = it_coll(PSC_MPI_ANY, 0, 0, 0);
		struct mitem bc = it_coll(1, r == 1 ? 24 : 0, r == 1 ? 0 : 24, 0);
		uint64_t t = 2 * MS + (uint64_t)r * 100 * US;

		/* the ring of sends: rank 0 sends first, each receiver sends on when it has it;
		 * rank 2's send to 0 is recorded 50 us after rank 0's receive ended */
		if (r == 0) {
			ms_call1(s, 2 * MS, 2010 * US, MPI_ROUTINE_Send, &snd);
			ms_call1(s, 2020 * US, 2200 * US, MPI_ROUTINE_Recv, &rcv);
		} else {
			ms_call1(s, 2 * MS, t, MPI_ROUTINE_Recv, &rcv);
			ms_call1(s, t + 50 * US, t + 60 * US,
				 r == 1 ? MPI_ROUTINE_Ssend : MPI_ROUTINE_Send, &snd);
		}
		ms_call1(s, 3 * MS, 3010 * US, MPI_ROUTINE_Irecv, &post);
		ms_call1(s, 3020 * US, 3030 * US, MPI_ROUTINE_Isend, &isnd);
		ms_call(s, 3040 * US, 3300 * US, MPI_ROUTINE_Waitall, 0x4010, wait, 2);
		ms_call(s, 4 * MS, 4100 * US, MPI_ROUTINE_Sendrecv, 0x4020, both, 2);
		ms_call1(s, 5 * MS + (uint64_t)r * 30 * US, 5200 * US, MPI_ROUTINE_Barrier, &bar);
		ms_call1(s, 6 * MS, 6100 * US + (uint64_t)r * 10 * US, MPI_ROUTINE_Bcast, &bc);
		/* the split: rank 1 alone, ranks 0 and 2 together, each at index 2 */
		ms_comm(s, 7 * MS, 2, r == 1 ? (1ull << 32 | 1) : (1ull << 32 | 0),
			r == 1 ? odd : even, r == 1 ? 1 : 2);
		if (r != 1) {
			struct mitem red = it_coll(PSC_MPI_ANY, 8, 8, 2);

			ms_call1(s, 7 * MS, 7100 * US, MPI_ROUTINE_Allreduce, &red);
		}
		if (r == 2)
			ms_clock(s, 8 * MS, PSC_MPI_CLOCK_FINALIZE, 8 * MS, 2000, 500);
		finalize(s, 9 * MS);
	}
	job_write(&j, dir, 0x7);
}

static void test_round_trip(void **state)
{
	char dir[128], archive[160], anchor[192];
	struct experiment e;
	struct mpi_model m, raw, back;
	struct otf2_export_stats st;
	struct symtab syms;
	struct stat sb;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_job(dir);
	load(dir, &e, &m, MPI_BUILD_KEEP_UNCORRECTED);
	print_warnings(&m);
	assert_true(m.violations_before > 0); /* rank 2's late-recorded send */
	assert_int_equal(m.violations_after, 0);
	assert_true(m.max_correction_ns > 0);
	/* the times before the correction kept: those of the model built without it */
	mpi_model_init(&raw);
	assert_int_equal(mpi_model_load(&raw, &e, MPI_BUILD_NO_CORRECTION, err, sizeof(err)), 0);
	assert_non_null(m.uncorrected);
	assert_null(raw.uncorrected);
	assert_int_equal(raw.ncalls, m.ncalls);
	for (size_t c = 0, moved = 0; c < m.ncalls; c++) {
		assert_int_equal(m.uncorrected[c].enter_ns, raw.calls[c].enter_ns);
		assert_int_equal(m.uncorrected[c].leave_ns, raw.calls[c].leave_ns);
		moved += m.calls[c].leave_ns != raw.calls[c].leave_ns;
		if (c + 1 == m.ncalls)
			assert_true(moved > 0);
	}
	assert_int_equal(symtab_init(&syms, dir), 0);
	snprintf(archive, sizeof(archive), "%s/archive", dir);
	assert_int_equal(otf2_export(archive, &e, &syms, &m, &st, err, sizeof(err)), 0);
	assert_int_equal(st.mpi_calls, m.ncalls);
	assert_int_equal(st.messages, 3 + 3 + 3);    /* Send/Ssend, Isend, Sendrecv */
	assert_int_equal(st.collectives, 3 + 3 + 2); /* Barrier, Bcast, Allreduce */
	assert_int_equal(st.processes, 3);
	assert_int_equal(st.locations, 3);

	snprintf(anchor, sizeof(anchor), "%s/" OTF2_EXPORT_NAME ".otf2", archive);
	mpi_model_init(&back);
	if (mpi_model_load_otf2(&back, anchor, 0, err, sizeof(err)))
		fail_msg("mpi_model_load_otf2: %s", err);
	print_warnings(&back);
	assert_int_equal(back.violations_before, 0); /* the export has the corrected times */
	assert_same_model(&m, &back);

	/* the archive is removed without a trace, the directory too */
	assert_int_equal(otf2_export_remove(archive), 0);
	assert_int_equal(stat(archive, &sb), -1);
	mpi_model_release(&back);
	mpi_model_release(&raw);
	symtab_release(&syms);
	done(&e, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scorep_ping_pong),
	    cmocka_unit_test(test_scorep_papi),
	    cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
