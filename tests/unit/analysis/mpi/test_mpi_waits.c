/* test_mpi_waits.c - the wait matrix, collective waits and wait-state patterns on MPI models
 * built by hand with known times (mpi-hand.h), and their CSV. */
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

static int64_t cell(const struct mpi_waits *w, int i, int j)
{
	return w->p2p[(size_t)i * (size_t)w->p + (size_t)j];
}

static int64_t pat(const struct mpi_waits *w, int i, enum mpi_pattern k)
{
	return w->pattern[(size_t)i * MPI_PAT_COUNT + k];
}

/*
 * A ring of 4 ranks: rank k posts an Irecv from k-1 at 0, sends to k+1 at d[k] and waits for
 * its receive from d[k] + 1 ms. Rank 1 waits for rank 0 (sends at 50) from 11 ms: 39 ms;
 * rank 3 waits for rank 2 (sends at 40) from 31 ms: 9 ms; nobody else waits. Then a barrier
 * entered by rank r at 60 + r x 20 ms, left by all at 121 ms: rank r waits 60 - 20 r ms.
 */
static void ring_barrier(struct mpi_model *m)
{
	const double d[4] = {50, 10, 40, 30};
	uint32_t irecv[4], send[4], wait[4], sitem[4], ritem[4], bar[4];

	hand_init(m, 4, 200);
	for (int k = 0; k < 4; k++) {
		double from = d[(k + 3) % 4], enter = d[k] + 1;

		irecv[k] = hand_call(m, k, R(Irecv), 0, 0.1);
		hand_item(m, PSC_MPI_ITEM_IRECV, 0, (k + 3) % 4, 0, 1000, 0);
		send[k] = hand_call(m, k, R(Send), d[k], d[k] + 0.1);
		sitem[k] = hand_item(m, PSC_MPI_ITEM_SEND, 0, (k + 1) % 4, 0, 1000, 0);
		wait[k] = hand_call(m, k, R(Wait), enter, (from > enter ? from : enter) + 1);
		ritem[k] = hand_item(m, PSC_MPI_ITEM_RECV, 0, (k + 3) % 4, 0, 1000, 0);
	}
	for (int k = 0; k < 4; k++)
		hand_msg(m, k, (k + 1) % 4, 1000, send[k], send[k], irecv[(k + 1) % 4],
			 wait[(k + 1) % 4], 0, sitem[k], ritem[(k + 1) % 4]);
	hand_site(m, wait[1], "ring_step", "ring.c", 42);
	hand_site(m, wait[3], "ring_step", "ring.c", 42);
	for (int r = 0; r < 4; r++) {
		bar[r] = hand_call(m, r, R(Barrier), 60 + r * 20, 121);
		hand_item(m, PSC_MPI_ITEM_COLL, 0, -1, 0, 0, 0);
	}
	hand_coll(m, R(Barrier), -1, bar, 4);
}

