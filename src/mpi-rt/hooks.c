/*
 * hooks.c - the family hooks of the generated wrappers (mpi-hooks.h): MPI_Init and
 * MPI_Finalize, point-to-point messages, requests and their completion. A post hook builds
 * the call's items (format.h PSC_MPI_ITEM_*) and writes the leave record; a pre hook (some
 * families) saves what the PMPI call is about to overwrite. Collectives and communicators
 * are in hooks-coll.c. Blocking Send/Recv take no lock and allocate nothing.
 */
#include "mpi-hooks.h"

#include "mpi-rt/clocksync.h"
#include "mpi-rt/load.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int mpi_recording;

/* The private duplicate of MPI_COMM_WORLD the clock measurements run on. */
static MPI_Comm clock_comm = MPI_COMM_NULL;

/* ----- per-thread scratch ----- */

struct scratch {
	void *p;
	size_t cap;
};

static __thread struct scratch scratch[SCRATCH_SLOTS];
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_release(void *arg)
{
	struct scratch *s = arg;

	for (int i = 0; i < SCRATCH_SLOTS; i++) {
		free(s[i].p);
		s[i].p = NULL;
		s[i].cap = 0;
	}
}

static void scratch_key_init(void)
{
	pthread_key_create(&scratch_key, scratch_release);
}

void *mpi_scratch(enum mpi_scratch_slot slot, size_t bytes)
{
	struct scratch *s = &scratch[slot];
	size_t cap;
	void *p;

	if (likely(bytes <= s->cap))
		return s->p;
	cap = s->cap ? s->cap * 2 : 1024;
	while (cap < bytes)
		cap *= 2;
	p = realloc(s->p, cap);
	if (!p)
		return NULL;
	if (!s->cap) { /* this thread's first: free them all when it exits */
		pthread_once(&scratch_once, scratch_key_init);
		pthread_setspecific(scratch_key, scratch);
	}
	s->p = p;
	s->cap = cap;
	return p;
}

/* Fortran's MPI_IN_PLACE (Open MPI's common block; absent elsewhere). */
extern int mpi_fortran_in_place_ __attribute__((weak));

void *mpi_f_buf(void *buf)
{
	if (&mpi_fortran_in_place_ && buf == (void *)&mpi_fortran_in_place_)
		return MPI_IN_PLACE;
	return buf;
}

/* ----- MPI_Init, MPI_Finalize ----- */

/* After PMPI_Init(_thread): the rank, the init record, the communicators, the first clock
 * measurement and the load sampler, when every rank records; the wrappers record from then on. */
static void mpi_started(struct mpi_call *c, int ret, int provided)
{
	uint64_t payload[2];
	int active = psc_rt_active(), all_active = 0;

	/* an MPI library loaded with dlopen (not linked) is mapped by now */
	mpi_sites_scan();
	if (ret != MPI_SUCCESS) {
		mpi_call_end(c, NULL, 0);
		return;
	}
	/* the setup below is collective: either every rank records or none does, so that a rank
	 * whose recording failed (or that runs without perfscope) never leaves the others waiting
	 */
	if (PMPI_Allreduce(&active, &all_active, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
		MPI_SUCCESS ||
	    !all_active) {
		mpi_call_end(c, NULL, 0);
		return;
	}
	PMPI_Comm_rank(MPI_COMM_WORLD, &mpi_world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &mpi_world_size);
	psc_rt_set_rank(mpi_world_rank, mpi_world_size);
	payload[0] = (uint64_t)mpi_world_size;
	payload[1] = (uint64_t)(uint32_t)provided | (uint64_t)PSC_MPI_RECORD_VERSION << 32;
	psc_rt_record(PSC_REC_MPI_INIT, (uint32_t)mpi_world_rank, payload, 2);
	comms_init();
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &clock_comm) != MPI_SUCCESS)
		clock_comm = MPI_COMM_NULL;
	/* every rank dup'ed, or the MPI library is broken: measure on what there is */
	if (clock_comm != MPI_COMM_NULL)
		mpi_clock_measure(PSC_MPI_CLOCK_INIT, clock_comm);
	mpi_load_start(MPI_COMM_WORLD);
	__atomic_store_n(&mpi_recording, 1, __ATOMIC_RELEASE);
	mpi_call_end(c, NULL, 0);
}

