/*
 * otf2-calls.c - an OTF2 archive's Enter/Leave events as the function and scope profiles
 * (otf2-calls.h). The definitions are read as the MPI import reads them (otf2-import-defs.c,
 * into a model of its own that only gives the ranks); then each location's events, matched
 * into calls on one stack, are fed to fprofile.c and mpi-scope.c, which keep the profiles.
 */
#include "otf2-calls.h"
#include "otf2-imp.h"

#include "../core/array.h"
#include "../core/format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open region of the location being read. */
struct oframe {
	uint32_t region; /* index in im.regions */
	int64_t start_ns, child_ns;
};

/* One read of the archive. */
struct oc {
	struct imp im;
	struct mpi_model defs_model; /* the ranks of the definitions (not the caller's model) */
	/* what is built: the function profile FP, or the scope profile SP of model M, waits W */
	struct func_profile *fp;
	struct mpi_scope_profile *sp;
	const struct mpi_model *m;
	const struct mpi_waits *w;
	struct func_feed *ff;	   /* feeding FP */
	struct mpi_scope_feed *sf; /* feeding SP */
	struct oframe *st;
	size_t depth, cap;
	struct call_thread th;
	int mpi_depth;	     /* MPI regions open: nested ones belong to the outermost */
	int32_t mpi_routine; /* the outermost's routine */
	int ret;	     /* a feed's failure */
};

/* The location's span: every event read widens it. */
static void seen(struct oc *c, int64_t ns)
{
	if (c->th.first_ns > c->th.last_ns) {
		c->th.first_ns = c->th.last_ns = ns;
		return;
	}
	if (ns < c->th.first_ns)
		c->th.first_ns = ns;
	if (ns > c->th.last_ns)
		c->th.last_ns = ns;
}

static OTF2_CallbackCode fail(struct oc *c, int ret)
{
	c->ret = ret;
	if (ret == -ENOMEM)
		otf2i_fail(&c->im, ret, "out of memory");
	else
		otf2i_fail(&c->im, ret, "%s", strerror(-ret));
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct oc *c = ud;
	long r = otf2i_lookup(&c->im.region_ix, region);
	int64_t ns = otf2i_ns(&c->im, t);
	const struct imp_region *reg;
	struct call_event ev;
	int ret = 0;

	seen(c, ns);
	if (r < 0)
		return otf2i_fail(&c->im, -EINVAL,
				  "location %" PRIu64 ": Enter of region %" PRIu32
				  ", which is not defined",
				  c->im.cur->id, (uint32_t)region),
		       OTF2_CALLBACK_INTERRUPT;
	reg = &c->im.regions[r];
	c->th.function_records++;
	if (array_reserve((void **)&c->st, &c->cap, c->depth + 1, sizeof(*c->st)))
		return fail(c, -ENOMEM);
	c->st[c->depth++] = (struct oframe){(uint32_t)r, ns, 0};
	if (c->ff) {
		memset(&ev, 0, sizeof(ev));
		ev.type = CALL_ENTER;
		ev.addr = (uint64_t)r;
		ev.ns = ns;
		ev.depth = (unsigned)c->depth - 1;
		ret = func_feed_event(c->ff, &ev);
	}
	if (c->sf && ret == 0) {
		if (reg->routine != -1) {
			if (c->mpi_depth++ == 0) {
				c->mpi_routine = reg->routine;
				if (reg->routine >= 0)
					mpi_scope_feed_mpi_enter(c->sf, (uint32_t)reg->routine, ns);
			}
		} else if (c->mpi_depth == 0) {
			ret = mpi_scope_feed_enter(
			    c->sf,
			    reg->role == OTF2_REGION_ROLE_FUNCTION ? MPI_SCOPE_FUNCTION
								   : MPI_SCOPE_REGION,
			    otf2i_string_of(&c->im, reg->display), (uint64_t)r, ns);
		}
	}
	return ret ? fail(c, ret) : OTF2_CALLBACK_SUCCESS;
}

