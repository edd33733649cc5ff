/*
 * otf2-calls.c - an OTF2 archive's Enter/Leave events as calls (otf2-calls.h): the walk, and
 * the function and scope profiles built on it. The definitions are read as the MPI import
 * reads them (otf2-import-defs.c, into a model of its own that only gives the ranks); then
 * each location's events are matched into calls on one stack and handed to the walk's
 * caller; the profiles feed them to fprofile.c and mpi-scope.c, which keep the profiles.
 */
#include "model/otf2-calls.h"
#include "model/otf2-anchor.h"
#include "model/otf2-imp.h"

#include "lib/array.h"
#include "format/format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the walk ---- */

/* An open call of the location being read. */
struct wframe {
	uint32_t region; /* index in im.regions */
	int64_t start_ns, child_ns;
};

struct otf2_walk {
	struct imp im;
	struct mpi_model defs_model; /* the ranks of the definitions (not the caller's model) */
	OTF2_Reader *rd;
	struct otf2_walk_region *regions; /* as im.regions, for the callers */
	long *
	    region_of; /* region ids below nregions (dense, as archives number them): index or -1 */
	const struct otf2_walk_ops *ops;
	void *ctx;
	struct wframe *st;
	size_t depth, cap;
	struct call_thread th; /* the location being read */
	int ret;	       /* a callback's failure: the walk stops at once */
};

/* The location's span: every event read widens it. */
static void seen(struct otf2_walk *w, int64_t ns)
{
	if (w->th.first_ns > w->th.last_ns) {
		w->th.first_ns = w->th.last_ns = ns;
		return;
	}
	if (ns < w->th.first_ns)
		w->th.first_ns = ns;
	if (ns > w->th.last_ns)
		w->th.last_ns = ns;
}

/* The index of region ID, or -1 when undefined. */
static long region_index(const struct otf2_walk *w, OTF2_RegionRef id)
{
	return id < w->im.nregions ? w->region_of[id] : otf2i_lookup(&w->im.region_ix, id);
}

/* A callback's failure RET (or ours): noted in ERR, the walk stops. */
static OTF2_CallbackCode fail(struct otf2_walk *w, int ret)
{
	w->ret = ret;
	if (ret == -ENOMEM)
		otf2i_fail(&w->im, ret, "out of memory");
	else
		otf2i_fail(&w->im, ret, "%s", strerror(-ret));
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct otf2_walk *w = ud;
	long r = region_index(w, region);
	int64_t ns = otf2i_event_ns(&w->im, t);
	struct otf2_call call;
	int ret;

	if (w->im.failed)
		return OTF2_CALLBACK_INTERRUPT;
	seen(w, ns);
	if (r < 0)
		return otf2i_fail(&w->im, -EINVAL,
				  "location %" PRIu64 ": Enter of region %" PRIu32
				  ", which is not defined",
				  w->im.cur->id, (uint32_t)region),
		       OTF2_CALLBACK_INTERRUPT;
	w->th.function_records++;
	if (w->depth == w->cap &&
	    array_reserve((void **)&w->st, &w->cap, w->depth + 1, sizeof(*w->st)))
		return fail(w, -ENOMEM);
	w->st[w->depth++] = (struct wframe){(uint32_t)r, ns, 0};
	if (!w->ops->enter)
		return OTF2_CALLBACK_SUCCESS;
	memset(&call, 0, sizeof(call));
	call.region = (uint32_t)r;
	call.depth = (unsigned)w->depth - 1;
	call.enter_ns = ns;
	ret = w->ops->enter(w->ctx, &call);
	return ret ? fail(w, ret) : OTF2_CALLBACK_SUCCESS;
}