void post_init(struct mpi_call *c, int ret, int *argc, char ***argv)
{
	int provided = MPI_THREAD_SINGLE;

	(void)argc;
	(void)argv;
	if (ret == MPI_SUCCESS)
		PMPI_Query_thread(&provided);
	mpi_started(c, ret, provided);
}

void post_init_thread(struct mpi_call *c, int ret, int *argc, char ***argv, int required,
		      int *provided)
{
	(void)argc;
	(void)argv;
	(void)required;
	mpi_started(c, ret, ret == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
}

void pre_finalize(struct mpi_call *c)
{
	(void)c;
	mpi_load_stop();
	if (clock_comm != MPI_COMM_NULL) {
		mpi_clock_measure(PSC_MPI_CLOCK_FINALIZE, clock_comm);
		PMPI_Comm_free(&clock_comm);
	}
}

void post_finalize(struct mpi_call *c, int ret)
{
	(void)ret;
	mpi_call_end(c, NULL, 0);
	__atomic_store_n(&mpi_recording, 0, __ATOMIC_RELEASE);
}

/* ----- point-to-point ----- */

static inline void item_set(uint64_t *it, enum psc_mpi_item kind, unsigned flags, uint32_t comm,
			    int32_t peer, int32_t tag, uint64_t bytes, uint64_t id)
{
	it[0] = psc_mpi_item_word0(kind, flags, comm);
	it[1] = psc_mpi_pack2(peer, tag);
	it[2] = bytes;
	it[3] = id;
}

/* The SEND item of a blocking send; 0 items for MPI_PROC_NULL or a failed call. */
static inline size_t send_item(uint64_t *it, int ret, unsigned flags, int count, MPI_Datatype type,
			       int dest, int tag, MPI_Comm comm)
{
	struct mpi_comm *cm;

	if (unlikely(ret != MPI_SUCCESS) || unlikely(dest == MPI_PROC_NULL))
		return 0;
	cm = comms_find(comm);
	if (unlikely(!cm))
		return 0;
	item_set(it, PSC_MPI_ITEM_SEND, flags, cm->index, comm_peer(cm, dest), tag,
		 mpi_bytes(count, type), 0);
	return 1;
}

/* The RECV item of a blocking receive, from its status. */
static inline size_t recv_item(uint64_t *it, int ret, MPI_Comm comm, const MPI_Status *st)
{
	struct mpi_comm *cm;

	if (unlikely(ret != MPI_SUCCESS) || unlikely(!st) ||
	    unlikely(st->MPI_SOURCE == MPI_PROC_NULL))
		return 0;
	cm = comms_find(comm);
	if (unlikely(!cm))
		return 0;
	item_set(it, PSC_MPI_ITEM_RECV, 0, cm->index, comm_peer(cm, st->MPI_SOURCE), st->MPI_TAG,
		 mpi_status_bytes(st), 0);
	return 1;
}

void post_send(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
	       int dest, int tag, MPI_Comm comm)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf;
	mpi_call_end(c, it, send_item(it, ret, 0, count, datatype, dest, tag, comm));
}

void post_ssend(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf;
	mpi_call_end(c, it, send_item(it, ret, PSC_MPI_F_SYNC, count, datatype, dest, tag, comm));
}

void post_recv(struct mpi_call *c, int ret, void *buf, int count, MPI_Datatype datatype, int source,
	       int tag, MPI_Comm comm, MPI_Status *status)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf, (void)count, (void)datatype, (void)source, (void)tag;
	mpi_call_end(c, it, recv_item(it, ret, comm, status));
}

void post_sendrecv(struct mpi_call *c, int ret, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		   MPI_Status *status)
{
	uint64_t it[2 * PSC_MPI_ITEM_WORDS];
	size_t n;

	(void)sendbuf, (void)recvbuf, (void)recvcount, (void)recvtype, (void)source, (void)recvtag;
	n = send_item(it, ret, 0, sendcount, sendtype, dest, sendtag, comm);
	n += recv_item(it + n * PSC_MPI_ITEM_WORDS, ret, comm, status);
	mpi_call_end(c, it, n);
}

