/* otf2-export.c - an experiment as an OTF2 archive, streamed by a consumer of the pass, with the
 * MPI model as a second input (otf2-export.h); the definitions are otf2-defs.c's. */
#include "export/otf2-int.h"
#include "export/otf2-omp.h"

#include "model/pass.h"
#include "model/thread-label.h"
#include "format/format.h"
#include "format/mpi-routines.h"
#include "lib/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The region of the function at ADDR in stream S's process. */
static uint32_t function_region(struct xp *x, const struct exp_stream *s, uint64_t addr)
{
	struct sym_info info;
	uint64_t v;
	uint32_t id;

	if (x->names_proc != s->proc) {
		u64map_clear(&x->addr_ix);
		x->names_proc = s->proc;
	}
	if (u64map_get(&x->addr_ix, addr, &v))
		return (uint32_t)v;
	symtab_lookup(x->st, s->pid, s->image, addr, &info); /* -ENOMEM: "[unknown]" form */
	id = ox_region_id(x, info.name, RK_FUNCTION, 0);
	if (id == UINT32_MAX || u64map_put(&x->addr_ix, addr, id))
		return UINT32_MAX;
	return id;
}

static int loc_open(struct xp *x, struct track *t, uint32_t group, const char *name)
{
	struct xloc *l;

	if (ARRAY_GROW(x->locs, x->nlocs + 1, x->locs_cap))
		return ox_fail(x, -ENOMEM, "out of memory");
	l = &x->locs[x->nlocs];
	l->name = ox_string_id(x, name);
	l->group = group;
	l->nevents = 0;
	if (l->name == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	t->loc = x->nlocs++;
	t->last = 0;
	t->w = OTF2_Archive_GetEvtWriter(x->ar, t->loc);
	if (!t->w)
		return ox_check(x, OTF2_ERROR_MEM_ALLOC_FAILED, "opening an event writer");
	x->stats->locations++;
	/* a process's rank (proc.json) has a world only when the run has MPI records (x->m) */
	if (x->m && x->groups[group].rank >= 0 && x->groups[group].rank < x->m->world_size &&
	    x->rank_loc[x->groups[group].rank] < 0)
		x->rank_loc[x->groups[group].rank] = (int32_t)t->loc;
	return 0;
}

static int loc_close(struct xp *x, struct track *t)
{
	uint64_t n = 0;

	if (!t->w)
		return 0;
	OTF2_EvtWriter_GetNumberOfEvents(t->w, &n);
	x->locs[t->loc].nevents = n;
	x->stats->events += n;
	ox_check(x, OTF2_Archive_CloseEvtWriter(x->ar, t->w), "closing an event writer");
	t->w = NULL;
	return x->failed ? -EIO : 0;
}

uint64_t ox_stamp(struct xp *x, struct track *t, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;

	if (v < t->last) {
		if (t->last - v > x->stats->moved_max_ns)
			x->stats->moved_max_ns = t->last - v;
		v = t->last;
		x->stats->moved_events++;
	}
	t->last = v;
	if (v < x->tmin)
		x->tmin = v;
	if (v > x->tmax)
		x->tmax = v;
	return v;
}

/* The MPI calls of one model location, in order, with the times that order them: the
 * recorded ones where the causality correction moved calls (mpi_model.uncorrected). */
struct mpi_cursor {
	const struct mpi_model *m;
	uint32_t i, end;
	int leave; /* the next event is call i's leave */
};

static int cursor_more(const struct mpi_cursor *c)
{
	return c->m && c->i < c->end;
}

static int64_t cursor_key(const struct mpi_cursor *c)
{
	const struct mpi_call *call = &c->m->calls[c->i];
	const struct mpi_call_times *t = c->m->uncorrected ? &c->m->uncorrected[c->i] : NULL;

	if (t)
		return c->leave ? t->leave_ns : t->enter_ns;
	return c->leave ? call->leave_ns : call->enter_ns;
}

static int cursor_emit(struct xp *x, struct track *t, struct mpi_cursor *c)
{
	int ret = ox_mpi_events(x, t, &c->m->calls[c->i], c->leave);

	if (c->leave)
		c->i++;
	c->leave = !c->leave;
	return ret;
}

/* ---- function and region events ---- */

/* Rank 0's time of a rank's local time T, as the model aligns MPI calls. */
static int64_t align(const struct xp *x, int rank, int64_t t)
{
	const struct mpi_rank_info *r;
	const struct mpi_clock_point *a, *b;
	__int128 num;

	if (!x->m || rank < 0 || rank >= x->m->world_size)
		return t;
	r = &x->m->ranks[rank];
	a = &r->clock[0];
	b = &r->clock[1];
	if (r->has_clock[0] && r->has_clock[1] && b->local_ns != a->local_ns) {
		num = (__int128)(b->offset_ns - a->offset_ns) * ((__int128)t - a->local_ns);
		return t + a->offset_ns + (int64_t)(num / ((__int128)b->local_ns - a->local_ns));
	}
	if (r->has_clock[0])
		return t + a->offset_ns;
	return r->has_clock[1] ? t + b->offset_ns : t;
}

/*
 * A thread's function calls, MPI calls and regions share its location, so that a region
 * encloses the calls made inside it; OTF2 requires a location's Enter and Leave events to
 * nest, and a region may begin in one function and end in another. The frames open on the
 * location are kept (x->frames): a region that ends below calls begun inside it leaves them,
 * ends, and enters them again at the same time; a call that returns below regions begun
 * inside it leaves them, returns, and enters them again.
 */
static int frame_push(struct xp *x, uint32_t id, int region)
{
	if (ARRAY_GROW(x->frames, x->nopen + 1, x->open_cap))
		return ox_fail(x, -ENOMEM, "out of memory");
	x->frames[x->nopen++] = (struct ox_frame){id, region};
	return 0;
}

/* Leave (LEAVE 1, innermost first) or enter again (LEAVE 0, outermost first) the frames from
 * FROM up at TS. */
static int frames_write(struct xp *x, struct track *t, size_t from, uint64_t ts, int leave)
{
	for (size_t i = 0; i < x->nopen - from && !x->failed; i++) {
		size_t k = leave ? x->nopen - 1 - i : from + i;

		ox_check(x,
			 leave ? OTF2_EvtWriter_Leave(t->w, NULL, ts, x->frames[k].id)
			       : OTF2_EvtWriter_Enter(t->w, NULL, ts, x->frames[k].id),
			 "writing a region");
	}
	return x->failed ? -1 : 0;
}

/* The innermost open call (not a region), or x->nopen none. */
static size_t frame_call(const struct xp *x)
{
	for (size_t k = x->nopen; k > 0; k--)
		if (!x->frames[k - 1].region)
			return k - 1;
	return x->nopen;
}

/* Before the innermost call's Leave at NS: the regions begun inside it leave. Returns the
 * call's frame (x->nopen none). */
static size_t call_leave_begin(struct xp *x, struct track *t, int64_t ns)
{
	size_t k = frame_call(x);

	if (k < x->nopen)
		frames_write(x, t, k + 1, ox_stamp(x, t, ns), 1);
	return k;
}

/* After the Leave of call frame K: it goes, the regions above it enter again. */
static int call_leave_end(struct xp *x, struct track *t, size_t k)
{
	if (k >= x->nopen)
		return 0;
	memmove(&x->frames[k], &x->frames[k + 1], (x->nopen - k - 1) * sizeof(*x->frames));
	x->nopen--;
	return frames_write(x, t, k, t->last, 0);
}

static size_t region_frame(const struct xp *x, uint32_t id);
static int region_close(struct xp *x, struct track *t, size_t k, uint64_t ts);

/* A region begin or end on the thread's location T, after a Metric event with the counters
 * read there. */
static int region_event(struct xp *x, struct track *t, struct ox_metrics *mt,
			const struct exp_stream *s, const struct event *e, int64_t ns)
{
	const struct ev_region *ev = &e->region;
	char num[32];
	uint64_t ts;
	uint32_t id;
	size_t k;

	snprintf(num, sizeof(num), "region %" PRIu32, ev->id);
	id = ox_region_id(x, ev->name ? ev->name : num, RK_REGION, 0);
	if (id == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	ts = ox_stamp(x, t, ns);
	if (e->kind == EV_REGION_ENTER) {
		if (ox_metrics_event(x, mt, s, t->w, ts, ev->snapshot, ev->nsnapshot))
			return -1;
		x->stats->regions++;
		return ox_region_enter(x, t, id, ts);
	}
	k = region_frame(x, id);
	if (k == x->nopen) /* an end without a begin closes nothing */
		return 0;
	/* what began inside it leaves; regions left open inside it end here, calls enter again */
	if (frames_write(x, t, k + 1, ts, 1) ||
	    ox_metrics_event(x, mt, s, t->w, ts, ev->snapshot, ev->nsnapshot))
		return -1;
	return region_close(x, t, k, ts);
}

/* The innermost open region ID's frame, or x->nopen none. */
static size_t region_frame(const struct xp *x, uint32_t id)
{
	for (size_t k = x->nopen; k > 0; k--)
		if (x->frames[k - 1].region && x->frames[k - 1].id == id)
			return k - 1;
	return x->nopen;
}

/* Region frame K leaves at TS (what began inside it has left): the regions left open inside
 * it end, the calls inside it enter again. */
static int region_close(struct xp *x, struct track *t, size_t k, uint64_t ts)
{
	size_t calls = k;

	if (ox_check(x, OTF2_EvtWriter_Leave(t->w, NULL, ts, x->frames[k].id), "writing a region"))
		return -1;
	for (size_t i = k + 1; i < x->nopen; i++)
		if (!x->frames[i].region)
			x->frames[calls++] = x->frames[i];
	x->nopen = calls;
	return frames_write(x, t, k, ts, 0);
}

int ox_region_enter(struct xp *x, struct track *t, uint32_t id, uint64_t ts)
{
	if (frame_push(x, id, 1))
		return -1;
	return ox_check(x, OTF2_EvtWriter_Enter(t->w, NULL, ts, id), "writing a region");
}

int ox_region_leave(struct xp *x, struct track *t, uint32_t id, uint64_t ts)
{
	size_t k = region_frame(x, id);

	if (k == x->nopen)
		return 0;
	if (frames_write(x, t, k + 1, ts, 1))
		return -1;
	return region_close(x, t, k, ts);
}

/* ProgramBegin (END 0) at the first record of a rank, ProgramEnd (END 1) at its last, as the
 * model placed them: the rank's run, which its MPI analyses measure, on its first location. */
static int program_event(struct xp *x, struct track *t, int rank, const char *exe, int end)
{
	const struct mpi_rank_info *ri = &x->m->ranks[rank];
	uint32_t name = ox_string_id(x, exe && exe[0] ? ox_base_name(exe) : "?");

	if (name == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (end)
		return ox_check(
		    x, OTF2_EvtWriter_ProgramEnd(t->w, NULL, ox_stamp(x, t, ri->end_ns), 0),
		    "writing the program's end");
	return ox_check(
	    x, OTF2_EvtWriter_ProgramBegin(t->w, NULL, ox_stamp(x, t, ri->start_ns), name, 0, NULL),
	    "writing the program's begin");
}

/* The model location of stream S (not yet written), or MPI_NONE. */
static uint32_t model_loc(const struct xp *x, const struct exp_stream *s)
{
	const struct mpi_rank_info *ri;
	int rank = s->proc ? s->proc->rank : -1;

	if (!x->m || rank < 0 || rank >= x->m->world_size)
		return MPI_NONE;
	ri = &x->m->ranks[rank];
	for (uint32_t l = ri->first_loc; l < ri->first_loc + ri->nlocs && l < x->m->nlocs; l++)
		if (x->m->locs[l].tid == s->tid && !x->model_loc_done[l])
			return l;
	return MPI_NONE;
}

static void cursor_init(const struct xp *x, struct mpi_cursor *c, uint32_t l)
{
	memset(c, 0, sizeof(*c));
	if (l == MPI_NONE)
		return;
	c->m = x->m;
	c->i = x->m->locs[l].first_call;
	c->end = c->i + x->m->locs[l].ncalls;
}

/* ---- the consumer: one thread's functions, MPI calls and regions on one location ---- */

/* The state of the location being written. */
struct ox_consumer {
	struct xp *x;
	const struct exp_stream *s;
	int rank, program;
	struct track t;
	struct ox_metrics mt;
	struct mpi_cursor c;
};

/* The code of X's failure, its message in x->err. */
static int ox_code(const struct xp *x)
{
	return x->code < 0 ? x->code : strstr(x->err, "out of memory") ? -ENOMEM : -EIO;
}

static int ox_location_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct ox_consumer *oc = ctx;
	struct xp *x = oc->x;
	const struct exp_stream *s = loc->stream;
	int rank = s->proc ? s->proc->rank : -1;
	uint32_t group = ox_group_of(x, rank, s->pid, s->proc ? s->proc->exe : NULL);
	uint32_t l = model_loc(x, s);
	char tname[48];

	(void)err;
	(void)errlen;
	if (group == UINT32_MAX)
		return ox_fail(x, -ENOMEM, "out of memory");
	oc->s = s;
	oc->rank = rank;
	memset(&oc->t, 0, sizeof(oc->t));
	memset(&oc->mt, 0, sizeof(oc->mt));
	snprintf(tname, sizeof(tname), "thread %d", (int)s->tid);
	oc->program = x->m && rank >= 0 && rank < x->m->world_size && x->rank_loc[rank] < 0 &&
		      x->m->ranks[rank].present;
	if (loc_open(x, &oc->t, group, tname) ||
	    (oc->program && program_event(x, &oc->t, rank, s->proc->exe, 0)))
		return ox_code(x);
	cursor_init(x, &oc->c, l);
	if (l != MPI_NONE)
		x->model_loc_done[l] = 1;
	x->nopen = 0;
	ox_omp_location(x);
	return 0;
}

/* The MPI events of the location due before an event at NS (at one time: an MPI call's leave
 * first, its enter after function events); ALL: every one left. 0 or -1. */
static int mpi_until(struct ox_consumer *oc, int64_t ns, int all)
{
	struct xp *x = oc->x;
	struct mpi_cursor *c = &oc->c;

	while (cursor_more(c) && (all || cursor_key(c) < ns || (cursor_key(c) == ns && c->leave))) {
		const struct mpi_call *mc = &c->m->calls[c->i];
		size_t k = c->leave ? call_leave_begin(x, &oc->t, mc->leave_ns) : 0;
		int leave = c->leave;

		if (cursor_emit(x, &oc->t, c))
			return -1;
		if (leave ? call_leave_end(x, &oc->t, k)
			  : frame_push(
				x,
				ox_region_id(x, mpi_routine_name(mc->routine), RK_MPI, mc->routine),
				0))
			return -1;
	}
	return 0;
}

/* A function call's Enter or Leave at NS (aligned). */
static void call_event(struct ox_consumer *oc, const struct event *ev, int64_t ns)
{
	struct xp *x = oc->x;
	const struct exp_stream *s = oc->s;
	uint32_t id =
	    function_region(x, s, symtab_place(x->st, s->pid, s->image, ev->call.addr, ev->ns));

	if (id == UINT32_MAX) {
		ox_fail(x, -ENOMEM, "out of memory");
		return;
	}
	if (ev->kind == EV_CALL_ENTER) {
		x->stats->calls++;
		if (!frame_push(x, id, 0))
			ox_check(x,
				 OTF2_EvtWriter_Enter(oc->t.w, NULL, ox_stamp(x, &oc->t, ns), id),
				 "writing a function call");
	} else {
		size_t k = call_leave_begin(x, &oc->t, ns);

		if (!ox_check(x, OTF2_EvtWriter_Leave(oc->t.w, NULL, ox_stamp(x, &oc->t, ns), id),
			      "writing a function call"))
			call_leave_end(x, &oc->t, k);
	}
}

static int ox_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct ox_consumer *oc = ctx;
	struct xp *x = oc->x;
	int64_t ns = align(x, oc->rank, ev->ns);

	(void)err;
	(void)errlen;
	if (mpi_until(oc, ns, 0) == 0) {
		if (ev->kind >= EV_OMP_PARALLEL_BEGIN && ev->kind <= EV_OMP_TASK_END)
			ox_omp_event(x, &oc->t, x->locs[oc->t.loc].group, ev, ns);
		else if (ox_omp_flush(x, &oc->t) == 0 &&
			 (ev->kind == EV_CALL_ENTER || ev->kind == EV_CALL_EXIT))
			call_event(oc, ev, ns);
		else if (!x->failed)
			region_event(x, &oc->t, &oc->mt, oc->s, ev, ns);
	}
	return x->failed ? ox_code(x) : 0;
}

/* N call events at once (ev_consumer.events): the pass's dispatch once for them. */
static int ox_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct ox_consumer *oc = ctx;
	struct xp *x = oc->x;

	(void)err;
	(void)errlen;
	for (size_t i = 0; i < n && !x->failed; i++) {
		int64_t ns = align(x, oc->rank, ev[i].ns);

		if (mpi_until(oc, ns, 0) == 0 && ox_omp_flush(x, &oc->t) == 0)
			call_event(oc, &ev[i], ns);
	}
	return x->failed ? ox_code(x) : 0;
}

