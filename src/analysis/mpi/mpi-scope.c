/*
 * mpi-scope.c - time per scope in computation, MPI and MPI waiting (mpi-scope.h). A consumer of
 * the pass (model/pass.h): each stream of a rank comes as its events with one stack of scopes,
 * functions and regions together; its MPI calls, seen in stream order, are the model's calls
 * of that thread in the order mpi_model_load added them, so each enter and leave pair finds its
 * call and its wait by position.
 */
#include "analysis/mpi/mpi-scope.h"
#include "lib/array.h"
#include "lib/hash.h"

#include "model/pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_MAX 16 /* MPI calls open at once in one thread, as mpi-read.c keeps them */

/* An open scope on the thread's stack. */
struct frame {
	uint32_t scope;
	int region; /* a region (key: its id), else a function (key: its address) */
	uint64_t key;
	uint64_t serial; /* tells a frame from a later one at the same depth */
	int64_t start_ns, child_ns;
	int64_t mpi_ns, wait_ns; /* MPI calls made while it was open, nested scopes included */
};

/* An MPI call entered and not yet left: the frame it was made in. */
struct open_mpi {
	uint32_t routine;
	int64_t enter_ns;
	size_t depth; /* frames open then (0: none) */
	uint64_t serial;
};

/* One stream's walk. */
struct walk {
	struct mpi_scope_profile *p;
	const struct mpi_model *m;
	const struct mpi_waits *w;
	struct symtab *syms;
	const struct ev_location *loc_at; /* the stream walked; NULL when fed (mpi_scope_feed_*) */
	int rank;
	pid_t tid;		   /* the thread's id, as the model's locations name it */
	uint8_t *loc_used;	   /* the model's locations taken by a stream */
	const struct mpi_loc *loc; /* this thread's, bound at its first MPI record */
	int loc_bound;
	uint32_t next_call; /* the next of loc's calls */
	struct frame *st;
	size_t depth, cap;
	uint64_t serial;
	struct open_mpi open[OPEN_MAX];
	size_t nopen;
	unsigned *active; /* per scope: its activations open on this thread */
	size_t active_cap;
	struct u64map fn_scope;	    /* address -> scope */
	struct u64map reg_scope;    /* region id -> scope */
	struct u64map closed_early; /* frame key -> ends still to come and to be ignored */
	int ret;
};

const char *mpi_scope_kind_name(enum mpi_scope_kind k)
{
	return k == MPI_SCOPE_FUNCTION ? "function" : k == MPI_SCOPE_REGION ? "region" : "outside";
}

/* The scope of KIND and NAME, added when new. Its index, or -ENOMEM. */
static long scope_of(struct mpi_scope_profile *p, enum mpi_scope_kind kind, const char *name)
{
	uint64_t h = hash_str(HASH_INIT ^ (uint64_t)kind, name);
	size_t old_cap = p->scopes_cap, i;
	struct mpi_scope_cell *cells;

	for (size_t at = hchain_first(&p->by_name, h); at; at = hchain_next(&p->by_name, at))
		if (p->scopes[at - 1].kind == kind && !strcmp(p->scopes[at - 1].name, name))
			return (long)(at - 1);
	if (array_reserve((void **)&p->scopes, &p->scopes_cap, p->nscopes + 1, sizeof(*p->scopes)))
		return -ENOMEM;
	if (p->scopes_cap != old_cap) {
		cells = realloc(p->cells, p->scopes_cap * (size_t)p->nranks * sizeof(*cells));
		if (!cells)
			return -ENOMEM;
		memset(cells + old_cap * (size_t)p->nranks, 0,
		       (p->scopes_cap - old_cap) * (size_t)p->nranks * sizeof(*cells));
		p->cells = cells;
	}
	i = p->nscopes;
	p->scopes[i].kind = kind;
	p->scopes[i].name = strdup(name);
	if (!p->scopes[i].name)
		return -ENOMEM;
	p->nscopes++;
	if (hchain_add(&p->by_name, h, i))
		return -ENOMEM;
	return (long)i;
}

