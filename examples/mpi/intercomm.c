/*
 * intercomm.c - a broadcast over an intercommunicator, on 4 ranks: the even world ranks form
 * one group, the odd ones the other (MPI_Comm_split, then MPI_Intercomm_create). World rank 0
 * broadcasts 8 ints (32 bytes) to the odd group: it passes MPI_ROOT, world rank 2 (the rest
 * of the root's group, which takes no part in the transfer) MPI_PROC_NULL, the odd ranks the
 * root's rank in the remote group, 0. Each rank prints what it passed and the bytes it holds:
 *   rank R: root ROOT, received N bytes
 *
 * Build: mpicc -g examples/mpi/intercomm.c -o intercomm
 * Run:   perfscope record --mpi -o out -- mpirun -np 4 ./intercomm
 */
#include "mpi-ex.h"

int main(int argc, char **argv)
{
	int rank, size, root, data[8] = {0};
	MPI_Comm half, inter;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 4 intercomm\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	/* local leader: each group's rank 0; remote leader: the other group's, in world */
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter);
	if (rank == 0) {
		for (int i = 0; i < 8; i++)
			data[i] = i + 1;
		root = MPI_ROOT;
	} else {
		root = rank % 2 ? 0 : MPI_PROC_NULL;
	}
	MPI_Bcast(data, 8, MPI_INT, root, inter);
	printf("rank %d: root %s, received %d bytes\n", rank,
	       root == MPI_ROOT ? "MPI_ROOT" : root == MPI_PROC_NULL ? "MPI_PROC_NULL" : "0",
	       rank % 2 && data[7] == 8 ? 32 : 0);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
