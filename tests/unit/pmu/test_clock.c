/*
 * test_clock.c - the ticks-to-ns fit (clock_fit_pairs / clock_fit_ns), clock source names and
 * the choice of the clock source. Every expected value is worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/clock.h"

/* An exact line ns = 5000 + 0.5 * (ticks - 1000): the fit returns it unchanged. */
static void test_fit_exact_half(void **state)
{
	const struct clock_pair pairs[] = {{1000, 5000}, {3000, 6000}, {5000, 7000}};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(pairs, 3, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 0.5);
	assert_int_equal(fit.ref_ticks, 1000);
	assert_int_equal(fit.ref_ns, 5000);
	/* on the pairs themselves */
	assert_int_equal(clock_fit_ns(&fit, 1000), 5000);
	assert_int_equal(clock_fit_ns(&fit, 3000), 6000);
	assert_int_equal(clock_fit_ns(&fit, 5000), 7000);
	/* beyond the last pair: 5000 + 0.5 * 9000 = 9500 */
	assert_int_equal(clock_fit_ns(&fit, 10000), 9500);
	/* before the reference: 5000 + 0.5 * (-1000) = 4500 */
	assert_int_equal(clock_fit_ns(&fit, 0), 4500);
	/* durations: 1000 ticks are 500 ns */
	assert_true(clock_fit_duration(&fit, 1000) == 500.0);
	assert_true(clock_fit_duration(&fit, 0) == 0.0);
}

/* Two pairs are enough for the least-squares path. */
static void test_fit_two_pairs(void **state)
{
	/* slope (1300 - 100) / (2600 - 200) = 0.5 */
	const struct clock_pair pairs[] = {{200, 100}, {2600, 1300}};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(pairs, 2, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 0.5);
	assert_int_equal(fit.ref_ticks, 200);
	assert_int_equal(fit.ref_ns, 100);
	assert_int_equal(clock_fit_ns(&fit, 1400), 700);
}

/*
 * Noisy points around ns = 1000 + 2 * (ticks - 1000000), with noise +3, -3, 0, -3, +3 at tick
 * offsets 0, 100, 200, 300, 400. Offsets from the mean are -200, -100, 0, 100, 200, so the
 * noise has zero mean and zero covariance with the ticks: least squares gives the exact line.
 *   dy from the first pair (1003): 0, 194, 397, 594, 800; mean 397 -> -397 -203 0 197 403
 *   sxy = 200*397 + 100*203 + 0 + 100*197 + 200*403 = 200000, sxx = 100000 -> slope 2
 *   line at the first ticks: 397 - 2 * 200 = -3 -> ref_ns = 1003 - 3 = 1000
 */