static struct mpi_scope_cell *cell_of(struct mpi_scope_profile *p, uint32_t scope, int rank)
{
	return &p->cells[(size_t)scope * (size_t)p->nranks + (size_t)rank];
}

static uint64_t op_key(uint32_t scope, int rank, uint32_t routine)
{
	return (uint64_t)scope << 40 | (uint64_t)((uint32_t)rank & 0xffffffu) << 16 | routine;
}

/* Add CALLS calls of ROUTINE taking TIME and waiting WAIT to (SCOPE, RANK). 0 or -ENOMEM. */
static int op_add(struct mpi_scope_profile *p, uint32_t scope, int rank, uint32_t routine,
		  uint64_t calls, int64_t time, int64_t wait)
{
	uint64_t key = op_key(scope, rank, routine), v;
	struct mpi_scope_op *op;

	if (!u64map_get(&p->by_op, key, &v)) {
		if (array_reserve((void **)&p->ops, &p->ops_cap, p->nops + 1, sizeof(*p->ops)))
			return -ENOMEM;
		v = p->nops++;
		p->ops[v] = (struct mpi_scope_op){scope, rank, routine, 0, 0, 0};
		if (u64map_put(&p->by_op, key, v))
			return -ENOMEM;
	}
	op = &p->ops[v];
	op->calls += calls;
	op->time_ns += time;
	op->wait_ns += wait;
	return 0;
}

/* ---- one stream ------------------------------------------------------------------------------ */

/* The model's location of this thread: the first of its rank's with the thread's id that no
 * other stream took (mpi_model_load adds one per stream with MPI calls, in stream order). */
static void bind_loc(struct walk *x)
{
	const struct mpi_rank_info *ri = &x->m->ranks[x->rank];

	x->loc_bound = 1;
	for (uint32_t l = ri->first_loc; ri->nlocs && l < ri->first_loc + ri->nlocs; l++)
		if (x->m->locs[l].tid == x->tid && !x->loc_used[l]) {
			x->loc_used[l] = 1;
			x->loc = &x->m->locs[l];
			return;
		}
}

/* An MPI call from ENTER to LEAVE made in the frame at DEPTH (SERIAL) of ROUTINE. */
static int mpi_call(struct walk *x, uint32_t routine, int64_t enter, int64_t leave, size_t depth,
		    uint64_t serial)
{
	struct mpi_scope_profile *p = x->p;
	struct mpi_scope_cell *c;
	struct frame *f = NULL;
	int64_t dur = leave > enter ? leave - enter : 0, wait;
	uint32_t call;
	long scope;

	if (!x->loc_bound)
		bind_loc(x);
	if (!x->loc || x->next_call >= x->loc->ncalls) {
		p->unmatched_calls++;
		return 0;
	}
	call = x->loc->first_call + x->next_call++;
	if (x->m->calls[call].routine != routine)
		p->unmatched_calls++;
	wait = call < x->w->ncalls ? x->w->call_wait[call] : 0;
	wait = wait < 0 ? 0 : wait > dur ? dur : wait;
	if (depth && depth <= x->depth && x->st[depth - 1].serial == serial)
		f = &x->st[depth - 1];
	else if (depth && x->depth)
		f = &x->st[x->depth - 1];
	if (f) {
		scope = f->scope;
		f->mpi_ns += dur;
		f->wait_ns += wait;
	} else {
		scope = scope_of(p, MPI_SCOPE_OUTSIDE, "(outside scopes)");
		if (scope < 0)
			return (int)scope;
	}
	c = cell_of(p, (uint32_t)scope, x->rank);
	c->mpi_calls++;
	c->mpi_excl_ns += dur;
	c->wait_excl_ns += wait;
	if (!f) {
		c->calls++;
		c->incl_ns += dur;
		c->excl_ns += dur;
		c->mpi_incl_ns += dur;
		c->wait_incl_ns += wait;
	}
	return op_add(p, (uint32_t)scope, x->rank, x->m->calls[call].routine, 1, dur, wait);
}

