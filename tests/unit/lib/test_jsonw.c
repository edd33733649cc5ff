/*
 * test_jsonw.c - the JSON writer: exact text for structures, escaping and numbers, compact
 * and pretty.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"

static void test_nested_compact(void **state)
{
	struct jsonw w;

	(void)state;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "a", "x");
	jsonw_key(&w, "b");
	jsonw_array_begin(&w);
	jsonw_u64(&w, 1);
	jsonw_i64(&w, -2);
	jsonw_double(&w, 0.5);
	jsonw_bool(&w, 1);
	jsonw_bool(&w, 0);
	jsonw_null(&w);
	jsonw_object_begin(&w);
	jsonw_object_end(&w);
	jsonw_array_begin(&w);
	jsonw_array_end(&w);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, "k", 7);
	jsonw_key(&w, "arr");
	jsonw_array_begin(&w);
	jsonw_array_begin(&w);
	jsonw_string(&w, "deep");
	jsonw_array_end(&w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	jsonw_array_end(&w);
	jsonw_kv_i64(&w, "c", -9223372036854775807LL - 1);
	jsonw_kv_u64(&w, "d", UINT64_MAX);
	jsonw_kv_double(&w, "e", 2.0);
	jsonw_key(&w, "f");
	jsonw_object_begin(&w);
	jsonw_key(&w, "g");
	jsonw_object_begin(&w);
	jsonw_object_end(&w);
	jsonw_object_end(&w);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w),
			    "{\"a\":\"x\",\"b\":[1,-2,0.5,true,false,null,{},[],{\"k\":7,\"arr\":[["
			    "\"deep\"]]}],\"c\":-9223372036854775808,\"d\":18446744073709551615,"
			    "\"e\":2,\"f\":{\"g\":{}}}");
	assert_int_equal(w.len, strlen(jsonw_text(&w)));
	jsonw_release(&w);
}

static void test_pretty(void **state)
{
	struct jsonw w;

	(void)state;
	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, "a", 1);
	jsonw_key(&w, "b");
	jsonw_array_begin(&w);
	jsonw_u64(&w, 2);
	jsonw_string(&w, "s");
	jsonw_array_end(&w);
	jsonw_key(&w, "c");
	jsonw_array_begin(&w);
	jsonw_array_end(&w);
	jsonw_key(&w, "d");
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "e", "f");
	jsonw_object_end(&w);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{\n"
					    "  \"a\": 1,\n"
					    "  \"b\": [\n"
					    "    2,\n"
					    "    \"s\"\n"
					    "  ],\n"
					    "  \"c\": [],\n"
					    "  \"d\": {\n"
					    "    \"e\": \"f\"\n"
					    "  }\n"
					    "}");
	jsonw_release(&w);
}

/* Pretty output nested deeper than JSONW_INDENT_MAX levels indents no further, so its size is
 * linear in the depth. */
static void test_pretty_deep(void **state)
{
	const int depth = 100000;
	struct jsonw w;
	const char *text;
	size_t len;

	(void)state;
	jsonw_init(&w, 1);
	for (int i = 0; i < depth; i++)
		jsonw_array_begin(&w);
	for (int i = 0; i < depth; i++)
		jsonw_array_end(&w);
	text = jsonw_text(&w);
	assert_non_null(text);
	len = strlen(text);
	/* "[\n" + indentation per level, and as much again to close */
	assert_true(len <= (size_t)depth * 2 * (2 + 2 * JSONW_INDENT_MAX));
	assert_memory_equal(text, "[\n  [\n    [", 11);
	jsonw_release(&w);
}

/* The escaped form of LEN bytes at S, NUL-terminated in a static buffer. */
static const char *esc(const char *s, size_t len)
{
	static char out[6 * 64 + 1];
	size_t n;

	assert_true(len <= 64);
	memset(out, 'X', sizeof(out));
	n = jsonw_escape(out, s, len);
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
	assert_string_equal(ESC("/ stays, \x7f does not"), "/ stays, \\u007f does not");
}

