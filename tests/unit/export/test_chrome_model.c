/*
 * test_chrome_model.c - the Chrome export's MPI calls (chrome-model.h) from hand-made events:
 * chrome_model_mpi() says whether a call is open after each event (the exporter's loop ends
 * an open call at a function's exit on that word alone), a communicator record inside a call
 * keeps it open, a leave closes it with its bytes and peer, and a call left open (a killed
 * run) ends through chrome_model_close(), flagged; closing with none open writes nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome-model.h"
#include "format/format.h"
#include "format/mpi-routines.h"

static struct exp_process proc;

static void test_open_and_close(void **state)
{
	const struct ev_location loc = {.pid = 10, .tid = 11, .rank = -1, .proc = &proc};
	/* one item: a send of 8 bytes to rank 1, tag 5, in communicator 0 */
	const uint64_t send_words[] = {psc_mpi_item_word0(PSC_MPI_ITEM_SEND, 0, 0),
				       psc_mpi_pack2(1, 5), 8, 0};
	const int32_t members[] = {0, 1};
	const struct event enter = {
	    .kind = EV_MPI_ENTER, .ns = 1000, .loc = &loc, .mpi = {.routine = MPI_ROUTINE_Send}};
	const struct event comm = {
	    .kind = EV_MPI_COMM,
	    .ns = 1100,
	    .loc = &loc,
	    .mpi_comm = {.index = 0, .key = 77, .size = 2, .members = members}};
	const struct event leave = {
	    .kind = EV_MPI_LEAVE,
	    .ns = 2000,
	    .loc = &loc,
	    .mpi = {.routine = MPI_ROUTINE_Send, .item_words = send_words, .nitems = 1}};
	const struct event enter2 = {
	    .kind = EV_MPI_ENTER, .ns = 3000, .loc = &loc, .mpi = {.routine = MPI_ROUTINE_Barrier}};
	const char *want =
	    "\n{\"ph\":\"B\",\"pid\":10,\"tid\":11,\"ts\":1.000,\"cat\":\"mpi\",\"name\":\"MPI_"
	    "Send\"},\n"
	    "{\"ph\":\"E\",\"pid\":10,\"tid\":11,\"ts\":2.000,\"args\":{\"bytes\":8,\"peer\":1,"
	    "\"tag\":5}},\n"
	    "{\"ph\":\"B\",\"pid\":10,\"tid\":11,\"ts\":3.000,\"cat\":\"mpi\",\"name\":"
	    "\"MPI_Barrier\"},\n"
	    "{\"ph\":\"E\",\"pid\":10,\"tid\":11,\"ts\":3.500,\"args\":{\"exit_recorded\":false}}";
	struct out o = {.first = 1, .ts_us = UINT64_MAX};
	struct chrome_stats stats = {0};
	struct chrome_model *m;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	o.f = open_memstream(&text, &len);
	o.buf = malloc(OUT_CAP);
	assert_non_null(o.f);
	assert_non_null(o.buf);
	assert_int_equal(chrome_model_new(&m), 0);
	chrome_model_location(m);
	chrome_model_close(m, &o, &loc, 500); /* none open: nothing */
	assert_int_equal(chrome_model_mpi(m, &o, &enter, 0, &stats), 1);
	assert_int_equal(chrome_model_mpi(m, &o, &comm, 0, &stats), 1);
	assert_int_equal(chrome_model_mpi(m, &o, &leave, 0, &stats), 0);
	assert_int_equal(chrome_model_mpi(m, &o, &comm, 0, &stats), 0);
	assert_int_equal(chrome_model_mpi(m, &o, &enter2, 0, &stats), 1);
	chrome_model_close(m, &o, &loc, 3500);
	chrome_model_close(m, &o, &loc, 3600); /* closed already: nothing */
	out_flush(&o);
	fclose(o.f);
	assert_string_equal(text, want);
	assert_int_equal(stats.mpi_calls, 2);
	chrome_model_free(m);
	free(o.buf);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_and_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
