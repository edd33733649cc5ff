/*
 * test_metrics.c - metric group files and formulas: grammar, evaluation, every error class,
 * the shipped groups in metrics/, and finding group files in search directories.
 *
 * Build with -DPSC_TEST_METRICS_DIR=\"/path/to/metrics\".
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
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/metrics.h"

#ifndef PSC_TEST_METRICS_DIR
#error "define PSC_TEST_METRICS_DIR as the path of the shipped metrics/ directory"
#endif

/* ---- a lookup over a NULL-terminated table ------------------------------------------------ */

struct kv {
	const char *name;
	double value;
};

static int kv_lookup(void *ctx, const char *name, double *value)
{
	for (const struct kv *kv = ctx; kv->name; kv++) {
		if (!strcmp(kv->name, name)) {
			*value = kv->value;
			return 0;
		}
	}
	return -ENOENT;
}

/* Parse and evaluate TEXT; the parse must succeed. */
static int eval_text(const char *text, const struct kv *vars, double *out)
{
	static const struct kv none[] = {{NULL, 0}};
	struct metric_expr *e = NULL;
	char err[256] = "";
	int rc;

	rc = metric_expr_parse(text, &e, err, sizeof(err));
	if (rc)
		fail_msg("'%s' did not parse: %s", text, err);
	rc = metric_expr_eval(e, kv_lookup, (void *)(vars ? vars : none), out);
	metric_expr_free(e);
	return rc;
}

static double eval_ok(const char *text, const struct kv *vars)
{
	double v = -12345.0;
	int rc = eval_text(text, vars, &v);

	if (rc)
		fail_msg("'%s' evaluated to error %d", text, rc);
	return v;
}

static const struct metric *find_metric(const struct metric_group *g, const char *name)
{
	for (size_t i = 0; i < g->nmetrics; i++)
		if (!strcmp(g->metrics[i].name, name))
			return &g->metrics[i];
	fail_msg("group %s has no metric '%s'", g->name, name);
	return NULL;
}

/* ---- formulas ----------------------------------------------------------------------------- */

static void test_precedence(void **state)
{
	(void)state;
	assert_true(eval_ok("2 + 3 * 4", NULL) == 14.0);
	assert_true(eval_ok("(2 + 3) * 4", NULL) == 20.0);
	assert_true(eval_ok("-2 * -3", NULL) == 6.0);
	assert_true(eval_ok("10 / 4 / 5", NULL) == 0.5);
	assert_true(eval_ok("2 - 3 - 4", NULL) == -5.0);
	assert_true(eval_ok("2 * 3 + 4 * 5", NULL) == 26.0);
	assert_true(eval_ok("-(2 + 3)", NULL) == -5.0);
	assert_true(eval_ok("2 - -3", NULL) == 5.0);
	assert_true(eval_ok("- - 4", NULL) == 4.0);
	assert_true(eval_ok("((((7))))", NULL) == 7.0);
	assert_true(eval_ok("2-1", NULL) == 1.0);
	assert_true(eval_ok("100", NULL) == 100.0);
	assert_true(eval_ok("1e9", NULL) == 1e9);
	assert_true(eval_ok("0.5", NULL) == 0.5);
	assert_true(eval_ok(".25 * 4", NULL) == 1.0);
	assert_true(eval_ok("2.5E-1 * 4", NULL) == 1.0);
	assert_true(eval_ok("1e+2 / 1E2", NULL) == 1.0);
	assert_true(eval_ok("  \t3*4  ", NULL) == 12.0);
}

