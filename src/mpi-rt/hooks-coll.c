/*
 * hooks-coll.c - the family hooks of collectives and communicators (mpi-hooks.h).
 *
 * A collective call gets one COLL item: its root as a world rank (-1 unrooted) and the bytes
 * this rank's buffers give to it and take from it (count x type size, summed over the peers
 * where the call moves data to or from each of them: Bcast counts the buffer once at the
 * root as sent and once at every other rank as received; Gather counts the send buffer at
 * every rank and N receive blocks at the root; Allreduce the vector once each way). Arguments
 * the standard calls insignificant at a rank (a non-root's receive counts of Gatherv, say)
 * are never read. Non-blocking collectives get the same item at their start.
 */
#include "mpi-hooks.h"

#include <string.h>

/* The kind of each routine (mpi_routine_kind without linking the CLI's table). */
static const unsigned char routine_kind[] = {
#define MPI_CALL(name, family, kind, twin, params) MPI_KIND_##kind,
#include "mpi-rt/mpi-calls.def"
#undef MPI_CALL
};

/* A non-blocking collective C (its request in c->req) on CM: track the request, so that the
 * call completing it names it, and make its COLL_REQ item in IT. 1 with the item, else 0. */
static size_t icoll_request(struct mpi_call *c, struct mpi_comm *cm, uint64_t *it)
{
	struct mpi_req_info r;

	if (c->id >= MPI_ROUTINE_COUNT || routine_kind[c->id] != MPI_KIND_ICOLL ||
	    c->req == MPI_REQUEST_NULL)
		return 0;
	memset(&r, 0, sizeof(r));
	r.id = requests_new_id();
	r.comm = cm;
	r.peer = PSC_MPI_ANY;
	r.kind = REQ_COLL;
	comm_ref(cm);
	if (requests_add(c->req, &r))
		return 0;
	it[0] = psc_mpi_item_word0(PSC_MPI_ITEM_COLL_REQ, 0, cm->index);
	it[1] = (uint64_t)(uint32_t)PSC_MPI_ANY;
	it[2] = 0;
	it[3] = r.id;
	return 1;
}

/* The COLL item of a call on COMM with ROOT (a rank of COMM, or < 0 for none). */
static void coll_end(struct mpi_call *c, int ret, MPI_Comm comm, int root, uint64_t sent,
		     uint64_t received)
{
	uint64_t it[2 * PSC_MPI_ITEM_WORDS];
	struct mpi_comm *cm = ret == MPI_SUCCESS ? comms_find(comm) : NULL;

	if (!cm) {
		mpi_call_end(c, NULL, 0);
		return;
	}
	it[0] = psc_mpi_item_word0(PSC_MPI_ITEM_COLL, 0, cm->index);
	it[1] = (uint64_t)(uint32_t)(root >= 0 && !cm->inter ? comm_peer(cm, root) : PSC_MPI_ANY);
	it[2] = sent;
	it[3] = received;
	mpi_call_end(c, it, 1 + icoll_request(c, cm, it + PSC_MPI_ITEM_WORDS));
}

/* Is this rank the root of a rooted collective on COMM? */
static int is_root(MPI_Comm comm, int root)
{
	struct mpi_comm *cm = comms_find(comm);

	if (!cm)
		return 0;
	return cm->inter ? root == MPI_ROOT : root == cm->me;
}

static int comm_size_of(MPI_Comm comm)
{
	struct mpi_comm *cm = comms_find(comm);

	return cm ? cm->npeers : 0;
}

/* Sum of COUNTS[0..n) elements of TYPE. */
static uint64_t sum_bytes(const int *counts, int n, MPI_Datatype type)
{
	uint64_t total = 0, size = mpi_bytes(1, type);

	for (int i = 0; counts && i < n; i++)
		if (counts[i] > 0)
			total += (uint64_t)counts[i] * size;
	return total;
}

