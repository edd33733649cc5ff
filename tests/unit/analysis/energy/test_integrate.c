/*
 * test_integrate.c - the cumulative energy S(t) of a power channel against analytic integrals
 * of synthetic power traces: exactness of the trapezoid (constant and linear power) and of
 * Simpson (up to quadratic power anywhere, cubic at group boundaries and inside the last,
 * cubic group) at any time, with uneven sample times too; the convergence order on a sine;
 * clamping; queries in any order; counters (POWER_JOULES) interpolated linearly; the groups.
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

#include "analysis/energy/integrate.h"

#define T0 1.2345678e14 /* ns: a monotonic clock a day and a half after boot */

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * 0x1.0p-53;
}

/* A one-channel series of N samples; T NULL for a fixed rate T0 + i * DT. Freed by
 * power_series_release. */
static struct power_series *series_new(size_t n, int uneven, double t0, double dt)
{
	struct power_series *ps = calloc(1, sizeof(*ps));
	size_t i;

	assert_non_null(ps);
	ps->n = n;
	ps->t0 = t0;
	ps->dt = dt;
	if (uneven) {
		ps->t = malloc(n * sizeof(double));
		assert_non_null(ps->t);
		ps->t[0] = t0;
		for (i = 1; i < n; i++) /* intervals from 0.2 to 1.8 x dt */
			ps->t[i] = ps->t[i - 1] + dt * (0.2 + 1.6 * rnd());
	}
	ps->nch = 1;
	ps->ch = calloc(1, sizeof(*ps->ch));
	assert_non_null(ps->ch);
	ps->ch[0].name = strdup("power");
	ps->ch[0].kind = POWER_WATTS;
	ps->ch[0].advancing = 1;
	ps->ch[0].v = malloc(n * sizeof(double));
	assert_non_null(ps->ch[0].v);
	return ps;
}

static void series_free(struct power_series *ps)
{
	power_series_release(ps);
	free(ps);
}

/* Power c0 + c1 u + c2 u^2 + c3 u^3 in W, u in seconds since the first sample; its exact
 * integral from the first sample to time T, in J. */
struct poly {
	double c[4];
};

static double poly_at(const struct poly *p, double u)
{
	return p->c[0] + u * (p->c[1] + u * (p->c[2] + u * p->c[3]));
}

static double poly_integral(const struct poly *p, double u)
{
	return u * (p->c[0] + u * (p->c[1] / 2 + u * (p->c[2] / 3 + u * p->c[3] / 4)));
}

static void fill_poly(struct power_series *ps, const struct poly *p)
{
	double tf = power_time(ps, 0);

	for (size_t i = 0; i < ps->n; i++)
		ps->ch[0].v[i] = poly_at(p, (power_time(ps, i) - tf) * 1e-9);
}

static void check_rel(double got, double want, double rel, const char *what, double t)
{
	if (!(fabs(got - want) <= rel * fabs(want) + 1e-300)) {
		print_error("%s at t = %.17g: got %.17g, want %.17g (rel %.3g)\n", what, t, got,
			    want, fabs(got - want) / fabs(want));
		fail();
	}
}

/* S at every sample time and at NQ random times between samples, against the polynomial's
 * integral. */
static void check_poly_anywhere(const struct power_series *ps, const struct poly *p,
				enum integ_method method, size_t nq, const char *what)
{
	struct power_integral pi;
	double tf = power_time(ps, 0), span = power_time(ps, ps->n - 1) - tf;
	size_t hint = 0, i;

	assert_int_equal(power_integral_init(&pi, ps, 0, method), 0);
	for (i = 0; i < ps->n; i++) {
		double t = power_time(ps, i);

		check_rel(power_integral_at(&pi, t, &hint), poly_integral(p, (t - tf) * 1e-9), 1e-9,
			  what, t);
	}
	for (i = 0; i < nq; i++) {
		double t = tf + span * rnd();

		check_rel(power_integral_at(&pi, t, &hint), poly_integral(p, (t - tf) * 1e-9), 1e-9,
			  what, t);
	}
	check_rel(power_integral_total(&pi), poly_integral(p, span * 1e-9), 1e-9, what, tf + span);
	power_integral_release(&pi);
}

/* ---- exactness ---- */

