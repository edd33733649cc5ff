/*
 * mpi-causal.c - causality of the MPI model: messages received before they were sent, and
 * collectives left before a rank they depend on entered, counted and then corrected by
 * replaying every location's events with forward shifts amortised over the interval before
 * (mpi-match.h).
 */
#include "analysis/mpi/mpi-match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/mpi-routines.h"

/* ---- collectives: their happened-before edges ------------------------------------------------ */

/*
 * Where data flows in a collective operation, a participant's end follows other participants'
 * enters: in a barrier and the N x N ones every enter; at a non-root of a one-to-all the
 * root's; at the root of an all-to-one every non-root's; in a scan the enters of the ranks
 * up to it. The end is the call's leave, or for a non-blocking collective the leave of the
 * call completing its request (Wait or Test family); the enters are the (I-)calls'.
 * Only data makes an edge (a barrier always synchronises): a participant that receives no
 * bytes (a Scatterv non-root with recvcount 0, an Alltoallv rank with a zero row) follows
 * nobody, and one that sends none (a Gatherv sender of 0 bytes) is followed by nobody; MPI
 * promises nothing of those, and Open MPI's basic algorithms skip zero-count transfers.
 */
struct coll_end {
	uint32_t call; /* whose leave ends the participation */
	uint32_t coll; /* in m->colls */
	uint32_t k;    /* the participant: m->coll_calls[first + k] */
};

/* A participant's role (colls.role): it sends or receives bytes */
enum { COLL_SRC = 1, COLL_DST = 2 };

struct coll_state {
	enum mpi_kind kind;	    /* the edges' shape (a non-blocking one: its blocking twin's);
				     * MPI_KIND_INIT: none (no data moved) */
	int32_t root_k;		    /* the root participant, -1 none */
	int64_t last, last_nonroot; /* latest enter of all, of the non-roots (INT64_MIN none) */
	int64_t root_enter;	    /* INT64_MIN none */
	uint32_t cursor;	    /* replay: participants before it are final (and in max) */
	int64_t max;		    /* replay: their latest enter */
};

struct colls {
	struct coll_state *st; /* per operation */
	struct coll_end *ends; /* sorted by call */
	size_t nends;
	uint8_t *role; /* per participant (as m->coll_calls): COLL_SRC | COLL_DST */
	int64_t *pmax; /* per participant of a scan: latest source enter up to it */
};

/* The blocking kind of a non-blocking collective (Iallreduce: Allreduce's), from
 * mpi-calls.def's twin column; MPI_KIND_INIT for any other routine. */
static enum mpi_kind icoll_twin(uint32_t routine)
{
	int blocking = mpi_routine_twin(routine);

	return blocking < 0 ? MPI_KIND_INIT : mpi_routine_kind((unsigned)blocking);
}

/* The first item of KIND in call C, MPI_NONE none. */
static uint32_t call_item(const struct mpi_model *m, uint32_t c, unsigned kind)
{
	for (uint32_t i = m->calls[c].first_item, end = mpi_call_items_end(m, &m->calls[c]);
	     i < end; i++)
		if (m->items[i].kind == kind)
			return i;
	return MPI_NONE;
}

/* Is participant J's enter one that the receiving ends of its operation follow (for a
 * one-to-all and an all-to-one, J the root resp. a non-root; ROLE the operation's)? */
static int coll_source(const struct coll_state *s, const uint8_t *role, uint32_t j)
{
	if (!(role[j] & COLL_SRC))
		return 0;
	switch (s->kind) {
	case MPI_KIND_BARRIER:
	case MPI_KIND_ALL_TO_ALL:
	case MPI_KIND_SCAN:
		return 1;
	case MPI_KIND_ONE_TO_ALL:
		return s->root_k >= 0 && j == (uint32_t)s->root_k;
	case MPI_KIND_ALL_TO_ONE:
		return s->root_k >= 0 && j != (uint32_t)s->root_k;
	default:
		return 0;
	}
}