static void test_fit_noisy_symmetric(void **state)
{
	const struct clock_pair pairs[] = {
	    {1000000, 1003}, {1000100, 1197}, {1000200, 1400}, {1000300, 1597}, {1000400, 1803},
	};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(pairs, 5, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 2.0);
	assert_int_equal(fit.ref_ticks, 1000000);
	assert_int_equal(fit.ref_ns, 1000);
	assert_int_equal(clock_fit_ns(&fit, 1000000), 1000);
	assert_int_equal(clock_fit_ns(&fit, 1000250), 1500);
	assert_int_equal(clock_fit_ns(&fit, 1000400), 1800);
	/* the pairs are not in tick order: same line */
	const struct clock_pair shuffled[] = {
	    {1000200, 1400}, {1000000, 1003}, {1000400, 1803}, {1000100, 1197}, {1000300, 1597},
	};

	assert_int_equal(clock_fit_pairs(shuffled, 5, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 2.0);
	assert_int_equal(fit.ref_ticks, 1000200);
	/* the line at 1000200 is 1000 + 2 * 200 = 1400 */
	assert_int_equal(fit.ref_ns, 1400);
	assert_int_equal(clock_fit_ns(&fit, 1000000), 1000);
}

/*
 * Ticks near 1e16 (above 2^53, where a double cannot hold every integer) and ns near 5e15:
 * the relative form keeps precision. Pairs every 1e9 ticks, 5e8 ns apart: slope 0.5, the line
 * passes through the first pair.
 */
static void test_fit_large_values(void **state)
{
	const uint64_t t0 = 10000000000012345ull; /* 1e16 + 12345, odd: not a double */
	const uint64_t n0 = 5000000000000007ull;
	const struct clock_pair pairs[] = {{t0, n0},
					   {t0 + 1000000000ull, n0 + 500000000ull},
					   {t0 + 2000000000ull, n0 + 1000000000ull}};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(pairs, 3, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 0.5);
	assert_int_equal(fit.ref_ticks, t0);
	assert_int_equal(fit.ref_ns, n0);
	/* ref + 1e9 ticks: exactly n0 + 5e8 */
	assert_int_equal(clock_fit_ns(&fit, t0 + 1000000000ull), (int64_t)(n0 + 500000000ull));
	/* ref + 1e9 + 1 ticks: 500000000.5 ns rounds half away from zero -> n0 + 500000001 */
	assert_int_equal(clock_fit_ns(&fit, t0 + 1000000001ull), (int64_t)(n0 + 500000001ull));
	/* ref + 3 ticks: 1.5 -> 2 */
	assert_int_equal(clock_fit_ns(&fit, t0 + 3), (int64_t)(n0 + 2));
	/* ref - 1e9 ticks: n0 - 5e8 */
	assert_int_equal(clock_fit_ns(&fit, t0 - 1000000000ull), (int64_t)(n0 - 500000000ull));
}

/* One pair, or the MONOTONIC source: slope 1 through the first pair. */
static void test_fit_unit_slope(void **state)
{
	const struct clock_pair one[] = {{7000, 123}};
	const struct clock_pair three[] = {{1000, 5000}, {3000, 6000}, {5000, 7000}};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(one, 1, CLOCK_SOURCE_TSC, &fit), 0);
	assert_true(fit.ns_per_tick == 1.0);
	assert_int_equal(fit.ref_ticks, 7000);
	assert_int_equal(fit.ref_ns, 123);
	assert_int_equal(clock_fit_ns(&fit, 7100), 223);
	assert_int_equal(clock_fit_ns(&fit, 6900), 23);

	/* MONOTONIC ticks are ns: the pairs' slope (0.5) is not used */
	assert_int_equal(clock_fit_pairs(three, 3, CLOCK_SOURCE_MONOTONIC, &fit), 0);
	assert_true(fit.ns_per_tick == 1.0);
	assert_int_equal(fit.ref_ticks, 1000);
	assert_int_equal(fit.ref_ns, 5000);
	assert_int_equal(clock_fit_ns(&fit, 1500), 5500);
}

static void test_fit_errors(void **state)
{
	const struct clock_pair same[] = {{500, 10}, {500, 20}, {500, 30}};
	struct clock_fit fit;

	(void)state;
	assert_int_equal(clock_fit_pairs(same, 0, CLOCK_SOURCE_TSC, &fit), -EINVAL);
	assert_int_equal(clock_fit_pairs(same, 3, CLOCK_SOURCE_TSC, &fit), -EINVAL);
	assert_int_equal(clock_fit_pairs(same, 2, CLOCK_SOURCE_CNTVCT, &fit), -EINVAL);
}

