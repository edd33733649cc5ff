/* fprofile.c - building and merging the function profile (fprofile.h). */
#include "analysis/profile/func-profile.h"
#include "lib/array.h"

#include "model/pass.h"
#include "analysis/profile/regions.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct func_row *row_add(struct func_profile *p, size_t *idx)
{
	if (array_reserve((void **)&p->rows, &p->rowcap, p->nrows + 1, sizeof(*p->rows)))
		return NULL;
	*idx = p->nrows;
	struct func_row *r = &p->rows[p->nrows++];

	memset(r, 0, sizeof(*r));
	r->min_ns = INT64_MAX;
	return r;
}

static struct func_node *node_add(struct func_profile *p, size_t parent, size_t row, size_t th,
				  size_t *idx)
{
	if (array_reserve((void **)&p->nodes, &p->nodecap, p->nnodes + 1, sizeof(*p->nodes)))
		return NULL;
	*idx = p->nnodes;
	struct func_node *n = &p->nodes[p->nnodes++];

	*n = (struct func_node){.parent = parent, .row = row, .thread = th};
	return n;
}

static uint64_t node_key(size_t parent, size_t row)
{
	return ((uint64_t)(parent == FUNC_NO_PARENT ? 0 : parent + 1) << 32) ^ (uint64_t)row;
}

/* A + B, pinned at the int64_t limits: a damaged trace (times near 2^62, deep recursion) must
 * not overflow a sum of durations (undefined behaviour). */
static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

/* Account one call's exit in its row and node. */
static void row_exit(struct func_row *r, struct func_node *n, const struct ev_call *ev)
{
	r->calls++;
	r->sum_ns = sat_add(r->sum_ns, ev->incl_ns);
	r->excl_ns = sat_add(r->excl_ns, ev->excl_ns);
	if (ev->incl_ns < r->min_ns)
		r->min_ns = ev->incl_ns;
	if (ev->incl_ns > r->max_ns)
		r->max_ns = ev->incl_ns;
	if (r->active && --r->active == 0)
		r->incl_ns = sat_add(r->incl_ns, ev->incl_ns);
	r->synthetic += (uint64_t)ev->synthetic;
	n->calls++;
	n->incl_ns = sat_add(n->incl_ns, ev->incl_ns);
	n->excl_ns = sat_add(n->excl_ns, ev->excl_ns);
}

#define PASS_CACHE  1024     /* direct-mapped caches in front of the maps: most lookups repeat */
#define CACHE_EMPTY SIZE_MAX /* the value of an empty slot: every key is a possible address */

/* State of one stream's pass. */
struct pass {
	struct u64map rows;  /* address -> row */
	struct u64map nodes; /* node_key(parent, row) -> node */
	struct {
		uint64_t key;
		size_t val;
	} row_cache[PASS_CACHE], node_cache[PASS_CACHE];
	size_t *stack; /* open nodes */
	size_t depth, cap;
	/* with energy: charge at each open node's enter, and the last event's time and charge */
	const struct func_energy *en;
	double *wstack;
	size_t wcap, hint, slice;
	int64_t last_ns;
	double last_w;
};

static size_t cache_slot(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54) & (PASS_CACHE - 1);
}

/* Clear the caches (slots with CACHE_EMPTY, which no row or node index is). */
static void pass_reset(struct pass *ps)
{
	u64map_clear(&ps->rows);
	u64map_clear(&ps->nodes);
	for (size_t i = 0; i < PASS_CACHE; i++) {
		ps->row_cache[i].val = CACHE_EMPTY;
		ps->node_cache[i].val = CACHE_EMPTY;
	}
	ps->depth = 0;
	ps->hint = ps->slice = 0;
	ps->last_ns = 0;
	ps->last_w = 0;
}

