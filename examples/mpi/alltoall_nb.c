/*
 * alltoall_nb.c - a non-blocking all-to-all (the classic MPI_Alltoallv replacement) with
 * three late ranks.
 *
 * Each iteration, every rank posts MPI_Irecv from every other rank in rank order, sleeps
 * its delay (0 unless it is one of the late ranks), posts MPI_Isend to every other rank in
 * rank order and completes all of them with one MPI_Waitall. A rank's Waitall can only end
 * once the latest sender has sent, so rank r waits ITERS x (D_max - D_r) in all, where D_r is
 * its own delay and D_max the largest: the waits point at the late ranks. Messages are
 * BYTES bytes (default 1024, under the shared-memory eager limit, so that sends complete
 * without the receiver); every ordered pair of ranks exchanges ITERS messages. A barrier
 * separates iterations.
 *
 * Options: -l R:MS[,R:MS..]  late ranks and their delays (default 1:20,2:40,3:60; ranks that
 *                            do not exist are ignored)
 *          -n ITERS          iterations (default 2)
 *          -s BYTES          message size (default 1024)
 *          -m PREFIX         each rank writes PREFIX.<rank>: "isend ITER -1 NS" just before
 *                            its first MPI_Isend and "waitall ITER -1 NS" just before
 *                            MPI_Waitall, in each iteration (mpi-ex.h)
 * Rank 0 prints "late rank R: MS ms" and "expected total wait of rank R: NS ns".
 *
 * Build: mpicc -g -O2 examples/mpi/alltoall_nb.c -o alltoall_nb
 * Run:   perfscope record --mpi -o out -- mpirun -np 6 ./alltoall_nb
 *        perfscope mpi out --waits --traffic
 */
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE	  "alltoall_nb [-l RANK:MS[,RANK:MS..]] [-n ITERS] [-s BYTES] [-m PREFIX]"
#define MAX_BYTES (16L << 20)

/* parse "R:MS,R:MS" into delay[] (size entries, ms); -1 on a malformed list */
static int parse_late(char *s, double *delay, int size)
{
	char *tok, *save, *colon;
	long r;
	double ms;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return -1;
		*colon = 0;
		if (ex_parse_long(tok, 0, 1 << 20, &r) || ex_parse_double(colon + 1, 0, 60000, &ms))
			return -1;
		if (r < size)
			delay[r] = ms;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char def_late[] = "1:20,2:40,3:60";
	char *late = def_late, *sbuf, *rbuf, *marks = NULL;
	double *delay, dmax = 0;
	long iters = 2, bytes = 1024;
	int rank, size, opt, n;
	MPI_Request *req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	delay = calloc((size_t)size, sizeof(*delay));
	req = calloc(2 * (size_t)size, sizeof(*req));
	if (!delay || !req)
		MPI_Abort(MPI_COMM_WORLD, 1);
	while ((opt = getopt(argc, argv, "l:n:s:m:")) != -1) {
		switch (opt) {
		case 'l':
			late = optarg;
			break;
		case 'n':
			if (ex_parse_long(optarg, 1, 100000, &iters))
				ex_usage_exit(rank, USAGE);
			break;
		case 's':
			if (ex_parse_long(optarg, 0, MAX_BYTES, &bytes))
				ex_usage_exit(rank, USAGE);
			break;
		case 'm':
			marks = optarg;
			break;
		default:
			ex_usage_exit(rank, USAGE);
		}
	}
	if (optind != argc || parse_late(late, delay, size))
		ex_usage_exit(rank, USAGE);
	for (int r = 0; r < size; r++)
		dmax = delay[r] > dmax ? delay[r] : dmax;
	sbuf = calloc((size_t)size, bytes ? (size_t)bytes : 1);
	rbuf = calloc((size_t)size, bytes ? (size_t)bytes : 1);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		printf("alltoall_nb: %d ranks, %ld iterations, %ld bytes per message\n", size,
		       iters, bytes);
		for (int r = 0; r < size; r++)
			if (delay[r] > 0)
				printf("late rank %d: %g ms\n", r, delay[r]);
		for (int r = 0; r < size; r++)
			printf("expected total wait of rank %d: %.0f ns\n", r,
			       (double)iters * (dmax - delay[r]) * 1e6);
		fflush(stdout);
	}
	for (long it = 0; it < iters; it++) {
		MPI_Barrier(MPI_COMM_WORLD);
		n = 0;
		for (int r = 0; r < size; r++)
			if (r != rank)
				MPI_Irecv(rbuf + (size_t)r * bytes, (int)bytes, MPI_BYTE, r,
					  (int)it, MPI_COMM_WORLD, &req[n++]);
		ex_sleep_ms(delay[rank]);
		ex_mark("isend", it, -1);
		for (int r = 0; r < size; r++)
			if (r != rank)
				MPI_Isend(sbuf + (size_t)r * bytes, (int)bytes, MPI_BYTE, r,
					  (int)it, MPI_COMM_WORLD, &req[n++]);
		ex_mark("waitall", it, -1);
		MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (ex_marks_write(marks, rank))
		MPI_Abort(MPI_COMM_WORLD, 1);
	free(sbuf);
	free(rbuf);
	free(req);
	free(delay);
	MPI_Finalize();
	return 0;
}
