/*
 * test_power.c - statistics of a power column (mean, sample sd, cv, min, max, quartiles by
 * numpy's default linear interpolation, selected in place), the achieved sampling rate and
 * releasing a series.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/power.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double rel)
{
	double tol = rel * fabs(want);

	if (!(fabs(got - want) <= tol)) {
		print_error("got %.17g, want %.17g (rel %.3g)\n", got, want,
			    want != 0 ? fabs(got - want) / fabs(want) : fabs(got - want));
		fail();
	}
}

/* numpy.quantile(sorted, p) with method="linear", from a sorted copy */
static double np_quantile(const double *s, size_t n, double p)
{
	double pos = p * (double)(n - 1), f, d;
	size_t k = (size_t)pos;

	f = pos - (double)k;
	if (f == 0)
		return s[k];
	d = s[k + 1] - s[k];
	return f >= 0.5 ? s[k + 1] - d * (1 - f) : s[k] + d * f;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Stats of V against a sorted copy: quartiles exactly, mean and sd against long double sums. */
static void check_against_sorted(double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));
	long double sum = 0, ss = 0, mean;
	struct power_stats st;
	size_t i;

	assert_non_null(s);
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (i = 0; i < n; i++)
		sum += s[i];
	mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (s[i] - mean) * (s[i] - mean);

	power_stats_compute(&st, v, n);
	assert_int_equal(st.n, n);
	assert_true(st.min == s[0]);
	assert_true(st.max == s[n - 1]);
	assert_true(st.q1 == np_quantile(s, n, 0.25));
	assert_true(st.median == np_quantile(s, n, 0.5));
	assert_true(st.q3 == np_quantile(s, n, 0.75));
	assert_true(st.iqr == st.q3 - st.q1);
	assert_close(st.mean, (double)mean, 1e-13);
	if (n == 1 || s[0] == s[n - 1])
		assert_true(st.sd == 0 && st.mean == s[0]);
	else
		assert_close(st.sd, (double)sqrtl(ss / (n - 1)), 1e-13);
	/* V was only reordered */
	qsort(v, n, sizeof(*v), cmp_double);
	assert_memory_equal(v, s, n * sizeof(*s));
	free(s);
}

static void test_one_to_ten(void **state)
{
	double v[] = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4};
	struct power_stats st;

	(void)state;
	power_stats_compute(&st, v, N(v));
	assert_int_equal(st.n, 10);
	assert_true(st.mean == 5.5);
	assert_close(st.sd, sqrt(82.5 / 9), 1e-15);
	assert_close(st.cv, sqrt(82.5 / 9) / 5.5, 1e-15);
	assert_true(st.min == 1);
	assert_true(st.max == 10);
	assert_true(st.q1 == 3.25);
	assert_true(st.median == 5.5);
	assert_true(st.q3 == 7.75);
	assert_true(st.iqr == 4.5);
}

static void test_odd_count(void **state)
{
	double v[] = {9, 1, 5, 3, 7}; /* positions 1, 2, 3: no interpolation */
	struct power_stats st;

	(void)state;
	power_stats_compute(&st, v, N(v));
	assert_true(st.mean == 5);
	assert_true(st.sd == sqrt(10));
	assert_true(st.q1 == 3);
	assert_true(st.median == 5);
	assert_true(st.q3 == 7);
}

static void test_empty_single_pair(void **state)
{
	struct power_stats st, zero;
	double one[] = {42.5}, two[] = {3, 1};

	(void)state;
	memset(&zero, 0, sizeof(zero));
	memset(&st, 0x55, sizeof(st));
	power_stats_compute(&st, NULL, 0);
	assert_memory_equal(&st, &zero, sizeof(st));

	power_stats_compute(&st, one, 1);
	assert_int_equal(st.n, 1);
	assert_true(st.mean == 42.5 && st.min == 42.5 && st.max == 42.5);
	assert_true(st.q1 == 42.5 && st.median == 42.5 && st.q3 == 42.5);
	assert_true(st.sd == 0 && st.cv == 0 && st.iqr == 0);

	power_stats_compute(&st, two, 2);
	assert_true(st.mean == 2);
	assert_close(st.sd, sqrt(2), 1e-15);
	assert_true(st.q1 == 1.5 && st.median == 2 && st.q3 == 2.5 && st.iqr == 1);
	assert_true(st.min == 1 && st.max == 3);
}

static void test_duplicates(void **state)
{
	double same[] = {2, 2, 2, 2, 2, 2};
	double v[] = {3, 2, 9, 2, 3, 1, 2}; /* sorted 1 2 2 2 3 3 9 */
	double zero_mean[] = {-1, 1, -1, 1};
	struct power_stats st;

	(void)state;
	power_stats_compute(&st, same, N(same));
	assert_true(st.mean == 2 && st.sd == 0 && st.cv == 0);
	assert_true(st.q1 == 2 && st.median == 2 && st.q3 == 2);

	power_stats_compute(&st, v, N(v));
	assert_true(st.q1 == 2);     /* position 1.5 between 2 and 2 */
	assert_true(st.median == 2); /* position 3 */
	assert_true(st.q3 == 3);     /* position 4.5 between 3 and 3 */
	assert_true(st.min == 1 && st.max == 9);

	power_stats_compute(&st, zero_mean, N(zero_mean));
	assert_true(st.mean == 0);
	assert_true(st.cv == 0);
	assert_close(st.sd, sqrt(4.0 / 3), 1e-15);
}

