/*
 * clock.h - timestamps for every record: raw ticks on the hot path, nanoseconds afterwards.
 *
 * The TSC is used when it is invariant (kernel flags constant_tsc and nonstop_tsc); otherwise
 * CLOCK_MONOTONIC through the vDSO, whose ticks are already nanoseconds. aarch64 reads the
 * generic timer (cntvct_el0). Ticks become ns through a linear fit of (ticks, CLOCK_MONOTONIC)
 * pairs taken while the program runs, never through a sleep.
 */
#ifndef PSC_CLOCK_H
#define PSC_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

enum clock_source {
	CLOCK_SOURCE_MONOTONIC = 1, /* ticks are CLOCK_MONOTONIC nanoseconds */
	CLOCK_SOURCE_TSC = 2,	    /* x86 time-stamp counter */
	CLOCK_SOURCE_CNTVCT = 3,    /* aarch64 generic timer */
};

/* A simultaneous reading of the tick counter and CLOCK_MONOTONIC. */
struct clock_pair {
	uint64_t ticks;
	uint64_t ns;
};

/*
 * ns = ref_ns + (ticks - ref_ticks) * ns_per_tick; relative form keeps double precision.
 *
 * clock_fit_prepare() adds the slope in fixed point: ns_per_tick is exactly mult / 2^shift
 * (a double is a 53-bit integer times a power of two), so that the product in 128 bits,
 * rounded, is the exactly rounded value of (ticks - ref_ticks) * ns_per_tick. Tick offsets
 * in [-fast_max, fast_max) cannot saturate and take that path; a fit that was not prepared
 * (the three zero) converts every offset through the double slow path.
 */
struct clock_fit {
	uint64_t ref_ticks;
	uint64_t ref_ns;
	double ns_per_tick;
	int64_t mult;	   /* ns_per_tick * 2^shift, exact */
	unsigned shift;	   /* 1..126 */
	__int128 half;	   /* 2^(shift - 1): the rounding term, computed once */
	uint64_t fast_max; /* offsets in [-fast_max, fast_max) convert without saturation checks */
};

/* Name of SOURCE for meta data and messages ("tsc", "monotonic", "cntvct"). */
const char *clock_source_name(enum clock_source source);

/* Parse a name written by clock_source_name; 0 when unknown. */
enum clock_source clock_source_parse(const char *name);

/*
 * The source to use on this machine: TSC when TSC_USABLE (see cpu_info_tsc_usable), the
 * generic timer on aarch64, else CLOCK_MONOTONIC. FORCED ("tsc"/"monotonic", may be NULL)
 * overrides the choice when it is possible here.
 */
enum clock_source clock_source_choose(int tsc_usable, const char *forced);

static inline uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * clock_monotonic_ns() as a call, so that the hot path keeps no timespec on its stack. It is
 * the runtime's CLOCK_MONOTONIC reading: with a test skew set (clock_set_test_skew), skewed.
 */
uint64_t clock_monotonic_ns_call(void);

/*
 * Testing only (PERFSCOPE_TEST_CLOCK_SKEW, set by the runtime at session start, never by the
 * CLI): from now on every reading t of clock_monotonic_ns_call() and the ns of
 * clock_pair_take() become t + OFFSET_NS + (t - t_set) * DRIFT_PPM / 1e6, t_set being the
 * unskewed time of this call. (0, 0) turns the skew off. Not thread-safe: call it before
 * other threads read the clock.
 */
void clock_set_test_skew(int64_t offset_ns, double drift_ppm);

/* 1 while a test skew is set: this process's clock is not the kernel's CLOCK_MONOTONIC. */
int clock_test_skew_active(void);

