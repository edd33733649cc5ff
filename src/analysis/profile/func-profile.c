/*
 * func-profile.c - the function profile built (func-profile.h): from a pass of the experiment's
 * streams or an archive's calls (func_profile_consumer), and its rows sorted.
 */
#include "analysis/profile/func-profile-int.h"
#include "lib/array.h"
#include "lib/compiler.h"

#include "model/pass.h"
#include "analysis/profile/regions.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct func_row *func_row_add(struct func_profile *p, size_t *idx)
{
	if (array_reserve((void **)&p->rows, &p->rowcap, p->nrows + 1, sizeof(*p->rows)))
		return NULL;
	*idx = p->nrows;
	struct func_row *r = &p->rows[p->nrows++];

	memset(r, 0, sizeof(*r));
	r->min_ns = INT64_MAX;
	return r;
}

struct func_node *func_node_add(struct func_profile *p, size_t parent, size_t row, size_t th,
				size_t *idx)
{
	if (array_reserve((void **)&p->nodes, &p->nodecap, p->nnodes + 1, sizeof(*p->nodes)))
		return NULL;
	*idx = p->nnodes;
	struct func_node *n = &p->nodes[p->nnodes++];

	*n = (struct func_node){.parent = parent, .row = row, .thread = th};
	return n;
}

void func_row_exit(struct func_row *r, struct func_node *n, const struct ev_call *ev)
{
	r->calls++;
	r->sum_ns = func_sat_add(r->sum_ns, ev->incl_ns);
	r->excl_ns = func_sat_add(r->excl_ns, ev->excl_ns);
	if (ev->incl_ns < r->min_ns)
		r->min_ns = ev->incl_ns;
	if (ev->incl_ns > r->max_ns)
		r->max_ns = ev->incl_ns;
	if (r->active && --r->active == 0)
		r->incl_ns = func_sat_add(r->incl_ns, ev->incl_ns);
	r->synthetic += (uint64_t)ev->synthetic;
	n->calls++;
	n->incl_ns = func_sat_add(n->incl_ns, ev->incl_ns);
	n->excl_ns = func_sat_add(n->excl_ns, ev->excl_ns);
}

#define CACHE_EMPTY SIZE_MAX /* the value of an empty slot: every key is a possible address */

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
	u64map_clear(&ps->omp_rows);
	ps->nopen = 0;
	if (ps->nadj)
		memset(ps->adj, 0, ps->adjcap * sizeof(*ps->adj));
	ps->nadj = 0;
}

