/*
 * omp_syncbench.c - OpenMP synchronisation overhead in the EPCC syncbench style: the time of a
 * parallel region (PARALLEL) and of a barrier (BARRIER) whose threads each run DELAY_US of
 * work, minus that work (the reference, one thread), per region or barrier. Each test runs
 * INNER constructs per repetition, REPS repetitions; the medians are printed in ns:
 *
 *     parallel_ns N   (overhead of one parallel region)
 *     barrier_ns N    (overhead of one barrier)
 *     lock_ns N       (overhead of one omp_set_lock/omp_unset_lock pair, EPCC's LOCK/UNLOCK:
 *                      every thread takes the lock INNER / threads times around its work)
 *     region_ns N     (the whole time of one parallel region, work included)
 *
 *     omp_syncbench [DELAY_US [INNER [REPS]]]   (defaults 0.1 1000 21; OMP_NUM_THREADS)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;
static long delay_iters;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The work of one thread in one construct: DELAY_ITERS iterations of a dependent chain. */
static void delay(void)
{
	double x = 1.0;

	for (long i = 0; i < delay_iters; i++)
		x = x * 1.0000001 + 1e-9;
	if (x < 0)
		sink = x;
}

/* DELAY_ITERS such that delay() lasts US microseconds. */
static void calibrate(double us)
{
	long long t0, t;

	delay_iters = 1000;
	do {
		delay_iters *= 2;
		t0 = now_ns();
		delay();
		t = now_ns() - t0;
	} while (t < 10000000);
	delay_iters = (long)((double)delay_iters * us * 1000.0 / (double)t);
	if (delay_iters < 1)
		delay_iters = 1;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static long long median(long long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	double us = argc > 1 ? atof(argv[1]) : 0.1;
	int inner = argc > 2 ? atoi(argv[2]) : 1000, reps = argc > 3 ? atoi(argv[3]) : 21;
	long long *ref = calloc((size_t)reps, sizeof(long long)),
		  *par = calloc((size_t)reps, sizeof(long long)),
		  *bar = calloc((size_t)reps, sizeof(long long)),
		  *lck = calloc((size_t)reps, sizeof(long long)), t0;
	omp_lock_t lock;

	if (!ref || !par || !bar || !lck || inner < 1 || reps < 1)
		return 2;
	omp_init_lock(&lock);
	calibrate(us);
#pragma omp parallel
	delay(); /* the team exists before the first measurement */
	for (int r = 0; r < reps; r++) {
		t0 = now_ns();
		for (int k = 0; k < inner; k++)
			delay();
		ref[r] = now_ns() - t0;
		t0 = now_ns();
		for (int k = 0; k < inner; k++) {
#pragma omp parallel
			delay();
		}
		par[r] = now_ns() - t0;
		t0 = now_ns();
#pragma omp parallel
		for (int k = 0; k < inner; k++) {
			delay();
#pragma omp barrier
		}
		bar[r] = now_ns() - t0;
		t0 = now_ns();
#pragma omp parallel
		{
			int n = inner / omp_get_num_threads();

			for (int k = 0; k < n; k++) {
				omp_set_lock(&lock);
				delay();
				omp_unset_lock(&lock);
			}
		}
		lck[r] = now_ns() - t0;
	}
	{
		long long mref = median(ref, reps), mpar = median(par, reps),
			  mbar = median(bar, reps), mlck = median(lck, reps);

		printf("threads %d delay_us %g inner %d reps %d\n", omp_get_max_threads(), us,
		       inner, reps);
		printf("parallel_ns %lld\n", (mpar - mref) / inner);
		printf("barrier_ns %lld\n", (mbar - mref) / inner);
		printf("lock_ns %lld\n", (mlck - mref) / inner);
		printf("region_ns %lld\n", mpar / inner);
	}
	free(ref);
	free(par);
	free(bar);
	free(lck);
	omp_destroy_lock(&lock);
	return 0;
}
