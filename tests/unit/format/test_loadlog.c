/*
 * test_loadlog.c - load logs (src/format/loadlog.h) on hand-written files: exact values,
 * `-` as unknown, comments, a last line cut short, interval-weighted means, every error with
 * its line; an experiment's set of logs (order, duplicate ranks, none at all); and the
 * printer (src/view/load-print.h): exact CSV, JSON nulls, the text's merged rows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/load-print.h"
#include "format/loadlog.h"

#define EPS 1e-12

static char dir[PATH_MAX];
static char logpath[PATH_MAX + 16];

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "loadlog"))
		return -1;
	snprintf(logpath, sizeof(logpath), "%s/load.h1.100", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

#define HEAD                                                                                       \
	"# perfscope load 1\n# host h1\n# period_ns 100\n# cpus 2\n# rank 0 pid 100\n# rank 1 "    \
	"pid 101\n"
#define COLS "time_ns,host,rank0,rank1\n"

static void test_read_values(void **state)
{
	struct load_log log;
	char err[512] = "";

	(void)state;
	tmpdir_write(logpath, HEAD "# a comment\n" COLS "1100,0.5000,1.0000,0.2500\n"
				   "1200,1.0000,-,0.7500\n1250,-,0.5,0\n1300,0.1,0.1");
	if (load_log_read(&log, logpath, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(log.host, "h1");
	assert_int_equal(log.period_ns, 100);
	assert_int_equal(log.cpus, 2);
	assert_int_equal(log.nranks, 2);
	assert_int_equal(log.ranks[1], 1);
	assert_int_equal(log.pids[1], 101);
	assert_int_equal(log.nsamples, 3); /* the last line, cut short, is left out */
	assert_int_equal(log.time_ns[2], 1250);
	assert_float_equal(log.host_busy[1], 1.0, EPS);
	assert_true(isnan(log.host_busy[2]));
	assert_true(isnan(load_log_share(&log, 1, 0)));
	assert_float_equal(load_log_share(&log, 1, 1), 0.75, EPS);
	assert_float_equal(load_log_share(&log, 2, 0), 0.5, EPS);

	/* weights: 100 (the period), 100, 50 */
	struct load_stats st = load_log_stats(&log, log.host_busy, 1);

	assert_int_equal(st.n, 2);
	assert_float_equal(st.mean, 0.75, EPS);
	assert_float_equal(st.min, 0.5, EPS);
	assert_float_equal(st.max, 1.0, EPS);
	st = load_log_stats(&log, log.share, log.nranks);
	assert_int_equal(st.n, 2);
	assert_float_equal(st.mean, (1.0 * 100 + 0.5 * 50) / 150, EPS);
	st = load_log_stats(&log, log.share + 1, log.nranks);
	assert_int_equal(st.n, 3);
	assert_float_equal(st.mean, (0.25 * 100 + 0.75 * 100 + 0) / 250, EPS);
	assert_float_equal(st.min, 0, EPS);
	load_log_release(&log);
}

