/*
 * integrate.h - the energy of one power channel from its first sample up to any time: the
 * cumulative integral S(t), so that the energy of [a, b] is S(b) - S(a) and a timeline cut
 * into any pieces loses nothing between them.
 *
 * POWER_WATTS channels, by trapezoid: the power is linear between neighbouring samples (a
 * piece boundary between two samples gets their linear interpolation). By Simpson: the
 * sample intervals are taken in pairs, and the power over a pair is the parabola through
 * its three samples (uneven spacing allowed); with an odd number of intervals the last three
 * form one group under the cubic through their four samples, and a single interval is
 * linear. Over whole groups this is composite Simpson's rule; a boundary inside a group
 * splits the integral of that group's polynomial. POWER_JOULES channels (energy counters)
 * are interpolated linearly whatever the method: the counter gives only mean power per
 * interval.
 */
#ifndef PSC_AN_INTEGRATE_H
#define PSC_AN_INTEGRATE_H

#include <stddef.h>

#include "format/power.h"

enum integ_method {
	INTEG_TRAPEZOID,
	INTEG_SIMPSON,
};

struct power_integral {
	const struct power_series *ps; /* not owned */
	const struct power_channel *ch;
	enum integ_method method;
	size_t ngroups; /* one per interval, or Simpson's pairs (2g..2g+2, the last to n - 1) */
	double *cum;	/* ngroups + 1: energy in J from the first sample to group g's start */
	double t_first, t_last; /* span covered by the samples, ns */
};

/* Prepare S(t) of channel CH of PS by METHOD. 0, -EINVAL (fewer than two samples) or
 * -ENOMEM. */
int power_integral_init(struct power_integral *pi, const struct power_series *ps, size_t ch,
			enum integ_method method);

/* S(T_NS) in joules: 0 before the first sample, the whole integral after the last. *HINT (a
 * group index, start with 0) makes queries in increasing time O(1) amortised; any order is
 * correct. */
double power_integral_at(const struct power_integral *pi, double t_ns, size_t *hint);

/* First sample of group G (the last sample for G == ngroups): one group per interval, or
 * Simpson's pairs from sample 0 with the last group possibly three intervals long. */
size_t power_integral_group_start(const struct power_integral *pi, size_t g);

/* The integral over the whole series, in joules. */
double power_integral_total(const struct power_integral *pi);

void power_integral_release(struct power_integral *pi);

#endif /* PSC_AN_INTEGRATE_H */
