/* pass-isolate.c - a consumer whose failure is its own: the pass goes on for the others. */
#include "model/pass-int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The callbacks of a consumer that failed: it declines every location and takes nothing. */
static int off_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	(void)ctx, (void)loc, (void)err, (void)errlen;
	return 1;
}

static int off_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	(void)ctx, (void)ev, (void)err, (void)errlen;
	return 0;
}

static int off_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	(void)ctx, (void)ev, (void)n, (void)err, (void)errlen;
	return 0;
}

/* C, isolated, failed with RET and the message MSG: kept, and C turned off. */
static void isolate_fail(struct ev_consumer *c, int ret, const char *msg)
{
	struct ev_isolated *iso = c->isolated;

	iso->ret = ret;
	snprintf(iso->msg, sizeof(iso->msg), "%s", msg && msg[0] ? msg : strerror(-ret));
	c->location_begin = off_begin;
	c->event = off_event;
	if (c->events)
		c->events = off_events;
	c->location_end = NULL;
	c->finish = NULL;
}

int ev_pass_failed(struct ev_pass *p, struct ev_consumer *c, int ret)
{
	if (!c->isolated || ret == -ENOMEM)
		return ret;
	if (!c->isolated->ret) /* its first failure is the one kept */
		isolate_fail(c, ret, p->err);
	if (p->errlen)
		p->err[0] = 0;
	return 0;
}

int ev_pass_source_failed(struct ev_consumer *c, const struct ev_location_facts *facts)
{
	if (!c->isolated || !c->isolated->source_errors || !facts->error)
		return 0;
	if (!c->isolated->ret) /* failed already: its own error stays the one kept */
		isolate_fail(c, facts->error, facts->errmsg);
	return 1;
}

void ev_consumer_isolate(struct ev_consumer *out, struct ev_isolated *iso,
			 const struct ev_consumer *inner, int source_errors)
{
	iso->source_errors = source_errors;
	iso->ret = 0;
	iso->msg[0] = 0;
	*out = *inner;
	out->isolated = iso;
}