static void test_identifiers(void **state)
{
	static const struct kv vars[] = {{"a", 5},
					 {"b", 3},
					 {"a-b", 42},
					 {"L1-dcache-loads", 7},
					 {"perf::PAGE-FAULTS", 9},
					 {"cpu/event=0x3c", 11},
					 {"x.y", 13},
					 {"_u", 17},
					 {"r01c2", 19},
					 {NULL, 0}};
	double v = 0;

	(void)state;
	/* with spaces '-' is subtraction; inside a name it joins the parts */
	assert_true(eval_ok("a - b", vars) == 2.0);
	assert_true(eval_ok("a -b", vars) == 2.0);
	assert_true(eval_ok("a- b", vars) == 2.0);
	assert_true(eval_ok("a-b", vars) == 42.0);
	assert_true(eval_ok("L1-dcache-loads * 2", vars) == 14.0);
	assert_true(eval_ok("perf::PAGE-FAULTS", vars) == 9.0);
	assert_true(eval_ok("cpu/event=0x3c + 1", vars) == 12.0);
	assert_true(eval_ok("x.y + _u + r01c2", vars) == 49.0);
	assert_true(eval_ok("a / b * 3", vars) == 5.0);
	/* without spaces '/' joins too: "a/b" is one (unknown) name */
	assert_int_equal(eval_text("a/b", vars, &v), -ENODATA);
	assert_int_equal(eval_text("a-1", vars, &v), -ENODATA);
	/* a joiner not followed by a letter, digit or '_' ends the name */
	assert_true(eval_ok("a-(b)", vars) == 2.0);
}

