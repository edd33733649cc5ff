/* mpi-waits.c - wait states of an MPI model (mpi-waits.h). */
#include "analysis/mpi/mpi-waits.h"

#include "format/format.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const pattern_names[MPI_PAT_COUNT] = {
    "Late Sender",    "Late Receiver", "Wait at Barrier", "Wait at N x N",
    "Late Broadcast", "Early Reduce",  "Early Scan",
};

static const char *const pattern_keys[MPI_PAT_COUNT] = {
    "late_sender",    "late_receiver", "wait_barrier", "wait_nxn",
    "late_broadcast", "early_reduce",  "early_scan",
};

const char *mpi_pattern_name(enum mpi_pattern p)
{
	return (unsigned)p < MPI_PAT_COUNT ? pattern_names[p] : "?";
}

const char *mpi_pattern_key(enum mpi_pattern p)
{
	return (unsigned)p < MPI_PAT_COUNT ? pattern_keys[p] : "?";
}

/* A point-to-point wait: blocking call CALL waited for PEER until END. */
struct p2p_event {
	uint32_t call;
	int32_t peer;
	int64_t end;
	enum mpi_pattern pattern;
};

/* Per call site (or per rank and routine when the site is unknown) and pattern. */
struct site_acc {
	int64_t ns;
	uint64_t calls;
	uint32_t routine; /* of the waiting calls */
};

struct ctx {
	const struct mpi_model *m;
	struct mpi_waits *w;
	struct site_acc *by_site;    /* nsites x MPI_PAT_COUNT */
	struct site_acc *by_routine; /* p x MPI_ROUTINE_COUNT x MPI_PAT_COUNT */
};

static int blocks(const struct mpi_call *c)
{
	enum mpi_kind k = mpi_routine_kind(c->routine);

	return k == MPI_KIND_SEND || k == MPI_KIND_RECV || k == MPI_KIND_SENDRECV ||
	       k == MPI_KIND_WAIT;
}

static struct site_acc *site_of(struct ctx *x, const struct mpi_call *c, enum mpi_pattern pat)
{
	int rank = mpi_call_rank(x->m, c);

	if (c->site != MPI_NONE && c->site < x->m->nsites)
		return &x->by_site[(size_t)c->site * MPI_PAT_COUNT + pat];
	return &x->by_routine[((size_t)rank * MPI_ROUTINE_COUNT + c->routine) * MPI_PAT_COUNT +
			      pat];
}

/* Charge NS of pattern PAT to the call C (one of its waits; CALLS: count the call). */
static void charge(struct ctx *x, const struct mpi_call *c, enum mpi_pattern pat, int32_t peer,
		   int64_t ns, int count_call)
{
	struct mpi_waits *w = x->w;
	int rank = mpi_call_rank(x->m, c);
	struct site_acc *s;

	if (ns <= 0 || rank < 0 || rank >= w->p || c->routine >= MPI_ROUTINE_COUNT)
		return;
	s = site_of(x, c, pat);
	w->call_wait[c - x->m->calls] += ns;
	w->pattern[(size_t)rank * MPI_PAT_COUNT + pat] += ns;
	w->pattern_total[pat] += ns;
	s->ns += ns;
	s->routine = c->routine;
	if (count_call) {
		w->pattern_calls[pat]++;
		s->calls++;
	}
	if (pat == MPI_PAT_LATE_SENDER) {
		/* a peer outside the world (a corrupt record) stays in the pattern only */
		if (peer >= 0 && peer < w->p) {
			w->p2p[(size_t)rank * (size_t)w->p + (size_t)peer] += ns;
			w->total[rank] += ns;
		}
	} else if (mpi_pattern_is_collective(pat)) {
		w->coll[rank] += ns;
		w->total[rank] += ns;
	}
}

static int cmp_event(const void *a, const void *b)
{
	const struct p2p_event *x = a, *y = b;

	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (int)x->pattern - (int)y->pattern;
}

