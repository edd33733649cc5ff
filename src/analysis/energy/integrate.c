/*
 * integrate.c - the cumulative energy S(t) of one power channel (integrate.h).
 *
 * Every group's polynomial is kept in Newton form on times relative to the group's first
 * sample (absolute times are around 1e14 ns, so differences are taken before anything is
 * multiplied) and integrated analytically from that sample, which is exact for the linear,
 * quadratic and cubic pieces; the energy of whole groups is summed with Neumaier's
 * compensation. POWER_JOULES channels have one group per interval and cum[g] = v[g] - v[0]:
 * S(t) interpolates the counter linearly.
 *
 * Sample times must increase strictly (a zero-length interval has no slope), else -EINVAL.
 */
#include "analysis/energy/integrate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One group: up to 4 samples, times relative to the first. */
struct group {
	double x[4], f[4];
	size_t k; /* intervals: 1, 2 or 3 */
};

size_t power_integral_group_start(const struct power_integral *pi, size_t g)
{
	size_t m = pi->ps->n - 1;

	if (g >= pi->ngroups)
		return m;
	return pi->ngroups == m ? g : 2 * g;
}

static void group_load(const struct power_integral *pi, size_t g, struct group *gr)
{
	size_t s = power_integral_group_start(pi, g);
	double tb = power_time(pi->ps, s);

	gr->k = power_integral_group_start(pi, g + 1) - s;
	for (size_t j = 0; j <= gr->k; j++) {
		gr->x[j] = power_time(pi->ps, s + j) - tb;
		gr->f[j] = pi->ch->v[s + j];
	}
}

/*
 * Integral from 0 to X of the polynomial through the group's samples, in W ns:
 *   p(x) = f0 + c1 x + c2 x (x - x1) + c3 x (x - x1) (x - x2)
 * with the divided differences c1..c3, integrated term by term:
 *   f0 X + c1 X^2/2 + c2 (X^3/3 - x1 X^2/2) + c3 (X^4/4 - (x1 + x2) X^3/3 + x1 x2 X^2/2).
 */
static double group_integral(const struct group *gr, double X)
{
	const double *x = gr->x, *f = gr->f;
	double c1 = (f[1] - f[0]) / x[1], c2, c3, d12, d23, d123, inner;

	if (gr->k == 1)
		return X * (f[0] + c1 * X * 0.5);
	d12 = (f[2] - f[1]) / (x[2] - x[1]);
	c2 = (d12 - c1) / x[2];
	inner = c1 * 0.5 + c2 * (X * (1.0 / 3) - x[1] * 0.5);
	if (gr->k == 3) {
		d23 = (f[3] - f[2]) / (x[3] - x[2]);
		d123 = (d23 - d12) / (x[3] - x[1]);
		c3 = (d123 - c2) / x[3];
		inner += c3 * (X * (X * 0.25 - (x[1] + x[2]) * (1.0 / 3)) + x[1] * x[2] * 0.5);
	}
	return X * (f[0] + X * inner);
}

static int times_valid(const struct power_series *ps)
{
	if (!ps->t)
		return isfinite(ps->t0) && isfinite(ps->dt) && ps->dt > 0 &&
		       isfinite(power_time(ps, ps->n - 1));
	for (size_t i = 0; i + 1 < ps->n; i++)
		if (!(ps->t[i] < ps->t[i + 1])) /* also rejects NaN */
			return 0;
	return isfinite(ps->t[0]) && isfinite(ps->t[ps->n - 1]);
}

/* Groups of each kind: one per interval, or Simpson's pairs with the last three intervals
 * together when their number M is odd (a single interval alone). */
static size_t groups_for(size_t m, int simpson)
{
	if (!simpson || m == 1)
		return m;
	return m / 2; /* odd m: (m - 3) / 2 pairs and one group of 3 */
}

int power_integral_init(struct power_integral *pi, const struct power_series *ps, size_t ch,
			enum integ_method method)
{
	const struct power_channel *c;
	size_t m, g;
	int simpson;

	memset(pi, 0, sizeof(*pi));
	if (ch >= ps->nch || ps->n < 2 || !ps->ch[ch].v || !times_valid(ps))
		return -EINVAL;
	c = &ps->ch[ch];
	simpson = method == INTEG_SIMPSON && c->kind == POWER_WATTS;
	m = ps->n - 1;
	pi->ps = ps;
	pi->ch = c;
	pi->method = method;
	pi->ngroups = groups_for(m, simpson);
	pi->t_first = power_time(ps, 0);
	pi->t_last = power_time(ps, m);
	pi->cum = malloc((pi->ngroups + 1) * sizeof(*pi->cum));
	if (!pi->cum)
		return -ENOMEM;