static void test_missing_input(void **state)
{
	static const struct kv vars[] = {{"a", 5}, {"b", 0}, {NULL, 0}};
	struct metric_expr *e = NULL;
	char buf[64];
	double v = 99.0;

	(void)state;
	assert_int_equal(eval_text("a + zz", vars, &v), -ENODATA);
	assert_true(v == 99.0); /* untouched on error */
	/* missing wins over division by zero: the metric is unavailable, not wrong */
	assert_int_equal(eval_text("a / b + zz", vars, &v), -ENODATA);

	assert_int_equal(metric_expr_parse("zz * a / (yy + zz) + yy", &e, NULL, 0), 0);
	assert_int_equal(metric_expr_missing(e, kv_lookup, (void *)vars, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "zz, yy");
	assert_int_equal(metric_expr_missing(e, kv_lookup, (void *)vars, buf, 5), 2);
	assert_string_equal(buf, "zz, ");
	assert_int_equal(metric_expr_missing(e, kv_lookup, (void *)vars, NULL, 0), 2);
	metric_expr_free(e);

	assert_int_equal(metric_expr_parse("a * 2", &e, NULL, 0), 0);
	assert_int_equal(metric_expr_missing(e, kv_lookup, (void *)vars, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	metric_expr_free(e);
}

static void test_domain_errors(void **state)
{
	static const struct kv vars[] = {{"a", 5}, {"b", 3}, {"z", 0}, {NULL, 0}};
	double v = 99.0;

	(void)state;
	assert_int_equal(eval_text("a / z", vars, &v), -EDOM);
	assert_int_equal(eval_text("a / (b - b)", vars, &v), -EDOM);
	assert_int_equal(eval_text("0 / 0", vars, &v), -EDOM);
	assert_int_equal(eval_text("1e308 * 10", vars, &v), -EDOM);
	assert_true(v == 99.0);
	assert_true(eval_ok("z / a", vars) == 0.0);
}

static void expect_expr_error(const char *text, const char *msg)
{
	struct metric_expr *e = (struct metric_expr *)&e; /* must be reset to NULL */
	char err[256] = "";

	assert_int_equal(metric_expr_parse(text, &e, err, sizeof(err)), -EINVAL);
	assert_null(e);
	if (strcmp(err, msg))
		fail_msg("'%s': got \"%s\", expected \"%s\"", text, err, msg);
}

static void test_expr_errors(void **state)
{
	char deep[128] = "", err[16];
	struct metric_expr *e = NULL;

	(void)state;
	expect_expr_error("", "column 1: expected number, name or '('");
	expect_expr_error("2 +", "column 4: expected number, name or '('");
	expect_expr_error("2 * * 3", "column 5: expected number, name or '('");
	expect_expr_error("(2 + 3", "column 7: expected ')'");
	expect_expr_error("(2 + 3 4)", "column 8: expected ')'");
	expect_expr_error("2 + 3)", "column 6: unbalanced ')'");
	expect_expr_error("2 3", "column 3: expected operator or end of formula");
	expect_expr_error("2x", "column 2: expected operator or end of formula");
	expect_expr_error("a $ b", "column 3: expected operator or end of formula");
	expect_expr_error("+2", "column 1: expected number, name or '('");
	expect_expr_error("1e+ 3", "column 2: expected digits after exponent 'e' in number");
	expect_expr_error("1e999", "column 1: number out of range");
	expect_expr_error("()", "column 2: expected number, name or '('");

	for (int i = 0; i < 40; i++)
		strcat(deep, "(");
	expect_expr_error(deep, "column 33: parentheses nested deeper than 32");

	/* short buffers are truncated, never overrun; a NULL buffer is fine */
	assert_int_equal(metric_expr_parse("2 +", &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "column 4: expec");
	assert_int_equal(metric_expr_parse("2 +", &e, NULL, 0), -EINVAL);
}

static void test_long_formula(void **state)
{
	size_t n = 20000;
	char *text = malloc(4 * n), *p = text;
	struct metric_expr *e = NULL;
	double v = 0;

	(void)state;
	assert_non_null(text);
	*p++ = '1';
	for (size_t i = 1; i < n; i++, p += 4)
		memcpy(p, " + 1", 4);
	*p = '\0';
	assert_int_equal(metric_expr_parse(text, &e, NULL, 0), 0);
	assert_int_equal(metric_expr_eval(e, kv_lookup, (void *)&(struct kv){NULL, 0}, &v), 0);
	assert_true(v == (double)n);
	metric_expr_free(e);
	free(text);
}

/* ---- group files -------------------------------------------------------------------------- */

static void test_group_parse(void **state)
{
	static const char text[] = "# a test group\r\n"
				   "\n"
				   "  description:  Things to count   # trailing comment\n"
				   "events: a, b ,a\n"
				   "metric: rate [1/s] = a / time_s\n"
				   "events: c,b\r\n"
				   "   \t\n"
				   "metric:  sum  =  a + b + c  \n"
				   "metric: per ns [] = c / time_ns";
	static const struct kv vars[] = {{"a", 10},	{"b", 20},	  {"c", 30},
					 {"time_s", 2}, {"time_ns", 2e9}, {NULL, 0}};
	struct metric_group g;
	char err[256] = "";
	double v = 0;

	(void)state;
	assert_int_equal(metric_group_parse(&g, "t", "dir/t.metrics", text, err, sizeof(err)), 0);
	assert_string_equal(g.name, "t");
	assert_string_equal(g.path, "dir/t.metrics");
	assert_string_equal(g.description, "Things to count");
	assert_int_equal(g.nevents, 3); /* duplicates dropped, first place kept */
	assert_string_equal(g.events[0], "a");
	assert_string_equal(g.events[1], "b");
	assert_string_equal(g.events[2], "c");
	assert_int_equal(g.nmetrics, 3);
	assert_string_equal(g.metrics[0].name, "rate");
	assert_string_equal(g.metrics[0].unit, "1/s");
	assert_string_equal(g.metrics[0].formula, "a / time_s");
	assert_int_equal(g.metrics[0].line, 5);
	assert_string_equal(g.metrics[1].name, "sum");
	assert_string_equal(g.metrics[1].unit, "");
	assert_string_equal(g.metrics[1].formula, "a + b + c");
	assert_string_equal(g.metrics[2].name, "per ns");
	assert_string_equal(g.metrics[2].unit, "");

	assert_int_equal(metric_eval(&g.metrics[0], kv_lookup, (void *)vars, &v), 0);
	assert_true(v == 5.0);
	assert_int_equal(metric_eval(&g.metrics[1], kv_lookup, (void *)vars, &v), 0);
	assert_true(v == 60.0);
	assert_int_equal(metric_eval(&g.metrics[2], kv_lookup, (void *)vars, &v), 0);
	assert_true(v == 15e-9);
	metric_group_release(&g);
	metric_group_release(&g); /* released twice: zeroed, harmless */

	/* events may come after the metrics that use them; no description gives "" */
	assert_int_equal(metric_group_parse(&g, "u", NULL, "metric: x = a\nevents: a", NULL, 0), 0);
	assert_string_equal(g.description, "");
	assert_string_equal(g.path, "");
	metric_group_release(&g);
}

static void expect_group_error(const char *text, const char *msg)
{
	struct metric_group g;
	char err[512] = "";

	memset(&g, 0xa5, sizeof(g));
	assert_int_equal(metric_group_parse(&g, "x", "groups/x.metrics", text, err, sizeof(err)),
			 -EINVAL);
	assert_null(g.name);
	assert_null(g.events);
	assert_null(g.metrics);
	assert_int_equal(g.nmetrics, 0);
	assert_null(strchr(err, '\n'));
	if (strcmp(err, msg))
		fail_msg("got \"%s\", expected \"%s\"", err, msg);
}

static void test_group_errors(void **state)
{
	(void)state;
	/* the example of the documentation, column counted in the formula */
	expect_group_error("events: a, b, c\n# c\n\nmetric: r = 2 * (a + b * (c)\n",
			   "groups/x.metrics:4: expected ')' at column 17 in formula");
	expect_group_error("events: a\nfoo: bar\n",
			   "groups/x.metrics:2: unknown key 'foo'; expected 'description:', "
			   "'events:' or 'metric:'");
	expect_group_error("events: a\nMetric: x = a\n",
			   "groups/x.metrics:2: unknown key 'Metric'; expected 'description:', "
			   "'events:' or 'metric:'");
	expect_group_error("events: a\n\njust text\n", "groups/x.metrics:3: expected "
						       "'description:', 'events:' or 'metric:'");
	expect_group_error("events: a\nmetric: x a\n",
			   "groups/x.metrics:2: expected '=' after metric name");
	expect_group_error("events: a\nmetric:  = a\n",
			   "groups/x.metrics:2: expected a metric name before '='");
	expect_group_error("events: a\nmetric: [%] = a\n",
			   "groups/x.metrics:2: expected a metric name before '['");
	expect_group_error("events: a\nmetric: x [% = a\n",
			   "groups/x.metrics:2: expected ']' after unit");
	expect_group_error("events: a\nmetric: x [%] a\n",
			   "groups/x.metrics:2: expected '=' after unit");
	expect_group_error(
	    "events: a\nmetric: x =\n",
	    "groups/x.metrics:2: expected number, name or '(' at column 1 in formula");
	expect_group_error(
	    "events: a\nmetric: x = a * * a\n",
	    "groups/x.metrics:2: expected number, name or '(' at column 5 in formula");
	expect_group_error("events: a\nmetric: x = a)\n",
			   "groups/x.metrics:2: unbalanced ')' at column 2 in formula");
	expect_group_error("events: a\nmetric: x = a a\n",
			   "groups/x.metrics:2: expected operator or end of formula at column 3 in "
			   "formula");
	expect_group_error("events: a\nmetric: x = a / b\n",
			   "groups/x.metrics:2: 'b' at column 5 in formula is not listed in "
			   "'events:'");
	expect_group_error("events: a, b\nmetric: ok = a\nmetric: x = a/b\n",
			   "groups/x.metrics:3: 'a/b' at column 1 in formula is not listed in "
			   "'events:' (write spaces around binary '-' and '/')");
	expect_group_error("description: d\nmetric: x = 1\n",
			   "groups/x.metrics:1: no 'events:' line; expected at least one event");
	expect_group_error("",
			   "groups/x.metrics:1: no 'events:' line; expected at least one event");
	expect_group_error("events:   # nothing\n",
			   "groups/x.metrics:1: expected event names after 'events:'");
	expect_group_error("events: a,,b\n",
			   "groups/x.metrics:1: expected an event name before or after ','");
	expect_group_error("events: a, b,\n",
			   "groups/x.metrics:1: expected an event name before or after ','");
	expect_group_error("events: a b\n", "groups/x.metrics:1: invalid character ' ' in event "
					    "name 'a b'; expected letters, digits, '_', '-', "
					    "'.', ':', '=' or '/'");
	expect_group_error("events: a\x01\n", "groups/x.metrics:1: invalid character 0x01 in event "
					      "name 'a?'; expected letters, digits, '_', '-', "
					      "'.', ':', '=' or '/'");
	expect_group_error("events: time_ns\n", "groups/x.metrics:1: 'time_ns' is a builtin "
						"variable; expected an event name");
	expect_group_error("description: a\ndescription: b\nevents: a\n",
			   "groups/x.metrics:2: second 'description:'; expected at most one");
	expect_group_error("events: a\nmetric: x = a\nmetric: x = a * 2\n",
			   "groups/x.metrics:3: duplicate metric 'x'; expected a new name");
}

/* ---- shipped groups ----------------------------------------------------------------------- */

struct seen {
	char names[32][64];
	char paths[32][512];
	size_t n;
	size_t stop_after;
};

static int collect(void *ctx, const char *name, const char *path)
{
	struct seen *s = ctx;

	assert_true(s->n < 32);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", path);
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

static void test_shipped_groups(void **state)
{
	static const char *const expected[] = {"branch", "cache", "default", "dtlb",
					       "ipc",	 "l1d",	  "sw"};
	const char *dirs[] = {PSC_TEST_METRICS_DIR};
	struct seen seen = {0};

	(void)state;
	assert_int_equal(metric_group_foreach(dirs, 1, collect, &seen), 0);
	assert_true(seen.n >= 7);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		size_t j = 0;

		while (j < seen.n && strcmp(seen.names[j], expected[i]))
			j++;
		if (j == seen.n)
			fail_msg("group %s not shipped", expected[i]);
	}
	for (size_t i = 0; i < seen.n; i++) {
		struct metric_group g;
		char err[512] = "";
		FILE *f;
		int c;

		if (metric_group_load(&g, seen.paths[i], err, sizeof(err)))
			fail_msg("%s", err);
		assert_string_equal(g.name, seen.names[i]);
		assert_true(g.nevents > 0 && g.nmetrics > 0);
		assert_true(g.description[0] != '\0');
		metric_group_release(&g);

		f = fopen(seen.paths[i], "r"); /* starts with a comment saying what it is for */
		assert_non_null(f);
		c = fgetc(f);
		fclose(f);
		assert_int_equal(c, '#');
	}
}

static void test_shipped_values(void **state)
{
	static const struct kv counts[] = {
	    {"instructions", 3000000},	    {"cycles", 1200000},
	    {"task-clock", 2000000},	    {"branches", 400000},
	    {"branch-misses", 10000},	    {"page-faults", 50},
	    {"context-switches", 4},	    {"cpu-migrations", 1},
	    {"time_ns", 4000000},	    {"time_s", 0.004},
	    {"L1-dcache-loads", 600},	    {"L1-dcache-stores", 200},
	    {"L1-dcache-load-misses", 100}, {NULL, 0}};
	static const struct kv partial[] = {
	    {"L1-dcache-loads", 600}, {"L1-dcache-load-misses", 100}, {NULL, 0}};
	const char *dirs[] = {"/nonexistent-perfscope-dir", PSC_TEST_METRICS_DIR};
	struct metric_group g;
	char path[512], err[512] = "", missing[128];
	double v = 0;

	(void)state;
	assert_int_equal(metric_group_find("default", dirs, 2, path, sizeof(path)), 0);
	assert_int_equal(metric_group_load(&g, path, err, sizeof(err)), 0);
	assert_int_equal(metric_eval(find_metric(&g, "IPC"), kv_lookup, (void *)counts, &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(
	    metric_eval(find_metric(&g, "CPUs utilised"), kv_lookup, (void *)counts, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(metric_eval(find_metric(&g, "GHz"), kv_lookup, (void *)counts, &v), 0);
	assert_true(v == 0.6);
	assert_string_equal(find_metric(&g, "branch miss ratio")->unit, "%");
	assert_int_equal(
	    metric_eval(find_metric(&g, "branch miss ratio"), kv_lookup, (void *)counts, &v), 0);
	assert_true(v == 2.5);
	metric_group_release(&g);

	assert_int_equal(metric_group_find("l1d", dirs, 2, path, sizeof(path)), 0);
	assert_int_equal(metric_group_load(&g, path, err, sizeof(err)), 0);
	/* 100 * (1 - 100 / (600 + 200)) = 87.5, exact in binary */
	assert_int_equal(
	    metric_eval(find_metric(&g, "L1D hit rate"), kv_lookup, (void *)counts, &v), 0);
	assert_true(v == 87.5);
	assert_int_equal(
	    metric_eval(find_metric(&g, "L1D load miss ratio"), kv_lookup, (void *)counts, &v), 0);
	assert_true(fabs(v - 100.0 / 6.0) < 1e-12);
	/* no store counter: the hit rate is unavailable and says why */
	assert_int_equal(
	    metric_eval(find_metric(&g, "L1D hit rate"), kv_lookup, (void *)partial, &v), -ENODATA);
	assert_int_equal(metric_expr_missing(find_metric(&g, "L1D hit rate")->expr, kv_lookup,
					     (void *)partial, missing, sizeof(missing)),
			 1);
	assert_string_equal(missing, "L1-dcache-stores");
	metric_group_release(&g);
}

/* ---- files and directories ---------------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_find_foreach(void **state)
{
	static const char grp[] = "events: a\nmetric: x = a\n";
	char top[] = "/tmp/psc-test-metrics-XXXXXX", d1[64], d2[64], path[512], err[512];
	char cmd[600];
	const char *dirs[4];
	struct metric_group g;
	struct seen seen = {0};

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(d1, sizeof(d1), "%s/one", top);
	snprintf(d2, sizeof(d2), "%s/two", top);
	assert_int_equal(mkdir(d1, 0700), 0);
	assert_int_equal(mkdir(d2, 0700), 0);
	write_file(d1, "b.metrics", grp, strlen(grp));
	write_file(d1, "a.metrics", grp, strlen(grp));
	write_file(d2, "a.metrics", grp, strlen(grp));
	write_file(d2, "c.metrics", grp, strlen(grp));
	write_file(d2, "notes.txt", grp, strlen(grp));
	write_file(d2, ".hidden.metrics", grp, strlen(grp));
	write_file(d2, ".metrics", grp, strlen(grp));
	write_file(d2, "nul.metrics", "events: a\0b\n", 12);
	snprintf(path, sizeof(path), "%s/sub.metrics", d2);
	assert_int_equal(mkdir(path, 0700), 0); /* a directory, not a group */

	dirs[0] = "";
	dirs[1] = d1;
	dirs[2] = "/nonexistent-perfscope-dir";
	dirs[3] = d2;

	/* find: first directory wins, explicit paths are used as is */
	assert_int_equal(metric_group_find("a", dirs, 4, path, sizeof(path)), 0);
	assert_true(!strncmp(path, d1, strlen(d1)) && !strcmp(path + strlen(d1), "/a.metrics"));
	assert_int_equal(metric_group_find("c", dirs, 4, path, sizeof(path)), 0);
	assert_true(!strncmp(path, d2, strlen(d2)) && !strcmp(path + strlen(d2), "/c.metrics"));
	assert_int_equal(metric_group_find("zz", dirs, 4, path, sizeof(path)), -ENOENT);
	assert_string_equal(path, "");
	assert_int_equal(metric_group_find("sub", dirs, 4, path, sizeof(path)), -ENOENT);
	assert_int_equal(metric_group_find("a", dirs, 4, path, 8), -ENAMETOOLONG);
	snprintf(cmd, sizeof(cmd), "%s/c.metrics", d2);
	assert_int_equal(metric_group_find(cmd, dirs, 0, path, sizeof(path)), 0);
	assert_string_equal(path, cmd);
	snprintf(cmd, sizeof(cmd), "%s/b.metrics", d2);
	assert_int_equal(metric_group_find(cmd, dirs, 4, path, sizeof(path)), -ENOENT);
	assert_int_equal(metric_group_find("", dirs, 4, path, sizeof(path)), -EINVAL);

	/* foreach: sorted by name, duplicates from later directories and non-groups skipped */
	assert_int_equal(metric_group_foreach(dirs, 4, collect, &seen), 0);
	assert_int_equal(seen.n, 4);
	assert_string_equal(seen.names[0], "a");
	assert_string_equal(seen.names[1], "b");
	assert_string_equal(seen.names[2], "c");
	assert_string_equal(seen.names[3], "nul");
	snprintf(cmd, sizeof(cmd), "%s/a.metrics", d1);
	assert_string_equal(seen.paths[0], cmd);
	snprintf(cmd, sizeof(cmd), "%s/c.metrics", d2);
	assert_string_equal(seen.paths[2], cmd);

	memset(&seen, 0, sizeof(seen));
	seen.stop_after = 2; /* a non-zero return stops the walk and is passed on */
	assert_int_equal(metric_group_foreach(dirs, 4, collect, &seen), 7);
	assert_int_equal(seen.n, 2);

	/* load: the group is named for the file stem */
	snprintf(cmd, sizeof(cmd), "%s/c.metrics", d2);
	assert_int_equal(metric_group_load(&g, cmd, err, sizeof(err)), 0);
	assert_string_equal(g.name, "c");
	assert_string_equal(g.path, cmd);
	metric_group_release(&g);

	snprintf(cmd, sizeof(cmd), "%s/nul.metrics", d2);
	assert_int_equal(metric_group_load(&g, cmd, err, sizeof(err)), -EINVAL);
	assert_true(!strncmp(err, cmd, strlen(cmd)) &&
		    !strcmp(err + strlen(cmd), ": contains a NUL byte; expected text"));

	snprintf(cmd, sizeof(cmd), "%s/sub.metrics", d2);
	assert_int_equal(metric_group_load(&g, cmd, err, sizeof(err)), -EISDIR);
	assert_true(!strcmp(err + strlen(cmd), ": Is a directory"));

	assert_int_equal(
	    metric_group_load(&g, "/nonexistent-perfscope-dir/x.metrics", err, sizeof(err)),
	    -ENOENT);
	assert_string_equal(err, "/nonexistent-perfscope-dir/x.metrics: No such file or directory");
	assert_null(g.name);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_precedence),	   cmocka_unit_test(test_identifiers),
	    cmocka_unit_test(test_missing_input),  cmocka_unit_test(test_domain_errors),
	    cmocka_unit_test(test_expr_errors),	   cmocka_unit_test(test_long_formula),
	    cmocka_unit_test(test_group_parse),	   cmocka_unit_test(test_group_errors),
	    cmocka_unit_test(test_shipped_groups), cmocka_unit_test(test_shipped_values),
	    cmocka_unit_test(test_find_foreach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
