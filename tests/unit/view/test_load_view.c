/*
 * test_load_view.c - `perfscope mpi --load` in long CSV (src/view/load-view.h) on two
 * hand-written load logs: every number of the CSV once per line, named by its host, rank and
 * pid (the statistics) or host, rank and time (the samples), an unknown share empty in the
 * statistics and absent from the samples, as in the CSV.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/load-print.h"

static char dir[PATH_MAX];

/* h1: ranks 0 and 1 (rank 0 unknown in its second sample); h0: rank 2. */
#define LOG_A                                                                                      \
	"# perfscope load 1\n# host h1\n# period_ns 100\n# cpus 2\n# rank 0 pid 100\n# rank 1 "    \
	"pid 101\ntime_ns,host,rank0,rank1\n1100,0.5000,1.0000,0.2500\n1200,1.0000,-,0.7500\n"
#define LOG_B                                                                                      \
	"# perfscope load 1\n# host h0\n# period_ns 100\n# cpus 4\n# rank 2 pid 200\n"             \
	"time_ns,host,rank2\n5100,0.2500,2.0000\n5200,-,-\n"

static int setup(void **state)
{
	char path[PATH_MAX + 16];

	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "loadview"))
		return -1;
	snprintf(path, sizeof(path), "%s/load.h1.100", dir);
	tmpdir_write(path, LOG_A);
	snprintf(path, sizeof(path), "%s/load.h0.200", dir);
	tmpdir_write(path, LOG_B);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

/* The load of DIR in FORMAT, malloc'd. */
static char *print(enum load_format format)
{
	struct experiment e;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&e, 0, sizeof(e));
	e.dir = dir;
	assert_non_null(f);
	if (load_print(f, &e, format, err, sizeof(err)))
		fail_msg("%s", err);
	fclose(f);
	return buf;
}

static void test_long(void **state)
{
	char *buf = print(LOAD_FORMAT_LONG);

	(void)state;
	/* h1 busy: (0.5 x 100 + 1 x 100) / 200; h0 busy: its one known sample */
	assert_string_equal(buf, "host,rank,pid,metric,value\n"
				 "h1,host,,samples,2\n"
				 "h1,host,,mean,0.7500\n"
				 "h1,host,,min,0.5000\n"
				 "h1,host,,max,1.0000\n"
				 "h0,host,,samples,1\n"
				 "h0,host,,mean,0.2500\n"
				 "h0,host,,min,0.2500\n"
				 "h0,host,,max,0.2500\n"
				 "h1,0,100,samples,1\n"
				 "h1,0,100,mean,1.0000\n"
				 "h1,0,100,min,1.0000\n"
				 "h1,0,100,max,1.0000\n"
				 "h1,1,101,samples,2\n"
				 "h1,1,101,mean,0.5000\n"
				 "h1,1,101,min,0.2500\n"
				 "h1,1,101,max,0.7500\n"
				 "h0,2,200,samples,1\n"
				 "h0,2,200,mean,2.0000\n"
				 "h0,2,200,min,2.0000\n"
				 "h0,2,200,max,2.0000\n"
				 "\n"
				 "host,rank,time_ns,metric,value\n"
				 "h1,host,1100,share,0.5000\n"
				 "h1,0,1100,share,1.0000\n"
				 "h1,1,1100,share,0.2500\n"
				 "h1,host,1200,share,1.0000\n"
				 "h1,1,1200,share,0.7500\n"
				 "h0,host,5100,share,0.2500\n"
				 "h0,2,5100,share,2.0000\n");
	free(buf);
}

/* The JSON's ranks are each host's own, in their order, with their shares over time. */
static void test_json_ranks(void **state)
{
	char *buf = print(LOAD_FORMAT_JSON);
	char *h0 = strstr(buf, "\"host\": \"h0\""), *r2 = strstr(buf, "\"rank\": 2");

	(void)state;
	assert_non_null(h0);
	assert_non_null(r2);
	assert_true(r2 > h0); /* h0 (first rank 2) comes after h1 */
	assert_null(strstr(h0, "\"rank\": 0"));
	assert_non_null(strstr(buf, "\"share\": [\n            2,\n            null\n          ]"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long),
	    cmocka_unit_test(test_json_ranks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