/* clock_fit_ns rounds to the nearest ns, halves away from zero. */
static void test_fit_ns_rounding(void **state)
{
	struct clock_fit fit = {.ref_ticks = 1000, .ref_ns = 5000, .ns_per_tick = 0.5};
	struct clock_fit third = {.ref_ticks = 0, .ref_ns = 100, .ns_per_tick = 1.0 / 3.0};
	struct clock_fit quarter = {.ref_ticks = 100, .ref_ns = 0, .ns_per_tick = 0.25};

	(void)state;
	assert_int_equal(clock_fit_ns(&fit, 1001), 5001); /* 0.5 -> 1 */
	assert_int_equal(clock_fit_ns(&fit, 2001), 5501); /* 500.5 -> 501 */
	assert_int_equal(clock_fit_ns(&fit, 999), 4999);  /* -0.5 -> -1 */
	assert_int_equal(clock_fit_ns(&fit, 997), 4998);  /* -1.5 -> -2 */
	assert_int_equal(clock_fit_ns(&third, 1), 100);	  /* 0.333 -> 0 */
	assert_int_equal(clock_fit_ns(&third, 2), 101);	  /* 0.667 -> 1 */
	assert_int_equal(clock_fit_ns(&third, 3), 101);	  /* 1 */
	assert_int_equal(clock_fit_ns(&quarter, 101), 0); /* 0.25 -> 0 */
	assert_int_equal(clock_fit_ns(&quarter, 103), 1); /* 0.75 -> 1 */
	assert_int_equal(clock_fit_ns(&quarter, 99), 0);  /* -0.25 -> 0 */
	assert_int_equal(clock_fit_ns(&quarter, 97), -1); /* -0.75 -> -1 */
}

/* The rounding cases above through the fixed-point path: the same values. */
static void test_fit_ns_rounding_prepared(void **state)
{
	struct clock_fit fit = {.ref_ticks = 1000, .ref_ns = 5000, .ns_per_tick = 0.5};
	struct clock_fit third = {.ref_ticks = 0, .ref_ns = 100, .ns_per_tick = 1.0 / 3.0};
	struct clock_fit quarter = {.ref_ticks = 100, .ref_ns = 0, .ns_per_tick = 0.25};

	(void)state;
	clock_fit_prepare(&fit);
	clock_fit_prepare(&third);
	clock_fit_prepare(&quarter);
	assert_true(fit.fast_max > 0 && third.fast_max > 0 && quarter.fast_max > 0);
	assert_int_equal(clock_fit_ns(&fit, 1001), 5001);
	assert_int_equal(clock_fit_ns(&fit, 2001), 5501);
	assert_int_equal(clock_fit_ns(&fit, 999), 4999);
	assert_int_equal(clock_fit_ns(&fit, 997), 4998);
	assert_int_equal(clock_fit_ns(&third, 1), 100);
	assert_int_equal(clock_fit_ns(&third, 2), 101);
	assert_int_equal(clock_fit_ns(&third, 3), 101);
	assert_int_equal(clock_fit_ns(&quarter, 101), 0);
	assert_int_equal(clock_fit_ns(&quarter, 103), 1);
	assert_int_equal(clock_fit_ns(&quarter, 99), 0);
	assert_int_equal(clock_fit_ns(&quarter, 97), -1);
	assert_int_equal(clock_fit_ns(&quarter, 98), -1); /* -0.5 -> -1 */
	assert_int_equal(clock_fit_ns(&quarter, 102), 1); /* 0.5 -> 1 */
	/* exact where the double path is not: (2^62 - 3) / 4 = 2^60 - 0.75 -> 2^60 - 1, while
	 * (double)(2^62 - 3) is 2^62 */
	quarter.ref_ticks = 0;
	clock_fit_prepare(&quarter);
	assert_int_equal(clock_fit_ns(&quarter, (1ull << 62) - 3), (int64_t)(1ull << 60) - 1);
	assert_int_equal(clock_fit_ns_slow(&quarter, (1ull << 62) - 3), (int64_t)(1ull << 60));
}

/* (TICKS - ref_ticks) * ns_per_tick in long double: within 1/8 ns below 2^61 ns on x86 (64-bit
 * mantissa), exact on aarch64 (128-bit). */
static long double reference_offset_ns(const struct clock_fit *fit, uint64_t ticks)
{
	return (long double)(int64_t)(ticks - fit->ref_ticks) * fit->ns_per_tick;
}

