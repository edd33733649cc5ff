/*
 * omp_recbench.c - the cost of two OpenMP records written by a libgomp wrapper (omp_rec, the
 * runtime's inline path) against two records written through the exported psc_rt_record
 * (rt-mpi.h, what libperfscope-mpi.so uses): GOMP_taskwait outside any region is a wait the
 * wrapper records (begin and end) around a real call that returns at once. Best of 7 rounds
 * of N calls, in ns per call:
 *
 *     PERFSCOPE_OUT=DIR omp_recbench [N]                       (both recorded)
 *     PERFSCOPE_OPENMP=0 PERFSCOPE_OUT=DIR omp_recbench [N]    (the wrapper passes through)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void psc_rt_record(unsigned type, uint32_t arg, const uint64_t *payload, size_t nwords);
void GOMP_taskwait(void);

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000000;
	long long best_rt = -1, best_omp = -1, t0, t;
	const uint64_t payload[2] = {1, 0};

	for (int r = 0; r < 7; r++) {
		t0 = now_ns();
		for (int i = 0; i < n; i++) {
			psc_rt_record(25, 8, payload, 2); /* OpenMP wait begin, taskwait */
			psc_rt_record(26, 8, NULL, 0);
		}
		t = now_ns() - t0;
		best_rt = best_rt < 0 || t < best_rt ? t : best_rt;
		t0 = now_ns();
		for (int i = 0; i < n; i++)
			GOMP_taskwait();
		t = now_ns() - t0;
		best_omp = best_omp < 0 || t < best_omp ? t : best_omp;
	}
	printf("psc_rt_record_pair_ns %.1f\n", (double)best_rt / n);
	printf("gomp_taskwait_ns %.1f\n", (double)best_omp / n);
	return 0;
}
