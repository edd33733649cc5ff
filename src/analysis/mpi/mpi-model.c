/*
 * mpi-model.c - the MPI model's builder (mpi_model_add_*) and mpi_model_build: clock
 * alignment, collective matching, ranges of the run and the warnings of missing ranks
 * (mpi-model.h). Message matching is in mpi-match.c, causality correction in mpi-causal.c.
 */
#include "analysis/mpi/mpi-model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-match.h"
#include "lib/strv.h"
#include "lib/hashmap.h"

struct mpi_index {
	struct u64map comm_by_key; /* key -> index in comms */
	uint32_t *site_slots;	   /* open addressing: site index + 1, 0 empty */
	size_t site_cap;	   /* a power of two, or 0 */
};

void mpi_model_init(struct mpi_model *m)
{
	memset(m, 0, sizeof(*m));
}

void mpi_model_release(struct mpi_model *m)
{
	for (int r = 0; r < m->world_size && m->ranks; r++)
		free(m->ranks[r].host);
	for (size_t i = 0; i < m->ncomms; i++)
		free(m->comms[i].members);
	for (size_t i = 0; i < m->nsites; i++) {
		free(m->sites[i].function);
		free(m->sites[i].file);
	}
	for (size_t i = 0; i < m->nwarnings; i++)
		free(m->warnings[i]);
	if (m->index) {
		u64map_release(&m->index->comm_by_key);
		free(m->index->site_slots);
		free(m->index);
	}
	free(m->source);
	free(m->ranks);
	free(m->locs);
	free(m->calls);
	free(m->uncorrected);
	free(m->items);
	free(m->msgs);
	free(m->comms);
	free(m->colls);
	free(m->coll_calls);
	free(m->sites);
	free(m->warnings);
	memset(m, 0, sizeof(*m));
}

static struct mpi_index *model_index(struct mpi_model *m)
{
	if (!m->index)
		m->index = calloc(1, sizeof(*m->index));
	return m->index;
}

int mpi_model_set_world(struct mpi_model *m, int size)
{
	struct mpi_rank_info *r;

	if (size <= 0)
		return -EINVAL;
	if (size <= m->world_size)
		return 0;
	r = realloc(m->ranks, (size_t)size * sizeof(*r));
	if (!r)
		return -ENOMEM;
	m->ranks = r;
	for (int i = m->world_size; i < size; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].first_loc = MPI_NONE;
		r[i].host = strdup("");
		if (!r[i].host) {
			m->world_size = i;
			return -ENOMEM;
		}
	}
	m->world_size = size;
	return 0;
}

long mpi_model_add_loc(struct mpi_model *m, int rank, pid_t tid)
{
	if (rank < -1)
		return -EINVAL;
	if (m->nlocs >= MPI_LOCS_MAX)
		return -E2BIG;
	if (ARRAY_GROW(m->locs, m->nlocs + 1, m->locs_cap))
		return -ENOMEM;
	m->locs[m->nlocs] = (struct mpi_loc){rank, tid, (uint32_t)m->ncalls, 0};
	return (long)m->nlocs++;
}

long mpi_model_add_comm(struct mpi_model *m, uint64_t key, const int32_t *members, uint32_t size)
{
	struct mpi_index *ix = model_index(m);
	struct mpi_comm_info *c;
	uint64_t v;

	if (!ix)
		return -ENOMEM;
	if (size == 0 || !members)
		return -EINVAL;
	if (u64map_get(&ix->comm_by_key, key, &v))
		return (long)v;
	if (m->ncomms >= MPI_NONE || ARRAY_GROW(m->comms, m->ncomms + 1, m->comms_cap))
		return -ENOMEM;
	c = &m->comms[m->ncomms];
	c->members = malloc((size_t)size * sizeof(*c->members));
	if (!c->members || u64map_put(&ix->comm_by_key, key, m->ncomms)) {
		free(c->members);
		return -ENOMEM;
	}
	memcpy(c->members, members, (size_t)size * sizeof(*members));
	c->key = key;
	c->size = size;
	return (long)m->ncomms++;
}

static size_t site_hash(int rank, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)rank << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17);
}

