/*
 * calls_more.c - the rest of the wrapped routines, for tests/e2e/test_mpi_record.sh: every
 * completion routine, synchronous sends, cancellation, probes, Startall, the v/w collectives,
 * non-blocking collectives and every way of making a communicator (and one perfscope does not
 * wrap, MPI_Cart_sub). Any number of ranks (4 in the test); rank r sends to r+1 and receives
 * from r-1 around the ring. Messages: 31 per rank around the ring (5 of them buffered, ready
 * or in place: Bsend, Rsend, Ibsend, Irsend, Sendrecv_replace), and one on the split
 * communicator that leaves rank 0 out (its ranks 0 and 1, world ranks 1 and 2).
 */
#include <mpi.h>
#include <stdlib.h>

#define N 64

int main(int argc, char **argv)
{
	int rank, size, right, left, idx, n, flag, done, ids[8];
	char b[256] = {0}, r[16][256];
	MPI_Request q[20];
	MPI_Status st[8];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > N)
		MPI_Abort(MPI_COMM_WORLD, 2);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;

	/* Waitall of 20 requests (more than fit the hooks' stack room) */
	for (int i = 0; i < 10; i++) {
		MPI_Irecv(r[i], 256, MPI_BYTE, left, i, MPI_COMM_WORLD, &q[i]);
		MPI_Isend(b, i + 1, MPI_BYTE, right, i, MPI_COMM_WORLD, &q[10 + i]);
	}
	MPI_Waitall(20, q, MPI_STATUSES_IGNORE);

	/* Ssend into posted Irecvs (any source, any tag), completed one by one by Waitany */
	for (int i = 0; i < 4; i++)
		MPI_Irecv(r[i], 256, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[i]);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < 4; i++)
		MPI_Ssend(b, 8, MPI_BYTE, right, 50 + i, MPI_COMM_WORLD);
	for (int i = 0; i < 4; i++)
		MPI_Waitany(4, q, &idx, MPI_STATUS_IGNORE);

	/* Issend, Waitsome */
	for (int i = 0; i < 4; i++) {
		MPI_Irecv(r[i], 256, MPI_BYTE, left, 60 + i, MPI_COMM_WORLD, &q[i]);
		MPI_Issend(b, 16, MPI_BYTE, right, 60 + i, MPI_COMM_WORLD, &q[4 + i]);
	}
	for (done = 0; done < 8; done += n) {
		MPI_Waitsome(8, q, &n, ids, st);
		if (n == MPI_UNDEFINED)
			break;
	}

	/* Testall, Testsome, Test, Testany polled until done */
	for (int i = 0; i < 2; i++) {
		MPI_Irecv(r[i], 256, MPI_BYTE, left, 70 + i, MPI_COMM_WORLD, &q[i]);
		MPI_Isend(b, 3, MPI_BYTE, right, 70 + i, MPI_COMM_WORLD, &q[2 + i]);
	}
	do
		MPI_Testall(4, q, &flag, MPI_STATUSES_IGNORE);
	while (!flag);
	for (int i = 0; i < 2; i++) {
		MPI_Irecv(r[i], 256, MPI_BYTE, left, 80 + i, MPI_COMM_WORLD, &q[i]);
		MPI_Isend(b, 5, MPI_BYTE, right, 80 + i, MPI_COMM_WORLD, &q[2 + i]);
	}
	for (done = 0; done < 4; done += n) {
		MPI_Testsome(4, q, &n, ids, MPI_STATUSES_IGNORE);
		if (n == MPI_UNDEFINED)
			break;
	}
	MPI_Irecv(r[0], 256, MPI_BYTE, left, 90, MPI_COMM_WORLD, &q[0]);
	MPI_Send(b, 7, MPI_BYTE, right, 90, MPI_COMM_WORLD);
	do
		MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
	while (!flag);
	MPI_Irecv(r[0], 256, MPI_BYTE, left, 91, MPI_COMM_WORLD, &q[0]);
	MPI_Send(b, 9, MPI_BYTE, right, 91, MPI_COMM_WORLD);
	do
		MPI_Testany(1, q, &idx, &flag, MPI_STATUS_IGNORE);
	while (!flag);

	/* a receive nobody sends to, cancelled; probes */
	MPI_Irecv(r[0], 256, MPI_BYTE, left, 999, MPI_COMM_WORLD, &q[0]);
	MPI_Cancel(&q[0]);
	MPI_Wait(&q[0], &st[0]);
	MPI_Send(b, 11, MPI_BYTE, right, 95, MPI_COMM_WORLD);
	MPI_Probe(left, 95, MPI_COMM_WORLD, &st[0]);
	MPI_Iprobe(left, 95, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	MPI_Recv(r[0], 256, MPI_BYTE, left, 95, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	/* persistent, started together */
	MPI_Recv_init(r[0], 256, MPI_BYTE, left, 96, MPI_COMM_WORLD, &q[0]);
	MPI_Ssend_init(b, 4, MPI_BYTE, right, 96, MPI_COMM_WORLD, &q[1]);
	MPI_Startall(2, q);
	MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	MPI_Request_free(&q[0]);
	MPI_Request_free(&q[1]);

	/* buffered and ready sends: a Bsend and an Ibsend through an attached buffer; an Rsend and
	 * an Irsend into receives posted before a barrier; a Sendrecv_replace */
	{
		static char bbuf[2 * (MPI_BSEND_OVERHEAD + 64)];
		void *old;
		int osz;

		MPI_Buffer_attach(bbuf, (int)sizeof(bbuf));
		MPI_Bsend(b, 12, MPI_BYTE, right, 100, MPI_COMM_WORLD);
		MPI_Recv(r[0], 256, MPI_BYTE, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(r[0], 256, MPI_BYTE, left, 101, MPI_COMM_WORLD, &q[0]);
		MPI_Irecv(r[1], 256, MPI_BYTE, left, 103, MPI_COMM_WORLD, &q[1]);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Rsend(b, 13, MPI_BYTE, right, 101, MPI_COMM_WORLD);
		MPI_Irsend(b, 15, MPI_BYTE, right, 103, MPI_COMM_WORLD, &q[2]);
		MPI_Ibsend(b, 14, MPI_BYTE, right, 102, MPI_COMM_WORLD, &q[3]);
		MPI_Irecv(r[2], 256, MPI_BYTE, left, 102, MPI_COMM_WORLD, &q[4]);
		MPI_Waitall(5, q, MPI_STATUSES_IGNORE);
		MPI_Sendrecv_replace(r[3], 6, MPI_BYTE, right, 104, left, 104, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
		MPI_Buffer_detach(&old, &osz);
	}

	/* collectives: 2 ints per rank */
	{
		int cnt[N], dsp[N], bdsp[N], sb[2 * N] = {0}, rb[2 * N];
		MPI_Datatype ty[N];

		for (int i = 0; i < size; i++) {
			cnt[i] = 2;
			dsp[i] = 2 * i;
			bdsp[i] = 8 * i;
			ty[i] = MPI_INT;
		}
		MPI_Gatherv(sb, 2, MPI_INT, rb, cnt, dsp, MPI_INT, 1, MPI_COMM_WORLD);
		MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, 2, MPI_INT, 1, MPI_COMM_WORLD);
		MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
		MPI_Alltoallw(sb, cnt, bdsp, ty, rb, cnt, bdsp, ty, MPI_COMM_WORLD);
		MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Scan(sb, rb, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Exscan(sb, rb, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, MPI_COMM_WORLD);
		MPI_Iallreduce(sb, rb, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
		MPI_Ibarrier(MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		MPI_Ialltoallw(sb, cnt, bdsp, ty, rb, cnt, bdsp, ty, MPI_COMM_WORLD, &q[0]);
		MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
		MPI_Iexscan(sb, rb, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[2]);
		MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
	}

	/* communicators */
	{
		MPI_Comm dup, two, grp, cart, node, split, sub;
		MPI_Group g, g2;
		int first2[2] = {0, 1}, dims[1] = {0}, periods[1] = {1}, keep[1] = {1}, sr;

		MPI_Comm_dup(MPI_COMM_WORLD, &dup);
		MPI_Comm_group(dup, &g);
		MPI_Group_incl(g, 2, first2, &g2);
		MPI_Comm_create(dup, g2, &two);
		if (two != MPI_COMM_NULL) {
			MPI_Barrier(two);
			MPI_Comm_free(&two);
		}
		if (rank < 2) {
			MPI_Comm_create_group(dup, g2, 5, &grp);
			MPI_Barrier(grp);
			MPI_Comm_free(&grp);
		}
		MPI_Dims_create(size, 1, dims);
		MPI_Cart_create(dup, 1, dims, periods, 0, &cart);
		MPI_Bcast(b, 4, MPI_BYTE, 0, cart);
		MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
		MPI_Barrier(node);
		MPI_Comm_split(dup, rank == 0 ? MPI_UNDEFINED : 1, rank, &split);
		if (split != MPI_COMM_NULL) {
			MPI_Comm_rank(split, &sr);
			if (sr == 0)
				MPI_Send(b, 1, MPI_BYTE, 1, 0, split);
			else if (sr == 1)
				MPI_Recv(r[0], 1, MPI_BYTE, 0, 0, split, MPI_STATUS_IGNORE);
			MPI_Comm_free(&split);
		}
		MPI_Cart_sub(cart, keep, &sub); /* not wrapped: described at its first use */
		MPI_Barrier(sub);
		MPI_Comm_free(&sub);
		MPI_Comm_free(&node);
		MPI_Comm_free(&cart);
		MPI_Comm_free(&dup);
		MPI_Group_free(&g);
		MPI_Group_free(&g2);
	}
	MPI_Finalize();
	return 0;
}
