/*
 * source-otf2.c - an OTF2 archive as a source of events (pass.h): its definitions read as the
 * MPI import reads them (otf2-import-defs.c, into a model of its own that only gives the
 * ranks), then each location of a rank, in the definitions' order, its Enter/Leave events
 * matched into calls on one stack and handed on as EV_CALL_ENTER and EV_CALL_EXIT (the call's
 * address is its region's index, its name the region's). A Leave that skips open regions
 * closes them first (synthetic exits), a Leave of a region not open is dropped and counted, an
 * Enter of an undefined region ends the location with an error, and calls open at a
 * location's last event (any event: ProgramEnd too) close there, as the stream walker does
 * (calls.h).
 */
#include "model/pass-int.h"

#include "model/otf2-anchor.h"
#include "model/otf2-calls.h"
#include "model/otf2-imp.h"
#include "format/format.h"
#include "lib/array.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open call of the location being read. */
struct wframe {
	uint32_t region; /* index in im.regions */
	int64_t start_ns, child_ns;
};

struct otf2_src {
	struct imp im;
	struct mpi_model defs_model; /* the ranks of the definitions (not the caller's model) */
	OTF2_Reader *rd;
	OTF2_EvtReaderCallbacks *cbs; /* set, with the event files open, at the first location */
	int evt_open;
	struct otf2_region *regions; /* as im.regions, for the consumers */
	/* region ids below nregions (dense, as archives number them): index or -1 */
	long *region_of;
	const struct imp_loc **loc_of; /* per location of the source: the archive's */
	/* the location being read: its pass, the batch of its calls, its open calls and facts */
	struct ev_pass *p;
	struct ev_consumer *bc; /* the consumer taking its calls in batches, or NULL */
	struct event batch[EV_CALL_BATCH];
	size_t nbatch;
	struct wframe *st;
	size_t depth, cap;
	struct ev_location_facts f;
	int ret; /* a consumer's failure (its message in the pass's) or ours: the walk stops */
};

static struct otf2_src *src_of(const struct ev_source *src);

/* The calls gathered to the batcher. */
static int flush(struct otf2_src *x)
{
	size_t n = x->nbatch;

	x->nbatch = 0;
	return ev_emit_calls(x->p, x->bc, x->batch, n);
}

/* The event of the next call of KIND: the next of the batch, or the one handed on at once;
 * NULL when no consumer wants KIND. The caller sets its time and call, then call_done(). */
static inline struct event *call_slot(struct otf2_src *x, enum ev_kind kind)
{
	struct event *ev;

	if (!x->p->nby_kind[kind])
		return NULL;
	ev = &x->batch[x->bc ? x->nbatch++ : 0];
	ev->kind = kind;
	return ev;
}

/* The call EV of call_slot() to the consumers: 0 or a consumer's error. */
static inline int call_done(struct otf2_src *x, const struct event *ev)
{
	if (!x->bc)
		return ev_emit(x->p, ev);
	return x->nbatch == EV_CALL_BATCH ? flush(x) : 0;
}

/* The location's span: every event read widens it (otf2i_event_ns keeps a location's times
 * from going back; T as recorded may). */
static inline void seen(struct otf2_src *x, int64_t ns, uint64_t t)
{
	struct ev_location_facts *f = &x->f;

	if (f->first_ns == INT64_MAX) {
		f->first_ns = ns;
		f->first_ticks = f->last_ticks = t;
	}
	f->last_ns = ns;
	if (t > f->last_ticks)
		f->last_ticks = t;
}

/* A function record at NS: the span of the location's calls. */
static inline void call_seen(struct ev_location_facts *f, int64_t ns)
{
	f->function_records++;
	if (f->first_call_ns == INT64_MAX)
		f->first_call_ns = ns;
	f->last_call_ns = ns;
}

/* The index of region ID, or -1 when undefined. */
static long region_index(const struct otf2_src *x, OTF2_RegionRef id)
{
	return id < x->im.nregions ? x->region_of[id] : otf2i_lookup(&x->im.region_ix, id);
}

/* A consumer's failure RET (its message in the pass's buffer), or ours (the message noted):
 * the walk stops. */