static int site_rehash(struct mpi_index *ix, const struct mpi_model *m, size_t cap)
{
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		size_t h = site_hash(m->sites[i].rank, m->sites[i].addr) & (cap - 1);

		while (slots[h])
			h = (h + 1) & (cap - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(ix->site_slots);
	ix->site_slots = slots;
	ix->site_cap = cap;
	return 0;
}

long mpi_model_add_site(struct mpi_model *m, int rank, uint64_t addr, const char *function,
			const char *file, unsigned line)
{
	struct mpi_index *ix = model_index(m);
	struct mpi_site *s;
	size_t h;

	if (!ix)
		return -ENOMEM;
	if ((m->nsites + 1) * 2 > ix->site_cap &&
	    site_rehash(ix, m, ix->site_cap ? ix->site_cap * 2 : 64))
		return -ENOMEM;
	h = site_hash(rank, addr) & (ix->site_cap - 1);
	for (; ix->site_slots[h]; h = (h + 1) & (ix->site_cap - 1)) {
		s = &m->sites[ix->site_slots[h] - 1];
		if (s->rank == rank && s->addr == addr)
			return (long)(ix->site_slots[h] - 1);
	}
	if (m->nsites >= MPI_NONE - 1 || ARRAY_GROW(m->sites, m->nsites + 1, m->sites_cap))
		return -ENOMEM;
	s = &m->sites[m->nsites];
	s->rank = rank;
	s->addr = addr;
	s->function = strdup(function ? function : "");
	s->file = strdup(file ? file : "");
	s->line = line;
	if (!s->function || !s->file) {
		free(s->function);
		free(s->file);
		return -ENOMEM;
	}
	ix->site_slots[h] = (uint32_t)m->nsites + 1;
	return (long)m->nsites++;
}

_Static_assert(MPI_ROUTINE_COUNT <= 512, "mpi_call.routine has 9 bits");

long mpi_model_add_call(struct mpi_model *m, uint32_t loc, uint32_t routine, int64_t enter_ns,
			int64_t leave_ns, uint32_t site)
{
	struct mpi_call *c;

	if (m->nlocs == 0 || loc != m->nlocs - 1 || routine >= MPI_ROUTINE_COUNT)
		return -EINVAL;
	/* the capacity checked here first: a call of array_reserve per record showed in profiles */
	if (m->ncalls >= MPI_NONE ||
	    (m->ncalls >= m->calls_cap && ARRAY_GROW(m->calls, m->ncalls + 1, m->calls_cap)))
		return -ENOMEM;
	c = &m->calls[m->ncalls];
	/* loaders reject implausible times; what reaches here is kept in range, leave >= enter */
	enter_ns = mpi_time_clamp(enter_ns);
	leave_ns = mpi_time_clamp(leave_ns);
	c->enter_ns = enter_ns;
	c->leave_ns = leave_ns < enter_ns ? enter_ns : leave_ns;
	c->routine = routine;
	c->loc = loc;
	c->site = site < m->nsites ? site : MPI_NONE;
	c->first_item = (uint32_t)m->nitems;
	c->coll = MPI_NONE;
	m->locs[loc].ncalls++;
	return (long)m->ncalls++;
}

int mpi_model_add_item(struct mpi_model *m, const struct mpi_item *it)
{
	struct mpi_item *d;

	if (m->ncalls == 0)
		return -EINVAL;
	if (m->nitems >= MPI_NONE ||
	    (m->nitems >= m->items_cap && ARRAY_GROW(m->items, m->nitems + 1, m->items_cap)))
		return -ENOMEM;
	d = &m->items[m->nitems++];
	*d = *it;
	d->call = (uint32_t)(m->ncalls - 1);
	d->msg = MPI_NONE;
	return 0;
}

int mpi_model_warn(struct mpi_model *m, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = strv_vpushf(&m->warnings, &m->nwarnings, &m->warnings_cap, fmt, ap);
	va_end(ap);
	return ret;
}

/* ---- build ---------------------------------------------------------------------------------- */

/* Locations grouped by rank (a stable counting sort when they are not), the ranks' ranges. */
static int group_locs(struct mpi_model *m)
{
	size_t n = (size_t)m->world_size;
	uint32_t *at, *map;
	struct mpi_loc *out;
	int sorted = 1;

	for (size_t i = 1; i < m->nlocs; i++)
		if (m->locs[i].rank < m->locs[i - 1].rank)
			sorted = 0;
	if (!sorted) {
		at = calloc(n + 1, sizeof(*at));
		map = malloc((m->nlocs + 1) * sizeof(*map));
		out = malloc((m->nlocs + 1) * sizeof(*out));
		if (!at || !map || !out) {
			free(at);
			free(map);
			free(out);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->nlocs; i++)
			at[m->locs[i].rank + 1]++;
		for (size_t r = 1; r <= n; r++)
			at[r] += at[r - 1];
		for (size_t i = 0; i < m->nlocs; i++) {
			map[i] = at[m->locs[i].rank]++;
			out[map[i]] = m->locs[i];
		}
		for (size_t c = 0; c < m->ncalls; c++)
			m->calls[c].loc = map[m->calls[c].loc];
		free(m->locs);
		m->locs = out;
		m->locs_cap = m->nlocs + 1;
		free(at);
		free(map);
	}
	for (size_t i = 0; i < m->nlocs; i++) {
		struct mpi_rank_info *ri = &m->ranks[m->locs[i].rank];

		if (ri->nlocs == 0)
			ri->first_loc = (uint32_t)i;
		ri->nlocs++;
		ri->present = 1;
	}
	return 0;
}

int64_t mpi_rank_clock_offset(const struct mpi_rank_info *r, int64_t t)
{
	const struct mpi_clock_point *a = &r->clock[0], *b = &r->clock[1];
	__int128 num, off;

	/* all in 128 bits and clamped: far outside the two measurements a line extrapolates
	 * to anything, and an offset beyond the plausible range is no clock's. The product
	 * fits in 64 bits nearly always (offsets drift by microseconds): then the same
	 * quotient in 64-bit arithmetic, several times faster than a 128-bit division. */
	if (r->has_clock[0] && r->has_clock[1] && b->local_ns != a->local_ns) {
		int64_t doff, dt, den, num64;

		if (!__builtin_sub_overflow(b->offset_ns, a->offset_ns, &doff) &&
		    !__builtin_sub_overflow(t, a->local_ns, &dt) &&
		    !__builtin_sub_overflow(b->local_ns, a->local_ns, &den) && den > 0 &&
		    !__builtin_mul_overflow(doff, dt, &num64)) {
			off = (__int128)a->offset_ns + (doff ? num64 / den : 0);
		} else {
			num = ((__int128)b->offset_ns - a->offset_ns) * ((__int128)t - a->local_ns);
			off = a->offset_ns + num / ((__int128)b->local_ns - a->local_ns);
		}
	} else if (r->has_clock[0]) {
		off = a->offset_ns;
	} else {
		off = r->has_clock[1] ? b->offset_ns : 0;
	}
	if (off < -MPI_TIME_LIMIT_NS)
		return -MPI_TIME_LIMIT_NS;
	return off > MPI_TIME_LIMIT_NS ? MPI_TIME_LIMIT_NS : (int64_t)off;
}

static uint64_t abs_diff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* Clock measurements outside the plausible range are dropped, and a finalize offset that
 * implies more drift than a clock has is ignored, each with a warning (the loader has already
 * rejected such records with their file and byte offset; this guards every builder). */
static void check_clocks(struct mpi_model *m)
{
	for (int r = 0; r < m->world_size; r++) {
		struct mpi_rank_info *ri = &m->ranks[r];
		const struct mpi_clock_point *a = &ri->clock[0], *b = &ri->clock[1];
		uint64_t dt, doff, err;

		for (int k = 0; k < 2; k++) {
			const struct mpi_clock_point *p = &ri->clock[k];

			if (ri->has_clock[k] && (p->local_ns != mpi_time_clamp(p->local_ns) ||
						 p->offset_ns != mpi_time_clamp(p->offset_ns))) {
				ri->has_clock[k] = 0;
				mpi_model_warn(m,
					       "rank %d: clock offset %" PRId64 " ns at %" PRId64
					       " ns is outside the plausible range: ignored",
					       r, p->offset_ns, p->local_ns);
			}
		}
		if (!ri->has_clock[0] || !ri->has_clock[1])
			continue;
		dt = abs_diff(b->local_ns, a->local_ns);
		doff = abs_diff(b->offset_ns, a->offset_ns);
		/* both points are clamped and each round trip is at most 2^64: no overflow */
		err = a->rtt_ns / 2 + b->rtt_ns / 2;
		if (err > (uint64_t)MPI_TIME_LIMIT_NS)
			err = (uint64_t)MPI_TIME_LIMIT_NS;
		if (doff > dt / (1000000 / MPI_DRIFT_PPM) + MPI_DRIFT_SLACK_NS + err) {
			ri->has_clock[1] = 0;
			mpi_model_warn(m,
				       "rank %d: clock offsets %" PRId64 " ns at init and %" PRId64
				       " ns at finalize, %" PRIu64
				       " ns apart, are more than %d ppm "
				       "of drift: the one at finalize is ignored",
				       r, a->offset_ns, b->offset_ns, dt, MPI_DRIFT_PPM);
		}
	}
}

static void align_clocks(struct mpi_model *m, unsigned flags)
{
	int missing = 0, first_missing = -1;

	if (flags & MPI_BUILD_ALIGNED) {
		m->clock_aligned = 1;
		return;
	}
	for (int r = 0; r < m->world_size; r++) {
		struct mpi_rank_info *ri = &m->ranks[r];
		int64_t off;
		int constant;

		if (!ri->present)
			continue;
		if (!ri->has_clock[0] && !ri->has_clock[1]) {
			if (r != 0 && missing++ == 0)
				first_missing = r;
			continue;
		}
		/* one offset measured, or two equal ones (no drift): the same for every time */
		constant = !ri->has_clock[0] || !ri->has_clock[1] ||
			   ri->clock[0].offset_ns == ri->clock[1].offset_ns;
		off = mpi_rank_clock_offset(ri, 0);
		for (uint32_t l = ri->first_loc; l < ri->first_loc + ri->nlocs; l++)
			for (uint32_t c = m->locs[l].first_call;
			     c < m->locs[l].first_call + m->locs[l].ncalls; c++) {
				struct mpi_call *call = &m->calls[c];

				call->enter_ns +=
				    constant ? off : mpi_rank_clock_offset(ri, call->enter_ns);
				call->leave_ns +=
				    constant ? off : mpi_rank_clock_offset(ri, call->leave_ns);
				if (call->leave_ns < call->enter_ns)
					call->leave_ns = call->enter_ns;
			}
	}
	m->clock_aligned = missing == 0;
	if (missing)
		mpi_model_warn(m,
			       "%d rank(s) measured no clock offset (first: rank %d): their times "
			       "are on their own clocks",
			       missing, first_missing);
}

/* Messages received before they were sent with the times on the ranks' own clocks: what the
 * clock alignment fixed. A time's own-clock value is its aligned value minus the offset
 * there (the offsets change by ppm, so the offset at the aligned time is the offset). */
static uint64_t count_unaligned(const struct mpi_model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *g = &m->msgs[i];
		const struct mpi_rank_info *rs, *rd;
		int64_t send, recv;

		if (g->recv_call == MPI_NONE)
			continue;
		rs = &m->ranks[g->src];
		rd = &m->ranks[g->dst];
		send = m->calls[g->send_call].enter_ns;
		recv = m->calls[g->recv_call].leave_ns;
		send -= mpi_rank_clock_offset(rs, send);
		recv -= mpi_rank_clock_offset(rd, recv);
		n += recv < send;
	}
	return n;
}

