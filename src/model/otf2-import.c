/*
 * otf2-import.c - an OTF2 archive (Score-P's, or perfscope export's) into the MPI model
 * (mpi-model.h). The global definitions give the ranks (the locations of the MPI
 * COMM_LOCATIONS group, or the process location groups in order), the communicators as
 * world ranks, the regions that are MPI routines and the clock. Each location's events are
 * then read on their own: the Enter/Leave of an MPI routine is a call, and the message and
 * collective events between them are its items. Everything else (other regions, metrics,
 * I/O) is not part of the MPI model and is skipped.
 */
#include "model/otf2-anchor.h"
#include "model/otf2-imp.h"

#include "format/format.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- events ---- */

/* Ticks to ns since the global offset (a damaged time is noted: reading stops after the
 * location). */
static int64_t ns_of(struct imp *im, OTF2_TimeStamp t)
{
	return otf2i_event_ns(im, t);
}

/* The model communicator of OTF2 communicator ID as seen by the current rank, or -1. */
static long comm_of(struct imp *im, OTF2_CommRef id)
{
	long c = otf2i_lookup(&im->comm_ix, id);
	const struct imp_group *g;
	int32_t *members, self;
	uint64_t key;
	long ret;

	if (c < 0 || im->comms[c].group == UINT64_MAX)
		return -1;
	g = &im->groups[im->comms[c].group];
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
		/* one communicator per rank: its own key */
		self = im->cur->rank;
		key = (1ull << 63) | ((uint64_t)(uint32_t)c << 32) | (uint32_t)self;
		return mpi_model_add_comm(im->m, key, &self, 1);
	}
	if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
		return -1;
	if (im->comms[c].model >= 0)
		return im->comms[c].model;
	members = malloc((g->n ? g->n : 1) * sizeof(*members));
	if (!members)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n; i++)
		members[i] = (int32_t)g->members[i];
	ret = mpi_model_add_comm(im->m, (uint64_t)c, members, g->n);
	free(members);
	if (ret >= 0)
		im->comms[c].model = ret;
	return ret;
}

/* The world rank of communicator rank R of model communicator C (-1 for none). */
static int32_t world_rank(const struct imp *im, long c, uint32_t r)
{
	const struct mpi_comm_info *ci = &im->m->comms[c];

	if (r == OTF2_UNDEFINED_UINT32 || r >= ci->size)
		return PSC_MPI_ANY;
	return ci->members[r];
}

/* In an item of the open call: the COLL item of a non-blocking collective's start, whose
 * communicator, root and bytes its completion gives (pair_nbc); not in the model's items. */
#define IMP_F_NBC_START 0x40u

/* IT as an item of the open MPI call. */
static OTF2_CallbackCode push_item(struct imp *im, const struct mpi_item *it)
{
	if (ARRAY_GROW(im->call.items, im->call.nitems + 1, im->call.cap))
		return CB_OOM(im);
	im->call.items[im->call.nitems++] = *it;
	return OTF2_CALLBACK_SUCCESS;
}

/* Room for one more non-blocking collective start or completion in *ARR. */
static struct imp_nbc *nbc_next(struct imp *im, struct imp_nbc **arr, size_t *n, size_t *cap)
{
	struct imp_nbc *e;

	if (ARRAY_GROW(*arr, *n + 1, *cap))
		return NULL;
	e = &(*arr)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->rank = im->cur->rank;
	e->seq = im->nbc_seq++;
	e->t = im->call.enter_ns;
	return e;
}

/* An item of the open MPI call; peer is a rank in communicator COMM, converted here. Without
 * a communicator (the request events have none in OTF2: matching gives them their request's)
 * the item has none: MPI_NONE, peer PSC_MPI_ANY. */
