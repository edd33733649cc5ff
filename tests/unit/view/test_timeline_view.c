/* test_timeline_view.c - the timeline's tables as views on a timeline made by hand: two sampled
 * threads and one without samples, two intervals, an event sampled and one not supported, one
 * named function and "other". Every cell of the CSV, long CSV and JSON is known. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/timeline-print.h"

/* [thread][interval][event]: the second event is not supported (its values are never read) */
static double values[3][2][2] = {{{1.5, 9}, {2.5, 9}}, {{3.25, 9}, {4, 9}}, {{0, 0}, {0, 0}}};
static uint64_t samples[3][2] = {{2, 1}, {2, 0}, {0, 0}};
/* [thread][interval][function, other] */
static uint64_t fsamples[3][2][2] = {{{2, 0}, {0, 1}}, {{1, 1}, {0, 0}}, {{0, 0}, {0, 0}}};
static struct sample_thread threads[3] = {
    {.pid = 1, .tid = 11, .name = "a", .samples = 3},
    {.pid = 1, .tid = 12, .name = "b", .samples = 2},
    {.pid = 1, .tid = 13, .name = "idle"},
};
static char *events[] = {"cpu", "gone"}, *states[] = {"group", "not supported"}, *funcs[] = {"f"};

static void make(struct experiment *e, struct timeline *t)
{
	*e = (struct experiment){0};
	e->sampling.events = events;
	e->sampling.states = states;
	e->sampling.nevents = 2;
	*t = (struct timeline){.start_ns = 1000, .end_ns = 1020, .interval_ns = 10};
	t->nintervals = 2;
	t->nevents = 2;
	t->walk.threads = threads;
	t->walk.nthreads = 3;
	t->values = &values[0][0][0];
	t->samples = &samples[0][0];
	t->nfuncs = 1;
	t->funcs = funcs;
	t->fsamples = &fsamples[0][0][0];
}

/* The timeline in FMT, malloc'd. */
static char *print(enum out_format fmt)
{
	struct experiment e;
	struct timeline t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	make(&e, &t);
	assert_int_equal(timeline_print(&e, &t, fmt, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_csv(void **state)
{
	char *text = print(OUT_CSV);

	(void)state;
	assert_string_equal(text, "t_start_ns,t_end_ns,thread,event,value,rate_per_s\n"
				  "0,10,11,cpu,1.500,150000000.000\n"
				  "0,10,11,gone,,\n"
				  "0,10,12,cpu,3.250,325000000.000\n"
				  "0,10,12,gone,,\n"
				  "10,20,11,cpu,2.500,250000000.000\n"
				  "10,20,11,gone,,\n"
				  "10,20,12,cpu,4.000,400000000.000\n"
				  "10,20,12,gone,,\n"
				  "\n"
				  "t_start_ns,t_end_ns,thread,function,samples,share\n"
				  "0,10,11,f,2,100.0000\n"
				  "0,10,12,f,1,50.0000\n"
				  "0,10,12,other,1,50.0000\n"
				  "10,20,11,other,1,100.0000\n");
	free(text);
}

static void test_long(void **state)
{
	char *text = print(OUT_LONG);
	static const char *const lines[] = {
	    "t_start_ns,t_end_ns,thread,event,metric,value\n",
	    "\n0,10,11,cpu,value,1.500\n0,10,11,cpu,rate_per_s,150000000.000\n",
	    "\n10,20,12,cpu,rate_per_s,400000000.000\n10,20,12,gone,value,\n",
	    "\n\nt_start_ns,t_end_ns,thread,function,metric,value\n",
	    "\n0,10,12,other,samples,1\n0,10,12,other,share,50.0000\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(text, lines[i]))
			fail_msg("no \"%s\" in:\n%s", lines[i], text);
	assert_null(strstr(text, ",13,"));
	free(text);
}

static void test_json(void **state)
{
	char *text = print(OUT_JSON);
	static const char *const parts[] = {
	    "\"threads\":[{\"pid\":1,\"tid\":11,\"name\":\"a\"},{\"pid\":1,\"tid\":12,\"name\":"
	    "\"b\"}]",
	    "\"functions\":[\"f\",\"other\"]",
	    "{\"t_start_ns\":10,\"t_end_ns\":20,\"threads\":[{\"values\":[2.5,null],\"samples\":1,"
	    "\"function_samples\":[0,1]},{\"values\":[4,null],\"samples\":0,"
	    "\"function_samples\":[0,0]}]}",
	    "\"markers\":[],\"regions\":[]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strstr(text, parts[i]))
			fail_msg("no %s in:\n%s", parts[i], text);
	free(text);
}

static void test_text(void **state)
{
	char *text = print(OUT_TEXT);

	(void)state;
	/* interval 0: f has 3 of the 4 samples of both threads; interval 1: other its 1 */
	if (!strstr(text, "  f (75 %)\n") || !strstr(text, "  other (100 %)\n") ||
	    !strstr(text, "n/a"))
		fail_msg("the top functions or n/a not as expected in:\n%s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_long),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