struct coll_ent {
	uint32_t comm;
	int32_t rank;
	int64_t t;
	uint32_t call, item;
};

static int cmp_coll_ent(const void *a, const void *b)
{
	const struct coll_ent *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

/* The collectives of communicator CI: E[0..N) its calls sorted by rank and time; START and
 * LEN scratch of the communicator's size. colls and coll_calls have room for every call. */
static void match_comm_colls(struct mpi_model *m, uint32_t ci, const struct coll_ent *e, size_t n,
			     uint32_t *start, uint32_t *len)
{
	const struct mpi_comm_info *comm = &m->comms[ci];
	size_t first_coll = m->ncolls, kmax = 0, nmiss = 0, nbad = 0, bad_k = 0;
	int miss_rank = -1;
	size_t i = 0;

	for (uint32_t k = 0; k < comm->size; k++)
		len[k] = 0;
	while (i < n) {
		size_t j = i;
		int32_t r = e[i].rank, pos = -1;

		while (j < n && e[j].rank == r)
			j++;
		for (uint32_t k = 0; k < comm->size && pos < 0; k++)
			if (comm->members[k] == r)
				pos = (int32_t)k;
		if (pos >= 0) {
			start[pos] = (uint32_t)i;
			len[pos] = (uint32_t)(j - i);
			if (j - i > kmax)
				kmax = j - i;
		}
		i = j;
	}
	for (size_t k = 0; k < kmax; k++) {
		struct mpi_coll *co = &m->colls[m->ncolls];

		co->comm = ci;
		co->routine = MPI_NONE;
		co->root = -1;
		co->first = (uint32_t)m->ncoll_calls;
		co->n = 0;
		co->nmissing = 0;
		for (uint32_t p = 0; p < comm->size; p++) {
			const struct coll_ent *x;

			if (len[p] <= k) {
				co->nmissing++;
				if (miss_rank < 0)
					miss_rank = comm->members[p];
				continue;
			}
			x = &e[start[p] + k];
			if (co->routine == MPI_NONE) {
				co->routine = m->calls[x->call].routine;
				co->root = m->items[x->item].peer < 0 ? -1 : m->items[x->item].peer;
			} else if (m->calls[x->call].routine != co->routine && nbad++ == 0) {
				bad_k = k;
			}
			m->calls[x->call].coll = (uint32_t)m->ncolls;
			m->coll_calls[m->ncoll_calls++] = x->call;
			co->n++;
		}
		if (co->nmissing)
			nmiss++;
		m->ncolls++;
	}
	if (nmiss)
		mpi_model_warn(m,
			       "communicator 0x%" PRIx64 " (%u ranks): %zu of %zu collective "
			       "operations miss members (rank %d first)",
			       comm->key, comm->size, nmiss, m->ncolls - first_coll, miss_rank);
	if (nbad)
		mpi_model_warn(m,
			       "communicator 0x%" PRIx64 ": %zu collective operations mix routines "
			       "(operation %zu first)",
			       comm->key, nbad, bad_k);
}

static int cmp_coll_full(const void *a, const void *b)
{
	const struct coll_ent *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return cmp_coll_ent(a, b);
}

/* The k-th collective call of a communicator on each member forms its k-th operation. */
static int match_collectives(struct mpi_model *m)
{
	struct coll_ent *e = NULL;
	uint32_t *scratch;
	size_t n = 0, cap = 0, ncoll = 0, maxsize = 1;
	int sorted = 1;

	/* one pass over the calls finds and counts them, E growing as it goes */
	for (size_t l = 0; l < m->nlocs; l++)
		for (uint32_t c = m->locs[l].first_call;
		     c < m->locs[l].first_call + m->locs[l].ncalls; c++)
			for (uint32_t it = m->calls[c].first_item,
				      end = mpi_call_items_end(m, &m->calls[c]);
			     it < end; it++) {
				if (m->items[it].kind != PSC_MPI_ITEM_COLL)
					continue;
				ncoll++;
				if (m->items[it].comm != MPI_NONE) {
					if (n == cap && ARRAY_GROW(e, n + 1, cap)) {
						free(e);
						return -ENOMEM;
					}
					e[n] = (struct coll_ent){m->items[it].comm, m->locs[l].rank,
								 m->calls[c].enter_ns, c, it};
					if (n && cmp_coll_full(&e[n - 1], &e[n]) > 0)
						sorted = 0;
					n++;
				}
				break;
			}
	if (ncoll == 0) {
		free(e);
		return 0;
	}
	for (size_t i = 0; i < m->ncomms; i++)
		if (m->comms[i].size > maxsize)
			maxsize = m->comms[i].size;
	scratch = malloc(2 * maxsize * sizeof(*scratch));
	m->colls = malloc(ncoll * sizeof(*m->colls));
	m->coll_calls = malloc(ncoll * sizeof(*m->coll_calls));
	if (!scratch || !m->colls || !m->coll_calls) {
		free(e);
		free(scratch);
		return -ENOMEM;
	}
	/* one rank with one thread gives rank and time order already: sort only when not */
	if (!sorted)
		qsort(e, n, sizeof(*e), cmp_coll_full);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && e[j].comm == e[i].comm)
			j++;
		match_comm_colls(m, e[i].comm, e + i, j - i, scratch, scratch + maxsize);
		i = j;
	}
	free(e);
	free(scratch);
	return 0;
}