static OTF2_CallbackCode add_item(struct imp *im, enum psc_mpi_item kind, OTF2_CommRef comm,
				  uint32_t peer, uint32_t tag, uint64_t bytes, uint64_t bytes2,
				  uint64_t request)
{
	struct mpi_item it;
	long c = MPI_NONE;

	if (im->call.depth == 0) {
		im->stray_items++;
		return OTF2_CALLBACK_SUCCESS;
	}
	memset(&it, 0, sizeof(it));
	it.peer = PSC_MPI_ANY;
	if (comm == OTF2_UNDEFINED_COMM && kind != PSC_MPI_ITEM_IRECV &&
	    kind != PSC_MPI_ITEM_ISEND_DONE && kind != PSC_MPI_ITEM_CANCEL)
		im->nocomm_items++;
	if (comm != OTF2_UNDEFINED_COMM) {
		c = comm_of(im, comm);
		if (c == -ENOMEM)
			return CB_OOM(im);
		if (c < 0)
			return otf2i_fail(im, -EINVAL,
					  "location %" PRIu64 ": communicator %" PRIu32
					  " is not defined or not an MPI communicator",
					  im->cur->id, (uint32_t)comm),
			       OTF2_CALLBACK_INTERRUPT;
		it.peer = world_rank(im, c, peer);
	}
	it.kind = (uint8_t)kind;
	it.comm = (uint32_t)c;
	it.tag = tag == OTF2_UNDEFINED_UINT32 ? PSC_MPI_ANY : (int32_t)tag;
	it.bytes = bytes;
	if (kind == PSC_MPI_ITEM_COLL)
		it.bytes2 = bytes2;
	else
		it.request = request;
	if (im->call.routine == MPI_ROUTINE_Ssend || im->call.routine == MPI_ROUTINE_Issend)
		it.flags = PSC_MPI_F_SYNC;
	return push_item(im, &it);
}

/* Add NAME to the list of routines left out (the first few, each once). */
static void note_unknown(struct imp *im, const char *name)
{
	size_t n = strlen(im->unknown_names), k = strlen(name);
	const char *p = im->unknown_names;

	while ((p = strstr(p, name))) {
		if ((p == im->unknown_names || p[-1] == ' ') && (p[k] == ',' || p[k] == 0))
			return;
		p += k;
	}
	if (n + k + 8 >= sizeof(im->unknown_names)) {
		if (!strstr(im->unknown_names, ", ..."))
			snprintf(im->unknown_names + n, sizeof(im->unknown_names) - n, ", ...");
		return;
	}
	snprintf(im->unknown_names + n, sizeof(im->unknown_names) - n, "%s%s", n ? ", " : "", name);
}

#define EV_HEAD(name, ...)                                                                         \
	static OTF2_CallbackCode name(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t UNUSED,        \
				      uint64_t pos UNUSED, void *ud,                               \
				      OTF2_AttributeList *al UNUSED, __VA_ARGS__)

/* An event of the current location at T: the rank's run spans it. */
static void span(struct imp *im, OTF2_TimeStamp t)
{
	struct imp_span *sp = &im->spans[im->cur->rank];
	int64_t ns = ns_of(im, t);

	if (!sp->seen || ns < sp->first)
		sp->first = ns;
	if (!sp->seen || ns > sp->last)
		sp->last = ns;
	sp->seen = 1;
}

EV_HEAD(ev_program_begin, OTF2_StringRef name UNUSED, uint32_t n UNUSED,
	const OTF2_StringRef *args UNUSED)
{
	span(ud, t);
	return OTF2_CALLBACK_SUCCESS;
}

EV_HEAD(ev_program_end, int64_t status UNUSED)
{
	span(ud, t);
	return OTF2_CALLBACK_SUCCESS;
}

