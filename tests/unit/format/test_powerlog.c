/*
 * test_powerlog.c - the power log reader (src/format/powerlog.h) on hand-written logs: exact
 * joules, unwrapping across a wraparound, a counter that never moves, every error with its
 * line number, a last line cut short; and the launcher's power sampler (power-sampler.h) on a
 * fake powercap tree, its log read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/power-sampler.h"
#include "record/powercap.h"
#include "format/powerlog.h"

#define EPS 1e-12

static char dir[PATH_MAX];
static char logpath[PATH_MAX + 16];

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "powerlog"))
		return -1;
	snprintf(logpath, sizeof(logpath), "%s/power.rapl", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

static void read_ok(struct power_series *ps, const char *text)
{
	char err[512] = "";

	tmpdir_write(logpath, text);
	if (power_log_read(ps, logpath, err, sizeof(err)))
		fail_msg("%s", err);
}

#define HEAD "# perfscope power 1\n# source rapl\n# period_ns 10000000\n"

static void test_exact_joules(void **state)
{
	struct power_series ps;

	(void)state;
	read_ok(&ps, HEAD "# a comment line\n"
			  "# column package-0 uJ 1e-06 262143328850\n"
			  "# column package-0/dram uJ 1e-06 65712999613\n"
			  "# column psys uJ 1e-06 262143328850\n"
			  "time_ns,package-0,package-0/dram,psys\n"
			  "1000000000,5000000,100,42\n"
			  "1010000000,5500000,150,42\n"
			  "# a comment between rows\n"
			  "1030000000,6500000,150,42\n");
	assert_string_equal(ps.source, "rapl");
	assert_int_equal(ps.n, 3);
	assert_non_null(ps.t);
	assert_true(ps.t[0] == 1e9 && ps.t[1] == 1.01e9 && ps.t[2] == 1.03e9);
	assert_true(power_time(&ps, 2) == 1.03e9);
	assert_int_equal(ps.nch, 3);
	assert_string_equal(ps.ch[0].name, "package-0");
	assert_string_equal(ps.ch[1].name, "package-0/dram");
	assert_string_equal(ps.ch[2].name, "psys");
	for (size_t c = 0; c < 3; c++)
		assert_int_equal(ps.ch[c].kind, POWER_JOULES);
	assert_float_equal(ps.ch[0].v[0], 0, EPS);
	assert_float_equal(ps.ch[0].v[1], 0.5, EPS);
	assert_float_equal(ps.ch[0].v[2], 1.5, EPS);
	assert_float_equal(ps.ch[1].v[1], 50e-6, EPS);
	assert_float_equal(ps.ch[1].v[2], 50e-6, EPS);
	assert_true(ps.ch[0].advancing);
	assert_true(ps.ch[1].advancing);
	/* psys never moved: a zone that does not work here */
	assert_false(ps.ch[2].advancing);
	assert_true(ps.ch[2].v[2] == 0);
	/* mean power of every interval, in W */
	assert_int_equal(ps.ncols, 3);
	assert_string_equal(ps.cols[0].name, "package-0");
	assert_string_equal(ps.cols[0].unit, "W");
	assert_int_equal(ps.cols[0].n, 2);
	assert_float_equal(ps.cols[0].v[0], 50, 1e-9);
	assert_float_equal(ps.cols[0].v[1], 50, 1e-9);
	assert_float_equal(ps.cols[1].v[0], 0.005, 1e-12);
	assert_float_equal(ps.cols[1].v[1], 0, 1e-12);
	assert_float_equal(ps.cols[2].v[0], 0, 0);
	power_series_release(&ps);
	assert_null(ps.ch);
	assert_int_equal(ps.n, 0);
}

/* A counter that wraps at 1000 in the middle of the run, once exactly onto 0, and a perf
 * counter that does not wrap near 2^63: the energy is the sum of the true increments. */
static void test_unwrap(void **state)
{
	static const unsigned raw[] = {500, 800, 100, 400, 700, 0, 300};
	char text[2048];
	size_t off;
	struct power_series ps;

	(void)state;
	off = (size_t)snprintf(text, sizeof(text),
			       "# perfscope power 1\n# source perf\n"
			       "# column energy-pkg uJ 0.001 1000\n"
			       "# column energy-big Joules 2.3283064365386962890625e-10 0\n"
			       "time_ns,energy-pkg,energy-big\n");
	for (size_t i = 0; i < 7; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%zu,%u,%llu\n",
					5000 + i * 1000, raw[i],
					9223372036854775000ull + i * 4294967296ull);
	read_ok(&ps, text);
	assert_string_equal(ps.source, "perf");
	assert_int_equal(ps.n, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_float_equal(ps.ch[0].v[i], (double)(i * 300) * 0.001, EPS);
		assert_float_equal(ps.ch[1].v[i], (double)i, EPS);
	}
	for (size_t i = 0; i < 6; i++) {
		/* 0.3 J per microsecond */
		assert_float_equal(ps.cols[0].v[i], 300000, 1e-6);
		assert_float_equal(ps.cols[1].v[i], 1e6, 1e-6);
	}
	assert_true(ps.ch[0].advancing && ps.ch[1].advancing);
	power_series_release(&ps);
}

