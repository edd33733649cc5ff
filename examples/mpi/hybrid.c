/*
 * hybrid.c - MPI + OpenMP: each rank runs ITERS rounds of an OpenMP parallel loop whose
 * iterations cost more on higher threads (a triangle, so threads arrive at the region's closing
 * barrier apart) and more on higher ranks (so ranks arrive at the MPI_Allreduce that ends
 * each round apart), under MPI_THREAD_FUNNELED.
 *
 * It measures its own truth: each thread notes when it arrives at the closing barrier of each
 * round, and each rank prints, per thread, the barrier wait those arrivals imply (the team's
 * last arrival minus its own, summed over the rounds):
 *   rank R thread T arrival_wait_ns NS
 * and the rounds and threads it ran ("rank R threads T iters N").
 *
 * Usage: hybrid [-n ITERS] [-r ROWS]   (defaults 4, 4000)
 */
#include "mpi-ex.h"

#include <omp.h>

#define MAX_THREADS 64

static volatile double sink[MAX_THREADS * 8];

/* The cost of row I: more for later rows (i's share of the triangle), more on later ranks. */
static double row(int i, int rank)
{
	double x = 0;

	for (int k = 0; k < (i + 1) * (rank + 1); k++)
		x += (double)k * 0.5;
	return x;
}

/* One round: the rows split statically over the team; END[t] when thread t arrived at the
 * region's closing barrier. */
static void round_of(int rows, int rank, int64_t *end)
{
#pragma omp parallel
	{
		int me = omp_get_thread_num();
		double x = 0;

#pragma omp for schedule(static) nowait
		for (int i = 0; i < rows; i++)
			x += row(i, rank);
		sink[me * 8] = x;
		end[me] = ex_now_ns();
	}
}

int main(int argc, char **argv)
{
	long iters = 4, rows = 4000;
	int provided, rank, n = omp_get_max_threads();
	int64_t end[MAX_THREADS], wait[MAX_THREADS] = {0};
	double local = 1, sum;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 1; i < argc; i++) {
		long *v = !strcmp(argv[i], "-n") ? &iters : !strcmp(argv[i], "-r") ? &rows : NULL;

		if (!v || i + 1 >= argc || ex_parse_long(argv[++i], 1, 1000000, v) || n > MAX_THREADS) {
			if (rank == 0)
				fprintf(stderr, "usage: hybrid [-n ITERS] [-r ROWS] (at most %d threads)\n",
					MAX_THREADS);
			MPI_Finalize();
			return 2;
		}
	}
	for (long it = 0; it < iters; it++) {
		int64_t last = 0;

		round_of((int)rows, rank, end);
		for (int t = 0; t < n; t++)
			last = end[t] > last ? end[t] : last;
		for (int t = 0; t < n; t++)
			wait[t] += last - end[t];
		MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	printf("rank %d threads %d iters %ld\n", rank, n, iters);
	for (int t = 0; t < n; t++)
		printf("rank %d thread %d arrival_wait_ns %lld\n", rank, t, (long long)wait[t]);
	MPI_Finalize();
	return 0;
}
