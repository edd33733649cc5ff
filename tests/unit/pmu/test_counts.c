/*
 * test_counts.c - multiplex scaling, running ratio, deltas and the decoding of counter
 * snapshots (format.h layout: per group nr, enabled, running, nr values).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "pmu/counts.h"
#include "format/format.h"

static uint64_t scaled(uint64_t raw, uint64_t enabled, uint64_t running)
{
	struct count c = {raw, enabled, running};
	uint64_t out = 0xdeadbeef;

	assert_int_equal(count_scale(&c, &out), 0);
	return out;
}

static void test_scale_exact(void **state)
{
	(void)state;
	/* 1000 * 400 / 100 */
	assert_int_equal(scaled(1000, 400, 100), 4000);
	/* not multiplexed: the raw value */
	assert_int_equal(scaled(1000, 400, 400), 1000);
	assert_int_equal(scaled(0, 400, 100), 0);
	/* 12345 * 3 / 2 = 18517.5 -> 18518 */
	assert_int_equal(scaled(12345, 3000, 2000), 18518);
}

static void test_scale_rounding(void **state)
{
	(void)state;
	assert_int_equal(scaled(3, 3, 2), 5);	   /* 4.5 -> 5 (half up) */
	assert_int_equal(scaled(7, 3, 2), 11);	   /* 10.5 -> 11 */
	assert_int_equal(scaled(1, 5, 4), 1);	   /* 1.25 -> 1 */
	assert_int_equal(scaled(3, 5, 4), 4);	   /* 3.75 -> 4 */
	assert_int_equal(scaled(1, 3, 2), 2);	   /* 1.5 -> 2 */
	assert_int_equal(scaled(10, 10, 3), 33);   /* 33.33 -> 33 */
	assert_int_equal(scaled(20, 10, 3), 67);   /* 66.67 -> 67 */
	assert_int_equal(scaled(100, 7, 6), 117);  /* 116.67 -> 117 */
	assert_int_equal(scaled(1, 1000, 999), 1); /* 1.001 -> 1 */
}

/* raw * enabled does not fit 64 bits here: the product is computed in 128 bits. */
static void test_scale_wide(void **state)
{
	(void)state;
	/* (2^63 - 1) * 2 = 2^64 - 2: fits exactly */
	assert_int_equal(scaled(0x7fffffffffffffffull, 2000000000ull, 1000000000ull),
			 0xfffffffffffffffeull);
	/* 2^62 * 3 / 2 = 3 * 2^61 */
	assert_int_equal(scaled(1ull << 62, 3000000000ull, 2000000000ull), 3ull << 61);
	/* a large raw count and large times: 10^15 * 10^12 / (5 * 10^11) = 2 * 10^15 */
	assert_int_equal(scaled(1000000000000000ull, 1000000000000ull, 500000000000ull),
			 2000000000000000ull);
	/* 2^63 * 2 = 2^64 does not fit: saturates */
	assert_int_equal(scaled(0x8000000000000000ull, 2000000000ull, 1000000000ull), UINT64_MAX);
	assert_int_equal(scaled(UINT64_MAX, UINT64_MAX, 1), UINT64_MAX);
}

static void test_scale_special(void **state)
{
	struct count never_ran = {0, 500, 0};
	struct count never_ran_raw = {7, 500, 0};
	uint64_t out = 42;

	(void)state;
	/* enabled but never running: not counted */
	assert_int_equal(count_scale(&never_ran, &out), -ENODATA);
	assert_int_equal(count_scale(&never_ran_raw, &out), -ENODATA);
	/* never enabled: the raw value, nothing to scale */
	assert_int_equal(scaled(0, 0, 0), 0);
	assert_int_equal(scaled(55, 0, 0), 55);
	/* running above enabled (rounding in the kernel): the raw value */
	assert_int_equal(scaled(1000, 100, 101), 1000);
}

static void test_running_ratio(void **state)
{
	struct count c;

	(void)state;
	c = (struct count){1000, 400, 100};
	assert_true(count_running_ratio(&c) == 0.25);
	assert_true(count_is_scaled(&c));
	c = (struct count){1000, 400, 400};
	assert_true(count_running_ratio(&c) == 1.0);
	assert_false(count_is_scaled(&c));
	c = (struct count){1000, 0, 0};
	assert_true(count_running_ratio(&c) == 1.0);
	assert_false(count_is_scaled(&c));
	c = (struct count){1000, 400, 0};
	assert_true(count_running_ratio(&c) == 0.0);
	assert_true(count_is_scaled(&c));
	c = (struct count){1000, 800, 600};
	assert_true(count_running_ratio(&c) == 0.75);
}