/* Close the top frame at NS (SYNTHETIC: its Leave is missing). */
static int close_top(struct oc *c, int64_t ns, int synthetic)
{
	const struct oframe f = c->st[--c->depth];
	const struct imp_region *reg = &c->im.regions[f.region];
	int64_t incl = ns > f.start_ns ? ns - f.start_ns : 0;
	struct call_event ev;
	int ret = 0;

	if (c->depth)
		c->st[c->depth - 1].child_ns += incl;
	c->th.synthetic_exits += (uint64_t)synthetic;
	if (c->ff) {
		memset(&ev, 0, sizeof(ev));
		ev.type = CALL_EXIT;
		ev.addr = f.region;
		ev.ns = ns;
		ev.depth = (unsigned)c->depth;
		ev.synthetic = synthetic;
		ev.incl_ns = incl;
		ev.excl_ns = incl - f.child_ns;
		ret = func_feed_event(c->ff, &ev);
	}
	if (!c->sf || ret)
		return ret;
	if (reg->routine == -1)
		return c->mpi_depth == 0 ? mpi_scope_feed_leave(c->sf, f.region, ns) : 0;
	if (c->mpi_depth > 0 && --c->mpi_depth == 0 && c->mpi_routine >= 0)
		ret = mpi_scope_feed_mpi_leave(c->sf, (uint32_t)c->mpi_routine, ns);
	return ret;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct oc *c = ud;
	long r = otf2i_lookup(&c->im.region_ix, region);
	int64_t ns = otf2i_ns(&c->im, t);
	size_t i;
	int ret = 0;

	seen(c, ns);
	c->th.function_records++;
	for (i = c->depth; i-- > 0;)
		if ((long)c->st[i].region == r)
			break;
	if (r < 0 || i == (size_t)-1) {
		c->th.unmatched_exits++;
		return OTF2_CALLBACK_SUCCESS;
	}
	while (ret == 0 && c->depth > i + 1)
		ret = close_top(c, ns, 1);
	if (ret == 0)
		ret = close_top(c, ns, 0);
	return ret ? fail(c, ret) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					  uint64_t pos UNUSED, void *ud,
					  OTF2_AttributeList *al UNUSED, OTF2_StringRef name UNUSED,
					  uint32_t n UNUSED, const OTF2_StringRef *args UNUSED)
{
	struct oc *c = ud;

	seen(c, otf2i_ns(&c->im, t));
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
					uint64_t pos UNUSED, void *ud,
					OTF2_AttributeList *al UNUSED, int64_t status UNUSED)
{
	struct oc *c = ud;

	seen(c, otf2i_ns(&c->im, t));
	return OTF2_CALLBACK_SUCCESS;
}

/* The events of location L: its calls fed, the regions left open closed at its last event. */
static int read_location(struct oc *c, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cbs,
			 const struct imp_loc *l)
{
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
	OTF2_ErrorCode code;
	char what[64];
	uint64_t n;
	int ret = 0;

	if (!er)
		return otf2i_fail_otf2(&c->im, OTF2_ERROR_INVALID_ARGUMENT,
				       "opening an event reader");
	c->im.cur = l;
	c->depth = 0;
	c->mpi_depth = 0;
	memset(&c->th, 0, sizeof(c->th));
	c->th.first_ns = 1;
	c->th.last_ns = 0;
	c->th.ended = 1;
	c->th.end_reason = PSC_END_EXIT;
	snprintf(c->th.name, sizeof(c->th.name), "%s", otf2i_string_of(&c->im, l->name));
	if (c->ff)
		ret = func_feed_thread(c->ff, (pid_t)l->rank, (pid_t)l->id);
	if (c->sf && ret == 0)
		ret = mpi_scope_feed_thread(c->sf, l->rank, (pid_t)l->thread);
	if (ret) {
		OTF2_Reader_CloseEvtReader(rd, er);
		return otf2i_fail(&c->im, ret, "%s", strerror(-ret));
	}
	code = OTF2_Reader_RegisterEvtCallbacks(rd, er, cbs, c);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
	OTF2_Reader_CloseEvtReader(rd, er);
	if (c->im.failed)
		return c->ret ? c->ret : -EINVAL;
	if (code != OTF2_SUCCESS) {
		snprintf(what, sizeof(what), "events of location %" PRIu64, l->id);
		return otf2i_fail_otf2(&c->im, code, what);
	}
	while (ret == 0 && c->depth)
		ret = close_top(c, c->th.last_ns, 1);
	if (c->ff)
		func_feed_thread_end(c->ff, &c->th);
	if (c->sf && ret == 0)
		ret = mpi_scope_feed_thread_end(c->sf, c->th.last_ns);
	return ret ? otf2i_fail(&c->im, ret, "%s", strerror(-ret)) : 0;
}

