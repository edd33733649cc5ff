/* clock.c - clock source choice, pair taking and the ticks-to-ns fit. */
#include "clock.h"

#include "compiler.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const char *clock_source_name(enum clock_source source)
{
	switch (source) {
	case CLOCK_SOURCE_TSC:
		return "tsc";
	case CLOCK_SOURCE_CNTVCT:
		return "cntvct";
	case CLOCK_SOURCE_MONOTONIC:
		return "monotonic";
	}
	return "unknown";
}

enum clock_source clock_source_parse(const char *name)
{
	if (!strcmp(name, "tsc"))
		return CLOCK_SOURCE_TSC;
	if (!strcmp(name, "cntvct"))
		return CLOCK_SOURCE_CNTVCT;
	if (!strcmp(name, "monotonic"))
		return CLOCK_SOURCE_MONOTONIC;
	return 0;
}

enum clock_source clock_source_choose(int tsc_usable, const char *forced)
{
	if (forced && !strcmp(forced, "monotonic"))
		return CLOCK_SOURCE_MONOTONIC;
#if defined(__x86_64__) || defined(__i386__)
	if (tsc_usable || (forced && !strcmp(forced, "tsc")))
		return CLOCK_SOURCE_TSC;
#elif defined(__aarch64__)
	(void)tsc_usable;
	return CLOCK_SOURCE_CNTVCT;
#else
	(void)tsc_usable;
#endif
	return CLOCK_SOURCE_MONOTONIC;
}

/* The test skew: one flag on the hot path, the rest read only when it is set. */
static int skew_on;
static int64_t skew_offset_ns;
static double skew_drift_ppm;
static uint64_t skew_t_set;

void clock_set_test_skew(int64_t offset_ns, double drift_ppm)
{
	skew_on = 0;
	skew_offset_ns = offset_ns;
	skew_drift_ppm = drift_ppm;
	skew_t_set = clock_monotonic_ns();
	skew_on = offset_ns != 0 || drift_ppm != 0;
}

int clock_test_skew_active(void)
{
	return skew_on;
}

/* T with the test skew applied (wrapping unsigned arithmetic: a negative offset is fine). */
static __attribute__((noinline)) uint64_t clock_skew(uint64_t t)
{
	double drift = (double)(int64_t)(t - skew_t_set) * skew_drift_ppm / 1e6;

	return t + (uint64_t)skew_offset_ns +
	       (uint64_t)(int64_t)(drift < 0 ? drift - 0.5 : drift + 0.5);
}

struct clock_pair clock_pair_take(enum clock_source source)
{
	struct clock_pair best = {0, 0};
	uint64_t best_width = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t before = clock_monotonic_ns();
		uint64_t ticks = clock_ticks(source);
		uint64_t after = clock_monotonic_ns();

		if (after - before < best_width) {
			best_width = after - before;
			best.ticks = ticks;
			best.ns = before + (after - before) / 2;
		}
	}
	if (source == CLOCK_SOURCE_MONOTONIC)
		best.ns = best.ticks; /* already skewed by clock_monotonic_ns_call */
	else if (unlikely(skew_on))
		best.ns = clock_skew(best.ns);
	return best;
}

int clock_fit_pairs(const struct clock_pair *pairs, size_t n, enum clock_source source,
		    struct clock_fit *fit)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	if (n == 0)
		return -EINVAL;
	fit->ref_ticks = pairs[0].ticks;
	fit->ref_ns = pairs[0].ns;
	fit->ns_per_tick = 1.0;
	clock_fit_prepare(fit);
	if (n == 1 || source == CLOCK_SOURCE_MONOTONIC)
		return 0;
	/* Two passes on offsets from the first pair, so doubles keep full precision. */
	for (size_t i = 0; i < n; i++) {
		mx += (double)(int64_t)(pairs[i].ticks - fit->ref_ticks);
		my += (double)(int64_t)(pairs[i].ns - fit->ref_ns);
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = (double)(int64_t)(pairs[i].ticks - fit->ref_ticks) - mx;
		double dy = (double)(int64_t)(pairs[i].ns - fit->ref_ns) - my;

		sxx += dx * dx;
		sxy += dx * dy;
	}
	if (!(sxx > 0)) {
		clock_fit_prepare(fit);
		return -EINVAL;
	}
	fit->ns_per_tick = sxy / sxx;
	/* The fitted line's value at ref_ticks becomes the new reference. */
	double at_ref = my - fit->ns_per_tick * mx;

	fit->ref_ns =
	    (uint64_t)((int64_t)fit->ref_ns + (int64_t)(at_ref + (at_ref < 0 ? -0.5 : 0.5)));
	clock_fit_prepare(fit);
	return 0;
}

/* Offsets and results of the fast path stay below these, so nothing can overflow there. */
#define FAST_NS_LIMIT  (1.0 * (1ull << 61)) /* |offset * ns_per_tick| */
#define FAST_REF_LIMIT (1ll << 62)	    /* |ref_ns| as a signed value */

void clock_fit_prepare(struct clock_fit *fit)
{
	double a = fabs(fit->ns_per_tick), span;
	int e;
	double f = frexp(fit->ns_per_tick, &e); /* ns_per_tick = f * 2^e, 0.5 <= |f| < 1 */

	fit->mult = 0;
	fit->shift = 1;
	fit->fast_max = 0; /* every offset through the slow path */
	if (!isfinite(fit->ns_per_tick) || (int64_t)fit->ref_ns > FAST_REF_LIMIT ||
	    (int64_t)fit->ref_ns < -FAST_REF_LIMIT)
		return;
	if (fit->ns_per_tick == 0) {
		fit->fast_max = INT64_MAX;
		return;
	}
	/* f * 2^53 is an integer of 53 bits: mult = that, shift = 53 - e */
	if (53 - e < 1 || 53 - e > 126)
		return; /* slopes of 2^52 ns per tick and more, or below 2^-73: the slow path */
	fit->mult = (int64_t)ldexp(f, 53);
	fit->shift = (unsigned)(53 - e);
	/* |offset| <= fast_max keeps |offset * slope| below 2^61 (with a margin for rounding) */
	span = FAST_NS_LIMIT / a * (1 - 1e-9);
	fit->fast_max = span >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)span;
}

int64_t clock_fit_ns_slow(const struct clock_fit *fit, uint64_t ticks)
{
	double d = (double)(int64_t)(ticks - fit->ref_ticks) * fit->ns_per_tick;
	int64_t delta, out;

	/* saturate: a fit from a damaged file must not overflow (9.2e18 ns is 292 years) */
	if (!(d < 9.2e18))
		return INT64_MAX;
	if (!(d > -9.2e18))
		return INT64_MIN;
	delta = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	if (__builtin_add_overflow((int64_t)fit->ref_ns, delta, &out))
		return delta < 0 ? INT64_MIN : INT64_MAX;
	return out;
}

__attribute__((noinline)) uint64_t clock_monotonic_ns_call(void)
{
	uint64_t t = clock_monotonic_ns();

	if (unlikely(skew_on))
		return clock_skew(t);
	return t;
}