/* Sum over peers of COUNTS[i] elements of TYPES[i]. */
static uint64_t sum_bytes_w(const int *counts, const MPI_Datatype *types, int n)
{
	uint64_t total = 0;

	for (int i = 0; counts && types && i < n; i++)
		total += mpi_bytes(counts[i], types[i]);
	return total;
}

/* ----- bytes per collective: sent and received by this rank ----- */

struct bytes2 {
	uint64_t sent, received;
};

/* On an intercommunicator the root's group passes MPI_ROOT (the root) or MPI_PROC_NULL (the
 * others, which take no part in the transfer: nothing either way). */
static struct bytes2 b_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	uint64_t b = mpi_bytes(count, type);

	if (root == MPI_PROC_NULL)
		return (struct bytes2){0, 0};
	return is_root(comm, root) ? (struct bytes2){b, 0} : (struct bytes2){0, b};
}

static struct bytes2 b_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			       const int *sendcounts, const void *recvbuf, int recvcount,
			       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct bytes2 b = {0, 0};

	(void)sendbuf;
	if (is_root(comm, root)) {
		b.sent = sendcounts ? sum_bytes(sendcounts, comm_size_of(comm), sendtype)
				    : (uint64_t)comm_size_of(comm) * mpi_bytes(sendcount, sendtype);
		if (recvbuf == MPI_IN_PLACE || root == MPI_ROOT)
			return b;
	} else if (root == MPI_PROC_NULL) {
		return b;
	}
	b.received = mpi_bytes(recvcount, recvtype);
	return b;
}

static struct bytes2 b_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      int recvcount, const int *recvcounts, MPI_Datatype recvtype, int root,
			      MPI_Comm comm)
{
	struct bytes2 b = {0, 0};

	if (is_root(comm, root)) {
		b.received = recvcounts
				 ? sum_bytes(recvcounts, comm_size_of(comm), recvtype)
				 : (uint64_t)comm_size_of(comm) * mpi_bytes(recvcount, recvtype);
		if (sendbuf == MPI_IN_PLACE || root == MPI_ROOT)
			return b;
	} else if (root == MPI_PROC_NULL) {
		return b;
	}
	b.sent = mpi_bytes(sendcount, sendtype);
	return b;
}

/* Allgather(v), Alltoall(v): N blocks each way (IN_PLACE: the receive side's). */
static struct bytes2 b_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				const int *sendcounts, int recvcount, const int *recvcounts,
				MPI_Datatype recvtype, MPI_Comm comm, int gather)
{
	int n = comm_size_of(comm);
	struct bytes2 b;

	b.received = recvcounts ? sum_bytes(recvcounts, n, recvtype)
				: (uint64_t)n * mpi_bytes(recvcount, recvtype);
	if (sendbuf == MPI_IN_PLACE)
		b.sent = gather ? b.received / (n ? (uint64_t)n : 1) : b.received;
	else if (sendcounts)
		b.sent = sum_bytes(sendcounts, n, sendtype);
	else
		b.sent = (gather ? 1u : (uint64_t)n) * mpi_bytes(sendcount, sendtype);
	return b;
}

/* ----- blocking collectives ----- */

void post_barrier(struct mpi_call *c, int ret, MPI_Comm comm)
{
	coll_end(c, ret, comm, -1, 0, 0);
}

void post_bcast(struct mpi_call *c, int ret, void *buffer, int count, MPI_Datatype datatype,
		int root, MPI_Comm comm)
{
	struct bytes2 b = b_bcast(count, datatype, root, comm);

	(void)buffer;
	coll_end(c, ret, comm, root, b.sent, b.received);
}

void post_scatter(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm)
{
	struct bytes2 b =
	    b_scatter(sendbuf, sendcount, sendtype, NULL, recvbuf, recvcount, recvtype, root, comm);

	coll_end(c, ret, comm, root, b.sent, b.received);
}

void post_scatterv(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		   const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct bytes2 b =
	    b_scatter(sendbuf, 0, sendtype, sendcounts, recvbuf, recvcount, recvtype, root, comm);

	(void)displs;
	coll_end(c, ret, comm, root, b.sent, b.received);
}