/* Read ANCHOR's definitions and every location's events into C's feeds. */
static int read_archive(struct oc *c, const char *anchor)
{
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, c->im.msg);
	OTF2_EvtReaderCallbacks *cbs = NULL;
	OTF2_Reader *rd;
	OTF2_ErrorCode code;
	int ret;

	c->im.msg[0] = 0;
	rd = OTF2_Reader_Open(anchor);
	if (!rd) {
		ret = otf2i_fail(&c->im, -ENOENT, "cannot open the OTF2 archive%s%s",
				 c->im.msg[0] ? ": " : "", c->im.msg);
		goto out;
	}
	code = OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	ret = code == OTF2_SUCCESS ? 0 : otf2i_fail_otf2(&c->im, code, "opening the archive");
	if (ret == 0)
		ret = otf2i_read_definitions(&c->im, rd);
	if (ret == 0)
		ret = otf2i_read_local_definitions(&c->im, rd);
	if (ret == 0 && c->fp && func_feed_open(&c->ff, c->fp, c->im.nlocs))
		ret = otf2i_fail(&c->im, -ENOMEM, "out of memory");
	if (ret == 0 && c->sp && mpi_scope_feed_open(&c->sf, c->sp, c->m, c->w))
		ret = otf2i_fail(&c->im, -ENOMEM, "out of memory");
	cbs = ret == 0 ? OTF2_EvtReaderCallbacks_New() : NULL;
	if (ret == 0 && !cbs)
		ret = otf2i_fail(&c->im, -ENOMEM, "out of memory");
	if (ret == 0) {
		OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
		OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
		OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cbs, ev_program_begin);
		OTF2_EvtReaderCallbacks_SetProgramEndCallback(cbs, ev_program_end);
		code = OTF2_Reader_OpenEvtFiles(rd);
		if (code != OTF2_SUCCESS)
			ret = otf2i_fail_otf2(&c->im, code, "opening the event files");
	}
	for (size_t i = 0; ret == 0 && i < c->im.nlocs; i++)
		if (c->im.locs[i].rank >= 0)
			ret = read_location(c, rd, cbs, &c->im.locs[i]);
	if (cbs) {
		OTF2_Reader_CloseEvtFiles(rd);
		OTF2_EvtReaderCallbacks_Delete(cbs);
	}
	OTF2_Reader_Close(rd);
out:
	OTF2_Error_RegisterCallback(old, NULL);
	return ret;
}

static void oc_init(struct oc *c, const char *anchor, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	mpi_model_init(&c->defs_model);
	c->im.m = &c->defs_model;
	c->im.anchor = anchor;
	c->im.err = err;
	c->im.errlen = errlen;
}

static void oc_release(struct oc *c)
{
	free(c->st);
	otf2i_release(&c->im);
	mpi_model_release(&c->defs_model);
}

/* Name the rows of P: the regions' names, and their source (file and first line), or the
 * file alone as the module ("MPI" for Score-P's MPI routines). */
static int name_rows(struct func_profile *p, struct str_arena *names, const struct imp *im)
{
	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *row = &p->rows[i];
		const struct imp_region *reg = &im->regions[row->addr];
		const char *file = otf2i_string_of(im, reg->file);
		char *name = arena_printf(names, "%s", otf2i_string_of(im, reg->display));
		char *f = arena_printf(names, "%s", file);

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
	struct oc c;
	int ret;

	oc_init(&c, anchor, err, errlen);
	memset(p, 0, sizeof(*p));
	c.fp = p;
	ret = read_archive(&c, anchor);
	func_feed_close(c.ff);
	if (ret == 0 && name_rows(p, names, &c.im))
		ret = otf2i_fail(&c.im, -ENOMEM, "out of memory");
	/* the experiment's caveat would ask to rebuild the program: it is the archive's tracer */
	p->no_records_caveat =
	    "the archive has no Enter/Leave events: its tracer recorded no "
	    "calls of functions, regions or MPI routines, so there is nothing to "
	    "profile";
	oc_release(&c);
	return ret;
}

int otf2_scope_profile(struct mpi_scope_profile *p, const char *anchor, const struct mpi_model *m,
		       const struct mpi_waits *w, char *err, size_t errlen)
{
	struct oc c;
	int ret;

	oc_init(&c, anchor, err, errlen);
	c.sp = p;
	c.m = m;
	c.w = w;
	ret = read_archive(&c, anchor);
	if (mpi_scope_feed_close(c.sf, ret == 0) && ret == 0)
		ret = otf2i_fail(&c.im, -ENOMEM, "out of memory");
	if (!c.sf)
		memset(p, 0, sizeof(*p));
	oc_release(&c);
	return ret;
}