/* An MPI call of ROUTINE entered at T, in the frame on top. */
static void mpi_enter(struct walk *x, uint32_t routine, int64_t t)
{
	if (x->nopen < OPEN_MAX)
		x->open[x->nopen++] = (struct open_mpi){routine, t, x->depth,
							x->depth ? x->st[x->depth - 1].serial : 0};
}

/* An MPI call of ROUTINE left at T: paired with its enter, as mpi-read.c pairs them (a leave
 * without one is a call of no duration). */
static int mpi_leave(struct walk *x, uint32_t routine, int64_t t)
{
	if (x->nopen && x->open[x->nopen - 1].routine == routine) {
		const struct open_mpi *o = &x->open[--x->nopen];

		return mpi_call(x, routine, o->enter_ns, t, o->depth, o->serial);
	}
	return mpi_call(x, routine, t, t, x->depth, x->depth ? x->st[x->depth - 1].serial : 0);
}

static int push(struct walk *x, uint32_t scope, int region, uint64_t key, int64_t ns)
{
	if (array_reserve((void **)&x->st, &x->cap, x->depth + 1, sizeof(*x->st)))
		return -ENOMEM;
	if (scope >= x->active_cap) {
		size_t old = x->active_cap;

		if (array_reserve((void **)&x->active, &x->active_cap, (size_t)scope + 1,
				  sizeof(*x->active)))
			return -ENOMEM;
		memset(x->active + old, 0, (x->active_cap - old) * sizeof(*x->active));
	}
	x->active[scope]++;
	x->st[x->depth++] = (struct frame){scope, region, key, ++x->serial, ns, 0, 0, 0};
	return 0;
}

/* Close the top frame at NS. */
static void pop(struct walk *x, int64_t ns)
{
	struct frame *f = &x->st[--x->depth];
	struct mpi_scope_cell *c = cell_of(x->p, f->scope, x->rank);
	int64_t incl = ns > f->start_ns ? ns - f->start_ns : 0;

	c->calls++;
	c->excl_ns += incl - f->child_ns;
	if (--x->active[f->scope] == 0) {
		c->incl_ns += incl;
		c->mpi_incl_ns += f->mpi_ns;
		c->wait_incl_ns += f->wait_ns;
	}
	if (x->depth) {
		struct frame *up = &x->st[x->depth - 1];

		up->child_ns += incl;
		up->mpi_ns += f->mpi_ns;
		up->wait_ns += f->wait_ns;
	}
}

static uint64_t frame_key(int region, uint64_t key)
{
	return region ? key | 1ull << 63 : key & ~(1ull << 63);
}

/* The end of the scope (REGION, KEY) at NS: its frame closes, with any left open above it. */
static int scope_end(struct walk *x, int region, uint64_t key, int64_t ns)
{
	uint64_t fk = frame_key(region, key), v;
	size_t i;

	if (u64map_get(&x->closed_early, fk, &v) && v > 0)
		return u64map_put(&x->closed_early, fk, v - 1);
	for (i = x->depth; i-- > 0;)
		if (x->st[i].region == region && x->st[i].key == key)
			break;
	if (i == (size_t)-1)
		return 0; /* its begin was not recorded: the walker counts those */
	while (x->depth > i + 1) {
		const struct frame *f = &x->st[x->depth - 1];
		uint64_t k = frame_key(f->region, f->key);

		if (!u64map_get(&x->closed_early, k, &v))
			v = 0;
		if (u64map_put(&x->closed_early, k, v + 1))
			return -ENOMEM;
		x->p->misnested++;
		pop(x, ns);
	}
	pop(x, ns);
	return 0;
}

/* A function entered at NS: its scope pushed. */
static int function_enter(struct walk *x, uint64_t addr, int64_t ns)
{
	const struct ev_location *loc = x->loc_at;
	uint64_t v, place = symtab_place(x->syms, loc->pid, loc->image, addr, ns);
	struct sym_info si;
	long scope;

	if (!u64map_get(&x->fn_scope, place, &v)) {
		memset(&si, 0, sizeof(si));
		if (symtab_lookup(x->syms, loc->pid, loc->image, place, &si))
			return -ENOMEM;
		scope = scope_of(x->p, MPI_SCOPE_FUNCTION, si.name ? si.name : "?");
		if (scope < 0 || u64map_put(&x->fn_scope, place, (uint64_t)scope))
			return -ENOMEM;
		v = (uint64_t)scope;
	}
	return push(x, (uint32_t)v, 0, addr, ns);
}