void post_sendrecv_replace(struct mpi_call *c, int ret, void *buf, int count, MPI_Datatype datatype,
			   int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
			   MPI_Status *status)
{
	uint64_t it[2 * PSC_MPI_ITEM_WORDS];
	size_t n;

	(void)buf, (void)source, (void)recvtag;
	n = send_item(it, ret, 0, count, datatype, dest, sendtag, comm);
	n += recv_item(it + n * PSC_MPI_ITEM_WORDS, ret, comm, status);
	mpi_call_end(c, it, n);
}

void post_probe(struct mpi_call *c, int ret, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	(void)ret, (void)source, (void)tag, (void)comm, (void)status;
	mpi_call_end(c, NULL, 0);
}

void post_iprobe(struct mpi_call *c, int ret, int source, int tag, MPI_Comm comm, int *flag,
		 MPI_Status *status)
{
	(void)ret, (void)source, (void)tag, (void)comm, (void)flag, (void)status;
	mpi_call_end(c, NULL, 0);
}

/* ----- requests ----- */

/* Track a new request and make its ISEND/IRECV item (none when PERSISTENT: Start makes it). */
static size_t request_opened(uint64_t *it, int ret, enum mpi_req_kind kind, int sync,
			     int persistent, int count, MPI_Datatype type, int peer, int tag,
			     MPI_Comm comm, MPI_Request request)
{
	struct mpi_req_info r;
	struct mpi_comm *cm;

	if (ret != MPI_SUCCESS || (peer == MPI_PROC_NULL && !persistent))
		return 0;
	cm = comms_find(comm);
	if (!cm)
		return 0;
	memset(&r, 0, sizeof(r));
	r.id = persistent ? 0 : requests_new_id();
	r.comm = cm;
	r.peer = peer == MPI_PROC_NULL ? PSC_MPI_ANY : comm_peer(cm, peer);
	r.tag = tag == MPI_ANY_TAG ? PSC_MPI_ANY : tag;
	r.bytes = mpi_bytes(count, type);
	r.kind = (uint8_t)kind;
	r.sync = (uint8_t)sync;
	r.persistent = (uint8_t)persistent;
	r.procnull = peer == MPI_PROC_NULL;
	comm_ref(cm);
	requests_add(request, &r);
	if (persistent)
		return 0;
	item_set(it, kind == REQ_SEND ? PSC_MPI_ITEM_ISEND : PSC_MPI_ITEM_IRECV,
		 sync ? PSC_MPI_F_SYNC : 0, cm->index, r.peer, r.tag, r.bytes, r.id);
	return 1;
}

void post_isend(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf;
	mpi_call_end(
	    c, it,
	    request_opened(it, ret, REQ_SEND, 0, 0, count, datatype, dest, tag, comm, *request));
}

void post_issend(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf;
	mpi_call_end(
	    c, it,
	    request_opened(it, ret, REQ_SEND, 1, 0, count, datatype, dest, tag, comm, *request));
}

void post_irecv(struct mpi_call *c, int ret, void *buf, int count, MPI_Datatype datatype,
		int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	(void)buf;
	mpi_call_end(
	    c, it,
	    request_opened(it, ret, REQ_RECV, 0, 0, count, datatype, source, tag, comm, *request));
}

void post_send_init(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
		    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	(void)buf;
	request_opened(NULL, ret, REQ_SEND, 0, 1, count, datatype, dest, tag, comm, *request);
	mpi_call_end(c, NULL, 0);
}

void post_ssend_init(struct mpi_call *c, int ret, const void *buf, int count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	(void)buf;
	request_opened(NULL, ret, REQ_SEND, 1, 1, count, datatype, dest, tag, comm, *request);
	mpi_call_end(c, NULL, 0);
}

