/*
 * func-profile-omp.c - OpenMP constructs as frames of the function profile (func-profile.h),
 * from the EV_OMP_* events of the same pass as the calls:
 *  - a parallel region on the thread that encountered it, from PARALLEL_BEGIN to PARALLEL_END,
 *    "[omp parallel SITE]" inside the function that opened it; that thread's implicit task is
 *    this frame (its calls are inside it);
 *  - another thread's implicit task (ITASK_BEGIN..ITASK_END), named as its region: the root of
 *    the calls it runs;
 *  - a wait (SYNC_ENTER..SYNC_LEAVE), "[omp barrier]", "[omp lock]", ...; with libgomp, which
 *    has no records of the closing barrier, the encountering thread's time between its
 *    ITASK_END and PARALLEL_END is that barrier's wait, "[omp barrier]" too.
 * A frame is a node of the stack as a call is, and its time leaves the exclusive time of the
 * call it ran in. A frame ends only when it is on top of the stack; a call's exit ends the
 * frames still open above it.
 */
#include "analysis/profile/func-profile-int.h"

#include "analysis/openmp/omp-profile.h"
#include "format/format.h"
#include "lib/array.h"
#include "lib/compiler.h"
#include "lib/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What a frame is (struct func_omp_frame). */
enum frame_kind {
	FRAME_PARALLEL, /* a region by its call site */
	FRAME_REGION,	/* a region by its id, whose call site this stream's pass did not know */
	FRAME_WAIT,	/* a wait, by enum psc_omp_sync (barriers as one) */
};

/* How an open frame ends (struct func_omp_open.kind). */
enum open_kind {
	OPEN_PARALLEL, /* PARALLEL_END */
	OPEN_TASK,     /* ITASK_END */
	OPEN_SYNC,     /* SYNC_LEAVE */
	OPEN_CLOSING,  /* libgomp's closing barrier: PARALLEL_END */
};

/* A frame of the profile: its rows in every thread have its name. */
struct func_omp_frame {
	pid_t pid;
	unsigned image;
	unsigned kind;	   /* enum frame_kind */
	unsigned wait;	   /* FRAME_WAIT: enum psc_omp_sync */
	uint64_t site, id; /* FRAME_PARALLEL: the site; FRAME_REGION: the id */
	const char *name;  /* set at the finish */
};

/* A parallel region instance seen: its call site. */
struct omp_instance {
	pid_t pid;
	unsigned image;
	uint64_t id, site;
};

struct func_omp {
	struct func_omp_frame *frames;
	size_t nframes, frames_cap;
	struct hchain by_key;
	struct omp_instance *inst;
	size_t ninst, inst_cap;
	struct hchain by_id;
};

struct func_omp *func_omp_new(void)
{
	return calloc(1, sizeof(struct func_omp));
}

void func_omp_free(struct func_omp *o)
{
	if (!o)
		return;
	free(o->frames);
	hchain_release(&o->by_key);
	free(o->inst);
	hchain_release(&o->by_id);
	free(o);
}

static uint64_t key_hash(pid_t pid, unsigned image, unsigned kind, uint64_t k)
{
	uint64_t h = hash_bytes(HASH_INIT, &pid, sizeof(pid));

	h = hash_bytes(h, &image, sizeof(image));
	h = hash_bytes(h, &kind, sizeof(kind));
	return hash_bytes(h, &k, sizeof(k));
}

/* The call site of instance ID of L's process, 0 when its PARALLEL_BEGIN was not seen. */
static uint64_t instance_site(const struct func_omp *o, const struct ev_location *l, uint64_t id)
{
	uint64_t h = key_hash(l->pid, l->image, 0, id);

	for (size_t at = hchain_first(&o->by_id, h); at; at = hchain_next(&o->by_id, at)) {
		const struct omp_instance *x = &o->inst[at - 1];

		if (x->pid == l->pid && x->image == l->image && x->id == id)
			return x->site;
	}
	return 0;
}