/* The Late Sender and Late Receiver waits of every matched message, as events. */
static size_t p2p_events(const struct mpi_model *m, struct p2p_event *ev)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *msg = &m->msgs[i];
		const struct mpi_call *send, *b;
		uint32_t sb, post;
		int64_t posted;

		if (msg->recv_call == MPI_NONE || msg->send_call == MPI_NONE)
			continue;
		send = &m->calls[msg->send_call];
		b = &m->calls[msg->recv_call];
		if (blocks(b) && send->enter_ns > b->enter_ns)
			ev[n++] = (struct p2p_event){msg->recv_call, msg->src,
						     send->enter_ns < b->leave_ns ? send->enter_ns
										  : b->leave_ns,
						     MPI_PAT_LATE_SENDER};
		/* the sender blocked in the send itself or in the Wait completing it */
		sb = blocks(send) ? msg->send_call : msg->send_done_call;
		post = msg->recv_post_call != MPI_NONE ? msg->recv_post_call : msg->recv_call;
		if (sb == MPI_NONE || !blocks(&m->calls[sb]))
			continue;
		b = &m->calls[sb];
		posted = m->calls[post].enter_ns;
		/* a standard send that completed before the receive was posted was eager */
		if (!msg->sync && b->leave_ns < posted)
			continue;
		if (posted > b->enter_ns)
			ev[n++] = (struct p2p_event){sb, msg->dst,
						     posted < b->leave_ns ? posted : b->leave_ns,
						     MPI_PAT_LATE_RECEIVER};
	}
	return n;
}

/* Split each blocking call's wait at its events' ends (sorted by call, then end). */
static void p2p_charge(struct ctx *x, const struct p2p_event *ev, size_t n)
{
	for (size_t i = 0; i < n;) {
		const struct mpi_call *c = &x->m->calls[ev[i].call];
		int64_t prev = c->enter_ns;
		int counted[MPI_PAT_COUNT] = {0};
		size_t j = i;

		for (; j < n && ev[j].call == ev[i].call; j++) {
			if (ev[j].end <= prev)
				continue;
			charge(x, c, ev[j].pattern, ev[j].peer, ev[j].end - prev,
			       !counted[ev[j].pattern]);
			counted[ev[j].pattern] = 1;
			prev = ev[j].end;
		}
		i = j;
	}
}

/* Wait of call C until UNTIL (clipped to the call). */
static void coll_wait(struct ctx *x, const struct mpi_call *c, enum mpi_pattern pat, int64_t until)
{
	int64_t end = until < c->leave_ns ? until : c->leave_ns;

	if (end > c->enter_ns)
		charge(x, c, pat, -1, end - c->enter_ns, 1);
}

/* CO's arrivals: the last enter of all its calls (*LAST), of the non-roots (*LAST_NONROOT),
 * and the root's call (*ROOT, NULL without a root); INT64_MIN where there is none. */
static void coll_arrivals(const struct mpi_model *m, const struct mpi_coll *co, int64_t *last,
			  int64_t *last_nonroot, const struct mpi_call **root)
{
	const uint32_t *calls = m->coll_calls + co->first;

	*last = *last_nonroot = INT64_MIN;
	*root = NULL;
	for (uint32_t k = 0; k < co->n; k++) {
		const struct mpi_call *c;

		if (calls[k] == MPI_NONE)
			continue;
		c = &m->calls[calls[k]];
		if (c->enter_ns > *last)
			*last = c->enter_ns;
		if (co->root >= 0 && mpi_call_rank(m, c) == co->root)
			*root = c;
		else if (c->enter_ns > *last_nonroot)
			*last_nonroot = c->enter_ns;
	}
}