/* The shape of operation I: kind, root, each participant's role, and none when it moves no
 * data (a barrier always synchronises; MPI promises nothing of a zero-count operation). */
static void coll_shape(const struct mpi_model *m, size_t i, struct colls *cs)
{
	const struct mpi_coll *co = &m->colls[i];
	const uint32_t *calls = m->coll_calls + co->first;
	struct coll_state *s = &cs->st[i];
	uint8_t *role = cs->role + co->first;
	enum mpi_kind kind = mpi_routine_kind(co->routine);
	uint8_t any = 0;

	if (kind == MPI_KIND_ICOLL)
		kind = icoll_twin(co->routine);
	s->kind = mpi_kind_is_collective(kind) ? kind : MPI_KIND_INIT;
	s->root_k = -1;
	for (uint32_t k = 0; k < co->n; k++) {
		uint32_t it;

		role[k] = 0;
		if (calls[k] == MPI_NONE)
			continue;
		if (co->root >= 0 && mpi_call_rank(m, &m->calls[calls[k]]) == co->root)
			s->root_k = (int32_t)k;
		it = call_item(m, calls[k], PSC_MPI_ITEM_COLL);
		if (s->kind == MPI_KIND_BARRIER)
			role[k] = COLL_SRC | COLL_DST;
		else if (it != MPI_NONE)
			role[k] = (uint8_t)((m->items[it].bytes ? COLL_SRC : 0) |
					    (m->items[it].bytes2 ? COLL_DST : 0));
		any |= role[k];
	}
	if (!any)
		s->kind = MPI_KIND_INIT;
}

/* Each operation's latest enters of the participants that send, as the times are now (a
 * scan's for each prefix). */
static void coll_arrivals(const struct mpi_model *m, struct colls *cs)
{
	for (size_t i = 0; i < m->ncolls; i++) {
		const struct mpi_coll *co = &m->colls[i];
		const uint32_t *calls = m->coll_calls + co->first;
		const uint8_t *role = cs->role + co->first;
		struct coll_state *s = &cs->st[i];

		s->last = s->last_nonroot = s->root_enter = INT64_MIN;
		for (uint32_t k = 0; k < co->n; k++) {
			int64_t t;

			if (calls[k] != MPI_NONE && (role[k] & COLL_SRC)) {
				t = m->calls[calls[k]].enter_ns;
				if (t > s->last)
					s->last = t;
				if (s->root_k >= 0 && k == (uint32_t)s->root_k)
					s->root_enter = t;
				else if (t > s->last_nonroot)
					s->last_nonroot = t;
			}
			if (s->kind == MPI_KIND_SCAN)
				cs->pmax[co->first + k] = s->last;
		}
	}
}

/* The latest enter end E follows (coll_arrivals current), INT64_MIN none. */
static int64_t coll_need(const struct mpi_model *m, const struct colls *cs,
			 const struct coll_end *e)
{
	const struct coll_state *s = &cs->st[e->coll];
	uint32_t first = m->colls[e->coll].first;

	if (!(cs->role[first + e->k] & COLL_DST))
		return INT64_MIN;
	switch (s->kind) {
	case MPI_KIND_BARRIER:
	case MPI_KIND_ALL_TO_ALL:
		return s->last;
	case MPI_KIND_ONE_TO_ALL:
		return s->root_k >= 0 && e->k != (uint32_t)s->root_k ? s->root_enter : INT64_MIN;
	case MPI_KIND_ALL_TO_ONE:
		return s->root_k >= 0 && e->k == (uint32_t)s->root_k ? s->last_nonroot : INT64_MIN;
	case MPI_KIND_SCAN:
		return cs->pmax[first + e->k];
	default:
		return INT64_MIN;
	}
}

static int cmp_end(const void *a, const void *b)
{
	const struct coll_end *x = a, *y = b;

	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	return (x->coll > y->coll) - (x->coll < y->coll);
}