/* Close the top call at NS (SYNTHETIC: its Leave is missing). */
static int close_top(struct otf2_walk *w, int64_t ns, int synthetic)
{
	const struct wframe f = w->st[--w->depth];
	int64_t incl = ns > f.start_ns ? ns - f.start_ns : 0;
	struct otf2_call call;

	if (w->depth)
		w->st[w->depth - 1].child_ns += incl;
	w->th.synthetic_exits += (uint64_t)synthetic;
	if (!w->ops->leave)
		return 0;
	call = (struct otf2_call){
	    .region = f.region,
	    .depth = (unsigned)w->depth,
	    .enter_ns = f.start_ns,
	    .leave_ns = ns,
	    .incl_ns = incl,
	    .excl_ns = incl - f.child_ns,
	    .synthetic = synthetic,
	};
	return w->ops->leave(w->ctx, &call);
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct otf2_walk *w = ud;
	long r = region_index(w, region);
	int64_t ns = otf2i_event_ns(&w->im, t);
	size_t i;
	int ret = 0;

	if (w->im.failed)
		return OTF2_CALLBACK_INTERRUPT;
	seen(w, ns);
	w->th.function_records++;
	for (i = w->depth; i-- > 0;)
		if ((long)w->st[i].region == r)
			break;
	if (r < 0 || i == (size_t)-1) {
		w->th.unmatched_exits++;
		return OTF2_CALLBACK_SUCCESS;
	}
	while (ret == 0 && w->depth > i + 1)
		ret = close_top(w, ns, 1);
	if (ret == 0)
		ret = close_top(w, ns, 0);
	return ret ? fail(w, ret) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					  uint64_t pos UNUSED, void *ud,
					  OTF2_AttributeList *al UNUSED, OTF2_StringRef name UNUSED,
					  uint32_t n UNUSED, const OTF2_StringRef *args UNUSED)
{
	struct otf2_walk *w = ud;

	seen(w, otf2i_event_ns(&w->im, t));
	return w->im.failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					uint64_t pos UNUSED, void *ud,
					OTF2_AttributeList *al UNUSED, int64_t status UNUSED)
{
	struct otf2_walk *w = ud;

	seen(w, otf2i_event_ns(&w->im, t));
	return w->im.failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* The events of location L: its calls handed on, the calls left open closed at its last
 * event (also when its events could not be read to the end, before that error returns). */
static int read_location(struct otf2_walk *w, OTF2_EvtReaderCallbacks *cbs, const struct imp_loc *l)
{
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(w->rd, l->id);
	const struct otf2_walk_loc wl = {l->id, l->rank, l->thread,
					 otf2i_string_of(&w->im, l->name)};
	OTF2_ErrorCode code;
	char what[64];
	uint64_t n;
	int ret = 0, cret = 0;

	if (!er)
		return otf2i_fail_otf2(&w->im, OTF2_ERROR_INVALID_ARGUMENT,
				       "opening an event reader");
	w->im.cur = l;
	w->im.last_ns = 0;
	w->depth = 0;
	memset(&w->th, 0, sizeof(w->th));
	w->th.first_ns = 1;
	w->th.last_ns = 0;
	w->th.ended = 1;
	w->th.end_reason = PSC_END_EXIT;
	snprintf(w->th.name, sizeof(w->th.name), "%s", wl.name);
	if (w->ops->location && (ret = w->ops->location(w->ctx, &wl))) {
		OTF2_Reader_CloseEvtReader(w->rd, er);
		return fail(w, ret), ret;
	}
	code = OTF2_Reader_RegisterEvtCallbacks(w->rd, er, cbs, w);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllLocalEvents(w->rd, er, &n);
	OTF2_Reader_CloseEvtReader(w->rd, er);
	if (w->ret)
		return w->ret;
	if (w->im.failed) {
		ret = -EINVAL;
	} else if (code != OTF2_SUCCESS) {
		snprintf(what, sizeof(what), "events of location %" PRIu64, l->id);
		ret = otf2i_fail_otf2(&w->im, code, what);
	}
	while (cret == 0 && w->depth)
		cret = close_top(w, w->th.last_ns, 1);
	if (cret == 0 && w->ops->location_end)
		cret = w->ops->location_end(w->ctx, &wl, &w->th);
	if (cret)
		fail(w, cret);
	return cret ? cret : ret;
}

/* The regions as the callers see them (strings of the definitions), and the index of each
 * region id below their count. */
static int name_regions(struct otf2_walk *w)
{
	const struct imp *im = &w->im;

	w->regions = calloc(im->nregions ? im->nregions : 1, sizeof(*w->regions));
	w->region_of = calloc(im->nregions ? im->nregions : 1, sizeof(*w->region_of));
	if (!w->regions || !w->region_of)
		return otf2i_fail(&w->im, -ENOMEM, "out of memory");
	for (size_t i = 0; i < im->nregions; i++) {
		w->region_of[i] = otf2i_lookup(&im->region_ix, i);
		const struct imp_region *reg = &im->regions[i];

		w->regions[i] = (struct otf2_walk_region){
		    .name = otf2i_string_of(im, reg->display),
		    .file = otf2i_string_of(im, reg->file),
		    .line = reg->line,
		    .routine = reg->routine,
		    .mpi = reg->mpi,
		    .function = reg->role == OTF2_REGION_ROLE_FUNCTION,
		};
	}
	return 0;
}

int otf2_walk_open(struct otf2_walk **wp, const char *anchor, char *err, size_t errlen)
{
	struct otf2_walk *w = calloc(1, sizeof(*w));
	OTF2_ErrorCallback old;
	OTF2_ErrorCode code;
	int ret;

	*wp = w;
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		return -ENOMEM;
	}
	mpi_model_init(&w->defs_model);
	w->im.m = &w->defs_model;
	w->im.anchor = anchor;
	w->im.err = err;
	w->im.errlen = errlen;
	old = OTF2_Error_RegisterCallback(otf2i_error_cb, w->im.msg);
	ret = otf2_anchor_check(anchor, err, errlen);
	if (ret < 0)
		goto out;
	w->rd = OTF2_Reader_Open(anchor);
	if (!w->rd) {
		ret = otf2i_fail(&w->im, -ENOENT, "cannot open the OTF2 archive%s%s",
				 w->im.msg[0] ? ": " : "", w->im.msg);
		goto out;
	}
	code = OTF2_Reader_SetSerialCollectiveCallbacks(w->rd);
	ret = code == OTF2_SUCCESS ? 0 : otf2i_fail_otf2(&w->im, code, "opening the archive");
	if (ret == 0)
		ret = otf2i_read_definitions(&w->im, w->rd);
	if (ret == 0)
		ret = otf2i_read_local_definitions(&w->im, w->rd);
	if (ret == 0)
		ret = name_regions(w);
out:
	OTF2_Error_RegisterCallback(old, NULL);
	return ret;
}