static int ox_location_end(void *ctx, const struct ev_location *loc,
			   const struct ev_location_facts *facts, char *err, size_t errlen)
{
	struct ox_consumer *oc = ctx;
	struct xp *x = oc->x;
	char tname[112], omp[64];
	const char *label = thread_label(omp, sizeof(omp), facts, oc->rank);

	(void)loc;
	(void)err;
	(void)errlen;
	mpi_until(oc, 0, 1);
	ox_omp_flush(x, &oc->t);
	/* regions a killed run left open end with the stream's last record */
	if (!x->failed && x->nopen)
		frames_write(x, &oc->t, 0, ox_stamp(x, &oc->t, align(x, oc->rank, facts->last_ns)),
			     1);
	x->nopen = 0;
	ox_omp_location_end(x, &oc->t);
	/* named at the end, when the facts are known: an OpenMP thread by its number */
	if (!x->failed && (label || facts->name[0])) {
		snprintf(tname, sizeof(tname), "%s (thread %d)", label ? label : facts->name,
			 (int)oc->s->tid);
		x->locs[oc->t.loc].name = ox_string_id(x, tname);
		if (x->locs[oc->t.loc].name == UINT32_MAX)
			ox_fail(x, -ENOMEM, "out of memory");
	}
	x->stats->synthetic_exits += facts->synthetic_exits;
	x->stats->unmatched_exits += facts->unmatched_exits;
	x->stats->lost_records += facts->lost_records;
	ox_metrics_release(&oc->mt);
	if (oc->program && !x->failed)
		program_event(x, &oc->t, oc->rank, oc->s->proc->exe, 1);
	loc_close(x, &oc->t);
	return x->failed ? ox_code(x) : 0;
}