static void coll_charge(struct ctx *x, const struct mpi_coll *co)
{
	const struct mpi_model *m = x->m;
	const uint32_t *calls = m->coll_calls + co->first;
	enum mpi_kind kind = mpi_routine_kind(co->routine);
	const struct mpi_call *root;
	int64_t last, last_nonroot, upto = INT64_MIN;

	coll_arrivals(m, co, &last, &last_nonroot, &root);
	for (uint32_t k = 0; k < co->n; k++) {
		const struct mpi_call *c;

		if (calls[k] == MPI_NONE)
			continue;
		c = &m->calls[calls[k]];
		switch (kind) {
		case MPI_KIND_BARRIER:
			coll_wait(x, c, MPI_PAT_WAIT_BARRIER, last);
			break;
		case MPI_KIND_ALL_TO_ALL:
			coll_wait(x, c, MPI_PAT_WAIT_NXN, last);
			break;
		case MPI_KIND_ONE_TO_ALL:
			if (root && c != root)
				coll_wait(x, c, MPI_PAT_LATE_BROADCAST, root->enter_ns);
			break;
		case MPI_KIND_ALL_TO_ONE:
			if (c == root && last_nonroot != INT64_MIN)
				coll_wait(x, c, MPI_PAT_EARLY_REDUCE, last_nonroot);
			break;
		case MPI_KIND_SCAN:
			/* the ranks before this one in the communicator, itself included */
			if (c->enter_ns > upto)
				upto = c->enter_ns;
			coll_wait(x, c, MPI_PAT_EARLY_SCAN, upto);
			break;
		default:
			break;
		}
	}
}

/* The blocking kind of each non-blocking collective (Iallreduce: Allreduce's), its twin's. */
static enum mpi_kind icoll_kind(uint32_t routine)
{
	int blocking = mpi_routine_twin(routine);

	return blocking < 0 ? MPI_KIND_INIT : mpi_routine_kind((unsigned)blocking);
}

/* A non-blocking collective started by a rank: its request and what its completion waits. */
struct icoll_start {
	int32_t rank;
	uint64_t request;
	int64_t until; /* the late arrival its completion waits for (INT64_MIN none) */
	enum mpi_pattern pattern;
};

static int cmp_icoll(const void *a, const void *b)
{
	const struct icoll_start *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->request > y->request) - (x->request < y->request);
}

/* The request of call C (its COLL_REQ item), 0 none. */
static uint64_t coll_request(const struct mpi_model *m, const struct mpi_call *c)
{
	for (uint32_t i = c->first_item, end = mpi_call_items_end(m, c); i < end; i++)
		if (m->items[i].kind == PSC_MPI_ITEM_COLL_REQ)
			return m->items[i].request;
	return 0;
}

/*
 * The starts of the non-blocking collective CO into S: for each participant the late arrival
 * its blocking twin would wait for (the last start; a non-root the root's; the root of an
 * all-to-one the last non-root's; Scan the last of the ranks up to it). Returns the count.
 */
static size_t icoll_starts(const struct mpi_model *m, const struct mpi_coll *co, enum mpi_kind kind,
			   struct icoll_start *s)
{
	const uint32_t *calls = m->coll_calls + co->first;
	const struct mpi_call *root;
	int64_t last, last_nonroot, upto = INT64_MIN;
	size_t n = 0;

	coll_arrivals(m, co, &last, &last_nonroot, &root);
	for (uint32_t k = 0; k < co->n; k++) {
		const struct mpi_call *c;
		struct icoll_start st;

		if (calls[k] == MPI_NONE)
			continue;
		c = &m->calls[calls[k]];
		st = (struct icoll_start){mpi_call_rank(m, c), coll_request(m, c), INT64_MIN,
					  MPI_PAT_WAIT_NXN};

		switch (kind) {
		case MPI_KIND_BARRIER:
			st.until = last;
			st.pattern = MPI_PAT_WAIT_BARRIER;
			break;
		case MPI_KIND_ALL_TO_ALL:
			st.until = last;
			break;
		case MPI_KIND_ONE_TO_ALL:
			st.pattern = MPI_PAT_LATE_BROADCAST;
			if (root && c != root)
				st.until = root->enter_ns;
			break;
		case MPI_KIND_ALL_TO_ONE:
			st.pattern = MPI_PAT_EARLY_REDUCE;
			if (c == root)
				st.until = last_nonroot;
			break;
		case MPI_KIND_SCAN:
			st.pattern = MPI_PAT_EARLY_SCAN;
			if (c->enter_ns > upto)
				upto = c->enter_ns;
			st.until = upto;
			break;
		default:
			break;
		}
		if (st.request && st.until != INT64_MIN)
			s[n++] = st;
	}
	return n;
}