void post_gather(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 int root, MPI_Comm comm)
{
	struct bytes2 b =
	    b_gather(sendbuf, sendcount, sendtype, recvcount, NULL, recvtype, root, comm);

	(void)recvbuf;
	coll_end(c, ret, comm, root, b.sent, b.received);
}

void post_gatherv(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
		  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct bytes2 b =
	    b_gather(sendbuf, sendcount, sendtype, 0, recvcounts, recvtype, root, comm);

	(void)recvbuf, (void)displs;
	coll_end(c, ret, comm, root, b.sent, b.received);
}

void post_reduce(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
		 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	uint64_t b = mpi_bytes(count, datatype);
	int at_root = is_root(comm, root);

	(void)sendbuf, (void)recvbuf, (void)op;
	coll_end(c, ret, comm, root, root == MPI_ROOT || root == MPI_PROC_NULL ? 0 : b,
		 at_root ? b : 0);
}

void post_allgather(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	struct bytes2 b =
	    b_alltoall(sendbuf, sendcount, sendtype, NULL, recvcount, NULL, recvtype, comm, 1);

	(void)recvbuf;
	coll_end(c, ret, comm, -1, b.sent, b.received);
}

void post_allgatherv(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		     const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct bytes2 b =
	    b_alltoall(sendbuf, sendcount, sendtype, NULL, 0, recvcounts, recvtype, comm, 1);

	(void)recvbuf, (void)displs;
	coll_end(c, ret, comm, -1, b.sent, b.received);
}

void post_allreduce(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	uint64_t b = mpi_bytes(count, datatype);

	(void)sendbuf, (void)recvbuf, (void)op;
	coll_end(c, ret, comm, -1, b, b);
}

void post_alltoall(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   MPI_Comm comm)
{
	struct bytes2 b =
	    b_alltoall(sendbuf, sendcount, sendtype, NULL, recvcount, NULL, recvtype, comm, 0);

	(void)recvbuf;
	coll_end(c, ret, comm, -1, b.sent, b.received);
}

void post_alltoallv(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	struct bytes2 b =
	    b_alltoall(sendbuf, 0, sendtype, sendcounts, 0, recvcounts, recvtype, comm, 0);

	(void)sdispls, (void)recvbuf, (void)rdispls;
	coll_end(c, ret, comm, -1, b.sent, b.received);
}

void post_alltoallw(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		    const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
		    const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
		    MPI_Comm comm)
{
	int n = comm_size_of(comm);
	uint64_t received = sum_bytes_w(recvcounts, recvtypes, n);
	uint64_t sent = sendbuf == MPI_IN_PLACE ? received : sum_bytes_w(sendcounts, sendtypes, n);

	(void)sdispls, (void)recvbuf, (void)rdispls;
	coll_end(c, ret, comm, -1, sent, received);
}

void post_reduce_scatter(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf,
			 const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct mpi_comm *cm = comms_find(comm);
	/* RECVCOUNTS has one entry per rank of the local group (npeers is the remote group's
	 * size on an intercommunicator) */
	uint64_t sent = cm ? sum_bytes(recvcounts, cm->size, datatype) : 0;
	uint64_t received =
	    cm && recvcounts && !cm->inter ? mpi_bytes(recvcounts[cm->me], datatype) : 0;

	(void)sendbuf, (void)recvbuf, (void)op;
	coll_end(c, ret, comm, -1, sent, received);
}

void post_reduce_scatter_block(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf,
			       int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	uint64_t b = mpi_bytes(recvcount, datatype);

	(void)sendbuf, (void)recvbuf, (void)op;
	coll_end(c, ret, comm, -1, (uint64_t)comm_size_of(comm) * b, b);
}

void post_scan(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	uint64_t b = mpi_bytes(count, datatype);

	(void)sendbuf, (void)recvbuf, (void)op;
	coll_end(c, ret, comm, -1, b, b);
}

/* ----- non-blocking collectives: the same item, at the start ----- */