static int on_enter(struct func_profile *p, struct pass *ps, const struct ev_location *s, size_t th,
		    uint64_t addr)
{
	uint64_t v, key;
	size_t row, node, parent = ps->depth ? ps->stack[ps->depth - 1] : FUNC_NO_PARENT;
	size_t rs = cache_slot(addr), ns;

	if (ps->row_cache[rs].key == addr && ps->row_cache[rs].val != CACHE_EMPTY) {
		row = ps->row_cache[rs].val;
	} else {
		if (u64map_get(&ps->rows, addr, &v)) {
			row = (size_t)v;
		} else {
			struct func_row *r = row_add(p, &row);

			if (!r || u64map_put(&ps->rows, addr, row))
				return -ENOMEM;
			r->pid = s->pid;
			r->tid = s->tid;
			r->image = s->image;
			r->addr = addr;
		}
		ps->row_cache[rs].key = addr;
		ps->row_cache[rs].val = row;
	}
	p->rows[row].active++;
	key = node_key(parent, row);
	ns = cache_slot(key);
	if (ps->node_cache[ns].key == key && ps->node_cache[ns].val != CACHE_EMPTY) {
		node = ps->node_cache[ns].val;
	} else {
		if (u64map_get(&ps->nodes, key, &v))
			node = (size_t)v;
		else if (!node_add(p, parent, row, th, &node) || u64map_put(&ps->nodes, key, node))
			return -ENOMEM;
		ps->node_cache[ns].key = key;
		ps->node_cache[ns].val = node;
	}
	/* the call only when the stack must grow: it is this function's most frequent path */
	if (ps->depth == ps->cap &&
	    array_reserve((void **)&ps->stack, &ps->cap, ps->depth + 1, sizeof(*ps->stack)))
		return -ENOMEM;
	ps->stack[ps->depth++] = node;
	return 0;
}

static int64_t overlap(int64_t a, int64_t b, int64_t lo, int64_t hi)
{
	a = a > lo ? a : lo;
	b = b < hi ? b : hi;
	return b > a ? b - a : 0;
}

/* Charge the exclusive segment [ps->last_ns, NS] to row R: its energy, covered time and
 * interval slices. The charge at NS, at(NS), is returned in *W. */
static int charge_segment(struct func_profile *p, struct pass *ps, size_t r, int64_t ns, double *w)
{
	const struct func_energy *en = ps->en;
	struct func_row *row = &p->rows[r];
	int64_t t = ps->last_ns;
	double wt = ps->last_w;

	if (en->nintervals && !row->slices) {
		row->slices = calloc(en->nintervals, sizeof(*row->slices));
		if (!row->slices)
			return -ENOMEM;
	}
	/* the slices in time order, so that at() only moves forward */
	while (en->nintervals && ps->slice < en->nintervals && t < ns) {
		int64_t edge = en->edges[ps->slice + 1];

		if (t < en->edges[ps->slice]) {
			t = en->edges[ps->slice] < ns ? en->edges[ps->slice] : ns;
			wt = en->at(en->ctx, t, &ps->hint);
			continue;
		}
		int64_t e = edge < ns ? edge : ns;
		double we = en->at(en->ctx, e, &ps->hint);

		row->slices[ps->slice].ns += e - t;
		row->slices[ps->slice].j += we - wt;
		t = e;
		wt = we;
		if (e == edge)
			ps->slice++;
	}
	*w = t == ns ? wt : en->at(en->ctx, ns, &ps->hint);
	row->excl_j += *w - ps->last_w;
	row->covered_ns =
	    sat_add(row->covered_ns, overlap(ps->last_ns, ns, en->cover_start, en->cover_end));
	return 0;
}

/* Energy bookkeeping at a call event: the segment since the last event goes to the function on
 * top; an enter remembers the charge, an exit charges its call. */