void post_recv_init(struct mpi_call *c, int ret, void *buf, int count, MPI_Datatype datatype,
		    int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	(void)buf;
	request_opened(NULL, ret, REQ_RECV, 0, 1, count, datatype, source, tag, comm, *request);
	mpi_call_end(c, NULL, 0);
}

/* The ISEND/IRECV item of persistent request H started. */
static size_t request_started(uint64_t *it, MPI_Request h)
{
	struct mpi_req_info r;

	if (h == MPI_REQUEST_NULL || !requests_start(h, &r) || r.procnull)
		return 0;
	item_set(it, r.kind == REQ_SEND ? PSC_MPI_ITEM_ISEND : PSC_MPI_ITEM_IRECV,
		 r.sync ? PSC_MPI_F_SYNC : 0, r.comm->index, r.peer, r.tag, r.bytes, r.id);
	return 1;
}

void post_start(struct mpi_call *c, int ret, MPI_Request *request)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	mpi_call_end(c, it, ret == MPI_SUCCESS ? request_started(it, *request) : 0);
}

/* Room for N items: on the stack's SMALL (NSMALL items) or in the thread's scratch. */
static uint64_t *items_room(uint64_t *small, size_t nsmall, size_t n)
{
	if (n <= nsmall)
		return small;
	return mpi_scratch(SCRATCH_ITEMS, n * PSC_MPI_ITEM_WORDS * sizeof(uint64_t));
}

void post_startall(struct mpi_call *c, int ret, int count, MPI_Request array_of_requests[])
{
	uint64_t small[8 * PSC_MPI_ITEM_WORDS], *it;
	size_t n = 0;

	it = count > 0 ? items_room(small, 8, (size_t)count) : NULL;
	for (int i = 0; it && ret == MPI_SUCCESS && i < count; i++)
		n += request_started(it + n * PSC_MPI_ITEM_WORDS, array_of_requests[i]);
	mpi_call_end(c, it, n);
}

/* ----- completion ----- */

/* A CANCEL item for R (FLAGS: PSC_MPI_F_FREED when it was freed, not cancelled). */
static size_t cancel_item(uint64_t *it, const struct mpi_req_info *r, unsigned flags)
{
	if (r->procnull || r->kind == REQ_COLL)
		return 0;
	item_set(it, PSC_MPI_ITEM_CANCEL, (r->sync ? PSC_MPI_F_SYNC : 0) | flags, r->comm->index, 0,
		 0, 0, r->id);
	it[1] = 0;
	return 1;
}

/* The completion item of request H, completed with status ST (NULL: unknown), if it was known
 * and active: RECV with the status's source, tag and size, ISEND_DONE, or CANCEL when MPI
 * confirms that the program's MPI_Cancel took effect. */
static size_t completed_as(uint64_t *it, MPI_Request h, const MPI_Status *st, int freed)
{
	struct mpi_req_info r;
	size_t n = 0;
	int cancelled = 0;

	if (h == MPI_REQUEST_NULL || !requests_complete(h, freed, &r))
		return 0;
	if (r.cancelled && st && PMPI_Test_cancelled(st, &cancelled) != MPI_SUCCESS)
		cancelled = 0;
	if (r.procnull) {
		/* no message: nothing to say */
	} else if (r.kind == REQ_COLL) {
		item_set(it, PSC_MPI_ITEM_COLL_REQ, 0, r.comm->index, PSC_MPI_ANY, 0, 0, r.id);
		n = 1;
	} else if (cancelled) {
		n = cancel_item(it, &r, 0);
	} else if (r.kind == REQ_SEND) {
		item_set(it, PSC_MPI_ITEM_ISEND_DONE, r.sync ? PSC_MPI_F_SYNC : 0, r.comm->index, 0,
			 0, 0, r.id);
		it[1] = 0;
		n = 1;
	} else if (st) {
		item_set(it, PSC_MPI_ITEM_RECV, 0, r.comm->index, comm_peer(r.comm, st->MPI_SOURCE),
			 st->MPI_TAG, mpi_status_bytes(st), r.id);
		n = 1;
	} else {
		item_set(it, PSC_MPI_ITEM_RECV, 0, r.comm->index, r.peer, r.tag, r.bytes, r.id);
		n = 1;
	}
	comm_unref(r.comm);
	return n;
}