static OTF2_CallbackCode stop(struct otf2_src *x, int ret)
{
	x->ret = ret;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct otf2_src *x = ud;
	long r = region_index(x, region);
	int64_t ns = otf2i_event_ns(&x->im, t);
	struct event *ev;
	int ret;

	if (x->im.failed)
		return OTF2_CALLBACK_INTERRUPT;
	seen(x, ns, t);
	if (r < 0)
		return otf2i_fail(&x->im, -EINVAL,
				  "location %" PRIu64 ": Enter of region %" PRIu32
				  ", which is not defined",
				  x->im.cur->id, (uint32_t)region),
		       OTF2_CALLBACK_INTERRUPT;
	call_seen(&x->f, ns);
	if (x->depth == x->cap &&
	    array_reserve((void **)&x->st, &x->cap, x->depth + 1, sizeof(*x->st)))
		return stop(x, otf2i_fail(&x->im, -ENOMEM, "out of memory"));
	x->st[x->depth++] = (struct wframe){(uint32_t)r, ns, 0};
	ev = call_slot(x, EV_CALL_ENTER);
	if (!ev)
		return OTF2_CALLBACK_SUCCESS;
	ev->ns = ns;
	ev->call = (struct ev_call){
	    .addr = (uint64_t)r, .name = x->regions[r].name, .depth = (unsigned)x->depth - 1};
	ret = call_done(x, ev);
	return ret ? stop(x, ret) : OTF2_CALLBACK_SUCCESS;
}

