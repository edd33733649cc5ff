/* test_table.c - text tables (UTF-8 widths), CSV quoting and the fmt_* helpers. */
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

#include "view/table.h"

/* Output of table_print (CSV when CSV is set) as a malloc'd string. */
static char *render(const struct table *t, const char *indent, int csv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	if (csv)
		assert_int_equal(table_print_csv(t, f), 0);
	else
		assert_int_equal(table_print(t, f, indent), 0);
	fclose(f);
	return text;
}

static struct table *sample_table(void)
{
	struct table *t = table_new();

	assert_non_null(t);
	assert_int_equal(table_add_column(t, "function", TABLE_LEFT), 0);
	assert_int_equal(table_add_column(t, "calls", TABLE_RIGHT), 0);
	assert_int_equal(table_add_column(t, "time", TABLE_RIGHT), 0);
	assert_int_equal(table_add_column(t, "note", TABLE_LEFT), 0);

	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "%s", "main"), 0);
	assert_int_equal(table_set(t, 1, "%d", 1), 0);
	assert_int_equal(table_set(t, 2, "%.2f ms", 4.56), 0);
	assert_int_equal(table_set(t, 3, "\xc2\xb1 %d%%", 2), 0);

	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "compute"), 0);
	assert_int_equal(table_set(t, 1, "1,000,000"), 0);
	assert_int_equal(table_set(t, 2, "12.3 \xc2\xb5s"), 0);

	assert_int_equal(table_add_separator(t), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "total"), 0);
	assert_int_equal(table_set(t, 1, "1,000,001"), 0);
	assert_int_equal(table_set(t, 2, "4.57 ms"), 0);
	assert_int_equal(table_set(t, 3, "ok"), 0);
	return t;
}

static void test_print_utf8(void **state)
{
	struct table *t = sample_table();
	char *text;

	(void)state;
	text = render(t, NULL, 0);
	assert_string_equal(text, "function      calls     time  note\n"
				  "--------  ---------  -------  ----\n"
				  "main              1  4.56 ms  \xc2\xb1 2%\n"
				  "compute   1,000,000  12.3 \xc2\xb5s\n"
				  "--------  ---------  -------  ----\n"
				  "total     1,000,001  4.57 ms  ok\n");
	free(text);

	text = render(t, "  ", 0);
	assert_string_equal(text, "  function      calls     time  note\n"
				  "  --------  ---------  -------  ----\n"
				  "  main              1  4.56 ms  \xc2\xb1 2%\n"
				  "  compute   1,000,000  12.3 \xc2\xb5s\n"
				  "  --------  ---------  -------  ----\n"
				  "  total     1,000,001  4.57 ms  ok\n");
	free(text);
	table_free(t);
}

static void test_header_wider_and_empty(void **state)
{
	struct table *t = table_new();
	char *text;

	(void)state;
	/* No columns: nothing at all. */
	text = render(t, NULL, 0);
	assert_string_equal(text, "");
	free(text);

	assert_int_equal(table_add_column(t, "wait \xc2\xb5s", TABLE_RIGHT), 0);
	assert_int_equal(table_add_column(t, "rank", TABLE_LEFT), 0);
	/* Header and rule only. */
	text = render(t, NULL, 0);
	assert_string_equal(text, "wait \xc2\xb5s  rank\n"
				  "-------  ----\n");
	free(text);

	/* An empty row prints nothing but the newline; empty leading cells keep alignment. */
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 1, "r0"), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "3"), 0);
	text = render(t, NULL, 0);
	assert_string_equal(text, "wait \xc2\xb5s  rank\n"
				  "-------  ----\n"
				  "\n"
				  "         r0\n"
				  "      3\n");
	free(text);
	table_free(t);
}

static void test_columns_after_rows(void **state)
{
	struct table *t = table_new();
	char *text;

	(void)state;
	assert_int_equal(table_add_column(t, "a", TABLE_LEFT), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "x"), 0);
	assert_int_equal(table_add_column(t, "b", TABLE_RIGHT), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 1, "%s", "long"), 0);
	assert_int_equal(table_set(t, 0, "yy"), 0);
	/* Overwriting a cell replaces it. */
	assert_int_equal(table_set(t, 0, "zzz"), 0);
	text = render(t, NULL, 0);
	assert_string_equal(text, "a       b\n"
				  "---  ----\n"
				  "x\n"
				  "zzz  long\n");
	free(text);
	table_free(t);
}

