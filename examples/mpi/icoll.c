/*
 * icoll.c - a non-blocking collective started late by one rank.
 *
 * After a barrier that lines the ranks up, in each iteration every rank but LATE starts
 * MPI_Iallreduce at once and then waits for it in MPI_Wait; rank LATE sleeps DELAY ms first.
 * The others cannot complete the reduction before LATE has started it, so each waits about
 * DELAY ms in its MPI_Wait (plus the wake-up latency of the sleep): perfscope charges that to
 * the collective column of the wait matrix (Wait at N x N), at the MPI_Wait. Rank LATE's own
 * MPI_Wait waits for nobody. No point-to-point messages.
 *
 * Options: -d DELAY  ms rank LATE starts late (default 40)
 *          -l LATE   the late rank (default the last)
 *          -n ITERS  iterations (default 2)
 *          -m PREFIX each rank writes PREFIX.<rank> (mpi-ex.h): "iallreduce ITER -1 NS" just
 *                    before each MPI_Iallreduce and "wait ITER -1 NS" before its MPI_Wait
 * Rank 0 prints "expected wait of rank R: NS ns" for every rank.
 *
 * Build: mpicc -g -O2 examples/mpi/icoll.c -o icoll
 * Run:   perfscope record --mpi -o out -- mpirun -np 4 ./icoll
 *        perfscope mpi out --waits
 */
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE "icoll [-d DELAY_MS] [-l LATE] [-n ITERS] [-m PREFIX]"

int main(int argc, char **argv)
{
	double delay = 40.0;
	long iters = 2, late = -1;
	int rank, size, opt;
	char *marks = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "d:l:n:m:")) != -1) {
		switch (opt) {
		case 'd':
			if (ex_parse_double(optarg, 0, 10000, &delay))
				ex_usage_exit(rank, USAGE);
			break;
		case 'l':
			if (ex_parse_long(optarg, 0, size - 1, &late))
				ex_usage_exit(rank, USAGE);
			break;
		case 'n':
			if (ex_parse_long(optarg, 1, 1000, &iters))
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
	if (late < 0)
		late = size - 1;
	if (rank == 0) {
		printf(
		    "icoll: %d ranks, rank %ld starts MPI_Iallreduce %g ms late, %ld iterations\n",
		    size, late, delay, iters);
		for (int r = 0; r < size; r++)
			printf("expected wait of rank %d: %.0f ns\n", r,
			       r == late ? 0.0 : (double)iters * delay * 1e6);
		fflush(stdout);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (long it = 0; it < iters; it++) {
		double in = rank + 1.0, out = 0;
		MPI_Request req;

		if (rank == late)
			ex_sleep_ms(delay);
		ex_mark("iallreduce", it, -1);
		MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
		ex_mark("wait", it, -1);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (out != size * (size + 1) / 2.0) {
			fprintf(stderr, "rank %d: sum %g\n", rank, out);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	if (ex_marks_write(marks, rank))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
