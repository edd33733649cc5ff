/*
 * pingpong.c - 0-byte ping-pong between ranks 0 and 1: the latency of the MPI path, and with
 * it what a wrapper adds to each call.
 *
 * Rank 0 sends an empty message to rank 1 and receives one back, ITERS times per block;
 * rank 1 mirrors it. Each iteration is one MPI_Send and one MPI_Recv on each of the two
 * ranks. After WARMUP untimed iterations rank 0 times BLOCKS blocks with CLOCK_MONOTONIC and
 * prints the median over the blocks of the half round trip (block time / (2 x ITERS)), then
 * the minimum and maximum:
 *   median half round trip: NS ns (min NS, max NS, BLOCKS blocks of ITERS)
 * Ranks beyond 1 only take part in MPI_Init and MPI_Finalize.
 *
 * Options: -n ITERS   iterations per block (default 20000)
 *          -b BLOCKS  timed blocks (default 15)
 *          -w WARMUP  untimed iterations first (default 5000)
 *
 * Build: mpicc -g -O2 examples/mpi/pingpong.c -o pingpong
 * Run:   mpirun -np 2 ./pingpong
 *        perfscope record --mpi -o out -- mpirun -np 2 ./pingpong
 */
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE "pingpong [-n ITERS] [-b BLOCKS] [-w WARMUP]"

static void pingpong(int rank, long iters)
{
	char c = 0;

	for (long i = 0; i < iters; i++) {
		if (rank == 0) {
			MPI_Send(&c, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&c, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&c, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&c, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long iters = 20000, blocks = 15, warmup = 5000;
	int rank, size, opt;
	double *half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "n:b:w:")) != -1) {
		switch (opt) {
		case 'n':
			if (ex_parse_long(optarg, 1, 100000000, &iters))
				ex_usage_exit(rank, USAGE);
			break;
		case 'b':
			if (ex_parse_long(optarg, 1, 10000, &blocks))
				ex_usage_exit(rank, USAGE);
			break;
		case 'w':
			if (ex_parse_long(optarg, 0, 100000000, &warmup))
				ex_usage_exit(rank, USAGE);
			break;
		default:
			ex_usage_exit(rank, USAGE);
		}
	}
	if (optind != argc || size < 2)
		ex_usage_exit(rank, USAGE " (at least 2 ranks)");
	half = calloc((size_t)blocks, sizeof(*half));
	if (!half)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank < 2) {
		pingpong(rank, warmup);
		for (long b = 0; b < blocks; b++) {
			int64_t t0 = ex_now_ns();

			pingpong(rank, iters);
			half[b] = (double)(ex_now_ns() - t0) / (2.0 * (double)iters);
		}
	}
	if (rank == 0) {
		qsort(half, (size_t)blocks, sizeof(*half), cmp_double);
		printf("median half round trip: %.1f ns (min %.1f, max %.1f, %ld blocks of %ld)\n",
		       blocks % 2 ? half[blocks / 2]
				  : (half[blocks / 2 - 1] + half[blocks / 2]) / 2,
		       half[0], half[blocks - 1], blocks, iters);
	}
	free(half);
	MPI_Finalize();
	return 0;
}