static void test_ring_and_barrier(void **state)
{
	struct mpi_model m;
	struct mpi_waits w;

	(void)state;
	ring_barrier(&m);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			assert_int_equal(cell(&w, i, j), i == 1 && j == 0   ? MS(39)
							 : i == 3 && j == 2 ? MS(9)
									    : 0);
	for (int r = 0; r < 4; r++) {
		assert_int_equal(w.coll[r], MS(60 - 20 * r));
		assert_int_equal(pat(&w, r, MPI_PAT_WAIT_BARRIER), MS(60 - 20 * r));
		assert_int_equal(pat(&w, r, MPI_PAT_LATE_RECEIVER), 0);
		assert_int_equal(w.exec_ns[r], MS(200));
	}
	assert_int_equal(w.total[0], MS(60));
	assert_int_equal(w.total[1], MS(79));
	assert_int_equal(w.total[2], MS(20));
	assert_int_equal(w.total[3], MS(9));
	assert_int_equal(w.pattern_total[MPI_PAT_LATE_SENDER], MS(48));
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_SENDER], 2);
	assert_int_equal(w.pattern_calls[MPI_PAT_WAIT_BARRIER], 3);
	/* --relative exec and wait */
	assert_true(fabs(mpi_waits_pct(&w, 1, cell(&w, 1, 0), MPI_REL_EXEC) - 19.5) < 1e-9);
	for (int r = 0; r < 4; r++) {
		double sum = mpi_waits_pct(&w, r, w.coll[r], MPI_REL_WAIT);

		for (int j = 0; j < 4; j++)
			sum += mpi_waits_pct(&w, r, cell(&w, r, j), MPI_REL_WAIT);
		assert_true(fabs(sum - 100) < 1e-9);
	}
	/* worst sites: rank 0's barrier (site unknown), then rank 1's wait in ring_step */
	assert_true(w.nsites >= 2);
	assert_int_equal(w.sites[0].pattern, MPI_PAT_WAIT_BARRIER);
	assert_int_equal(w.sites[0].rank, 0);
	assert_int_equal(w.sites[0].site, MPI_NONE);
	assert_int_equal(w.sites[0].routine, R(Barrier));
	assert_int_equal(w.sites[0].wait_ns, MS(60));
	for (size_t i = 0; i < w.nsites; i++)
		if (w.sites[i].pattern == MPI_PAT_LATE_SENDER && w.sites[i].rank == 1) {
			assert_int_equal(w.sites[i].site, 0);
			assert_string_equal(m.sites[w.sites[i].site].function, "ring_step");
			assert_int_equal(w.sites[i].routine, R(Wait));
			assert_int_equal(w.sites[i].wait_ns, MS(39));
			assert_int_equal(w.sites[i].calls, 1);
		}
	mpi_waits_release(&w);
	hand_release(&m);
}

/* Print VIEW of M as CSV (CSV != 0) or text into a malloc'd string. */
static char *render(const struct mpi_model *m, enum mpi_view view, int csv, enum mpi_relative rel,
		    int all)
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
	r = (struct mpi_report){
	    .m = m, .routines = &rs, .traffic = &tr, .waits = &w, .rel = rel, .all = all};
	if (csv == 2)
		assert_int_equal(mpi_print_json(&r, view, f), 0);
	else if (csv)
		assert_int_equal(mpi_print_csv(&r, view, f, stderr), 0);
	else
		assert_int_equal(mpi_print_text(&r, view, f), 0);
	fclose(f);
	mpi_routines_release(&rs);
	mpi_traffic_release(&tr);
	mpi_waits_release(&w);
	return text;
}

static void test_waits_csv(void **state)
{
	struct mpi_model m;
	char *text;

	(void)state;
	ring_barrier(&m);
	text = render(&m, MPI_VIEW_WAITS, 1, MPI_REL_NONE, 0);
	assert_string_equal(text, "rank,peer,wait_ns,pct_exec,pct_wait\n"
				  "0,collective,60000000,30.000000,100.000000\n"
				  "0,total,60000000,30.000000,100.000000\n"
				  "1,0,39000000,19.500000,49.367089\n"
				  "1,collective,40000000,20.000000,50.632911\n"
				  "1,total,79000000,39.500000,100.000000\n"
				  "2,collective,20000000,10.000000,100.000000\n"
				  "2,total,20000000,10.000000,100.000000\n"
				  "3,2,9000000,4.500000,100.000000\n"
				  "3,total,9000000,4.500000,100.000000\n");
	free(text);
	/* --all: every cell, zeros included: 4 ranks x (4 peers + collective + total) */
	text = render(&m, MPI_VIEW_WAITS, 1, MPI_REL_NONE, 1);
	{
		size_t lines = 0;

		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 1 + 4 * 6);
		assert_non_null(strstr(text, "\n3,collective,0,0.000000,0.000000\n"));
	}
	free(text);
	/* the text matrix: rank 1's row with its 39 ms for rank 0 */
	text = render(&m, MPI_VIEW_SUMMARY, 0, MPI_REL_EXEC, 0);
	assert_non_null(strstr(text, "Wait matrix"));
	assert_non_null(strstr(text, "19.5"));
	assert_non_null(strstr(text, "causality violations: 0 as recorded"));
	free(text);
	text = render(&m, MPI_VIEW_PATTERNS, 0, MPI_REL_NONE, 0);
	assert_non_null(strstr(text, "ring.c:42"));
	assert_non_null(strstr(text, "Late Sender: worst call sites"));
	free(text);
	text = render(&m, MPI_VIEW_WAITS, 2, MPI_REL_WAIT, 0);
	assert_non_null(strstr(text, "\"peer\": \"collective\""));
	assert_non_null(strstr(text, "\"caveats\""));
	free(text);
	hand_release(&m);
}