/* Region ID (NAME, NULL undefined) entered at NS: its scope pushed. */
static int region_enter(struct walk *x, uint32_t id, const char *name, int64_t ns)
{
	char buf[32];
	uint64_t v;
	long scope;

	if (!u64map_get(&x->reg_scope, id, &v)) {
		snprintf(buf, sizeof(buf), "region#%u", id);
		scope = scope_of(x->p, MPI_SCOPE_REGION, name ? name : buf);
		if (scope < 0 || u64map_put(&x->reg_scope, id, (uint64_t)scope))
			return -ENOMEM;
		v = (uint64_t)scope;
	}
	return push(x, (uint32_t)v, 1, id, ns);
}

/* The MPI calls still open where the stream ends: closed at its last record, as mpi-read.c
 * closes them, in the frames they were made in. */
static int close_open_mpi(struct walk *x, int64_t last_ns)
{
	int ret = 0;

	for (size_t k = 0; k < x->nopen && ret == 0; k++)
		ret = mpi_call(x, x->open[k].routine, x->open[k].enter_ns, last_ns,
			       x->open[k].depth, x->open[k].serial);
	x->nopen = 0;
	return ret;
}

/* Ready for the thread TID of RANK. */
static void walk_reset(struct walk *x, int rank, pid_t tid)
{
	x->rank = rank;
	x->tid = tid;
	x->loc = NULL;
	x->loc_bound = 0;
	x->next_call = 0;
	x->depth = 0;
	x->nopen = 0;
	u64map_clear(&x->fn_scope);
	u64map_clear(&x->reg_scope);
	u64map_clear(&x->closed_early);
	if (x->active)
		memset(x->active, 0, x->active_cap * sizeof(*x->active));
}

/* ---- the whole experiment -------------------------------------------------------------------- */

static int64_t scope_incl(const struct mpi_scope_profile *p, size_t s)
{
	int64_t t = 0;

	for (int r = 0; r < p->nranks; r++)
		t += mpi_scope_cell(p, s, r)->incl_ns;
	return t;
}

struct order {
	int64_t incl;
	size_t scope;
	const struct mpi_scope_profile *p;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	int c;

	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	c = strcmp(x->p->scopes[x->scope].name, y->p->scopes[y->scope].name);
	return c ? c : (int)x->p->scopes[x->scope].kind - (int)y->p->scopes[y->scope].kind;
}

static int cmp_op(const void *a, const void *b)
{
	const struct mpi_scope_op *x = a, *y = b;

	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->routine > y->routine) - (x->routine < y->routine);
}

static void walk_release(struct walk *x)
{
	free(x->st);
	free(x->active);
	u64map_release(&x->fn_scope);
	u64map_release(&x->reg_scope);
	u64map_release(&x->closed_early);
}

/* Scopes by inclusive time, the ops summed over the ranks and sorted. 0 or -ENOMEM. */
static int finish(struct mpi_scope_profile *p)
{
	size_t n = p->nscopes, nr = (size_t)p->nranks, nops = p->nops;
	struct order *o = malloc((n + 1) * sizeof(*o));
	struct mpi_scope *scopes = malloc((n + 1) * sizeof(*scopes));
	struct mpi_scope_cell *cells = malloc((n * nr + 1) * sizeof(*cells));
	size_t *where = malloc((n + 1) * sizeof(*where));
	int ret = -ENOMEM;

	if (!o || !scopes || !cells || !where)
		goto out;
	for (size_t s = 0; s < n; s++)
		o[s] = (struct order){scope_incl(p, s), s, p};
	qsort(o, n, sizeof(*o), cmp_order);
	for (size_t i = 0; i < n; i++) {
		scopes[i] = p->scopes[o[i].scope];
		memcpy(cells + i * nr, p->cells + o[i].scope * nr, nr * sizeof(*cells));
		where[o[i].scope] = i;
	}
	free(p->scopes);
	free(p->cells);
	p->scopes = scopes;
	p->cells = cells;
	p->scopes_cap = n;
	scopes = NULL;
	cells = NULL;
	for (size_t i = 0; i < nops; i++)
		p->ops[i].scope = (uint32_t)where[p->ops[i].scope];
	u64map_clear(&p->by_op); /* keys of the old scope numbers */
	for (size_t i = 0; i < nops; i++) {
		const struct mpi_scope_op op = p->ops[i];

		if (op_add(p, op.scope, MPI_SCOPE_ALL, op.routine, op.calls, op.time_ns,
			   op.wait_ns))
			goto out;
	}
	qsort(p->ops, p->nops, sizeof(*p->ops), cmp_op);
	ret = 0;
out:
	free(o);
	free(scopes);
	free(cells);
	free(where);
	return ret;
}