static int energy_event(struct func_profile *p, struct pass *ps, const struct event *ev)
{
	double w;
	int ret;

	if (ps->depth) {
		ret = charge_segment(p, ps, p->nodes[ps->stack[ps->depth - 1]].row, ev->ns, &w);
		if (ret < 0)
			return ret;
	} else {
		w = ps->en->at(ps->en->ctx, ev->ns, &ps->hint);
		while (ps->en->nintervals && ps->slice < ps->en->nintervals &&
		       ps->en->edges[ps->slice + 1] <= ev->ns)
			ps->slice++;
	}
	ps->last_ns = ev->ns;
	ps->last_w = w;
	if (ev->kind == EV_CALL_ENTER) {
		if (array_reserve((void **)&ps->wstack, &ps->wcap, ps->depth + 1,
				  sizeof(*ps->wstack)))
			return -ENOMEM;
		ps->wstack[ps->depth] = w;
	} else if (ps->depth) {
		struct func_row *r = &p->rows[p->nodes[ps->stack[ps->depth - 1]].row];

		/* the outermost activation of a recursive function carries the inclusive charge */
		if (r->active == 1) {
			r->incl_j += w - ps->wstack[ps->depth - 1];
			r->incl_covered_ns += overlap(ev->ns - ev->call.incl_ns, ev->ns,
						      ps->en->cover_start, ps->en->cover_end);
		}
	}
	return 0;
}

/* The next thread of P: location LOC and the facts F of its walk, added to the totals. */
static void thread_add(struct func_profile *p, const struct ev_location *loc,
		       const struct call_thread *th)
{
	struct func_thread *t = &p->threads[p->nthreads++];

	memset(t, 0, sizeof(*t));
	t->pid = loc->pid;
	t->tid = loc->tid;
	t->image = loc->image;
	t->th = *th;
	t->traced_ns = th->last_ns >= th->first_ns ? th->last_ns - th->first_ns : 0;
	p->function_records += th->function_records;
	p->unmatched_exits += th->unmatched_exits;
	p->synthetic_exits += th->synthetic_exits;
	p->unwound += th->unwound;
	if (th->function_records)
		p->total_ns = sat_add(p->total_ns, t->traced_ns);
}

/* The facts of a location's walk as a thread keeps them. */
static void thread_facts(struct call_thread *th, const struct ev_location_facts *f)
{
	memset(th, 0, sizeof(*th));
	memcpy(th->name, f->name, sizeof(th->name));
	th->ended = f->ended;
	th->end_reason = f->end_reason;
	th->truncated_at = f->truncated_at;
	th->lost_records = f->lost_records;
	th->lost_bytes = f->lost_bytes;
	th->unmatched_exits = f->unmatched_exits;
	th->synthetic_exits = f->synthetic_exits;
	th->unwound = f->unwound;
	th->function_records = f->function_records;
	th->first_ns = f->first_ns;
	th->last_ns = f->last_ns;
}

/* The consumer's state (func_profile_consumer). */
struct func_consumer {
	struct func_profile *p;
	struct pass *ps;
	const struct ev_location *loc;
	size_t th;
};

static int fc_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;

	(void)err, (void)errlen;
	pass_reset(fc->ps);
	fc->loc = loc;
	fc->th = fc->p->nthreads;
	return 0;
}

/* One call event EV of location L (an enter or an exit). */
static inline int fc_call(struct func_consumer *fc, const struct ev_location *l,
			  const struct event *ev)
{
	struct func_profile *p = fc->p;
	struct pass *ps = fc->ps;
	int ret;

	if (ps->en && (ret = energy_event(p, ps, ev)) < 0)
		return ret;
	if (ev->kind == EV_CALL_ENTER)
		return on_enter(p, ps, l, fc->th,
				symtab_place(p->syms, l->pid, l->image, ev->call.addr, ev->ns));
	if (ps->depth) {
		struct func_node *n = &p->nodes[ps->stack[--ps->depth]];

		row_exit(&p->rows[n->row], n, &ev->call);
	}
	return 0;
}

static int fc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;
	int ret = fc_call(fc, fc->loc, ev);

	if (ret < 0)
		snprintf(err, errlen, "%s: out of memory", fc->loc->name);
	return ret;
}

static int fc_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;
	const struct ev_location *l = fc->loc;

	for (size_t i = 0; i < n; i++) {
		int ret = fc_call(fc, l, &ev[i]);

		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", l->name);
			return ret;
		}
	}
	return 0;
}

static int fc_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;
	struct call_thread th;

	(void)err, (void)errlen;
	thread_facts(&th, f);
	thread_add(fc->p, loc, &th);
	return 0;
}

