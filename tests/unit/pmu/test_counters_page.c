/*
 * test_counters_page.c - reading a counter from user space without a PMU: rdpmc through a fake
 * mmap'd perf_event page (counter index, width and sign extension, the seqlock retry, time
 * scaling). The attribute encoding, grouping and status texts are in test_counters.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "pmu/counters.h"

static struct perf_event_mmap_page page;
static uint64_t pmc_values[4];
static int rdpmc_calls, ticks_calls;
static uint32_t rdpmc_counter;
static uint64_t ticks_value;
static int bump_lock_once;
static uint64_t offset_after_bump;

static uint64_t fake_rdpmc(uint32_t counter)
{
	uint64_t v = pmc_values[rdpmc_calls < 4 ? rdpmc_calls : 3];

	rdpmc_counter = counter;
	rdpmc_calls++;
	if (bump_lock_once) {
		/* the kernel updates the page while we read: the reader must retry */
		bump_lock_once = 0;
		page.lock++;
		page.offset = offset_after_bump;
	}
	return v;
}

static uint64_t fake_ticks(void)
{
	ticks_calls++;
	return ticks_value;
}

static int page_setup(void **state)
{
	(void)state;
	memset(&page, 0, sizeof(page));
	memset(pmc_values, 0, sizeof(pmc_values));
	rdpmc_calls = ticks_calls = 0;
	rdpmc_counter = 0xffffffffu;
	ticks_value = 0;
	bump_lock_once = 0;
	page.lock = 6;
	page.index = 3;
	page.cap_user_rdpmc = 1;
	page.pmc_width = 48;
	page.offset = 1000;
	page.time_enabled = 5000;
	page.time_running = 5000;
	return 0;
}

static int read_page(uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	*value = *enabled = *running = 0x1234;
	return counter_read_page(&page, fake_rdpmc, fake_ticks, value, enabled, running);
}

static void test_page_no_rdpmc(void **state)
{
	uint64_t v, e, r;

	(void)state;
	page.index = 0; /* the event is not on a counter now */
	assert_int_equal(read_page(&v, &e, &r), -EAGAIN);
	page.index = 3;
	page.cap_user_rdpmc = 0;
	assert_int_equal(read_page(&v, &e, &r), -EAGAIN);
	page.cap_user_rdpmc = 1;
	page.pmc_width = 0;
	assert_int_equal(read_page(&v, &e, &r), -EAGAIN);
	assert_int_equal(rdpmc_calls, 0);
}

static void test_page_value(void **state)
{
	uint64_t v, e, r;

	(void)state;
	pmc_values[0] = 0x2345;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, 1000 + 0x2345);
	assert_int_equal(rdpmc_counter, 2); /* index - 1 */
	assert_int_equal(e, 5000);
	assert_int_equal(r, 5000);
	assert_int_equal(ticks_calls, 0); /* enabled == running: no time extension */
}

/* The pmc is pmc_width bits wide and signed: 0xffffffffffff is -1 at width 48. */
static void test_page_sign_extend(void **state)
{
	uint64_t v, e, r;

	(void)state;
	pmc_values[0] = 0xffffffffffffull;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, 999);
	/* bits above the width are ignored: 0xabcd000000000005 is 5 */
	rdpmc_calls = 0;
	pmc_values[0] = 0xabcd000000000005ull;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, 1005);
	/* the most negative 48-bit value: -2^47 */
	rdpmc_calls = 0;
	page.offset = 1ull << 50;
	pmc_values[0] = 0x800000000000ull;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, (1ull << 50) - (1ull << 47));
	/* width 64: no sign extension needed */
	rdpmc_calls = 0;
	page.pmc_width = 64;
	page.offset = 10;
	pmc_values[0] = 0xfffffffffffffffeull;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, 8);
	/* width 40 */
	rdpmc_calls = 0;
	page.pmc_width = 40;
	pmc_values[0] = 0xfffffffff0ull; /* -16 */
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(v, (uint64_t)(10 - 16));
}

/* The page changes during the first read: the loop runs again and uses the second reading. */
static void test_page_seqlock_retry(void **state)
{
	uint64_t v, e, r;

	(void)state;
	pmc_values[0] = 111;
	pmc_values[1] = 222;
	bump_lock_once = 1;
	offset_after_bump = 5000;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(rdpmc_calls, 2);
	assert_int_equal(v, 5000 + 222);
	assert_int_equal(page.lock, 7);
}

/*
 * Multiplexed (enabled != running): both are extended to now as <linux/perf_event.h> says:
 *   quot = cyc >> time_shift; rem = cyc & ((1 << time_shift) - 1);
 *   delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift)
 * With cyc 3001, shift 10, mult 1536 (1.5 ns per tick), offset 100:
 *   quot 2, rem 953, 953 * 1536 = 1463808, >> 10 = 1429 (1429.5 floored)
 *   delta = 100 + 3072 + 1429 = 4601
 */
static void test_page_time_extend(void **state)
{
	uint64_t v, e, r;

	(void)state;
	page.cap_user_time = 1;
	page.time_enabled = 1000;
	page.time_running = 400;
	page.time_mult = 1536;
	page.time_shift = 10;
	page.time_offset = 100;
	ticks_value = 3001;
	pmc_values[0] = 7;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(ticks_calls, 1);
	assert_int_equal(v, 1007);
	assert_int_equal(e, 1000 + 4601);
	assert_int_equal(r, 400 + 4601);

	/*
	 * time_offset is usually "negative" (u64 wrap-around): offset -4000 gives
	 * delta = 4601 - 100 - 4000 = 501
	 */
	page.time_offset = (uint64_t)-4000;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(e, 1000 + 501);
	assert_int_equal(r, 400 + 501);

	/* no cap_user_time: the page's values as they are */
	page.cap_user_time = 0;
	ticks_calls = 0;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(ticks_calls, 0);
	assert_int_equal(e, 1000);
	assert_int_equal(r, 400);
}

/*
 * cap_user_time_short: the counter is narrower than 64 bits:
 *   cyc = time_cycles + ((cyc - time_cycles) & time_mask)
 * ticks 0x12345678, time_cycles 0x1000, mask 0xffff:
 *   (0x12345678 - 0x1000) & 0xffff = 0x4678; cyc = 0x5678 = 22136
 * shift 10, mult 2048 (2 ns per tick), offset 0:
 *   quot 21, rem 632, delta = 21 * 2048 + (632 * 2048 >> 10) = 43008 + 1264 = 44272
 */
static void test_page_time_short(void **state)
{
	uint64_t v, e, r;

	(void)state;
	page.cap_user_time = 1;
	page.cap_user_time_short = 1;
	page.time_cycles = 0x1000;
	page.time_mask = 0xffff;
	page.time_enabled = 300;
	page.time_running = 100;
	page.time_mult = 2048;
	page.time_shift = 10;
	page.time_offset = 0;
	ticks_value = 0x12345678;
	assert_int_equal(read_page(&v, &e, &r), 0);
	assert_int_equal(e, 300 + 44272);
	assert_int_equal(r, 100 + 44272);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_page_no_rdpmc, page_setup),
	    cmocka_unit_test_setup(test_page_value, page_setup),
	    cmocka_unit_test_setup(test_page_sign_extend, page_setup),
	    cmocka_unit_test_setup(test_page_seqlock_retry, page_setup),
	    cmocka_unit_test_setup(test_page_time_extend, page_setup),
	    cmocka_unit_test_setup(test_page_time_short, page_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