/* L's location in the model, added: its index, or a negative errno with the import failed. */
static long model_loc(struct imp *im, const struct imp_loc *l)
{
	long loc = mpi_model_add_loc(im->m, l->rank, (pid_t)l->thread);

	if (loc == -E2BIG)
		return otf2i_fail(im, -E2BIG,
				  "location %" PRIu64 ": more than %" PRIu32
				  " locations call MPI, the most a model holds",
				  l->id, MPI_LOCS_MAX);
	return loc < 0 ? otf2i_fail(im, -ENOMEM, "out of memory") : loc;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct imp *im = ud;
	long r = otf2i_lookup(&im->region_ix, region);

	span(im, t);
	if (r < 0 || im->regions[r].routine == -1)
		return OTF2_CALLBACK_SUCCESS;
	if (im->call.depth++ > 0) {
		im->nested_calls++;
		return OTF2_CALLBACK_SUCCESS;
	}
	im->call.routine = im->regions[r].routine;
	im->call.region = r;
	im->call.enter_ns = ns_of(im, t);
	im->call.nitems = 0;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct imp *im = ud;
	long r = otf2i_lookup(&im->region_ix, region), ret;

	span(im, t);
	if (r < 0 || im->regions[r].routine == -1 || im->call.depth == 0)
		return OTF2_CALLBACK_SUCCESS;
	if (--im->call.depth > 0)
		return OTF2_CALLBACK_SUCCESS;
	if (im->call.routine < 0) {
		note_unknown(im, otf2i_string_of(im, im->regions[im->call.region].name));
		im->unknown_calls++;
		im->stray_items += im->call.nitems;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (im->cur_model_loc < 0 && (im->cur_model_loc = model_loc(im, im->cur)) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	ret = mpi_model_add_call(im->m, (uint32_t)im->cur_model_loc, (uint32_t)im->call.routine,
				 im->call.enter_ns, ns_of(im, t), MPI_NONE);
	if (ret < 0)
		return CB_OOM(im);
	for (size_t i = 0; i < im->call.nitems; i++) {
		const struct mpi_item *it = &im->call.items[i];
		struct mpi_item *d;
		struct imp_nbc *st;

		if (mpi_model_add_item(im->m, it) < 0)
			return CB_OOM(im);
		if (!(it->flags & IMP_F_NBC_START))
			continue;
		d = &im->m->items[im->m->nitems - 1];
		st = nbc_next(im, &im->nbc_starts, &im->nnbc_starts, &im->nbc_starts_cap);
		if (!st)
			return CB_OOM(im);
		st->request = it->request;
		st->item = (uint32_t)(im->m->nitems - 1);
		d->flags = 0;
		d->request = 0;
	}
	return OTF2_CALLBACK_SUCCESS;
}

EV_HEAD(ev_send, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return add_item(ud, PSC_MPI_ITEM_SEND, comm, receiver, tag, len, 0, 0);
}

EV_HEAD(ev_isend, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_ISEND, comm, receiver, tag, len, 0, req);
}

EV_HEAD(ev_isend_complete, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_ISEND_DONE, OTF2_UNDEFINED_COMM, 0, 0, 0, 0, req);
}

EV_HEAD(ev_irecv_request, uint64_t req)
{
	/* the source and tag as posted are not in OTF2: any */
	return add_item(ud, PSC_MPI_ITEM_IRECV, OTF2_UNDEFINED_COMM, 0, OTF2_UNDEFINED_UINT32, 0, 0,
			req);
}

EV_HEAD(ev_irecv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_RECV, comm, sender, tag, len, 0, req);
}

EV_HEAD(ev_recv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return add_item(ud, PSC_MPI_ITEM_RECV, comm, sender, tag, len, 0, 0);
}

EV_HEAD(ev_cancelled, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_CANCEL, OTF2_UNDEFINED_COMM, 0, 0, 0, 0, req);
}

EV_HEAD(ev_coll_end, OTF2_CollectiveOp op UNUSED, OTF2_CommRef comm, uint32_t root, uint64_t sent,
	uint64_t received)
{
	return add_item(ud, PSC_MPI_ITEM_COLL, comm, root, OTF2_UNDEFINED_UINT32, sent, received,
			0);
}