size_t otf2_walk_nlocs(const struct otf2_walk *w)
{
	return w->im.nlocs;
}

size_t otf2_walk_nregions(const struct otf2_walk *w)
{
	return w->im.nregions;
}

const struct otf2_walk_region *otf2_walk_region(const struct otf2_walk *w, uint32_t i)
{
	return &w->regions[i];
}

int otf2_walk_run(struct otf2_walk *w, const struct otf2_walk_ops *ops, void *ctx)
{
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, w->im.msg);
	OTF2_EvtReaderCallbacks *cbs = OTF2_EvtReaderCallbacks_New();
	OTF2_ErrorCode code;
	int ret = 0;

	w->ops = ops;
	w->ctx = ctx;
	if (!cbs)
		ret = otf2i_fail(&w->im, -ENOMEM, "out of memory");
	if (ret == 0) {
		OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
		OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
		OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cbs, ev_program_begin);
		OTF2_EvtReaderCallbacks_SetProgramEndCallback(cbs, ev_program_end);
		code = OTF2_Reader_OpenEvtFiles(w->rd);
		if (code != OTF2_SUCCESS)
			ret = otf2i_fail_otf2(&w->im, code, "opening the event files");
		for (size_t i = 0; ret == 0 && i < w->im.nlocs; i++)
			if (w->im.locs[i].rank >= 0)
				ret = read_location(w, cbs, &w->im.locs[i]);
		if (code == OTF2_SUCCESS)
			OTF2_Reader_CloseEvtFiles(w->rd);
		OTF2_EvtReaderCallbacks_Delete(cbs);
	}
	OTF2_Error_RegisterCallback(old, NULL);
	return ret;
}

void otf2_walk_close(struct otf2_walk *w)
{
	if (!w)
		return;
	if (w->rd)
		OTF2_Reader_Close(w->rd);
	free(w->regions);
	free(w->region_of);
	free(w->st);
	otf2i_release(&w->im);
	mpi_model_release(&w->defs_model);
	free(w);
}

_Static_assert(OTF2_ERRORS_LEN == OTF2I_MSG_LEN, "otf2i_error_cb fills OTF2I_MSG_LEN bytes");

void otf2_errors_begin(struct otf2_errors *e)
{
	e->msg[0] = 0;
	e->old = (void (*)(void))OTF2_Error_RegisterCallback(otf2i_error_cb, e->msg);
}

void otf2_errors_end(struct otf2_errors *e)
{
	OTF2_Error_RegisterCallback((OTF2_ErrorCallback)e->old, NULL);
}

/* ---- the profiles ---- */

/* One walk's profile: the function profile FP, or the scope profile SP of model M, waits W. */
struct oc {
	const struct otf2_walk *walk;
	struct func_feed *ff;	   /* feeding the function profile */
	struct mpi_scope_feed *sf; /* feeding the scope profile */
	int mpi_depth;		   /* MPI regions open: nested ones belong to the outermost */
	int32_t mpi_routine;	   /* the outermost's routine */
};

static int oc_location(void *ctx, const struct otf2_walk_loc *l)
{
	struct oc *c = ctx;
	int ret = 0;

	c->mpi_depth = 0;
	if (c->ff)
		ret = func_feed_thread(c->ff, (pid_t)l->rank, (pid_t)l->id);
	if (c->sf && ret == 0)
		ret = mpi_scope_feed_thread(c->sf, l->rank, (pid_t)l->thread);
	return ret;
}

/* CALL's enter (LEAVE 0) or leave into the profiles: every region into the function profile;
 * into the scope profile an MPI routine's outermost region as the routine (the regions nested
 * in it belong to it), the other regions as scopes. */
