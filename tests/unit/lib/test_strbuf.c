/*
 * test_strbuf.c - the growable string buffer (src/lib/strbuf.h): appends of every kind, growth
 * far past the first allocation, printf output longer than the room left, joins, and an
 * allocation that fails (psc_mem_realloc replaced here) remembered so that a chain of appends
 * is checked once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

/* The allocations strbuf makes go through here; FAIL_AFTER > 0 makes the FAIL_AFTER-th from
 * now fail. */
static int fail_after;

void *psc_mem_realloc(void *p, size_t size)
{
	if (fail_after > 0 && --fail_after == 0)
		return NULL;
	return realloc(p, size);
}

static void test_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len = 99;

	(void)state;
	assert_string_equal(strbuf_str(&sb), "");
	assert_int_equal(sb.len, 0);
	s = strbuf_detach(&sb, &len);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	strbuf_release(&sb);
}

static void test_appends(void **state)
{
	struct strbuf sb;
	const char *items[] = {"task-clock", "page-faults", "cycles"};

	(void)state;
	strbuf_init(&sb);
	assert_int_equal(strbuf_adds(&sb, "ab"), 0);
	assert_int_equal(strbuf_addch(&sb, 'c'), 0);
	assert_int_equal(strbuf_add(&sb, "d\0e", 3), 0);
	assert_int_equal(sb.len, 6);
	assert_memory_equal(sb.buf, "abcd\0e", 7);
	strbuf_reset(&sb);
	assert_string_equal(strbuf_str(&sb), "");
	assert_int_equal(strbuf_addf(&sb, "%s=%d;%05.1f", "x", -42, 3.14159), 0);
	assert_string_equal(strbuf_str(&sb), "x=-42;003.1");
	strbuf_reset(&sb);
	assert_int_equal(strbuf_join(&sb, items, 3, ","), 0);
	assert_string_equal(strbuf_str(&sb), "task-clock,page-faults,cycles");
	strbuf_reset(&sb);
	assert_int_equal(strbuf_join(&sb, items, 1, ","), 0);
	assert_string_equal(strbuf_str(&sb), "task-clock");
	strbuf_reset(&sb);
	assert_int_equal(strbuf_join(&sb, items, 0, ","), 0);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_release(&sb);
	assert_null(sb.buf);
}

/* 999 names joined as `record -e` joins them: every byte there, far past 4 KiB. */
static void test_growth(void **state)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	char *s;
	size_t len;

	(void)state;
	for (int i = 0; i < 999; i++)
		assert_int_equal(strbuf_addf(&sb, "%sevent-number-%03d", i ? "," : "", i), 0);
	assert_int_equal(sb.len, 999 * 17 - 1);
	assert_true(sb.alloc > sb.len);
	assert_int_equal(strlen(sb.buf), sb.len);
	assert_memory_equal(sb.buf, "event-number-000,event-number-001,", 34);
	assert_string_equal(sb.buf + sb.len - 17, ",event-number-998");
	/* one printf longer than everything so far */
	memset(&want, 0, sizeof(want));
	assert_int_equal(strbuf_addf(&want, "%s|%s", sb.buf, sb.buf), 0);
	assert_int_equal(want.len, 2 * sb.len + 1);
	assert_int_equal(want.buf[sb.len], '|');
	assert_memory_equal(want.buf + sb.len + 1, sb.buf, sb.len + 1);
	s = strbuf_detach(&want, &len);
	assert_int_equal(len, 2 * sb.len + 1);
	assert_int_equal(want.len, 0);
	assert_null(want.buf);
	free(s);
	strbuf_release(&sb);
}

/* The first failed allocation is kept: later appends do nothing; detach gives NULL. */
static void test_error(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 7;

	(void)state;
	assert_int_equal(strbuf_adds(&sb, "short"), 0);
	fail_after = 1;
	assert_int_equal(strbuf_addf(&sb, "%0200d", 1), -ENOMEM);
	assert_int_equal(sb.err, -ENOMEM);
	assert_string_equal(strbuf_str(&sb), "short");
	assert_int_equal(strbuf_adds(&sb, "x"), -ENOMEM);
	assert_int_equal(strbuf_addch(&sb, 'x'), -ENOMEM);
	assert_int_equal(strbuf_addf(&sb, "%d", 1), -ENOMEM);
	assert_string_equal(strbuf_str(&sb), "short");
	assert_null(strbuf_detach(&sb, &len));
	assert_int_equal(len, 7);
	assert_null(sb.buf);
	assert_int_equal(sb.err, 0);
	/* usable again after the release */
	assert_int_equal(strbuf_adds(&sb, "again"), 0);
	assert_string_equal(strbuf_str(&sb), "again");
	/* a size that overflows is an error, not a wrapped allocation */
	assert_int_equal(strbuf_grow(&sb, SIZE_MAX - 2), -ENOMEM);
	assert_string_equal(strbuf_str(&sb), "again");
	strbuf_reset(&sb);
	assert_int_equal(sb.err, 0);
	assert_int_equal(strbuf_adds(&sb, "ok"), 0);
	assert_string_equal(strbuf_str(&sb), "ok");
	strbuf_release(&sb);
	fail_after = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_appends),
	    cmocka_unit_test(test_growth),
	    cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