/* Close the top call at NS (SYNTHETIC: its Leave is missing). */
static int close_top(struct otf2_src *x, int64_t ns, int synthetic)
{
	const struct wframe fr = x->st[--x->depth];
	int64_t incl = ns > fr.start_ns ? ns - fr.start_ns : 0;
	struct event *ev;

	if (x->depth)
		x->st[x->depth - 1].child_ns += incl;
	x->f.synthetic_exits += (uint64_t)synthetic;
	ev = call_slot(x, EV_CALL_EXIT);
	if (!ev)
		return 0;
	ev->ns = ns;
	ev->call = (struct ev_call){.addr = fr.region,
				    .name = x->regions[fr.region].name,
				    .depth = (unsigned)x->depth,
				    .synthetic = synthetic,
				    .incl_ns = incl,
				    .excl_ns = incl - fr.child_ns};
	return call_done(x, ev);
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct otf2_src *x = ud;
	long r = region_index(x, region);
	int64_t ns = otf2i_event_ns(&x->im, t);
	size_t i;
	int ret = 0;

	if (x->im.failed)
		return OTF2_CALLBACK_INTERRUPT;
	seen(x, ns, t);
	call_seen(&x->f, ns);
	for (i = x->depth; i-- > 0;)
		if ((long)x->st[i].region == r)
			break;
	if (r < 0 || i == (size_t)-1) {
		x->f.unmatched_exits++;
		return OTF2_CALLBACK_SUCCESS;
	}
	while (ret == 0 && x->depth > i + 1)
		ret = close_top(x, ns, 1);
	if (ret == 0)
		ret = close_top(x, ns, 0);
	return ret ? stop(x, ret) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					  uint64_t pos UNUSED, void *ud,
					  OTF2_AttributeList *al UNUSED, OTF2_StringRef name UNUSED,
					  uint32_t n UNUSED, const OTF2_StringRef *args UNUSED)
{
	struct otf2_src *x = ud;

	seen(x, otf2i_event_ns(&x->im, t), t);
	return x->im.failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					uint64_t pos UNUSED, void *ud,
					OTF2_AttributeList *al UNUSED, int64_t status UNUSED)
{
	struct otf2_src *x = ud;

	seen(x, otf2i_event_ns(&x->im, t), t);
	return x->im.failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* The event callbacks and the event files, once for every location. 0 or a negative errno. */
static int open_events(struct otf2_src *x)
{
	OTF2_ErrorCode code;

	if (x->evt_open)
		return 0;
	if (!x->cbs && !(x->cbs = OTF2_EvtReaderCallbacks_New()))
		return otf2i_fail(&x->im, -ENOMEM, "out of memory");
	OTF2_EvtReaderCallbacks_SetEnterCallback(x->cbs, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(x->cbs, ev_leave);
	OTF2_EvtReaderCallbacks_SetProgramBeginCallback(x->cbs, ev_program_begin);
	OTF2_EvtReaderCallbacks_SetProgramEndCallback(x->cbs, ev_program_end);
	code = OTF2_Reader_OpenEvtFiles(x->rd);
	if (code != OTF2_SUCCESS)
		return otf2i_fail_otf2(&x->im, code, "opening the event files");
	x->evt_open = 1;
	return 0;
}

/* The state of reading location L of LOC, for pass P. */
static void location_reset(struct otf2_src *x, const struct ev_location *loc,
			   const struct imp_loc *l, struct ev_pass *p)
{
	struct ev_location_facts *f = &x->f;

	x->im.cur = l;
	x->im.last_ns = 0;
	x->im.failed = 0;
	x->im.msg[0] = 0;
	x->im.err = p->err;
	x->im.errlen = p->errlen;
	x->p = p;
	x->ret = 0;
	x->depth = 0;
	x->nbatch = 0;
	memset(f, 0, sizeof(*f));
	f->first_ns = f->first_call_ns = INT64_MAX;
	f->last_ns = f->last_call_ns = INT64_MIN;
	f->ended = 1; /* until an error cuts its reading short */
	f->end_reason = PSC_END_EXIT;
	snprintf(f->name, sizeof(f->name), "%s", loc->name);
	memset(x->batch, 0, sizeof(x->batch));
	for (size_t i = 0; i < EV_CALL_BATCH; i++)
		x->batch[i].loc = loc;
}

/* The read of the location's events over (CODE OTF2's answer, N events read): its open calls
 * closed at its last event, its batch handed on. 0, or a negative errno: a consumer's, or the
 * source's with its message in the pass's buffer. */
static int location_done(struct otf2_src *x, const struct imp_loc *l, OTF2_ErrorCode code,
			 uint64_t n)
{
	char what[64];
	int ret = 0, cret = 0;

	if (x->ret)
		return x->ret;
	if (x->im.failed) {
		ret = -EINVAL;
	} else if (code != OTF2_SUCCESS) {
		snprintf(what, sizeof(what), "events of location %" PRIu64, l->id);
		ret = otf2i_fail_otf2(&x->im, code, what);
	}
	x->f.records = n;
	if (x->f.first_ns > x->f.last_ns) /* no event: the span as the walk's, 1 > 0 */
		x->f.first_ns = 1, x->f.last_ns = 0;
	while (cret == 0 && x->depth)
		cret = close_top(x, x->f.last_ns, 1);
	if (cret == 0 && x->bc)
		cret = flush(x);
	if (cret)
		x->ret = cret;
	return cret ? cret : ret;
}

/* LOC whose events could not be opened (error RET, message in P->err): RET, or when the pass
 * keeps going, the location begun and ended with the error in its facts. */
static int unopened(struct otf2_src *x, struct ev_pass *p, const struct ev_location *loc, int ret)
{
	ret = ev_pass_source_error(p, ret, &x->f);
	if (ret < 0)
		return ret;
	x->f.unopened = 1;
	x->f.ended = 0;
	ret = ev_pass_begin(p, loc);
	if (ret > 0) /* declined by every consumer */
		return 0;
	return ret < 0 ? ret : ev_pass_end(p, loc, &x->f);
}

static int otf2_src_walk(struct ev_source *src, struct ev_location *loc, struct ev_pass *p)
{
	struct otf2_src *x = src->priv;
	const struct imp_loc *l = x->loc_of[loc->index];
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, x->im.msg);
	OTF2_ErrorCode code = OTF2_SUCCESS;
	OTF2_EvtReader *er = NULL;
	uint64_t n = 0;
	int ret;

	location_reset(x, loc, l, p);
	ret = open_events(x);
	if (ret == 0 && !(er = OTF2_Reader_GetEvtReader(x->rd, l->id)))
		ret =
		    otf2i_fail_otf2(&x->im, OTF2_ERROR_INVALID_ARGUMENT, "opening an event reader");
	if (ret < 0) {
		ret = unopened(x, p, loc, ret);
		goto out;
	}
	ret = ev_pass_begin(p, loc);
	if (ret == 0) {
		x->bc = ev_call_batcher(p);
		code = OTF2_Reader_RegisterEvtCallbacks(x->rd, er, x->cbs, x);
		if (code == OTF2_SUCCESS)
			code = OTF2_Reader_ReadAllLocalEvents(x->rd, er, &n);
	}
	OTF2_Reader_CloseEvtReader(x->rd, er);
	if (ret) { /* declined by every consumer (1), or a consumer's error */
		ret = ret > 0 ? 0 : ret;
		goto out;
	}
	ret = location_done(x, l, code, n);
	if (ret < 0 && !x->ret) {
		ret = ev_pass_source_error(p, ret, &x->f);
		x->f.ended = 0; /* read up to an error, not to its end */
	}
	if (ret == 0)
		ret = ev_pass_end(p, loc, &x->f);
out:
	x->im.err = NULL;
	x->im.errlen = 0;
	OTF2_Error_RegisterCallback(old, NULL);
	return ret;
}

static void otf2_src_close(struct ev_source *src)
{
	struct otf2_src *x = src->priv;

	if (x) {
		if (x->evt_open)
			OTF2_Reader_CloseEvtFiles(x->rd);
		if (x->cbs)
			OTF2_EvtReaderCallbacks_Delete(x->cbs);
		if (x->rd)
			OTF2_Reader_Close(x->rd);
		free(x->regions);
		free(x->region_of);
		free(x->loc_of);
		free(x->st);
		otf2i_release(&x->im);
		mpi_model_release(&x->defs_model);
		free(x);
	}
	free(src->locs);
	free(src);
}

static const struct ev_source_ops otf2_ops = {otf2_src_walk, otf2_src_close};

static struct otf2_src *src_of(const struct ev_source *src)
{
	return src && src->ops == &otf2_ops ? src->priv : NULL;
}

/* The regions as the consumers see them (strings of the definitions), and the index of each
 * region id below their count. */
static int name_regions(struct otf2_src *x)
{
	const struct imp *im = &x->im;

	x->regions = calloc(im->nregions ? im->nregions : 1, sizeof(*x->regions));
	x->region_of = calloc(im->nregions ? im->nregions : 1, sizeof(*x->region_of));
	if (!x->regions || !x->region_of)
		return otf2i_fail(&x->im, -ENOMEM, "out of memory");
	for (size_t i = 0; i < im->nregions; i++) {
		const struct imp_region *reg = &im->regions[i];

		x->region_of[i] = otf2i_lookup(&im->region_ix, i);
		x->regions[i] = (struct otf2_region){
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

/* The source's locations: the archive's locations of ranks, in the definitions' order. */
static int add_locations(struct ev_source *src, struct otf2_src *x)
{
	const struct imp *im = &x->im;
	size_t n = 0;

	src->locs = calloc(im->nlocs + 1, sizeof(*src->locs));
	x->loc_of = calloc(im->nlocs + 1, sizeof(*x->loc_of));
	if (!src->locs || !x->loc_of)
		return otf2i_fail(&x->im, -ENOMEM, "out of memory");
	for (size_t i = 0; i < im->nlocs; i++) {
		const struct imp_loc *l = &im->locs[i];

		if (l->rank < 0)
			continue;
		x->loc_of[n] = l;
		src->locs[n] = (struct ev_location){.index = n,
						    .pid = (pid_t)l->rank,
						    .tid = (pid_t)l->id,
						    .rank = l->rank,
						    .name = otf2i_string_of(im, l->name)};
		n++;
	}
	src->nlocs = n;
	return 0;
}

/* The archive of ANCHOR opened into X, its definitions read. 0 or a negative errno (ERR). */
static int open_archive(struct ev_source *src, struct otf2_src *x, const char *anchor)
{
	OTF2_ErrorCode code;
	int ret = otf2_anchor_check(anchor, x->im.err, x->im.errlen);

	if (ret < 0)
		return ret;
	x->rd = OTF2_Reader_Open(anchor);
	if (!x->rd)
		return otf2i_fail(&x->im, -ENOENT, "cannot open the OTF2 archive%s%s",
				  x->im.msg[0] ? ": " : "", x->im.msg);
	code = OTF2_Reader_SetSerialCollectiveCallbacks(x->rd);
	ret = code == OTF2_SUCCESS ? 0 : otf2i_fail_otf2(&x->im, code, "opening the archive");
	if (ret == 0)
		ret = otf2i_read_definitions(&x->im, x->rd);
	if (ret == 0)
		ret = otf2i_read_local_definitions(&x->im, x->rd);
	if (ret == 0)
		ret = name_regions(x);
	if (ret == 0)
		ret = add_locations(src, x);
	return ret;
}

int ev_source_otf2(struct ev_source **out, const char *anchor, char *err, size_t errlen)
{
	struct ev_source *src = calloc(1, sizeof(*src));
	struct otf2_src *x = calloc(1, sizeof(*x));
	OTF2_ErrorCallback old;
	int ret;

	*out = NULL;
	if (!src || !x) {
		free(src);
		free(x);
		snprintf(err, errlen, "%s: out of memory", anchor);
		return -ENOMEM;
	}
	src->ops = &otf2_ops;
	src->priv = x;
	mpi_model_init(&x->defs_model);
	x->im.m = &x->defs_model;
	x->im.anchor = anchor;
	x->im.err = err;
	x->im.errlen = errlen;
	old = OTF2_Error_RegisterCallback(otf2i_error_cb, x->im.msg);
	ret = open_archive(src, x, anchor);
	OTF2_Error_RegisterCallback(old, NULL);
	x->im.err = NULL;
	x->im.errlen = 0;
	if (ret < 0) {
		otf2_src_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

size_t otf2_source_nregions(const struct ev_source *src)
{
	const struct otf2_src *x = src_of(src);

	return x ? x->im.nregions : 0;
}

const struct otf2_region *otf2_source_region(const struct ev_source *src, uint32_t i)
{
	const struct otf2_src *x = src_of(src);

	return x && i < x->im.nregions ? &x->regions[i] : NULL;
}

const char *otf2_source_anchor(const struct ev_source *src)
{
	const struct otf2_src *x = src_of(src);

	return x ? x->im.anchor : "";
}

uint32_t otf2_source_thread(const struct ev_source *src, const struct ev_location *loc)
{
	const struct otf2_src *x = src_of(src);

	return x && loc->index < src->nlocs ? x->loc_of[loc->index]->thread : 0;
}
