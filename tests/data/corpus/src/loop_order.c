/*
 * loop_order.c - the classic cache-miss experiment: sum an N x N matrix of doubles by rows,
 * then by columns.
 *
 * C stores a matrix row after row. Summing by rows walks memory with stride 8 bytes: every
 * 64-byte cache line brings 8 useful doubles and the hardware prefetcher sees a plain
 * stream. Summing by columns walks with stride 8 x N bytes: every access touches a new cache
 * line (and, for N >= 512, a new 4 KiB page), so once the matrix is larger than the caches
 * almost every access is a cache miss and many are TLB misses. Both loops do the same
 * N x N additions and give the same sum; only the order differs.
 *
 * Build: cc -O2 -DPERFSCOPE -Iinclude examples/loop_order.c -o loop_order -lperfscope
 * Run:   perfscope record -e cache-misses,dTLB-load-misses -o out -- ./loop_order 2048
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perfscope.h"

#define DEFAULT_N 2048L
#define MAX_N	  32768L /* 8 GiB of doubles */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [N]   (N from 1 to %ld, default %ld)\n", prog, MAX_N, DEFAULT_N);
}

static double sum_rows(const double *a, size_t n)
{
	double s = 0.0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			s += a[i * n + j];
	return s;
}

static double sum_cols(const double *a, size_t n)
{
	double s = 0.0;
	size_t i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			s += a[i * n + j];
	return s;
}

int main(int argc, char **argv)
{
	long n = DEFAULT_N;
	double *a, s_rows, s_cols, t0, t_rows, t_cols;
	size_t i, nn;

	if (argc > 2) {
		usage(argv[0]);
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		n = strtol(argv[1], &end, 10);
		if (errno != 0 || end == argv[1] || *end != '\0' || n < 1 || n > MAX_N) {
			usage(argv[0]);
			return 2;
		}
	}

	nn = (size_t)n * (size_t)n;
	a = malloc(nn * sizeof(*a));
	if (a == NULL) {
		fprintf(stderr, "%s: cannot allocate %zu bytes\n", argv[0], nn * sizeof(*a));
		return 1;
	}
	/* Small integers: every partial sum is exact, so both orders give the same sum. */
	for (i = 0; i < nn; i++)
		a[i] = (double)(i % 7);

	printf("loop_order: %ld x %ld doubles (%.1f MiB), summed by rows then by columns\n", n, n,
	       (double)(nn * sizeof(*a)) / (1024.0 * 1024.0));

	t0 = now_s();
	PSC_REGION_BEGIN("rows");
	s_rows = sum_rows(a, (size_t)n);
	PSC_REGION_END("rows");
	t_rows = now_s() - t0;

	t0 = now_s();
	PSC_REGION_BEGIN("cols");
	s_cols = sum_cols(a, (size_t)n);
	PSC_REGION_END("cols");
	t_cols = now_s() - t0;

	printf("rows: sum %.0f  %10.3f ms  %6.2f ns/element\n", s_rows, 1e3 * t_rows,
	       1e9 * t_rows / (double)nn);
	printf("cols: sum %.0f  %10.3f ms  %6.2f ns/element\n", s_cols, 1e3 * t_cols,
	       1e9 * t_cols / (double)nn);
	printf("cols / rows time: %.1f\n", t_rows > 0.0 ? t_cols / t_rows : 0.0);
	printf("expected cache lines loaded: rows about %zu (N*N/8), cols up to %zu (N*N) when "
	       "the matrix is larger than the last-level cache\n",
	       nn / 8, nn);
	printf("expected page faults in region rows: 0\n");
	printf("expected page faults in region cols: 0\n");

	free(a);
	return s_rows == s_cols ? 0 : 1;
}