static void test_delta_add(void **state)
{
	struct count a = {100, 1000, 900};
	struct count b = {350, 3000, 2400};
	struct count d = count_delta(&a, &b);
	struct count sum = {1, 2, 3};

	(void)state;
	assert_int_equal(d.raw, 250);
	assert_int_equal(d.enabled, 2000);
	assert_int_equal(d.running, 1500);
	count_add(&sum, &d);
	assert_int_equal(sum.raw, 251);
	assert_int_equal(sum.enabled, 2002);
	assert_int_equal(sum.running, 1503);
	count_add(&sum, &d);
	assert_int_equal(sum.raw, 501);
	assert_int_equal(sum.enabled, 4002);
	assert_int_equal(sum.running, 3003);
	/* a counter that wrapped its u64 still gives the right difference */
	a = (struct count){UINT64_MAX - 4, 10, 10};
	b = (struct count){5, 20, 20};
	d = count_delta(&a, &b);
	assert_int_equal(d.raw, 10);
}

/* Events: 0 and 1 in group 0, 2 not opened, 3 in group 1. */
static const uint32_t layout[] = {0, 0, PSC_NO_GROUP, 1};

static void test_snapshot_decode(void **state)
{
	const uint64_t words[] = {2, 1000, 800, 11, 22, 1, 2000, 1500, 44};
	struct count out[4];

	(void)state;
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(count_snapshot_words(layout, 4), 9);
	assert_int_equal(count_snapshot_decode(words, 9, layout, 4, out), 0);
	assert_int_equal(out[0].raw, 11);
	assert_int_equal(out[0].enabled, 1000);
	assert_int_equal(out[0].running, 800);
	assert_int_equal(out[1].raw, 22);
	assert_int_equal(out[1].enabled, 1000);
	assert_int_equal(out[1].running, 800);
	/* not opened: zeroed */
	assert_int_equal(out[2].raw, 0);
	assert_int_equal(out[2].enabled, 0);
	assert_int_equal(out[2].running, 0);
	assert_int_equal(out[3].raw, 44);
	assert_int_equal(out[3].enabled, 2000);
	assert_int_equal(out[3].running, 1500);
}

/* A group whose members are not adjacent in event order: values follow event order. */
static void test_snapshot_interleaved(void **state)
{
	const uint32_t g[] = {0, 1, 0};
	const uint64_t words[] = {2, 10, 9, 100, 300, 1, 20, 19, 200};
	struct count out[3];

	(void)state;
	assert_int_equal(count_snapshot_words(g, 3), 9);
	assert_int_equal(count_snapshot_decode(words, 9, g, 3, out), 0);
	assert_int_equal(out[0].raw, 100);
	assert_int_equal(out[2].raw, 300);
	assert_int_equal(out[2].enabled, 10);
	assert_int_equal(out[1].raw, 200);
	assert_int_equal(out[1].running, 19);
}

static void test_snapshot_malformed(void **state)
{
	const uint64_t good[] = {2, 1000, 800, 11, 22, 1, 2000, 1500, 44, 0};
	uint64_t w[10];
	struct count out[4];

	(void)state;
	/* nr of group 0 does not match its two members */
	memcpy(w, good, sizeof(w));
	w[0] = 3;
	assert_int_equal(count_snapshot_decode(w, 9, layout, 4, out), -EINVAL);
	w[0] = 1;
	assert_int_equal(count_snapshot_decode(w, 9, layout, 4, out), -EINVAL);
	/* nr of group 1 wrong */
	memcpy(w, good, sizeof(w));
	w[5] = 2;
	assert_int_equal(count_snapshot_decode(w, 9, layout, 4, out), -EINVAL);
	/* short buffers: every length below 9 */
	for (size_t n = 0; n < 9; n++)
		assert_int_equal(count_snapshot_decode(good, n, layout, 4, out), -EINVAL);
	/* a trailing word */
	assert_int_equal(count_snapshot_decode(good, 10, layout, 4, out), -EINVAL);
	/* nothing opened: only the empty snapshot is valid */
	const uint32_t none[] = {PSC_NO_GROUP, PSC_NO_GROUP};

	assert_int_equal(count_snapshot_words(none, 2), 0);
	assert_int_equal(count_snapshot_decode(good, 0, none, 2, out), 0);
	assert_int_equal(out[0].raw, 0);
	assert_int_equal(out[1].raw, 0);
	assert_int_equal(count_snapshot_decode(good, 1, none, 2, out), -EINVAL);
}

static void test_snapshot_words(void **state)
{
	const uint32_t one[] = {0};
	const uint32_t three_groups[] = {0, 1, 1, 2, PSC_NO_GROUP, 2, 2};

	(void)state;
	assert_int_equal(count_snapshot_words(NULL, 0), 0);
	assert_int_equal(count_snapshot_words(one, 1), 4);
	/* 3 groups * 3 + 6 opened events */
	assert_int_equal(count_snapshot_words(three_groups, 7), 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scale_exact),	       cmocka_unit_test(test_scale_rounding),
	    cmocka_unit_test(test_scale_wide),	       cmocka_unit_test(test_scale_special),
	    cmocka_unit_test(test_running_ratio),      cmocka_unit_test(test_delta_add),
	    cmocka_unit_test(test_snapshot_decode),    cmocka_unit_test(test_snapshot_interleaved),
	    cmocka_unit_test(test_snapshot_malformed), cmocka_unit_test(test_snapshot_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
