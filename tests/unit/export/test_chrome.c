/*
 * test_chrome.c - the Chrome trace writer's numbers: nanoseconds printed as microseconds with
 * three decimals, and decimal integers (its strings are jsonw_escape's: test_jsonw.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "export/chrome.h"

static const char *us(int64_t ns)
{
	static char out[40];
	size_t n;

	memset(out, 'X', sizeof(out));
	n = chrome_format_us(out, ns);
	assert_true(n < 32);
	out[n] = 0;
	return out;
}

static void test_format_us(void **state)
{
	(void)state;
	assert_string_equal(us(0), "0.000");
	assert_string_equal(us(1), "0.001");
	assert_string_equal(us(999), "0.999");
	assert_string_equal(us(1000), "1.000");
	assert_string_equal(us(1001), "1.001");
	assert_string_equal(us(12345), "12.345");
	assert_string_equal(us(100000), "100.000");
	assert_string_equal(us(13994359), "13994.359");
	assert_string_equal(us(-1), "-0.001");
	assert_string_equal(us(-1500), "-1.500");
	assert_string_equal(us(INT64_MAX), "9223372036854775.807");
	assert_string_equal(us(INT64_MIN), "-9223372036854775.808");
}

static void test_format_u64(void **state)
{
	const struct {
		uint64_t v;
		const char *text;
	} cases[] = {
	    {0, "0"},
	    {9, "9"},
	    {10, "10"},
	    {99, "99"},
	    {100, "100"},
	    {1001, "1001"},
	    {4194304, "4194304"},
	    {UINT64_MAX, "18446744073709551615"},
	};
	char out[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 'X', sizeof(out));
		out[chrome_format_u64(out, cases[i].v)] = 0;
		assert_string_equal(out, cases[i].text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_us),
	    cmocka_unit_test(test_format_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