/* MPI calls of threads without a stream, and ranks without any location (the MPI
 * communicator definitions need a location per rank). */
static int write_leftovers(struct xp *x)
{
	struct track t = {0};
	struct mpi_cursor c;
	char name[64];

	if (!x->m)
		return 0;
	for (uint32_t l = 0; l < x->m->nlocs && !x->failed; l++) {
		const struct mpi_loc *ml = &x->m->locs[l];

		if (x->model_loc_done[l] || (ml->ncalls == 0 && x->rank_loc[ml->rank] >= 0))
			continue;
		snprintf(name, sizeof(name), "thread %d (MPI calls only)", (int)ml->tid);
		if (loc_open(x, &t, ox_group_of(x, ml->rank, 0, NULL), name))
			return -1;
		cursor_init(x, &c, l);
		x->model_loc_done[l] = 1;
		x->stats->mpi_unplaced += ml->ncalls;
		while (cursor_more(&c) && !cursor_emit(x, &t, &c))
			;
		loc_close(x, &t);
	}
	for (int r = 0; r < x->m->world_size && !x->failed; r++) {
		if (x->rank_loc[r] >= 0)
			continue;
		if (loc_open(x, &t, ox_group_of(x, r, 0, NULL), "no stream"))
			return -1;
		loc_close(x, &t);
	}
	return x->failed ? -1 : 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	(void)ud;
	(void)type;
	(void)loc;
	(void)caller;
	(void) final;
	return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush};