/*
 * Fixed point against the double conversion and an exact reference over edge values: slopes
 * of real clocks (1 / 2.6 GHz, 1 / 3 GHz, 1 ns per tick for MONOTONIC, 41.67 for a 24 MHz
 * timer) and of damaged files (0, negative, tiny, huge), reference points at 0, mid-range and
 * near the top of 64 bits, offsets 0, +-1, powers of two up to 2^63, the fast range's edges
 * and pseudo-random ones. Within 2^51 ns of the reference (where a double holds the product
 * to 1/2 ns) the result is the double conversion's within 1 ns; in the whole fast range it
 * is the reference's within 1 ns; outside it, the double conversion's exactly (saturation).
 */
static void test_fit_ns_fixed_point(void **state)
{
	const double slopes[] = {1 / 2.6, 1 / 3.0, 0.5,	  1.0, 2.0,  1000.0 / 24, 0.0,
				 -0.5,	  1e-12,   1e-30, 3e9, 1e16, 1e300};
	const uint64_t refs_ticks[] = {0, 123456789, 1ull << 63, UINT64_MAX - 5};
	const uint64_t refs_ns[] = {0, 5000, 1ull << 60, (1ull << 62) + 1, UINT64_MAX - 9};
	uint64_t offsets[200], seed = 88172645463325252ull;
	size_t n = 0;
	unsigned long checked_fast = 0, checked_slow = 0;

	(void)state;
	offsets[n++] = 0;
	for (int b = 0; b < 64; b++) {
		offsets[n++] = 1ull << b;
		offsets[n++] = 0 - (1ull << b);
		if (b >= 2)
			offsets[n++] = (1ull << b) + 1;
	}
	offsets[n++] = INT64_MAX;
	while (n < sizeof(offsets) / sizeof(offsets[0]) - 4) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		offsets[n++] = seed >> (seed & 63); /* every scale */
	}
	for (size_t si = 0; si < sizeof(slopes) / sizeof(slopes[0]); si++)
		for (size_t ti = 0; ti < sizeof(refs_ticks) / sizeof(refs_ticks[0]); ti++)
			for (size_t ni = 0; ni < sizeof(refs_ns) / sizeof(refs_ns[0]); ni++) {
				struct clock_fit fit = {.ref_ticks = refs_ticks[ti],
							.ref_ns = refs_ns[ni],
							.ns_per_tick = slopes[si]};
				uint64_t edges[4];

				clock_fit_prepare(&fit);
				edges[0] = fit.fast_max;
				edges[1] = fit.fast_max + 1;
				edges[2] = (uint64_t) - (int64_t)fit.fast_max;
				edges[3] = (uint64_t) - (int64_t)fit.fast_max - 1;
				for (size_t k = 0; k < n + 4; k++) {
					uint64_t off = k < n ? offsets[k] : edges[k - n];
					uint64_t t = fit.ref_ticks + off;
					int64_t got = clock_fit_ns(&fit, t);
					int64_t dbl = clock_fit_ns_slow(&fit, t);
					int64_t d = (int64_t)off;

					if (!(d >= -(int64_t)fit.fast_max &&
					      d < (int64_t)fit.fast_max)) {
						assert_int_equal(got, dbl);
						checked_slow++;
						continue;
					}
					long double prod = reference_offset_ns(&fit, t);
					int64_t r = (int64_t)((uint64_t)got - fit.ref_ns);

					checked_fast++;
					assert_true(fabsl((long double)r - prod) <= 0.75L);
					if (fabsl(prod) < 0x1p51L && (d < 0 ? -d : d) < (1ll << 53))
						assert_true(llabs(got - dbl) <= 1);
				}
			}
	/* both paths were taken many times */
	assert_true(checked_fast > 10000);
	assert_true(checked_slow > 1000);
}

/* A fit never prepared (only the three fields set) still converts right, through doubles. */
static void test_fit_ns_unprepared(void **state)
{
	struct clock_fit raw = {.ref_ticks = 1000, .ref_ns = 5000, .ns_per_tick = 0.5};

	(void)state;
	assert_int_equal(clock_fit_ns(&raw, 1000), 5000);
	assert_int_equal(clock_fit_ns(&raw, 3001), 6001);
	assert_int_equal(clock_fit_ns(&raw, 0), 4500);
	assert_int_equal(clock_fit_ns(&raw, UINT64_MAX), 4499); /* offset -1001: -500.5 */
}