/*
 * The waits of the blocking completions (Wait family) of non-blocking collectives, as events
 * like the point-to-point ones (a Waitall completing both is split between them): the time in
 * the call before the late arrival its collective waits for. The Test family never blocks.
 * Returns the number of events added at EV, or -ENOMEM.
 */
static long icoll_events(const struct mpi_model *m, struct p2p_event *ev)
{
	enum mpi_kind twin[MPI_ROUTINE_COUNT];
	struct icoll_start *s;
	size_t ns = 0, n = 0;

	for (size_t i = 0; i < m->ncolls; i++)
		if (mpi_routine_kind(m->colls[i].routine) == MPI_KIND_ICOLL)
			ns += m->colls[i].n;
	if (ns == 0)
		return 0;
	s = malloc(ns * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t r = 0; r < MPI_ROUTINE_COUNT; r++)
		twin[r] = icoll_kind(r);
	ns = 0;
	for (size_t i = 0; i < m->ncolls; i++)
		if (mpi_routine_kind(m->colls[i].routine) == MPI_KIND_ICOLL)
			ns += icoll_starts(m, &m->colls[i], twin[m->colls[i].routine], s + ns);
	qsort(s, ns, sizeof(*s), cmp_icoll);
	for (size_t i = 0; i < m->nitems; i++) {
		const struct mpi_item *it = &m->items[i];
		const struct mpi_call *c;
		struct icoll_start key, *st;

		if (it->kind != PSC_MPI_ITEM_COLL_REQ || it->call >= m->ncalls)
			continue;
		c = &m->calls[it->call];
		if (mpi_routine_kind(c->routine) != MPI_KIND_WAIT)
			continue;
		key.rank = mpi_call_rank(m, c);
		key.request = it->request;
		st = bsearch(&key, s, ns, sizeof(*s), cmp_icoll);
		if (st && st->until > c->enter_ns)
			ev[n++] = (struct p2p_event){
			    it->call, -1, st->until < c->leave_ns ? st->until : c->leave_ns,
			    st->pattern};
	}
	free(s);
	return (long)n;
}

static int cmp_site(const void *a, const void *b)
{
	const struct mpi_wait_site *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->pattern != y->pattern)
		return (int)x->pattern - (int)y->pattern;
	return (x->site > y->site) - (x->site < y->site);
}

/* The accumulated sites as the list, most wait first. */
static int sites_collect(struct ctx *x)
{
	const struct mpi_model *m = x->m;
	size_t nr = (size_t)x->w->p * MPI_ROUTINE_COUNT, n = 0;
	struct mpi_wait_site *out;

	for (size_t i = 0; i < m->nsites * MPI_PAT_COUNT; i++)
		n += x->by_site[i].ns > 0;
	for (size_t i = 0; i < nr * MPI_PAT_COUNT; i++)
		n += x->by_routine[i].ns > 0;
	out = malloc((n + 1) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < m->nsites * MPI_PAT_COUNT; i++) {
		const struct site_acc *s = &x->by_site[i];
		size_t site = i / MPI_PAT_COUNT;

		if (s->ns > 0)
			out[n++] = (struct mpi_wait_site){(enum mpi_pattern)(i % MPI_PAT_COUNT),
							  m->sites[site].rank,
							  (uint32_t)site,
							  s->routine,
							  s->ns,
							  s->calls};
	}
	for (size_t i = 0; i < nr * MPI_PAT_COUNT; i++) {
		const struct site_acc *s = &x->by_routine[i];
		size_t rr = i / MPI_PAT_COUNT;

		if (s->ns > 0)
			out[n++] = (struct mpi_wait_site){(enum mpi_pattern)(i % MPI_PAT_COUNT),
							  (int)(rr / MPI_ROUTINE_COUNT),
							  MPI_NONE,
							  (uint32_t)(rr % MPI_ROUTINE_COUNT),
							  s->ns,
							  s->calls};
	}
	qsort(out, n, sizeof(*out), cmp_site);
	x->w->sites = out;
	x->w->nsites = n;
	return 0;
}

