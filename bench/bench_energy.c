/*
 * bench_energy.c - speed of the energy integration (src/analysis/energy/integrate.c): preparing S(t)
 * of one channel, then S at the boundary times of a timeline, in increasing order, as the
 * energy attribution asks for them. Target (issue "Energy"): >= 50 M samples/s per core.
 *
 * Series: N samples (default 13.6 M) of a synthetic power trace (a sine plus noise),
 *   fixed   a fixed rate (no time array: t0 + i * dt), dt 100 us
 *   uneven  a time array, the same times jittered by up to +-30 % of dt
 * Methods: trapezoid and Simpson. Queries: Q boundary times (default 80000 and 2000000)
 * spread over the span, increasing, each at a random place between two samples, one hint.
 *
 * One measurement = power_integral_init + Q x power_integral_at (the arrays are fresh memory
 * every time, as in a report run: their page faults are part of it); release is not timed.
 * Every configuration runs REPS times, interleaved (repetition 1 of each, then 2, ...), and
 * the median is reported as N / time in samples/s, with the init and query parts apart.
 *
 *   bench_energy [--n N] [--reps R] [--queries Q1,Q2,...] [--cpu C]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/energy/integrate.h"

#define MAX_REPS    101
#define MAX_QUERIES 8

struct config {
	const char *series;
	int uneven;
	enum integ_method method;
	size_t nq;
	double init_s[MAX_REPS], query_s[MAX_REPS], total_s[MAX_REPS];
};

static volatile double sink;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * 0x1.0p-53;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_REPS];

	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Q increasing boundary times over the span of PS, one in each of Q equal slices. */
static double *make_queries(const struct power_series *ps, size_t q)
{
	double *tq = malloc(q * sizeof(*tq)), tf = power_time(ps, 0);
	double slice = (power_time(ps, ps->n - 1) - tf) / (double)q;

	if (!tq)
		return NULL;
	for (size_t j = 0; j < q; j++)
		tq[j] = tf + slice * ((double)j + rnd());
	return tq;
}

static int run_one(struct config *c, const struct power_series *ps, const double *tq, int rep)
{
	struct power_integral pi;
	double t0, t1, t2, acc = 0;
	size_t hint = 0;
	int err;

	t0 = now();
	err = power_integral_init(&pi, ps, 0, c->method);
	if (err)
		return err;
	t1 = now();
	for (size_t j = 0; j < c->nq; j++)
		acc += power_integral_at(&pi, tq[j], &hint);
	t2 = now();
	sink = acc + power_integral_total(&pi);
	power_integral_release(&pi);
	c->init_s[rep] = t1 - t0;
	c->query_s[rep] = t2 - t1;
	c->total_s[rep] = t2 - t0;
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 13600000, nqs[MAX_QUERIES] = {80000, 2000000}, nnq = 2, i, k;
	int reps = 5, cpu = -1, rep;
	struct power_series fixed, uneven;
	struct power_channel ch;
	struct config cfg[2 * 2 * MAX_QUERIES];
	double *tq[2][MAX_QUERIES], dt = 1e5;
	size_t ncfg = 0;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < (size_t)argc) {
			n = (size_t)atof(argv[++i]);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < (size_t)argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < (size_t)argc) {
			cpu = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--queries") && i + 1 < (size_t)argc) {
			char *s = argv[++i], *end;

			for (nnq = 0; nnq < MAX_QUERIES && *s; s = *end ? end + 1 : end)
				nqs[nnq++] = (size_t)strtod(s, &end);
		} else {
			fprintf(stderr,
				"usage: %s [--n N] [--reps R] [--queries Q1,Q2,..] [--cpu C]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 2 || reps < 1 || reps > MAX_REPS || nnq == 0) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("sched_setaffinity");
	}

	/* one channel shared by both series: 50 W, a 30 W swing of period 7 s, 2 W of noise */
	memset(&ch, 0, sizeof(ch));
	ch.name = "power";
	ch.kind = POWER_WATTS;
	ch.advancing = 1;
	ch.v = malloc(n * sizeof(double));
	memset(&fixed, 0, sizeof(fixed));
	fixed.n = n;
	fixed.t0 = 1.2345678e14;
	fixed.dt = dt;
	fixed.ch = &ch;
	fixed.nch = 1;
	uneven = fixed;
	uneven.t = malloc(n * sizeof(double));
	if (!ch.v || !uneven.t) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		double t = fixed.t0 + (double)i * dt;

		ch.v[i] = 50 + 30 * sin((double)i * dt * 1e-9 * 2 * M_PI / 7) + 2 * rnd();
		uneven.t[i] = t + (i ? 0.6 * (rnd() - 0.5) * dt : 0);
	}
	for (k = 0; k < nnq; k++) {
		tq[0][k] = make_queries(&fixed, nqs[k]);
		tq[1][k] = make_queries(&uneven, nqs[k]);
		if (!tq[0][k] || !tq[1][k]) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
	}
	for (int u = 0; u <= 1; u++)
		for (int m = INTEG_TRAPEZOID; m <= INTEG_SIMPSON; m++)
			for (k = 0; k < nnq; k++) {
				cfg[ncfg] = (struct config){.series = u ? "uneven" : "fixed",
							    .uneven = u,
							    .method = m,
							    .nq = nqs[k]};
				ncfg++;
			}

	printf("samples %zu, %d runs per configuration, interleaved; medians\n", n, reps);
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < ncfg; i++) {
			struct config *c = &cfg[i];
			size_t qk = 0;
			int err;

			while (nqs[qk] != c->nq)
				qk++;
			err = run_one(c, c->uneven ? &uneven : &fixed, tq[c->uneven][qk], rep);
			if (err) {
				fprintf(stderr, "power_integral_init: %s\n", strerror(-err));
				return 1;
			}
		}

	printf("%-7s %-9s %9s %10s %10s %10s %12s %10s\n", "series", "method", "queries", "init ms",
	       "query ms", "total ms", "samples/s", "ns/query");
	for (i = 0; i < ncfg; i++) {
		struct config *c = &cfg[i];
		double ti = median(c->init_s, reps), tqm = median(c->query_s, reps);
		double tt = median(c->total_s, reps);

		printf("%-7s %-9s %9zu %10.1f %10.1f %10.1f %12.3e %10.1f\n", c->series,
		       c->method == INTEG_SIMPSON ? "simpson" : "trapezoid", c->nq, ti * 1e3,
		       tqm * 1e3, tt * 1e3, (double)n / tt, tqm * 1e9 / (double)c->nq);
	}
	for (k = 0; k < nnq; k++) {
		free(tq[0][k]);
		free(tq[1][k]);
	}
	free(uneven.t);
	free(ch.v);
	return 0;
}