/* A non-blocking collective started by the open call (an I-call): its COLL item, completed
 * by pair_nbc, and its COLL_REQ item, as the runtime records them. Outside an I-call (OTF2
 * allows MPI_Comm_idup's, which perfscope does not model) it is left out. */
EV_HEAD(ev_nbc_request, uint64_t req)
{
	struct imp *im = ud;
	struct mpi_item it;

	if (im->call.depth == 0 || im->call.routine < 0 ||
	    mpi_routine_kind((unsigned)im->call.routine) != MPI_KIND_ICOLL) {
		im->stray_items += im->call.depth == 0;
		return OTF2_CALLBACK_SUCCESS;
	}
	memset(&it, 0, sizeof(it));
	it.kind = PSC_MPI_ITEM_COLL;
	it.flags = IMP_F_NBC_START;
	it.comm = MPI_NONE;
	it.peer = PSC_MPI_ANY;
	it.tag = PSC_MPI_ANY;
	/* until push_item takes it out: the word is bytes2's, which pair_nbc sets */
	it.request = req;
	if (push_item(im, &it) != OTF2_CALLBACK_SUCCESS)
		return OTF2_CALLBACK_INTERRUPT;
	it.kind = PSC_MPI_ITEM_COLL_REQ;
	it.flags = 0;
	return push_item(im, &it);
}

/* A non-blocking collective completed by the open call (Wait/Test family): its COLL_REQ item,
 * and what it was for its start. Communicator creation and release are no collectives here. */
EV_HEAD(ev_nbc_complete, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
	uint64_t received, uint64_t req)
{
	struct imp *im = ud;
	struct imp_nbc *d;
	OTF2_CallbackCode ret;

	if (op == OTF2_COLLECTIVE_OP_CREATE_HANDLE || op == OTF2_COLLECTIVE_OP_DESTROY_HANDLE ||
	    op == OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE ||
	    op == OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE)
		return OTF2_CALLBACK_SUCCESS;
	ret = add_item(im, PSC_MPI_ITEM_COLL_REQ, comm, OTF2_UNDEFINED_UINT32,
		       OTF2_UNDEFINED_UINT32, 0, 0, req);
	if (ret != OTF2_CALLBACK_SUCCESS || im->call.depth == 0 || comm == OTF2_UNDEFINED_COMM)
		return ret;
	d = nbc_next(im, &im->nbc_dones, &im->nnbc_dones, &im->nbc_dones_cap);
	if (!d)
		return CB_OOM(im);
	d->request = req;
	d->comm = im->call.items[im->call.nitems - 1].comm;
	d->root = world_rank(im, (long)d->comm, root);
	d->sent = sent;
	d->received = received;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_ErrorCode read_location(struct imp *im, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cbs,
				    const struct imp_loc *l)
{
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
	OTF2_ErrorCode code;
	uint64_t n;

	if (!er)
		return OTF2_ERROR_INVALID_ARGUMENT;
	im->cur = l;
	im->last_ns = 0;
	im->cur_model_loc = -1;
	im->call.depth = 0;
	/* the rank's first location always, later threads when they called MPI */
	if (l->thread == 0 && (im->cur_model_loc = model_loc(im, l)) < 0)
		return OTF2_ERROR_INVALID_ARGUMENT;
	code = OTF2_Reader_RegisterEvtCallbacks(rd, er, cbs, im);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
	if (im->call.depth > 0)
		im->open_calls++;
	OTF2_Reader_CloseEvtReader(rd, er);
	return code;
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cbs = OTF2_EvtReaderCallbacks_New();

	if (!cbs)
		return NULL;
	OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
	OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cbs, ev_program_begin);
	OTF2_EvtReaderCallbacks_SetProgramEndCallback(cbs, ev_program_end);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cbs, ev_isend_complete);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cbs, ev_irecv_request);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cbs, ev_cancelled);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cbs, ev_coll_end);
	OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cbs, ev_nbc_request);
	OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cbs, ev_nbc_complete);
	return cbs;
}

