/*
 * otf2-calls.c - the profiles of an OTF2 archive's calls (otf2-calls.h): the function profile
 * by func-profile.c's consumer with its rows named from the archive's regions, the scope
 * profile as a consumer feeding mpi-scope.c; both from the archive source (source-otf2.c).
 */
#include "model/otf2-calls.h"
#include "model/otf2-imp.h"
#include "model/pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the function profile ---- */

int otf2_func_profile_name(struct func_profile *p, struct str_arena *names,
			   const struct ev_source *src)
{
	/* the experiment's caveat would ask to rebuild the program: it is the archive's tracer */
	p->no_records_caveat =
	    "the archive has no Enter/Leave events: its tracer recorded no "
	    "calls of functions, regions or MPI routines, so there is nothing to "
	    "profile";
	for (size_t i = 0; i < p->nrows; i++) {
		struct func_row *row = &p->rows[i];
		const struct otf2_region *reg = otf2_source_region(src, (uint32_t)row->addr);
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
	struct ev_consumer c = {0}, *list[1] = {&c};
	struct ev_source *src;
	int ret = ev_source_otf2(&src, anchor, err, errlen);

	memset(p, 0, sizeof(*p));
	if (ret < 0)
		return ret;
	ret = func_profile_consumer(&c, p, NULL, NULL, ev_source_nlocations(src));
	if (ret == 0)
		ret = ev_pass_run(src, list, 1, err, errlen);
	else
		snprintf(err, errlen, "%s: out of memory", anchor);
	ev_consumer_release(&c);
	if (ret == 0 && otf2_func_profile_name(p, names, src)) {
		snprintf(err, errlen, "%s: out of memory", anchor);
		ret = -ENOMEM;
	}
	ev_source_close(src);
	return ret;
}

/* ---- the scope profile ---- */

/* The consumer's state (otf2_scope_consumer). */
struct otf2_scope_state {
	const struct ev_source *src;
	struct mpi_scope_feed *sf;
	int mpi_depth;	     /* MPI regions open: nested ones belong to the outermost */
	int32_t mpi_routine; /* the outermost's routine */
};

/* The message of the consumer's failure RET, as the archive's. */
static void sc_fail(const struct otf2_scope_state *c, int ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", otf2_source_anchor(c->src),
		 ret == -ENOMEM ? "out of memory" : strerror(-ret));
}

static int sc_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct otf2_scope_state *c = ctx;
	int ret;

	c->mpi_depth = 0;
	ret = mpi_scope_feed_thread(c->sf, loc->rank, (pid_t)otf2_source_thread(c->src, loc));
	if (ret < 0)
		sc_fail(c, ret, err, errlen);
	return ret;
}

/* A call's enter or exit EV into the profile: an MPI routine's outermost region as the routine
 * (the regions nested in it belong to it), the other regions as scopes. */
static int sc_call(struct otf2_scope_state *c, const struct event *ev)
{
	const struct otf2_region *reg = otf2_source_region(c->src, (uint32_t)ev->call.addr);
	int leave = ev->kind == EV_CALL_EXIT;

	if (reg->routine != -1 && !leave) {
		if (c->mpi_depth++ == 0) {
			c->mpi_routine = reg->routine;
			if (reg->routine >= 0)
				mpi_scope_feed_mpi_enter(c->sf, (uint32_t)reg->routine, ev->ns);
		}
		return 0;
	}
	if (reg->routine != -1)
		return c->mpi_depth > 0 && --c->mpi_depth == 0 && c->mpi_routine >= 0
			   ? mpi_scope_feed_mpi_leave(c->sf, (uint32_t)c->mpi_routine, ev->ns)
			   : 0;
	if (c->mpi_depth)
		return 0;
	if (leave)
		return mpi_scope_feed_leave(c->sf, ev->call.addr, ev->ns);
	return mpi_scope_feed_enter(c->sf, reg->function ? MPI_SCOPE_FUNCTION : MPI_SCOPE_REGION,
				    reg->name, ev->call.addr, ev->ns);
}

static int sc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct otf2_scope_state *c = ctx;
	int ret = sc_call(c, ev);

	if (ret < 0)
		sc_fail(c, ret, err, errlen);
	return ret;
}

static int sc_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int ret = sc_event(ctx, &ev[i], err, errlen);

		if (ret < 0)
			return ret;
	}
	return 0;
}

static int sc_end(void *ctx, const struct ev_location *loc UNUSED,
		  const struct ev_location_facts *f, char *err, size_t errlen)
{
	struct otf2_scope_state *c = ctx;
	int ret = mpi_scope_feed_thread_end(c->sf, f->last_ns);

	if (ret < 0)
		sc_fail(c, ret, err, errlen);
	return ret;
}

/* The profile finished: sorted, summed over the ranks. */
static int sc_finish(void *ctx, char *err, size_t errlen)
{
	struct otf2_scope_state *c = ctx;
	int ret = mpi_scope_feed_close(c->sf, 1);

	c->sf = NULL;
	if (ret < 0)
		sc_fail(c, ret, err, errlen);
	return ret;
}

/* A pass that did not finish: the profile released with the feed. */
static void sc_release(void *ctx)
{
	struct otf2_scope_state *c = ctx;

	mpi_scope_feed_close(c->sf, 0);
	free(c);
}

int otf2_scope_consumer(struct ev_consumer *out, struct mpi_scope_profile *p,
			const struct ev_source *src, const struct mpi_model *m,
			const struct mpi_waits *w)
{
	struct otf2_scope_state *c = calloc(1, sizeof(*c));

	*out = (struct ev_consumer){.name = "scopes",
				    .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT),
				    .ctx = c,
				    .location_begin = sc_begin,
				    .event = sc_event,
				    .events = sc_events,
				    .location_end = sc_end,
				    .finish = sc_finish,
				    .release = sc_release};
	if (!c || mpi_scope_feed_open(&c->sf, p, m, w)) {
		memset(p, 0, sizeof(*p));
		return -ENOMEM;
	}
	c->src = src;
	return 0;
}

int otf2_scope_profile(struct mpi_scope_profile *p, const char *anchor, const struct mpi_model *m,
		       const struct mpi_waits *wt, char *err, size_t errlen)
{
	struct ev_consumer c = {0}, *list[1] = {&c};
	struct ev_source *src;
	int ret = ev_source_otf2(&src, anchor, err, errlen);

	if (ret < 0) {
		memset(p, 0, sizeof(*p));
		return ret;
	}
	ret = otf2_scope_consumer(&c, p, src, m, wt);
	if (ret == 0)
		ret = ev_pass_run(src, list, 1, err, errlen);
	else
		snprintf(err, errlen, "%s: out of memory", anchor);
	ev_consumer_release(&c);
	ev_source_close(src);
	return ret;
}