static void test_escape_control(void **state)
{
	(void)state;
	assert_string_equal(ESC("\t\n\r"), "\\t\\n\\r");
	assert_string_equal(ESC("\x01\x1f"), "\\u0001\\u001f");
	assert_string_equal(ESC("\x1b]0;title\a"), "\\u001b]0;title\\u0007");
	/* an embedded NUL is a character like any other when a length is given */
	assert_string_equal(esc("a\0b", 3), "a\\u0000b");
	/* C1 controls (valid UTF-8 of U+0080 to U+009F: U+009B is a CSI to some terminals) */
	assert_string_equal(ESC("\xc2\x80\xc2\x9b\xc2\x9f"), "\\u0080\\u009b\\u009f");
	assert_string_equal(ESC("\xc2\xa0"), "\xc2\xa0"); /* U+00A0 is not one */
}

/* Every class of invalid UTF-8: each byte that is not part of a valid sequence becomes U+FFFD,
 * and what follows is read afresh. */
static void test_escape_utf8(void **state)
{
	(void)state;
	/* valid sequences of 2, 3 and 4 bytes pass unchanged, the extremes included */
	assert_string_equal(ESC("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9"); /* été */
	assert_string_equal(ESC("\xe2\x86\x92"), "\xe2\x86\x92");	    /* → */
	assert_string_equal(ESC("\xf0\x9f\x94\xa5"), "\xf0\x9f\x94\xa5");   /* U+1F525 */
	assert_string_equal(ESC("\xef\xbf\xbf\xf4\x8f\xbf\xbf"), "\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	assert_string_equal(ESC("\xed\x9f\xbf\xee\x80\x80"), "\xed\x9f\xbf\xee\x80\x80");
	/* lone continuation bytes */
	assert_string_equal(ESC("\x80"), "\\ufffd");
	assert_string_equal(ESC("a\xbf\xbf"), "a\\ufffd\\ufffd");
	/* bytes never valid */
	assert_string_equal(ESC("a\xff"), "a\\ufffd");
	assert_string_equal(ESC("\xfe\xf8\xf5"), "\\ufffd\\ufffd\\ufffd");
	/* overlong forms: '/' in 2, 3 and 4 bytes, and the largest overlong 3-byte form */
	assert_string_equal(ESC("\xc0\xaf"), "\\ufffd\\ufffd");
	assert_string_equal(ESC("\xc1\xbf"), "\\ufffd\\ufffd");
	assert_string_equal(ESC("\xe0\x80\xaf"), "\\ufffd\\ufffd\\ufffd");
	assert_string_equal(ESC("\xe0\x9f\xbf"), "\\ufffd\\ufffd\\ufffd");
	assert_string_equal(ESC("\xf0\x80\x80\xaf"), "\\ufffd\\ufffd\\ufffd\\ufffd");
	/* UTF-16 surrogates, high and low, and a pair encoded separately (CESU-8) */
	assert_string_equal(ESC("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");
	assert_string_equal(ESC("\xed\xbf\xbf"), "\\ufffd\\ufffd\\ufffd");
	assert_string_equal(ESC("\xed\xa0\xbd\xed\xb8\x80"),
			    "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd");
	/* above U+10FFFF */
	assert_string_equal(ESC("\xf4\x90\x80\x80"), "\\ufffd\\ufffd\\ufffd\\ufffd");
	assert_string_equal(ESC("\xf7\xbf\xbf\xbf"), "\\ufffd\\ufffd\\ufffd\\ufffd");
	/* truncated at the end of the string */
	assert_string_equal(ESC("\xc3"), "\\ufffd");
	assert_string_equal(ESC("\xe2\x86"), "\\ufffd\\ufffd");
	assert_string_equal(ESC("x\xf0\x9f\x94"), "x\\ufffd\\ufffd\\ufffd");
	/* cut by a byte that is not a continuation */
	assert_string_equal(ESC("\xe2\x86x"), "\\ufffd\\ufffdx");
	assert_string_equal(ESC("\xc3\"\xc3\xa9"), "\\ufffd\\\"\xc3\xa9");
	/* the worst case: six bytes out for every byte in */
	assert_int_equal(strlen(ESC("\x01\xff\x02")), 18);
}

/* Strings longer than the writer's pieces: a valid sequence across a piece boundary is kept
 * whole, an invalid one is replaced, wherever it falls. */
static void test_escape_long(void **state)
{
	char in[1200], want[1300 * 6];
	struct jsonw w;

	(void)state;
	for (size_t at = 250; at < 262; at++) {
		size_t n = 0, o = 0;

		memset(in, 'a', at);
		n = at;
		memcpy(in + n, "\xf0\x9f\x94\xa5\xe2\x86\xff", 7); /* U+1F525, then a cut one */
		n += 7;
		memset(in + n, 'b', 600);
		n += 600;
		in[n] = 0;
		want[o++] = '"';
		memset(want + o, 'a', at);
		o += at;
		memcpy(want + o, "\xf0\x9f\x94\xa5\\ufffd\\ufffd\\ufffd", 22);
		o += 22;
		memset(want + o, 'b', 600);
		o += 600;
		want[o++] = '"';
		want[o] = 0;
		jsonw_init(&w, 0);
		jsonw_string(&w, in);
		assert_string_equal(jsonw_text(&w), want);
		jsonw_release(&w);
	}
}

static void test_escaping(void **state)
{
	struct jsonw w;

	(void)state;
	jsonw_init(&w, 0);
	jsonw_array_begin(&w);
	jsonw_string(&w, "say \"hi\"");
	jsonw_string(&w, "C:\\dir\\");
	jsonw_string(&w, "a\nb\rc\td");
	jsonw_string(&w, "\x01\x1f\x7f");
	jsonw_string(&w, "\b\f");
	jsonw_string(&w, "caf\xc3\xa9 /"); /* UTF-8 and '/' pass through */
	jsonw_string(&w, "\xff\xc3(");	   /* invalid UTF-8 does not */
	jsonw_string(&w, "");
	jsonw_string(&w, NULL);
	jsonw_array_end(&w);
	assert_string_equal(jsonw_text(&w),
			    "[\"say \\\"hi\\\"\",\"C:\\\\dir\\\\\","
			    "\"a\\nb\\rc\\td\",\"\\u0001\\u001f\\u007f\","
			    "\"\\u0008\\u000c\",\"caf\xc3\xa9 /\",\"\\ufffd\\ufffd(\",\"\",\"\"]");
	jsonw_release(&w);

	/* keys are escaped too */
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "k\"\\\x02", "v");
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{\"k\\\"\\\\\\u0002\":\"v\"}");
	jsonw_release(&w);
}

static const char *one_double(struct jsonw *w, double v)
{
	jsonw_release(w);
	jsonw_init(w, 0);
	jsonw_double(w, v);
	return jsonw_text(w);
}

static void test_doubles(void **state)
{
	struct jsonw w;

	(void)state;
	jsonw_init(&w, 0);
	/* the shortest text that reads back to the same double */
	assert_string_equal(one_double(&w, 0.1), "0.1");
	assert_string_equal(one_double(&w, 0.5), "0.5");
	assert_string_equal(one_double(&w, 1.0), "1");
	assert_string_equal(one_double(&w, 0.0), "0");
	assert_string_equal(one_double(&w, -2.25), "-2.25");
	assert_string_equal(one_double(&w, 123456.0), "123456");
	assert_string_equal(one_double(&w, 1e300), "1e+300");
	assert_string_equal(one_double(&w, -1e-300), "-1e-300");
	assert_string_equal(one_double(&w, 0.1 + 0.2), "0.30000000000000004");
	assert_string_equal(one_double(&w, 1.0 / 3.0), "0.3333333333333333");
	/* 123456789012345678 is stored as 123456789012345680: 17 digits are needed */
	assert_string_equal(one_double(&w, 123456789012345678.0), "1.2345678901234568e+17");
	/* not numbers in JSON */
	assert_string_equal(one_double(&w, NAN), "null");
	assert_string_equal(one_double(&w, INFINITY), "null");
	assert_string_equal(one_double(&w, -INFINITY), "null");
	jsonw_release(&w);

	/* in context: commas stay right around null */
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_kv_double(&w, "x", NAN);
	jsonw_kv_double(&w, "y", 0.25);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{\"x\":null,\"y\":0.25}");
	jsonw_release(&w);
}

/* The shortest "%.*g" that reads back to V, found one precision after another. */
static void shortest_g(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Doubles of every kind a report writes, against the precision-by-precision search: random
 * bit patterns, quotients (rates, means), thousandths, powers of two, and decimals of 1 to 9
 * digits over the whole range of exponents (short results, that bisection reaches last). */
static void test_doubles_shortest(void **state)
{
	static const uint64_t pow10[] = {1,	 10,	  100,	    1000,      10000,
					 100000, 1000000, 10000000, 100000000, 1000000000};
	uint64_t x = 0x2545f4914f6cdd1dull;
	struct jsonw w;
	char want[40];

	(void)state;
	jsonw_init(&w, 0);
	for (int i = 0; i < 200000; i++) {
		double v;
		uint64_t bits;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		switch (i % 5) {
		case 0:
			bits = x;
			memcpy(&v, &bits, sizeof(v));
			if (!isfinite(v))
				continue;
			break;
		case 1:
			v = (double)(x >> 20) / (double)((x & 0xfffff) + 1);
			break;
		case 2:
			v = (double)(x % 100000000) / 1000.0;
			break;
		case 3:
			v = ldexp(1.0, (int)(x % 2000) - 1000) * ((x >> 40) & 1 ? -1 : 1);
			break;
		default:
			snprintf(want, sizeof(want), "%" PRIu64 "e%d", (x >> 8) % pow10[x % 9 + 1],
				 (int)((x >> 40) % 600) - 300);
			v = strtod(want, NULL);
			break;
		}
		shortest_g(want, sizeof(want), v);
		if (strcmp(one_double(&w, v), want) != 0)
			fail_msg("%a: got %s, want %s", v, jsonw_text(&w), want);
	}
	jsonw_release(&w);
}

static void test_empty_and_growth(void **state)
{
	struct jsonw w;
	char expect[8192];
	size_t n = 0;

	(void)state;
	jsonw_init(&w, 0);
	assert_string_equal(jsonw_text(&w), "");
	jsonw_release(&w);

	/* well past the first buffer: 1000 numbers */
	jsonw_init(&w, 0);
	jsonw_array_begin(&w);
	expect[n++] = '[';
	for (int i = 0; i < 1000; i++) {
		jsonw_u64(&w, (uint64_t)i);
		n += (size_t)snprintf(expect + n, sizeof(expect) - n, i ? ",%d" : "%d", i);
	}
	jsonw_array_end(&w);
	expect[n++] = ']';
	expect[n] = 0;
	assert_false(w.failed);
	assert_string_equal(jsonw_text(&w), expect);
	assert_int_equal(w.len, n);
	jsonw_release(&w);

	/* signed values of every length, as printf writes them */
	jsonw_init(&w, 0);
	jsonw_array_begin(&w);
	n = 0;
	expect[n++] = '[';
	for (int i = 0; i < 40; i++) {
		int64_t v = i < 38 ? (int64_t)1 << (i * 5 / 3) : INT64_MAX;

		v = i % 2 ? -v + 1 : v - 1;
		jsonw_i64(&w, v);
		n += (size_t)snprintf(expect + n, sizeof(expect) - n, i ? ",%" PRId64 : "%" PRId64,
				      v);
	}
	jsonw_array_end(&w);
	expect[n++] = ']';
	expect[n] = 0;
	assert_string_equal(jsonw_text(&w), expect);
	jsonw_release(&w);
}

/* Unsigned and signed numbers at every change of length (10^k - 1, 10^k, 10^k + 1 up to
 * 10^19, and the extremes) as printf writes them. */
static void test_decimal_lengths(void **state)
{
	struct jsonw w;
	char expect[4096];
	size_t n = 0;
	uint64_t p = 1;

	(void)state;
	jsonw_init(&w, 0);
	jsonw_array_begin(&w);
	expect[n++] = '[';
	for (int k = 0; k <= 19; k++, p *= 10) {
		const uint64_t v[] = {p - 1, p, p + 1};

		for (int i = 0; i < 3; i++) {
			jsonw_u64(&w, v[i]);
			jsonw_i64(&w, -(int64_t)(v[i] / 2));
			n += (size_t)snprintf(expect + n, sizeof(expect) - n,
					      "%s%" PRIu64 ",%" PRId64, n > 1 ? "," : "", v[i],
					      -(int64_t)(v[i] / 2));
		}
	}
	jsonw_u64(&w, UINT64_MAX);
	jsonw_i64(&w, INT64_MIN);
	n += (size_t)snprintf(expect + n, sizeof(expect) - n, ",%" PRIu64 ",%" PRId64 "]",
			      UINT64_MAX, INT64_MIN);
	jsonw_array_end(&w);
	assert_string_equal(jsonw_text(&w), expect);
	jsonw_release(&w);
}

/* Parts written apart and spliced in: the commas where the members or elements fall, in
 * compact and pretty form; an empty part adds nothing, a failed one fails the whole. */
static void test_parts(void **state)
{
	struct jsonw w, a, b, c;

	(void)state;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_init_part(&a, &w); /* the first member */
	jsonw_kv_u64(&a, "a", 1);
	jsonw_kv_u64(&a, "b", 2);
	jsonw_init_part(&b, &w); /* nothing */
	jsonw_init_part(&c, &w); /* after a member */
	jsonw_key(&c, "c");
	jsonw_array_begin(&c);
	jsonw_u64(&c, 3);
	jsonw_array_end(&c);
	jsonw_splice(&w, &a);
	jsonw_splice(&w, &b);
	jsonw_kv_u64(&w, "m", 0);
	jsonw_splice(&w, &c);
	jsonw_key(&w, "d"); /* a part as a key's value */
	jsonw_init_part(&a, &w);
	jsonw_u64(&a, 4);
	jsonw_splice(&w, &a);
	jsonw_kv_u64(&w, "e", 5);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{\"a\":1,\"b\":2,\"m\":0,\"c\":[3],\"d\":4,\"e\":5}");
	assert_null(a.buf);
	jsonw_release(&w);

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, "x", 1);
	jsonw_init_part(&a, &w);
	jsonw_kv_u64(&a, "y", 2);
	jsonw_splice(&w, &a);
	jsonw_key(&w, "z");
	jsonw_init_part(&a, &w);
	jsonw_u64(&a, 3);
	jsonw_splice(&w, &a);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{\n  \"x\": 1,\n  \"y\": 2,\n  \"z\": 3\n}");
	jsonw_release(&w);

	jsonw_init(&w, 0);
	jsonw_array_begin(&w);
	jsonw_init_part(&a, &w);
	jsonw_u64(&a, 1);
	a.failed = 1; /* as after a failed allocation */
	jsonw_splice(&w, &a);
	jsonw_array_end(&w);
	assert_null(jsonw_text(&w));
	jsonw_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decimal_lengths),
	    cmocka_unit_test(test_nested_compact),
	    cmocka_unit_test(test_pretty),
	    cmocka_unit_test(test_pretty_deep),
	    cmocka_unit_test(test_escape_ascii),
	    cmocka_unit_test(test_escape_control),
	    cmocka_unit_test(test_escape_utf8),
	    cmocka_unit_test(test_escape_long),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_doubles),
	    cmocka_unit_test(test_doubles_shortest),
	    cmocka_unit_test(test_empty_and_growth),
	    cmocka_unit_test(test_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