static int instance_add(struct func_omp *o, const struct ev_location *l, uint64_t id, uint64_t site)
{
	if (instance_site(o, l, id))
		return 0;
	if (ARRAY_GROW(o->inst, o->ninst + 1, o->inst_cap) ||
	    hchain_add(&o->by_id, key_hash(l->pid, l->image, 0, id), o->ninst))
		return -ENOMEM;
	o->inst[o->ninst++] = (struct omp_instance){l->pid, l->image, id, site};
	return 0;
}

/* The index of frame F (found or added) in *IDX. 0 or -ENOMEM. */
static int frame_index(struct func_omp *o, const struct func_omp_frame *f, size_t *idx)
{
	uint64_t k = f->kind == FRAME_WAIT ? f->wait : f->kind == FRAME_PARALLEL ? f->site : f->id;
	uint64_t h = key_hash(f->pid, f->image, f->kind, k);

	for (size_t at = hchain_first(&o->by_key, h); at; at = hchain_next(&o->by_key, at)) {
		const struct func_omp_frame *x = &o->frames[at - 1];

		if (x->pid == f->pid && x->image == f->image && x->kind == f->kind &&
		    x->wait == f->wait && x->site == f->site && x->id == f->id) {
			*idx = at - 1;
			return 0;
		}
	}
	if (ARRAY_GROW(o->frames, o->nframes + 1, o->frames_cap) ||
	    hchain_add(&o->by_key, h, o->nframes))
		return -ENOMEM;
	o->frames[o->nframes] = *f;
	*idx = o->nframes++;
	return 0;
}

/* Open frame F on L's stack (thread TH of P), ending as KIND, at event EV. 0 or -ENOMEM. */
static int frame_open(struct func_profile *p, struct pass *ps, const struct ev_location *l,
		      size_t th, const struct func_omp_frame *f, unsigned kind,
		      const struct event *ev)
{
	size_t idx, row;
	uint64_t v;

	if (frame_index(ps->omp, f, &idx) < 0)
		return -ENOMEM;
	if (u64map_get(&ps->omp_rows, idx, &v)) {
		row = (size_t)v;
	} else {
		struct func_row *r = func_row_add(p, &row);

		if (!r || u64map_put(&ps->omp_rows, idx, row))
			return -ENOMEM;
		r->pid = l->pid;
		r->tid = l->tid;
		r->image = l->image;
		r->omp_frame = idx + 1;
	}
	if (ARRAY_GROW(ps->open, ps->nopen + 1, ps->opencap) ||
	    (ps->en && func_pass_energy(p, ps, ev->ns, 1, 0) < 0) ||
	    func_pass_push(p, ps, th, row) < 0)
		return -ENOMEM;
	ps->open[ps->nopen++] = (struct func_omp_open){
	    .depth = ps->depth - 1, .kind = kind, .id = ev->omp.parallel, .begin_ns = ev->ns};
	return 0;
}

/* Frame O, of DUR, ended at stack level D + 1: its time charged to level D, to the frame
 * there, or (later, at its exit) out of the call's exclusive time, less the calls in it that
 * the source already took from it. */
static void charge_parent(struct pass *ps, size_t d, const struct func_omp_open *o, int64_t dur)
{
	int64_t own = dur - o->call_ns;

	if (ps->nopen && ps->open[ps->nopen - 1].depth == d) {
		struct func_omp_open *up = &ps->open[ps->nopen - 1];

		up->child_ns = func_sat_add(up->child_ns, dur);
		up->call_ns = func_sat_add(up->call_ns, o->call_ns);
		return;
	}
	if (d >= ps->adjcap) {
		size_t old = ps->adjcap;

		/* out of memory: the call keeps the frame's time as its own */
		if (array_reserve((void **)&ps->adj, &ps->adjcap, d + 1, sizeof(*ps->adj)))
			return;
		memset(ps->adj + old, 0, (ps->adjcap - old) * sizeof(*ps->adj));
	}
	if (!ps->adj[d] && own)
		ps->nadj++;
	ps->adj[d] = func_sat_add(ps->adj[d], own);
	if (!ps->adj[d])
		ps->nadj--;
}

/* Close the open frame on top of the stack at NS (SYNTHETIC: cut short). 0 or -ENOMEM (with
 * energy). */
