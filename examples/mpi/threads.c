/*
 * threads.c - MPI_THREAD_MULTIPLE: two threads per rank exchange messages at the same time.
 *
 * MPI_Init_thread asks for MPI_THREAD_MULTIPLE (the program exits with 1 when the library
 * provides less). Each rank then starts 2 threads; thread t (0 or 1) does N MPI_Sendrecv with
 * tag t: it sends BYTES to rank+1 and receives from rank-1 (mod size). Tags keep the two
 * threads' messages apart, so every pair (k, k+1) carries 2N messages, all matched. The main
 * thread makes no MPI call between MPI_Init_thread and MPI_Finalize.
 *
 * Options: -n N      Sendrecv calls per thread (default 100)
 *          -s BYTES  message size (default 8)
 *          -w MS     before the threads start, rank 0 busy-spins MS ms (its own CPU share
 *                    near 1) while the other ranks sleep MS ms (near 0), outside MPI
 *                    (default 0; test_mpi_launch checks the load sampler's values with it)
 *
 * Build: mpicc -g -O2 -pthread examples/mpi/threads.c -o threads
 * Run:   perfscope record --mpi -o out -- mpirun -np 4 ./threads -n 100
 *        perfscope mpi out --traffic
 */
#include <pthread.h>
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE	  "threads [-n N] [-s BYTES] [-w MS]"
#define NTHREADS  2
#define MAX_BYTES (1L << 20)

struct worker {
	int tag, rank, size;
	long n, bytes;
};

/* one thread's exchanges around the ring, with its own tag */
static void *worker_run(void *arg)
{
	const struct worker *w = arg;
	char *out = calloc(1, (size_t)w->bytes), *in = calloc(1, (size_t)w->bytes);
	int right = (w->rank + 1) % w->size, left = (w->rank + w->size - 1) % w->size;
	long i;

	if (!out || !in) {
		fprintf(stderr, "threads: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < w->n; i++)
		MPI_Sendrecv(out, (int)w->bytes, MPI_BYTE, right, w->tag, in, (int)w->bytes,
			     MPI_BYTE, left, w->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	free(out);
	free(in);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[NTHREADS];
	pthread_t tid[NTHREADS];
	int provided, rank, size, opt, t;
	long n = 100, bytes = 8;
	double wait_ms = 0;
	int64_t end;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "n:s:w:")) != -1) {
		switch (opt) {
		case 'n':
			if (ex_parse_long(optarg, 1, 1000000, &n))
				ex_usage_exit(rank, USAGE);
			break;
		case 's':
			if (ex_parse_long(optarg, 1, MAX_BYTES, &bytes))
				ex_usage_exit(rank, USAGE);
			break;
		case 'w':
			if (ex_parse_double(optarg, 0, 60000, &wait_ms))
				ex_usage_exit(rank, USAGE);
			break;
		default:
			ex_usage_exit(rank, USAGE);
		}
	}
	if (provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided (level %d)\n",
				provided);
		MPI_Finalize();
		return 1;
	}
	if (rank == 0) {
		end = ex_now_ns() + (int64_t)(wait_ms * 1e6);
		while (ex_now_ns() < end)
			;
	} else {
		ex_sleep_ms(wait_ms);
	}
	for (t = 0; t < NTHREADS; t++) {
		w[t] =
		    (struct worker){.tag = t, .rank = rank, .size = size, .n = n, .bytes = bytes};
		if (pthread_create(&tid[t], NULL, worker_run, &w[t])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	for (t = 0; t < NTHREADS; t++)
		pthread_join(tid[t], NULL);
	MPI_Finalize();
	return 0;
}