/* P emptied for the ranks of M; the model's locations taken by threads (all 0), or NULL when
 * out of memory (P released). */
static uint8_t *profile_begin(struct mpi_scope_profile *p, const struct mpi_model *m)
{
	uint8_t *loc_used;

	memset(p, 0, sizeof(*p));
	p->nranks = m->world_size;
	p->present_buf = calloc((size_t)m->world_size + 1, 1);
	loc_used = calloc(m->nlocs + 1, 1);
	if (!p->present_buf || !loc_used) {
		free(loc_used);
		mpi_scope_release(p);
		return NULL;
	}
	p->present = p->present_buf;
	for (int r = 0; r < m->world_size; r++)
		p->present_buf[r] = (uint8_t)(m->ranks[r].present != 0);
	return loc_used;
}

/* ---- the consumer of the pass --------------------------------------------------------------- */

struct scope_consumer {
	struct walk x;
	struct u64map rank_of; /* pid -> rank of the model */
	int flushed;	       /* the stream's open MPI calls were closed at its end */
};

/* A stream of a rank is walked; the others' are not read. */
static int sc_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct scope_consumer *sc = ctx;
	uint64_t rank;

	(void)err, (void)errlen;
	if (!u64map_get(&sc->rank_of, (uint64_t)loc->pid, &rank)) {
		sc->x.p->skipped_streams++;
		return 1;
	}
	sc->x.loc_at = loc;
	sc->flushed = 0;
	walk_reset(&sc->x, (int)rank, loc->tid);
	return 0;
}

/* The MPI calls still open where the stream ends (LAST_NS) close first, in the frames they
 * were made in; then its calls still open, which the source closes there too. */
static int sc_flush(struct scope_consumer *sc, int64_t last_ns)
{
	if (sc->flushed)
		return 0;
	sc->flushed = 1;
	return close_open_mpi(&sc->x, last_ns);
}

static int sc_event_one(struct scope_consumer *sc, const struct event *ev)
{
	struct walk *x = &sc->x;
	int ret;

	switch (ev->kind) {
	case EV_CALL_ENTER:
		return function_enter(x, ev->call.addr, ev->ns);
	case EV_CALL_EXIT:
		/* an exit made up with no record behind it: the stream's end */
		if (ev->call.synthetic && !ev->offset && (ret = sc_flush(sc, ev->ns)) < 0)
			return ret;
		return scope_end(x, 0, ev->call.addr, ev->ns);
	case EV_REGION_ENTER:
		return region_enter(x, ev->region.id, ev->region.name, ev->ns);
	case EV_REGION_EXIT:
		return scope_end(x, 1, ev->region.id, ev->ns);
	case EV_MPI_ENTER:
		mpi_enter(x, (uint32_t)ev->mpi.routine, ev->ns);
		return 0;
	case EV_MPI_LEAVE:
		return mpi_leave(x, (uint32_t)ev->mpi.routine, ev->ns);
	default:
		return 0;
	}
}

static int sc_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct scope_consumer *sc = ctx;

	for (size_t i = 0; i < n; i++) {
		int ret = sc_event_one(sc, &ev[i]);

		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", sc->x.loc_at->name);
			return ret;
		}
	}
	return 0;
}