/* Communicators whose members are not ranks of the world cannot be matched: their items
 * lose the communicator (counted unmatched) with one warning each. */
static void check_comms(struct mpi_model *m)
{
	size_t nbad_items = 0;
	uint8_t *bad = calloc(m->ncomms + 1, 1);

	for (size_t i = 0; i < m->ncomms; i++)
		for (uint32_t k = 0; k < m->comms[i].size; k++)
			if (m->comms[i].members[k] < 0 || m->comms[i].members[k] >= m->world_size) {
				if (bad)
					bad[i] = 1;
				mpi_model_warn(m,
					       "communicator 0x%" PRIx64 ": member %u is rank %d, "
					       "outside the world of %d",
					       m->comms[i].key, k, m->comms[i].members[k],
					       m->world_size);
				break;
			}
	for (size_t i = 0; i < m->nitems; i++) {
		uint32_t c = m->items[i].comm;

		if (c != MPI_NONE && (c >= m->ncomms || (bad && bad[c]))) {
			m->items[i].comm = MPI_NONE;
			nbad_items++;
		}
	}
	if (nbad_items)
		mpi_model_warn(m, "%zu message or collective records name no known communicator",
			       nbad_items);
	free(bad);
}

static void set_ranges(struct mpi_model *m)
{
	int any = 0;

	for (int r = 0; r < m->world_size; r++) {
		struct mpi_rank_info *ri = &m->ranks[r];
		int have = 0;

		for (uint32_t l = ri->first_loc; ri->nlocs && l < ri->first_loc + ri->nlocs; l++) {
			const struct mpi_loc *loc = &m->locs[l];

			if (!loc->ncalls)
				continue;
			/* calls are in time order and corrections preserve it */
			int64_t a = m->calls[loc->first_call].enter_ns;
			int64_t b = m->calls[loc->first_call + loc->ncalls - 1].leave_ns;

			for (uint32_t c = loc->first_call; c < loc->first_call + loc->ncalls; c++)
				if (m->calls[c].leave_ns > b)
					b = m->calls[c].leave_ns;
			if (!have || a < ri->start_ns)
				ri->start_ns = a;
			if (!have || b > ri->end_ns)
				ri->end_ns = b;
			have = 1;
		}
		if (!have)
			continue;
		if (!any || ri->start_ns < m->start_ns)
			m->start_ns = ri->start_ns;
		if (!any || ri->end_ns > m->end_ns)
			m->end_ns = ri->end_ns;
		any = 1;
	}
}