static void test_trapezoid_exact_linear(void **state)
{
	const struct poly constant = {{37.5, 0, 0, 0}}, ramp = {{12, 3.25, 0, 0}};
	size_t n[] = {2, 3, 8, 501};

	(void)state;
	for (size_t k = 0; k < sizeof(n) / sizeof(n[0]); k++)
		for (int uneven = 0; uneven <= 1; uneven++) {
			struct power_series *ps = series_new(n[k], uneven, T0, 1e7);

			fill_poly(ps, &constant);
			check_poly_anywhere(ps, &constant, INTEG_TRAPEZOID, 2000, "trap const");
			fill_poly(ps, &ramp);
			check_poly_anywhere(ps, &ramp, INTEG_TRAPEZOID, 2000, "trap ramp");
			/* Simpson is exact on these too */
			check_poly_anywhere(ps, &ramp, INTEG_SIMPSON, 2000, "simpson ramp");
			series_free(ps);
		}
}

/* Not exact on a quadratic: the test can tell. */
static void test_trapezoid_not_exact_quadratic(void **state)
{
	const struct poly quad = {{10, -2, 1.5, 0}};
	struct power_series *ps = series_new(11, 0, T0, 1e8);
	struct power_integral pi;
	double want = poly_integral(&quad, 1.0);

	(void)state;
	fill_poly(ps, &quad);
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_TRAPEZOID), 0);
	/* the trapezoid's error on a parabola: (b - a) h^2 f'' / 12 = 1 * 0.01 * 3 / 12 */
	check_rel(power_integral_total(&pi) - want, 0.0025, 1e-9, "trap error", 0);
	power_integral_release(&pi);
	series_free(ps);
}

static void test_simpson_exact_quadratic(void **state)
{
	const struct poly quad = {{40, 3, -0.1, 0}};
	size_t n[] = {3, 4, 5, 6, 7, 200, 201};

	(void)state;
	for (size_t k = 0; k < sizeof(n) / sizeof(n[0]); k++)
		for (int uneven = 0; uneven <= 1; uneven++) {
			struct power_series *ps = series_new(n[k], uneven, T0, 5e7);

			fill_poly(ps, &quad);
			check_poly_anywhere(ps, &quad, INTEG_SIMPSON, 3000, "simpson quad");
			series_free(ps);
		}
}

/* Uniform integer times (exact doubles): Simpson's pairs are exact for cubics over whole
 * pairs, the last group of an odd count of intervals everywhere. */
static void test_simpson_cubic(void **state)
{
	const struct poly cubic = {{20, 5, -3, 0.75}};
	size_t n[] = {3, 4, 5, 6, 7, 8, 100, 101};

	(void)state;
	for (size_t k = 0; k < sizeof(n) / sizeof(n[0]); k++) {
		struct power_series *ps = series_new(n[k], 0, 1e14, 1e8);
		struct power_integral pi;
		size_t g, hint = 0, m = n[k] - 1;
		double tf = 1e14;

		fill_poly(ps, &cubic);
		assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), 0);
		check_rel(power_integral_total(&pi), poly_integral(&cubic, (double)m * 0.1), 1e-12,
			  "simpson cubic total", (double)n[k]);
		for (g = 0; g <= pi.ngroups; g++) {
			double t = power_time(ps, power_integral_group_start(&pi, g));

			check_rel(pi.cum[g], poly_integral(&cubic, (t - tf) * 1e-9), 1e-12,
				  "simpson cubic cum", t);
			check_rel(power_integral_at(&pi, t, &hint),
				  poly_integral(&cubic, (t - tf) * 1e-9), 1e-12,
				  "simpson cubic boundary", t);
		}
		if (m % 2 == 1) { /* anywhere inside the last group of three intervals */
			double a = power_time(ps, m - 3), b = power_time(ps, m);

			assert_int_equal(power_integral_group_start(&pi, pi.ngroups - 1), m - 3);
			for (int q = 0; q < 500; q++) {
				double t = a + (b - a) * rnd();

				check_rel(power_integral_at(&pi, t, &hint),
					  poly_integral(&cubic, (t - tf) * 1e-9), 1e-9,
					  "simpson cubic group", t);
			}
		} else { /* inside a pair the parabola is not the cubic: the test can tell */
			double t = power_time(ps, 0) + 0.5e8;

			assert_true(fabs(power_integral_at(&pi, t, &hint) -
					 poly_integral(&cubic, (t - tf) * 1e-9)) >
				    1e-6 * poly_integral(&cubic, (t - tf) * 1e-9));
		}
		power_integral_release(&pi);
		series_free(ps);
	}
}

