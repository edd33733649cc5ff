/*
 * test_chrome_omp.c - the Chrome export's OpenMP slices (chrome-omp.h) from hand-made events:
 * a worker's implicit task read before the thread that began its region is kept and written
 * at the end named as the region, the encountering thread's at once, a wait nested in a task
 * at its leave, and a task left open (killed run) ends at the stream's end, flagged; a task of
 * a region never begun is named "omp parallel". Without symbols a site is named by address.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome-omp.h"
#include "format/format.h"

static struct exp_process proc;

static struct event ev(enum ev_kind kind, const struct ev_location *loc, int64_t ns,
		       uint64_t parallel, unsigned kind_arg)
{
	return (struct event){.kind = kind,
			      .ns = ns,
			      .loc = loc,
			      .omp = {.parallel = parallel,
				      .site = kind == EV_OMP_PARALLEL_BEGIN ? 0x1234 : 0,
				      .kind = kind_arg,
				      .thread = loc->tid == 10 ? 0 : 1}};
}

static void test_slices(void **state)
{
	const struct ev_location master = {.pid = 10, .tid = 10, .proc = &proc};
	const struct ev_location worker = {.pid = 10, .tid = 11, .proc = &proc};
	struct out o = {.first = 1, .ts_us = UINT64_MAX};
	struct chrome_omp *m;
	char *text = NULL;
	size_t len = 0;
	const char *want =
	    "\n{\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":1.500,\"dur\":0.200,\"cat\":\"openmp\","
	    "\"name\":\"omp lock\",\"args\":{}},\n"
	    "{\"ph\":\"X\",\"pid\":10,\"tid\":10,\"ts\":0.600,\"dur\":1.900,\"cat\":\"openmp\","
	    "\"name\":\"0x1234\",\"args\":{\"parallel_id\":7,\"thread\":0}},\n"
	    "{\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":1.000,\"dur\":2.000,\"cat\":\"openmp\","
	    "\"name\":\"0x1234\",\"args\":{\"parallel_id\":7,\"thread\":1}},\n"
	    "{\"ph\":\"X\",\"pid\":10,\"tid\":10,\"ts\":4.000,\"dur\":1.000,\"cat\":\"openmp\","
	    "\"name\":\"omp parallel\",\"args\":{\"parallel_id\":8,\"thread\":0,"
	    "\"end_recorded\":false}}";
	const struct event wk[] = {
	    ev(EV_OMP_ITASK_BEGIN, &worker, 1000, 7, 0),
	    ev(EV_OMP_SYNC_ENTER, &worker, 1500, 0, PSC_OMP_SYNC_LOCK),
	    ev(EV_OMP_SYNC_LEAVE, &worker, 1700, 0, PSC_OMP_SYNC_LOCK),
	    ev(EV_OMP_ITASK_END, &worker, 3000, 7, 0),
	};
	const struct event ms[] = {
	    ev(EV_OMP_PARALLEL_BEGIN, &master, 500, 7, 0),
	    ev(EV_OMP_ITASK_BEGIN, &master, 600, 7, 0),
	    ev(EV_OMP_ITASK_END, &master, 2500, 7, 0),
	    ev(EV_OMP_PARALLEL_END, &master, 2600, 7, 0),
	    ev(EV_OMP_ITASK_BEGIN, &master, 4000, 8, 0),
	};

	(void)state;
	o.f = open_memstream(&text, &len);
	o.buf = malloc(OUT_CAP);
	assert_non_null(o.f);
	assert_non_null(o.buf);
	assert_int_equal(chrome_omp_new(&m, NULL), 0);
	chrome_omp_location(m);
	for (size_t i = 0; i < sizeof(wk) / sizeof(wk[0]); i++)
		assert_int_equal(chrome_omp_event(m, &o, &wk[i], 0), 0);
	assert_int_equal(chrome_omp_close(m, &o, 3000), 0);
	chrome_omp_location(m);
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		assert_int_equal(chrome_omp_event(m, &o, &ms[i], 0), 0);
	assert_int_equal(chrome_omp_close(m, &o, 5000), 0);
	chrome_omp_finish(m, &o);
	out_flush(&o);
	fclose(o.f);
	assert_int_equal(o.error, 0);
	assert_string_equal(text, want);
	chrome_omp_free(m);
	free(o.buf);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