static size_t completed(uint64_t *it, MPI_Request h, const MPI_Status *st)
{
	return completed_as(it, h, st, 0);
}

/*
 * Request BEFORE (its handle before the call; AFTER after it) ended with error ERR under
 * MPI_ERRORS_RETURN. MPI_ERR_PENDING: still active, kept. A receive truncated
 * (MPI_ERR_TRUNCATE) still took its message: its RECV item from status ST. Any other error
 * ended it: no item. Either way its entry goes, or goes inactive when it is persistent and
 * MPI did not free it (Open MPI frees failed requests, and their handles come back for new
 * ones, which must not find the old entry).
 */
static size_t failed(uint64_t *it, MPI_Request before, MPI_Request after, const MPI_Status *st,
		     int err)
{
	struct mpi_req_info r;
	int cls = err;

	if (before == MPI_REQUEST_NULL || err == MPI_SUCCESS)
		return 0;
	if (PMPI_Error_class(err, &cls) != MPI_SUCCESS)
		cls = err;
	if (cls == MPI_ERR_PENDING)
		return 0;
	if (cls == MPI_ERR_TRUNCATE && st)
		return completed_as(it, before, st, after == MPI_REQUEST_NULL);
	if (requests_complete(before, after == MPI_REQUEST_NULL, &r))
		comm_unref(r.comm);
	return 0;
}

/* The error of request I of a multiple completion that returned RET (not MPI_SUCCESS), with
 * statuses STATUSES and handles AFTER after the call: its status's with MPI_ERR_IN_STATUS;
 * otherwise MPI does not say which requests ended: those MPI freed did (RET), the others are
 * taken as still active. */
static inline int error_in(int ret, const MPI_Status *statuses, int i, const MPI_Request *after)
{
	if (ret == MPI_ERR_IN_STATUS && statuses)
		return statuses[i].MPI_ERROR;
	return after && after[i] == MPI_REQUEST_NULL ? ret : MPI_ERR_PENDING;
}

/* Did request I of a multiple completion complete? RET is the call's. */
static inline int done_in(int ret, const MPI_Status *statuses, int i)
{
	if (ret == MPI_SUCCESS)
		return 1;
	return ret == MPI_ERR_IN_STATUS && statuses && statuses[i].MPI_ERROR == MPI_SUCCESS;
}

/* Save the COUNT requests of a multiple completion before the call frees them. */
static void save_requests(struct mpi_call *c, int count, const MPI_Request *reqs)
{
	MPI_Request *saved = NULL;

	if (count > 0 && reqs)
		saved = mpi_scratch(SCRATCH_SAVED, (size_t)count * sizeof(MPI_Request));
	if (saved)
		memcpy(saved, reqs, (size_t)count * sizeof(MPI_Request));
	c->reqs = saved;
}

/* Items of requests REQS[0..count) that completed (all, or per status); AFTER the handles
 * after the call. */
static void end_all(struct mpi_call *c, int ret, int count, const MPI_Status *statuses,
		    const MPI_Request *after)
{
	uint64_t small[8 * PSC_MPI_ITEM_WORDS], *it = NULL;
	size_t n = 0;

	if (c->reqs && count > 0)
		it = items_room(small, 8, (size_t)count);
	for (int i = 0; it && i < count; i++) {
		const MPI_Status *st = statuses ? &statuses[i] : NULL;
		uint64_t *at = it + n * PSC_MPI_ITEM_WORDS;

		if (done_in(ret, statuses, i))
			n += completed(at, c->reqs[i], st);
		else
			n += failed(at, c->reqs[i], after ? after[i] : c->reqs[i], st,
				    error_in(ret, statuses, i, after));
	}
	mpi_call_end(c, it, n);
}

/* Items of the OUTCOUNT requests at INDICES that completed; AFTER the INCOUNT handles after
 * the call. */