/* Values far from 0 with a small spread: a one-pass sum of squares loses it all. */
static void test_large_offset(void **state)
{
	double v[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
	struct power_stats st;

	(void)state;
	power_stats_compute(&st, v, N(v));
	assert_true(st.mean == 1e9 + 10);
	assert_close(st.sd, sqrt(30), 1e-12);
	assert_true(st.q1 == 1e9 + 6.25);
	assert_true(st.median == 1e9 + 10);
	assert_true(st.q3 == 1e9 + 13.75);
}

static uint64_t rng_state = 88172645463325252u;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * 0x1.0p-53;
}

static void test_million_random(void **state)
{
	size_t n = 1000000, i;
	double *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (i = 0; i < n; i++)
		v[i] = 40 + 20 * rnd() + (rnd() < 0.01 ? 100 * rnd() : 0);
	check_against_sorted(v, n);
	free(v);
}

/* Orders that defeat naive pivots, and few distinct values (a quantised meter). */
static void test_adversarial_orders(void **state)
{
	size_t n = 200001, i;
	double *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (i = 0; i < n; i++) /* ascending */
		v[i] = (double)i;
	check_against_sorted(v, n);
	for (i = 0; i < n; i++) /* descending */
		v[i] = (double)(n - i);
	check_against_sorted(v, n);
	for (i = 0; i < n; i++) /* organ pipe */
		v[i] = (double)(i < n / 2 ? i : n - i);
	check_against_sorted(v, n);
	for (i = 0; i < n; i++) /* three values */
		v[i] = (double)(int)(3 * rnd());
	check_against_sorted(v, n);
	for (i = 0; i < n; i++) /* all equal */
		v[i] = 7.5;
	check_against_sorted(v, n);
	for (i = 0; i < n; i++) /* even count, quantised */
		v[i] = 0.125 * (double)(int)(16 * rnd());
	check_against_sorted(v, n - 1);
	free(v);
}

static void test_small_sizes(void **state)
{
	double v[16];
	size_t n, i, rep;

	(void)state;
	for (n = 1; n <= 16; n++)
		for (rep = 0; rep < 50; rep++) {
			for (i = 0; i < n; i++)
				v[i] = (double)(int)(5 * rnd());
			check_against_sorted(v, n);
		}
}

static void test_rate(void **state)
{
	struct power_series ps;
	double t[] = {1e14, 1e14 + 1e6, 1e14 + 3e6, 1e14 + 4e6};

	(void)state;
	memset(&ps, 0, sizeof(ps));
	ps.n = 1001;
	ps.t0 = 5e13;
	ps.dt = 1e6; /* 1 kHz */
	assert_close(power_series_rate(&ps), 1000, 1e-12);
	ps.n = 1;
	assert_true(power_series_rate(&ps) == 0);
	ps.n = 0;
	assert_true(power_series_rate(&ps) == 0);
	ps.t = t;
	ps.n = N(t);
	assert_close(power_series_rate(&ps), 3 / 4e-3, 1e-12);
}

/* Everything is freed (the sanitizer build finds leaks) and the struct zeroed. */
static void test_release(void **state)
{
	struct power_series ps, zero;
	size_t i;

	(void)state;
	memset(&ps, 0, sizeof(ps));
	memset(&zero, 0, sizeof(zero));
	ps.source = strdup("rapl");
	ps.n = 3;
	ps.t = calloc(3, sizeof(double));
	ps.nch = 2;
	ps.ch = calloc(2, sizeof(*ps.ch));
	for (i = 0; i < ps.nch; i++) {
		ps.ch[i].name = strdup("package-0");
		ps.ch[i].v = calloc(3, sizeof(double));
	}
	ps.ncols = 1;
	ps.cols = calloc(1, sizeof(*ps.cols));
	ps.cols[0].name = strdup("watts");
	ps.cols[0].unit = strdup("W");
	ps.cols[0].v = calloc(3, sizeof(double));
	ps.cols[0].n = 3;
	power_series_release(&ps);
	assert_memory_equal(&ps, &zero, sizeof(ps));
	power_series_release(&ps); /* an empty series too */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_to_ten),
	    cmocka_unit_test(test_odd_count),
	    cmocka_unit_test(test_empty_single_pair),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_large_offset),
	    cmocka_unit_test(test_million_random),
	    cmocka_unit_test(test_adversarial_orders),
	    cmocka_unit_test(test_small_sizes),
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