static void test_source_names(void **state)
{
	const enum clock_source all[] = {CLOCK_SOURCE_MONOTONIC, CLOCK_SOURCE_TSC,
					 CLOCK_SOURCE_CNTVCT};

	(void)state;
	assert_string_equal(clock_source_name(CLOCK_SOURCE_TSC), "tsc");
	assert_string_equal(clock_source_name(CLOCK_SOURCE_MONOTONIC), "monotonic");
	assert_string_equal(clock_source_name(CLOCK_SOURCE_CNTVCT), "cntvct");
	assert_string_equal(clock_source_name((enum clock_source)0), "unknown");
	assert_string_equal(clock_source_name((enum clock_source)99), "unknown");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_int_equal(clock_source_parse(clock_source_name(all[i])), all[i]);
	assert_int_equal(clock_source_parse("tsc"), CLOCK_SOURCE_TSC);
	assert_int_equal(clock_source_parse("monotonic"), CLOCK_SOURCE_MONOTONIC);
	assert_int_equal(clock_source_parse("cntvct"), CLOCK_SOURCE_CNTVCT);
	assert_int_equal(clock_source_parse(""), 0);
	assert_int_equal(clock_source_parse("TSC"), 0);
	assert_int_equal(clock_source_parse("unknown"), 0);
	assert_int_equal(clock_source_parse("monotonic "), 0);
}

static void test_source_choose(void **state)
{
	(void)state;
	/* a forced "monotonic" wins everywhere */
	assert_int_equal(clock_source_choose(1, "monotonic"), CLOCK_SOURCE_MONOTONIC);
	assert_int_equal(clock_source_choose(0, "monotonic"), CLOCK_SOURCE_MONOTONIC);
#if defined(__x86_64__) || defined(__i386__)
	assert_int_equal(clock_source_choose(1, NULL), CLOCK_SOURCE_TSC);
	assert_int_equal(clock_source_choose(1, "tsc"), CLOCK_SOURCE_TSC);
	assert_int_equal(clock_source_choose(0, NULL), CLOCK_SOURCE_MONOTONIC);
	assert_int_equal(clock_source_choose(0, "tsc"), CLOCK_SOURCE_TSC);
#elif defined(__aarch64__)
	assert_int_equal(clock_source_choose(0, NULL), CLOCK_SOURCE_CNTVCT);
	assert_int_equal(clock_source_choose(1, NULL), CLOCK_SOURCE_CNTVCT);
#else
	assert_int_equal(clock_source_choose(1, NULL), CLOCK_SOURCE_MONOTONIC);
	assert_int_equal(clock_source_choose(0, NULL), CLOCK_SOURCE_MONOTONIC);
#endif
}

/* MONOTONIC pairs are taken with ns == ticks (the ticks are CLOCK_MONOTONIC ns). */
static void test_pair_monotonic(void **state)
{
	struct clock_pair p = clock_pair_take(CLOCK_SOURCE_MONOTONIC);

	(void)state;
	assert_true(p.ticks > 0);
	assert_int_equal(p.ns, p.ticks);
}

/*
 * The test skew: every runtime reading lies between f(raw before) and f(raw after) for
 * f(t) = t + offset + (t - t_set) * ppm / 1e6, t_set itself bracketed by raw readings around
 * the setter. Exact bounds, no timing assumed.
 */
static void check_skewed(uint64_t v, uint64_t before, uint64_t after, uint64_t set0, uint64_t set1,
			 int64_t offset, double ppm)
{
	/* the skew was set at some t_set in [set0, set1]: the drift term (t - t_set) * k is
	 * smallest with the latest t_set when k > 0, with the earliest when k < 0 */
	double k = ppm / 1e6;
	double lo_set = k > 0 ? (double)set1 : (double)set0;
	double hi_set = k > 0 ? (double)set0 : (double)set1;
	double lo = (double)before + (double)offset + ((double)before - lo_set) * k;
	double hi = (double)after + (double)offset + ((double)after - hi_set) * k;

	assert_true((double)v >= lo - 1);
	assert_true((double)v <= hi + 1);
}

