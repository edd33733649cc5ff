/* pass.c - one pass over a source's locations, many consumers (pass.h). */
#include "model/pass-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

size_t ev_source_nlocations(const struct ev_source *src)
{
	return src->nlocs;
}

const struct ev_location *ev_source_location(const struct ev_source *src, size_t i)
{
	return i < src->nlocs ? &src->locs[i] : NULL;
}

void ev_source_close(struct ev_source *src)
{
	if (src)
		src->ops->close(src);
}

/* Does consumer C visit LOC? */
static int visits(const struct ev_consumer *c, const struct ev_location *loc)
{
	unsigned where = loc->samples ? EV_LOC_SAMPLES : EV_LOC_STREAMS;

	return !c->locations || (c->locations & where);
}

/* Per kind, the active consumers of P that want it. */
static void dispatch_active(struct ev_pass *p)
{
	struct ev_consumer **slot = p->slots;

	p->wanted = 0;
	for (size_t i = 0; i < p->nactive; i++)
		if (p->active[i]->event)
			p->wanted |= p->active[i]->kinds;
	for (unsigned k = 0; k < EV_NKINDS; k++) {
		p->by_kind[k] = slot;
		p->nby_kind[k] = 0;
		for (size_t i = 0; i < p->nactive; i++)
			if (p->active[i]->event && (p->active[i]->kinds & EV_BIT(k)))
				slot[p->nby_kind[k]++] = p->active[i];
		slot += p->nby_kind[k];
	}
}

/* The dispatch of P for LOC: its consumers, and per kind those that want it. */
static void dispatch(struct ev_pass *p, const struct ev_location *loc)
{
	p->nactive = 0;
	for (size_t i = 0; i < p->n; i++)
		if (visits(p->c[i], loc))
			p->active[p->nactive++] = p->c[i];
	dispatch_active(p);
}

void ev_consumer_release(struct ev_consumer *c)
{
	if (c->release && c->ctx)
		c->release(c->ctx);
	c->ctx = NULL;
}

int ev_pass_begin(struct ev_pass *p, const struct ev_location *loc)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nactive; i++) {
		struct ev_consumer *c = p->active[i];
		int ret = c->location_begin ? c->location_begin(c->ctx, loc, p->err, p->errlen) : 0;

		if (ret < 0 && (ret = ev_pass_failed(p, c, ret)) == 0)
			ret = 1; /* isolated: it visits nothing more */
		if (ret < 0)
			return ret;
		if (ret == 0)
			p->active[kept++] = c;
	}
	if (kept < p->nactive) {
		p->nactive = kept;
		dispatch_active(p);
	}
	return kept ? 0 : 1;
}

int ev_pass_end(struct ev_pass *p, const struct ev_location *loc,
		const struct ev_location_facts *facts)
{
	for (size_t i = 0; i < p->nactive; i++) {
		struct ev_consumer *c = p->active[i];
		int ret = 0;

		if (ev_pass_source_failed(c, facts))
			continue;
		if (c->location_end)
			ret = c->location_end(c->ctx, loc, facts, p->err, p->errlen);
		if (ret < 0 && (ret = ev_pass_failed(p, c, ret)) < 0)
			return ret;
	}
	return 0;
}

const char *ev_location_region_name(const struct ev_location *loc, uint32_t id)
{
	return loc->region_name ? loc->region_name(loc->region_ctx, id) : NULL;
}

int ev_pass_source_error(struct ev_pass *p, int ret, struct ev_location_facts *facts)
{
	if (!(p->flags & EV_PASS_KEEP_GOING) || ret == -ENOMEM)
		return ret;
	facts->error = ret;
	snprintf(facts->errmsg, sizeof(facts->errmsg), "%s", p->err);
	if (p->errlen)
		p->err[0] = 0;
	return 0;
}

int ev_pass_run(struct ev_source *src, struct ev_consumer *const *c, size_t n, char *err,
		size_t errlen)
{
	return ev_pass_run_flags(src, c, n, 0, err, errlen);
}

int ev_pass_run_flags(struct ev_source *src, struct ev_consumer *const *c, size_t n, unsigned flags,
		      char *err, size_t errlen)
{
	struct ev_pass p = {.c = c, .n = n, .flags = flags, .err = err, .errlen = errlen};
	int ret = 0;

	p.active = calloc(n + 1, sizeof(*p.active));
	p.slots = calloc(n * EV_NKINDS + 1, sizeof(*p.slots));
	if (!p.active || !p.slots) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	for (size_t i = 0; ret == 0 && i < src->nlocs; i++) {
		dispatch(&p, &src->locs[i]);
		if (p.nactive)
			ret = src->ops->walk(src, &src->locs[i], &p);
	}
	for (size_t i = 0; ret == 0 && i < n; i++)
		if (c[i]->finish && (ret = c[i]->finish(c[i]->ctx, err, errlen)) < 0)
			ret = ev_pass_failed(&p, c[i], ret);
	free(p.active);
	free(p.slots);
	return ret;
}
