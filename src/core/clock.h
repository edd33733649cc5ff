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

/* ns = ref_ns + (ticks - ref_ticks) * ns_per_tick; relative form keeps double precision. */
struct clock_fit {
	uint64_t ref_ticks;
	uint64_t ref_ns;
	double ns_per_tick;
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

/* Nanoseconds of TICKS under FIT (CLOCK_MONOTONIC time base). */
static inline int64_t clock_fit_ns(const struct clock_fit *fit, uint64_t ticks)
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

/* Duration in ns of a tick interval under FIT. */
static inline double clock_fit_duration(const struct clock_fit *fit, uint64_t ticks)
{
	return (double)ticks * fit->ns_per_tick;
}

#endif /* PSC_CLOCK_H */