/* Cells under 0.1 % are hidden: of the execution time, or of the total wait with
 * --relative wait; zero always. */
static void test_hiding(void **state)
{
	int64_t exec[1] = {MS(100)}, total[1] = {MS(1000)};
	struct mpi_waits w = {.p = 1, .exec_ns = exec, .total = total};

	(void)state;
	assert_true(mpi_waits_hidden(&w, 0, 0, MPI_REL_NONE));
	assert_true(mpi_waits_hidden(&w, 0, MS(0.05), MPI_REL_NONE)); /* 0.05 % of exec */
	assert_false(mpi_waits_hidden(&w, 0, MS(0.2), MPI_REL_EXEC)); /* 0.2 % */
	assert_false(mpi_waits_hidden(&w, 0, MS(0.5), MPI_REL_NONE)); /* 0.5 % of exec */
	assert_true(mpi_waits_hidden(&w, 0, MS(0.5), MPI_REL_WAIT));  /* 0.05 % of the wait */
	assert_false(mpi_waits_hidden(&w, 0, MS(2), MPI_REL_WAIT));   /* 0.2 % of the wait */
	assert_true(fabs(mpi_waits_pct(&w, 0, MS(2), MPI_REL_WAIT) - 0.2) < 1e-12);
}

/* One collective of P ranks entered at ENTER[r] and left at LEAVE[r] (ms). */
static void one_coll(struct mpi_model *m, int p, unsigned routine, int root, const double *enter,
		     const double *leave)
{
	uint32_t calls[8];

	hand_init(m, p, 100);
	for (int r = 0; r < p; r++)
		calls[r] = hand_call(m, r, routine, enter[r], leave[r]);
	hand_coll(m, routine, root, calls, (uint32_t)p);
}

static void test_rooted(void **state)
{
	const double bc_enter[3] = {10, 30, 0}, bc_leave[3] = {31, 31, 31};
	const double red_enter[3] = {0, 15, 25}, red_leave[3] = {26, 16, 26};
	const double ar_enter[3] = {0, 5, 10}, ar_leave[3] = {4, 11, 11};
	struct mpi_model m;
	struct mpi_waits w;

	(void)state;
	/* a broadcast whose root (1) comes last: the others wait for it */
	one_coll(&m, 3, R(Bcast), 1, bc_enter, bc_leave);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(pat(&w, 0, MPI_PAT_LATE_BROADCAST), MS(20));
	assert_int_equal(pat(&w, 1, MPI_PAT_LATE_BROADCAST), 0);
	assert_int_equal(pat(&w, 2, MPI_PAT_LATE_BROADCAST), MS(30));
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_BROADCAST], 2);
	assert_int_equal(w.coll[2], MS(30));
	mpi_waits_release(&w);
	hand_release(&m);
	/* a reduce to 0 with late non-roots: only the root waits, for the last one */
	one_coll(&m, 3, R(Reduce), 0, red_enter, red_leave);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(pat(&w, 0, MPI_PAT_EARLY_REDUCE), MS(25));
	assert_int_equal(w.coll[1] + w.coll[2], 0);
	assert_int_equal(w.pattern_total[MPI_PAT_EARLY_REDUCE], MS(25));
	mpi_waits_release(&w);
	hand_release(&m);
	/* an allreduce: until the last enter, clipped to the own call (rank 0 left at 4) */
	one_coll(&m, 3, R(Allreduce), -1, ar_enter, ar_leave);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(pat(&w, 0, MPI_PAT_WAIT_NXN), MS(4));
	assert_int_equal(pat(&w, 1, MPI_PAT_WAIT_NXN), MS(5));
	assert_int_equal(pat(&w, 2, MPI_PAT_WAIT_NXN), 0);
	mpi_waits_release(&w);
	hand_release(&m);
}

