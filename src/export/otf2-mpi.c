/* otf2-mpi.c - the OTF2 events of the MPI model's calls: Enter/Leave, messages, collectives
 * (otf2-int.h). */
#include "export/otf2-int.h"

#include "format/format.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The rank in model communicator C of world rank R, or OTF2_UNDEFINED_UINT32. */
static uint32_t comm_rank(struct xp *x, uint32_t c, int32_t r)
{
	const struct mpi_comm_info *ci = &x->m->comms[c];

	if (r < 0 || r >= x->m->world_size || c >= x->m->ncomms)
		return OTF2_UNDEFINED_UINT32;
	if (!x->comm_rank[c]) {
		x->comm_rank[c] = malloc((size_t)x->m->world_size * sizeof(int32_t));
		if (!x->comm_rank[c])
			return OTF2_UNDEFINED_UINT32;
		for (int i = 0; i < x->m->world_size; i++)
			x->comm_rank[c][i] = -1;
		for (uint32_t i = 0; i < ci->size; i++)
			if (ci->members[i] >= 0 && ci->members[i] < x->m->world_size)
				x->comm_rank[c][ci->members[i]] = (int32_t)i;
	}
	return x->comm_rank[c][r] < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)x->comm_rank[c][r];
}

/* The operation of collective ROUTINE; a non-blocking one's is its blocking twin's. */
static OTF2_CollectiveOp coll_op(unsigned routine)
{
	int twin = mpi_routine_twin(routine);
	const char *name = mpi_routine_name(twin >= 0 ? (unsigned)twin : routine);
	static const struct {
		const char *name;
		OTF2_CollectiveOp op;
	} ops[] = {
	    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
	    {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
	    {"Gather", OTF2_COLLECTIVE_OP_GATHER},
	    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
	    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
	    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
	    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
	    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
	    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
	    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
	    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
	    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
	    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
	    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
	    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
	    {"Scan", OTF2_COLLECTIVE_OP_SCAN},
	    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
	    {"Comm_free", OTF2_COLLECTIVE_OP_DESTROY_HANDLE},
	};

	if (!name)
		return OTF2_COLLECTIVE_OP_BARRIER;
	name += 4; /* "MPI_" */
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			return ops[i].op;
	return mpi_routine_kind(routine) == MPI_KIND_COMM ? OTF2_COLLECTIVE_OP_CREATE_HANDLE
							  : OTF2_COLLECTIVE_OP_BARRIER;
}

/* The request of call C's COLL_REQ item (a non-blocking collective's), 0 none. */
static uint64_t coll_request(const struct mpi_model *m, const struct mpi_call *c)
{
	for (uint32_t i = c->first_item, end = mpi_call_items_end(m, c); i < end; i++)
		if (m->items[i].kind == PSC_MPI_ITEM_COLL_REQ)
			return m->items[i].request;
	return 0;
}

/* By rank and request. */
static int cmp_icoll_key(const struct ox_icoll *p, const struct ox_icoll *q)
{
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return (p->request > q->request) - (p->request < q->request);
}

/* By rank, request and time (an id is reused once done, also by another thread). */
static int cmp_icoll(const void *a, const void *b)
{
	const struct ox_icoll *p = a, *q = b;
	int c = cmp_icoll_key(p, q);

	if (c)
		return c;
	return (p->t > q->t) - (p->t < q->t);
}

/* The start a completion of KEY's rank and request at KEY's time completes: the latest
 * started at or before it, as mpi-causal.c and the import pair them; NULL when none is (a
 * completion whose I-call was not recorded). */
static const struct ox_icoll *find_icoll(const struct xp *x, const struct ox_icoll *key)
{
	size_t lo = 0, hi = x->nicolls;

	/* the first entry after KEY (rank, request, time) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_icoll(&x->icolls[mid], key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && cmp_icoll_key(&x->icolls[lo - 1], key) == 0)
		return &x->icolls[lo - 1];
	return NULL;
}

/* The starts of the model's non-blocking collectives into x->icolls, sorted. 0 or -1. */
int ox_find_icolls(struct xp *x)
{
	const struct mpi_model *m = x->m;
	size_t n = 0;

	for (size_t i = 0; i < m->ncalls; i++)
		n += mpi_routine_kind(m->calls[i].routine) == MPI_KIND_ICOLL;
	x->icolls = malloc((n + 1) * sizeof(*x->icolls));
	if (!x->icolls)
		return ox_fail(x, -ENOMEM, "out of memory");
	for (size_t i = 0; i < m->ncalls; i++) {
		const struct mpi_call *c = &m->calls[i];
		uint64_t req;

		if (mpi_routine_kind(c->routine) != MPI_KIND_ICOLL || !(req = coll_request(m, c)))
			continue;
		for (uint32_t k = c->first_item, end = mpi_call_items_end(m, c); k < end; k++)
			if (m->items[k].kind == PSC_MPI_ITEM_COLL) {
				x->icolls[x->nicolls++] =
				    (struct ox_icoll){mpi_call_rank(m, c), req, c->enter_ns, k};
				break;
			}
	}
	qsort(x->icolls, x->nicolls, sizeof(*x->icolls), cmp_icoll);
	return 0;
}

/* A non-blocking collective's COLL_REQ item IT of call C: NonBlockingCollectiveRequest at
 * the enter of the I-call that started it (Score-P's way: its COLL item is not written
 * there), NonBlockingCollectiveComplete with the operation, communicator, root and bytes of
 * that start at the leave of the call that completed it (Wait/Test family). */
static OTF2_ErrorCode coll_req_event(struct xp *x, OTF2_EvtWriter *w, const struct mpi_call *c,
				     const struct mpi_item *it, uint64_t ts, int leave)
{
	const struct ox_icoll *st;
	struct ox_icoll key;
	const struct mpi_item *s;

	if (mpi_routine_kind(c->routine) == MPI_KIND_ICOLL)
		return leave
			   ? OTF2_SUCCESS
			   : OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, ts, it->request);
	if (!leave)
		return OTF2_SUCCESS;
	key = (struct ox_icoll){mpi_call_rank(x->m, c), it->request, c->enter_ns, 0};
	st = find_icoll(x, &key);
	if (!st)
		return OTF2_SUCCESS; /* its start is not in the trace: nothing to describe */
	s = &x->m->items[st->item];
	x->stats->collectives++;
	return OTF2_EvtWriter_NonBlockingCollectiveComplete(
	    w, NULL, ts, coll_op(x->m->calls[s->call].routine), s->comm,
	    comm_rank(x, s->comm, s->peer), s->bytes, s->bytes2, it->request);
}

/* The events of call C at its enter (LEAVE 0) or its leave (LEAVE 1). */
int ox_mpi_events(struct xp *x, struct track *t, const struct mpi_call *c, int leave)
{
	OTF2_EvtWriter *w = t->w;
	OTF2_ErrorCode code = OTF2_SUCCESS;
	uint32_t region = ox_region_id(x, mpi_routine_name(c->routine), RK_MPI, c->routine);
	uint64_t ts = ox_stamp(x, t, leave ? c->leave_ns : c->enter_ns);
	/* a non-blocking collective with its request: written through coll_req_event */
	int icoll = mpi_routine_kind(c->routine) == MPI_KIND_ICOLL && coll_request(x->m, c);

	if (region == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (!leave) {
		code = OTF2_EvtWriter_Enter(w, NULL, ts, region);
		x->stats->mpi_calls++;
	}
	for (uint32_t i = c->first_item, end = mpi_call_items_end(x->m, c);
	     i < end && code == OTF2_SUCCESS; i++) {
		const struct mpi_item *it = &x->m->items[i];
		uint32_t peer = comm_rank(x, it->comm, it->peer);
		uint32_t tag = (uint32_t)it->tag;

		switch (it->kind) {
		case PSC_MPI_ITEM_SEND:
			if (!leave) {
				code = OTF2_EvtWriter_MpiSend(w, NULL, ts, peer, it->comm, tag,
							      it->bytes);
				x->stats->messages++;
			}
			break;
		case PSC_MPI_ITEM_ISEND:
			if (!leave) {
				code = OTF2_EvtWriter_MpiIsend(w, NULL, ts, peer, it->comm, tag,
							       it->bytes, it->request);
				x->stats->messages++;
			}
			break;
		case PSC_MPI_ITEM_IRECV:
			if (!leave)
				code = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, it->request);
			break;
		case PSC_MPI_ITEM_COLL:
			if (icoll)
				break;
			if (!leave) {
				code = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts);
			} else {
				code = OTF2_EvtWriter_MpiCollectiveEnd(
				    w, NULL, ts, coll_op(c->routine), it->comm, peer, it->bytes,
				    it->bytes2);
				x->stats->collectives++;
			}
			break;
		case PSC_MPI_ITEM_RECV:
			if (leave && it->request)
				code = OTF2_EvtWriter_MpiIrecv(w, NULL, ts, peer, it->comm, tag,
							       it->bytes, it->request);
			else if (leave)
				code = OTF2_EvtWriter_MpiRecv(w, NULL, ts, peer, it->comm, tag,
							      it->bytes);
			break;
		case PSC_MPI_ITEM_ISEND_DONE:
			if (leave)
				code = OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, it->request);
			break;
		case PSC_MPI_ITEM_CANCEL:
			/* OTF2 has no event for a request freed while active: it never completes */
			if (leave && !(it->flags & PSC_MPI_F_FREED))
				code = OTF2_EvtWriter_MpiRequestCancelled(w, NULL, ts, it->request);
			break;
		case PSC_MPI_ITEM_COLL_REQ:
			code = coll_req_event(x, w, c, it, ts, leave);
			break;
		}
	}
	if (leave && code == OTF2_SUCCESS)
		code = OTF2_EvtWriter_Leave(w, NULL, ts, region);
	return ox_check(x, code, "writing MPI events");
}
