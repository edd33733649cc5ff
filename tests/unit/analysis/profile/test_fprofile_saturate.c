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

#include "analysis/profile/func-profile.h"
#include "model/pass.h"

#define BIG ((int64_t)1 << 62)

/* The call event of KIND at NS of location L, BIG + 1 ns long when an exit. */
static struct event call(enum ev_kind kind, int64_t ns, const struct ev_location *l)
{
	struct event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ns = ns;
	ev.loc = l;
	ev.call.addr = 0x10;
	if (kind == EV_CALL_EXIT)
		ev.call.incl_ns = ev.call.excl_ns = BIG + 1;
	return ev;
}

/* Function 0x10 called twice on thread TID (location index TID - 1), each call BIG + 1 ns
 * long, into C. */
static void two_big_calls(struct ev_consumer *c, pid_t tid)
{
	struct ev_location l = {.index = (size_t)tid - 1, .pid = 1, .tid = tid, .name = "t"};
	struct ev_location_facts f;
	char err[256];

	memset(&f, 0, sizeof(f));
	f.first_ns = 1;
	assert_int_equal(c->location_begin(c->ctx, &l, err, sizeof(err)), 0);
	for (int i = 0; i < 2; i++) {
		struct event enter = call(EV_CALL_ENTER, 0, &l),
			     exit = call(EV_CALL_EXIT, BIG + 1, &l);

		assert_int_equal(c->event(c->ctx, &enter, err, sizeof(err)), 0);
		assert_int_equal(c->event(c->ctx, &exit, err, sizeof(err)), 0);
	}
	assert_int_equal(c->location_end(c->ctx, &l, &f, err, sizeof(err)), 0);
}

static void test_saturate(void **state)
{
	struct func_profile p, m;
	struct ev_consumer c;
	char err[256];

	(void)state;
	/* with no symtab, as an OTF2 archive's profile: the rows keyed by the addresses */
	assert_int_equal(func_profile_consumer(&c, &p, NULL, NULL, 2), 0);
	two_big_calls(&c, 1);
	two_big_calls(&c, 2);
	assert_int_equal(c.finish(c.ctx, err, sizeof(err)), 0);
	ev_consumer_release(&c);
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