/* Whole groups against the textbook composite Simpson rule for uneven spacing. */
static void test_simpson_uneven_formula(void **state)
{
	struct power_series *ps = series_new(101, 1, T0, 1e6);
	struct power_integral pi;
	double *v = ps->ch[0].v, *t = ps->t;

	(void)state;
	for (size_t i = 0; i < ps->n; i++)
		v[i] = 50 + 20 * sin(i * 0.7) + 5 * rnd();
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), 0);
	assert_int_equal(pi.ngroups, 50);
	for (size_t g = 0; g < pi.ngroups; g++) {
		size_t s = power_integral_group_start(&pi, g);
		double h0 = t[s + 1] - t[s], h1 = t[s + 2] - t[s + 1];
		double want = (h0 + h1) / 6 *
			      ((2 - h1 / h0) * v[s] + (h0 + h1) * (h0 + h1) / (h0 * h1) * v[s + 1] +
			       (2 - h0 / h1) * v[s + 2]) *
			      1e-9;

		assert_int_equal(s, 2 * g);
		check_rel(pi.cum[g + 1] - pi.cum[g], want, 1e-11, "uneven simpson group",
			  (double)g);
	}
	power_integral_release(&pi);
	series_free(ps);
}

/* ---- convergence on a sine ---- */

/* Power A + B sin(w u + phi), u in seconds since the first sample. */
#define SIN_A	50.0
#define SIN_B	30.0
#define SIN_PHI 0.4

static double sine_integral(double w, double u)
{
	return SIN_A * u + SIN_B / w * (cos(SIN_PHI) - cos(w * u + SIN_PHI));
}

/*
 * Relative errors of S over the whole span and over [span/3, 2 span/3] (never a sample time:
 * the counts of intervals are powers of two) with NINT intervals. 0.7 periods over the span:
 * from 32 intervals on, w h <= 0.14. The boundaries of the sub-span fall at 2/3 and 4/3 of a
 * Simpson pair in turn, where the leading error term of the partial pair is the same but the
 * next one, relatively w h, changes sign: with larger steps it would blur the observed order.
 * Errors stay between 1e-3 and 1e-12: far above roundoff.
 */
static void sine_errors(enum integ_method method, size_t nint, double *whole, double *sub)
{
	const double t0 = 0x1p46, span = 0x1p30, w = 2 * M_PI * 0.7 / (span * 1e-9);
	struct power_series *ps = series_new(nint + 1, 0, t0, span / (double)nint);
	struct power_integral pi;
	double a = t0 + span / 3, b = t0 + 2 * span / 3, want;
	size_t hint = 0;

	for (size_t i = 0; i <= nint; i++)
		ps->ch[0].v[i] = SIN_A + SIN_B * sin(w * (power_time(ps, i) - t0) * 1e-9 + SIN_PHI);
	assert_int_equal(power_integral_init(&pi, ps, 0, method), 0);
	want = sine_integral(w, span * 1e-9);
	*whole = fabs(power_integral_total(&pi) - want) / want;
	want = sine_integral(w, (b - t0) * 1e-9) - sine_integral(w, (a - t0) * 1e-9);
	*sub =
	    fabs(power_integral_at(&pi, b, &hint) - power_integral_at(&pi, a, &hint) - want) / want;
	power_integral_release(&pi);
	series_free(ps);
}

static void check_order(enum integ_method method, double lo, double hi)
{
	double whole[5], sub[5];
	size_t k;

	for (k = 0; k < 5; k++)
		sine_errors(method, (size_t)32 << k, &whole[k], &sub[k]);
	for (k = 0; k + 1 < 5; k++) {
		double ow = log2(whole[k] / whole[k + 1]), os = log2(sub[k] / sub[k + 1]);

		print_message("%s n=%zu: errors %.3e %.3e, orders %.3f %.3f\n",
			      method == INTEG_SIMPSON ? "simpson" : "trapezoid", (size_t)64 << k,
			      whole[k + 1], sub[k + 1], ow, os);
		assert_true(whole[k + 1] > 1e-13 && sub[k + 1] > 1e-13); /* not roundoff */
		assert_true(ow >= lo && ow <= hi);
		assert_true(os >= lo && os <= hi);
	}
}

