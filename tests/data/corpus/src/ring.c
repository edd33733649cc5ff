/*
 * ring.c - a ring of late senders with known lateness.
 *
 * Rank k sends one message to rank k+1 (mod N) after sleeping a known time T_k, while rank
 * k+1 already waits for it in MPI_Recv: rank k+1 is blocked T_k by a late sender, rank k.
 * So that the waits do not add up along the ring, each iteration runs in phases separated by
 * barriers: even ranks send to their odd neighbours, then odd ranks to their even neighbours
 * (and with an odd N, rank N-1 to rank 0 in a third phase); a rank never sends and receives
 * in the same phase, and every receiver enters MPI_Recv right after the barrier, when its
 * sender starts to sleep. The expected Late Sender wait of rank k+1 for rank k is therefore
 * ITERS x T_k (plus the wake-up latency of the sleep, well under a millisecond); every other
 * pair of ranks waits nothing. The barriers themselves take waits (in collectives).
 *
 * Options: -b BASE   T_k = BASE x (k+1) ms (default 10)
 *          -t LIST   T_k = LIST[k mod len] ms, LIST comma-separated (overrides -b)
 *          -n ITERS  iterations (default 1)
 *          -s BYTES  message size (default 8)
 *          -m PREFIX each rank writes PREFIX.<rank>: "send ITER PEER NS" just before each
 *                    MPI_Send and "recv ITER PEER NS" just before each MPI_Recv (mpi-ex.h)
 * Rank 0 prints "expected wait of rank J for rank K: NS ns" for every pair of the ring.
 *
 * Build: mpicc -g -O2 examples/mpi/ring.c -o ring
 * Run:   perfscope record --mpi -o out -- mpirun -np 4 ./ring -b 10
 *        perfscope mpi out --waits
 */
#include <unistd.h>

#include "mpi-ex.h"

#define USAGE	  "ring [-b BASE_MS] [-t MS[,MS..]] [-n ITERS] [-s BYTES] [-m PREFIX]"
#define MAX_LIST  64
#define MAX_BYTES (64L << 20)

/* the phase (0, 1 or 2) in which rank r sends to r+1 */
static int send_phase(int r, int n)
{
	if (n % 2 && r == n - 1)
		return 2;
	return r % 2;
}

int main(int argc, char **argv)
{
	double base = 10.0, list[MAX_LIST], t_ms;
	int nlist = 0, rank, size, opt, it, ph, nphase;
	long iters = 1, bytes = 8, v;
	char *buf, *tok, *save, *marks = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "b:t:n:s:m:")) != -1) {
		switch (opt) {
		case 'b':
			if (ex_parse_double(optarg, 0, 60000, &base))
				ex_usage_exit(rank, USAGE);
			break;
		case 't':
			nlist = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nlist == MAX_LIST ||
				    ex_parse_double(tok, 0, 60000, &list[nlist]))
					ex_usage_exit(rank, USAGE);
				nlist++;
			}
			if (!nlist)
				ex_usage_exit(rank, USAGE);
			break;
		case 'n':
			if (ex_parse_long(optarg, 1, 1000000, &iters))
				ex_usage_exit(rank, USAGE);
			break;
		case 's':
			if (ex_parse_long(optarg, 0, MAX_BYTES, &v))
				ex_usage_exit(rank, USAGE);
			bytes = v;
			break;
		case 'm':
			marks = optarg;
			break;
		default:
			ex_usage_exit(rank, USAGE);
		}
	}
	if (optind != argc || size < 2)
		ex_usage_exit(rank, USAGE " (at least 2 ranks)");
	t_ms = nlist ? list[rank % nlist] : base * (rank + 1);
	buf = calloc(1, bytes ? (size_t)bytes : 1);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		printf("ring: %d ranks, %ld iterations, %ld bytes per message\n", size, iters,
		       bytes);
		for (int k = 0; k < size; k++) {
			double tk = nlist ? list[k % nlist] : base * (k + 1);
			printf("expected wait of rank %d for rank %d: %.0f ns\n", (k + 1) % size, k,
			       tk * 1e6 * (double)iters);
		}
		fflush(stdout);
	}
	nphase = size % 2 ? 3 : 2;
	for (it = 0; it < iters; it++) {
		for (ph = 0; ph < nphase; ph++) {
			int prev = (rank + size - 1) % size;

			MPI_Barrier(MPI_COMM_WORLD);
			if (send_phase(rank, size) == ph) {
				ex_sleep_ms(t_ms);
				ex_mark("send", it, (rank + 1) % size);
				MPI_Send(buf, (int)bytes, MPI_BYTE, (rank + 1) % size, it,
					 MPI_COMM_WORLD);
			} else if (send_phase(prev, size) == ph) {
				ex_mark("recv", it, prev);
				MPI_Recv(buf, (int)bytes, MPI_BYTE, prev, it, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			}
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(buf);
	if (ex_marks_write(marks, rank))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
