/* test_view.c - the renderers of a view (text, CSV, JSON, long CSV), sorting by a column, and
 * the --format word. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/jsonw.h"
#include "cli/options.h"
#include "view/view.h"

struct item {
	const char *name;
	int tid;
	uint64_t calls;
	int64_t ns;
	double ratio; /* NaN: not counted */
};

/* ctx: an int, the per-thread flag the getters read */
static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_S;
	v->s = ((const struct item *)row)->name;
}

static void get_tid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (*(const int *)ctx) {
		v->kind = VIEW_I64;
		v->i = ((const struct item *)row)->tid;
	} else {
		v->kind = VIEW_S;
		v->s = "all";
	}
}

static void get_calls(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_U64;
	v->u = ((const struct item *)row)->calls;
}

static void get_ns(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_I64;
	v->i = ((const struct item *)row)->ns;
}

static void get_ratio(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	double d = ((const struct item *)row)->ratio;

	(void)ctx, (void)arg;
	if (d == d) {
		v->kind = VIEW_F64;
		v->d = d;
		v->suffix = d > 1 ? "*" : NULL;
	}
}

static void get_pct(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_F64;
	v->d = 100.0 * (double)((const struct item *)row)->ns / 3000000;
}

static const struct view_col cols[] = {
    {"name", "item", VIEW_STR, TABLE_LEFT, VIEW_IN_ALL | VIEW_ENTITY | VIEW_ASCENDING, get_name, 0,
     NULL, "name", "name", "thread", NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL | VIEW_ENTITY | VIEW_ASCENDING, get_tid,
     0, NULL, NULL, NULL, NULL, NULL},
    {"calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_calls, 0, NULL, "calls", "calls",
     "name", NULL},
    {"time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_ns, 0, NULL, "time", "time", "name",
     NULL},
    {"share", "%", VIEW_PCT, TABLE_RIGHT, VIEW_IN_TEXT, get_pct, 0, NULL, NULL, NULL, NULL, NULL},
    {"ratio", "ratio", VIEW_DOUBLE, TABLE_RIGHT, VIEW_IN_ALL, get_ratio, 0, "n/a", NULL, NULL, NULL,
     NULL},
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static const struct item items[] = {
    {"beta", 12, 1234567, 2500000, 0.5},
    {"alpha, \"the first\"", 11, 3, 812, 0.0 / 0.0},
    {"gamma", 13, 3, 499500, 12345.6},
};

/* What RENDER writes for the three items (per thread or not). */
static char *render(int per_thread, enum out_format fmt)
{
	const void *rows[] = {&items[0], &items[1], &items[2]};
	struct view v = {.cols = cols,
			 .ncols = NCOLS,
			 .rows = rows,
			 .nrows = 3,
			 .ctx = &per_thread,
			 .per_thread = per_thread};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct jsonw w;

	assert_non_null(f);
	if (fmt == OUT_TEXT) {
		assert_int_equal(view_print_text(&v, f, "  "), 0);
	} else if (fmt == OUT_CSV) {
		assert_int_equal(view_print_csv(&v, f), 0);
	} else if (fmt == OUT_LONG) {
		assert_int_equal(view_print_long(&v, f), 0);
	} else {
		jsonw_init(&w, 0);
		view_json_rows(&w, &v);
		assert_int_equal(jsonw_print(&w, f), 0);
	}
	fclose(f);
	return text;
}

static void test_text(void **state)
{
	char *t = render(0, OUT_TEXT);

	(void)state;
	/* "alpha, \"the first\"" is 18 wide; 499500 / 3e6 is 16.649..., "16.6" */
	assert_string_equal(t, "  item                thread      calls     time     %    ratio\n"
			       "  ------------------  ------  ---------  -------  ----  -------\n"
			       "  beta                   all  1,234,567  2.50 ms  83.3      0.5\n"
			       "  alpha, \"the first\"     all          3   812 ns   0.0      n/a\n"
			       "  gamma                  all          3   500 µs  16.6  12,346*\n");
	free(t);
}

static void test_csv(void **state)
{
	char *t = render(1, OUT_CSV);

	(void)state;
	assert_string_equal(t, "name,thread,calls,time_ns,ratio\n"
			       "beta,12,1234567,2500000,0.5\n"
			       "\"alpha, \"\"the first\"\"\",11,3,812,\n"
			       "gamma,13,3,499500,12345.6\n");
	free(t);
}

static void test_long(void **state)
{
	char *t = render(0, OUT_LONG);

	(void)state;
	assert_string_equal(t, "name,thread,metric,value\n"
			       "beta,all,calls,1234567\n"
			       "beta,all,time_ns,2500000\n"
			       "beta,all,ratio,0.5\n"
			       "\"alpha, \"\"the first\"\"\",all,calls,3\n"
			       "\"alpha, \"\"the first\"\"\",all,time_ns,812\n"
			       "\"alpha, \"\"the first\"\"\",all,ratio,\n"
			       "gamma,all,calls,3\n"
			       "gamma,all,time_ns,499500\n"
			       "gamma,all,ratio,12345.6\n");
	free(t);
}

static void test_json(void **state)
{
	char *t = render(1, OUT_JSON);

	(void)state;
	assert_string_equal(
	    t, "[{\"name\":\"beta\",\"thread\":12,\"calls\":1234567,\"time_ns\":2500000,"
	       "\"ratio\":0.5},{\"name\":\"alpha, \\\"the first\\\"\",\"thread\":11,\"calls\":3,"
	       "\"time_ns\":812,\"ratio\":null},{\"name\":\"gamma\",\"thread\":13,\"calls\":3,"
	       "\"time_ns\":499500,\"ratio\":12345.6}]\n");
	free(t);
}

/* The names of ITEMS sorted by WORD, joined by ' '. */
static void sorted(const char *word, char *out, size_t len)
{
	struct item xs[] = {items[0], items[1], items[2], {"beta", 10, 3, 7, 1}};
	int per_thread = 1;
	struct view_order o = {cols, NCOLS, view_sort_col(cols, NCOLS, word), &per_thread, 1};

	assert_non_null(o.by);
	qsort_r(xs, 4, sizeof(xs[0]), view_order_cmp, &o);
	snprintf(out, len, "%s/%d %s/%d %s/%d %s/%d", xs[0].name, xs[0].tid, xs[1].name, xs[1].tid,
		 xs[2].name, xs[2].tid, xs[3].name, xs[3].tid);
}

static void test_sort(void **state)
{
	char buf[256];

	(void)state;
	/* names ascending, a name's threads ascending */
	sorted("name", buf, sizeof(buf));
	assert_string_equal(buf, "alpha, \"the first\"/11 beta/10 beta/12 gamma/13");
	/* numbers: the largest first, equal ones by name */
	sorted("calls", buf, sizeof(buf));
	assert_string_equal(buf, "beta/12 alpha, \"the first\"/11 beta/10 gamma/13");
	/* a column's key sorts as its sort word does */
	sorted("time_ns", buf, sizeof(buf));
	assert_string_equal(buf, "beta/12 gamma/13 alpha, \"the first\"/11 beta/10");
	assert_null(view_sort_col(cols, NCOLS, "ratio"));
	assert_null(view_sort_col(cols, NCOLS, "bogus"));
	view_sort_words(cols, NCOLS, buf, sizeof(buf));
	assert_string_equal(buf, "name, calls or time");
}

static void test_format_word(void **state)
{
	enum out_format f;
	char err[128];

	(void)state;
	assert_int_equal(options_out_format(0, 0, NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(f, OUT_TEXT);
	assert_int_equal(options_out_format(0, 1, NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(f, OUT_JSON);
	assert_int_equal(options_out_format(0, 0, "long", &f, err, sizeof(err)), 0);
	assert_int_equal(f, OUT_LONG);
	assert_int_equal(options_out_format(0, 0, "csv", &f, err, sizeof(err)), 0);
	assert_int_equal(f, OUT_CSV);
	assert_int_equal(options_out_format(0, 0, "xml", &f, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--format xml: expected text, csv, json or long");
	assert_int_equal(options_out_format(1, 0, "json", &f, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--format and --csv exclude each other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text), cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_long), cmocka_unit_test(test_json),
	    cmocka_unit_test(test_sort), cmocka_unit_test(test_format_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