static int frame_close(struct func_profile *p, struct pass *ps, int64_t ns, int synthetic)
{
	struct func_omp_open o = ps->open[ps->nopen - 1];
	int64_t dur = ns > o.begin_ns ? ns - o.begin_ns : 0;
	struct ev_call c = {.synthetic = synthetic, .incl_ns = dur, .excl_ns = dur - o.child_ns};
	struct func_node *n;

	if (ps->en && func_pass_energy(p, ps, ns, 0, dur) < 0)
		return -ENOMEM;
	ps->nopen--;
	n = &p->nodes[ps->stack[--ps->depth]];

	func_row_exit(&p->rows[n->row], n, &c);
	if (ps->depth)
		charge_parent(ps, ps->depth - 1, &o, dur);
	return 0;
}

/* Is the top of the stack an open frame ending as KIND for instance ID? */
static int top_is(const struct pass *ps, unsigned kind, uint64_t id)
{
	const struct func_omp_open *o = ps->nopen ? &ps->open[ps->nopen - 1] : NULL;

	return o && o->depth + 1 == ps->depth && o->kind == kind &&
	       (kind == OPEN_SYNC || o->id == id);
}

static int on_parallel_begin(struct func_profile *p, struct pass *ps, const struct ev_location *l,
			     size_t th, const struct event *ev)
{
	struct func_omp_frame f = {.pid = l->pid, .image = l->image, .site = ev->omp.site};

	f.kind = FRAME_PARALLEL;
	if (instance_add(ps->omp, l, ev->omp.parallel, ev->omp.site) < 0)
		return -ENOMEM;
	return frame_open(p, ps, l, th, &f, OPEN_PARALLEL, ev);
}

static int on_itask_begin(struct func_profile *p, struct pass *ps, const struct ev_location *l,
			  size_t th, const struct event *ev)
{
	struct func_omp_frame f = {.pid = l->pid, .image = l->image};

	if (top_is(ps, OPEN_PARALLEL, ev->omp.parallel))
		return 0; /* the encountering thread's: the region's frame is its task's */
	f.site = instance_site(ps->omp, l, ev->omp.parallel);
	f.kind = f.site ? FRAME_PARALLEL : FRAME_REGION;
	f.id = f.site ? 0 : ev->omp.parallel;
	return frame_open(p, ps, l, th, &f, OPEN_TASK, ev);
}

/* A wait of KIND from EV on. */
static int on_wait(struct func_profile *p, struct pass *ps, const struct ev_location *l, size_t th,
		   const struct event *ev, unsigned kind, unsigned open)
{
	struct func_omp_frame f = {.pid = l->pid, .image = l->image, .kind = FRAME_WAIT};

	f.wait = kind <= PSC_OMP_SYNC_BARRIER_WORK ? PSC_OMP_SYNC_BARRIER_IMPLICIT : kind;
	return frame_open(p, ps, l, th, &f, open, ev);
}

int func_omp_event(struct func_profile *p, struct pass *ps, const struct ev_location *l, size_t th,
		   const struct event *ev)
{
	uint64_t id = ev->omp.parallel;

	switch (ev->kind) {
	case EV_OMP_PARALLEL_BEGIN:
		return on_parallel_begin(p, ps, l, th, ev);
	case EV_OMP_ITASK_BEGIN:
		return on_itask_begin(p, ps, l, th, ev);
	case EV_OMP_SYNC_ENTER:
		if (ev->omp.kind == PSC_OMP_SYNC_BARRIER_IMPLICIT &&
		    top_is(ps, OPEN_PARALLEL, ps->nopen ? ps->open[ps->nopen - 1].id : 0))
			ps->open[ps->nopen - 1].barrier = 1;
		return on_wait(p, ps, l, th, ev, ev->omp.kind, OPEN_SYNC);
	case EV_OMP_SYNC_LEAVE:
		return top_is(ps, OPEN_SYNC, 0) ? frame_close(p, ps, ev->ns, 0) : 0;
	case EV_OMP_ITASK_END:
		if (top_is(ps, OPEN_TASK, id))
			return frame_close(p, ps, ev->ns, 0);
		if (top_is(ps, OPEN_PARALLEL, id) && !ps->open[ps->nopen - 1].barrier)
			return on_wait(p, ps, l, th, ev, PSC_OMP_SYNC_BARRIER_IMPLICIT,
				       OPEN_CLOSING);
		return 0;
	case EV_OMP_PARALLEL_END:
		if (top_is(ps, OPEN_CLOSING, id) && frame_close(p, ps, ev->ns, 0) < 0)
			return -ENOMEM;
		return top_is(ps, OPEN_PARALLEL, id) ? frame_close(p, ps, ev->ns, 0) : 0;
	default:
		return 0;
	}
}