int mpi_waits_compute(struct mpi_waits *w, const struct mpi_model *m)
{
	size_t p = m->world_size > 0 ? (size_t)m->world_size : 0;
	struct ctx x = {m, w, NULL, NULL};
	struct p2p_event *ev;
	size_t nev, ndone = 0;
	long nic;
	int ret = -ENOMEM;

	memset(w, 0, sizeof(*w));
	w->p = (int)p;
	w->p2p = calloc(p * p + 1, sizeof(*w->p2p));
	w->coll = calloc(p + 1, sizeof(*w->coll));
	w->total = calloc(p + 1, sizeof(*w->total));
	w->exec_ns = calloc(p + 1, sizeof(*w->exec_ns));
	w->pattern = calloc(p * MPI_PAT_COUNT + 1, sizeof(*w->pattern));
	w->call_wait = calloc(m->ncalls + 1, sizeof(*w->call_wait));
	w->ncalls = m->ncalls;
	x.by_site = calloc(m->nsites * MPI_PAT_COUNT + 1, sizeof(*x.by_site));
	x.by_routine = calloc(p * MPI_ROUTINE_COUNT * MPI_PAT_COUNT + 1, sizeof(*x.by_routine));
	for (size_t i = 0; i < m->nitems; i++)
		ndone += m->items[i].kind == PSC_MPI_ITEM_COLL_REQ;
	ev = malloc((2 * m->nmsgs + ndone + 1) * sizeof(*ev));
	if (!w->p2p || !w->coll || !w->total || !w->exec_ns || !w->pattern || !w->call_wait ||
	    !x.by_site || !x.by_routine || !ev)
		goto out;
	for (size_t r = 0; r < p; r++)
		if (m->ranks[r].present)
			w->exec_ns[r] = m->ranks[r].end_ns - m->ranks[r].start_ns;
	nev = p2p_events(m, ev);
	if ((nic = icoll_events(m, ev + nev)) < 0)
		goto out;
	nev += (size_t)nic;
	qsort(ev, nev, sizeof(*ev), cmp_event);
	p2p_charge(&x, ev, nev);
	for (size_t i = 0; i < m->ncolls; i++)
		coll_charge(&x, &m->colls[i]);
	ret = sites_collect(&x);
out:
	free(ev);
	free(x.by_site);
	free(x.by_routine);
	if (ret)
		mpi_waits_release(w);
	return ret;
}

void mpi_waits_release(struct mpi_waits *w)
{
	free(w->p2p);
	free(w->coll);
	free(w->total);
	free(w->exec_ns);
	free(w->pattern);
	free(w->sites);
	free(w->call_wait);
	memset(w, 0, sizeof(*w));
}

double mpi_waits_pct(const struct mpi_waits *w, int rank, int64_t ns, enum mpi_relative rel)
{
	int64_t whole;

	if (rank < 0 || rank >= w->p)
		return 0;
	whole = rel == MPI_REL_WAIT ? w->total[rank] : w->exec_ns[rank];
	return whole > 0 ? 100.0 * (double)ns / (double)whole : 0;
}

int mpi_waits_hidden(const struct mpi_waits *w, int rank, int64_t ns, enum mpi_relative rel)
{
	if (ns <= 0)
		return 1;
	return mpi_waits_pct(w, rank, ns, rel == MPI_REL_WAIT ? MPI_REL_WAIT : MPI_REL_EXEC) <
	       MPI_WAITS_HIDE_PCT;
}