static void end_some(struct mpi_call *c, int ret, int outcount, const int *indices,
		     const MPI_Status *statuses, int incount, const MPI_Request *after)
{
	uint64_t small[8 * PSC_MPI_ITEM_WORDS], *it = NULL;
	size_t n = 0;

	if (ret != MPI_SUCCESS && ret != MPI_ERR_IN_STATUS) {
		/* MPI does not say which requests ended: the ones it freed did */
		end_all(c, ret, incount, NULL, after);
		return;
	}
	if (c->reqs && indices && outcount > 0 && outcount != MPI_UNDEFINED)
		it = items_room(small, 8, (size_t)outcount);
	for (int i = 0; it && i < outcount; i++) {
		const MPI_Status *st = statuses ? &statuses[i] : NULL;
		uint64_t *at = it + n * PSC_MPI_ITEM_WORDS;
		int k = indices[i];

		if (k < 0 || k >= incount)
			continue;
		if (done_in(ret, statuses, i))
			n += completed(at, c->reqs[k], st);
		else if (statuses)
			n += failed(at, c->reqs[k], after ? after[k] : c->reqs[k], st,
				    statuses[i].MPI_ERROR);
	}
	mpi_call_end(c, it, n);
}

/* Waitany/Testany: request *INDEX completed when DONE (with error RET unless MPI_SUCCESS:
 * MPI says which one failed through INDEX); with an error and no index, the ones MPI freed
 * ended. */
static void any_end(struct mpi_call *c, int ret, int count, const MPI_Request *after, int done,
		    const int *index, const MPI_Status *status)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];
	int k = index ? *index : MPI_UNDEFINED;

	if (ret == MPI_SUCCESS) {
		end_some(c, ret, done ? 1 : 0, index, status, count, after);
	} else if (c->reqs && k >= 0 && k < count && (done || after[k] == MPI_REQUEST_NULL)) {
		mpi_call_end(c, it, failed(it, c->reqs[k], after[k], status, ret));
	} else {
		end_some(c, ret, 0, NULL, NULL, count, after);
	}
}

/*
 * The outputs a completion hook reads afterwards (flag, index, outcount) are set before the
 * call to what "nothing completed" reads as: MPI leaves them unset when it fails, for
 * example on an invalid argument. Null pointers (also an invalid argument, which MPI
 * reports) are never dereferenced.
 */
static MPI_Request req_of(const MPI_Request *request)
{
	return request ? *request : MPI_REQUEST_NULL;
}

void pre_wait(struct mpi_call *c, MPI_Request *request, MPI_Status *status)
{
	(void)status;
	c->req = req_of(request);
}

void post_wait(struct mpi_call *c, int ret, MPI_Request *request, MPI_Status *status)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	mpi_call_end(c, it,
		     ret == MPI_SUCCESS ? completed(it, c->req, status)
					: failed(it, c->req, req_of(request), status, ret));
}

void pre_test(struct mpi_call *c, MPI_Request *request, int *flag, MPI_Status *status)
{
	(void)status;
	c->req = req_of(request);
	if (flag)
		*flag = 0;
}

void post_test(struct mpi_call *c, int ret, MPI_Request *request, int *flag, MPI_Status *status)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];

	int done = flag && *flag;

	if (ret == MPI_SUCCESS)
		mpi_call_end(c, it, done ? completed(it, c->req, status) : 0);
	else /* an error of the request, or of the arguments when MPI did not free it */
		mpi_call_end(c, it,
			     request && (done || *request == MPI_REQUEST_NULL)
				 ? failed(it, c->req, *request, status, ret)
				 : 0);
}

void pre_waitall(struct mpi_call *c, int count, MPI_Request array_of_requests[],
		 MPI_Status array_of_statuses[])
{
	(void)array_of_statuses;
	save_requests(c, count, array_of_requests);
}

void post_waitall(struct mpi_call *c, int ret, int count, MPI_Request array_of_requests[],
		  MPI_Status array_of_statuses[])
{
	end_all(c, ret, count, array_of_statuses, array_of_requests);
}