static void warn_missing_ranks(struct mpi_model *m)
{
	char list[160];
	size_t len = 0;
	int n = 0;

	list[0] = 0;
	for (int r = 0; r < m->world_size; r++) {
		if (m->ranks[r].present)
			continue;
		if (n < 10 && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
						n ? ", " : "", r);
		n++;
	}
	if (n == 1)
		mpi_model_warn(m, "rank %s of %d: no streams (its MPI calls are missing)", list,
			       m->world_size);
	else if (n)
		mpi_model_warn(m,
			       "%d of %d ranks have no streams (their MPI calls are missing): %s%s",
			       n, m->world_size, list, n > 10 ? ", ..." : "");
}

int mpi_model_build(struct mpi_model *m, unsigned flags, char *err, size_t errlen)
{
	int maxrank = -1, ret;

	for (size_t i = 0; i < m->nlocs; i++) {
		if (m->locs[i].rank < 0) {
			snprintf(err, errlen, "%s: an MPI thread (tid %d) without a rank",
				 m->source ? m->source : "model", (int)m->locs[i].tid);
			return -EINVAL;
		}
		if (m->locs[i].rank > maxrank)
			maxrank = m->locs[i].rank;
	}
	if (maxrank >= m->world_size) {
		if (m->world_size)
			mpi_model_warn(m, "rank %d recorded in a world of %d ranks", maxrank,
				       m->world_size);
		if (mpi_model_set_world(m, maxrank + 1))
			goto nomem;
	}
	if (m->world_size == 0 || m->ncalls == 0) {
		snprintf(err, errlen, "%s: no MPI calls", m->source ? m->source : "model");
		return -ENODATA;
	}
	if (group_locs(m))
		goto nomem;
	warn_missing_ranks(m);
	check_comms(m);
	if (!(flags & MPI_BUILD_ALIGNED))
		check_clocks(m);
	align_clocks(m, flags);
	ret = mpi_match_messages(m);
	if (ret == 0)
		ret = match_collectives(m);
	if (ret == 0 && !(flags & MPI_BUILD_ALIGNED))
		m->violations_unaligned = count_unaligned(m);
	if (ret == 0)
		ret = mpi_correct_causality(m, !(flags & MPI_BUILD_NO_CORRECTION),
					    flags & MPI_BUILD_KEEP_UNCORRECTED);
	if (ret == 0 && (flags & MPI_BUILD_ALIGNED))
		m->violations_unaligned = m->violations_before;
	if (ret)
		goto nomem;
	set_ranges(m);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory building the MPI model");
	return -ENOMEM;
}