/* TEXT is refused with "PATH: line LINE: " then MSG. */
static void check_error(const char *text, int line, const char *msg)
{
	struct load_log log;
	char err[512] = "", want[PATH_MAX + 600];

	tmpdir_write(logpath, text);
	assert_int_equal(load_log_read(&log, logpath, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: line %d: %s", logpath, line, msg);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got '%s', want '%s'", err, want);
	assert_null(log.host); /* released */
}

static void test_read_errors(void **state)
{
	(void)state;
	check_error("", 1, "empty file");
	check_error("# perfscope load 2\n", 1, "expected '# perfscope load 1'");
	check_error("# perfscope load 1\n# period_ns 100\n# rank 0 pid 1\n" COLS, 4,
		    "header without '# host'");
	check_error("# perfscope load 1\n# host a\n# rank 0 pid 1\n" COLS, 4,
		    "header without '# period_ns'");
	check_error("# perfscope load 1\n# host a\n# period_ns 1\n" COLS, 4,
		    "header without '# rank'");
	check_error("# perfscope load 1\n# host a\n# host b\n", 3, "a second host line");
	check_error("# perfscope load 1\n# period_ns -5\n", 2, "expected a period in ns");
	check_error("# perfscope load 1\n# rank 0 pid 0\n", 2, "expected '# rank R pid P'");
	check_error("# perfscope load 1\n# rank 3 pid 9\n# rank 3 pid 10\n", 3,
		    "rank 3 listed twice");
	check_error(HEAD, 7, "the file ends before the column row");
	/* a last line cut short is not there: the file ends where it starts */
	check_error(HEAD "time_ns,ho", 7, "the file ends before the column row");
	check_error("# perfscope lo", 1, "empty file");
	check_error(HEAD "time_ns,host,rank0,rank2\n", 7, "column 4 is 'rank2', expected 'rank1'");
	check_error(HEAD "time_ns,host,rank0\n", 7, "1 rank columns for 2");
	check_error(HEAD "time,host,rank0,rank1\n", 7, "expected the column row");
	check_error(HEAD COLS "100,0.5,1,1\n100,0.5,1,1\n", 9, "time 100 not after");
	check_error(HEAD COLS "x,0.5,1,1\n", 8, "expected a time in ns");
	check_error(HEAD COLS "100,1.5,1,1\n", 8, "expected the host's busy share");
	check_error(HEAD COLS "100,0.5,-1,1\n", 8, "rank 0: expected a CPU share");
	check_error(HEAD COLS "100,0.5,1,nan\n", 8, "rank 1: expected a CPU share");
	/* more CPUs than any host has: damage, and the weighted mean would overflow to inf */
	check_error(HEAD COLS "100,0.5,1e300,1\n200,0.5,1e300,1\n", 8,
		    "rank 0: expected a CPU share");
	check_error(HEAD COLS "100,0.5,1\n", 8, "1 rank values, expected 2");
	check_error(HEAD COLS "100,0.5,1,1,1\n", 8, "more than 2 rank values");
	check_error(HEAD COLS "100,0.5,1,1\n# late comment\n", 9, "expected a time in ns");
}

static void test_missing_file(void **state)
{
	struct load_log log;
	char err[512] = "", path[PATH_MAX + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/nothing", dir);
	assert_int_equal(load_log_read(&log, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "nothing: "));
}

#define LOG_B                                                                                      \
	"# perfscope load 1\n# host h0\n# period_ns 100\n# cpus 4\n# rank 2 pid 200\n"             \
	"time_ns,host,rank2\n5100,0.2500,2.0000\n5200,0.7500,-\n"

static void test_set_and_print(void **state)
{
	struct experiment e;
	struct load_set set;
	char err[512] = "", path[PATH_MAX + 16], *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.dir = dir;
	remove(logpath);
	assert_int_equal(load_set_read(&set, dir, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no load logs"));

	tmpdir_write(logpath, HEAD COLS "1100,0.5000,1.0000,0.2500\n1200,1.0000,-,0.7500\n");
	snprintf(path, sizeof(path), "%s/load.h0.200", dir);
	tmpdir_write(path, LOG_B);
	if (load_set_read(&set, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(set.nlogs, 2);
	assert_string_equal(set.logs[0].host, "h1"); /* by first rank, not by name */
	assert_int_equal(set.nranks, 3);
	assert_int_equal(set.ranks[2].rank, 2);
	assert_int_equal(set.ranks[2].log, 1);
	assert_float_equal(set.ranks[2].st.mean, 2.0, EPS);
	assert_float_equal(set.busy[1].mean, 0.5, EPS);
	load_set_release(&set);

	f = open_memstream(&buf, &len);
	assert_int_equal(load_print(f, &e, LOAD_FORMAT_CSV, err, sizeof(err)), 0);
	fclose(f);
	assert_string_equal(buf, "host,rank,pid,samples,mean,min,max\n"
				 "h1,host,,2,0.7500,0.5000,1.0000\n"
				 "h0,host,,2,0.5000,0.2500,0.7500\n"
				 "h1,0,100,1,1.0000,1.0000,1.0000\n"
				 "h1,1,101,2,0.5000,0.2500,0.7500\n"
				 "h0,2,200,1,2.0000,2.0000,2.0000\n"
				 "\n"
				 "host,rank,time_ns,share\n"
				 "h1,host,1100,0.5000\n"
				 "h1,0,1100,1.0000\n"
				 "h1,1,1100,0.2500\n"
				 "h1,host,1200,1.0000\n"
				 "h1,1,1200,0.7500\n"
				 "h0,host,5100,0.2500\n"
				 "h0,2,5100,2.0000\n"
				 "h0,host,5200,0.7500\n");
	free(buf);

	f = open_memstream(&buf, &len);
	assert_int_equal(load_print(f, &e, LOAD_FORMAT_JSON, err, sizeof(err)), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"share\": [\n"));
	assert_non_null(strstr(buf, "null"));
	assert_non_null(strstr(buf, "\"file\": \"load.h0.200\""));
	free(buf);

	/* a rank in two logs */
	snprintf(path, sizeof(path), "%s/load.h2.300", dir);
	tmpdir_write(path, "# perfscope load 1\n# host h2\n# period_ns 100\n# rank 1 pid 300\n"
			   "time_ns,host,rank1\n");
	assert_int_equal(load_set_read(&set, dir, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rank 1 is also in"));
	/* a bad log stops the set with its message */
	tmpdir_write(path, "# perfscope load 1\n# host h2\n");
	assert_int_equal(load_print(stdout, &e, LOAD_FORMAT_TEXT, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "load.h2.300: line 3: the file ends before the column row"));
	remove(path);
	snprintf(path, sizeof(path), "%s/load.h0.200", dir);
	remove(path);
}

/* Text merges 100 samples into rows of 3 (at most LOAD_TEXT_ROWS rows), times from origin. */
static void test_text_rows(void **state)
{
	struct experiment e;
	char err[512] = "", *buf = NULL, *p;
	size_t len = 0, rows = 0;
	FILE *f = fopen(logpath, "w");

	(void)state;
	assert_non_null(f);
	fputs("# perfscope load 1\n# host h1\n# period_ns 1000000\n# cpus 2\n# rank 0 pid 100\n"
	      "time_ns,host,rank0\n",
	      f);
	for (int i = 1; i <= 100; i++)
		fprintf(f, "%d,%.4f,%.4f\n", 1000000 * (i + 10), i <= 99 ? 0.5 : 1.0, 1.0);
	fclose(f);
	memset(&e, 0, sizeof(e));
	e.dir = dir;
	e.start_ns = 10000000;
	f = open_memstream(&buf, &len);
	if (load_print(f, &e, LOAD_FORMAT_TEXT, err, sizeof(err)))
		fail_msg("%s", err);
	fclose(f);
	assert_non_null(strstr(buf, "1 host, 1 rank, 100 samples, every 1.00 ms"));
	assert_non_null(strstr(buf, "each row the mean of 3 samples"));
	p = strstr(buf, "Load over time");
	assert_non_null(p);
	for (; (p = strchr(p, '\n')); p++)
		rows++;
	assert_int_equal(rows, 4 + 34); /* heading, blank, header, rule; 33 rows of 3, 1 of 1 */
	assert_non_null(strstr(buf, "0.003   50.0 %")); /* first row ends at sample 3 */
	assert_non_null(strstr(buf, "0.100  100.0 %")); /* the last sample alone */
	assert_non_null(strstr(buf, "0.099   50.0 %"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_values),	 cmocka_unit_test(test_read_errors),
	    cmocka_unit_test(test_missing_file), cmocka_unit_test(test_set_and_print),
	    cmocka_unit_test(test_text_rows),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
