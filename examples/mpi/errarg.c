/*
 * errarg.c - completion calls that fail on an invalid argument under MPI_ERRORS_RETURN, on 2
 * ranks, while a receive is pending: MPI leaves their outputs (flag, index) unset, and a
 * tracer must not read them as set.
 *
 * Rank 1, with MPI_ERRORS_RETURN on MPI_COMM_WORLD, posts an Irecv of tag 1 and, before rank
 * 0 sends it, calls MPI_Test with a null request pointer, then MPI_Testany and MPI_Waitany on
 * {the pending Irecv, an invalid (null) handle}. Each call's outputs are preset to what a
 * completion of the Irecv would give (flag 1, index 0), so a tracer that trusts them after
 * the failed call takes the Irecv for ended and loses its message. After a barrier rank 0
 * sends the message and rank 1 completes the Irecv with MPI_Wait. Rank 1 prints, by error
 * class name ("request", "arg", "success", or the number):
 *   rank 1: test: CLASS
 *   rank 1: testany: CLASS
 *   rank 1: waitany: CLASS
 *   rank 1: wait: CLASS received BYTES from SOURCE
 * and both ranks print "rank R: thread level L" (what MPI_Query_thread says).
 * Open MPI (MPI_PARAM_CHECK at run time, the default) fails the first three with
 * MPI_ERR_REQUEST; the message is received, so it is matched.
 *
 * Build: mpicc -g examples/mpi/errarg.c -o errarg
 * Run:   perfscope record --mpi -o out -- mpirun -np 2 ./errarg
 */
#include "mpi-ex.h"

static const char *class_name(int err, char *buf, size_t len)
{
	int cls = err;

	MPI_Error_class(err, &cls);
	if (cls == MPI_SUCCESS)
		return "success";
	if (cls == MPI_ERR_REQUEST)
		return "request";
	if (cls == MPI_ERR_ARG)
		return "arg";
	snprintf(buf, len, "%d", cls);
	return buf;
}

int main(int argc, char **argv)
{
	char out[8] = "errarg", in[8], cb[16];
	int rank, size, level, ret, flag, index, n = -1;
	MPI_Request q[2];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 errarg\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Query_thread(&level);
	printf("rank %d: thread level %d\n", rank, level);
	if (rank == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Send(out, (int)sizeof(out), MPI_BYTE, 1, 1, MPI_COMM_WORLD);
	} else {
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Irecv(in, (int)sizeof(in), MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]);
		/* no valid handle: Open MPI's are non-null pointers */
		memset(&q[1], 0, sizeof(q[1]));

		flag = 1;
		ret = MPI_Test(NULL, &flag, &st);
		printf("rank 1: test: %s\n", class_name(ret, cb, sizeof(cb)));
		flag = 1, index = 0;
		ret = MPI_Testany(2, q, &index, &flag, &st);
		printf("rank 1: testany: %s\n", class_name(ret, cb, sizeof(cb)));
		index = 0;
		ret = MPI_Waitany(2, q, &index, &st);
		printf("rank 1: waitany: %s\n", class_name(ret, cb, sizeof(cb)));

		MPI_Barrier(MPI_COMM_WORLD);
		ret = MPI_Wait(&q[0], &st);
		if (ret == MPI_SUCCESS)
			MPI_Get_count(&st, MPI_BYTE, &n);
		printf("rank 1: wait: %s received %d from %d\n", class_name(ret, cb, sizeof(cb)), n,
		       ret == MPI_SUCCESS ? st.MPI_SOURCE : -1);
	}
	MPI_Finalize();
	return 0;
}
