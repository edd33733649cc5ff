/*
 * calls_mpi.c - a known number of every kind of MPI call, for tests/e2e/test_mpi_record.sh.
 * Run with an even number of ranks (4 in the test). Rank r, "right" r+1 and "left" r-1 around
 * the ring:
 *   1. even ranks Send 3 messages to r+1 (tag 10+k, (k+1)*8 bytes); odd ranks Recv them with
 *      MPI_ANY_SOURCE, MPI_ANY_TAG and MPI_STATUS_IGNORE
 *   2. Irecv 2 from the left (the first with MPI_ANY_SOURCE), Isend 2 to the right (tag 20:
 *      16 bytes, tag 21: 32 bytes), one Waitall with MPI_STATUSES_IGNORE
 *   3. Sendrecv: 8 bytes to the right, from the left, tag 30, MPI_STATUS_IGNORE
 *   4. Bcast of 4 ints from rank 0, Allreduce of one double, 2 Barriers
 *   5. Comm_split by r % 2 (key r); on it an Allreduce of one int and a Send of 4 bytes (tag 40)
 *      from its rank 0 to its rank 1; Comm_free
 *   6. persistent: even ranks Send_init (8 bytes, tag 50) to r+1, odd ranks Recv_init from
 *      r-1; Start + Wait twice; Request_free
 * Exits 2 with a message for an odd number of ranks, 1 when a received value is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, left, right, bad = 0;
	char buf[64], rbuf[2][64];
	MPI_Request reqs[4], preq;
	MPI_Comm half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size % 2) {
		if (rank == 0)
			fprintf(stderr, "calls_mpi: needs an even number of ranks, not %d\n", size);
		MPI_Finalize();
		return 2;
	}
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	memset(buf, rank, sizeof(buf));

	/* 1. blocking point-to-point */
	for (int k = 0; k < 3; k++) {
		if (rank % 2 == 0)
			MPI_Send(buf, (k + 1) * 8, MPI_BYTE, rank + 1, 10 + k, MPI_COMM_WORLD);
		else
			MPI_Recv(rbuf[0], 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
	}

	/* 2. non-blocking, completed by one Waitall */
	MPI_Irecv(rbuf[0], 64, MPI_BYTE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(rbuf[1], 64, MPI_BYTE, left, 21, MPI_COMM_WORLD, &reqs[1]);
	MPI_Isend(buf, 16, MPI_BYTE, right, 20, MPI_COMM_WORLD, &reqs[2]);
	MPI_Isend(buf, 32, MPI_BYTE, right, 21, MPI_COMM_WORLD, &reqs[3]);
	MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
	if (rbuf[0][0] != (char)left || rbuf[1][31] != (char)left)
		bad = 1;

	/* 3. Sendrecv */
	MPI_Sendrecv(buf, 8, MPI_BYTE, right, 30, rbuf[0], 64, MPI_BYTE, left, 30, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);

	/* 4. collectives */
	{
		int v[4] = {rank, 1, 2, 3};
		double d = 1.0, sum = 0;

		MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Allreduce(&d, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (v[0] != 0 || sum != size)
			bad = 1;
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}

	/* 5. a communicator of half the ranks */
	{
		int hrank, one = 1, n = 0;

		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
		MPI_Comm_rank(half, &hrank);
		MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, half);
		if (n != size / 2)
			bad = 1;
		if (hrank == 0)
			MPI_Send(buf, 4, MPI_BYTE, 1, 40, half);
		else if (hrank == 1)
			MPI_Recv(rbuf[0], 64, MPI_BYTE, 0, 40, half, MPI_STATUS_IGNORE);
		MPI_Comm_free(&half);
	}

	/* 6. persistent requests, started twice */
	if (rank % 2 == 0)
		MPI_Send_init(buf, 8, MPI_BYTE, rank + 1, 50, MPI_COMM_WORLD, &preq);
	else
		MPI_Recv_init(rbuf[0], 64, MPI_BYTE, rank - 1, 50, MPI_COMM_WORLD, &preq);
	for (int k = 0; k < 2; k++) {
		MPI_Start(&preq);
		MPI_Wait(&preq, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&preq);

	MPI_Finalize();
	if (bad)
		fprintf(stderr, "calls_mpi: rank %d received a wrong value\n", rank);
	return bad;
}