static PSC_ALWAYS_INLINE int pass_push(struct func_profile *p, struct pass *ps, size_t th,
				       size_t row)
{
	uint64_t v, key;
	size_t node, parent = ps->depth ? ps->stack[ps->depth - 1] : FUNC_NO_PARENT, ns;

	p->rows[row].active++;
	key = func_node_key(parent, row);
	ns = cache_slot(key);
	if (ps->node_cache[ns].key == key && ps->node_cache[ns].val != CACHE_EMPTY) {
		node = ps->node_cache[ns].val;
	} else {
		if (u64map_get(&ps->nodes, key, &v))
			node = (size_t)v;
		else if (!func_node_add(p, parent, row, th, &node) ||
			 u64map_put(&ps->nodes, key, node))
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

int func_pass_push(struct func_profile *p, struct pass *ps, size_t th, size_t row)
{
	return pass_push(p, ps, th, row);
}

static int on_enter(struct func_profile *p, struct pass *ps, const struct ev_location *s, size_t th,
		    uint64_t addr)
{
	uint64_t v;
	size_t row, rs = cache_slot(addr);

	if (ps->row_cache[rs].key == addr && ps->row_cache[rs].val != CACHE_EMPTY) {
		row = ps->row_cache[rs].val;
	} else {
		if (u64map_get(&ps->rows, addr, &v)) {
			row = (size_t)v;
		} else {
			struct func_row *r = func_row_add(p, &row);

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
	return pass_push(p, ps, th, row);
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
	    func_sat_add(row->covered_ns, overlap(ps->last_ns, ns, en->cover_start, en->cover_end));
	return 0;
}

int func_pass_energy(struct func_profile *p, struct pass *ps, int64_t ns, int enter,
		     int64_t incl_ns)
{
	double w;
	int ret;

	if (ps->depth) {
		ret = charge_segment(p, ps, p->nodes[ps->stack[ps->depth - 1]].row, ns, &w);
		if (ret < 0)
			return ret;
	} else {
		w = ps->en->at(ps->en->ctx, ns, &ps->hint);
		while (ps->en->nintervals && ps->slice < ps->en->nintervals &&
		       ps->en->edges[ps->slice + 1] <= ns)
			ps->slice++;
	}
	ps->last_ns = ns;
	ps->last_w = w;
	if (enter) {
		if (array_reserve((void **)&ps->wstack, &ps->wcap, ps->depth + 1,
				  sizeof(*ps->wstack)))
			return -ENOMEM;
		ps->wstack[ps->depth] = w;
	} else if (ps->depth) {
		struct func_row *r = &p->rows[p->nodes[ps->stack[ps->depth - 1]].row];

		/* the outermost activation of a recursive function carries the inclusive charge */
		if (r->active == 1) {
			r->incl_j += w - ps->wstack[ps->depth - 1];
			r->incl_covered_ns +=
			    overlap(ns - incl_ns, ns, ps->en->cover_start, ps->en->cover_end);
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
		p->total_ns = func_sat_add(p->total_ns, t->traced_ns);
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
	th->omp_tasks = f->omp_tasks;
	th->omp_thread_min = f->omp_thread_min;
	th->omp_thread_max = f->omp_thread_max;
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
static PSC_ALWAYS_INLINE int fc_call(struct func_consumer *fc, const struct ev_location *l,
				     const struct event *ev)
{
	struct func_profile *p = fc->p;
	struct pass *ps = fc->ps;
	int ret;

	if (ps->en && (ret = func_pass_energy(p, ps, ev->ns, ev->kind == EV_CALL_ENTER,
					      ev->call.incl_ns)) < 0)
		return ret;
	if (ev->kind == EV_CALL_ENTER)
		return on_enter(p, ps, l, fc->th,
				p->syms
				    ? symtab_place(p->syms, l->pid, l->image, ev->call.addr, ev->ns)
				    : ev->call.addr);
	if (unlikely(ps->nopen | ps->nadj))
		return func_omp_exit(p, ps, &ev->call, ev->ns);
	if (ps->depth) {
		struct func_node *n = &p->nodes[ps->stack[--ps->depth]];

		func_row_exit(&p->rows[n->row], n, &ev->call);
	}
	return 0;
}

static int fc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;
	int ret = ev->kind == EV_CALL_ENTER || ev->kind == EV_CALL_EXIT
		      ? fc_call(fc, fc->loc, ev)
		      : func_omp_event(fc->p, fc->ps, fc->loc, fc->th, ev);

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

	if (fc->ps->nopen && func_omp_end(fc->p, fc->ps, f->last_ns) < 0) {
		snprintf(err, errlen, "%s: out of memory", loc->name);
		return -ENOMEM;
	}
	thread_facts(&th, f);
	thread_add(fc->p, loc, &th);
	return 0;
}

/* The rows named, and a minimum of calls never made set to 0. */
static int fc_finish(void *ctx, char *err, size_t errlen)
{
	struct func_consumer *fc = ctx;
	struct func_profile *p = fc->p;

	if (func_omp_name(p, fc->ps->omp, p->syms) < 0) {
		snprintf(err, errlen, "symbols: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nnodes; i++) /* a row has the nodes of one thread */
		p->rows[p->nodes[i].row].thread = p->nodes[i].thread;
	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *r = &p->rows[i];

		if (r->min_ns == INT64_MAX)
			r->min_ns = 0;
		if (p->syms && !r->omp_frame &&
		    symtab_lookup(p->syms, r->pid, r->image, r->addr, &r->sym) < 0) {
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
	u64map_release(&ps->omp_rows);
	free(ps->stack);
	free(ps->wstack);
	free(ps->open);
	free(ps->adj);
	func_omp_free(ps->omp);
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
				  .kinds =
				      EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT) | FUNC_OMP_KINDS,
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
	if (!fc->ps || !p->threads || !(fc->ps->omp = func_omp_new()))
		return -ENOMEM;
	fc->ps->en = energy;
	return 0;
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
	arena_release(&p->omp_names);
	memset(p, 0, sizeof(*p));
}
