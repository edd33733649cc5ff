/*
 * cancel.c - cancelled requests, on 2 ranks: what perfscope must record only when MPI
 * confirms a cancellation.
 *
 * Rank 0 starts an Isend of 64 bytes (tag 5) to rank 1, cancels it and waits for it, then
 * tells rank 1 (tag 1) whether the cancellation took effect (Open MPI's ob1 never cancels a
 * send, so it usually did not): rank 1 receives the 64 bytes only when it did not. Then rank 0
 * sends 8 bytes with tag 5, which rank 1 receives. Rank 1 finally posts an Irecv (tag 9) that
 * nobody sends to, cancels it and waits: that cancellation always takes effect.
 * Each rank prints what MPI_Test_cancelled said:
 *   rank R: isend cancelled: 0|1      (rank 0)
 *   rank R: irecv cancelled: 0|1      (rank 1)
 *
 * Build: mpicc -g examples/mpi/cancel.c -o cancel
 * Run:   perfscope record --mpi -o out -- mpirun -np 2 ./cancel
 */
#include "mpi-ex.h"

int main(int argc, char **argv)
{
	char big[64] = {0}, small[8] = {0}, in[64];
	int rank, size, cancelled = 0;
	MPI_Request q;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 cancel\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		MPI_Isend(big, 64, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &q);
		MPI_Cancel(&q);
		MPI_Wait(&q, &st);
		MPI_Test_cancelled(&st, &cancelled);
		MPI_Send(&cancelled, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Send(small, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
		printf("rank 0: isend cancelled: %d\n", cancelled);
	} else {
		MPI_Recv(&cancelled, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (!cancelled)
			MPI_Recv(in, 64, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(in, 64, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(in, 64, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &q);
		MPI_Cancel(&q);
		MPI_Wait(&q, &st);
		MPI_Test_cancelled(&st, &cancelled);
		printf("rank 1: irecv cancelled: %d\n", cancelled);
	}
	MPI_Finalize();
	return 0;
}