/* A COLL_REQ item: a non-blocking collective's start (coll set) or a completion. */
struct req_ent {
	int32_t rank;
	uint64_t request;
	int64_t t;
	uint32_t call, coll, k; /* coll MPI_NONE: a completion */
};

static int cmp_req(const void *a, const void *b)
{
	const struct req_ent *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->request != y->request)
		return x->request < y->request ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* at the same time the start first */
	return (x->coll == MPI_NONE) - (y->coll == MPI_NONE);
}

/* The ends of non-blocking collectives into CS->ends: each start (rank, request) paired with
 * the next completion of that request on that rank (a request id is reused once done). */
static int icoll_ends(const struct mpi_model *m, struct colls *cs)
{
	struct req_ent *r;
	size_t n = 0, nreq = 0;

	for (size_t i = 0; i < m->nitems; i++)
		nreq += m->items[i].kind == PSC_MPI_ITEM_COLL_REQ;
	if (!nreq)
		return 0;
	r = malloc(nreq * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < m->ncolls; i++) {
		const struct mpi_coll *co = &m->colls[i];

		if (mpi_routine_kind(co->routine) != MPI_KIND_ICOLL ||
		    cs->st[i].kind == MPI_KIND_INIT)
			continue;
		for (uint32_t k = 0; k < co->n; k++) {
			uint32_t c = m->coll_calls[co->first + k], it;

			if (c == MPI_NONE ||
			    (it = call_item(m, c, PSC_MPI_ITEM_COLL_REQ)) == MPI_NONE)
				continue;
			r[n++] = (struct req_ent){mpi_call_rank(m, &m->calls[c]),
						  m->items[it].request,
						  m->calls[c].enter_ns,
						  c,
						  (uint32_t)i,
						  k};
		}
	}
	for (size_t i = 0; i < m->nitems && n < nreq; i++) {
		const struct mpi_item *it = &m->items[i];
		enum mpi_kind kind;

		if (it->kind != PSC_MPI_ITEM_COLL_REQ || it->call >= m->ncalls)
			continue;
		kind = mpi_routine_kind(m->calls[it->call].routine);
		if (kind == MPI_KIND_WAIT || kind == MPI_KIND_TEST)
			r[n++] = (struct req_ent){mpi_call_rank(m, &m->calls[it->call]),
						  it->request,
						  m->calls[it->call].enter_ns,
						  it->call,
						  MPI_NONE,
						  0};
	}
	qsort(r, n, sizeof(*r), cmp_req);
	for (size_t i = 0; i + 1 < n; i++)
		if (r[i].coll != MPI_NONE && r[i + 1].coll == MPI_NONE &&
		    r[i + 1].rank == r[i].rank && r[i + 1].request == r[i].request)
			cs->ends[cs->nends++] = (struct coll_end){r[i + 1].call, r[i].coll, r[i].k};
	free(r);
	return 0;
}

/* Every operation's shape and every participant's end that follows some enter. */
static int colls_init(const struct mpi_model *m, struct colls *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->st = calloc(m->ncolls + 1, sizeof(*cs->st));
	cs->ends = malloc((m->ncoll_calls + 1) * sizeof(*cs->ends));
	cs->role = malloc(m->ncoll_calls + 1);
	cs->pmax = malloc((m->ncoll_calls + 1) * sizeof(*cs->pmax));
	if (!cs->st || !cs->ends || !cs->role || !cs->pmax)
		return -ENOMEM;
	for (size_t i = 0; i < m->ncolls; i++) {
		const struct mpi_coll *co = &m->colls[i];

		coll_shape(m, i, cs);
		if (mpi_routine_kind(co->routine) == MPI_KIND_ICOLL)
			continue;
		for (uint32_t k = 0; k < co->n; k++)
			if (m->coll_calls[co->first + k] != MPI_NONE)
				cs->ends[cs->nends++] =
				    (struct coll_end){m->coll_calls[co->first + k], (uint32_t)i, k};
	}
	if (icoll_ends(m, cs))
		return -ENOMEM;
	/* keep only the ends that follow an enter */
	coll_arrivals(m, cs);
	{
		size_t n = 0;

		for (size_t i = 0; i < cs->nends; i++)
			if (coll_need(m, cs, &cs->ends[i]) != INT64_MIN)
				cs->ends[n++] = cs->ends[i];
		cs->nends = n;
	}
	qsort(cs->ends, cs->nends, sizeof(*cs->ends), cmp_end);
	return 0;
}