/* A launcher killed while writing leaves a row cut short: the rows before it stand. */
static void test_truncated_last_line(void **state)
{
	static const char *const tails[] = {"3000,65", "3000,650,9", "3000,", "3"};
	struct power_series ps;
	char text[512];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		snprintf(text, sizeof(text),
			 HEAD "# column a uJ 1e-06 0\n# column b uJ 1e-06 0\ntime_ns,a,b\n"
			      "1000,10,5\n2000,20,7\n%s",
			 tails[i]);
		read_ok(&ps, text);
		assert_int_equal(ps.n, 2);
		assert_float_equal(ps.ch[0].v[1], 10e-6, EPS);
		assert_int_equal(ps.cols[0].n, 1);
		power_series_release(&ps);
	}
	/* a single reading: a series without intervals */
	read_ok(&ps, HEAD "# column a uJ 1e-06 0\ntime_ns,a\n1000,10\n");
	assert_int_equal(ps.n, 1);
	assert_false(ps.ch[0].advancing);
	assert_int_equal(ps.cols[0].n, 0);
	power_series_release(&ps);
}

struct bad_log {
	const char *text;
	const char *message; /* after "PATH: " */
};

static void test_errors(void **state)
{
#define COLS "# column a uJ 1e-06 100\n# column b uJ 1e-06 0\n"
	static const struct bad_log bad[] = {
	    {"", "line 1: expected '# perfscope power 1', found an empty file"},
	    {"# perfscope power 2\n", "line 1: expected '# perfscope power 1', found '# perfscope "
				      "power 2'"},
	    {"# perfscope power 1", "line 1: the file ends inside its header"},
	    {HEAD "# column a uJ 1e-06\n",
	     "line 4: expected '# column NAME UNIT SCALE WRAP' (4 fields), found 3"},
	    {HEAD "# column a uJ 1e-06 0 x\n",
	     "line 4: expected '# column NAME UNIT SCALE WRAP' (4 fields), found 5"},
	    {HEAD "# column a,b uJ 1e-06 0\n", "line 4: column name 'a,b' holds a comma"},
	    {HEAD "# column a uJ abc 0\n",
	     "line 4: column a: scale 'abc' is not a positive number"},
	    {HEAD "# column a uJ 0 0\n", "line 4: column a: scale '0' is not a positive number"},
	    {HEAD "# column a uJ -1e-6 0\n",
	     "line 4: column a: scale '-1e-6' is not a positive number"},
	    {HEAD "# column a uJ 1e-06 -5\n",
	     "line 4: column a: wrap '-5' is not a decimal count (0: does not wrap)"},
	    {HEAD "# column a uJ 1e-06 0\n# column a uJ 1e-06 0\n",
	     "line 5: column 'a' appears twice"},
	    {HEAD "# source perf\n", "line 4: a second '# source' line"},
	    {"# perfscope power 1\n# source \n",
	     "line 2: expected '# source NAME', found '# source '"},
	    {HEAD "# period_ns 0\n", "line 4: expected '# period_ns N' with N > 0, found "
				     "'# period_ns 0'"},
	    {"# perfscope power 1\n# column a uJ 1e-06 0\ntime_ns,a\n",
	     "line 3: expected a '# source NAME' line before the header row"},
	    {HEAD "time_ns\n", "line 4: expected '# column' lines before the header row"},
	    {HEAD COLS "time_ns,b,a\n", "line 6: expected the header row 'time_ns,a,b', found "
					"'time_ns,b,a'"},
	    {HEAD COLS "time_ns,a\n", "line 6: expected the header row 'time_ns,a,b', found "
				      "'time_ns,a'"},
	    {HEAD COLS, "line 6: expected the header row 'time_ns,...', found the end"},
	    {HEAD COLS "time_ns,a,b\n", "line 7: expected a reading after the header row, found "
					"the end"},
	    {HEAD COLS "time_ns,a,b\n1,2\n",
	     "line 7: expected 3 fields (time_ns and 2 counters), found 2"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n4,5,6,7\n",
	     "line 8: expected 3 fields (time_ns and 2 counters), found 4"},
	    {HEAD COLS "time_ns,a,b\n1.5,2,3\n", "line 7: time_ns '1.5' is not a decimal count of "
						 "ns"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n2,x,3\n", "line 8: a: 'x' is not a decimal counter "
						      "value"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n2,3,-4\n", "line 8: b: '-4' is not a decimal counter "
						       "value"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n2,3,\n", "line 8: b: '' is not a decimal counter "
						     "value"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n2,3, 4\n", "line 8: b: ' 4' is not a decimal counter "
						       "value"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n1,3,4\n", "line 8: time 1 is not after the previous "
						      "row's 1"},
	    {HEAD COLS "time_ns,a,b\n5,2,3\n4,3,4\n", "line 8: time 4 is not after the previous "
						      "row's 5"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n2,3,4\n3,4,2\n",
	     "line 9: b: counter went backwards (2 after 4) and does not wrap (WRAP 0)"},
	    {HEAD COLS "time_ns,a,b\n1,101,3\n", "line 7: a: 101 is above its wrap value 100"},
	    {HEAD COLS "time_ns,a,b\n1,2,3\n# column c uJ 1 0\n",
	     "line 8: a '# column' line after the header row"},
	    {HEAD COLS "time_ns,a,b\n1,2,99999999999999999999\n",
	     "line 7: b: '99999999999999999999' is not a decimal counter value"},
	};
	struct power_series ps;
	char err[PATH_MAX + 512], want[PATH_MAX + 512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tmpdir_write(logpath, bad[i].text);
		memset(&ps, 0x5a, sizeof(ps));
		if (power_log_read(&ps, logpath, err, sizeof(err)) != -EINVAL)
			fail_msg("log %zu was accepted", i);
		snprintf(want, sizeof(want), "%s: %s", logpath, bad[i].message);
		if (strcmp(err, want))
			fail_msg("log %zu:\n got  %s\n want %s", i, err, want);
		/* nothing is left to free */
		assert_null(ps.ch);
		assert_null(ps.t);
		assert_null(ps.source);
		assert_int_equal(ps.n, 0);
	}
#undef COLS
}

