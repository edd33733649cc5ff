/*
 * test_textesc.c - untrusted text for the terminal (textesc.h): exact escapes of control
 * characters, backslashes, invalid UTF-8 and the code points that steer the terminal or the
 * text's direction; valid UTF-8 kept; text_safe's buffers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textesc.h"

/* The escaped form of LEN bytes at S, NUL-terminated in a static buffer. */
static const char *esc(const char *s, size_t len)
{
	static char out[TEXT_ESCAPE_MAX * 64 + 1];
	size_t n;

	assert_true(len <= 64);
	memset(out, 'X', sizeof(out));
	n = text_escape(out, s, len);
	assert_true(n <= TEXT_ESCAPE_MAX * len);
	out[n] = 0;
	return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_plain(void **state)
{
	(void)state;
	assert_string_equal(ESC(""), "");
	assert_string_equal(ESC("int pick<Box<char> >(Box<char> const&) \"x\" 'y' ~{}"),
			    "int pick<Box<char> >(Box<char> const&) \"x\" 'y' ~{}");
	/* valid UTF-8 of 2, 3 and 4 bytes, and U+00A0, the first code point after C1 */
	assert_string_equal(ESC("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5 \xc2\xa0"),
			    "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5 \xc2\xa0");
	assert_int_equal(text_needs_escape("caf\xc3\xa9 \xe2\x86\x92"), 0);
	assert_int_equal(text_needs_escape(NULL), 0);
}

static void test_controls(void **state)
{
	(void)state;
	assert_string_equal(ESC("a\\b"), "a\\\\b");
	assert_string_equal(ESC("\n\r\t"), "\\n\\r\\t");
	assert_string_equal(ESC("\x1b]0;pwned\a"), "\\x1b]0;pwned\\x07");
	assert_string_equal(ESC("\x1b[2J\x08\x7f\x01\x1f"), "\\x1b[2J\\x08\\x7f\\x01\\x1f");
	assert_string_equal(esc("a\0b", 3), "a\\x00b");
	/* C1 controls: U+009B is CSI to terminals that take 8-bit controls */
	assert_string_equal(ESC("\xc2\x9b"
				"31m\xc2\x80\xc2\x9f"),
			    "\\u009b31m\\u0080\\u009f");
	/* line and paragraph separators, bidirectional controls (text shown reordered) */
	assert_string_equal(ESC("\xe2\x80\xa8\xe2\x80\xa9"), "\\u2028\\u2029");
	assert_string_equal(ESC("a\xe2\x80\xaeo\xe2\x80\xac"), "a\\u202eo\\u202c");
	assert_string_equal(ESC("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"),
			    "\\u2066\\u2069\\u200e\\u200f\\u061c");
	assert_string_equal(ESC("\xe2\x80\xad\xe2\x81\xa5"), "\\u202d\xe2\x81\xa5");
	assert_int_equal(text_needs_escape("a\\b"), 1);
	assert_int_equal(text_needs_escape("\x7f"), 1);
	assert_int_equal(text_needs_escape("\xe2\x80\xae"), 1);
}

/* Every byte that is not part of valid UTF-8 is shown as its value. */
static void test_invalid_utf8(void **state)
{
	(void)state;
	assert_string_equal(ESC("\x80"), "\\x80");		     /* lone continuation */
	assert_string_equal(ESC("a\xff\xfe"), "a\\xff\\xfe");	     /* never valid */
	assert_string_equal(ESC("\xc0\xaf"), "\\xc0\\xaf");	     /* overlong '/' */
	assert_string_equal(ESC("\xe0\x80\xaf"), "\\xe0\\x80\\xaf"); /* overlong */
	assert_string_equal(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* surrogate */
	assert_string_equal(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	assert_string_equal(ESC("x\xe2\x86"), "x\\xe2\\x86");		      /* cut at the end */
	assert_string_equal(ESC("\xe2\x86y"), "\\xe2\\x86y");		      /* cut by a byte */
	assert_int_equal(text_needs_escape("\xc3"), 1);
	/* the worst case: four bytes out for every byte in */
	assert_int_equal(strlen(ESC("\x01\xff\x02")), 12);
}

static void test_safe(void **state)
{
	const char *plain = "main", *p[9];
	char big[5000];

	(void)state;
	assert_ptr_equal(text_safe(plain), plain); /* nothing to escape: the string itself */
	assert_string_equal(text_safe(NULL), "");
	/* eight escaped strings live at once */
	for (int i = 0; i < 8; i++) {
		char in[8] = {'\x1b', (char)('0' + i), 0};

		p[i] = text_safe(in);
	}
	for (int i = 0; i < 8; i++) {
		char want[8];

		snprintf(want, sizeof(want), "\\x1b%d", i);
		assert_string_equal(p[i], want);
	}
	/* a long name whole */
	memset(big, '\a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	p[8] = text_safe(big);
	assert_int_equal(strlen(p[8]), 4 * (sizeof(big) - 1));
	assert_memory_equal(p[8], "\\x07\\x07", 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),
	    cmocka_unit_test(test_controls),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
