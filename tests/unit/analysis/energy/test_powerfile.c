/*
 * test_powerfile.c - the power meter file reader (powerfile.h): the format and scale
 * specifications with every error, every file layout (watts at a fixed rate, a time column,
 * volts and amps through a divider, skipped columns, mixed separators, comments, CRLF, no
 * final newline, a pipe), every error message with its line number, lines across the
 * reader's 1 MiB blocks, and the hand-written number parser against strtod on random numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/energy/powerfile.h"

#define START 1e12 /* the experiment's start on its clock, ns */

static char dir[] = "/tmp/test_powerfile.XXXXXX";
static char path[sizeof(dir) + 16];
static char err[512];

static int make_dir(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/p.txt", dir);
	return 0;
}

static int remove_dir(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void put_bytes(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* TEXT as the file, read with FORMAT and SCALE (NULL: the default spec) and RATE. */
static int read_text(struct power_series *ps, const char *text, const char *format,
		     const char *scale, double rate, double offset)
{
	struct power_file_spec spec;

	power_file_spec_init(&spec);
	spec.rate_hz = rate;
	spec.offset_ns = offset;
	if (format)
		assert_int_equal(power_file_spec_parse(&spec, format, scale, err, sizeof(err)), 0);
	put_bytes(text, strlen(text));
	err[0] = 0;
	return power_file_read(ps, path, &spec, START, err, sizeof(err));
}

/* Reading TEXT fails with "PATH: " MSG. */
static void expect_fail(const char *text, const char *format, const char *scale, const char *msg)
{
	struct power_series ps;
	char want[600];

	snprintf(want, sizeof(want), "%s: %s", path, msg);
	assert_int_equal(read_text(&ps, text, format, scale, 20000, 0), -EINVAL);
	assert_string_equal(err, want);
	assert_null(ps.ch);
	assert_int_equal(ps.n, 0);
}

static void expect_watts(const struct power_series *ps, const double *w, size_t n)
{
	size_t i;

	assert_int_equal(ps->n, n);
	assert_int_equal(ps->nch, 1);
	assert_string_equal(ps->ch[0].name, "power");
	assert_int_equal(ps->ch[0].kind, POWER_WATTS);
	assert_int_equal(ps->ch[0].advancing, 1);
	assert_string_equal(ps->source, path);
	for (i = 0; i < n; i++)
		assert_true(ps->ch[0].v[i] == w[i]);
}

/* ---- specifications ------------------------------------------------------------------------- */

static void test_spec_default(void **state)
{
	struct power_file_spec s;

	(void)state;
	power_file_spec_init(&s);
	assert_int_equal(s.ncols, 1);
	assert_int_equal(s.role[0], PCOL_WATTS);
	assert_true(s.scale[0] == 1);
	assert_true(s.rate_hz == 20000);
	assert_true(s.offset_ns == 0);
}

static void test_spec_parse(void **state)
{
	struct power_file_spec s;

	(void)state;
	power_file_spec_init(&s);
	s.rate_hz = 1000;
	s.offset_ns = -5;
	assert_int_equal(
	    power_file_spec_parse(&s, "skip, time,Volts ,amps", "2, 0.5", err, sizeof(err)), 0);
	assert_int_equal(s.ncols, 4);
	assert_int_equal(s.role[0], PCOL_SKIP);
	assert_int_equal(s.role[1], PCOL_TIME);
	assert_int_equal(s.role[2], PCOL_VOLTS);
	assert_int_equal(s.role[3], PCOL_AMPS);
	assert_true(s.scale[0] == 1 && s.scale[1] == 1 && s.scale[2] == 2 && s.scale[3] == 0.5);
	assert_true(s.rate_hz == 1000 && s.offset_ns == -5); /* kept */

	/* a new format resets the scales; two skipped columns are fine */
	assert_int_equal(power_file_spec_parse(&s, "skip,watts,skip", NULL, err, sizeof(err)), 0);
	assert_int_equal(s.ncols, 3);
	assert_int_equal(s.role[1], PCOL_WATTS);
	assert_true(s.scale[2] == 1 && s.scale[3] == 1);
	assert_int_equal(power_file_spec_parse(&s, "time,watts", "1e3", err, sizeof(err)), 0);
	assert_true(s.scale[0] == 1 && s.scale[1] == 1000);
}

static void spec_fails(const char *format, const char *scale, const char *msg)
{
	struct power_file_spec s, before;

	power_file_spec_init(&s);
	before = s;
	err[0] = 0;
	assert_int_equal(power_file_spec_parse(&s, format, scale, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
	assert_memory_equal(&s, &before, sizeof(s)); /* untouched */
}

static void test_spec_errors(void **state)
{
	(void)state;
	spec_fails("foo", NULL,
		   "format 'foo': unknown column 'foo': expected time, watts, volts, amps or skip");
	spec_fails("time,,watts", NULL,
		   "format 'time,,watts': unknown column '': expected time, watts, volts, amps or "
		   "skip");
	spec_fails(
	    " ", NULL,
	    "format ' ': no columns: expected roles such as watts, time,watts or volts,amps");
	spec_fails("watts,watts", NULL, "format 'watts,watts': watts given twice");
	spec_fails("time,watts,time", NULL, "format 'time,watts,time': time given twice");
	spec_fails("watts,volts,amps", NULL,
		   "format 'watts,volts,amps': both watts and volts/amps: expected watts, or volts "
		   "and amps");
	spec_fails("time,volts", NULL,
		   "format 'time,volts': volts without amps: expected watts, or volts and amps");
	spec_fails("amps", NULL,
		   "format 'amps': amps without volts: expected watts, or volts and amps");
	spec_fails("time,skip", NULL,
		   "format 'time,skip': no power column: expected watts, or volts and amps");
	spec_fails("skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,"
		   "skip,watts",
		   NULL,
		   "format 'skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,skip,"
		   "skip,skip,watts': more than 16 columns");
	spec_fails("volts,amps", "2", "scale '2': 1 factor for 2 value columns (volts,amps)");
	spec_fails("time,watts", "2,1", "scale '2,1': 2 factors for 1 value column (watts)");
	spec_fails("watts", "0", "scale '0': '0': expected a number above 0");
	spec_fails("volts,amps", "2,-1", "scale '2,-1': '-1': expected a number above 0");
	spec_fails("watts", "inf", "scale 'inf': 'inf': expected a number above 0");
	spec_fails("watts", "nan", "scale 'nan': 'nan': expected a number above 0");
	spec_fails("watts", "2x", "scale '2x': '2x': expected a number above 0");
	spec_fails("volts,amps", "2,,1", "scale '2,,1': '': expected a number above 0");
	spec_fails("watts", "", "scale '': '': expected a number above 0");
}

/* ---- layouts -------------------------------------------------------------------------------- */

static void test_watts_rate(void **state)
{
	struct power_series ps;
	const double w[] = {1.5, 2, 2.5, 0};

	(void)state;
	assert_int_equal(read_text(&ps, "1.5\n2\n2.5\n0\n", NULL, NULL, 20000, 0), 0);
	expect_watts(&ps, w, 4);
	assert_null(ps.t);
	assert_true(ps.t0 == START);
	assert_true(ps.dt == 50000);
	assert_int_equal(ps.ncols, 0); /* watts only: the channel is the column */
	assert_true(power_time(&ps, 3) == START + 150000);
	power_series_release(&ps);

	assert_int_equal(read_text(&ps, "1.5\n2\n2.5\n0", "watts", NULL, 1000, -2e6), 0);
	expect_watts(&ps, w, 4);
	assert_true(ps.t0 == START - 2e6);
	assert_true(ps.dt == 1e6);
	power_series_release(&ps);
}

static void test_time_watts(void **state)
{
	struct power_series ps;
	const double w[] = {1, 2, 3, 4};

	(void)state;
	assert_int_equal(
	    read_text(&ps, "-0.5,1\n0,2\n0.25,3\n1e0,4\n", "time,watts", "10", 20000, 5), 0);
	expect_watts(&ps, (const double[]){10, 20, 30, 40}, 4);
	assert_non_null(ps.t);
	assert_true(ps.t[0] == START + 5 - 5e8); /* before the start: allowed */
	assert_true(ps.t[1] == START + 5);
	assert_true(ps.t[2] == START + 5 + 2.5e8);
	assert_true(ps.t[3] == START + 5 + 1e9);
	assert_int_equal(ps.ncols, 0);
	power_series_release(&ps);

	/* the time column after the power column */
	assert_int_equal(
	    read_text(&ps, "1 0\n2 1e-3\n3 2E-3\n4 3.0e-3\n", "watts,time", NULL, 0, 0), 0);
	expect_watts(&ps, w, 4);
	assert_true(ps.t[3] == START + 3e6);
	power_series_release(&ps);
}

static void test_volts_amps(void **state)
{
	struct power_series ps;

	(void)state;
	assert_int_equal(
	    read_text(&ps, "# meter v1\n6 0.5\n6.5,0.25\n", "volts,amps", "2,1", 20000, 0), 0);
	expect_watts(&ps, (const double[]){6, 3.25}, 2);
	assert_int_equal(ps.ncols, 2);
	assert_string_equal(ps.cols[0].name, "volts");
	assert_string_equal(ps.cols[0].unit, "V");
	assert_string_equal(ps.cols[1].name, "amps");
	assert_string_equal(ps.cols[1].unit, "A");
	assert_int_equal(ps.cols[0].n, 2);
	assert_int_equal(ps.cols[1].n, 2);
	assert_true(ps.cols[0].v[0] == 12 && ps.cols[0].v[1] == 13);
	assert_true(ps.cols[1].v[0] == 0.5 && ps.cols[1].v[1] == 0.25);
	power_series_release(&ps);

	/* amps first, with a time and skipped columns */
	assert_int_equal(read_text(&ps, "x 0.001 2 5 y\nz 0.002 4 5 w\n",
				   "skip,time,amps,volts,skip", "1,3", 20000, 0),
			 0);
	expect_watts(&ps, (const double[]){30, 60}, 2);
	assert_true(ps.cols[0].v[1] == 15 && ps.cols[1].v[1] == 4);
	assert_true(ps.t[0] == START + 1e6 && ps.t[1] == START + 2e6);
	power_series_release(&ps);
}

static void test_separators_comments(void **state)
{
	struct power_series ps;
	const char *text = "# header line\n"
			   "1 2\n"
			   "3,4\n"
			   "5\t6\n"
			   "  7 ,\t8  \n"
			   "\n"
			   "\t \n"
			   "9\t,10,\n" /* a trailing comma */
			   "11 12 # trailing comment, with 3 4\n"
			   "   # indented comment\n"
			   "13,\t 14\t#c\n"
			   "#\n";

	(void)state;
	assert_int_equal(read_text(&ps, text, "volts,amps", NULL, 20000, 0), 0);
	expect_watts(&ps, (const double[]){2, 12, 30, 56, 90, 132, 182}, 7);
	power_series_release(&ps);
}

static void test_crlf_and_last_line(void **state)
{
	struct power_series ps;

	(void)state;
	assert_int_equal(read_text(&ps, "0,1\r\n\r\n# c\r\n1,2 \r\n2,3", "time,watts", NULL, 0, 0),
			 0);
	expect_watts(&ps, (const double[]){1, 2, 3}, 3);
	assert_true(ps.t[2] == START + 2e9);
	power_series_release(&ps);

	assert_int_equal(read_text(&ps, "7 # no newline", NULL, NULL, 20000, 0), 0);
	expect_watts(&ps, (const double[]){7}, 1);
	power_series_release(&ps);
}

static void test_number_forms(void **state)
{
	struct power_series ps;
	const char *text = "1e3\n1.5E-3\n+2.5e+1\n.5\n5.\n-0\n0x10\n0.000012345\n"
			   "12345678901234567890\n1e-400\n00012.50\n1E22\n1e23\n";
	const double w[] = {
	    1e3, 1.5e-3, 2.5e1, .5,  5., -0.0, 16, 0.000012345, 12345678901234567890.0,
	    0,	 12.5,	 1e22,	1e23};

	(void)state;
	assert_int_equal(read_text(&ps, text, NULL, NULL, 20000, 0), 0);
	expect_watts(&ps, w, sizeof(w) / sizeof(w[0]));
	power_series_release(&ps);
}

static void test_pipe(void **state)
{
	struct power_series ps;
	struct power_file_spec spec;
	char p[64];
	int fd[2];

	(void)state;
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], "1\n2\n3", 5), 5);
	close(fd[1]);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd[0]);
	power_file_spec_init(&spec);
	assert_int_equal(power_file_read(&ps, p, &spec, START, err, sizeof(err)), 0);
	close(fd[0]);
	assert_int_equal(ps.n, 3);
	assert_true(ps.ch[0].v[2] == 3);
	assert_string_equal(ps.source, p);
	power_series_release(&ps);
}

