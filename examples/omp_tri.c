/*
 * omp_tri.c - an OpenMP program with a known imbalance, and known counts of everything the
 * OpenMP records show (tests/e2e/test_omp_records.sh).
 *
 * Region 1: a triangular loop (row i costs i units) divided with schedule(static) over T
 * threads; each thread measures its own share (clock_gettime around it) and the program
 * prints, per thread, its work, the wait at the region's closing barrier it expects from the
 * work alone, max(work) - own work, and the wait from the threads' arrival times at that
 * barrier, max(end) - own end (the same when the threads started together; else it also
 * holds the difference of their starts). Thread 0 also measures when it left the region: the
 * wait as it saw it, its departure minus its own end, is longer when it resumed late (it was
 * off the CPU when the last thread arrived, or a tool delayed the last arrival) and bounds
 * from above the wait a tool can see at that barrier.
 *
 * Region 2: an explicit barrier, a critical section, LOCKS lock acquisitions per thread and a
 * dynamic loop of DYN_ITERS iterations in chunks of DYN_CHUNK (DYN_ITERS / DYN_CHUNK chunks
 * over the team).
 *
 *     omp_tri [ROWS]     (OMP_NUM_THREADS sets T)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 256
#define LOCKS	    5
#define DYN_ITERS   1000
#define DYN_CHUNK   10

static double sink[MAX_THREADS * 8];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Row I of the triangle: I units of work. */
__attribute__((noinline)) static double row(int i)
{
	double x = 0;

	for (int j = 0; j < i; j++)
		x += (double)j * 1e-9 + 1.0 / (j + 1.0);
	return x;
}

/* One iteration of the dynamic loop. */
__attribute__((noinline)) static double cell(int i)
{
	return (double)i * 0.5;
}

static void triangle(int rows, long long *work, long long *end, int *nthreads, long long *left)
{
#pragma omp parallel
	{
		int me = omp_get_thread_num();
		long long t0 = now_ns();
		double x = 0;

#pragma omp for schedule(static) nowait
		for (int i = 0; i < rows; i++)
			x += row(i);
		end[me] = now_ns();
		work[me] = end[me] - t0;
		sink[me * 8] = x;
		if (me == 0)
			*nthreads = omp_get_num_threads();
	}
	*left = now_ns();
}

static void waits(omp_lock_t *lock, long *counter)
{
#pragma omp parallel
	{
		double x = 0;

#pragma omp barrier
#pragma omp critical
		(*counter)++;
		for (int k = 0; k < LOCKS; k++) {
			omp_set_lock(lock);
			(*counter)++;
			omp_unset_lock(lock);
		}
#pragma omp for schedule(dynamic, DYN_CHUNK)
		for (int i = 0; i < DYN_ITERS; i++)
			x += cell(i);
		sink[omp_get_thread_num() * 8 + 1] = x;
	}
}

int main(int argc, char **argv)
{
	int rows = argc > 1 ? atoi(argv[1]) : 20000, n = 1;
	long long work[MAX_THREADS] = {0}, end[MAX_THREADS] = {0}, max = 0, last = 0, left = 0;
	long counter = 0;
	omp_lock_t lock;

	if (omp_get_max_threads() > MAX_THREADS) {
		fprintf(stderr, "omp_tri: at most %d threads\n", MAX_THREADS);
		return 2;
	}
	triangle(rows, work, end, &n, &left);
	omp_init_lock(&lock);
	waits(&lock, &counter);
	omp_destroy_lock(&lock);
	for (int t = 0; t < n; t++) {
		max = work[t] > max ? work[t] : max;
		last = end[t] > last ? end[t] : last;
	}
	printf("threads %d rows %d regions 2 locks %d dyn_iters %d dyn_chunks %d counter %ld\n", n,
	       rows, LOCKS, DYN_ITERS, DYN_ITERS / DYN_CHUNK, counter);
	for (int t = 0; t < n; t++)
		printf("thread %d work_ns %lld expected_wait_ns %lld arrival_wait_ns %lld\n", t,
		       work[t], max - work[t], last - end[t]);
	printf("master departure_wait_ns %lld\n", left - end[0]);
	return 0;
}