static void colls_free(struct colls *cs)
{
	free(cs->st);
	free(cs->ends);
	free(cs->role);
	free(cs->pmax);
}

/* Participants that left before an enter they follow; *MIN_LAT the smallest positive gap. */
static uint64_t count_coll_violations(const struct mpi_model *m, struct colls *cs, int64_t *min_lat)
{
	uint64_t n = 0;

	coll_arrivals(m, cs);
	for (size_t i = 0; i < cs->nends; i++) {
		int64_t need = coll_need(m, cs, &cs->ends[i]), d;

		if (need == INT64_MIN)
			continue;
		d = m->calls[cs->ends[i].call].leave_ns - need;
		if (d < 0)
			n++;
		else if (min_lat && d > 0 && d < *min_lat)
			*min_lat = d;
	}
	return n;
}

/* ---- causality ------------------------------------------------------------------------------ */

/*
 * The correction replays every location's events (enter and leave of each call) in order.
 * A receive's leave waits until the enter of each matched send is final, a collective's end
 * until the enters it follows are (it waits for one location at a time, and looks again
 * when woken); locations run as far as they can, and one that moved on wakes the ones
 * waiting for it. If all wait on each other (impossible in a real run, possible in damaged
 * input), the first one goes on without the enters it waits for, which then stay violations.
 */
struct replay_loc {
	int64_t shift;	     /* added to every later event */
	int64_t amort_t;     /* corrected time of the previous message event (or first enter) */
	uint32_t pos, npos;  /* events done, of 2 per call */
	uint32_t amort_from; /* first call after the previous message event */
	uint32_t blocked_on; /* location waited for, MPI_NONE */
	uint32_t waiters;    /* first location waiting for this one, MPI_NONE */
	uint32_t next;	     /* next in the list this one waits in */
	uint32_t end_pos;    /* its next collective end in colls.ends */
	int have_t, force;
};

struct replay {
	struct mpi_model *m;
	struct replay_loc *rl;
	uint32_t *stack;
	size_t nstack;
	int64_t lat;  /* messages: the smallest latency seen */
	int64_t clat; /* collectives: the smallest latency seen */
	struct colls *cs;
};

static uint64_t count_violations(const struct mpi_model *m, int64_t *min_lat)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *g = &m->msgs[i];
		int64_t d;

		if (g->recv_call == MPI_NONE)
			continue;
		d = m->calls[g->recv_call].leave_ns - m->calls[g->send_call].enter_ns;
		if (d < 0)
			n++;
		else if (min_lat && d > 0 && d < *min_lat)
			*min_lat = d;
	}
	return n;
}

/* Others' corrections read C's enter: it sends, or takes part in a collective. */
static int enter_read(const struct mpi_model *m, const struct mpi_call *c)
{
	for (uint32_t i = c->first_item, end = mpi_call_items_end(m, c); i < end; i++)
		if (m->items[i].kind == PSC_MPI_ITEM_SEND ||
		    m->items[i].kind == PSC_MPI_ITEM_ISEND || m->items[i].kind == PSC_MPI_ITEM_COLL)
			return 1;
	return 0;
}

/* T moved by the share of DELTA its place between T0 and T1 gives it. */
static int64_t amortised(int64_t t, int64_t t0, int64_t t1, int64_t delta)
{
	if (t <= t0)
		return t;
	if (t >= t1)
		return t + delta;
	return t + (int64_t)((__int128)delta * (t - t0) / (t1 - t0));
}

