/*
 * test_chrome.c - the Chrome trace writer's string escaping and timestamps: exact text for
 * quotes, backslashes, control characters, valid and invalid UTF-8, and nanoseconds printed
 * as microseconds with three decimals, and decimal integers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "chrome.h"

/* The escaped form of LEN bytes at S, NUL-terminated in a static buffer. */
static const char *esc(const char *s, size_t len)
{
	static char out[6 * 64 + 1];
	size_t n;

	assert_true(len <= 64);
	memset(out, 'X', sizeof(out));
	n = chrome_json_escape(out, s, len);
	assert_true(n <= 6 * len);
	out[n] = 0;
	return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_escape_ascii(void **state)
{
	(void)state;
	assert_string_equal(ESC(""), "");
	assert_string_equal(ESC("fib"), "fib");
	assert_string_equal(ESC("int pick<Box<char> >(Box<char> const&)"),
			    "int pick<Box<char> >(Box<char> const&)");
	assert_string_equal(ESC("operator\"\" _w"), "operator\\\"\\\" _w");
	assert_string_equal(ESC("a\\b"), "a\\\\b");
	assert_string_equal(ESC("/ and \x7f stay"), "/ and \x7f stay");
}

static void test_escape_control(void **state)
{
	(void)state;
	assert_string_equal(ESC("\t\n\r"), "\\u0009\\u000a\\u000d");
	assert_string_equal(ESC("\x01\x1f"), "\\u0001\\u001f");
	/* an embedded NUL is a character like any other when a length is given */
	assert_string_equal(esc("a\0b", 3), "a\\u0000b");
}

static void test_escape_utf8(void **state)
{
	(void)state;
	/* valid sequences of 2, 3 and 4 bytes pass unchanged */
	assert_string_equal(ESC("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9"); /* été */
	assert_string_equal(ESC("\xe2\x86\x92"), "\xe2\x86\x92");	    /* → */
	assert_string_equal(ESC("\xf0\x9f\x94\xa5"), "\xf0\x9f\x94\xa5");   /* U+1F525 */
	assert_string_equal(ESC("\xef\xbf\xbf\xf4\x8f\xbf\xbf"), "\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	/* every byte of an invalid sequence becomes U+FFFD */
	assert_string_equal(ESC("a\xff"), "a\\ufffd");
	assert_string_equal(ESC("\x80"), "\\ufffd");
	assert_string_equal(ESC("\xc0\xaf"), "\\ufffd\\ufffd");		   /* overlong '/' */
	assert_string_equal(ESC("\xe0\x80\xaf"), "\\ufffd\\ufffd\\ufffd"); /* overlong */
	assert_string_equal(ESC("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd"); /* surrogate D800 */
	assert_string_equal(ESC("\xf4\x90\x80\x80"),
			    "\\ufffd\\ufffd\\ufffd\\ufffd");	  /* above U+10FFFF */
	assert_string_equal(ESC("\xc3"), "\\ufffd");		  /* cut short */
	assert_string_equal(ESC("\xe2\x86"), "\\ufffd\\ufffd");	  /* cut short */
	assert_string_equal(ESC("\xe2\x86x"), "\\ufffd\\ufffdx"); /* bad continuation */
	/* the worst case: six bytes out for every byte in */
	assert_int_equal(strlen(ESC("\x01\xff\x02")), 18);
}

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
	    cmocka_unit_test(test_escape_ascii), cmocka_unit_test(test_escape_control),
	    cmocka_unit_test(test_escape_utf8),	 cmocka_unit_test(test_format_us),
	    cmocka_unit_test(test_format_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