/* The archive's setup before the events. 0 or -1. */
static int export_begin(struct xp *x)
{
	const struct mpi_model *m = x->m;

	if (m) {
		x->rank_loc = malloc(((size_t)m->world_size + 1) * sizeof(int32_t));
		x->model_loc_done = calloc(m->nlocs + 1, 1);
		x->comm_rank = calloc(m->ncomms + 1, sizeof(int32_t *));
		if (!x->rank_loc || !x->model_loc_done || !x->comm_rank)
			return ox_fail(x, -ENOMEM, "out of memory");
		for (int r = 0; r < m->world_size; r++)
			x->rank_loc[r] = -1;
		if (ox_find_icolls(x))
			return -1;
	}
	if (ox_check(x, OTF2_Archive_SetFlushCallbacks(x->ar, &flush_callbacks, NULL),
		     "setting up the archive") ||
	    ox_check(x, OTF2_Archive_SetSerialCollectiveCallbacks(x->ar), "setting up the archive"))
		return -1;
	OTF2_Archive_SetCreator(x->ar, x->e->created_by && x->e->created_by[0] ? x->e->created_by
									       : "perfscope");
	OTF2_Archive_SetDescription(x->ar, "perfscope export of an experiment");
	if (x->e->host && x->e->host[0])
		OTF2_Archive_SetMachineName(x->ar, x->e->host);
	return ox_check(x, OTF2_Archive_OpenEvtFiles(x->ar), "opening the event files") ? -1 : 0;
}