/* The receive ending call C of location L (at T1 before the fix) moves by DELTA: the events
 * since the previous message event take their share of it. A call that also sends or is a
 * collective keeps its enter (others were fixed against it), so nothing before it moves
 * either: the shift is then its leave's alone, and the calls keep their order. */
static void amortise(struct replay *rp, uint32_t l, uint32_t c, int64_t t1, int64_t delta)
{
	struct mpi_model *m = rp->m;
	struct replay_loc *s = &rp->rl[l];
	int64_t t0 = s->amort_t;

	if (t1 <= t0 || enter_read(m, &m->calls[c]))
		return;
	for (uint32_t j = s->amort_from; j < c; j++) {
		m->calls[j].enter_ns = amortised(m->calls[j].enter_ns, t0, t1, delta);
		m->calls[j].leave_ns = amortised(m->calls[j].leave_ns, t0, t1, delta);
	}
	m->calls[c].enter_ns = amortised(m->calls[c].enter_ns, t0, t1, delta);
}

/* Has the replay made call C's enter final (its location passed it)? */
static int replay_final(const struct replay *rp, uint32_t c)
{
	uint32_t l = rp->m->calls[c].loc;

	return rp->rl[l].pos > 2 * (c - rp->m->locs[l].first_call);
}

/*
 * The latest enter end E follows, of those final; *WAIT the location of one not final yet,
 * unless FORCE (then it is left out). A one-to-all's end looks at the root alone. A
 * barrier's, an N x N's and an all-to-one's enters are the same for every end: a cursor per
 * operation keeps the ones found final and their latest enter. A scan's end K follows the
 * sources up to K: the same cursor, stopped at K, keeps the prefix maximum of each
 * participant it passed (colls.pmax), so an end behind it reads its own. Each participant is
 * passed once per operation: O(P) per operation, not O(P^2).
 */
static int64_t replay_coll_need(struct replay *rp, const struct coll_end *e, int force,
				uint32_t *wait)
{
	const struct mpi_model *m = rp->m;
	struct coll_state *s = &rp->cs->st[e->coll];
	const struct mpi_coll *co = &m->colls[e->coll];
	const uint32_t *calls = m->coll_calls + co->first;
	const uint8_t *role = rp->cs->role + co->first;
	int64_t *pmax = rp->cs->pmax + co->first;
	uint32_t lim = co->n;
	int64_t need;

	switch (s->kind) {
	case MPI_KIND_ONE_TO_ALL: {
		uint32_t c = s->root_k >= 0 ? calls[s->root_k] : MPI_NONE;

		if (c == MPI_NONE || !(role[s->root_k] & COLL_SRC))
			return INT64_MIN;
		if (!replay_final(rp, c)) {
			if (!force)
				*wait = m->calls[c].loc;
			return INT64_MIN;
		}
		return m->calls[c].enter_ns;
	}
	case MPI_KIND_SCAN:
		lim = e->k + 1 < co->n ? e->k + 1 : co->n;
		break;
	case MPI_KIND_BARRIER:
	case MPI_KIND_ALL_TO_ALL:
	case MPI_KIND_ALL_TO_ONE:
		break;
	default:
		return INT64_MIN;
	}
	for (; s->cursor < lim; s->cursor++) {
		uint32_t c = calls[s->cursor];

		if (c != MPI_NONE && coll_source(s, role, s->cursor)) {
			if (!replay_final(rp, c))
				break;
			if (m->calls[c].enter_ns > s->max)
				s->max = m->calls[c].enter_ns;
		}
		if (s->kind == MPI_KIND_SCAN)
			pmax[s->cursor] = s->max;
	}
	if (s->cursor >= lim)
		return s->kind == MPI_KIND_SCAN ? pmax[lim - 1] : s->max;
	if (!force) {
		*wait = m->calls[calls[s->cursor]].loc;
		return INT64_MIN;
	}
	/* forced: the final ones past the cursor, the others left out */
	need = s->max;
	for (uint32_t j = s->cursor + 1; j < lim; j++) {
		uint32_t c = calls[j];

		if (c != MPI_NONE && coll_source(s, role, j) && replay_final(rp, c) &&
		    m->calls[c].enter_ns > need)
			need = m->calls[c].enter_ns;
	}
	return need;
}