static void test_order_trapezoid(void **state)
{
	(void)state;
	check_order(INTEG_TRAPEZOID, 1.8, 2.2);
}

static void test_order_simpson(void **state)
{
	(void)state;
	check_order(INTEG_SIMPSON, 3.5, 1e9);
}

/* ---- queries ---- */

static void test_clamp(void **state)
{
	const struct poly ramp = {{5, 1, 0, 0}};

	(void)state;
	for (int method = INTEG_TRAPEZOID; method <= INTEG_SIMPSON; method++)
		for (int uneven = 0; uneven <= 1; uneven++) {
			struct power_series *ps = series_new(50, uneven, T0, 1e6);
			struct power_integral pi;
			size_t hint = 0;
			double total, tf, tl;

			fill_poly(ps, &ramp);
			assert_int_equal(power_integral_init(&pi, ps, 0, method), 0);
			total = power_integral_total(&pi);
			tf = power_time(ps, 0);
			tl = power_time(ps, ps->n - 1);
			assert_true(pi.t_first == tf && pi.t_last == tl);
			assert_true(total > 0);
			assert_true(power_integral_at(&pi, tf - 1e9, &hint) == 0);
			assert_true(power_integral_at(&pi, -INFINITY, &hint) == 0);
			assert_true(power_integral_at(&pi, tf, &hint) == 0);
			assert_true(power_integral_at(&pi, tl, &hint) == total);
			assert_true(power_integral_at(&pi, tl + 1e9, &hint) == total);
			assert_true(power_integral_at(&pi, INFINITY, &hint) == total);
			assert_true(power_integral_at(&pi, tl - 1, NULL) < total);
			assert_true(hint < pi.ngroups);
			power_integral_release(&pi);
			series_free(ps);
		}
}

/* The hint changes the search, never the result: random order = monotone order = no hint. */
static void test_hint_any_order(void **state)
{
	enum { NQ = 4000 };
	static double tq[NQ], mono[NQ];

	(void)state;
	for (int method = INTEG_TRAPEZOID; method <= INTEG_SIMPSON; method++)
		for (int uneven = 0; uneven <= 1; uneven++) {
			struct power_series *ps = series_new(1001, uneven, T0, 1e6);
			struct power_integral pi;
			double tf, span;
			size_t hint = 0, i, j;

			for (i = 0; i < ps->n; i++)
				ps->ch[0].v[i] = 30 + 10 * rnd();
			assert_int_equal(power_integral_init(&pi, ps, 0, method), 0);
			tf = power_time(ps, 0);
			span = power_time(ps, ps->n - 1) - tf;
			for (i = 0; i < NQ; i++) /* increasing, samples and outside included */
				tq[i] = i % 97 == 0   ? power_time(ps, (i * 7) % ps->n)
					: i % 89 == 0 ? tf + span * (1.2 * rnd() - 0.1)
						      : tf + span * (double)i / NQ;
			for (i = 0; i < NQ; i++) {
				size_t none = 0;

				mono[i] = power_integral_at(&pi, tq[i], &hint);
				assert_true(mono[i] == power_integral_at(&pi, tq[i], &none));
				assert_true(mono[i] == power_integral_at(&pi, tq[i], NULL));
			}
			for (i = 0; i < 5 * NQ; i++) { /* random order, one hint throughout */
				j = (size_t)(rnd() * NQ);
				assert_true(power_integral_at(&pi, tq[j], &hint) == mono[j]);
				assert_true(hint < pi.ngroups);
			}
			hint = pi.ngroups + 1000; /* a stale hint is still correct */
			assert_true(power_integral_at(&pi, tq[NQ / 2], &hint) == mono[NQ / 2]);
			power_integral_release(&pi);
			series_free(ps);
		}
}