/* Every stream through one pass with the consumer OC. 0 or -1. */
static int export_streams(struct ox_consumer *oc)
{
	struct xp *x = oc->x;
	struct ev_consumer c = {
	    .name = "otf2",
	    .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT) | EV_BIT(EV_REGION_ENTER) |
		     EV_BIT(EV_REGION_EXIT) | ox_omp_kinds(),
	    .locations = EV_LOC_STREAMS,
	    .ctx = oc,
	    .location_begin = ox_location_begin,
	    .event = ox_event,
	    .events = ox_events,
	    .location_end = ox_location_end,
	};
	struct ev_consumer *cs[1] = {&c};
	int ret = ev_pass_experiment(x->e, cs, 1, 0, x->err, x->errlen);

	if (ret < 0 && !x->failed) { /* the source's error, in x->err */
		x->failed = 1;
		x->code = ret;
	}
	/* a location the pass stopped in */
	ox_metrics_release(&oc->mt);
	loc_close(x, &oc->t);
	return x->failed ? -1 : 0;
}

static int export_all(struct xp *x)
{
	struct ox_consumer oc = {.x = x};
	int ret = export_begin(x);

	if (ret == 0)
		ret = export_streams(&oc);
	if (ret == 0)
		write_leftovers(x);
	if (!x->failed)
		ox_check(x, OTF2_Archive_CloseEvtFiles(x->ar), "closing the event files");
	if (!x->failed)
		ox_write_local_definitions(x);
	if (!x->failed)
		ox_write_definitions(x);
	x->stats->processes = x->ngroups;
	return x->failed ? -1 : 0;
}