static int read_events(struct imp *im, OTF2_Reader *rd)
{
	OTF2_EvtReaderCallbacks *cbs = event_callbacks();
	OTF2_ErrorCode code = OTF2_SUCCESS;
	char what[64];

	if (!cbs)
		return otf2i_fail(im, -ENOMEM, "out of memory");
	code = OTF2_Reader_OpenEvtFiles(rd);
	if (code != OTF2_SUCCESS) {
		OTF2_EvtReaderCallbacks_Delete(cbs);
		return otf2i_fail_otf2(im, code, "opening the event files");
	}
	for (size_t i = 0; i < im->nlocs && code == OTF2_SUCCESS && !im->failed; i++) {
		if (im->locs[i].rank < 0)
			continue;
		code = read_location(im, rd, cbs, &im->locs[i]);
		if (code != OTF2_SUCCESS && !im->failed) {
			snprintf(what, sizeof(what), "events of location %" PRIu64, im->locs[i].id);
			otf2i_fail_otf2(im, code, what);
		}
	}
	OTF2_Reader_CloseEvtFiles(rd);
	OTF2_EvtReaderCallbacks_Delete(cbs);
	return im->failed ? -EINVAL : 0;
}

/* By rank and request. */
static int cmp_nbc_key(const struct imp_nbc *x, const struct imp_nbc *y)
{
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->request > y->request) - (x->request < y->request);
}