static void test_set_errors(void **state)
{
	struct table *t = table_new();

	(void)state;
	assert_int_equal(table_add_column(t, "a", TABLE_LEFT), 0);
	assert_int_equal(table_set(t, 0, "no row"), -EINVAL);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 1, "no column"), -EINVAL);
	assert_int_equal(table_add_separator(t), 0);
	assert_int_equal(table_set(t, 0, "separator"), -EINVAL);
	assert_int_equal(table_add_column(NULL, "a", TABLE_LEFT), -EINVAL);
	assert_int_equal(table_add_row(NULL), -EINVAL);
	assert_int_equal(table_print(NULL, stdout, NULL), -EINVAL);
	table_free(t);
	table_free(NULL);
}

static void test_csv(void **state)
{
	struct table *t = table_new();
	char *text;

	(void)state;
	assert_int_equal(table_add_column(t, "name", TABLE_LEFT), 0);
	assert_int_equal(table_add_column(t, "value, with comma", TABLE_RIGHT), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "plain"), 0);
	assert_int_equal(table_set(t, 1, "1"), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "a,b"), 0);
	assert_int_equal(table_set(t, 1, "say \"hi\""), 0);
	assert_int_equal(table_add_separator(t), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "line\nbreak"), 0);
	assert_int_equal(table_set(t, 1, "cr\r"), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "\xc2\xb5s only"), 0);
	text = render(t, NULL, 1);
	assert_string_equal(text, "name,\"value, with comma\"\n"
				  "plain,1\n"
				  "\"a,b\",\"say \"\"hi\"\"\"\n"
				  "line\\nbreak,cr\\r\n"
				  "\xc2\xb5s only,\n");
	free(text);
	table_free(t);
}

static void test_csv_field(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {NULL, ""},
	    {"", ""},
	    {"a b", "a b"},
	    {" lead", " lead"},
	    {"a,b", "\"a,b\""},
	    {"\"", "\"\"\"\""},
	    {"say \"hi\"", "\"say \"\"hi\"\"\""},
	    {"x\ny", "x\\ny"},
	    {"x\r", "x\\r"},
	    {"\xc2\xb1", "\xc2\xb1"},
	    /* control characters and invalid UTF-8 escaped (textesc.h), then quoted as CSV needs */
	    {"\x1b]0;pwned\a", "\\x1b]0;pwned\\x07"},
	    {"a,\x1b\"\n", "\"a,\\x1b\"\"\\n\""},
	    {"bad \xff\xc3", "bad \\xff\\xc3"},
	    {"back\\slash", "back\\\\slash"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		csv_field(f, cases[i].in);
		fclose(f);
		assert_string_equal(text, cases[i].out);
		free(text);
	}
}

/* Cells and headers from an experiment are escaped in the aligned table, and the columns are
 * as wide as the escaped text. */
static void test_print_escaped(void **state)
{
	struct table *t = table_new();
	char *text;

	(void)state;
	assert_int_equal(table_add_column(t, "name\a", TABLE_LEFT), 0);
	assert_int_equal(table_add_column(t, "n", TABLE_RIGHT), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "%s", "\x1b]0;x\a"), 0);
	assert_int_equal(table_set(t, 1, "1"), 0);
	assert_int_equal(table_add_row(t), 0);
	assert_int_equal(table_set(t, 0, "%s", "two\nlines\xff"), 0);
	assert_int_equal(table_set(t, 1, "22"), 0);
	text = render(t, NULL, 0);
	assert_string_equal(text, "name\\x07         n\n"
				  "--------------  --\n"
				  "\\x1b]0;x\\x07     1\n"
				  "two\\nlines\\xff  22\n");
	for (const char *c = text; *c; c++)
		assert_true(*c == '\n' || ((unsigned char)*c >= 0x20 && *c != 0x7f));
	free(text);
	table_free(t);
}

static void test_utf8_width(void **state)
{
	(void)state;
	assert_int_equal(utf8_width(""), 0);
	assert_int_equal(utf8_width(NULL), 0);
	assert_int_equal(utf8_width("abc"), 3);
	assert_int_equal(utf8_width("12.3 \xc2\xb5s"), 7);
	assert_int_equal(utf8_width("\xc2\xb1\xe2\x82\xac\xf0\x9f\x98\x80"), 3);
}