static int sc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	return sc_events(ctx, ev, 1, err, errlen);
}

/* A stream whose reading failed fails the profile (the pass goes on past it only for the
 * streams this consumer does not read); else its open MPI calls and scopes close at its
 * last record. */
static int sc_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct scope_consumer *sc = ctx;
	struct walk *x = &sc->x;
	int ret;

	if (f->error) {
		snprintf(err, errlen, "%s", f->errmsg);
		return f->error;
	}
	ret = sc_flush(sc, f->last_ns);
	/* regions still open end at the stream's last record, as in the region profile */
	while (ret == 0 && x->depth)
		pop(x, f->last_ns);
	if (ret < 0) {
		snprintf(err, errlen, "%s: out of memory", loc->name);
		return ret;
	}
	if (x->loc)
		x->p->unmatched_calls += x->loc->ncalls - x->next_call;
	return 0;
}

static int sc_finish(void *ctx, char *err, size_t errlen)
{
	struct scope_consumer *sc = ctx;
	int ret = finish(sc->x.p);

	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static void sc_release(void *ctx)
{
	struct scope_consumer *sc = ctx;

	walk_release(&sc->x);
	u64map_release(&sc->rank_of);
	free(sc->x.loc_used);
	free(sc);
}

int mpi_scope_consumer(struct ev_consumer *c, struct mpi_scope_profile *p, struct symtab *syms,
		       const struct mpi_model *m, const struct mpi_waits *w)
{
	struct scope_consumer *sc = calloc(1, sizeof(*sc));
	uint8_t *loc_used;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	loc_used = sc ? profile_begin(p, m) : NULL;

	*c = (struct ev_consumer){.name = "scopes",
				  .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT) |
					   EV_BIT(EV_REGION_ENTER) | EV_BIT(EV_REGION_EXIT) |
					   EV_BIT(EV_MPI_ENTER) | EV_BIT(EV_MPI_LEAVE),
				  .locations = EV_LOC_STREAMS,
				  .ctx = sc,
				  .location_begin = sc_begin,
				  .event = sc_event,
				  .events = sc_events,
				  .location_end = sc_end,
				  .finish = sc_finish,
				  .release = sc_release};
	if (!loc_used) {
		free(sc);
		c->ctx = NULL;
		return -ENOMEM;
	}
	sc->x = (struct walk){.p = p, .m = m, .w = w, .syms = syms, .loc_used = loc_used};
	for (int r = 0; r < m->world_size && ret == 0; r++)
		if (m->ranks[r].present && m->ranks[r].pid)
			ret = u64map_put(&sc->rank_of, (uint64_t)m->ranks[r].pid, (uint64_t)r);
	if (ret) {
		ev_consumer_release(c);
		mpi_scope_release(p);
		return -ENOMEM;
	}
	return 0;
}

int mpi_scope_build(struct mpi_scope_profile *p, const struct experiment *e, struct symtab *syms,
		    const struct mpi_model *m, const struct mpi_waits *w, char *err, size_t errlen)
{
	struct ev_consumer c, *list[] = {&c};
	int ret = mpi_scope_consumer(&c, p, syms, m, w);

	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = ev_pass_experiment(e, list, 1, EV_PASS_KEEP_GOING, err, errlen);
	ev_consumer_release(&c);
	if (ret)
		mpi_scope_release(p);
	return ret;
}

void mpi_scope_release(struct mpi_scope_profile *p)
{
	for (size_t i = 0; i < p->nscopes; i++)
		free(p->scopes[i].name);
	free(p->scopes);
	free(p->cells);
	free(p->ops);
	free(p->present_buf);
	hchain_release(&p->by_name);
	u64map_release(&p->by_op);
	memset(p, 0, sizeof(*p));
}

static void spread_add(struct mpi_scope_spread *s, int64_t v, int first)
{
	if (first || v < s->min)
		s->min = v;
	if (first || v > s->max)
		s->max = v;
	s->mean += (double)v;
}