static void test_skew(void **state)
{
	static const struct {
		int64_t offset;
		double ppm;
	} cases[] = {{5000000000000, 0}, {-3000000, 0}, {0, 1e6}, {7000, -5e5}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t set0 = clock_monotonic_ns();
		clock_set_test_skew(cases[i].offset, cases[i].ppm);
		uint64_t set1 = clock_monotonic_ns();

		for (int j = 0; j < 100; j++) {
			uint64_t before = clock_monotonic_ns();
			uint64_t v = clock_monotonic_ns_call();
			struct clock_pair mono = clock_pair_take(CLOCK_SOURCE_MONOTONIC);
			struct clock_pair tsc = clock_pair_take(clock_source_choose(1, NULL));
			uint64_t after = clock_monotonic_ns();

			check_skewed(v, before, after, set0, set1, cases[i].offset, cases[i].ppm);
			check_skewed(mono.ns, before, after, set0, set1, cases[i].offset,
				     cases[i].ppm);
			assert_int_equal(mono.ns, mono.ticks);
			check_skewed(tsc.ns, before, after, set0, set1, cases[i].offset,
				     cases[i].ppm);
		}
	}
	/* (0, 0) turns it off: readings are CLOCK_MONOTONIC again */
	clock_set_test_skew(0, 0);
	uint64_t before = clock_monotonic_ns();
	uint64_t v = clock_monotonic_ns_call();
	uint64_t after = clock_monotonic_ns();

	assert_true(before <= v && v <= after);
}