/* The rows named, and a minimum of calls never made set to 0. */
static int fc_finish(void *ctx, char *err, size_t errlen)
{
	struct func_profile *p = ((struct func_consumer *)ctx)->p;

	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *r = &p->rows[i];

		if (r->min_ns == INT64_MAX)
			r->min_ns = 0;
		if (symtab_lookup(p->syms, r->pid, r->image, r->addr, &r->sym) < 0) {
			snprintf(err, errlen, "symbols: out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static void pass_free(struct pass *ps)
{
	if (!ps)
		return;
	u64map_release(&ps->rows);
	u64map_release(&ps->nodes);
	free(ps->stack);
	free(ps->wstack);
	free(ps);
}

static void fc_release(void *ctx)
{
	struct func_consumer *fc = ctx;

	pass_free(fc->ps);
	free(fc);
}

int func_profile_consumer(struct ev_consumer *c, struct func_profile *p, struct symtab *syms,
			  const struct func_energy *energy, size_t nlocations)
{
	struct func_consumer *fc = calloc(1, sizeof(*fc));

	memset(p, 0, sizeof(*p));
	*c = (struct ev_consumer){.name = "functions",
				  .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT),
				  .locations = EV_LOC_STREAMS,
				  .ctx = fc,
				  .location_begin = fc_begin,
				  .event = fc_event,
				  .events = fc_events,
				  .location_end = fc_end,
				  .finish = fc_finish,
				  .release = fc_release};
	if (!fc)
		return -ENOMEM;
	fc->p = p;
	fc->ps = calloc(1, sizeof(*fc->ps));
	p->syms = syms;
	p->nintervals = energy ? energy->nintervals : 0;
	/* the thread array grows one by one: reserve it whole */
	p->threads = calloc(nlocations + 1, sizeof(*p->threads));
	if (!fc->ps || !p->threads)
		return -ENOMEM;
	fc->ps->en = energy;
	return 0;
}

/* A profile fed event by event (fprofile.h): the pass of one thread at a time. */
struct func_feed {
	struct func_profile *p;
	struct pass ps;
	struct ev_location s; /* the thread's pid and tid, for its rows */
	size_t th, nthreads;
};

int func_feed_open(struct func_feed **out, struct func_profile *p, size_t nthreads)
{
	struct func_feed *f = calloc(1, sizeof(*f));

	memset(p, 0, sizeof(*p));
	*out = f;
	if (!f)
		return -ENOMEM;
	f->p = p;
	f->nthreads = nthreads;
	p->threads = calloc(nthreads + 1, sizeof(*p->threads));
	return p->threads ? 0 : -ENOMEM;
}

int func_feed_thread(struct func_feed *f, pid_t pid, pid_t tid)
{
	if (f->p->nthreads >= f->nthreads)
		return -EINVAL;
	pass_reset(&f->ps);
	f->s.pid = pid;
	f->s.tid = tid;
	f->th = f->p->nthreads;
	return 0;
}

int func_feed_event(struct func_feed *f, const struct call_event *ev)
{
	struct func_profile *p = f->p;
	struct pass *ps = &f->ps;

	if (ev->type == CALL_ENTER)
		return on_enter(p, ps, &f->s, f->th, ev->addr);
	if (ev->type == CALL_EXIT && ps->depth) {
		struct func_node *n = &p->nodes[ps->stack[--ps->depth]];
		struct ev_call c = {
		    .incl_ns = ev->incl_ns, .excl_ns = ev->excl_ns, .synthetic = ev->synthetic};

		row_exit(&p->rows[n->row], n, &c);
	}
	return 0;
}

void func_feed_thread_end(struct func_feed *f, const struct call_thread *th)
{
	thread_add(f->p, &f->s, th);
}

void func_feed_close(struct func_feed *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->p->nrows; i++)
		if (f->p->rows[i].min_ns == INT64_MAX)
			f->p->rows[i].min_ns = 0;
	u64map_release(&f->ps.rows);
	u64map_release(&f->ps.nodes);
	free(f->ps.stack);
	free(f);
}

/* The same function in two rows: same module and ELF address (or, unknown, same name). */
static int same_function(const struct func_row *a, const struct func_row *b)
{
	return a->sym.offset == b->sym.offset && !strcmp(a->sym.module, b->sym.module) &&
	       !strcmp(a->sym.name, b->sym.name);
}

static uint64_t function_hash(const struct func_row *r)
{
	return hash_str(hash_str(HASH_INIT ^ r->sym.offset, r->sym.module), r->sym.name);
}

/* Merged row of IN's row R: found in BY_FUNCTION (OUT's rows), or added. SIZE_MAX when out of
 * memory. */
static size_t merged_row(struct func_profile *out, struct hchain *by_function,
			 const struct func_row *r)
{
	uint64_t h = function_hash(r);
	size_t idx;

	for (size_t at = hchain_first(by_function, h); at; at = hchain_next(by_function, at))
		if (same_function(&out->rows[at - 1], r))
			return at - 1;
	struct func_row *m = row_add(out, &idx);

	if (!m)
		return SIZE_MAX;
	*m = *r;
	m->tid = 0;
	m->calls = 0;
	m->incl_ns = m->excl_ns = m->sum_ns = m->max_ns = 0;
	m->min_ns = INT64_MAX;
	m->synthetic = 0;
	m->incl_j = m->excl_j = 0;
	m->covered_ns = m->incl_covered_ns = 0;
	m->slices = NULL;
	if (hchain_add(by_function, h, idx))
		return SIZE_MAX;
	return idx;
}

double func_profile_imbalance(const struct func_profile *p, const struct func_row *r)
{
	double mean;

	if (p->traced_threads < 2 || r->thread_max_ns <= 0)
		return NAN;
	mean = (double)r->incl_ns / (double)p->traced_threads;
	return 100.0 * ((double)r->thread_max_ns - mean) / (double)r->thread_max_ns;
}

int func_profile_merge(const struct func_profile *in, struct func_profile *out)
{
	struct hchain by_function = {0};
	struct u64map nodes = {0};
	size_t *row_map = calloc(in->nrows + 1, sizeof(*row_map));
	size_t *node_map = calloc(in->nnodes + 1, sizeof(*node_map));
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->syms = in->syms;
	out->threads = calloc(in->nthreads + 1, sizeof(*out->threads));
	if (!row_map || !node_map || !out->threads)
		goto done;
	memcpy(out->threads, in->threads, in->nthreads * sizeof(*in->threads));
	out->nthreads = in->nthreads;
	out->function_records = in->function_records;
	out->no_records_caveat = in->no_records_caveat;
	out->unmatched_exits = in->unmatched_exits;
	out->synthetic_exits = in->synthetic_exits;
	out->unwound = in->unwound;
	out->total_ns = in->total_ns;
	out->nintervals = in->nintervals;
	for (size_t t = 0; t < in->nthreads; t++)
		out->traced_threads += in->threads[t].th.function_records > 0;
	for (size_t i = 0; i < in->nrows; i++) {
		const struct func_row *r = &in->rows[i];
		size_t idx = merged_row(out, &by_function, r);

		if (idx == SIZE_MAX)
			goto done;
		struct func_row *m = &out->rows[idx];

		row_map[i] = idx;
		m->calls += r->calls;
		m->incl_ns = sat_add(m->incl_ns, r->incl_ns);
		m->excl_ns = sat_add(m->excl_ns, r->excl_ns);
		m->sum_ns = sat_add(m->sum_ns, r->sum_ns);
		m->synthetic += r->synthetic;
		m->incl_j += r->incl_j;
		m->excl_j += r->excl_j;
		m->covered_ns = sat_add(m->covered_ns, r->covered_ns);
		m->incl_covered_ns = sat_add(m->incl_covered_ns, r->incl_covered_ns);
		if (r->slices && !m->slices &&
		    !(m->slices = calloc(in->nintervals, sizeof(*m->slices))))
			goto done;
		for (size_t k = 0; r->slices && k < in->nintervals; k++) {
			m->slices[k].ns += r->slices[k].ns;
			m->slices[k].j += r->slices[k].j;
		}
		if (r->calls && r->min_ns < m->min_ns)
			m->min_ns = r->min_ns;
		if (r->max_ns > m->max_ns)
			m->max_ns = r->max_ns;
		if (r->incl_ns > m->thread_max_ns)
			m->thread_max_ns = r->incl_ns;
	}
	for (size_t i = 0; i < out->nrows; i++)
		if (out->rows[i].min_ns == INT64_MAX)
			out->rows[i].min_ns = 0;
	/* nodes come parents first, so every parent is mapped before its children */
	for (size_t i = 0; i < in->nnodes; i++) {
		const struct func_node *n = &in->nodes[i];
		size_t parent = n->parent == FUNC_NO_PARENT ? FUNC_NO_PARENT : node_map[n->parent];
		uint64_t key = node_key(parent, row_map[n->row]), v;
		size_t idx;

		if (u64map_get(&nodes, key, &v)) {
			idx = (size_t)v;
		} else if (!node_add(out, parent, row_map[n->row], 0, &idx) ||
			   u64map_put(&nodes, key, idx)) {
			goto done;
		}
		node_map[i] = idx;
		out->nodes[idx].calls += n->calls;
		out->nodes[idx].incl_ns = sat_add(out->nodes[idx].incl_ns, n->incl_ns);
		out->nodes[idx].excl_ns = sat_add(out->nodes[idx].excl_ns, n->excl_ns);
	}
	ret = 0;
done:
	free(row_map);
	free(node_map);
	hchain_release(&by_function);
	u64map_release(&nodes);
	return ret;
}

/* The node of T under PARENT (FUNC_NO_PARENT: a root of thread TH) for ROW: found in KIDS or
 * ROOTS, or added with no counts (T has room for it). SIZE_MAX when out of memory. */
static size_t tree_node(struct func_tree *t, struct u64map *kids, struct u64map *roots,
			size_t parent, size_t row, size_t th)
{
	struct u64map *map = parent == FUNC_NO_PARENT ? roots : kids;
	/* node_key's pairs are distinct below 2^32 nodes and rows; roots by thread and row */
	uint64_t key = parent == FUNC_NO_PARENT ? (uint64_t)th << 32 | row : node_key(parent, row);
	uint64_t v;
	size_t idx = t->nnodes;

	if (u64map_get(map, key, &v))
		return (size_t)v;
	if (u64map_put(map, key, idx))
		return SIZE_MAX;
	t->nodes[idx] = (struct func_node){.parent = parent, .row = row, .thread = th};
	t->levels[idx] = 1;
	t->nnodes++;
	return idx;
}

/* The nodes of P into T (emptied first): the levels above the first of each chain that FOLD
 * marks (by its head) go into their head's node. 0 or -ENOMEM. */
static int tree_pass(struct func_tree *t, const struct func_profile *p, const uint64_t *level,
		     const size_t *head, const uint8_t *fold, const uint64_t *depth, size_t *map,
		     struct u64map *kids, struct u64map *roots)
{
	t->nnodes = t->folded = 0;
	t->max_levels = 0;
	u64map_clear(kids);
	u64map_clear(roots);
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct func_node *nd = &p->nodes[i];
		size_t at;

		if (fold[head[i]] && level[i] > 1) {
			at = map[nd->parent];
			if (level[i] > t->levels[at])
				t->levels[at] = level[i];
		} else {
			at = tree_node(t, kids, roots,
				       nd->parent == FUNC_NO_PARENT ? FUNC_NO_PARENT
								    : map[nd->parent],
				       nd->row, nd->thread);
			if (at == SIZE_MAX)
				return -ENOMEM;
			t->nodes[at].incl_ns += nd->incl_ns; /* outermost calls: never nested */
			if (fold[i]) {
				t->folded++;
				if (depth[i] > t->max_levels)
					t->max_levels = depth[i];
			}
		}
		map[i] = at;
		t->nodes[at].calls += nd->calls;
		t->nodes[at].excl_ns += nd->excl_ns;
	}
	return 0;
}

