/*
 * gauss_jordan.c - matrix inversion by Gauss-Jordan elimination, one function per row
 * operation: a realistic program for a function tracer, with many calls of a few
 * microseconds each instead of fib's calls of a few nanoseconds.
 *
 * The N x N matrix A (default N = 1000) is built from a fixed linear congruential sequence:
 * off-diagonal elements in [-0.5, 0.5), diagonal elements N + 1 + a value in [0, 1), so A is
 * strictly diagonally dominant, the inversion is stable and partial pivoting never swaps
 * rows. A is augmented with the identity, [A | I], and every step k = 0 .. N-1 picks the
 * pivot, scales row k and subtracts a multiple of row k from every other row; at the end the
 * right half is the inverse. The program prints the sum of the inverse's elements and the
 * largest |(A * inverse - I)| element over four rows, both the same in every run.
 *
 * Calls per run, for size N (all of them; each function is called from main only):
 *
 *   function     calls        work per call
 *   main         1
 *   init_matrix  1            fills A, a copy of A and the identity: 3 N^2 elements
 *   find_pivot   N            scans column k below the diagonal
 *   swap_rows    0            (never: A is diagonally dominant)
 *   scale_row    N            2N - k elements
 *   row_axpy     N (N - 1)    2N - k elements (row i -= f * row k, from column k)
 *   checksum     1            sums the inverse
 *   residual     1            4 rows of A * inverse - I: 4 N^2 multiply-adds
 *
 * N = 1000: 999000 row_axpy calls of 1000 to 2000 elements (about 1 us each). N = 60 (the
 * callgrind test): 3540 calls. Build with -finstrument-functions to trace it; it needs no
 * perfscope header or library (see fib.c).
 *
 * Build: cc -O2 -g -finstrument-functions examples/gauss_jordan.c -o gauss_jordan
 * Run:   perfscope record --functions -o gj.out -- ./gauss_jordan 500 && perfscope report gj.out
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 1000
#define MAX_N	  20000

/* noipa: never inlined, cloned or specialised, so that every call is one traced call */

/* m: N rows of 2N ([A | I]); a: a copy of A (N x N) for the residual */
__attribute__((noipa)) static void init_matrix(double *m, double *a, size_t n)
{
	unsigned long long s = 88172645463325252ULL;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			double v;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			v = (double)(s >> 11) * 0x1.0p-53; /* [0, 1) */
			a[i * n + j] = i == j ? (double)n + 1 + v : v - 0.5;
		}
		memcpy(&m[i * 2 * n], &a[i * n], n * sizeof(double));
		memset(&m[i * 2 * n + n], 0, n * sizeof(double));
		m[i * 2 * n + n + i] = 1;
	}
}

/* the row r >= k with the largest |m[r][k]| */
__attribute__((noipa)) static size_t find_pivot(const double *m, size_t n, size_t k)
{
	size_t best = k;
	double big = fabs(m[k * 2 * n + k]);

	for (size_t r = k + 1; r < n; r++) {
		double v = fabs(m[r * 2 * n + k]);

		if (v > big) {
			big = v;
			best = r;
		}
	}
	return best;
}

__attribute__((noipa)) static void swap_rows(double *x, double *y, size_t len)
{
	for (size_t j = 0; j < len; j++) {
		double t = x[j];

		x[j] = y[j];
		y[j] = t;
	}
}

__attribute__((noipa)) static void scale_row(double *x, double f, size_t len)
{
	for (size_t j = 0; j < len; j++)
		x[j] *= f;
}

/* y -= f * x over len elements */
__attribute__((noipa)) static void row_axpy(double *restrict y, const double *restrict x, double f,
					    size_t len)
{
	for (size_t j = 0; j < len; j++)
		y[j] -= f * x[j];
}

__attribute__((noipa)) static double checksum(const double *m, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			s += m[i * 2 * n + n + j];
	return s;
}

/* largest |A * inverse - I| element over rows 0, n/3, 2n/3 and n-1 */
__attribute__((noipa)) static double residual(const double *m, const double *a, size_t n)
{
	size_t rows[4] = {0, n / 3, 2 * n / 3, n - 1};
	double worst = 0;

	for (int t = 0; t < 4; t++) {
		size_t i = rows[t];

		for (size_t j = 0; j < n; j++) {
			double s = i == j ? -1.0 : 0.0;

			for (size_t l = 0; l < n; l++)
				s += a[i * n + l] * m[l * 2 * n + n + j];
			if (fabs(s) > worst)
				worst = fabs(s);
		}
	}
	return worst;
}

int main(int argc, char **argv)
{
	unsigned long n = DEFAULT_N;
	double *m, *a;

	if (argc == 2) {
		char *end;

		errno = 0;
		n = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' || n < 1 || n > MAX_N)
			argc = 0;
	}
	if (argc > 2 || argc == 0) {
		fprintf(stderr, "usage: %s [N]   (matrix size, 1 to %d, default %d)\n",
			argc ? argv[0] : "gauss_jordan", MAX_N, DEFAULT_N);
		return 2;
	}
	m = malloc(2 * n * n * sizeof(double));
	a = malloc(n * n * sizeof(double));
	if (!m || !a) {
		fprintf(stderr, "gauss_jordan: cannot allocate %lu MiB\n",
			(unsigned long)(3 * n * n * sizeof(double) >> 20));
		free(m);
		free(a);
		return 1;
	}
	init_matrix(m, a, n);
	for (size_t k = 0; k < n; k++) {
		size_t p = find_pivot(m, n, k);
		double *rk = &m[k * 2 * n];

		if (p != k)
			swap_rows(&m[p * 2 * n + k], &rk[k], 2 * n - k);
		scale_row(&rk[k], 1.0 / rk[k], 2 * n - k);
		for (size_t i = 0; i < n; i++) {
			double *ri = &m[i * 2 * n];

			if (i != k)
				row_axpy(&ri[k], &rk[k], ri[k], 2 * n - k);
		}
	}
	printf("gauss_jordan: inverted a %lu x %lu matrix, %lu row operations\n", n, n,
	       n * (n - 1));
	printf("sum of the inverse's elements: %.12e\n", checksum(m, n));
	printf("max |A * inverse - I| over 4 rows: %s\n",
	       residual(m, a, n) < 1e-12 ? "below 1e-12" : "ABOVE 1e-12");
	free(m);
	free(a);
	return 0;
}