/* The example files of docs/power-files.md, with the options it gives for each. */
static void test_example_files(void **state)
{
	const char *ex = PSC_TEST_DATA_DIR "/../../examples/power";
	struct power_file_spec spec;
	struct power_series ps;
	char p[512];

	(void)state;
	power_file_spec_init(&spec);
	snprintf(p, sizeof(p), "%s/watts-20khz.txt", ex);
	assert_int_equal(power_file_read(&ps, p, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, 8);
	assert_true(ps.ch[0].v[0] == 12.503 && ps.ch[0].v[7] == 12.530);
	power_series_release(&ps);

	assert_int_equal(power_file_spec_parse(&spec, "time,watts", NULL, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/time-watts.csv", ex);
	assert_int_equal(power_file_read(&ps, p, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, 5);
	assert_true(ps.t[4] == START + 2e6 && ps.ch[0].v[4] == 13.98);
	power_series_release(&ps);

	assert_int_equal(power_file_spec_parse(&spec, "volts,amps", "2,1", err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/volts-amps.txt", ex);
	assert_int_equal(power_file_read(&ps, p, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, 5);
	assert_true(ps.cols[0].v[0] == 12.004 && ps.cols[1].v[0] == 2.083);
	assert_true(ps.ch[0].v[0] == 12.004 * 2.083);
	assert_true(ps.cols[1].v[2] == 2.340); /* the line with a trailing comment */
	power_series_release(&ps);
}

/* ---- errors --------------------------------------------------------------------------------- */

static void test_errors(void **state)
{
	(void)state;
	expect_fail("# c\n\n1 2\n3\n", "volts,amps", NULL,
		    "line 4: expected 2 numbers (volts,amps), found 1");
	expect_fail("1 2\n1 2 3\n", "volts,amps", NULL,
		    "line 2: expected 2 numbers (volts,amps), found 3");
	expect_fail("1,2\n", NULL, NULL, "line 1: expected 1 number (watts), found 2");
	expect_fail("1 2 # x\n", NULL, NULL, "line 1: expected 1 number (watts), found 2");
	expect_fail("1,2,,3 4\n", NULL, NULL, "line 1: expected 1 number (watts), found 4");
	expect_fail("a\n", "skip,watts", NULL, "line 1: expected 2 columns (skip,watts), found 1");
	expect_fail("1 # 2\n", "time,watts", NULL,
		    "line 1: expected 2 numbers (time,watts), found 1");
	expect_fail("1 2\n\n1 abc\n", "volts,amps", NULL,
		    "line 3: not a number: 'abc' (column 2, amps)");
	expect_fail("time,watts\n0,1\n", "time,watts", NULL,
		    "line 1: not a number: 'time' (column 1, time); a header line must start with "
		    "'#'");
	expect_fail("1\n1.2.3\n", NULL, NULL, "line 2: not a number: '1.2.3' (column 1, watts)");
	expect_fail("1\n1e\n", NULL, NULL, "line 2: not a number: '1e' (column 1, watts)");
	expect_fail("1\n-\n", NULL, NULL, "line 2: not a number: '-' (column 1, watts)");
	expect_fail("1\n12345678901234567890123456789012345\n2x\n", NULL, NULL,
		    "line 3: not a number: '2x' (column 1, watts)");
	expect_fail(
	    "1\n123456789012345678901234567890123456789x\n", NULL, NULL,
	    "line 2: not a number: '12345678901234567890123456789012...' (column 1, watts)");
	expect_fail("1\n2\x01\n", NULL, NULL, "line 2: not a number: '2?' (column 1, watts)");
	put_bytes("1\n2\0\n", 5);
	{
		struct power_file_spec spec;
		struct power_series ps;
		char want[600];

		power_file_spec_init(&spec);
		snprintf(want, sizeof(want), "%s: line 2: not a number: '2?' (column 1, watts)",
			 path);
		assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, want);
	}
	expect_fail("# c\n1\n-3.2\n", NULL, NULL, "line 3: negative value -3.2 (column 1, watts)");
	expect_fail("1 -0.5\n", "volts,amps", NULL, "line 1: negative value -0.5 (column 2, amps)");
	expect_fail("\n\nnan\n", NULL, NULL, "line 3: NaN: 'nan' (column 1, watts)");
	expect_fail("NAN(1)\n", NULL, NULL, "line 1: NaN: 'NAN(1)' (column 1, watts)");
	expect_fail("nan,1\n", "time,watts", NULL, "line 1: NaN: 'nan' (column 1, time)");
	expect_fail("inf\n", NULL, NULL, "line 1: infinite: 'inf' (column 1, watts)");
	expect_fail("1,-Infinity\n", "watts,time", NULL,
		    "line 1: infinite: '-Infinity' (column 2, time)");
	expect_fail("1e999\n", NULL, NULL, "line 1: infinite: '1e999' (column 1, watts)");
	expect_fail("1e308\n", "watts", "10", "line 1: power out of range after scaling");
	expect_fail("1e200 1e200\n", "volts,amps", NULL,
		    "line 1: power out of range after scaling");
	expect_fail("1.3,1\n\n1.2,1\n", "time,watts", NULL,
		    "line 3: time 1.2 s is not after the previous 1.3 s");
	expect_fail("0,1\n5e-05,1\n0.00005,1\n", "time,watts", NULL,
		    "line 3: time 5e-05 s is not after the previous 5e-05 s");
	expect_fail(
	    "0,1\n1.0000000000000002,1\n1.0000000000000002,1\n", "time,watts", NULL,
	    "line 3: time 1.0000000000000002 s is not after the previous 1.0000000000000002 s");
	/* different in seconds, the same on the experiment's clock (1e12 ns + 1 s) */
	expect_fail("1,1\n1.0000000000000002,1\n", "time,watts", NULL,
		    "line 2: time 1.0000000000000002 s is not after the previous 1 s");
	expect_fail("1,,2\n", "volts,amps", NULL, "line 1: column 2 (amps) is empty");
	expect_fail(",1\n", NULL, NULL, "line 1: column 1 (watts) is empty");
	expect_fail("1\r2\n", "volts,amps", NULL, "line 1: carriage return inside the line");
	expect_fail("1\r\r\n", NULL, NULL, "line 1: carriage return inside the line");
	expect_fail("", NULL, NULL, "no samples");
	expect_fail("# only a comment\n\n  \r\n", NULL, NULL, "no samples");
}

static void test_errors_other(void **state)
{
	struct power_file_spec spec;
	struct power_series ps;
	char p[sizeof(dir) + 16], want[600];

	(void)state;
	power_file_spec_init(&spec);
	snprintf(p, sizeof(p), "%s/missing.txt", dir);
	snprintf(want, sizeof(want), "%s: %s", p, strerror(ENOENT));
	assert_int_equal(power_file_read(&ps, p, &spec, START, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, want);
	snprintf(want, sizeof(want), "%s: %s", dir, strerror(EISDIR));
	assert_int_equal(power_file_read(&ps, dir, &spec, START, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, want);

	spec.rate_hz = 0;
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "power rate 0 Hz: expected a number above 0");
	spec.rate_hz = 20000;
	spec.ncols = 2;
	spec.role[1] = PCOL_WATTS;
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "format 'watts,watts': watts given twice");
	spec.ncols = 1;
	spec.scale[0] = -1;
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scale of column 1 (watts): -1: expected a number above 0");
}

/* ---- large files ---------------------------------------------------------------------------- */

/* Lines across the 1 MiB read blocks, a comment line longer than a block, and the line
 * number of an error far down. */
static void test_blocks(void **state)
{
	const size_t nlines = 400000; /* "12.5\r\n" and "0.25 " forms: about 2.6 MB */
	size_t len = 0, cap = nlines * 8 + (3u << 20), i;
	char *text = malloc(cap), want[600];
	struct power_series ps;
	struct power_file_spec spec;
	double sum = 0;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < nlines; i++) {
		len += (size_t)sprintf(text + len, i % 2 ? "12.5\r\n" : "0.25 \n");
		if (i == 150000) {
			text[len++] = '#';
			memset(text + len, 'c', 3u << 20);
			len += 3u << 20;
			text[len++] = '\n';
		}
	}
	put_bytes(text, len);
	power_file_spec_init(&spec);
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, nlines);
	for (i = 0; i < ps.n; i++)
		sum += ps.ch[0].v[i];
	assert_true(sum == (nlines / 2) * 12.75);
	power_series_release(&ps);

	len += (size_t)sprintf(text + len, "1 1\n");
	put_bytes(text, len);
	snprintf(want, sizeof(want), "%s: line %zu: expected 1 number (watts), found 2", path,
		 nlines + 2);
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
	free(text);
}

static void test_line_too_long(void **state)
{
	size_t len = (16u << 20) + 10;
	char *text = malloc(len), want[600];
	struct power_series ps;
	struct power_file_spec spec;

	(void)state;
	assert_non_null(text);
	memcpy(text, "1\n2\n", 4);
	memset(text + 4, '3', len - 4);
	put_bytes(text, len);
	free(text);
	power_file_spec_init(&spec);
	snprintf(want, sizeof(want),
		 "%s: line 3: longer than 16777216 bytes: not a power meter's text", path);
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
}

/* ---- the number parser against strtod ---------------------------------------------------------
 */

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random number in one of the forms a meter writes: up to 19 (sometimes 25) digits, a
 * decimal point anywhere, leading zeros, an exponent. */
static int random_number(char *s)
{
	int nd = 1 + (int)(next() % (next() % 8 ? 19 : 25)), dot = (int)(next() % (nd + 2)), i,
	    n = 0;

	if (next() % 8 == 0)
		n += sprintf(s + n, "000");
	for (i = 0; i < nd; i++) {
		if (i == dot)
			s[n++] = '.';
		s[n++] = (char)('0' + next() % 10);
	}
	if (next() % 3 == 0)
		n += sprintf(s + n, "e%d", (int)(next() % 61) - 30);
	s[n++] = '\n';
	return n;
}

static void test_exactness(void **state)
{
	const size_t count = 300000;
	char *text = malloc(count * 40), *p;
	size_t len = 0, i, exact = 0;
	double maxrel = 0;
	struct power_series ps;
	struct power_file_spec spec;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < count; i++)
		len += (size_t)random_number(text + len);
	put_bytes(text, len);
	power_file_spec_init(&spec);
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, count);
	for (i = 0, p = text; i < count; i++) {
		char *end;
		double want = strtod(p, &end), got = ps.ch[0].v[i];

		assert_int_equal(*end, '\n');
		p = end + 1;
		if (got == want) {
			exact++;
			continue;
		}
		/* one rounding of the mantissa, one of the scaling: about an ulp */
		if (!(fabs(got - want) <= fabs(want) * 1e-15))
			fail_msg("line %zu: %.17g, strtod %.17g", i + 1, got, want);
		if (fabs(got - want) / fabs(want) > maxrel)
			maxrel = fabs(got - want) / fabs(want);
	}
	print_message("exact %zu of %zu, largest relative difference %.3g\n", exact, count, maxrel);
	/* most forms are exact (mantissas below 2^53, exponents up to 22) */
	assert_true(exact > count * 9 / 10);
	power_series_release(&ps);
	free(text);
}

/* Short decimals, the usual meter output, are read exactly: every 6-decimal value below 100. */
static void test_short_exact(void **state)
{
	const size_t count = 200000;
	char *text = malloc(count * 16), *p;
	size_t len = 0, i;
	struct power_series ps;
	struct power_file_spec spec;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < count; i++)
		len += (size_t)sprintf(text + len, "%.6f\n", (double)(next() % 100000000) / 1e6);
	put_bytes(text, len);
	power_file_spec_init(&spec);
	assert_int_equal(power_file_read(&ps, path, &spec, START, err, sizeof(err)), 0);
	assert_int_equal(ps.n, count);
	for (i = 0, p = text; i < count; i++) {
		char *end;

		assert_true(ps.ch[0].v[i] == strtod(p, &end));
		p = end + 1;
	}
	power_series_release(&ps);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spec_default),	cmocka_unit_test(test_spec_parse),
	    cmocka_unit_test(test_spec_errors),		cmocka_unit_test(test_watts_rate),
	    cmocka_unit_test(test_time_watts),		cmocka_unit_test(test_volts_amps),
	    cmocka_unit_test(test_separators_comments), cmocka_unit_test(test_crlf_and_last_line),
	    cmocka_unit_test(test_number_forms),	cmocka_unit_test(test_pipe),
	    cmocka_unit_test(test_example_files),	cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_errors_other),	cmocka_unit_test(test_blocks),
	    cmocka_unit_test(test_line_too_long),	cmocka_unit_test(test_exactness),
	    cmocka_unit_test(test_short_exact),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