int func_omp_exit(struct func_profile *p, struct pass *ps, const struct ev_call *ev, int64_t ns)
{
	struct ev_call c = *ev;
	struct func_node *n;
	size_t d;

	while (ps->nopen && ps->open[ps->nopen - 1].depth + 1 == ps->depth)
		if (frame_close(p, ps, ns, 1) < 0)
			return -ENOMEM;
	if (!ps->depth)
		return 0;
	d = --ps->depth;
	n = &p->nodes[ps->stack[d]];
	if (d < ps->adjcap && ps->adj[d]) {
		c.excl_ns -= ps->adj[d];
		ps->adj[d] = 0;
		ps->nadj--;
	}
	func_row_exit(&p->rows[n->row], n, &c);
	if (d && ps->nopen && ps->open[ps->nopen - 1].depth == d - 1) {
		struct func_omp_open *up = &ps->open[ps->nopen - 1];

		up->child_ns = func_sat_add(up->child_ns, c.incl_ns);
		up->call_ns = func_sat_add(up->call_ns, c.incl_ns);
	}
	return 0;
}

int func_omp_end(struct func_profile *p, struct pass *ps, int64_t ns)
{
	while (ps->nopen && ps->open[ps->nopen - 1].depth + 1 == ps->depth)
		if (frame_close(p, ps, ns, 1) < 0)
			return -ENOMEM;
	return 0;
}

/* The name of frame F, in P's arena; NULL when out of memory. */
static const char *frame_name(struct func_profile *p, const struct func_omp *o,
			      const struct func_omp_frame *f, struct symtab *syms)
{
	static const char *const waits[] = {
	    [PSC_OMP_SYNC_BARRIER_IMPLICIT] = "barrier",
	    [PSC_OMP_SYNC_CRITICAL] = "critical",
	    [PSC_OMP_SYNC_LOCK] = "lock",
	    [PSC_OMP_SYNC_ORDERED] = "ordered",
	    [PSC_OMP_SYNC_ATOMIC] = "atomic",
	    [PSC_OMP_SYNC_TASKWAIT] = "taskwait",
	    [PSC_OMP_SYNC_TASKGROUP] = "taskgroup",
	    [PSC_OMP_SYNC_REDUCTION] = "reduction",
	};
	struct ev_location l = {.pid = f->pid, .image = f->image};
	uint64_t site = f->kind == FRAME_PARALLEL ? f->site : 0;
	const char *name;
	char *s;

	if (f->kind == FRAME_WAIT)
		return arena_printf(&p->omp_names, "[omp %s]",
				    f->wait < ARRAY_SIZE(waits) && waits[f->wait] ? waits[f->wait]
										  : "wait");
	if (f->kind == FRAME_REGION)
		site = instance_site(o, &l, f->id);
	if (!site)
		return arena_printf(&p->omp_names, "[omp parallel]");
	if (!(s = omp_site_name(syms, f->pid, f->image, site)))
		return NULL;
	name = arena_printf(&p->omp_names, "[omp parallel %s]", s);
	free(s);
	return name;
}

int func_omp_name(struct func_profile *p, struct func_omp *o, struct symtab *syms)
{
	for (size_t i = 0; i < o->nframes; i++)
		if (!(o->frames[i].name = frame_name(p, o, &o->frames[i], syms)))
			return -ENOMEM;
	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *r = &p->rows[i];

		if (!r->omp_frame)
			continue;
		r->sym = (struct sym_info){.name = o->frames[r->omp_frame - 1].name,
					   .module = "",
					   .file = "",
					   .func_file = "",
					   .known = 1};
	}
	return 0;
}
