/*
 * power.h - power samples as the energy analysis sees them, whatever their source: an
 * external meter's file (powerfile.h) or the energy counters the launcher read during the run
 * (powerlog.h). Times are nanoseconds on the experiment's clock (CLOCK_MONOTONIC), so that
 * they line up with the function timeline.
 */
#ifndef PSC_FORMAT_POWER_H
#define PSC_FORMAT_POWER_H

#include <stddef.h>

enum power_kind {
	POWER_WATTS,  /* instantaneous power at each sample time */
	POWER_JOULES, /* a cumulative energy counter, unwrapped, 0 at the first sample */
};

/* One quantity sampled at the series' times; the analysis attributes one channel. */
struct power_channel {
	char *name; /* "power" for a meter, the zone or event name for counters */
	enum power_kind kind;
	double *v;     /* n values: W, or J */
	int advancing; /* 0: a counter that never moved (a source that does not work here) */
};

/* A column of input values, kept for its statistics (a meter's volts and amps, a counter's
 * power over each sampling interval). */
struct power_column {
	char *name; /* "watts", "volts", "amps", or a channel's name */
	char *unit; /* "W", "V", "A" */
	double *v;
	size_t n;
};

struct power_series {
	char *source; /* "rapl", "perf", or the meter file's path */
	size_t n;     /* sample times */
	double *t;    /* n times in ns, increasing; NULL for a fixed rate: t0 + i * dt */
	double t0, dt;
	struct power_channel *ch;
	size_t nch;
	struct power_column *cols;
	size_t ncols;
};

/* Time of sample I in ns. */
static inline double power_time(const struct power_series *ps, size_t i)
{
	return ps->t ? ps->t[i] : ps->t0 + (double)i * ps->dt;
}

/* Free everything PS owns and zero it. */
void power_series_release(struct power_series *ps);

/* Distribution of a column. Quartiles interpolate linearly between order statistics (numpy's
 * default); cv is sd / mean (0 when the mean is 0). */
struct power_stats {
	size_t n;
	double mean, sd, cv, min, q1, median, q3, iqr, max;
};

/* Statistics of V[0..N). V is reordered (quartiles by selection, not a sorted copy: a meter's
 * file can hold tens of millions of samples). */
void power_stats_compute(struct power_stats *st, double *v, size_t n);

/* Samples per second actually achieved: (n - 1) / (last - first time); 0 below two samples. */
double power_series_rate(const struct power_series *ps);

#endif /* PSC_FORMAT_POWER_H */