int otf2_export(const char *archive, struct experiment *e, struct symtab *st,
		const struct mpi_model *m, struct otf2_export_stats *stats, char *err,
		size_t errlen)
{
	/* the archive's entries, the anchor last: a reader finds it once the rest is in place */
	static const char *const entries[] = {OTF2_EXPORT_NAME, OTF2_EXPORT_NAME ".def",
					      OTF2_EXPORT_NAME ".otf2"};
	OTF2_ErrorCallback old;
	struct otf2_export_stats local;
	struct outdir od;
	struct xp x;
	int ret;

	ret = outdir_open(&od, archive, err, errlen);
	if (ret)
		return ret;
	old = OTF2_Error_RegisterCallback(ox_error_cb, NULL);
	memset(&x, 0, sizeof(x));
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	x.archive = archive;
	x.e = e;
	x.st = st;
	x.m = m;
	x.stats = stats;
	x.err = err;
	x.errlen = errlen;
	x.tmin = UINT64_MAX;
	ox_msg[0] = 0;
	/* written aside, inside ARCHIVE; messages name ARCHIVE */
	x.ar = OTF2_Archive_Open(od.tmp, OTF2_EXPORT_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK,
				 DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!x.ar) {
		ox_fail(&x, -EIO, "%s: cannot create the OTF2 archive%s%s", archive,
			ox_msg[0] ? ": " : "", ox_msg);
		ret = -EIO;
	} else {
		ret = export_all(&x);
		if (ox_check(&x, OTF2_Archive_Close(x.ar), "closing the archive"))
			ret = -1;
	}
	if (ret < 0)
		ret = ox_code(&x);
	OTF2_Error_RegisterCallback(old, NULL);
	ox_release(&x);
	if (ret < 0)
		outdir_discard(&od, otf2_export_remove);
	else
		ret = outdir_commit(&od, entries, sizeof(entries) / sizeof(entries[0]),
				    otf2_export_remove, err, errlen);
	return ret;
}

/* Remove DIR/NAME when it is a regular file. */