void mpi_scope_total(const struct mpi_scope_profile *p, size_t scope, struct mpi_scope_total *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < p->nranks; r++) {
		const struct mpi_scope_cell *c = mpi_scope_cell(p, scope, r);
		int first = out->nranks == 0;

		if (!p->present[r])
			continue;
		out->sum.calls += c->calls;
		out->sum.incl_ns += c->incl_ns;
		out->sum.excl_ns += c->excl_ns;
		out->sum.mpi_calls += c->mpi_calls;
		out->sum.mpi_excl_ns += c->mpi_excl_ns;
		out->sum.wait_excl_ns += c->wait_excl_ns;
		out->sum.mpi_incl_ns += c->mpi_incl_ns;
		out->sum.wait_incl_ns += c->wait_incl_ns;
		spread_add(&out->comp, mpi_scope_comp(c), first);
		spread_add(&out->mpi, mpi_scope_mpi(c), first);
		spread_add(&out->wait, c->wait_excl_ns, first);
		out->nranks++;
	}
	if (out->nranks) {
		out->comp.mean /= out->nranks;
		out->mpi.mean /= out->nranks;
		out->wait.mean /= out->nranks;
	}
}

/* ---- fed from elsewhere (an OTF2 archive) ------------------------------------------------------
 */

struct mpi_scope_feed {
	struct walk x;
	int thread_open;
};

int mpi_scope_feed_open(struct mpi_scope_feed **out, struct mpi_scope_profile *p,
			const struct mpi_model *m, const struct mpi_waits *w)
{
	struct mpi_scope_feed *f = calloc(1, sizeof(*f));
	uint8_t *loc_used = f ? profile_begin(p, m) : NULL;

	*out = NULL;
	if (!loc_used) {
		free(f);
		return -ENOMEM;
	}
	f->x = (struct walk){.p = p, .m = m, .w = w, .loc_used = loc_used};
	*out = f;
	return 0;
}

int mpi_scope_feed_thread(struct mpi_scope_feed *f, int rank, pid_t tid)
{
	if (rank < 0 || rank >= f->x.p->nranks)
		return -EINVAL;
	walk_reset(&f->x, rank, tid);
	f->thread_open = 1;
	return 0;
}

int mpi_scope_feed_enter(struct mpi_scope_feed *f, enum mpi_scope_kind kind, const char *name,
			 uint64_t key, int64_t ns)
{
	struct walk *x = &f->x;
	uint64_t v;
	long scope;

	if (!u64map_get(&x->fn_scope, key, &v)) {
		scope = scope_of(x->p, kind, name);
		if (scope < 0 || u64map_put(&x->fn_scope, key, (uint64_t)scope))
			return -ENOMEM;
		v = (uint64_t)scope;
	}
	return push(x, (uint32_t)v, 0, key, ns);
}

int mpi_scope_feed_leave(struct mpi_scope_feed *f, uint64_t key, int64_t ns)
{
	return scope_end(&f->x, 0, key, ns);
}

void mpi_scope_feed_mpi_enter(struct mpi_scope_feed *f, uint32_t routine, int64_t ns)
{
	mpi_enter(&f->x, routine, ns);
}

int mpi_scope_feed_mpi_leave(struct mpi_scope_feed *f, uint32_t routine, int64_t ns)
{
	return mpi_leave(&f->x, routine, ns);
}

int mpi_scope_feed_thread_end(struct mpi_scope_feed *f, int64_t last_ns)
{
	struct walk *x = &f->x;
	int ret = close_open_mpi(x, last_ns);

	while (ret == 0 && x->depth)
		pop(x, last_ns);
	if (ret == 0 && x->loc)
		x->p->unmatched_calls += x->loc->ncalls - x->next_call;
	f->thread_open = 0;
	return ret;
}

int mpi_scope_feed_close(struct mpi_scope_feed *f, int ok)
{
	int ret = 0;

	if (!f)
		return 0;
	if (ok)
		ret = finish(f->x.p);
	if (!ok || ret)
		mpi_scope_release(f->x.p);
	walk_release(&f->x);
	free(f->x.loc_used);
	free(f);
	return ret;
}
