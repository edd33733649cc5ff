/* pass-isolate.c - a consumer whose failure is its own: the pass goes on for the others. */
#include "model/pass.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* INNER of ISO failed with RET (message in ERR): kept, and ERR cleared for the pass. A
 * failure for want of memory stops the pass: RET; else 0. */
static int fail(struct ev_isolated *iso, int ret, char *err, size_t errlen)
{
	if (ret == -ENOMEM)
		return ret;
	iso->ret = ret;
	snprintf(iso->msg, sizeof(iso->msg), "%s", err && err[0] ? err : strerror(-ret));
	if (errlen)
		err[0] = 0;
	return 0;
}

static int iso_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct ev_isolated *iso = ctx;
	int ret;

	if (iso->ret)
		return 1;
	if (!iso->inner.location_begin)
		return 0;
	ret = iso->inner.location_begin(iso->inner.ctx, loc, err, errlen);
	if (ret >= 0)
		return ret;
	return fail(iso, ret, err, errlen) < 0 ? -ENOMEM : 1;
}

static int iso_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct ev_isolated *iso = ctx;
	int ret;

	if (iso->ret || !iso->inner.event)
		return 0;
	ret = iso->inner.event(iso->inner.ctx, ev, err, errlen);
	return ret < 0 ? fail(iso, ret, err, errlen) : 0;
}

static int iso_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct ev_isolated *iso = ctx;
	int ret;

	if (iso->ret)
		return 0;
	ret = iso->inner.events(iso->inner.ctx, ev, n, err, errlen);
	return ret < 0 ? fail(iso, ret, err, errlen) : 0;
}

static int iso_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		   char *err, size_t errlen)
{
	struct ev_isolated *iso = ctx;
	int ret;

	if (iso->ret)
		return 0;
	if (iso->source_errors && f->error) {
		iso->ret = f->error;
		snprintf(iso->msg, sizeof(iso->msg), "%s", f->errmsg);
		return 0;
	}
	if (!iso->inner.location_end)
		return 0;
	ret = iso->inner.location_end(iso->inner.ctx, loc, f, err, errlen);
	return ret < 0 ? fail(iso, ret, err, errlen) : 0;
}

static int iso_finish(void *ctx, char *err, size_t errlen)
{
	struct ev_isolated *iso = ctx;
	int ret;

	if (iso->ret || !iso->inner.finish)
		return 0;
	ret = iso->inner.finish(iso->inner.ctx, err, errlen);
	return ret < 0 ? fail(iso, ret, err, errlen) : 0;
}

static void iso_release(void *ctx)
{
	ev_consumer_release(&((struct ev_isolated *)ctx)->inner);
}

void ev_consumer_isolate(struct ev_consumer *out, struct ev_isolated *iso,
			 const struct ev_consumer *inner, int source_errors)
{
	iso->inner = *inner;
	iso->source_errors = source_errors;
	iso->ret = 0;
	iso->msg[0] = 0;
	*out = (struct ev_consumer){.name = inner->name,
				    .kinds = inner->kinds,
				    .locations = inner->locations,
				    .ctx = iso,
				    .location_begin = iso_begin,
				    .event = iso_event,
				    .events = inner->events ? iso_events : NULL,
				    .location_end = iso_end,
				    .finish = iso_finish,
				    .release = iso_release};
}