/* The latest enter the collectives ending at call C of location L follow (INT64_MIN none);
 * *WAIT set when one is not final yet. */
static int64_t replay_colls(struct replay *rp, uint32_t l, uint32_t c, uint32_t *wait)
{
	const struct colls *cs = rp->cs;
	struct replay_loc *s = &rp->rl[l];
	int64_t need = INT64_MIN;

	while (s->end_pos < cs->nends && cs->ends[s->end_pos].call < c)
		s->end_pos++;
	for (size_t e = s->end_pos; e < cs->nends && cs->ends[e].call == c; e++) {
		int64_t t = replay_coll_need(rp, &cs->ends[e], s->force, wait);

		if (*wait != MPI_NONE)
			break;
		if (t > need)
			need = t;
	}
	return need;
}

/* Run location L as far as it goes: 1 when it advanced, 0 when not. */
static int replay_run(struct replay *rp, uint32_t l)
{
	struct mpi_model *m = rp->m;
	struct replay_loc *s = &rp->rl[l];
	uint32_t first = m->locs[l].first_call, start = s->pos;

	while (s->pos < s->npos) {
		uint32_t c = first + s->pos / 2;
		struct mpi_call *call = &m->calls[c];
		int64_t need = INT64_MIN, cneed = INT64_MIN, leave, target = INT64_MIN;
		uint32_t wait = MPI_NONE;

		if (!(s->pos & 1)) {
			call->enter_ns += s->shift;
			if (!s->have_t) {
				s->amort_t = call->enter_ns;
				s->amort_from = c;
				s->have_t = 1;
			}
			s->pos++;
			continue;
		}
		for (uint32_t i = call->first_item, end = mpi_call_items_end(m, call); i < end;
		     i++) {
			const struct mpi_item *it = &m->items[i];
			uint32_t sc, sl;

			if (it->kind != PSC_MPI_ITEM_RECV || it->msg == MPI_NONE)
				continue;
			sc = m->msgs[it->msg].send_call;
			sl = m->calls[sc].loc;
			if (rp->rl[sl].pos <= 2 * (sc - m->locs[sl].first_call)) {
				if (!s->force) {
					wait = sl;
					break;
				}
				continue;
			}
			if (m->calls[sc].enter_ns > need)
				need = m->calls[sc].enter_ns;
		}
		if (wait == MPI_NONE)
			cneed = replay_colls(rp, l, c, &wait);
		if (wait != MPI_NONE) {
			s->blocked_on = wait;
			s->next = rp->rl[wait].waiters;
			rp->rl[wait].waiters = l;
			break;
		}
		s->force = 0;
		leave = call->leave_ns + s->shift;
		if (leave < need)
			target = need + rp->lat;
		if (leave < cneed && cneed + rp->clat > target)
			target = cneed + rp->clat;
		if (target > leave) {
			int64_t delta = target - leave;

			amortise(rp, l, c, leave, delta);
			s->shift += delta;
			leave += delta;
			if (s->shift > m->max_correction_ns)
				m->max_correction_ns = s->shift;
		}
		call->leave_ns = leave;
		if (mpi_call_items_end(m, call) > call->first_item) {
			s->amort_from = c + 1;
			s->amort_t = leave;
		}
		s->pos++;
	}
	return s->pos != start;
}

/* Wake the locations waiting for L. */
static void replay_wake(struct replay *rp, uint32_t l)
{
	uint32_t w = rp->rl[l].waiters;

	rp->rl[l].waiters = MPI_NONE;
	while (w != MPI_NONE) {
		uint32_t next = rp->rl[w].next;

		rp->rl[w].blocked_on = MPI_NONE;
		rp->stack[rp->nstack++] = w;
		w = next;
	}
}

