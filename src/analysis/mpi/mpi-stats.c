/* mpi-stats.c - MPI routines per rank and traffic per (sender, receiver) pair (mpi-stats.h). */
#include "analysis/mpi/mpi-stats.h"

#include "format/format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes an item moved: what it sent or received. A posted receive moves nothing yet (its
 * completion carries the bytes), nor does a completion of a send or a cancel. */
static uint64_t item_bytes(const struct mpi_item *it)
{
	switch (it->kind) {
	case PSC_MPI_ITEM_SEND:
	case PSC_MPI_ITEM_RECV:
	case PSC_MPI_ITEM_ISEND:
		return it->bytes;
	case PSC_MPI_ITEM_COLL:
		return it->bytes + it->bytes2;
	default:
		return 0;
	}
}

/* B - A, saturated to [0, INT64_MAX]: the model keeps leave >= enter and its times in range
 * (mpi-match.h MPI_TIME_LIMIT_NS), but a sum or a difference here must never wrap. */
static int64_t span_ns(int64_t a, int64_t b)
{
	uint64_t d;

	if (b <= a)
		return 0;
	d = (uint64_t)b - (uint64_t)a;
	return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* *ACC + NS (both >= 0), saturated at INT64_MAX. */
static void sat_add(int64_t *acc, int64_t ns)
{
	if (__builtin_add_overflow(*acc, ns, acc))
		*acc = INT64_MAX;
}

static void stat_add(struct mpi_routine_stat *s, int64_t ns, uint64_t bytes)
{
	if (!s->calls || ns < s->min_ns)
		s->min_ns = ns;
	if (!s->calls || ns > s->max_ns)
		s->max_ns = ns;
	s->calls++;
	sat_add(&s->total_ns, ns);
	s->bytes += bytes;
}

static void stat_merge(struct mpi_routine_stat *into, const struct mpi_routine_stat *s)
{
	if (!s->calls)
		return;
	if (!into->calls || s->min_ns < into->min_ns)
		into->min_ns = s->min_ns;
	if (!into->calls || s->max_ns > into->max_ns)
		into->max_ns = s->max_ns;
	into->calls += s->calls;
	sat_add(&into->total_ns, s->total_ns);
	into->bytes += s->bytes;
}

int mpi_routines_compute(struct mpi_routines *r, const struct mpi_model *m)
{
	size_t n = m->world_size > 0 ? (size_t)m->world_size : 0;

	memset(r, 0, sizeof(*r));
	r->nranks = (int)n;
	r->rank = calloc(n * MPI_ROUTINE_COUNT + 1, sizeof(*r->rank));
	r->run_ns = calloc(n + 1, sizeof(*r->run_ns));
	r->mpi_ns = calloc(n + 1, sizeof(*r->mpi_ns));
	if (!r->rank || !r->run_ns || !r->mpi_ns) {
		mpi_routines_release(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->ncalls; i++) {
		const struct mpi_call *c = &m->calls[i];
		int rank = mpi_call_rank(m, c);
		uint64_t bytes = 0;
		int64_t ns = span_ns(c->enter_ns, c->leave_ns);

		if (rank < 0 || (size_t)rank >= n || c->routine >= MPI_ROUTINE_COUNT)
			continue;
		for (uint32_t k = c->first_item, end = mpi_call_items_end(m, c); k < end; k++)
			bytes += item_bytes(&m->items[k]);
		stat_add(&r->rank[(size_t)rank * MPI_ROUTINE_COUNT + c->routine], ns, bytes);
		sat_add(&r->mpi_ns[rank], ns);
	}
	for (size_t rank = 0; rank < n; rank++) {
		if (m->ranks[rank].present)
			r->run_ns[rank] = span_ns(m->ranks[rank].start_ns, m->ranks[rank].end_ns);
		sat_add(&r->run_total_ns, r->run_ns[rank]);
		sat_add(&r->mpi_total_ns, r->mpi_ns[rank]);
		for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++)
			stat_merge(&r->all[k], &r->rank[rank * MPI_ROUTINE_COUNT + k]);
	}
	return 0;
}

void mpi_routines_release(struct mpi_routines *r)
{
	free(r->rank);
	free(r->run_ns);
	free(r->mpi_ns);
	memset(r, 0, sizeof(*r));
}

static int cmp_unmatched(const void *a, const void *b)
{
	const struct mpi_unmatched *x = a, *y = b;

	if (x->enter_ns != y->enter_ns)
		return x->enter_ns < y->enter_ns ? -1 : 1;
	return (x->call > y->call) - (x->call < y->call);
}

static uint64_t pair_key(int32_t src, int32_t dst)
{
	return (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
}

static void unmatched_fill(struct mpi_unmatched *u, const struct mpi_model *m,
			   enum mpi_unmatched_kind kind, uint32_t call, int32_t peer, int32_t tag,
			   uint64_t bytes)
{
	const struct mpi_call *c = &m->calls[call];

	*u = (struct mpi_unmatched){kind,  mpi_call_rank(m, c), c->routine, peer, tag,
				    bytes, c->enter_ns,		call};
}

double mpi_message_rate(const struct mpi_model *m, const struct mpi_message *msg)
{
	int64_t ns;

	if (msg->recv_call == MPI_NONE || msg->send_call == MPI_NONE || !msg->bytes)
		return -1;
	ns = span_ns(m->calls[msg->send_call].enter_ns, m->calls[msg->recv_call].leave_ns);
	return ns > 0 ? (double)msg->bytes * 8.0 * 1e9 / (double)ns : -1;
}

static void pair_add_message(struct mpi_pair *p, const struct mpi_model *m,
			     const struct mpi_message *msg)
{
	double rate = mpi_message_rate(m, msg);

	p->messages++;
	p->bytes += msg->bytes;
	if (msg->recv_call == MPI_NONE) {
		p->unmatched_sends++;
		return;
	}
	p->matched++;
	if (rate < 0)
		return;
	if (!p->nrates || rate < p->rate_min)
		p->rate_min = rate;
	if (!p->nrates || rate > p->rate_max)
		p->rate_max = rate;
	/* running mean: no overflow of a sum over millions of messages */
	p->nrates++;
	p->rate_mean += (rate - p->rate_mean) / (double)p->nrates;
}

/* The pairs by (source, destination) as unsigned numbers, pair_key's order. */
static int cmp_pair(const void *a, const void *b)
{
	const struct mpi_pair *x = a, *y = b;
	uint64_t kx = pair_key(x->src, x->dst), ky = pair_key(y->src, y->dst);

	return (kx > ky) - (kx < ky);
}

/* Pair table under construction: key -> index in t->pairs, open addressing. */
struct pair_index {
	uint64_t *keys;
	uint32_t *idx; /* index + 1, 0 empty */
	size_t cap;    /* a power of two */
};

static size_t pair_slot(uint64_t key, size_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key ^ (key >> 29)) & (cap - 1);
}

/* The pair of KEY in T, added when new; NULL when out of memory. */
static struct mpi_pair *pair_get(struct mpi_traffic *t, struct pair_index *x, uint64_t key)
{
	size_t h;

	if (2 * (t->npairs + 1) > x->cap) {
		struct pair_index n = {NULL, NULL, x->cap ? 2 * x->cap : 256};

		n.keys = malloc(n.cap * sizeof(*n.keys));
		n.idx = calloc(n.cap, sizeof(*n.idx));
		if (!n.keys || !n.idx) {
			free(n.keys);
			free(n.idx);
			return NULL;
		}
		for (size_t i = 0; i < x->cap; i++) {
			if (!x->idx[i])
				continue;
			for (h = pair_slot(x->keys[i], n.cap); n.idx[h]; h = (h + 1) & (n.cap - 1))
				;
			n.keys[h] = x->keys[i];
			n.idx[h] = x->idx[i];
		}
		free(x->keys);
		free(x->idx);
		*x = n;
	}
	for (h = pair_slot(key, x->cap); x->idx[h]; h = (h + 1) & (x->cap - 1))
		if (x->keys[h] == key)
			return &t->pairs[x->idx[h] - 1];
	x->keys[h] = key;
	x->idx[h] = (uint32_t)++t->npairs;
	memset(&t->pairs[t->npairs - 1], 0, sizeof(t->pairs[0]));
	t->pairs[t->npairs - 1].src = (int32_t)(key >> 32);
	t->pairs[t->npairs - 1].dst = (int32_t)(uint32_t)key;
	return &t->pairs[t->npairs - 1];
}

/* An end without a message, item IT, into pair P. */
static void pair_add_end(struct mpi_pair *p, const struct mpi_item *it)
{
	p->messages++;
	p->bytes += it->bytes;
	if (it->kind == PSC_MPI_ITEM_RECV)
		p->unmatched_recvs++;
	else
		p->unmatched_sends++;
}

/* The pairs and the unmatched ends in one pass over the messages and one over the items:
 * each pair takes its messages in msgs order, then its ends without a message in items order,
 * the order a sort of them by (pair, kind, index) gave (the rates' running mean depends on
 * it), and only the few pairs are sorted. The unmatched ends are the sends whose message has
 * no receive and the send and receive items without a message, sorted by time. */
int mpi_traffic_compute(struct mpi_traffic *t, const struct mpi_model *m)
{
	struct pair_index x = {NULL, NULL, 0};
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	t->unmatched = malloc((m->nmsgs + m->nitems + 1) * sizeof(*t->unmatched));
	t->pairs = malloc((m->nmsgs + m->nitems + 1) * sizeof(*t->pairs));
	if (!t->unmatched || !t->pairs)
		goto out;
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *msg = &m->msgs[i];
		struct mpi_pair *p = pair_get(t, &x, pair_key(msg->src, msg->dst));

		if (!p)
			goto out;
		pair_add_message(p, m, msg);
		if (msg->recv_call == MPI_NONE && msg->send_call != MPI_NONE)
			unmatched_fill(&t->unmatched[t->nunmatched++], m, MPI_UNMATCHED_SEND,
				       msg->send_call, msg->dst, msg->tag, msg->bytes);
	}
	for (size_t i = 0; i < m->nitems; i++) {
		const struct mpi_item *it = &m->items[i];
		int send = it->kind == PSC_MPI_ITEM_SEND || it->kind == PSC_MPI_ITEM_ISEND, rank;
		struct mpi_pair *p;

		if (it->msg != MPI_NONE || (it->flags & MPI_ITEM_F_CANCELLED) ||
		    (!send && it->kind != PSC_MPI_ITEM_RECV))
			continue;
		rank = mpi_call_rank(m, &m->calls[it->call]);
		p = pair_get(t, &x, send ? pair_key(rank, it->peer) : pair_key(it->peer, rank));
		if (!p)
			goto out;
		pair_add_end(p, it);
		unmatched_fill(&t->unmatched[t->nunmatched++], m,
			       send ? MPI_UNMATCHED_SEND : MPI_UNMATCHED_RECV, it->call, it->peer,
			       it->tag, it->bytes);
	}
	qsort(t->unmatched, t->nunmatched, sizeof(*t->unmatched), cmp_unmatched);
	qsort(t->pairs, t->npairs, sizeof(*t->pairs), cmp_pair);
	for (size_t i = 0; i < t->npairs; i++) {
		t->messages += t->pairs[i].messages;
		t->matched += t->pairs[i].matched;
		t->bytes += t->pairs[i].bytes;
	}
	ret = 0;
out:
	free(x.keys);
	free(x.idx);
	if (ret)
		mpi_traffic_release(t);
	return ret;
}

void mpi_traffic_release(struct mpi_traffic *t)
{
	free(t->pairs);
	free(t->unmatched);
	memset(t, 0, sizeof(*t));
}
