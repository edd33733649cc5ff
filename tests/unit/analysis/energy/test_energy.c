/*
 * test_energy.c - charging power to functions (energy.h) on synthetic experiments whose
 * energies are known exactly: nested calls under a ramp, two threads sharing the power, and
 * intervals that add up to the totals.
 */
#include "synth-exp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/energy/energy.h"
#include "model/experiment-open.h"
#include "model/symbols.h"

/* A run from 1000 to 2000 ns (meta.json's start_ns and end_ns). */
static void write_meta(const char *dir)
{
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
		   "\"start_ns\":1000,\"end_ns\":2000}");
}

/* Stream of thread TID of process 100: one call of ADDR from ENTER to EXIT, the end record at
 * END (0: none, a stream cut short). */
static void write_one_call(const char *dir, int tid, uint64_t addr, uint64_t enter, uint64_t exit,
			   uint64_t end)
{
	struct words s = {{0}, 0};

	w_clock(&s, 1000);
	w_call(&s, enter, 1, addr);
	w_call(&s, exit, 0, addr);
	if (end)
		w_end(&s, end);
	write_stream(dir, 100, tid, &s, NULL, 0);
}

/* Power P(t) = a + b (t - 1000 ns) in W, sampled every 10 ns from 1000 to 2000 ns. */
static void ramp(struct power_series *ps, double *v, double a, double b)
{
	static char name[] = "power", source[] = "test";

	memset(ps, 0, sizeof(*ps));
	for (size_t i = 0; i <= 100; i++)
		v[i] = a + b * (double)(i * 10);
	ps->source = source;
	ps->n = 101;
	ps->t0 = 1000;
	ps->dt = 10;
	ps->nch = 1;
	ps->ch = calloc(1, sizeof(*ps->ch));
	assert_non_null(ps->ch);
	ps->ch[0] = (struct power_channel){name, POWER_WATTS, v, 1};
}

/* Integral of the ramp from T1 to T2 (ns), in J. */
static double ramp_j(double a, double b, double t1, double t2)
{
	t1 -= 1000;
	t2 -= 1000;
	return (a * (t2 - t1) + b * (t2 * t2 - t1 * t1) / 2) * 1e-9;
}

static const struct func_row *row_of(const struct func_profile *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].addr == addr)
			return &p->rows[i];
	fail_msg("no row for 0x%llx", (unsigned long long)addr);
	return NULL;
}

/* One test's experiment directory, power samples and profile. */
struct fixture {
	char dir[128];
	struct experiment e;
	struct symtab syms;
	struct energy_profile ep;
	struct power_series ps;
	double v[101];
};

/* A new experiment directory with meta.json (the run from 1000 to 2000 ns) and
 * proc.100.json. */
static void fixture_dir(struct fixture *x)
{
	memset(x, 0, sizeof(*x));
	new_dir(x->dir, sizeof(x->dir));
	write_meta(x->dir);
	write_proc(x->dir, 100, "[]");
}