	if (c->kind == POWER_JOULES) {
		for (g = 0; g <= m; g++)
			pi->cum[g] = c->v[g] - c->v[0];
	} else if (!simpson) {
		/* the trapezoid's groups inline: this loop is most of the work on long series */
		double sum = 0, comp = 0, tp = pi->t_first;

		pi->cum[0] = 0;
		for (g = 0; g < m; g++) {
			double tn = power_time(ps, g + 1);
			double e = (tn - tp) * (c->v[g] + c->v[g + 1]) * 0.5e-9, s = sum + e;

			comp += fabs(sum) >= fabs(e) ? (sum - s) + e : (e - s) + sum;
			sum = s;
			pi->cum[g + 1] = sum + comp;
			tp = tn;
		}
	} else {
		double sum = 0, comp = 0;
		struct group gr;

		pi->cum[0] = 0;
		for (g = 0; g < pi->ngroups; g++) {
			double e, s;

			group_load(pi, g, &gr);
			e = group_integral(&gr, gr.x[gr.k]) * 1e-9;
			s = sum + e;
			comp += fabs(sum) >= fabs(e) ? (sum - s) + e : (e - s) + sum;
			sum = s;
			pi->cum[g + 1] = sum + comp;
		}
	}
	return 0;
}

/* The interval I with T[I] <= X < T[I + 1] of the M intervals of T[0..M], given T[0] < X <
 * T[M], searched from interval I0 outwards by doubling steps, then by bisection: O(log d)
 * for a distance of d intervals. */
static size_t find_interval(const double *t, size_t m, double x, size_t i0)
{
	size_t lo, hi, step, i = i0 < m ? i0 : m - 1;

	if (t[i] <= x) {
		if (x < t[i + 1])
			return i;
		lo = i + 1; /* t[lo] <= x */
		for (step = 1;; step *= 2) {
			if (step >= m - lo) {
				hi = m;
				break;
			}
			if (x < t[lo + step]) {
				hi = lo + step;
				break;
			}
			lo += step;
		}
	} else {
		hi = i; /* x < t[hi] */
		for (step = 1;; step *= 2) {
			if (step >= hi) {
				lo = 0;
				break;
			}
			if (t[hi - step] <= x) {
				lo = hi - step;
				break;
			}
			hi -= step;
		}
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The same for a fixed rate: computed, then corrected for the rounding of the division. */
static size_t find_interval_fixed(const struct power_series *ps, size_t m, double x)
{
	double q = floor((x - ps->t0) / ps->dt);
	size_t i = q <= 0 ? 0 : q >= (double)(m - 1) ? m - 1 : (size_t)q;

	while (i > 0 && power_time(ps, i) > x)
		i--;
	while (i + 1 < m && power_time(ps, i + 1) <= x)
		i++;
	return i;
}

/* Intervals after the hint that a query searches from there before it guesses. */
#define NEAR 8

double power_integral_at(const struct power_integral *pi, double t_ns, size_t *hint)
{
	const struct power_series *ps = pi->ps;
	size_t m = ps->n - 1, i, g, h = hint ? *hint : 0;
	struct group gr;

	if (!(t_ns > pi->t_first)) /* NaN too */
		return 0;
	if (t_ns >= pi->t_last)
		return pi->cum[pi->ngroups];
	if (h >= pi->ngroups)
		h = pi->ngroups - 1;
	if (ps->t) {
		/* from the hint when T is within a few samples after it, else from where the
		 * mean rate puts it: O(1) for near-even times in any order, O(log d) anyway */
		size_t i0 = power_integral_group_start(pi, h), near = i0 + NEAR < m ? i0 + NEAR : m;

		if (!(ps->t[i0] <= t_ns && t_ns < ps->t[near])) {
			double q = (t_ns - pi->t_first) / (pi->t_last - pi->t_first) * (double)m;

			i0 = q < (double)m ? (size_t)q : m - 1;
		}
		i = find_interval(ps->t, m, t_ns, i0);
	} else {
		i = find_interval_fixed(ps, m, t_ns);
	}
	/* interval to group: Simpson's groups are pairs from sample 0, the last one longer */
	g = pi->ngroups == m ? i : i / 2 < pi->ngroups ? i / 2 : pi->ngroups - 1;
	if (hint)
		*hint = g;

	if (pi->ch->kind == POWER_JOULES) {
		double t0 = power_time(ps, i), t1 = power_time(ps, i + 1);

		return pi->cum[i] + (pi->cum[i + 1] - pi->cum[i]) * ((t_ns - t0) / (t1 - t0));
	}
	group_load(pi, g, &gr);
	return pi->cum[g] +
	       group_integral(&gr, t_ns - power_time(ps, power_integral_group_start(pi, g))) * 1e-9;
}

double power_integral_total(const struct power_integral *pi)
{
	return pi->cum ? pi->cum[pi->ngroups] : 0;
}

void power_integral_release(struct power_integral *pi)
{
	free(pi->cum);
	memset(pi, 0, sizeof(*pi));
}