void post_ibarrier(struct mpi_call *c, int ret, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	coll_end(c, ret, comm, -1, 0, 0);
}

void post_ibcast(struct mpi_call *c, int ret, void *buffer, int count, MPI_Datatype datatype,
		 int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_bcast(c, ret, buffer, count, datatype, root, comm);
}

void post_iscatter(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_scatter(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
		     comm);
}

void post_iscatterv(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		    const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
		    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_scatterv(c, ret, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
		      root, comm);
}

void post_igather(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_gather(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

void post_igatherv(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
		   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_gatherv(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
		     root, comm);
}

void post_ireduce(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_reduce(c, ret, sendbuf, recvbuf, count, datatype, op, root, comm);
}

void post_iallgather(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_allgather(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

void post_iallgatherv(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		      const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_allgatherv(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
			comm);
}

void post_iallreduce(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_allreduce(c, ret, sendbuf, recvbuf, count, datatype, op, comm);
}

void post_ialltoall(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		    MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_alltoall(c, ret, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

void post_ialltoallv(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		     const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_alltoallv(c, ret, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
		       recvtype, comm);
}

void post_ialltoallw(struct mpi_call *c, int ret, const void *sendbuf, const int sendcounts[],
		     const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
		     const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
		     MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_alltoallw(c, ret, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
		       rdispls, recvtypes, comm);
}

void post_ireduce_scatter(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf,
			  const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_reduce_scatter(c, ret, sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

void post_ireduce_scatter_block(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf,
				int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_reduce_scatter_block(c, ret, sendbuf, recvbuf, recvcount, datatype, op, comm);
}

void post_iscan(struct mpi_call *c, int ret, const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	c->req = ret == MPI_SUCCESS ? *request : MPI_REQUEST_NULL;
	post_scan(c, ret, sendbuf, recvbuf, count, datatype, op, comm);
}

/* ----- communicators ----- */

/* A communicator was created (or not: MPI_COMM_NULL, or a failed call). */
static void created(struct mpi_call *c, int ret, const MPI_Comm *newcomm)
{
	if (ret == MPI_SUCCESS)
		comms_created(*newcomm);
	mpi_call_end(c, NULL, 0);
}

void post_comm_dup(struct mpi_call *c, int ret, MPI_Comm comm, MPI_Comm *newcomm)
{
	(void)comm;
	created(c, ret, newcomm);
}

void post_comm_split(struct mpi_call *c, int ret, MPI_Comm comm, int color, int key,
		     MPI_Comm *newcomm)
{
	(void)comm, (void)color, (void)key;
	created(c, ret, newcomm);
}

void post_comm_split_type(struct mpi_call *c, int ret, MPI_Comm comm, int split_type, int key,
			  MPI_Info info, MPI_Comm *newcomm)
{
	(void)comm, (void)split_type, (void)key, (void)info;
	created(c, ret, newcomm);
}

void post_comm_create(struct mpi_call *c, int ret, MPI_Comm comm, MPI_Group group,
		      MPI_Comm *newcomm)
{
	(void)comm, (void)group;
	created(c, ret, newcomm);
}

void post_comm_create_group(struct mpi_call *c, int ret, MPI_Comm comm, MPI_Group group, int tag,
			    MPI_Comm *newcomm)
{
	(void)comm, (void)group, (void)tag;
	created(c, ret, newcomm);
}

void post_cart_create(struct mpi_call *c, int ret, MPI_Comm comm_old, int ndims, const int dims[],
		      const int periods[], int reorder, MPI_Comm *comm_cart)
{
	(void)comm_old, (void)ndims, (void)dims, (void)periods, (void)reorder;
	created(c, ret, comm_cart);
}

void pre_comm_free(struct mpi_call *c, MPI_Comm *comm)
{
	c->comm = *comm;
}

void post_comm_free(struct mpi_call *c, int ret, MPI_Comm *comm)
{
	(void)comm;
	if (ret == MPI_SUCCESS)
		comms_freed(c->comm);
	mpi_call_end(c, NULL, 0);
}