int func_tree_build(struct func_tree *t, const struct func_profile *p, uint64_t fold_from)
{
	size_t n = p->nnodes;
	/* per node of P: its level in its chain of direct recursion (1: the chain's head), the
	 * chain's head, and the node of T it went into; per head: the chain's levels and whether
	 * it is folded */
	uint64_t *level = malloc((n + 1) * sizeof(*level));
	size_t *head = malloc((n + 1) * sizeof(*head)), *map = malloc((n + 1) * sizeof(*map));
	uint64_t *depth = calloc(n + 1, sizeof(*depth));
	uint8_t *fold = calloc(n + 1, 1);
	struct u64map kids = {0}, roots = {0};
	int ret = -ENOMEM, again = 1;

	memset(t, 0, sizeof(*t));
	/* at most one node of T per node of P */
	t->nodes = malloc((n + 1) * sizeof(*t->nodes));
	t->levels = malloc((n + 1) * sizeof(*t->levels));
	if (!level || !head || !map || !depth || !fold || !t->nodes || !t->levels)
		goto out;
	/* parents come before their children, so one pass forward finds every chain's depth */
	for (size_t i = 0; i < n; i++) {
		const struct func_node *nd = &p->nodes[i];

		if (nd->parent != FUNC_NO_PARENT && p->nodes[nd->parent].row == nd->row) {
			level[i] = level[nd->parent] + 1;
			head[i] = head[nd->parent];
		} else {
			level[i] = 1;
			head[i] = i;
		}
		if (level[i] > depth[head[i]])
			depth[head[i]] = level[i];
	}
	for (size_t i = 0; i < n; i++)
		fold[i] = head[i] == i && fold_from && depth[i] > fold_from;
	/* chains that share a node of T with a folded one (the same function called from
	 * several levels of a folded caller) are folded too, else that node would have the
	 * function itself as a child: fold them and build again (rarely needed twice) */
	while (again) {
		ret = tree_pass(t, p, level, head, fold, depth, map, &kids, &roots);
		if (ret)
			goto out;
		again = 0;
		for (size_t i = 0; i < n; i++) {
			if (level[i] == 2 && !fold[head[i]] && t->levels[map[head[i]]] > 1) {
				fold[head[i]] = 1;
				again = 1;
			}
		}
	}
out:
	free(level);
	free(head);
	free(map);
	free(depth);
	free(fold);
	u64map_release(&kids);
	u64map_release(&roots);
	if (ret)
		func_tree_release(t);
	return ret;
}