static void test_missing_file(void **state)
{
	struct power_series ps;
	char err[512], want[PATH_MAX + 64];

	(void)state;
	snprintf(want, sizeof(want), "%s/nothing", dir);
	assert_int_equal(power_log_read(&ps, want, err, sizeof(err)), -ENOENT);
	strcat(want, ": No such file or directory");
	assert_string_equal(err, want);
}

/* ---- the sampler's log, read back ---- */

static void put_zone(const char *zone, const char *name, const char *energy)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/pc/%s", dir, zone);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/pc/%s/name", dir, zone);
	tmpdir_write(path, name);
	snprintf(path, sizeof(path), "%s/pc/%s/max_energy_range_uj", dir, zone);
	tmpdir_write(path, "262143328850\n");
	snprintf(path, sizeof(path), "%s/pc/%s/energy_uj", dir, zone);
	tmpdir_write(path, energy);
}

static void test_sampler_log(void **state)
{
	struct power_source src;
	struct power_sampler smp;
	struct power_series ps;
	char root[PATH_MAX + 8], path[PATH_MAX + 64], err[512] = "";
	struct timespec pause = {0, 5000000};
	int fd;

	(void)state;
	snprintf(root, sizeof(root), "%s/pc", dir);
	mkdir(root, 0755);
	put_zone("intel-rapl:0", "package-0\n", "1000\n");
	put_zone("intel-rapl:1", "psys\n", "7\n");
	assert_int_equal(powercap_open(&src, root, err, sizeof(err)), 0);
	assert_int_equal(src.n, 2);
	assert_int_equal(power_sampler_start(&smp, &src, POWER_PERIOD_MIN_NS - 1, dir), -EINVAL);
	assert_int_equal(power_sampler_start(&smp, &src, POWER_PERIOD_MIN_NS, dir), 0);
	nanosleep(&pause, NULL);
	/* in place and one digit: a reading sees the old or the new value, never a torn one */
	snprintf(path, sizeof(path), "%s/pc/intel-rapl:0/energy_uj", dir);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "6", 1, 1), 1); /* 1000 -> 1600 */
	close(fd);
	assert_int_equal(power_sampler_finish(&smp), 0);
	assert_true(smp.readings >= 2);
	assert_true(power_sampler_advanced(&smp, 0));
	assert_false(power_sampler_advanced(&smp, 1));

	if (power_log_read(&ps, logpath, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(ps.source, "rapl");
	assert_int_equal(ps.n, smp.readings);
	assert_int_equal(ps.nch, 2);
	assert_string_equal(ps.ch[0].name, "package-0");
	assert_string_equal(ps.ch[1].name, "psys");
	assert_float_equal(ps.ch[0].v[0], 0, EPS);
	assert_float_equal(ps.ch[0].v[ps.n - 1], 600e-6, EPS);
	assert_true(ps.ch[0].advancing);
	assert_false(ps.ch[1].advancing);
	power_series_release(&ps);
	power_sampler_release(&smp);
	power_source_close(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_joules),	cmocka_unit_test(test_unwrap),
	    cmocka_unit_test(test_truncated_last_line), cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_missing_file),	cmocka_unit_test(test_sampler_log),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
