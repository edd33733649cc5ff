/* clock.c - clock source choice, pair taking and the ticks-to-ns fit. */
#include "pmu/clock.h"

#include "lib/compiler.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* The fitted line's value at ref_ticks becomes the new reference, when it is a time at
	 * all (damaged pairs can put it past 2^63 ns: then the first pair's stays). */
	double at_ref = my - fit->ns_per_tick * mx;
	int64_t ref;

	if (fabs(at_ref) < 9.2e18 &&
	    !__builtin_add_overflow((int64_t)fit->ref_ns,
				    (int64_t)(at_ref + (at_ref < 0 ? -0.5 : 0.5)), &ref))
		fit->ref_ns = (uint64_t)ref;
	clock_fit_prepare(fit);
	return 0;
}

void clock_plausible_range(enum clock_source source, double *lo, double *hi)
{
	switch (source) {
	case CLOCK_SOURCE_TSC:
		*lo = 0.05, *hi = 10;
		return;
	case CLOCK_SOURCE_CNTVCT:
		*lo = 0.5, *hi = 100;
		return;
	case CLOCK_SOURCE_MONOTONIC:
		break;
	}
	*lo = *hi = 1;
}

/* How far P is off FIT's line (ns), and how far it may be: CLOCK_FIT_ABS_NS plus the drift
 * over its time from the line's reference. A NaN distance is too far. */
static int fit_off(const struct clock_fit *fit, const struct clock_pair *p, double *off)
{
	double dt = (double)(int64_t)(p->ticks - fit->ref_ticks) * fit->ns_per_tick;

	*off = fabs(dt - (double)(int64_t)(p->ns - fit->ref_ns));
	return *off <= CLOCK_FIT_ABS_NS + CLOCK_FIT_DRIFT * fabs(dt);
}

/* The pairs of P[0..N) within their bound of FIT's line: their number; the farthest one off
 * the line (of all N) in *FAR and its distance in *FAR_OFF. */
static size_t fit_agree(const struct clock_fit *fit, const struct clock_pair *p, size_t n,
			size_t *far, double *far_off)
{
	size_t k = 0;

	*far = 0;
	*far_off = -1;
	for (size_t i = 0; i < n; i++) {
		double off;

		k += fit_off(fit, &p[i], &off);
		if (!(off <= *far_off))
			*far_off = off, *far = i;
	}
	return k;
}

static int plausible_slope(const struct clock_fit *fit, double lo, double hi)
{
	return fit->ns_per_tick >= lo && fit->ns_per_tick <= hi;
}

/* CLOCK_MONOTONIC: pairs whose ticks are not their ns; the fit is then ticks = ns. */
static int check_monotonic(const struct clock_pair *pairs, size_t n, struct clock_fit *fit,
			   char *note, size_t notelen)
{
	size_t bad = 0, first = 0;
	int ret = clock_fit_pairs(pairs, n, CLOCK_SOURCE_MONOTONIC, fit);

	for (size_t i = 0; i < n; i++) {
		if (fabs((double)(int64_t)(pairs[i].ns - pairs[i].ticks)) > CLOCK_FIT_ABS_NS) {
			if (!bad++)
				first = i;
		}
	}
	if (!bad)
		return ret;
	snprintf(note, notelen,
		 "%zu of %zu clock pairs do not have 1 tick = 1 ns as CLOCK_MONOTONIC's ticks do "
		 "(ticks %" PRIu64 " with ns %" PRIu64 "): ticks are taken as ns",
		 bad, n, pairs[first].ticks, pairs[first].ns);
	fit->ref_ticks = fit->ref_ns = 0;
	fit->ns_per_tick = 1;
	clock_fit_prepare(fit);
	return 0;
}

/* Pairs tried as the ends of a candidate line: at most this many, spread over the pairs. */
#define CANDIDATE_PAIRS 16

/*
 * Of the lines through two of (up to CANDIDATE_PAIRS of) P's pairs with a plausible slope, the
 * one more than half of the pairs agree with, the most of them; then the fit of just those.
 * 1 and *FIT when it is plausible and all that made it agree with it, else 0. *KEPT: how many.
 */
static int fit_consensus(const struct clock_pair *p, size_t n, enum clock_source source, double lo,
			 double hi, struct clock_fit *fit, size_t *kept)
{
	size_t nc = n < CANDIDATE_PAIRS ? n : CANDIDATE_PAIRS, best = 0, far, m = 0;
	struct clock_pair *in;
	struct clock_fit line;
	double off;
	int ok = 0;

	for (size_t a = 0; a < nc; a++) {
		for (size_t b = a + 1; b < nc; b++) {
			struct clock_pair two[2] = {p[a * (n - 1) / (nc - 1)],
						    p[b * (n - 1) / (nc - 1)]};
			size_t k;

			if (clock_fit_pairs(two, 2, source, &line) ||
			    !plausible_slope(&line, lo, hi))
				continue;
			k = fit_agree(&line, p, n, &far, &off);
			if (k > best) {
				best = k;
				*fit = line;
			}
		}
	}
	if (best * 2 <= n || !(in = malloc(best * sizeof(*in))))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (m < best && fit_off(fit, &p[i], &off))
			in[m++] = p[i];
	if (clock_fit_pairs(in, m, source, &line) == 0 && plausible_slope(&line, lo, hi) &&
	    fit_agree(&line, in, m, &far, &off) == m) {
		*fit = line;
		*kept = m;
		ok = 1;
	}
	free(in);
	return ok;
}

int clock_fit_checked(const struct clock_pair *pairs, size_t n, enum clock_source source,
		      struct clock_fit *fit, char *note, size_t notelen)
{
	double lo, hi, far_off;
	struct clock_fit all;
	size_t far, kept;
	int ret;

	note[0] = 0;
	if (source == CLOCK_SOURCE_MONOTONIC)
		return check_monotonic(pairs, n, fit, note, notelen);
	ret = clock_fit_pairs(pairs, n, source, fit);
	if (ret || n < 2)
		return ret;
	clock_plausible_range(source, &lo, &hi);
	if (plausible_slope(fit, lo, hi) && fit_agree(fit, pairs, n, &far, &far_off) == n)
		return 0;
	all = *fit;
	fit_agree(&all, pairs, n, &far, &far_off);
	if (fit_consensus(pairs, n, source, lo, hi, fit, &kept)) {
		fit_agree(fit, pairs, n, &far, &far_off);
		snprintf(note, notelen,
			 "%zu of %zu clock pairs disagree with the others (ticks %" PRIu64
			 " with ns %" PRIu64 " is %.3g ms off their line): left out, 1 tick = %.6g "
			 "ns from the other %zu",
			 n - kept, n, pairs[far].ticks, pairs[far].ns, far_off / 1e6,
			 fit->ns_per_tick, kept);
		return 0;
	}
	*fit = all;
	snprintf(note, notelen,
		 "implausible clock calibration: 1 tick = %.6g ns from %zu pairs (a %s tick is "
		 "%g to %g ns), a pair %.3g ms off their line (ticks %" PRIu64 " with ns %" PRIu64
		 "): this process's times are not reliable",
		 all.ns_per_tick, n, clock_source_name(source), lo, hi, far_off / 1e6,
		 pairs[far].ticks, pairs[far].ns);
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
	fit->half = 1;
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
	fit->half = (__int128)1 << (fit->shift - 1);
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