static void test_fmt_count(void **state)
{
	static const struct {
		uint64_t v;
		const char *s;
	} cases[] = {
	    {0, "0"},
	    {1, "1"},
	    {999, "999"},
	    {1000, "1,000"},
	    {9999, "9,999"},
	    {123456, "123,456"},
	    {1234567, "1,234,567"},
	    {UINT64_MAX, "18,446,744,073,709,551,615"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_count(buf, sizeof(buf), cases[i].v);
		assert_string_equal(buf, cases[i].s);
	}
	fmt_count(buf, 4, 1234567);
	assert_string_equal(buf, "1,2");
	fmt_count(buf, 0, 1); /* must not write */
}

static void test_fmt_duration(void **state)
{
	static const struct {
		double ns;
		const char *s;
	} cases[] = {
	    {0, "0 ns"},
	    {0.5, "0.50 ns"},
	    {8.123, "8.12 ns"},
	    {81.26, "81.3 ns"},
	    {812, "812 ns"},
	    {999.4, "999 ns"},
	    {999.6, "1.00 \xc2\xb5s"},
	    {1000, "1.00 \xc2\xb5s"},
	    {9996, "10.0 \xc2\xb5s"},
	    {12345, "12.3 \xc2\xb5s"},
	    {99960, "100 \xc2\xb5s"},
	    {456000, "456 \xc2\xb5s"},
	    {4.56e6, "4.56 ms"},
	    {45.67e6, "45.7 ms"},
	    {999.4e6, "999 ms"},
	    {999.96e6, "1.000 s"},
	    {1e9, "1.000 s"},
	    {1.234e9, "1.234 s"},
	    {1.2344e9, "1.234 s"},
	    {3600e9, "3600.000 s"},
	    {-1500, "-1.50 \xc2\xb5s"},
	    {-2.5e9, "-2.500 s"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_duration(buf, sizeof(buf), cases[i].ns);
		assert_string_equal(buf, cases[i].s);
	}
	fmt_duration(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "n/a");
	fmt_duration(buf, sizeof(buf), INFINITY);
	assert_string_equal(buf, "n/a");
	fmt_duration(buf, 5, 12345);
	assert_string_equal(buf, "12.3");
}

static void test_fmt_double(void **state)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
	    {0, "0"},
	    {-0.0, "0"},
	    {0.998, "0.998"},
	    {1.23, "1.23"},
	    {1.5, "1.5"},
	    {2, "2"},
	    {42, "42"},
	    {0.1, "0.1"},
	    {-0.5, "-0.5"},
	    {3.14159, "3.142"},
	    {99.99, "99.99"},
	    {123.46, "123.5"},
	    {999.96, "1000"},
	    {1234.6, "1235"},
	    {9999.4, "9999"},
	    {9999.6, "10,000"},
	    {12345.6, "12,346"},
	    {1234567.8, "1,234,568"},
	    {-12345.6, "-12,346"},
	    {0.00123456, "0.001235"},
	    {0.001, "0.001"},
	    {0.0005, "0.0005"},
	    {1e-5, "1e-05"},
	    {999999999999999.0, "999,999,999,999,999"},
	    {1.5e15, "1.5e+15"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_double(buf, sizeof(buf), cases[i].v);
		assert_string_equal(buf, cases[i].s);
	}
	fmt_double(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "n/a");
	fmt_double(buf, sizeof(buf), INFINITY);
	assert_string_equal(buf, "inf");
	fmt_double(buf, sizeof(buf), -INFINITY);
	assert_string_equal(buf, "-inf");
	fmt_double(buf, 4, 12345.6);
	assert_string_equal(buf, "12,");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_print_utf8),
	    cmocka_unit_test(test_header_wider_and_empty),
	    cmocka_unit_test(test_columns_after_rows),
	    cmocka_unit_test(test_set_errors),
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_csv_field),
	    cmocka_unit_test(test_print_escaped),
	    cmocka_unit_test(test_utf8_width),
	    cmocka_unit_test(test_fmt_count),
	    cmocka_unit_test(test_fmt_duration),
	    cmocka_unit_test(test_fmt_double),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