/* A plausible TSC (0.4 ns per tick, 2.5 GHz) over 1 s: accepted as fitted, no note. */
static void test_checked_plausible(void **state)
{
	const struct clock_pair pairs[] = {
	    {1000000000, 5000000000}, {1250000000, 5100000000}, {3500000000, 6000000000}};
	struct clock_fit fit;
	char note[384] = "x";

	(void)state;
	assert_int_equal(clock_fit_checked(pairs, 3, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_string_equal(note, "");
	assert_true(fabs(fit.ns_per_tick - 0.4) < 1e-15);
	assert_int_equal(clock_fit_ns(&fit, 3500000000), 6000000000);
}

/*
 * The case: 2 pairs at 1 tick = 0.4 ns, then a third whose ns is 3.4e5 times too far
 * (1e9 ticks later, 1.36e14 ns later): all three fit 1 tick = ~6.8e4 ns, out of a TSC's
 * range, the third far off. Left out, the other two give 0.4 again, and the note says which.
 */
static void test_checked_outlier(void **state)
{
	const struct clock_pair pairs[] = {
	    {1000000000, 5000000000}, {2000000000, 5400000000}, {3000000000, 136000005800000000}};
	struct clock_fit fit;
	char note[384];

	(void)state;
	assert_int_equal(clock_fit_checked(pairs, 3, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_true(fit.ns_per_tick == 0.4);
	assert_int_equal(clock_fit_ns(&fit, 2000000000), 5400000000);
	assert_non_null(strstr(note, "1 of 3 clock pairs disagree"));
	assert_non_null(strstr(note, "ticks 3000000000 with ns 136000005800000000"));
	assert_non_null(strstr(note, "1 tick = 0.4 ns from the other 2"));
}

/* Two pairs at 1 tick = 1.36e5 ns: nothing to leave out; the fit stays, the note says it is
 * implausible, with the rate and the range of a TSC. */
static void test_checked_implausible(void **state)
{
	const struct clock_pair pairs[] = {{1000, 5000}, {2000, 136005000}};
	struct clock_fit fit;
	char note[384];

	(void)state;
	assert_int_equal(clock_fit_checked(pairs, 2, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_true(fit.ns_per_tick == 136000);
	assert_non_null(
	    strstr(note, "implausible clock calibration: 1 tick = 136000 ns from 2 pairs"));
	assert_non_null(strstr(note, "a tsc tick is 0.05 to 10 ns"));
}

/* A pair 2 ms off a 0.4 ns line over 1 s: drift allows 1 ms + 1e-3 x 1 s = 2 ms, so 2.5 ms is
 * too far and that pair is left out; 1.5 ms off is within. */
static void test_checked_drift(void **state)
{
	struct clock_pair pairs[] = {{0, 1000000000},
				     {625000000, 1250000000},
				     {1250000000, 1500000000},
				     {1875000000, 1750000000},
				     {2500000000, 2000000000}};
	struct clock_fit fit;
	char note[384];

	(void)state;
	pairs[2].ns += 1500000; /* the fit moves toward it: it stays within the bound */
	assert_int_equal(clock_fit_checked(pairs, 5, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_string_equal(note, "");
	pairs[2].ns += 2000000; /* 3.5 ms off: 2.8 ms off the fit of all five */
	assert_int_equal(clock_fit_checked(pairs, 5, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_non_null(strstr(note, "1 of 5 clock pairs disagree"));
	assert_true(fit.ns_per_tick == 0.4);
}

/* CLOCK_MONOTONIC: ticks are ns. A pair whose ns is not its ticks is said; the fit is ticks =
 * ns, also when that pair is the first. */
static void test_checked_monotonic(void **state)
{
	const struct clock_pair good[] = {{5000, 5000}, {9000, 9000}};
	const struct clock_pair bad[] = {{5000, 5000000000}, {9000, 9000}};
	struct clock_fit fit;
	char note[384];

	(void)state;
	assert_int_equal(
	    clock_fit_checked(good, 2, CLOCK_SOURCE_MONOTONIC, &fit, note, sizeof(note)), 0);
	assert_string_equal(note, "");
	assert_int_equal(clock_fit_ns(&fit, 7000), 7000);
	assert_int_equal(
	    clock_fit_checked(bad, 2, CLOCK_SOURCE_MONOTONIC, &fit, note, sizeof(note)), 0);
	assert_non_null(strstr(note, "1 of 2 clock pairs do not have 1 tick = 1 ns"));
	assert_non_null(strstr(note, "ticks 5000 with ns 5000000000"));
	assert_int_equal(clock_fit_ns(&fit, 7000), 7000);
}

/* Pairs whose fitted line passes 2^63 ns at the reference: no undefined conversion (UBSan),
 * the first pair's ns stays the reference, and the note says the fit is implausible. */
static void test_checked_huge(void **state)
{
	const struct clock_pair pairs[] = {{0, 0}, {1, UINT64_C(9223372036854775807)}, {2, 0}};
	struct clock_fit fit;
	char note[384];

	(void)state;
	assert_int_equal(clock_fit_checked(pairs, 3, CLOCK_SOURCE_TSC, &fit, note, sizeof(note)),
			 0);
	assert_non_null(strstr(note, "implausible clock calibration"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fit_exact_half),
	    cmocka_unit_test(test_fit_two_pairs),
	    cmocka_unit_test(test_fit_noisy_symmetric),
	    cmocka_unit_test(test_fit_large_values),
	    cmocka_unit_test(test_fit_unit_slope),
	    cmocka_unit_test(test_fit_errors),
	    cmocka_unit_test(test_fit_ns_rounding),
	    cmocka_unit_test(test_fit_ns_rounding_prepared),
	    cmocka_unit_test(test_fit_ns_fixed_point),
	    cmocka_unit_test(test_fit_ns_unprepared),
	    cmocka_unit_test(test_source_names),
	    cmocka_unit_test(test_source_choose),
	    cmocka_unit_test(test_pair_monotonic),
	    cmocka_unit_test(test_skew),
	    cmocka_unit_test(test_checked_plausible),
	    cmocka_unit_test(test_checked_outlier),
	    cmocka_unit_test(test_checked_implausible),
	    cmocka_unit_test(test_checked_drift),
	    cmocka_unit_test(test_checked_monotonic),
	    cmocka_unit_test(test_checked_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
