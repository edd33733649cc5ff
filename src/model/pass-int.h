/*
 * pass-int.h - what a source (source-exp.c, source-otf2.c) and the pass (pass.c) share: the
 * source's ops and the pass's dispatch state, with the inline hand-out of one event.
 */
#ifndef PSC_MODEL_PASS_INT_H
#define PSC_MODEL_PASS_INT_H

#include "model/pass.h"

struct ev_pass;

struct ev_source_ops {
	/* Walk location LOC: open it, ev_pass_begin(), its events through ev_emit(), then
	 * ev_pass_end() with its facts. 0, or a negative errno with the message in P->err. */
	int (*walk)(struct ev_source *src, struct ev_location *loc, struct ev_pass *p);
	void (*close)(struct ev_source *src);
};

struct ev_source {
	const struct ev_source_ops *ops;
	struct ev_location *locs;
	size_t nlocs;
	void *priv; /* the source's own state */
};

/* The consumers of the location being walked, per kind. */
struct ev_pass {
	struct ev_consumer *const *c;
	size_t n;
	struct ev_consumer **active; /* those that visit this location */
	size_t nactive;
	struct ev_consumer **by_kind[EV_NKINDS]; /* each a slice of `slots` */
	size_t nby_kind[EV_NKINDS];
	struct ev_consumer **slots;
	uint64_t wanted; /* EV_BIT()s some active consumer wants */
	unsigned flags;	 /* EV_PASS_* */
	char *err;
	size_t errlen;
};

/* Does some consumer of the location want events of KIND? (to skip decoding them) */
static inline int ev_wanted(const struct ev_pass *p, enum ev_kind kind)
{
	return (p->wanted & EV_BIT(kind)) != 0;
}

/* Consumer C of P failed with RET (message in P->err): RET when that stops the pass, or 0 when
 * C is isolated (its failure kept, its callbacks turned off, P->err cleared). */
int ev_pass_failed(struct ev_pass *p, struct ev_consumer *c, int ret);

/* Consumer C, at the end of a location with FACTS: 1 when it is isolated with source errors
 * (ev_consumer_isolate) and the location ended in one, which then failed C; else 0. */
int ev_pass_source_failed(struct ev_consumer *c, const struct ev_location_facts *facts);

/* Hand EV to every consumer of the location that wants its kind: 0 or the first one's error. */
static inline int ev_emit(struct ev_pass *p, const struct event *ev)
{
	struct ev_consumer **c = p->by_kind[ev->kind];
	size_t n = p->nby_kind[ev->kind];

	if (n == 1) { /* the common case, without the loop */
		int ret = c[0]->event(c[0]->ctx, ev, p->err, p->errlen);

		return ret < 0 ? ev_pass_failed(p, c[0], ret) : 0;
	}
	for (size_t i = 0; i < n; i++) {
		int ret = c[i]->event(c[i]->ctx, ev, p->err, p->errlen);

		if (ret < 0 && (ret = ev_pass_failed(p, c[i], ret)) < 0)
			return ret;
	}
	return 0;
}

/* How many call events a source gathers for ev_emit_calls(). */
#define EV_CALL_BATCH 64

/* The consumer that takes the location's calls in batches (ev_consumer.events): the only one
 * wanting either call kind, wanting both; NULL when there is none. */
static inline struct ev_consumer *ev_call_batcher(const struct ev_pass *p)
{
	struct ev_consumer *c;

	if (p->nby_kind[EV_CALL_ENTER] != 1 || p->nby_kind[EV_CALL_EXIT] != 1)
		return NULL;
	c = p->by_kind[EV_CALL_ENTER][0];
	return c == p->by_kind[EV_CALL_EXIT][0] && c->events ? c : NULL;
}

/* The N call events EV[0..n) to C, the batcher of the location: 0 or its error. */
static inline int ev_emit_calls(struct ev_pass *p, struct ev_consumer *c, const struct event *ev,
				size_t n)
{
	int ret = n ? c->events(c->ctx, ev, n, p->err, p->errlen) : 0;

	return ret < 0 ? ev_pass_failed(p, c, ret) : 0;
}

/* The location's consumers' location_begin, once the source opened it: 0, 1 when every one
 * declined it (the source reads no further and ends no location), or a negative errno. */
int ev_pass_begin(struct ev_pass *p, const struct ev_location *loc);

/* A source error RET (message in P->err) while reading LOC: RET itself, or 0 when the pass
 * keeps going past it (EV_PASS_KEEP_GOING, not -ENOMEM), with it then put into FACTS and
 * P->err cleared. */
int ev_pass_source_error(struct ev_pass *p, int ret, struct ev_location_facts *facts);

/* Their location_end with FACTS. */
int ev_pass_end(struct ev_pass *p, const struct ev_location *loc,
		const struct ev_location_facts *facts);

#endif /* PSC_MODEL_PASS_INT_H */
