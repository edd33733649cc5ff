/* otf2-export.c - an experiment as an OTF2 archive, streamed from the call walker and the MPI
 * model (otf2-export.h); the definitions are otf2-defs.c's. */
#include "otf2-int.h"

#include "../analysis/calls.h"
#include "../core/format.h"
#include "../core/mpi-routines.h"
#include "../core/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The region of the function at ADDR in stream S's process. */
static uint32_t function_region(struct xp *x, const struct exp_stream *s, uint64_t addr)
{
	struct sym_info info;
	uint64_t v;
	uint32_t id;

	if (x->names_proc != s->proc) {
		u64map_clear(&x->addr_ix);
		x->names_proc = s->proc;
	}
	if (u64map_get(&x->addr_ix, addr, &v))
		return (uint32_t)v;
	symtab_lookup(x->st, s->pid, s->image, addr, &info); /* -ENOMEM: "[unknown]" form */
	id = ox_region_id(x, info.name, RK_FUNCTION, 0);
	if (id == UINT32_MAX || u64map_put(&x->addr_ix, addr, id))
		return UINT32_MAX;
	return id;
}

static int loc_open(struct xp *x, struct track *t, uint32_t group, const char *name)
{
	struct xloc *l;

	if (ARRAY_GROW(x->locs, x->nlocs + 1, x->locs_cap))
		return ox_fail(x, -ENOMEM, "out of memory");
	l = &x->locs[x->nlocs];
	l->name = ox_string_id(x, name);
	l->group = group;
	l->nevents = 0;
	if (l->name == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	t->loc = x->nlocs++;
	t->last = 0;
	t->w = OTF2_Archive_GetEvtWriter(x->ar, t->loc);
	if (!t->w)
		return ox_check(x, OTF2_ERROR_MEM_ALLOC_FAILED, "opening an event writer");
	x->stats->locations++;
	/* a process's rank (proc.json) has a world only when the run has MPI records (x->m) */
	if (x->m && x->groups[group].rank >= 0 && x->groups[group].rank < x->m->world_size &&
	    x->rank_loc[x->groups[group].rank] < 0)
		x->rank_loc[x->groups[group].rank] = (int32_t)t->loc;
	return 0;
}

static int loc_close(struct xp *x, struct track *t)
{
	uint64_t n = 0;

	if (!t->w)
		return 0;
	OTF2_EvtWriter_GetNumberOfEvents(t->w, &n);
	x->locs[t->loc].nevents = n;
	x->stats->events += n;
	ox_check(x, OTF2_Archive_CloseEvtWriter(x->ar, t->w), "closing an event writer");
	t->w = NULL;
	return x->failed ? -EIO : 0;
}

/* The time of an event at NS on T: never before the location's previous event. */
static uint64_t stamp(struct xp *x, struct track *t, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;

	if (v < t->last) {
		v = t->last;
		x->stats->moved_events++;
	}
	t->last = v;
	if (v < x->tmin)
		x->tmin = v;
	if (v > x->tmax)
		x->tmax = v;
	return v;
}

/* ---- MPI calls ---- */

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
static int find_icolls(struct xp *x)
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
static int mpi_events(struct xp *x, struct track *t, const struct mpi_call *c, int leave)
{
	OTF2_EvtWriter *w = t->w;
	OTF2_ErrorCode code = OTF2_SUCCESS;
	uint32_t region = ox_region_id(x, mpi_routine_name(c->routine), RK_MPI, c->routine);
	uint64_t ts = stamp(x, t, leave ? c->leave_ns : c->enter_ns);
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

/* The MPI calls of one model location, in order, with the times that order them. */
struct mpi_cursor {
	const struct mpi_model *m, *order;
	uint32_t i, end;
	int leave; /* the next event is call i's leave */
};

static int cursor_more(const struct mpi_cursor *c)
{
	return c->m && c->i < c->end;
}

static int64_t cursor_key(const struct mpi_cursor *c)
{
	const struct mpi_call *call = &c->order->calls[c->i];

	return c->leave ? call->leave_ns : call->enter_ns;
}

static int cursor_emit(struct xp *x, struct track *t, struct mpi_cursor *c)
{
	int ret = mpi_events(x, t, &c->m->calls[c->i], c->leave);

	if (c->leave)
		c->i++;
	c->leave = !c->leave;
	return ret;
}

/* ---- function and region events ---- */

/* Rank 0's time of a rank's local time T, as the model aligns MPI calls. */
static int64_t align(const struct xp *x, int rank, int64_t t)
{
	const struct mpi_rank_info *r;
	const struct mpi_clock_point *a, *b;
	__int128 num;

	if (!x->m || rank < 0 || rank >= x->m->world_size)
		return t;
	r = &x->m->ranks[rank];
	a = &r->clock[0];
	b = &r->clock[1];
	if (r->has_clock[0] && r->has_clock[1] && b->local_ns != a->local_ns) {
		num = (__int128)(b->offset_ns - a->offset_ns) * ((__int128)t - a->local_ns);
		return t + a->offset_ns + (int64_t)(num / ((__int128)b->local_ns - a->local_ns));
	}
	if (r->has_clock[0])
		return t + a->offset_ns;
	return r->has_clock[1] ? t + b->offset_ns : t;
}

/*
 * A thread's function calls, MPI calls and regions share its location, so that a region
 * encloses the calls made inside it; OTF2 requires a location's Enter and Leave events to
 * nest, and a region may begin in one function and end in another. The frames open on the
 * location are kept (x->frames): a region that ends below calls begun inside it leaves them,
 * ends, and enters them again at the same time; a call that returns below regions begun
 * inside it leaves them, returns, and enters them again.
 */
static int frame_push(struct xp *x, uint32_t id, int region)
{
	if (ARRAY_GROW(x->frames, x->nopen + 1, x->open_cap))
		return ox_fail(x, -ENOMEM, "out of memory");
	x->frames[x->nopen++] = (struct ox_frame){id, region};
	return 0;
}

/* Leave (LEAVE 1, innermost first) or enter again (LEAVE 0, outermost first) the frames from
 * FROM up at TS. */
static int frames_write(struct xp *x, struct track *t, size_t from, uint64_t ts, int leave)
{
	for (size_t i = 0; i < x->nopen - from && !x->failed; i++) {
		size_t k = leave ? x->nopen - 1 - i : from + i;

		ox_check(x,
			 leave ? OTF2_EvtWriter_Leave(t->w, NULL, ts, x->frames[k].id)
			       : OTF2_EvtWriter_Enter(t->w, NULL, ts, x->frames[k].id),
			 "writing a region");
	}
	return x->failed ? -1 : 0;
}

/* The innermost open call (not a region), or x->nopen none. */
static size_t frame_call(const struct xp *x)
{
	for (size_t k = x->nopen; k > 0; k--)
		if (!x->frames[k - 1].region)
			return k - 1;
	return x->nopen;
}

/* Before the innermost call's Leave at NS: the regions begun inside it leave. Returns the
 * call's frame (x->nopen none). */
static size_t call_leave_begin(struct xp *x, struct track *t, int64_t ns)
{
	size_t k = frame_call(x);

	if (k < x->nopen)
		frames_write(x, t, k + 1, stamp(x, t, ns), 1);
	return k;
}

/* After the Leave of call frame K: it goes, the regions above it enter again. */
static int call_leave_end(struct xp *x, struct track *t, size_t k)
{
	if (k >= x->nopen)
		return 0;
	memmove(&x->frames[k], &x->frames[k + 1], (x->nopen - k - 1) * sizeof(*x->frames));
	x->nopen--;
	return frames_write(x, t, k, t->last, 0);
}

/* A region begin or end on the thread's location T, after a Metric event with the counters
 * read there. */
static int region_event(struct xp *x, struct track *t, struct ox_metrics *mt,
			const struct exp_stream *s, const struct call_event *ev, int64_t ns)
{
	char num[32];
	uint64_t ts;
	uint32_t id;
	size_t k, calls;

	snprintf(num, sizeof(num), "region %" PRIu32, ev->region);
	id = ox_region_id(x, ev->name ? ev->name : num, RK_REGION, 0);
	if (id == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	ts = stamp(x, t, ns);
	if (ev->type == CALL_REGION_ENTER) {
		if (ox_metrics_event(x, mt, s, t->w, ts, ev->snapshot, ev->nsnapshot) ||
		    frame_push(x, id, 1))
			return -1;
		x->stats->regions++;
		return ox_check(x, OTF2_EvtWriter_Enter(t->w, NULL, ts, id), "writing a region");
	}
	for (k = x->nopen; k > 0 && !(x->frames[k - 1].region && x->frames[k - 1].id == id); k--)
		;
	if (k == 0) /* an end without a begin closes nothing */
		return 0;
	k--;
	/* what began inside it leaves; regions left open inside it end here, calls enter again */
	if (frames_write(x, t, k + 1, ts, 1) ||
	    ox_metrics_event(x, mt, s, t->w, ts, ev->snapshot, ev->nsnapshot) ||
	    ox_check(x, OTF2_EvtWriter_Leave(t->w, NULL, ts, id), "writing a region"))
		return -1;
	calls = k;
	for (size_t i = k + 1; i < x->nopen; i++)
		if (!x->frames[i].region)
			x->frames[calls++] = x->frames[i];
	x->nopen = calls;
	return frames_write(x, t, k, ts, 0);
}

/* ProgramBegin (END 0) at the first record of a rank, ProgramEnd (END 1) at its last, as the
 * model placed them: the rank's run, which its MPI analyses measure, on its first location. */
static int program_event(struct xp *x, struct track *t, int rank, const char *exe, int end)
{
	const struct mpi_rank_info *ri = &x->m->ranks[rank];
	uint32_t name = ox_string_id(x, exe && exe[0] ? ox_base_name(exe) : "?");

	if (name == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (end)
		return ox_check(x,
				OTF2_EvtWriter_ProgramEnd(t->w, NULL, stamp(x, t, ri->end_ns), 0),
				"writing the program's end");
	return ox_check(
	    x, OTF2_EvtWriter_ProgramBegin(t->w, NULL, stamp(x, t, ri->start_ns), name, 0, NULL),
	    "writing the program's begin");
}

/* The model location of stream S (not yet written), or MPI_NONE. */
static uint32_t model_loc(const struct xp *x, const struct exp_stream *s)
{
	const struct mpi_rank_info *ri;
	int rank = s->proc ? s->proc->rank : -1;

	if (!x->m || rank < 0 || rank >= x->m->world_size)
		return MPI_NONE;
	ri = &x->m->ranks[rank];
	for (uint32_t l = ri->first_loc; l < ri->first_loc + ri->nlocs && l < x->m->nlocs; l++)
		if (x->m->locs[l].tid == s->tid && !x->model_loc_done[l])
			return l;
	return MPI_NONE;
}

static void cursor_init(const struct xp *x, struct mpi_cursor *c, uint32_t l)
{
	memset(c, 0, sizeof(*c));
	if (l == MPI_NONE)
		return;
	c->m = x->m;
	c->order = x->raw ? x->raw : x->m;
	c->i = x->m->locs[l].first_call;
	c->end = c->i + x->m->locs[l].ncalls;
}

/* One thread: its functions, MPI calls and regions on one location, in time order. */
static int write_stream(struct xp *x, const struct exp_stream *s)
{
	int rank = s->proc ? s->proc->rank : -1;
	uint32_t group = ox_group_of(x, rank, s->pid, s->proc ? s->proc->exe : NULL);
	uint32_t l = model_loc(x, s), id;
	struct track t = {0};
	struct ox_metrics mt = {0};
	struct call_walker w;
	struct call_event ev;
	struct mpi_cursor c;
	char tname[48];
	int have = 0, ret = 0, program;
	int64_t ns = 0;

	if (group == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	snprintf(tname, sizeof(tname), "thread %d", (int)s->tid);
	program = x->m && rank >= 0 && rank < x->m->world_size && x->rank_loc[rank] < 0 &&
		  x->m->ranks[rank].present;
	if (loc_open(x, &t, group, tname) ||
	    (program && program_event(x, &t, rank, s->proc->exe, 0)))
		return -1;
	cursor_init(x, &c, l);
	if (l != MPI_NONE)
		x->model_loc_done[l] = 1;
	x->nopen = 0;
	if ((ret = call_walker_open(&w, s, x->err, x->errlen)) < 0) {
		call_walker_close(&w);
		x->failed = 1;
		x->code = ret;
		return -1;
	}
	for (;;) {
		if (!have) {
			ret = call_walker_next(&w, &ev, x->err, x->errlen);
			if (ret < 0) {
				x->failed = 1;
				x->code = ret;
				break;
			}
			have = ret > 0;
			ns = have ? align(x, rank, ev.ns) : 0;
		}
		if (!have && !cursor_more(&c))
			break;
		/* at one time: an MPI call's leave first, its enter after function events */
		if (cursor_more(&c) &&
		    (!have || cursor_key(&c) < ns || (cursor_key(&c) == ns && c.leave))) {
			const struct mpi_call *mc = &c.m->calls[c.i];
			size_t k = c.leave ? call_leave_begin(x, &t, mc->leave_ns) : 0;
			int leave = c.leave;

			if (cursor_emit(x, &t, &c))
				break;
			if (leave ? call_leave_end(x, &t, k)
				  : frame_push(x,
					       ox_region_id(x, mpi_routine_name(mc->routine),
							    RK_MPI, mc->routine),
					       0))
				break;
			continue;
		}
		have = 0;
		switch (ev.type) {
		case CALL_ENTER:
		case CALL_EXIT:
			id = function_region(x, s,
					     symtab_place(x->st, s->pid, s->image, ev.addr, ev.ns));
			if (id == UINT32_MAX) {
				ox_fail(x, -ENOMEM, "out of memory");
				break;
			}
			if (ev.type == CALL_ENTER) {
				x->stats->calls++;
				if (!frame_push(x, id, 0))
					ox_check(
					    x,
					    OTF2_EvtWriter_Enter(t.w, NULL, stamp(x, &t, ns), id),
					    "writing a function call");
			} else {
				size_t k = call_leave_begin(x, &t, ns);

				if (!ox_check(x,
					      OTF2_EvtWriter_Leave(t.w, NULL, stamp(x, &t, ns), id),
					      "writing a function call"))
					call_leave_end(x, &t, k);
			}
			break;
		case CALL_REGION_ENTER:
		case CALL_REGION_EXIT:
			region_event(x, &t, &mt, s, &ev, ns);
			break;
		}
		if (x->failed)
			break;
	}
	/* regions a killed run left open end with the stream's last record */
	if (!x->failed && x->nopen)
		frames_write(x, &t, 0, stamp(x, &t, align(x, rank, w.th.last_ns)), 1);
	x->nopen = 0;
	if (!x->failed && w.th.name[0]) {
		snprintf(tname, sizeof(tname), "%s (thread %d)", w.th.name, (int)s->tid);
		x->locs[t.loc].name = ox_string_id(x, tname);
		if (x->locs[t.loc].name == UINT32_MAX)
			ox_fail(x, -ENOMEM, "out of memory");
	}
	x->stats->synthetic_exits += w.th.synthetic_exits;
	x->stats->unmatched_exits += w.th.unmatched_exits;
	x->stats->lost_records += w.th.lost_records;
	call_walker_close(&w);
	ox_metrics_release(&mt);
	if (program && !x->failed)
		program_event(x, &t, rank, s->proc->exe, 1);
	loc_close(x, &t);
	return x->failed ? -1 : 0;
}

/* MPI calls of threads without a stream, and ranks without any location (the MPI
 * communicator definitions need a location per rank). */
static int write_leftovers(struct xp *x)
{
	struct track t = {0};
	struct mpi_cursor c;
	char name[64];

	if (!x->m)
		return 0;
	for (uint32_t l = 0; l < x->m->nlocs && !x->failed; l++) {
		const struct mpi_loc *ml = &x->m->locs[l];

		if (x->model_loc_done[l] || (ml->ncalls == 0 && x->rank_loc[ml->rank] >= 0))
			continue;
		snprintf(name, sizeof(name), "thread %d (MPI calls only)", (int)ml->tid);
		if (loc_open(x, &t, ox_group_of(x, ml->rank, 0, NULL), name))
			return -1;
		cursor_init(x, &c, l);
		x->model_loc_done[l] = 1;
		x->stats->mpi_unplaced += ml->ncalls;
		while (cursor_more(&c) && !cursor_emit(x, &t, &c))
			;
		loc_close(x, &t);
	}
	for (int r = 0; r < x->m->world_size && !x->failed; r++) {
		if (x->rank_loc[r] >= 0)
			continue;
		if (loc_open(x, &t, ox_group_of(x, r, 0, NULL), "no stream"))
			return -1;
		loc_close(x, &t);
	}
	return x->failed ? -1 : 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	(void)ud;
	(void)type;
	(void)loc;
	(void)caller;
	(void) final;
	return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush};

static int export_all(struct xp *x)
{
	const struct mpi_model *m = x->m;

	if (m) {
		x->rank_loc = malloc(((size_t)m->world_size + 1) * sizeof(int32_t));
		x->model_loc_done = calloc(m->nlocs + 1, 1);
		x->comm_rank = calloc(m->ncomms + 1, sizeof(int32_t *));
		if (!x->rank_loc || !x->model_loc_done || !x->comm_rank)
			return ox_fail(x, -ENOMEM, "out of memory");
		for (int r = 0; r < m->world_size; r++)
			x->rank_loc[r] = -1;
		if (find_icolls(x))
			return -1;
	}
	if (ox_check(x, OTF2_Archive_SetFlushCallbacks(x->ar, &flush_callbacks, NULL),
		     "setting up the archive") ||
	    ox_check(x, OTF2_Archive_SetSerialCollectiveCallbacks(x->ar), "setting up the archive"))
		return -1;
	OTF2_Archive_SetCreator(x->ar, x->e->created_by && x->e->created_by[0] ? x->e->created_by
									       : "perfscope");
	OTF2_Archive_SetDescription(x->ar, "perfscope export of an experiment");
	if (x->e->host && x->e->host[0])
		OTF2_Archive_SetMachineName(x->ar, x->e->host);
	if (ox_check(x, OTF2_Archive_OpenEvtFiles(x->ar), "opening the event files"))
		return -1;
	for (size_t i = 0; i < x->e->nstreams && !x->failed; i++)
		write_stream(x, &x->e->streams[i]);
	if (!x->failed)
		write_leftovers(x);
	if (!x->failed)
		ox_check(x, OTF2_Archive_CloseEvtFiles(x->ar), "closing the event files");
	if (!x->failed)
		ox_write_local_definitions(x);
	if (!x->failed)
		ox_write_definitions(x);
	x->stats->processes = x->ngroups;
	return x->failed ? -1 : 0;
}

int otf2_export(const char *archive, struct experiment *e, struct symtab *st,
		const struct mpi_model *m, const struct mpi_model *raw,
		struct otf2_export_stats *stats, char *err, size_t errlen)
{
	/* the archive's entries, the anchor last: a reader finds it once the rest is in place */
	static const char *const entries[] = {OTF2_EXPORT_NAME, OTF2_EXPORT_NAME ".def",
					      OTF2_EXPORT_NAME ".otf2"};
	OTF2_ErrorCallback old;
	struct otf2_export_stats local;
	struct outdir od;
	struct xp x;
	int ret;

	ret = outdir_open(&od, archive, err, errlen);
	if (ret)
		return ret;
	old = OTF2_Error_RegisterCallback(ox_error_cb, NULL);
	memset(&x, 0, sizeof(x));
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	x.archive = archive;
	x.e = e;
	x.st = st;
	x.m = m;
	/* the uncorrected model orders the calls only when it is the same model otherwise */
	x.raw = raw && m && raw->ncalls == m->ncalls && raw->nlocs == m->nlocs ? raw : NULL;
	x.stats = stats;
	x.err = err;
	x.errlen = errlen;
	x.tmin = UINT64_MAX;
	ox_msg[0] = 0;
	/* written aside, inside ARCHIVE; messages name ARCHIVE */
	x.ar = OTF2_Archive_Open(od.tmp, OTF2_EXPORT_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK,
				 DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!x.ar) {
		ox_fail(&x, -EIO, "%s: cannot create the OTF2 archive%s%s", archive,
			ox_msg[0] ? ": " : "", ox_msg);
		ret = -EIO;
	} else {
		ret = export_all(&x);
		if (ox_check(&x, OTF2_Archive_Close(x.ar), "closing the archive"))
			ret = -1;
	}
	if (ret < 0)
		ret = x.code < 0 ? x.code : strstr(err, "out of memory") ? -ENOMEM : -EIO;
	OTF2_Error_RegisterCallback(old, NULL);
	ox_release(&x);
	if (ret < 0)
		outdir_discard(&od, otf2_export_remove);
	else
		ret = outdir_commit(&od, entries, sizeof(entries) / sizeof(entries[0]),
				    otf2_export_remove, err, errlen);
	return ret;
}

/* Remove DIR/NAME when it is a regular file. */