/* Open the directory and build its energy profile; both must succeed. */
static void build(struct fixture *x, const struct energy_options *opt)
{
	char err[512] = "";

	if (experiment_open(&x->e, x->dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(&x->syms, x->dir), 0);
	if (energy_profile_build(&x->ep, &x->e, &x->syms, &x->ps, opt, err, sizeof(err)))
		fail_msg("energy_profile_build: %s", err);
}

static void release(struct fixture *x)
{
	energy_profile_release(&x->ep);
	symtab_release(&x->syms);
	experiment_release(&x->e);
	free(x->ps.ch);
}

#define F 0x1000u
#define G 0x2000u
#define H 0x3000u

static void assert_rel(double want, double got)
{
	double d = want - got;

	if ((d < 0 ? -d : d) > 1e-9 * (want < 0 ? -want : want) + 1e-18)
		fail_msg("expected %.17g, got %.17g", want, got);
}

/* f 1100..1500 calls h at 1200..1250 and at 1300..1320, under a ramp 1 + 0.01 t W: the
 * exclusive and inclusive energies are the ramp's integrals over the pieces, and 4 intervals
 * add up to every row's exclusive energy. */
static void test_nested_ramp(void **state)
{
	struct fixture x;
	struct words s = {{0}, 0};
	struct energy_options opt = {.method = INTEG_TRAPEZOID, .nintervals = 4};
	double a = 1, b = 0.01;
	const struct func_row *f, *h;

	(void)state;
	fixture_dir(&x);
	w_clock(&s, 1000);
	w_call(&s, 1100, 1, F);
	w_call(&s, 1200, 1, H);
	w_call(&s, 1250, 0, H);
	w_call(&s, 1300, 1, H);
	w_call(&s, 1320, 0, H);
	w_call(&s, 1500, 0, F);
	w_end(&s, 1600);
	write_stream(x.dir, 100, 100, &s, NULL, 0);
	ramp(&x.ps, x.v, a, b);
	build(&x, &opt);

	f = row_of(&x.ep.merged, F);
	h = row_of(&x.ep.merged, H);
	assert_rel(ramp_j(a, b, 1100, 1500), f->incl_j);
	assert_rel(ramp_j(a, b, 1100, 1500) - ramp_j(a, b, 1200, 1250) - ramp_j(a, b, 1300, 1320),
		   f->excl_j);
	assert_rel(ramp_j(a, b, 1200, 1250) + ramp_j(a, b, 1300, 1320), h->excl_j);
	assert_rel(ramp_j(a, b, 1000, 2000), x.ep.total_j);
	assert_rel(ramp_j(a, b, 1000, 1100) + ramp_j(a, b, 1500, 2000), x.ep.outside_j);
	assert_int_equal(x.ep.outside_ns, 600);
	assert_int_equal(f->covered_ns, 400 - 70);
	assert_int_equal(x.ep.max_active, 1);
	/* intervals of 250 ns: each row's slices add up to its exclusive energy and time */
	assert_int_equal(x.ep.nintervals, 4);
	assert_int_equal(x.ep.edges[1], 1250);
	for (size_t r = 0; r < x.ep.merged.nrows; r++) {
		const struct func_row *row = &x.ep.merged.rows[r];
		double j = 0;
		int64_t ns = 0;

		assert_non_null(row->slices);
		for (size_t k = 0; k < x.ep.nintervals; k++) {
			j += row->slices[k].j;
			ns += row->slices[k].ns;
		}
		assert_rel(row->excl_j, j);
		assert_int_equal(row->excl_ns, ns);
	}
	/* f's time in the first interval: 1100..1200 and nothing of h's 1200..1250 */
	assert_int_equal(f->slices[0].ns, 100);
	assert_rel(ramp_j(a, b, 1100, 1200), f->slices[0].j);
	assert_int_equal(x.ep.interval_idle_ns[0], 100);
	assert_int_equal(x.ep.interval_idle_ns[3], 250);
	assert_rel(ramp_j(a, b, 1250, 1500), x.ep.interval_j[1]);

	release(&x);
}

/* Two threads: f on one 1100..1500, g on the other 1300..1700, constant 2 W. From 1300 to
 * 1500 both are in traced code and each is charged half: f and g 2 W x 300 ns each, the
 * rest of the run (400 ns) outside. */
static void test_two_threads_share(void **state)
{
	struct fixture x;
	struct energy_options opt = {.method = INTEG_SIMPSON};

	(void)state;
	fixture_dir(&x);
	write_one_call(x.dir, 100, F, 1100, 1500, 1900);
	write_one_call(x.dir, 101, G, 1300, 1700, 1900);
	ramp(&x.ps, x.v, 2, 0);
	build(&x, &opt);

	assert_rel(2 * 300e-9, row_of(&x.ep.merged, F)->excl_j);
	assert_rel(2 * 300e-9, row_of(&x.ep.merged, G)->excl_j);
	assert_rel(2 * 400e-9, x.ep.outside_j);
	assert_rel(2 * 1000e-9, x.ep.total_j);
	assert_int_equal(x.ep.outside_ns, 400);
	assert_int_equal(x.ep.max_active, 2);

	release(&x);
}

/* Power from 1400 ns on only: the run is covered from there, nothing is extrapolated. */
static void test_partial_cover(void **state)
{
	struct fixture x;
	struct energy_options opt = {.method = INTEG_TRAPEZOID};

	(void)state;
	fixture_dir(&x);
	write_one_call(x.dir, 100, F, 1100, 1500, 1900);
	ramp(&x.ps, x.v, 3, 0);
	x.ps.t0 = 1400; /* samples 1400..2400 */
	build(&x, &opt);

	assert_int_equal(x.ep.cover_start, 1400);
	assert_int_equal(x.ep.cover_end, 2000);
	assert_rel(3 * 100e-9, row_of(&x.ep.merged, F)->excl_j);
	assert_int_equal(row_of(&x.ep.merged, F)->covered_ns, 100);
	assert_int_equal(row_of(&x.ep.merged, F)->incl_covered_ns, 100);
	assert_rel(3 * 600e-9, x.ep.total_j);
	assert_int_equal(x.ep.outside_ns, 500);

	release(&x);
}

/* Power entirely after the run: -ERANGE with both spans in the message. */
static void test_no_overlap(void **state)
{
	struct fixture x;
	struct energy_options opt = {.method = INTEG_TRAPEZOID};
	char err[512] = "";

	(void)state;
	fixture_dir(&x);
	write_one_call(x.dir, 100, F, 1100, 1500, 0);
	ramp(&x.ps, x.v, 3, 0);
	x.ps.t0 = 5000;
	assert_int_equal(experiment_open(&x.e, x.dir, err, sizeof(err)), 0);
	assert_int_equal(symtab_init(&x.syms, x.dir), 0);
	assert_int_equal(energy_profile_build(&x.ep, &x.e, &x.syms, &x.ps, &opt, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "do not overlap the run"));
	release(&x);
}

/* A call of length 0 at 1100 (a killed thread's only enter gets its exit at the same
 * instant) changes nobody's share: G alone from 1300 to 1500 at 2 W gets 2 W x 200 ns, and
 * the run never had two threads in traced code. */
static void test_zero_length_call(void **state)
{
	struct fixture x;
	struct words s = {{0}, 0};
	struct energy_options opt = {.method = INTEG_TRAPEZOID};

	(void)state;
	fixture_dir(&x);
	w_clock(&s, 1000);
	w_call(&s, 1100, 1, F);
	w_call(&s, 1100, 0, F);
	w_call(&s, 1300, 1, G);
	w_call(&s, 1500, 0, G);
	w_end(&s, 1900);
	write_stream(x.dir, 100, 100, &s, NULL, 0);
	ramp(&x.ps, x.v, 2, 0);
	build(&x, &opt);

	assert_rel(2 * 200e-9, row_of(&x.ep.merged, G)->excl_j);
	assert_rel(2 * 800e-9, x.ep.outside_j);
	assert_int_equal(x.ep.outside_ns, 800);
	assert_int_equal(x.ep.max_active, 1);
	release(&x);
}

/* A call from 900 to 1100 in a run from 1000 to 2000 with power from 800 on: only its part in
 * the run is charged, so its energy, its covered time and its slices agree. */
static void test_call_outside_run(void **state)
{
	struct fixture x;
	struct words s = {{0}, 0};
	struct energy_options opt = {.method = INTEG_TRAPEZOID, .nintervals = 2};
	const struct func_row *f;

	(void)state;
	fixture_dir(&x);
	w_clock(&s, 800);
	w_call(&s, 900, 1, F);
	w_call(&s, 1100, 0, F);
	w_end(&s, 1900);
	write_stream(x.dir, 100, 100, &s, NULL, 0);
	ramp(&x.ps, x.v, 2, 0);
	x.ps.t0 = 800;
	build(&x, &opt);

	f = row_of(&x.ep.merged, F);
	assert_rel(2 * 100e-9, f->excl_j);
	assert_int_equal(f->covered_ns, 100);
	assert_rel(f->excl_j, f->slices[0].j + f->slices[1].j);
	assert_rel(2 * 800e-9, x.ep.total_j);
	assert_rel(2 * 700e-9, x.ep.outside_j);
	release(&x);
}

/* F calls itself from 1200 to 1400 inside its call from 1100 to 1500, under 3 W: the
 * inclusive energy counts the outer call once, the exclusive the whole 400 ns. */
static void test_recursion_inclusive(void **state)
{
	struct fixture x;
	struct words s = {{0}, 0};
	struct energy_options opt = {.method = INTEG_SIMPSON, .interval_ns = 300};
	const struct func_row *f;

	(void)state;
	fixture_dir(&x);
	w_clock(&s, 1000);
	w_call(&s, 1100, 1, F);
	w_call(&s, 1200, 1, F);
	w_call(&s, 1400, 0, F);
	w_call(&s, 1500, 0, F);
	w_end(&s, 1900);
	write_stream(x.dir, 100, 100, &s, NULL, 0);
	ramp(&x.ps, x.v, 3, 0);
	build(&x, &opt);

	f = row_of(&x.ep.merged, F);
	assert_int_equal(f->calls, 2);
	assert_rel(3 * 400e-9, f->incl_j);
	assert_rel(3 * 400e-9, f->excl_j);
	/* intervals of 300 ns over 1000 ns: the last one 100 ns */
	assert_int_equal(x.ep.nintervals, 4);
	assert_int_equal(x.ep.edges[3], 1900);
	assert_int_equal(x.ep.edges[4], 2000);
	assert_int_equal(f->slices[0].ns, 200);
	assert_int_equal(f->slices[1].ns, 200);
	assert_rel(3 * 100e-9, x.ep.interval_j[3]);
	release(&x);
}

/* ---- analytic power over a synthetic timeline, every method ---- */

/* P(t) in W at T ns: a polynomial in u = (t - 1000) / 1000 (coefficients c[0..3]) or, with
 * SINE, 10 + 5 sin(4 pi u) (two periods over the run). */
struct shape {
	double c[4];
	int sine;
};

static double shape_at(const struct shape *sh, double t)
{
	double u = (t - 1000) / 1000;

	if (sh->sine)
		return 10 + 5 * sin(4 * M_PI * u);
	return sh->c[0] + u * (sh->c[1] + u * (sh->c[2] + u * sh->c[3]));
}

/* Its exact integral from 1000 ns to T, in J. */
static double shape_j(const struct shape *sh, double t)
{
	double u = (t - 1000) / 1000;

	if (sh->sine)
		return (10 * u + 5 * (1 - cos(4 * M_PI * u)) / (4 * M_PI)) * 1000e-9;
	return u * (sh->c[0] + u * (sh->c[1] / 2 + u * (sh->c[2] / 3 + u * sh->c[3] / 4))) *
	       1000e-9;
}

/* X's power: SH sampled every DT ns from 1000 to 2000 ns (V owned by the caller). */
static void sample_shape(struct fixture *x, double *v, const struct shape *sh, double dt)
{
	static char name[] = "power", source[] = "test";
	size_t n = (size_t)(1000 / dt) + 1;

	for (size_t i = 0; i < n; i++)
		v[i] = shape_at(sh, 1000 + (double)i * dt);
	x->ps = (struct power_series){.source = source, .n = n, .t0 = 1000, .dt = dt, .nch = 1};
	x->ps.ch = calloc(1, sizeof(*x->ps.ch));
	assert_non_null(x->ps.ch);
	x->ps.ch[0] = (struct power_channel){name, POWER_WATTS, v, 1};
}

/* One thread: F from B[0] to B[1], G from B[1] to B[2] (right after F: no gap), H from B[3]
 * to B[4]; nothing else traced. */
static void three_calls(struct fixture *x, const int64_t *b)
{
	struct words s = {{0}, 0};

	fixture_dir(x);
	w_clock(&s, 1000);
	w_call(&s, (uint64_t)b[0], 1, F);
	w_call(&s, (uint64_t)b[1], 0, F);
	w_call(&s, (uint64_t)b[1], 1, G);
	w_call(&s, (uint64_t)b[2], 0, G);
	w_call(&s, (uint64_t)b[3], 1, H);
	w_call(&s, (uint64_t)b[4], 0, H);
	w_end(&s, 1990);
	write_stream(x->dir, 100, 100, &s, NULL, 0);
}

/* The charges of F, G, H under SH sampled every DT by METHOD, minus their exact integrals:
 * ERR[0..2]; the rows and the outside add up to the run's energy either way. */
static void charge_errors(const int64_t *b, const struct shape *sh, double dt,
			  enum integ_method method, double *err)
{
	static const uint64_t addr[3] = {F, G, H};
	struct energy_options opt = {.method = method};
	struct fixture x;
	double v[1001], sum;

	three_calls(&x, b);
	sample_shape(&x, v, sh, dt);
	build(&x, &opt);
	sum = x.ep.outside_j;
	for (int k = 0; k < 3; k++) {
		double got = row_of(&x.ep.merged, addr[k])->excl_j;

		err[k] = got - (shape_j(sh, (double)b[k == 2 ? 4 : k + 1]) -
				shape_j(sh, (double)b[k == 2 ? 3 : k]));
		sum += got;
	}
	assert_rel(x.ep.total_j, sum);
	release(&x);
}

/* Constant and linear power by the trapezoid, up to quadratic by Simpson, are charged exactly
 * (1e-9 relative) to calls whose boundaries fall between samples; cubic power by Simpson
 * when the boundaries are on its groups' edges (every other sample from the first). */
static void test_analytic_exact(void **state)
{
	static const int64_t between[5] = {1103, 1257, 1501, 1733, 1911};
	static const int64_t edges[5] = {1120, 1280, 1520, 1760, 1920};
	const struct shape constant = {{4, 0, 0, 0}, 0}, ramp = {{2, 7, 0, 0}, 0};
	const struct shape quad = {{3, -2, 9, 0}, 0}, cubic = {{1, 2, -6, 8}, 0};
	double err[3];

	(void)state;
	for (int m = 0; m < 2; m++) {
		enum integ_method method = m ? INTEG_SIMPSON : INTEG_TRAPEZOID;

		charge_errors(between, &constant, 10, method, err);
		for (int k = 0; k < 3; k++)
			assert_true(fabs(err[k]) <= 1e-9 * 4 * 400e-9);
		charge_errors(between, &ramp, 10, method, err);
		for (int k = 0; k < 3; k++)
			assert_true(fabs(err[k]) <= 1e-9 * 9 * 400e-9);
	}
	charge_errors(between, &quad, 10, INTEG_SIMPSON, err);
	for (int k = 0; k < 3; k++)
		assert_true(fabs(err[k]) <= 1e-9 * 12 * 400e-9);
	/* the trapezoid is not exact there: the test can tell */
	charge_errors(between, &quad, 10, INTEG_TRAPEZOID, err);
	assert_true(fabs(err[1]) > 1e-7 * 12 * 244e-9);
	charge_errors(edges, &cubic, 20, INTEG_SIMPSON, err);
	for (int k = 0; k < 3; k++)
		assert_true(fabs(err[k]) <= 1e-9 * 10 * 400e-9);
	charge_errors(edges, &cubic, 20, INTEG_TRAPEZOID, err);
	assert_true(fabs(err[1]) > 1e-7 * 10 * 240e-9);
}

/* Sine power: halving the sample period divides each call's error by about 4 with the
 * trapezoid (second order) and by about 16 with Simpson (fourth order). */
static void test_analytic_sine_order(void **state)
{
	static const int64_t b[5] = {1120, 1280, 1520, 1760, 1920};
	const struct shape sine = {{0}, 1};
	const double dts[3] = {20, 10, 5};
	double err[2][3][3];

	(void)state;
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < 3; i++)
			charge_errors(b, &sine, dts[i], m ? INTEG_SIMPSON : INTEG_TRAPEZOID,
				      err[m][i]);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i + 1 < 3; i++) {
			double trap = log2(fabs(err[0][i][k] / err[0][i + 1][k]));
			double simp = log2(fabs(err[1][i][k] / err[1][i + 1][k]));

			print_message("call %d, dt %g -> %g: orders %.3f (trapezoid), %.3f "
				      "(Simpson)\n",
				      k, dts[i], dts[i + 1], trap, simp);
			assert_true(trap > 1.8 && trap < 2.2);
			assert_true(simp > 3.6 && simp < 4.4);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nested_ramp),		cmocka_unit_test(test_two_threads_share),
	    cmocka_unit_test(test_partial_cover),	cmocka_unit_test(test_no_overlap),
	    cmocka_unit_test(test_zero_length_call),	cmocka_unit_test(test_call_outside_run),
	    cmocka_unit_test(test_recursion_inclusive), cmocka_unit_test(test_analytic_exact),
	    cmocka_unit_test(test_analytic_sine_order),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
