/*
 * mpi-match.c - messages of the MPI model: sends matched to receives by MPI's non-overtaking
 * rule (mpi-match.h). The causality correction is in mpi-causal.c.
 */
#include "analysis/mpi/mpi-match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

/* ---- channels: (source, destination, communicator, tag) -> id ------------------------------ */

/*
 * Two levels: (source, destination, communicator) -> a pair, then the pair's own table of
 * tag -> channel id. A rank's lookups touch only its few pairs' tables, which stay in cache
 * where one table of every channel (a channel per message when tags count iterations) missed
 * it on nearly every lookup.
 */
struct chan_key {
	int32_t src, dst, tag;
	uint32_t comm;
};

struct tag_slot {
	int32_t tag;
	uint32_t id; /* channel id + 1, 0 empty */
};

/* A pair with PAIR_DIRECT_AT channels in its table moves the tags in [0, PAIR_DIRECT) (the
 * tags every MPI allows, where programs that count iterations in tags keep them) to an array
 * indexed by tag: consecutive tags, consecutive memory. At most 128 KiB per 1024 channels. */
#define PAIR_DIRECT    32768
#define PAIR_DIRECT_AT 1024

struct pair {
	int32_t src, dst;
	uint32_t comm;
	struct tag_slot *slots;
	size_t n, nslots; /* tags in slots; nslots a power of two, or 0 */
	uint32_t *direct; /* NULL, or PAIR_DIRECT: tag -> channel id + 1, 0 none */
};

struct chans {
	struct pair *pairs;
	size_t npairs, cap;
	uint32_t *slots; /* pair index + 1, 0 empty */
	size_t nslots;	 /* a power of two */
	size_t n;	 /* channels */
};

static size_t pair_hash(int32_t src, int32_t dst, uint32_t comm)
{
	uint64_t h = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)comm * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static size_t tag_hash(int32_t tag)
{
	uint64_t h = (uint64_t)(uint32_t)tag * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29));
}