/*
 * Rank 0 sends to rank 1: an Ssend entered at 0 whose receive is posted at 50 (Late
 * Receiver 50 ms); a standard send done at 60.1 before the receive at 70 (eager: none); a
 * standard send blocked from 80 until the receive at 90 (rendezvous: 10 ms); an Issend whose
 * Wait (from 100.2) lasts until the Irecv is posted at 120 (19.8 ms).
 */
static void test_late_receiver(void **state)
{
	struct mpi_model m;
	struct mpi_waits w;
	uint32_t s, r, s2, post;

	(void)state;
	hand_init(&m, 2, 200);
	s = hand_call(&m, 0, R(Ssend), 0, 50.1);
	hand_item(&m, PSC_MPI_ITEM_SEND, PSC_MPI_F_SYNC, 1, 0, 8, 0);
	r = hand_call(&m, 1, R(Recv), 50, 50.2);
	hand_item(&m, PSC_MPI_ITEM_RECV, 0, 0, 0, 8, 0);
	hand_msg(&m, 0, 1, 8, s, s, r, r, 1, 0, 1);
	s = hand_call(&m, 0, R(Send), 60, 60.1);
	r = hand_call(&m, 1, R(Recv), 70, 70.1);
	hand_msg(&m, 0, 1, 8, s, s, r, r, 0, MPI_NONE, MPI_NONE);
	s = hand_call(&m, 0, R(Send), 80, 90.1);
	r = hand_call(&m, 1, R(Recv), 90, 90.2);
	hand_msg(&m, 0, 1, 1 << 20, s, s, r, r, 0, MPI_NONE, MPI_NONE);
	s = hand_call(&m, 0, R(Issend), 100, 100.1);
	s2 = hand_call(&m, 0, R(Wait), 100.2, 120.1);
	post = hand_call(&m, 1, R(Irecv), 120, 120.05);
	r = hand_call(&m, 1, R(Wait), 120.06, 120.2);
	hand_msg(&m, 0, 1, 8, s, s2, post, r, 1, MPI_NONE, MPI_NONE);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(pat(&w, 0, MPI_PAT_LATE_RECEIVER), MS(50) + MS(10) + MS(19.8));
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_RECEIVER], 3);
	assert_int_equal(pat(&w, 1, MPI_PAT_LATE_RECEIVER), 0);
	assert_int_equal(w.pattern_total[MPI_PAT_LATE_SENDER], 0);
	/* not in the matrix */
	assert_int_equal(w.total[0] + w.total[1], 0);
	mpi_waits_release(&w);
	hand_release(&m);
}

/* A Waitall completing messages from rank 1 (sent at 10) and rank 2 (sent at 30), entered at
 * 1: 9 ms for rank 1, then 20 ms for rank 2; 29 ms in all, the time it waited. */
static void test_waitall_split(void **state)
{
	struct mpi_model m;
	struct mpi_waits w;
	uint32_t p1, p2, all, s1, s2;

	(void)state;
	hand_init(&m, 3, 100);
	p1 = hand_call(&m, 0, R(Irecv), 0, 0.1);
	p2 = hand_call(&m, 0, R(Irecv), 0.1, 0.2);
	all = hand_call(&m, 0, R(Waitall), 1, 31);
	s1 = hand_call(&m, 1, R(Send), 10, 10.1);
	s2 = hand_call(&m, 2, R(Send), 30, 30.1);
	hand_msg(&m, 1, 0, 4, s1, s1, p1, all, 0, MPI_NONE, MPI_NONE);
	hand_msg(&m, 2, 0, 4, s2, s2, p2, all, 0, MPI_NONE, MPI_NONE);
	assert_int_equal(mpi_waits_compute(&w, &m), 0);
	assert_int_equal(cell(&w, 0, 1), MS(9));
	assert_int_equal(cell(&w, 0, 2), MS(20));
	assert_int_equal(w.total[0], MS(29));
	assert_int_equal(w.pattern_calls[MPI_PAT_LATE_SENDER], 1);
	mpi_waits_release(&w);
	hand_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring_and_barrier), cmocka_unit_test(test_waits_csv),
	    cmocka_unit_test(test_hiding),	     cmocka_unit_test(test_rooted),
	    cmocka_unit_test(test_late_receiver),    cmocka_unit_test(test_waitall_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