/* Current ticks of SOURCE: the hot-path read. */
static inline uint64_t clock_ticks(enum clock_source source)
{
#if defined(__x86_64__) || defined(__i386__)
	if (source == CLOCK_SOURCE_TSC)
		return __rdtsc();
#elif defined(__aarch64__)
	if (source == CLOCK_SOURCE_CNTVCT) {
		uint64_t v;

		__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	(void)source;
	return clock_monotonic_ns_call();
}

/*
 * Take one pair: CLOCK_MONOTONIC read before and after the ticks, several times, keeping the
 * reading with the narrowest bracket and the midpoint of its two ns values.
 */
struct clock_pair clock_pair_take(enum clock_source source);

/*
 * Least-squares line through N pairs. With one pair, or with the MONOTONIC source, the slope
 * is 1 (ticks are ns). Returns 0, or -EINVAL when N is 0 or all pairs have the same ticks.
 */
int clock_fit_pairs(const struct clock_pair *pairs, size_t n, enum clock_source source,
		    struct clock_fit *fit);

/*
 * What a fit must be to be believed: CLOCK_MONOTONIC ticks are ns (1 tick = 1 ns, every pair
 * with ticks == ns within CLOCK_FIT_ABS_NS); a counter's ns per tick within
 * clock_plausible_range() of its kind; and no pair off the fitted line by more than
 * CLOCK_FIT_ABS_NS + CLOCK_FIT_DRIFT times the span of the pairs (CLOCK_MONOTONIC is slewed
 * by at most 500 ppm against a counter; the bound is twice that).
 */
#define CLOCK_FIT_ABS_NS 1000000.0
#define CLOCK_FIT_DRIFT	 1e-3

/* The ns per tick a counter of SOURCE can have: [*LO, *HI] (a TSC from 100 MHz to 20 GHz,
 * the generic timer from 10 MHz to 2 GHz, CLOCK_MONOTONIC exactly 1). */
void clock_plausible_range(enum clock_source source, double *lo, double *hi);

/*
 * clock_fit_pairs(), checked as above. When the fit of all N pairs is not plausible, the line
 * through two pairs (of up to 16 spread over them) with a plausible slope that most pairs
 * agree with, more than half of them, is refitted through just those; the others are left
 * out. For CLOCK_MONOTONIC the fit is then ticks = ns. When no such line exists, FIT is the fit
 * of all pairs. NOTE gets one line saying what was wrong, with the values, and what FIT uses;
 * "" when the fit of all pairs is plausible. Returns what clock_fit_pairs() returns for all.
 */
int clock_fit_checked(const struct clock_pair *pairs, size_t n, enum clock_source source,
		      struct clock_fit *fit, char *note, size_t notelen);

/* Fill in FIT's fixed-point slope (mult, shift, half, fast_max) from ref_ns and ns_per_tick. Call
 * after setting those fields by hand; clock_fit_pairs() calls it. */
void clock_fit_prepare(struct clock_fit *fit);

/* clock_fit_ns() through doubles, with saturation: offsets outside the fast range. */
int64_t clock_fit_ns_slow(const struct clock_fit *fit, uint64_t ticks);

/*
 * Nanoseconds of TICKS under FIT (CLOCK_MONOTONIC time base), rounded to the nearest ns,
 * halves away from zero; INT64_MAX / INT64_MIN when out of range (a damaged file's fit).
 */
static inline int64_t clock_fit_ns(const struct clock_fit *fit, uint64_t ticks)
{
	int64_t delta = (int64_t)(ticks - fit->ref_ticks);

	if (__builtin_expect((uint64_t)delta + fit->fast_max < 2 * fit->fast_max, 1)) {
		__int128 p = (__int128)delta * fit->mult;

		/* floor((p + half - [p < 0]) / 2^shift): the nearest, halves away from zero */
		p += fit->half - (p < 0);
		return (int64_t)fit->ref_ns + (int64_t)(p >> fit->shift);
	}
	return clock_fit_ns_slow(fit, ticks);
}

/* Duration in ns of a tick interval under FIT. */
static inline double clock_fit_duration(const struct clock_fit *fit, uint64_t ticks)
{
	return (double)ticks * fit->ns_per_tick;
}

#endif /* PSC_CLOCK_H */