/* By rank, request, time and reading order. */
static int cmp_nbc(const void *a, const void *b)
{
	const struct imp_nbc *x = a, *y = b;
	int c = cmp_nbc_key(x, y);

	if (c)
		return c;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Each non-blocking collective's start (its COLL item, and its COLL_REQ item's communicator)
 * gets the communicator, root and bytes of its completion: the next event of the same rank
 * and request in time (calls' enters; at the same time the start first), when that is a
 * completion, as mpi-causal.c pairs them. A request id is reused once done, also by another
 * thread of the rank, whose location may be read before or after: reading order says nothing.
 * A start never completed keeps no communicator: counted, and left out of the collectives; a
 * completion without a start is left alone.
 */
static void pair_nbc(struct imp *im)
{
	size_t j = 0;

	if (im->nnbc_starts == 0)
		return;
	qsort(im->nbc_starts, im->nnbc_starts, sizeof(*im->nbc_starts), cmp_nbc);
	if (im->nnbc_dones)
		qsort(im->nbc_dones, im->nnbc_dones, sizeof(*im->nbc_dones), cmp_nbc);
	for (size_t i = 0; i < im->nnbc_starts; i++) {
		const struct imp_nbc *s = &im->nbc_starts[i], *d, *next;
		struct mpi_item *it = &im->m->items[s->item];

		/* completions before this start (theirs was not in the trace) */
		while (j < im->nnbc_dones &&
		       (cmp_nbc_key(&im->nbc_dones[j], s) < 0 ||
			(cmp_nbc_key(&im->nbc_dones[j], s) == 0 && im->nbc_dones[j].t < s->t)))
			j++;
		d = j < im->nnbc_dones ? &im->nbc_dones[j] : NULL;
		next = i + 1 < im->nnbc_starts ? &im->nbc_starts[i + 1] : NULL;
		if (!d || cmp_nbc_key(d, s) > 0 ||
		    (next && cmp_nbc_key(next, s) == 0 && next->t <= d->t)) {
			im->nbc_open++;
			continue;
		}
		it->comm = d->comm;
		it->peer = d->root;
		it->bytes = d->sent;
		it->bytes2 = d->received;
		/* its COLL_REQ item, right after it */
		if (s->item + 1 < im->m->nitems && it[1].kind == PSC_MPI_ITEM_COLL_REQ)
			it[1].comm = d->comm;
		j++;
	}
}

/* Say what was left out, as the model's warnings. */
static int warn_skipped(struct imp *im)
{
	const struct {
		uint64_t n;
		const char *what;
	} w[] = {
	    {im->unknown_calls, "calls of MPI routines perfscope does not model (left out):"},
	    {im->stray_items, "MPI events outside a modelled MPI call (left out)"},
	    {im->nested_calls, "MPI calls inside other MPI calls (taken as part of the outer one)"},
	    {im->open_calls, "locations end inside an MPI call (cut short; the call is left out)"},
	    {im->nocomm_items,
	     "MPI message or collective events name no communicator (not matched)"},
	    {im->nbc_open, "non-blocking collectives never completed (not matched)"},
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (w[i].n)
			ret |= mpi_model_warn(im->m, "%s: %" PRIu64 " %s%s%s", im->anchor, w[i].n,
					      w[i].what, i == 0 ? " " : "",
					      i == 0 ? im->unknown_names : "");
	return ret < 0 ? -ENOMEM : 0;
}

/* After the build: each rank's run from its first to its last event (ProgramBegin/End,
 * functions), not its MPI calls alone, as mpi_model_load widens it to its records. */
static void widen(struct imp *im)
{
	struct mpi_model *m = im->m;
	int any = m->ncalls > 0;

	for (int r = 0; r < m->world_size; r++) {
		struct mpi_rank_info *ri = &m->ranks[r];
		const struct imp_span *sp = &im->spans[r];
		int calls = 0;

		for (uint32_t l = ri->first_loc; l < ri->first_loc + ri->nlocs; l++)
			calls |= m->locs[l].ncalls > 0;
		if (!sp->seen)
			continue;
		if (!calls || sp->first < ri->start_ns)
			ri->start_ns = sp->first;
		if (!calls || sp->last > ri->end_ns)
			ri->end_ns = sp->last;
		if (!any || ri->start_ns < m->start_ns)
			m->start_ns = ri->start_ns;
		if (!any || ri->end_ns > m->end_ns)
			m->end_ns = ri->end_ns;
		any = 1;
	}
}

int mpi_model_load_otf2(struct mpi_model *m, const char *anchor, unsigned flags, char *err,
			size_t errlen)
{
	struct imp im;
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, im.msg);
	OTF2_Reader *rd;
	OTF2_ErrorCode code;
	int ret;

	memset(&im, 0, sizeof(im));
	im.m = m;
	im.anchor = anchor;
	im.err = err;
	im.errlen = errlen;
	im.msg[0] = 0;
	if (!m->source && !(m->source = strdup(anchor))) {
		ret = otf2i_fail(&im, -ENOMEM, "out of memory");
		goto out;
	}
	ret = otf2_anchor_check(anchor, err, errlen);
	if (ret < 0)
		goto out;
	rd = OTF2_Reader_Open(anchor);
	if (!rd) {
		ret = otf2i_fail(&im, -ENOENT, "cannot open the OTF2 archive%s%s",
				 im.msg[0] ? ": " : "", im.msg);
		goto out;
	}
	code = OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	if (code != OTF2_SUCCESS) {
		ret = otf2i_fail_otf2(&im, code, "opening the archive");
		goto close;
	}
	ret = otf2i_read_definitions(&im, rd);
	if (ret == 0)
		ret = otf2i_read_local_definitions(&im, rd);
	if (ret == 0)
		ret = read_events(&im, rd);
	if (ret == 0) {
		pair_nbc(&im);
		ret = warn_skipped(&im);
	}
close:
	OTF2_Reader_Close(rd);
	if (ret == 0)
		ret = mpi_model_build(m, flags | MPI_BUILD_ALIGNED, err, errlen);
	if (ret == 0)
		widen(&im);
out:
	OTF2_Error_RegisterCallback(old, NULL);
	otf2i_release(&im);
	return ret;
}