/* Take L out of the list of the location it waits for. */
static void replay_unwait(struct replay *rp, uint32_t l)
{
	uint32_t *p = &rp->rl[rp->rl[l].blocked_on].waiters;

	while (*p != MPI_NONE && *p != l)
		p = &rp->rl[*p].next;
	if (*p == l)
		*p = rp->rl[l].next;
	rp->rl[l].blocked_on = MPI_NONE;
}

/* The first of CS's ends at or after call C. */
static uint32_t first_end(const struct colls *cs, uint32_t c)
{
	size_t lo = 0, hi = cs->nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->ends[mid].call < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

static int replay(struct mpi_model *m, int64_t lat, int64_t clat, struct colls *cs)
{
	struct replay rp = {m, NULL, NULL, 0, lat, clat, cs};
	size_t ndone = 0, scan = 0;

	rp.rl = calloc(m->nlocs + 1, sizeof(*rp.rl));
	rp.stack = malloc((m->nlocs + 1) * sizeof(*rp.stack));
	if (!rp.rl || !rp.stack) {
		free(rp.rl);
		free(rp.stack);
		return -ENOMEM;
	}
	for (size_t l = 0; l < m->nlocs; l++) {
		rp.rl[l].npos = 2 * m->locs[l].ncalls;
		rp.rl[l].blocked_on = rp.rl[l].waiters = rp.rl[l].next = MPI_NONE;
		rp.rl[l].end_pos = first_end(cs, m->locs[l].first_call);
		rp.stack[rp.nstack++] = (uint32_t)(m->nlocs - 1 - l);
	}
	for (size_t i = 0; i < m->ncolls; i++) {
		cs->st[i].cursor = 0;
		cs->st[i].max = INT64_MIN;
	}
	while (ndone < m->nlocs) {
		while (rp.nstack) {
			uint32_t l = rp.stack[--rp.nstack];

			if (replay_run(&rp, l))
				replay_wake(&rp, l);
			if (rp.rl[l].pos == rp.rl[l].npos)
				ndone++;
		}
		/* all that remain wait for each other: the first goes on regardless */
		while (ndone < m->nlocs && rp.rl[scan].pos == rp.rl[scan].npos)
			scan++;
		if (ndone < m->nlocs) {
			replay_unwait(&rp, (uint32_t)scan);
			rp.rl[scan].force = 1;
			rp.stack[rp.nstack++] = (uint32_t)scan;
		}
	}
	free(rp.rl);
	free(rp.stack);
	return 0;
}

/* M's calls' times, or NULL when out of memory. */
static struct mpi_call_times *call_times(const struct mpi_model *m)
{
	struct mpi_call_times *t = malloc((m->ncalls + 1) * sizeof(*t));

	for (size_t c = 0; t && c < m->ncalls; c++)
		t[c] = (struct mpi_call_times){m->calls[c].enter_ns, m->calls[c].leave_ns};
	return t;
}

int mpi_correct_causality(struct mpi_model *m, int correct, int keep_uncorrected)
{
	int64_t lat = 1000, clat = 1000;
	struct colls cs;
	int ret = colls_init(m, &cs);

	m->max_correction_ns = 0;
	m->violations_before = count_violations(m, &lat);
	m->violations_after = m->violations_before;
	m->coll_violations_before = m->coll_violations_after = 0;
	if (ret)
		goto out;
	m->coll_violations_before = count_coll_violations(m, &cs, &clat);
	m->coll_violations_after = m->coll_violations_before;
	if (!correct || (m->violations_before == 0 && m->coll_violations_before == 0))
		goto out;
	if (keep_uncorrected && !(m->uncorrected = call_times(m))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = replay(m, lat, clat, &cs);
	if (ret == 0) {
		m->violations_after = count_violations(m, NULL);
		m->coll_violations_after = count_coll_violations(m, &cs, NULL);
	}
	if (m->max_correction_ns == 0) { /* nothing moved: the times are the recorded ones */
		free(m->uncorrected);
		m->uncorrected = NULL;
	}
out:
	colls_free(&cs);
	return ret;
}
