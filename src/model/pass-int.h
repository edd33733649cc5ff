/*
 * pass-int.h - what a source (source-exp.c, source-otf2.c) and the pass (pass.c) share: the
 * source's ops and the pass's dispatch state, with the inline hand-out of one event.
 */
#ifndef PSC_MODEL_PASS_INT_H
#define PSC_MODEL_PASS_INT_H

#include "pass.h"

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
	char *err;
	size_t errlen;
};

/* Does some consumer of the location want events of KIND? (to skip decoding them) */
static inline int ev_wanted(const struct ev_pass *p, enum ev_kind kind)
{
	return (p->wanted & EV_BIT(kind)) != 0;
}

/* Hand EV to every consumer of the location that wants its kind: 0 or the first one's error. */
static inline int ev_emit(struct ev_pass *p, const struct event *ev)
{
	struct ev_consumer **c = p->by_kind[ev->kind];
	size_t n = p->nby_kind[ev->kind];

	if (n == 1) { /* the common case, without the loop */
		int ret = c[0]->event(c[0]->ctx, ev, p->err, p->errlen);

		return ret < 0 ? ret : 0;
	}
	for (size_t i = 0; i < n; i++) {
		int ret = c[i]->event(c[i]->ctx, ev, p->err, p->errlen);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The location's consumers' location_begin, once the source opened it: 0, 1 when every one
 * declined it (the source reads no further and ends no location), or a negative errno. */
int ev_pass_begin(struct ev_pass *p, const struct ev_location *loc);

/* Their location_end with FACTS. */
int ev_pass_end(struct ev_pass *p, const struct ev_location *loc,
		const struct ev_location_facts *facts);

#endif /* PSC_MODEL_PASS_INT_H */