static int oc_event(struct oc *c, const struct otf2_call *call, int leave)
{
	const struct otf2_walk_region *reg;
	int ret = 0;

	if (c->ff) {
		struct call_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = leave ? CALL_EXIT : CALL_ENTER;
		ev.addr = call->region;
		ev.ns = leave ? call->leave_ns : call->enter_ns;
		ev.depth = call->depth;
		if (leave) {
			ev.synthetic = call->synthetic;
			ev.incl_ns = call->incl_ns;
			ev.excl_ns = call->excl_ns;
		}
		ret = func_feed_event(c->ff, &ev);
	}
	if (!c->sf || ret)
		return ret;
	reg = otf2_walk_region(c->walk, call->region);
	if (reg->routine != -1 && !leave) {
		if (c->mpi_depth++ == 0) {
			c->mpi_routine = reg->routine;
			if (reg->routine >= 0)
				mpi_scope_feed_mpi_enter(c->sf, (uint32_t)reg->routine,
							 call->enter_ns);
		}
		return 0;
	}
	if (reg->routine != -1)
		return c->mpi_depth > 0 && --c->mpi_depth == 0 && c->mpi_routine >= 0
			   ? mpi_scope_feed_mpi_leave(c->sf, (uint32_t)c->mpi_routine,
						      call->leave_ns)
			   : 0;
	if (c->mpi_depth)
		return 0;
	if (leave)
		return mpi_scope_feed_leave(c->sf, call->region, call->leave_ns);
	return mpi_scope_feed_enter(c->sf, reg->function ? MPI_SCOPE_FUNCTION : MPI_SCOPE_REGION,
				    reg->name, call->region, call->enter_ns);
}

static int oc_enter(void *ctx, const struct otf2_call *call)
{
	return oc_event(ctx, call, 0);
}

static int oc_leave(void *ctx, const struct otf2_call *call)
{
	return oc_event(ctx, call, 1);
}

static int oc_location_end(void *ctx, const struct otf2_walk_loc *l UNUSED,
			   const struct call_thread *th)
{
	struct oc *c = ctx;

	if (c->ff)
		func_feed_thread_end(c->ff, th);
	return c->sf ? mpi_scope_feed_thread_end(c->sf, th->last_ns) : 0;
}

static const struct otf2_walk_ops oc_ops = {oc_location, oc_enter, oc_leave, oc_location_end};

/* Name the rows of P: the regions' names, and their source (file and first line), or the
 * file alone as the module ("MPI" for Score-P's MPI routines). */
static int name_rows(struct func_profile *p, struct str_arena *names, const struct otf2_walk *w)
{
	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *row = &p->rows[i];
		const struct otf2_walk_region *reg = otf2_walk_region(w, (uint32_t)row->addr);
		char *name = arena_printf(names, "%s", reg->name);
		char *f = arena_printf(names, "%s", reg->file);

		if (!name || !f)
			return -ENOMEM;
		memset(&row->sym, 0, sizeof(row->sym));
		row->sym.name = name;
		row->sym.file = "";
		row->sym.func_file = reg->line ? f : "";
		row->sym.func_line = reg->line;
		row->sym.module = reg->line ? "" : f;
		row->sym.offset = row->addr;
		row->sym.known = 1;
	}
	return 0;
}

int otf2_func_profile(struct func_profile *p, struct str_arena *names, const char *anchor,
		      char *err, size_t errlen)
{
	struct otf2_walk *w;
	struct oc c = {0};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = otf2_walk_open(&w, anchor, err, errlen);
	c.walk = w;
	if (ret == 0 && func_feed_open(&c.ff, p, otf2_walk_nlocs(w))) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		ret = -ENOMEM;
	}
	if (ret == 0)
		ret = otf2_walk_run(w, &oc_ops, &c);
	func_feed_close(c.ff);
	if (ret == 0 && name_rows(p, names, w)) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		ret = -ENOMEM;
	}
	/* the experiment's caveat would ask to rebuild the program: it is the archive's tracer */
	p->no_records_caveat =
	    "the archive has no Enter/Leave events: its tracer recorded no "
	    "calls of functions, regions or MPI routines, so there is nothing to "
	    "profile";
	otf2_walk_close(w);
	return ret;
}

int otf2_scope_profile(struct mpi_scope_profile *p, const char *anchor, const struct mpi_model *m,
		       const struct mpi_waits *wt, char *err, size_t errlen)
{
	struct otf2_walk *w;
	struct oc c = {0};
	int ret;

	ret = otf2_walk_open(&w, anchor, err, errlen);
	c.walk = w;
	if (ret == 0 && mpi_scope_feed_open(&c.sf, p, m, wt)) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		ret = -ENOMEM;
	}
	if (ret == 0)
		ret = otf2_walk_run(w, &oc_ops, &c);
	if (mpi_scope_feed_close(c.sf, ret == 0) && ret == 0) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		ret = -ENOMEM;
	}
	if (!c.sf)
		memset(p, 0, sizeof(*p));
	otf2_walk_close(w);
	return ret;
}
