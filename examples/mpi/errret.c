/*
 * errret.c - completions that fail under MPI_ERRORS_RETURN, on 2 ranks: receives too small for
 * their message (MPI_ERR_TRUNCATE), completed by MPI_Wait, MPI_Waitall and a persistent
 * request's MPI_Wait, after which rank 1 frees what MPI left allocated.
 *
 * Rank 0 sends 16 bytes with tags 3, 4 and 5 and 4 bytes with tags 6 and 7 to rank 1. Rank 1, with
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD, receives them into 4-byte buffers: a persistent receive
 * (tag 3: Recv_init, Start, Wait, Request_free), an Irecv (tag 4: Wait, then Request_free
 * unless MPI freed it) and two Irecvs (tags 5 and 6) completed by one Waitall (the one MPI
 * did not free is freed then); finally an Irecv of tag 7 completes normally. It prints what each completion returned, by error class:
 *   rank 1: persistent wait: CLASS
 *   rank 1: request_free: CLASS
 *   rank 1: wait: CLASS
 *   rank 1: waitall: CLASS (statuses CLASS CLASS)
 *   rank 1: classes: truncate CLASS in_status CLASS
 * Every message is received (truncated ones too), so all 5 are matched.
 *
 * Build: mpicc -g examples/mpi/errret.c -o errret
 * Run:   perfscope record --mpi -o out -- mpirun -np 2 ./errret
 */
#include "mpi-ex.h"

static int err_class(int err)
{
	int cls = err;

	MPI_Error_class(err, &cls);
	return cls;
}

int main(int argc, char **argv)
{
	char out[16] = {0}, in[4][4];
	int rank, size, ret, c1, c2;
	MPI_Request q[2];
	MPI_Status st[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 errret\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		for (int tag = 3; tag <= 5; tag++)
			MPI_Send(out, 16, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
		MPI_Send(out, 4, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
		MPI_Send(out, 4, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
	} else {
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Recv_init(in[0], 4, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &q[0]);
		MPI_Start(&q[0]);
		ret = MPI_Wait(&q[0], &st[0]);
		printf("rank 1: persistent wait: %d\n", err_class(ret));
		ret = MPI_Request_free(&q[0]);
		printf("rank 1: request_free: %d\n", err_class(ret));

		MPI_Irecv(in[1], 4, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &q[0]);
		ret = MPI_Wait(&q[0], &st[0]);
		printf("rank 1: wait: %d\n", err_class(ret));
		if (q[0] != MPI_REQUEST_NULL)
			MPI_Request_free(&q[0]);

		MPI_Irecv(in[2], 4, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &q[0]);
		MPI_Irecv(in[3], 4, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &q[1]);
		ret = MPI_Waitall(2, q, st);
		c1 = err_class(st[0].MPI_ERROR);
		c2 = err_class(st[1].MPI_ERROR);
		printf("rank 1: waitall: %d (statuses %d %d)\n", err_class(ret), c1, c2);
		for (int i = 0; i < 2; i++)
			if (q[i] != MPI_REQUEST_NULL)
				MPI_Request_free(&q[i]);
		MPI_Irecv(in[0], 4, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &q[0]);
		MPI_Wait(&q[0], &st[0]);
		printf("rank 1: classes: truncate %d in_status %d\n", MPI_ERR_TRUNCATE,
		       MPI_ERR_IN_STATUS);
	}
	MPI_Finalize();
	return 0;
}
