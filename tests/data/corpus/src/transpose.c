/*
 * transpose.c - transpose-add b[i][j] = a[i][j] + a[j][i] in three variants over growing sizes.
 *
 * a[i][j] is read along a row (stride 8 bytes), a[j][i] down a column (stride 8 x N bytes),
 * so one of the two reads misses the cache on every element once a few columns of cache
 * lines no longer fit, and the TLB once N x 8 bytes exceeds a page:
 *   plain     the two loops as written;
 *   unroll4   the j loop unrolled by 4: fewer loop branches, same memory order, so about
 *             the same speed when the loop is bound by the column reads;
 *   block2x2  2 x 2 blocks: each cache line fetched down a column is used for two
 *             elements instead of one, so about half the misses of plain.
 * Every variant runs over each size (default 256 512 1024 2048) in its own region named
 * "VARIANT/N", e.g. "plain/1024"; the table gives the best time per element.
 *
 * Build: cc -O2 -DPERFSCOPE -Iinclude examples/transpose.c -o transpose -lperfscope
 * Run:   perfscope record -e cache-misses,dTLB-load-misses -o out -- ./transpose
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfscope.h"

#define MAX_SIZES 32
#define MAX_N	  16384L     /* 2 GiB per matrix */
#define MIN_WORK  (1L << 22) /* elements per variant and size: repeat small sizes */

typedef void (*variant_fn)(double *restrict b, const double *restrict a, size_t n);

static void plain(double *restrict b, const double *restrict a, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			b[i * n + j] = a[i * n + j] + a[j * n + i];
}

static void unroll4(double *restrict b, const double *restrict a, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j + 4 <= n; j += 4) {
			b[i * n + j] = a[i * n + j] + a[j * n + i];
			b[i * n + j + 1] = a[i * n + j + 1] + a[(j + 1) * n + i];
			b[i * n + j + 2] = a[i * n + j + 2] + a[(j + 2) * n + i];
			b[i * n + j + 3] = a[i * n + j + 3] + a[(j + 3) * n + i];
		}
		for (; j < n; j++)
			b[i * n + j] = a[i * n + j] + a[j * n + i];
	}
}

static void block2x2(double *restrict b, const double *restrict a, size_t n)
{
	size_t i, j, m = n & ~(size_t)1;

	for (i = 0; i < m; i += 2) {
		for (j = 0; j < m; j += 2) {
			b[i * n + j] = a[i * n + j] + a[j * n + i];
			b[i * n + j + 1] = a[i * n + j + 1] + a[(j + 1) * n + i];
			b[(i + 1) * n + j] = a[(i + 1) * n + j] + a[j * n + i + 1];
			b[(i + 1) * n + j + 1] = a[(i + 1) * n + j + 1] + a[(j + 1) * n + i + 1];
		}
	}
	/* Odd n: last column of the even rows, then the whole last row. */
	if (m < n) {
		for (i = 0; i < m; i++)
			b[i * n + m] = a[i * n + m] + a[m * n + i];
		for (j = 0; j < n; j++)
			b[m * n + j] = a[m * n + j] + a[j * n + m];
	}
}

static const struct {
	const char *name;
	variant_fn fn;
} variants[] = {
    {"plain", plain},
    {"unroll4", unroll4},
    {"block2x2", block2x2},
};

#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [N...]   (sizes from 1 to %ld, default 256 512 1024 2048)\n",
		prog, MAX_N);
}

/* Position-weighted sum of b (exact: small integers), to check that every variant computed
 * the same matrix. */
static double checksum(const double *b, size_t nn)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < nn; i++)
		s += b[i] * (double)(i % 13);
	return s;
}

int main(int argc, char **argv)
{
	long sizes[MAX_SIZES] = {256, 512, 1024, 2048};
	int nsizes = 4, s, v;
	double best[MAX_SIZES][NVARIANTS];
	int ok = 1;

	if (argc > 1) {
		if (argc - 1 > MAX_SIZES) {
			usage(argv[0]);
			return 2;
		}
		nsizes = argc - 1;
		for (s = 0; s < nsizes; s++) {
			char *end;

			errno = 0;
			sizes[s] = strtol(argv[s + 1], &end, 10);
			if (errno != 0 || end == argv[s + 1] || *end != '\0' || sizes[s] < 1 ||
			    sizes[s] > MAX_N) {
				usage(argv[0]);
				return 2;
			}
		}
	}

	printf("transpose: b[i][j] = a[i][j] + a[j][i], %d variants x %d sizes\n", NVARIANTS,
	       nsizes);

	for (s = 0; s < nsizes; s++) {
		size_t n = (size_t)sizes[s], nn = n * n, i;
		long reps = MIN_WORK / (long)nn, r;
		double *a, *b, ref = 0.0;

		if (reps < 1)
			reps = 1;
		a = malloc(nn * sizeof(*a));
		b = malloc(nn * sizeof(*b));
		if (a == NULL || b == NULL) {
			fprintf(stderr, "%s: cannot allocate two %zu x %zu matrices\n", argv[0], n,
				n);
			free(a);
			free(b);
			return 1;
		}
		/* Small integers: sums are exact, so checksums compare equal. Touch b too, so
		 * that no variant pays the page faults of the first write. */
		for (i = 0; i < nn; i++) {
			a[i] = (double)(i % 5);
			b[i] = 0.0;
		}

		for (v = 0; v < NVARIANTS; v++) {
#ifdef PERFSCOPE
			char name[64];
			int id;

			snprintf(name, sizeof(name), "%s/%zu", variants[v].name, n);
			id = psc_region_id(name);
#endif
			memset(b, 0, nn * sizeof(*b));
			best[s][v] = -1.0;
			for (r = 0; r < reps; r++) {
				double t0 = now_ns(), t;

#ifdef PERFSCOPE
				if (id >= 0)
					psc_region_begin_id(id);
#endif
				variants[v].fn(b, a, n);
#ifdef PERFSCOPE
				if (id >= 0)
					psc_region_end_id(id);
#endif
				t = now_ns() - t0;
				if (best[s][v] < 0.0 || t < best[s][v])
					best[s][v] = t;
			}
			best[s][v] /= (double)nn;
			if (v == 0)
				ref = checksum(b, nn);
			else if (checksum(b, nn) != ref)
				ok = 0;
		}
		printf("size %5zu: %ld repetition(s) per variant, matrices of %.1f MiB\n", n, reps,
		       (double)(nn * sizeof(*a)) / (1024.0 * 1024.0));
		free(a);
		free(b);
	}

	printf("\nns per element (best repetition)\n%8s", "N");
	for (v = 0; v < NVARIANTS; v++)
		printf(" %10s", variants[v].name);
	printf("\n");
	for (s = 0; s < nsizes; s++) {
		printf("%8ld", sizes[s]);
		for (v = 0; v < NVARIANTS; v++)
			printf(" %10.2f", best[s][v]);
		printf("\n");
	}
	printf("results of all variants %s\n", ok ? "agree" : "DIFFER");
	printf("expected page faults in every region: 0 (both matrices are touched before)\n");
	return ok ? 0 : 1;
}
