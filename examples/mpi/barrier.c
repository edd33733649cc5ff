/*
 * barrier.c - ranks arriving late at a barrier by known times.
 *
 * In each iteration rank r sleeps r x STEP ms and then enters MPI_Barrier: the last rank
 * (N-1) arrives (N-1) x STEP ms after the first, and rank r waits in the barrier
 * ((N-1) - r) x STEP ms for it (Wait at Barrier), plus the wake-up latency of the sleep.
 * Over ITERS iterations rank r's expected wait is ITERS x (N-1-r) x STEP ms. One barrier
 * before the first iteration lines the ranks up (its wait is the start-up spread, not known
 * in advance); no other MPI communication.
 *
 * Options: -d STEP   delay step in ms (default 20)
 *          -n ITERS  iterations (default 3)
 *          -m PREFIX each rank writes PREFIX.<rank>: "barrier ITER -1 NS" just before each
 *                    MPI_Barrier (ITER -1: the first one) (mpi-ex.h)
 * Rank 0 prints "expected barrier wait of rank R: NS ns" for every rank (the timed
 * iterations only).
 *
 * Build: mpicc -g -O2 examples/mpi/barrier.c -o barrier
 * Run:   perfscope record --mpi -o out -- mpirun -np 4 ./barrier
 *        perfscope mpi out --waits
 */
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE "barrier [-d STEP_MS] [-n ITERS] [-m PREFIX]"

int main(int argc, char **argv)
{
	double step = 20.0;
	long iters = 3;
	int rank, size, opt;
	char *marks = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "d:n:m:")) != -1) {
		switch (opt) {
		case 'd':
			if (ex_parse_double(optarg, 0, 10000, &step))
				ex_usage_exit(rank, USAGE);
			break;
		case 'n':
			if (ex_parse_long(optarg, 1, 100000, &iters))
				ex_usage_exit(rank, USAGE);
			break;
		case 'm':
			marks = optarg;
			break;
		default:
			ex_usage_exit(rank, USAGE);
		}
	}
	if (optind != argc)
		ex_usage_exit(rank, USAGE);
	if (rank == 0) {
		printf("barrier: %d ranks, %ld iterations, step %g ms\n", size, iters, step);
		for (int r = 0; r < size; r++)
			printf("expected barrier wait of rank %d: %.0f ns\n", r,
			       (double)iters * (size - 1 - r) * step * 1e6);
		fflush(stdout);
	}
	ex_mark("barrier", -1, -1);
	MPI_Barrier(MPI_COMM_WORLD);
	for (long it = 0; it < iters; it++) {
		ex_sleep_ms(rank * step);
		ex_mark("barrier", it, -1);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (ex_marks_write(marks, rank))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