void pre_testall(struct mpi_call *c, int count, MPI_Request array_of_requests[], int *flag,
		 MPI_Status array_of_statuses[])
{
	(void)array_of_statuses;
	save_requests(c, count, array_of_requests);
	if (flag)
		*flag = 0;
}

void post_testall(struct mpi_call *c, int ret, int count, MPI_Request array_of_requests[],
		  int *flag, MPI_Status array_of_statuses[])
{
	if (ret == MPI_SUCCESS && !(flag && *flag))
		count = 0;
	end_all(c, ret, count, array_of_statuses, array_of_requests);
}

void pre_waitany(struct mpi_call *c, int count, MPI_Request array_of_requests[], int *index,
		 MPI_Status *status)
{
	(void)status;
	save_requests(c, count, array_of_requests);
	if (index)
		*index = MPI_UNDEFINED;
}

void post_waitany(struct mpi_call *c, int ret, int count, MPI_Request array_of_requests[],
		  int *index, MPI_Status *status)
{
	any_end(c, ret, count, array_of_requests, index && *index != MPI_UNDEFINED, index, status);
}

void pre_testany(struct mpi_call *c, int count, MPI_Request array_of_requests[], int *index,
		 int *flag, MPI_Status *status)
{
	(void)status;
	save_requests(c, count, array_of_requests);
	if (index)
		*index = MPI_UNDEFINED;
	if (flag)
		*flag = 0;
}

void post_testany(struct mpi_call *c, int ret, int count, MPI_Request array_of_requests[],
		  int *index, int *flag, MPI_Status *status)
{
	any_end(c, ret, count, array_of_requests, flag && *flag && index && *index != MPI_UNDEFINED,
		index, status);
}

void pre_waitsome(struct mpi_call *c, int incount, MPI_Request array_of_requests[], int *outcount,
		  int array_of_indices[], MPI_Status array_of_statuses[])
{
	(void)array_of_indices, (void)array_of_statuses;
	save_requests(c, incount, array_of_requests);
	if (outcount)
		*outcount = MPI_UNDEFINED;
}

void post_waitsome(struct mpi_call *c, int ret, int incount, MPI_Request array_of_requests[],
		   int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
	end_some(c, ret, outcount ? *outcount : MPI_UNDEFINED, array_of_indices, array_of_statuses,
		 incount, array_of_requests);
}

void pre_testsome(struct mpi_call *c, int incount, MPI_Request array_of_requests[], int *outcount,
		  int array_of_indices[], MPI_Status array_of_statuses[])
{
	(void)array_of_indices, (void)array_of_statuses;
	save_requests(c, incount, array_of_requests);
	if (outcount)
		*outcount = MPI_UNDEFINED;
}

void post_testsome(struct mpi_call *c, int ret, int incount, MPI_Request array_of_requests[],
		   int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
	end_some(c, ret, outcount ? *outcount : MPI_UNDEFINED, array_of_indices, array_of_statuses,
		 incount, array_of_requests);
}

void pre_request_free(struct mpi_call *c, MPI_Request *request)
{
	c->req = req_of(request);
}

void post_request_free(struct mpi_call *c, int ret, MPI_Request *request)
{
	uint64_t it[PSC_MPI_ITEM_WORDS];
	struct mpi_req_info r;
	size_t n = 0;

	(void)request;
	if (ret == MPI_SUCCESS && c->req != MPI_REQUEST_NULL && requests_complete(c->req, 1, &r)) {
		/* freed while active: its completion goes unseen (a send's message still goes) */
		n = cancel_item(it, &r, PSC_MPI_F_FREED);
		comm_unref(r.comm);
	}
	mpi_call_end(c, it, n);
}

void pre_cancel(struct mpi_call *c, MPI_Request *request)
{
	c->req = req_of(request);
}

/* No item: whether the cancellation took effect is known only when the request completes
 * (MPI_Test_cancelled on its status), and the call completing it says so. */
void post_cancel(struct mpi_call *c, int ret, MPI_Request *request)
{
	(void)request;
	if (ret == MPI_SUCCESS && c->req != MPI_REQUEST_NULL)
		requests_cancel(c->req);
	mpi_call_end(c, NULL, 0);
}
