/*
 * test_fprofile_saturate.c - sums of call durations in the function profile stay within
 * int64_t when a damaged trace gives calls of 2^62 ns and more (found by tests/fuzz/fuzz_otf2.c:
 * two such calls of one function overflowed sum_ns, undefined behaviour): they are pinned at
 * INT64_MAX, in each thread's rows and nodes and in the merge over threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/calls.h"
#include "analysis/profile/func-profile.h"

#define BIG ((int64_t)1 << 62)

/* Function 0x10 called twice on thread TID, each call BIG + 1 ns long. */
static void two_big_calls(struct func_feed *f, pid_t tid)
{
	struct call_event ev;
	struct call_thread th;

	assert_int_equal(func_feed_thread(f, 1, tid), 0);
	for (int i = 0; i < 2; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = CALL_ENTER;
		ev.addr = 0x10;
		ev.ns = 0;
		assert_int_equal(func_feed_event(f, &ev), 0);
		ev.type = CALL_EXIT;
		ev.ns = BIG + 1;
		ev.incl_ns = ev.excl_ns = BIG + 1;
		assert_int_equal(func_feed_event(f, &ev), 0);
	}
	memset(&th, 0, sizeof(th));
	func_feed_thread_end(f, &th);
}

static void test_saturate(void **state)
{
	struct func_profile p, m;
	struct func_feed *f = NULL;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(func_feed_open(&f, &p, 2), 0);
	two_big_calls(f, 1);
	two_big_calls(f, 2);
	func_feed_close(f);
	assert_int_equal(p.nrows, 2);
	for (size_t i = 0; i < p.nrows; i++) {
		/* named as otf2-calls.c names them: the same function on both threads */
		p.rows[i].sym.name = "f";
		p.rows[i].sym.module = "m";
		assert_int_equal(p.rows[i].calls, 2);
		assert_int_equal(p.rows[i].sum_ns, INT64_MAX);
		assert_int_equal(p.rows[i].excl_ns, INT64_MAX);
		assert_int_equal(p.rows[i].incl_ns, INT64_MAX);
	}
	for (size_t i = 0; i < p.nnodes; i++)
		assert_int_equal(p.nodes[i].incl_ns, INT64_MAX);
	assert_int_equal(func_profile_merge(&p, &m), 0);
	assert_int_equal(m.nrows, 1);
	assert_int_equal(m.rows[0].calls, 4);
	assert_int_equal(m.rows[0].sum_ns, INT64_MAX);
	func_profile_release(&m);
	func_profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_saturate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