static int pairs_rehash(struct chans *t, size_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->npairs; i++) {
		const struct pair *p = &t->pairs[i];
		size_t h = pair_hash(p->src, p->dst, p->comm) & (nslots - 1);

		while (slots[h])
			h = (h + 1) & (nslots - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

/* The pair of K, added when new; NULL when out of memory. */
static struct pair *pair_of(struct chans *t, const struct chan_key *k)
{
	size_t h;

	if ((t->npairs + 1) * 2 > t->nslots && pairs_rehash(t, t->nslots ? t->nslots * 2 : 256))
		return NULL;
	for (h = pair_hash(k->src, k->dst, k->comm) & (t->nslots - 1); t->slots[h];
	     h = (h + 1) & (t->nslots - 1)) {
		struct pair *p = &t->pairs[t->slots[h] - 1];

		if (p->src == k->src && p->dst == k->dst && p->comm == k->comm)
			return p;
	}
	if (ARRAY_GROW(t->pairs, t->npairs + 1, t->cap))
		return NULL;
	t->pairs[t->npairs] = (struct pair){k->src, k->dst, k->comm, NULL, 0, 0, NULL};
	t->slots[h] = (uint32_t)t->npairs + 1;
	return &t->pairs[t->npairs++];
}

static int tags_rehash(struct pair *p, size_t nslots)
{
	struct tag_slot *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->nslots; i++) {
		size_t h;

		if (!p->slots[i].id)
			continue;
		for (h = tag_hash(p->slots[i].tag) & (nslots - 1); slots[h].id;
		     h = (h + 1) & (nslots - 1))
			;
		slots[h] = p->slots[i];
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = nslots;
	return 0;
}

/* P's tags in [0, PAIR_DIRECT) out of its table into P->direct. */
static int pair_go_direct(struct pair *p)
{
	struct tag_slot *old = p->slots;
	size_t nold = p->nslots;

	p->direct = calloc(PAIR_DIRECT, sizeof(*p->direct));
	p->slots = calloc(nold, sizeof(*p->slots));
	if (!p->direct || !p->slots) {
		free(p->slots);
		p->slots = old;
		return -ENOMEM;
	}
	p->n = 0;
	for (size_t i = 0; i < nold; i++) {
		size_t h;

		if (!old[i].id)
			continue;
		if (old[i].tag >= 0 && old[i].tag < PAIR_DIRECT) {
			p->direct[old[i].tag] = old[i].id;
			continue;
		}
		for (h = tag_hash(old[i].tag) & (nold - 1); p->slots[h].id;
		     h = (h + 1) & (nold - 1))
			;
		p->slots[h] = old[i];
		p->n++;
	}
	free(old);
	return 0;
}

/* The id of K, added when new; MPI_NONE when out of memory. */
static uint32_t chan_id(struct chans *t, const struct chan_key *k)
{
	struct pair *p = pair_of(t, k);
	size_t h;

	if (p && p->direct && k->tag >= 0 && k->tag < PAIR_DIRECT) {
		if (!p->direct[k->tag])
			p->direct[k->tag] = (uint32_t)++t->n;
		return p->direct[k->tag] - 1;
	}
	if (!p || ((p->n + 1) * 2 > p->nslots && tags_rehash(p, p->nslots ? p->nslots * 2 : 16)))
		return MPI_NONE;
	for (h = tag_hash(k->tag) & (p->nslots - 1); p->slots[h].id; h = (h + 1) & (p->nslots - 1))
		if (p->slots[h].tag == k->tag)
			return p->slots[h].id - 1;
	p->slots[h] = (struct tag_slot){k->tag, (uint32_t)t->n + 1};
	if (++p->n >= PAIR_DIRECT_AT && !p->direct && pair_go_direct(p))
		return MPI_NONE;
	return (uint32_t)t->n++;
}

static void chans_free(struct chans *t)
{
	for (size_t i = 0; i < t->npairs; i++) {
		free(t->pairs[i].slots);
		free(t->pairs[i].direct);
	}
	free(t->pairs);
	free(t->slots);
}

/* ---- matching ------------------------------------------------------------------------------- */

/* A send, or a receive by the time it was posted; ORD breaks ties: the item that started
 * the send or posted the receive, unique among the sends and among the receives, so that
 * the order by (T, ORD) is one order. */
struct ent {
	int64_t t;
	uint32_t ord, item;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Each channel's entries, E[AT[c] .. AT[c + 1]), in (t, ord) order; they nearly always are
 * already (a rank's calls are in time order), so a sort runs only where they are not. */
static void sort_channels(struct ent *e, const uint32_t *at, size_t nchan)
{
	for (size_t c = 0; c < nchan; c++) {
		struct ent *s = e + at[c];
		size_t len = at[c + 1] - at[c];

		for (size_t i = 1; i < len; i++)
			if (cmp_ent(&s[i - 1], &s[i]) > 0) {
				qsort(s, len, sizeof(*s), cmp_ent);
				break;
			}
	}
}

/* ---- requests: id -> the item that started it, while it is outstanding -------------------- */

struct reqs {
	uint64_t *ids; /* 0 empty (ids are never 0) */
	uint32_t *items;
	size_t n, cap; /* cap a power of two, or 0 */
};

static size_t req_slot(uint64_t id, size_t cap)
{
	id ^= id >> 31;
	id *= 0x9e3779b97f4a7c15ull;
	return (size_t)(id >> 20) & (cap - 1);
}

static int reqs_put(struct reqs *t, uint64_t id, uint32_t item)
{
	size_t h;

	if (2 * (t->n + 1) > t->cap) {
		struct reqs n = {NULL, NULL, 0, t->cap ? 2 * t->cap : 256};

		n.ids = calloc(n.cap, sizeof(*n.ids));
		n.items = malloc(n.cap * sizeof(*n.items));
		if (!n.ids || !n.items) {
			free(n.ids);
			free(n.items);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->cap; i++)
			if (t->ids[i])
				reqs_put(&n, t->ids[i], t->items[i]);
		free(t->ids);
		free(t->items);
		*t = n;
	}
	for (h = req_slot(id, t->cap); t->ids[h] && t->ids[h] != id; h = (h + 1) & (t->cap - 1))
		;
	t->n += !t->ids[h];
	t->ids[h] = id;
	t->items[h] = item;
	return 0;
}

/* The item of request ID, taken out of the table; MPI_NONE when it is not there. */
static uint32_t reqs_take(struct reqs *t, uint64_t id)
{
	size_t h, j, mask = t->cap - 1;
	uint32_t item;

	if (!t->cap || !id)
		return MPI_NONE;
	for (h = req_slot(id, t->cap); t->ids[h] != id; h = (h + 1) & mask)
		if (!t->ids[h])
			return MPI_NONE;
	item = t->items[h];
	/* backward-shift deletion keeps every probe sequence unbroken */
	for (j = (h + 1) & mask; t->ids[j]; j = (j + 1) & mask) {
		size_t home = req_slot(t->ids[j], t->cap);

		if (((j - home) & mask) >= ((j - h) & mask)) {
			t->ids[h] = t->ids[j];
			t->items[h] = t->items[j];
			h = j;
		}
	}
	t->ids[h] = 0;
	t->n--;
	return item;
}

static void reqs_clear(struct reqs *t)
{
	if (t->cap)
		memset(t->ids, 0, t->cap * sizeof(*t->ids));
	t->n = 0;
}

struct match_ctx {
	struct mpi_model *m;
	struct chans ch;
	struct reqs req; /* outstanding requests of the rank being read */
	uint32_t *aux;	 /* per item: ISEND its completing call; RECV the item that posted it
			  * (itself when blocking, its IRECV), MPI_NONE unknown */
	uint32_t *next;	 /* per location of the rank: its next call */
	uint32_t *nsend, *nrecv; /* per channel: its sends and receives, later their starts */
	size_t ncounted, nsend_cap, nrecv_cap; /* channels in nsend and nrecv */
	size_t nsend_items, nrecv_items; /* every SEND and ISEND, RECV item, routable or not */
};

/* Item I and the item J that started its request (MPI_NONE: unknown) share a communicator:
 * the one that lacks it takes the other's (a send's completion or a cancellation has none in
 * the records, a posted receive none in OTF2). */
static void request_comm(struct mpi_model *m, uint32_t i, uint32_t j)
{
	if (j == MPI_NONE)
		return;
	if (m->items[i].comm == MPI_NONE)
		m->items[i].comm = m->items[j].comm;
	else if (m->items[j].comm == MPI_NONE)
		m->items[j].comm = m->items[i].comm;
}

static int routable(const struct mpi_model *m, const struct mpi_item *it)
{
	return it->comm != MPI_NONE && it->peer >= 0 && it->peer < m->world_size;
}

/* Item IT's channel, counted in X, into IT->msg until the entries are placed: MPI_NONE when
 * it has none (no communicator, a peer outside the world). 0 or -ENOMEM. */
static int count_channel(struct match_ctx *x, struct mpi_item *it, const struct chan_key *k)
{
	uint32_t chan;

	it->msg = MPI_NONE;
	if (!routable(x->m, it))
		return 0;
	if ((chan = chan_id(&x->ch, k)) == MPI_NONE)
		return -ENOMEM;
	/* channel ids are handed out in order: a new one is the next to count (and one more
	 * slot stays for the end of the last channel's entries) */
	if (chan >= x->ncounted) {
		if (ARRAY_GROW(x->nsend, x->ncounted + 2, x->nsend_cap) ||
		    ARRAY_GROW(x->nrecv, x->ncounted + 2, x->nrecv_cap))
			return -ENOMEM;
		x->nsend[x->ncounted] = x->nrecv[x->ncounted] = 0;
		x->ncounted++;
	}
	if (it->kind == PSC_MPI_ITEM_RECV)
		x->nrecv[chan]++;
	else
		x->nsend[chan]++;
	it->msg = chan;
	return 0;
}

/* The items of call C of rank R: sends and receives counted on their channels, requests
 * followed. */
static int collect_call(struct match_ctx *x, int r, uint32_t c)
{
	struct mpi_model *m = x->m;
	const struct mpi_call *call = &m->calls[c];

	for (uint32_t i = call->first_item, end = mpi_call_items_end(m, call); i < end; i++) {
		struct mpi_item *it = &m->items[i];
		struct chan_key k = {r, it->peer, it->tag, MPI_NONE};
		uint32_t j = MPI_NONE;

		/* every item passes here once, before any later one can refer to it (a request is
		 * in the table only once its start was read): what matching sets starts unset */
		it->msg = MPI_NONE;
		it->flags &= (uint8_t)~MPI_ITEM_F_CANCELLED;
		switch (it->kind) {
		case PSC_MPI_ITEM_SEND:
			x->aux[i] = c;
			x->nsend_items++;
			break;
		case PSC_MPI_ITEM_ISEND:
			x->aux[i] = MPI_NONE; /* its completion, when one is read */
			if (it->request && reqs_put(&x->req, it->request, i))
				return -ENOMEM;
			x->nsend_items++;
			break;
		case PSC_MPI_ITEM_IRECV:
			if (it->request && reqs_put(&x->req, it->request, i))
				return -ENOMEM;
			continue;
		case PSC_MPI_ITEM_ISEND_DONE:
			j = reqs_take(&x->req, it->request);
			request_comm(m, i, j);
			if (j != MPI_NONE && m->items[j].kind == PSC_MPI_ITEM_ISEND)
				x->aux[j] = c;
			continue;
		case PSC_MPI_ITEM_CANCEL:
			/* a send cancelled for sure sent nothing; a freed one still sends */
			j = reqs_take(&x->req, it->request);
			request_comm(m, i, j);
			if (j != MPI_NONE && m->items[j].kind == PSC_MPI_ITEM_ISEND &&
			    !(it->flags & PSC_MPI_F_FREED)) {
				m->items[j].flags |= MPI_ITEM_F_CANCELLED;
				if (m->items[j].msg != MPI_NONE)
					x->nsend[m->items[j].msg]--;
			}
			continue;
		case PSC_MPI_ITEM_RECV:
			k.src = it->peer;
			k.dst = r;
			x->aux[i] = i;
			if (it->request) {
				j = reqs_take(&x->req, it->request);
				if (j != MPI_NONE && m->items[j].kind != PSC_MPI_ITEM_IRECV)
					j = MPI_NONE;
				request_comm(m, i, j);
				x->aux[i] = j;
			}
			x->nrecv_items++;
			break;
		default:
			continue;
		}
		/* the communicator only now: request_comm may just have given it one */
		k.comm = it->comm;
		if (count_channel(x, it, &k))
			return -ENOMEM;
	}
	return 0;
}

/* Rank R's calls in time order (its threads' calls merged by start): a request is started
 * before it completes, whichever thread completes it, so the table holds only the ones
 * outstanding. */
static int collect_rank(struct match_ctx *x, int r)
{
	struct mpi_model *m = x->m;
	const struct mpi_rank_info *ri = &m->ranks[r];
	int ret = 0;

	reqs_clear(&x->req);
	if (ri->nlocs == 1) {
		const struct mpi_loc *loc = &m->locs[ri->first_loc];

		for (uint32_t c = loc->first_call; c < loc->first_call + loc->ncalls && !ret; c++)
			ret = collect_call(x, r, c);
		return ret;
	}
	for (uint32_t k = 0; k < ri->nlocs; k++)
		x->next[k] = m->locs[ri->first_loc + k].first_call;
	while (ret == 0) {
		uint32_t best = MPI_NONE;

		for (uint32_t k = 0; k < ri->nlocs; k++) {
			const struct mpi_loc *loc = &m->locs[ri->first_loc + k];

			if (x->next[k] < loc->first_call + loc->ncalls &&
			    (best == MPI_NONE ||
			     m->calls[x->next[k]].enter_ns < m->calls[x->next[best]].enter_ns))
				best = k;
		}
		if (best == MPI_NONE)
			break;
		ret = collect_call(x, r, x->next[best]++);
	}
	return ret;
}

/* The counts AT[0 .. nchan) made the starts of their channels in one block of entries,
 * AT[nchan] its end; their sum. */
static size_t counts_to_starts(uint32_t *at, size_t nchan)
{
	size_t sum = 0;

	for (size_t c = 0; c < nchan; c++) {
		uint32_t n = at[c];

		at[c] = (uint32_t)sum;
		sum += n;
	}
	at[nchan] = (uint32_t)sum;
	return sum;
}

/* Each channel's sends and receives put at their places (a counting sort by channel, which
 * the items' msg held; reset here), then paired in order: a send item's msg holds its
 * receive item for now, *NPAIRED counts them. *BLOCK gets the memory the entries were in
 * (malloc'd, its pages written: the messages go there). */
static int pair_channels(struct match_ctx *x, size_t *npaired, void **block)
{
	struct mpi_model *m = x->m;
	size_t nchan = x->ncounted, ns, nr;
	uint32_t *as = x->nsend, *ar = x->nrecv;
	struct ent *s, *rv;

	if (!nchan) {
		*block = malloc(sizeof(struct ent));
		return *block ? 0 : -ENOMEM;
	}
	/* fewer than nitems < MPI_NONE: the starts fit in 32 bits */
	ns = counts_to_starts(as, nchan);
	nr = counts_to_starts(ar, nchan);
	s = malloc((ns + nr + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	rv = s + ns;
	for (size_t i = 0; i < m->nitems; i++) {
		struct mpi_item *it = &m->items[i];
		uint32_t chan = it->msg, q;

		if (chan == MPI_NONE)
			continue;
		it->msg = MPI_NONE;
		if (it->kind == PSC_MPI_ITEM_RECV) {
			q = x->aux[i] != MPI_NONE ? x->aux[i] : (uint32_t)i;
			rv[ar[chan]++] =
			    (struct ent){m->calls[m->items[q].call].enter_ns, q, (uint32_t)i};
		} else if (!(it->flags & MPI_ITEM_F_CANCELLED)) {
			s[as[chan]++] =
			    (struct ent){m->calls[it->call].enter_ns, (uint32_t)i, (uint32_t)i};
		}
	}
	/* at[c] is now the end of channel c: shift back to the starts */
	memmove(as + 1, as, nchan * sizeof(*as));
	as[0] = 0;
	memmove(ar + 1, ar, nchan * sizeof(*ar));
	ar[0] = 0;
	sort_channels(s, as, nchan);
	sort_channels(rv, ar, nchan);
	for (size_t c = 0; c < nchan; c++) {
		size_t n = as[c + 1] - as[c];

		if (ar[c + 1] - ar[c] < n)
			n = ar[c + 1] - ar[c];
		for (size_t k = 0; k < n; k++)
			m->items[s[as[c] + k].item].msg = rv[ar[c] + k].item;
		*npaired += n;
	}
	*block = s;
	return 0;
}

int mpi_match_messages(struct mpi_model *m)
{
	struct match_ctx x;
	size_t npaired = 0;
	void *block = NULL;
	int ret = -ENOMEM;

	memset(&x, 0, sizeof(x));
	x.m = m;
	m->cancelled_sends = 0;
	x.aux = malloc((m->nitems + 1) * sizeof(*x.aux));
	x.next = malloc((m->nlocs + 1) * sizeof(*x.next));
	if (!x.aux || !x.next)
		goto out;
	for (int r = 0; r < m->world_size; r++)
		if (m->ranks[r].nlocs && (ret = collect_rank(&x, r)))
			goto out;
	if ((ret = pair_channels(&x, &npaired, &block)))
		goto out;
	/* in the pages the sorted entries were written to: fewer fresh ones to fault in */
	m->msgs = realloc(block, (x.nsend_items + 1) * sizeof(*m->msgs));
	if (!m->msgs) {
		free(block);
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->nitems; i++) {
		struct mpi_item *it = &m->items[i];
		struct mpi_message *g;
		uint32_t rcv = it->msg;

		if (it->kind != PSC_MPI_ITEM_SEND && it->kind != PSC_MPI_ITEM_ISEND)
			continue;
		if (it->flags & MPI_ITEM_F_CANCELLED) {
			m->cancelled_sends++;
			continue;
		}
		g = &m->msgs[m->nmsgs];
		g->src = mpi_call_rank(m, &m->calls[it->call]);
		g->dst = it->peer;
		g->tag = it->tag;
		g->comm = it->comm;
		g->bytes = rcv != MPI_NONE ? m->items[rcv].bytes : it->bytes;
		g->send_call = it->call;
		g->send_done_call = x.aux[i];
		g->recv_post_call = rcv != MPI_NONE && x.aux[rcv] != MPI_NONE
					? m->items[x.aux[rcv]].call
					: MPI_NONE;
		g->recv_call = rcv != MPI_NONE ? m->items[rcv].call : MPI_NONE;
		g->sync = (it->flags & PSC_MPI_F_SYNC) != 0;
		it->msg = (uint32_t)m->nmsgs;
		if (rcv != MPI_NONE)
			m->items[rcv].msg = (uint32_t)m->nmsgs;
		else
			m->unmatched_sends++;
		m->nmsgs++;
	}
	/* every RECV item counts, and a paired one's send made a message above */
	m->unmatched_recvs += x.nrecv_items - npaired;
	ret = 0;
out:
	free(x.aux);
	free(x.nsend);
	free(x.nrecv);
	chans_free(&x.ch);
	free(x.req.ids);
	free(x.req.items);
	free(x.next);
	return ret;
}