void func_tree_release(struct func_tree *t)
{
	free(t->nodes);
	free(t->levels);
	memset(t, 0, sizeof(*t));
}

/* Comparison of row indices through the caller's comparison of rows. */
struct sort_ctx {
	const struct func_row *rows;
	int (*cmp)(const void *, const void *, void *);
	void *ctx;
};

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;

	return c->cmp(&c->rows[*(const size_t *)a], &c->rows[*(const size_t *)b], c->ctx);
}

int func_profile_sort(struct func_profile *p, int (*cmp)(const void *, const void *, void *),
		      void *ctx)
{
	size_t *order = malloc((p->nrows + 1) * sizeof(*order));
	size_t *where = malloc((p->nrows + 1) * sizeof(*where));
	struct func_row *rows = malloc((p->nrows + 1) * sizeof(*rows));
	struct sort_ctx c = {p->rows, cmp, ctx};

	if (!order || !where || !rows) {
		free(order);
		free(where);
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nrows; i++)
		order[i] = i;
	qsort_r(order, p->nrows, sizeof(*order), index_cmp, &c);
	for (size_t i = 0; i < p->nrows; i++) {
		rows[i] = p->rows[order[i]];
		where[order[i]] = i;
	}
	for (size_t i = 0; i < p->nnodes; i++)
		p->nodes[i].row = where[p->nodes[i].row];
	free(p->rows);
	p->rows = rows;
	p->rowcap = p->nrows + 1;
	free(order);
	free(where);
	return 0;
}

void func_profile_release(struct func_profile *p)
{
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].slices);
	free(p->rows);
	free(p->nodes);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}
