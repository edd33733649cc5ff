/* test_html_source.c - the Source view's exact logic (html-source.h): lines of a text, costs
 * per line and range, a function's end by its braces, a region by its begin/end calls, and
 * how scopes nest. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "html/html-source.h"

static void load(struct src_file *f, const char *text)
{
	size_t n = strlen(text);
	char *t = malloc(n + 1);

	assert_non_null(t);
	memcpy(t, text, n);
	assert_int_equal(src_file_init(f, "/x.c", t, n), 0);
}

static const char prog[] = "/* f() { */\n"		    /* 1 */
			   "int f(int a)\n"		    /* 2 */
			   "{\n"			    /* 3 */
			   "\tconst char *s = \"}{\";\n"    /* 4 */
			   "\tif (a < 2) { // }\n"	    /* 5 */
			   "\t\tpsc_region_begin(\"r\");\n" /* 6 */
			   "\t\ta += '}';\n"		    /* 7 */
			   "\t\tpsc_region_end( \"r\" );\n" /* 8 */
			   "\t}\r\n"			    /* 9 */
			   "\treturn a;\n"		    /* 10 */
			   "}\n"			    /* 11 */
			   "int g(void) { return 1; }";	    /* 12, no newline */

static void test_lines(void **state)
{
	struct src_file f;

	(void)state;
	load(&f, prog);
	assert_int_equal(f.nlines, 12);
	assert_string_equal(f.lines[8], "\t}");
	assert_string_equal(f.lines[11], "int g(void) { return 1; }");
	src_file_release(&f);
	load(&f, "");
	assert_int_equal(f.nlines, 0);
	src_file_release(&f);
	load(&f, "\n\n");
	assert_int_equal(f.nlines, 2);
	assert_string_equal(f.lines[1], "");
	src_file_release(&f);
}

static void test_costs(void **state)
{
	struct src_file f;

	(void)state;
	load(&f, prog);
	assert_int_equal(src_file_add(&f, SRC_TIME, 2, 100), 0);
	assert_int_equal(src_file_add(&f, SRC_TIME, 7, 30), 0);
	assert_int_equal(src_file_add(&f, SRC_TIME, 7, 5), 0);
	assert_int_equal(src_file_add(&f, SRC_TIME, 12, 1), 0);
	assert_int_equal(src_file_add(&f, SRC_TIME, 13, 1), -ERANGE);
	assert_int_equal(src_file_add(&f, SRC_TIME, 0, 1), -ERANGE);
	assert_true(f.cost[SRC_SAMPLES] == NULL);
	assert_true(f.total[SRC_TIME] == 136);
	assert_true(src_file_sum(&f, SRC_TIME, 6, 8) == 35);
	assert_true(src_file_sum(&f, SRC_TIME, 2, 11) == 135);
	assert_true(src_file_sum(&f, SRC_TIME, 0, 99) == 136);
	assert_true(src_file_sum(&f, SRC_SAMPLES, 1, 12) == 0);
	assert_string_equal(src_metric_name(SRC_ENERGY), "energy");
	src_file_release(&f);
}

static void test_brace_end(void **state)
{
	struct src_file f;

	(void)state;
	load(&f, prog);
	/* braces in comments, strings and character literals do not count */
	assert_int_equal(src_brace_end(&f, 2, 0), 11);
	assert_int_equal(src_brace_end(&f, 1, 0), 11);
	assert_int_equal(src_brace_end(&f, 12, 0), 12);
	assert_int_equal(src_brace_end(&f, 5, 0), 9);
	/* stopped before the next function: no closing brace found */
	assert_int_equal(src_brace_end(&f, 2, 10), 0);
	src_file_release(&f);
}

static void test_region_lines(void **state)
{
	struct src_file f;
	unsigned a = 0, b = 0;

	(void)state;
	load(&f, prog);
	assert_int_equal(src_region_lines(&f, "r", &a, &b), 0);
	assert_int_equal(a, 6);
	assert_int_equal(b, 8);
	assert_int_equal(src_region_lines(&f, "", &a, &b), -ENOENT);
	assert_int_equal(src_region_lines(&f, "rr", &a, &b), -ENOENT);
	src_file_release(&f);
	load(&f, "PSC_REGION_BEGIN('x')\n\nPSC_REGION_END('x')\n");
	assert_int_equal(src_region_lines(&f, "x", &a, &b), 0);
	assert_int_equal(a, 1);
	assert_int_equal(b, 3);
	src_file_release(&f);
	load(&f, "psc_region_begin(\"x\");\n");
	assert_int_equal(src_region_lines(&f, "x", &a, &b), -ENOENT);
	src_file_release(&f);
}

static void test_nest(void **state)
{
	/* ids: 0 f 10-50, 1 region 20-30 in f, 2 region 22-25 in 1, 3 g 60-70, 4 region 20-40
	 * in f (after 1: longer first at the same first line), 5 overlaps f's end */
	struct src_scope s[] = {
	    {10, 50, 0, 0, 0}, {20, 30, 0, 0, 1}, {22, 25, 0, 0, 2},
	    {60, 70, 0, 0, 3}, {20, 40, 0, 0, 4}, {45, 55, 0, 0, 5},
	};
	static const size_t order[] = {0, 4, 1, 2, 5, 3};
	static const unsigned depth[] = {0, 1, 2, 3, 0, 0};
	static const size_t parent[] = {SRC_NO_PARENT, 0, 1, 2, SRC_NO_PARENT, SRC_NO_PARENT};

	(void)state;
	assert_int_equal(src_scopes_nest(s, 6), 0);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(s[i].id, order[i]);
		assert_int_equal(s[i].depth, depth[i]);
		assert_int_equal(s[i].parent, parent[i]);
	}
	assert_int_equal(src_scopes_nest(s, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines),     cmocka_unit_test(test_costs),
	    cmocka_unit_test(test_brace_end), cmocka_unit_test(test_region_lines),
	    cmocka_unit_test(test_nest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
