/*
 * power.c - releasing a power series, the statistics of a column and the achieved sampling rate.
 *
 * The quartiles select order statistics in place (Hoare's selection with Wirth's partition,
 * O(n) expected) instead of sorting: a meter's file can hold tens of millions of samples.
 */
#include "format/power.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void power_series_release(struct power_series *ps)
{
	size_t i;

	free(ps->source);
	free(ps->t);
	for (i = 0; i < ps->nch; i++) {
		free(ps->ch[i].name);
		free(ps->ch[i].v);
	}
	free(ps->ch);
	for (i = 0; i < ps->ncols; i++) {
		free(ps->cols[i].name);
		free(ps->cols[i].unit);
		free(ps->cols[i].v);
	}
	free(ps->cols);
	memset(ps, 0, sizeof(*ps));
}

static void swap(double *a, double *b)
{
	double x = *a;

	*a = *b;
	*b = x;
}

/* Middle value of three, for the pivot. */
static double median3(double a, double b, double c)
{
	if (a > b)
		swap(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/*
 * Reorder V[lo..hi] so that V[k] holds the value it would have sorted, nothing before it is
 * greater and nothing after it smaller (Wirth's selection). The partition swaps values equal
 * to the pivot from both sides, so long runs of duplicates (a meter's quantised readings)
 * still split in the middle. The pivot is the median of three; after more rounds than fair
 * pivots would need, it comes from a fixed pseudo-random sequence instead, against inputs
 * built to defeat the median of three. V must hold no NaN.
 */
static void select_kth(double *v, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t k)
{
	uint64_t rng = 0x9e3779b97f4a7c15u;
	unsigned rounds = 0;

	while (lo < hi) {
		ptrdiff_t i = lo, j = hi;
		double pivot;

		if (++rounds <= 64) {
			pivot = median3(v[lo], v[lo + (hi - lo) / 2], v[hi]);
		} else {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			pivot = v[lo + (ptrdiff_t)(rng % (uint64_t)(hi - lo + 1))];
		}
		/* the pivot is a value of the range, so neither scan runs off it; afterwards
		 * v[lo..j] <= pivot <= v[i..hi] and anything between equals the pivot */
		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			lo = i;
		if (k < i)
			hi = j;
	}
}

/* Index of the smallest of V[lo..hi]. */
static size_t argmin(const double *v, size_t lo, size_t hi)
{
	size_t m = lo;

	for (size_t i = lo + 1; i <= hi; i++)
		if (v[i] < v[m])
			m = i;
	return m;
}

/* numpy's _lerp: A + (B - A) * F, computed from B's side when F >= 0.5 so that F = 1 gives B
 * exactly. */
static double lerp(double a, double b, double f)
{
	double d = b - a;

	return f >= 0.5 ? b - d * (1 - f) : a + d * f;
}

/*
 * The quantile at position POS = p * (n - 1), when V[lo..hi] holds the order statistics lo..hi
 * (nothing before LO greater, nothing after HI smaller) and floor(POS) is in [lo, hi]: selects
 * K = floor(POS) in that block; order statistic K + 1 is then the smallest value after K in
 * the block, or V[hi + 1] when K is HI (the caller has placed it).
 */
static double quantile_in(double *v, size_t lo, size_t hi, double pos)
{
	size_t k = (size_t)pos;
	double f = pos - (double)k, next;

	select_kth(v, (ptrdiff_t)lo, (ptrdiff_t)hi, (ptrdiff_t)k);
	if (f == 0)
		return v[k];
	next = k < hi ? v[argmin(v, k + 1, hi)] : v[k + 1];
	return lerp(v[k], next, f);
}

/* Values per partial sum: see power_stats_compute. */
#define BLOCK 1024

void power_stats_compute(struct power_stats *st, double *v, size_t n)
{
	double sum = 0, mean, d, sd2 = 0, sd1 = 0, mn, mx;
	size_t i, km, k3;
	double pos;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (n == 0)
		return;

	/* two passes: the mean, then the squared deviations from it with the first-order
	 * correction for the rounding of the mean (Chan, Golub and LeVeque's corrected two-pass
	 * algorithm); each sum adds blocks of BLOCK values summed alone, which bounds its
	 * rounding error by (BLOCK + n / BLOCK) ulps instead of n */
	mn = mx = v[0];
	for (i = 0; i < n; i += BLOCK) {
		size_t end = n - i < BLOCK ? n : i + BLOCK;
		double part = 0;

		for (size_t j = i; j < end; j++) {
			part += v[j];
			if (v[j] < mn)
				mn = v[j];
			if (v[j] > mx)
				mx = v[j];
		}
		sum += part;
	}
	st->min = mn;
	st->max = mx;
	if (mn == mx) { /* a constant column (a meter's volts): exactly, whatever the rounding */
		st->mean = mn;
	} else {
		mean = sum / (double)n;
		for (i = 0; i < n; i += BLOCK) {
			size_t end = n - i < BLOCK ? n : i + BLOCK;
			double p1 = 0, p2 = 0;

			for (size_t j = i; j < end; j++) {
				d = v[j] - mean;
				p1 += d;
				p2 += d * d;
			}
			sd1 += p1;
			sd2 += p2;
		}
		st->mean = mean + sd1 / (double)n; /* the same correction for the mean itself */
		if (n > 1) {
			double var = (sd2 - sd1 * sd1 / (double)n) / (double)(n - 1);

			st->sd = var > 0 ? sqrt(var) : 0;
		}
	}
	st->cv = st->mean != 0 ? st->sd / st->mean : 0;

	/* the median over the whole array, with order statistic km + 1 placed right after it;
	 * then the lower quartile within [0, km] and the upper within [km + 1, n) */
	pos = 0.5 * (double)(n - 1);
	km = (size_t)pos;
	select_kth(v, 0, (ptrdiff_t)n - 1, (ptrdiff_t)km);
	if (km + 1 < n)
		swap(&v[km + 1], &v[argmin(v, km + 1, n - 1)]);
	st->median = pos > (double)km ? lerp(v[km], v[km + 1], pos - (double)km) : v[km];
	st->q1 = quantile_in(v, 0, km, 0.25 * (double)(n - 1));
	k3 = (size_t)(0.75 * (double)(n - 1));
	st->q3 =
	    quantile_in(v, k3 > km ? km + 1 : km, k3 > km ? n - 1 : km, 0.75 * (double)(n - 1));
	st->iqr = st->q3 - st->q1;
}

double power_series_rate(const struct power_series *ps)
{
	double span;

	if (ps->n < 2)
		return 0;
	span = power_time(ps, ps->n - 1) - power_time(ps, 0);
	return span > 0 ? (double)(ps->n - 1) / (span * 1e-9) : 0;
}