/* A counter: linear interpolation of the energy whatever the method. */
static void test_joules(void **state)
{
	struct power_series *ps = series_new(7, 1, T0, 1e6);
	double *v = ps->ch[0].v, *t = ps->t;
	const double e[] = {0, 0.5, 1.75, 1.75, 4, 4.5, 10};

	(void)state;
	ps->ch[0].kind = POWER_JOULES;
	memcpy(v, e, sizeof(e));
	for (int method = INTEG_TRAPEZOID; method <= INTEG_SIMPSON; method++) {
		struct power_integral pi;
		size_t hint = 0, i;

		assert_int_equal(power_integral_init(&pi, ps, 0, method), 0);
		assert_true(power_integral_total(&pi) == 10);
		for (i = 0; i < ps->n; i++)
			assert_true(power_integral_at(&pi, t[i], &hint) == e[i]);
		for (i = 0; i + 1 < ps->n; i++) {
			double f = 0.25 + 0.5 * rnd(), tq = t[i] + f * (t[i + 1] - t[i]);

			check_rel(power_integral_at(&pi, tq, &hint),
				  e[i] + (e[i + 1] - e[i]) * ((tq - t[i]) / (t[i + 1] - t[i])),
				  1e-14, "joules", tq);
		}
		assert_true(power_integral_at(&pi, t[0] - 5, &hint) == 0);
		assert_true(power_integral_at(&pi, t[6] + 5, &hint) == 10);
		power_integral_release(&pi);
	}
	series_free(ps);
}

/* ---- groups and errors ---- */

static void test_groups(void **state)
{
	struct {
		size_t n, ngroups, last_start;
	} c[] = {{2, 1, 0}, {3, 1, 0}, {4, 1, 0}, {5, 2, 2}, {8, 3, 4}, {9, 4, 6}, {10, 4, 6}};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct power_series *ps = series_new(c[k].n, 0, T0, 1e6);
		struct power_integral pi;

		for (size_t i = 0; i < c[k].n; i++)
			ps->ch[0].v[i] = 1;
		assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), 0);
		assert_int_equal(pi.ngroups, c[k].ngroups);
		assert_int_equal(power_integral_group_start(&pi, 0), 0);
		assert_int_equal(power_integral_group_start(&pi, pi.ngroups - 1), c[k].last_start);
		assert_int_equal(power_integral_group_start(&pi, pi.ngroups), c[k].n - 1);
		check_rel(power_integral_total(&pi), (double)(c[k].n - 1) * 1e-3, 1e-14, "ones", 0);
		power_integral_release(&pi);
		assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_TRAPEZOID), 0);
		assert_int_equal(pi.ngroups, c[k].n - 1);
		power_integral_release(&pi);
		series_free(ps);
	}
}

static void test_errors(void **state)
{
	struct power_series *ps = series_new(4, 1, T0, 1e6);
	struct power_integral pi;

	(void)state;
	for (size_t i = 0; i < ps->n; i++)
		ps->ch[0].v[i] = 1;
	assert_int_equal(power_integral_init(&pi, ps, 1, INTEG_TRAPEZOID), -EINVAL);
	ps->n = 1;
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_TRAPEZOID), -EINVAL);
	assert_null(pi.cum);
	ps->n = 4;
	ps->t[2] = ps->t[1]; /* not increasing */
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), -EINVAL);
	ps->t[2] = NAN;
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), -EINVAL);
	free(ps->t);
	ps->t = NULL;
	ps->dt = 0;
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), -EINVAL);
	ps->dt = 1e6;
	assert_int_equal(power_integral_init(&pi, ps, 0, INTEG_SIMPSON), 0);
	power_integral_release(&pi);
	power_integral_release(&pi); /* twice is harmless */
	assert_true(power_integral_total(&pi) == 0);
	series_free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trapezoid_exact_linear),
	    cmocka_unit_test(test_trapezoid_not_exact_quadratic),
	    cmocka_unit_test(test_simpson_exact_quadratic),
	    cmocka_unit_test(test_simpson_cubic),
	    cmocka_unit_test(test_simpson_uneven_formula),
	    cmocka_unit_test(test_order_trapezoid),
	    cmocka_unit_test(test_order_simpson),
	    cmocka_unit_test(test_clamp),
	    cmocka_unit_test(test_hint_any_order),
	    cmocka_unit_test(test_joules),
	    cmocka_unit_test(test_groups),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
