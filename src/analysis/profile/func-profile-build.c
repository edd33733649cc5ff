/*
 * fprofile-build.c - the function profile of an experiment in one pass of its source
 * (func_profile_build, fprofile.h), with the region profile riding along, and the streams an
 * earlier read found inert left unread (func_profile_build_known).
 */
#include "analysis/profile/func-profile.h"

#include "model/pass.h"
#include "analysis/profile/regions.h"
#include "format/stream.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * A consumer in front of the consumers C[0..n) that hands them the streams FACTS (one per
 * stream) say inert from those facts alone (location_begin, then location_end), and declines
 * reading them: what an earlier whole read found (mpi_model_load_facts), for
 * func_profile_build_known.
 */
struct known {
	const struct stream_facts *facts;
	struct ev_consumer *c;
	size_t n;
};

static int known_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	const struct known *k = ctx;
	const struct stream_facts *sf = &k->facts[loc->index];
	struct ev_location_facts f;
	int ret = 0;

	if (!sf->inert)
		return 1; /* the others read it */
	memset(&f, 0, sizeof(f));
	f.ended = sf->ended;
	f.end_reason = sf->end_reason;
	f.truncated_at = sf->truncated_at;
	f.records = sf->nrecords;
	f.first_ns = sf->first_ns;
	f.last_ns = sf->last_ns;
	f.first_ticks = sf->first_ticks;
	f.last_ticks = sf->last_ticks;
	for (size_t i = 0; i < k->n && ret == 0; i++) {
		ret = k->c[i].location_begin(k->c[i].ctx, loc, err, errlen);
		if (ret == 0)
			ret = k->c[i].location_end(k->c[i].ctx, loc, &f, err, errlen);
	}
	return ret < 0 ? ret : 1; /* nobody reads it */
}

/* A consumer INNER that declines the streams FACTS say are inert. */
struct known_skip {
	const struct stream_facts *facts;
	struct ev_consumer inner;
};

static int skip_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct known_skip *ks = ctx;

	if (ks->facts[loc->index].inert)
		return 1;
	return ks->inner.location_begin(ks->inner.ctx, loc, err, errlen);
}

static int skip_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct known_skip *ks = ctx;

	return ks->inner.event(ks->inner.ctx, ev, err, errlen);
}

static int skip_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct known_skip *ks = ctx;

	return ks->inner.events(ks->inner.ctx, ev, n, err, errlen);
}

static int skip_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		    char *err, size_t errlen)
{
	struct known_skip *ks = ctx;

	return ks->inner.location_end(ks->inner.ctx, loc, f, err, errlen);
}

static int skip_finish(void *ctx, char *err, size_t errlen)
{
	struct known_skip *ks = ctx;

	return ks->inner.finish ? ks->inner.finish(ks->inner.ctx, err, errlen) : 0;
}

int func_profile_build(struct func_profile *p, const struct experiment *e, struct symtab *syms,
		       struct region_profile *regions, const struct func_energy *energy, char *err,
		       size_t errlen)
{
	return func_profile_build_known(p, e, syms, regions, energy, NULL, err, errlen);
}

int func_profile_build_known(struct func_profile *p, const struct experiment *e,
			     struct symtab *syms, struct region_profile *regions,
			     const struct func_energy *energy, const struct stream_facts *facts,
			     char *err, size_t errlen)
{
	struct ev_consumer c[2] = {{0}, {0}}, wrap[2], kc, *list[3];
	struct known_skip ks[2];
	struct known k;
	struct ev_source *src;
	size_t n = 0;
	int ret = ev_source_experiment(&src, e, err, errlen);

	if (ret < 0) {
		memset(p, 0, sizeof(*p));
		return ret;
	}
	ret = func_profile_consumer(&c[n++], p, syms, energy, ev_source_nlocations(src));
	if (ret == 0 && regions)
		ret = region_profile_consumer(&c[n++], regions, e);
	for (size_t i = 0; i < n; i++) {
		/* with facts: the streams they say inert are not read, the others as they are */
		ks[i] = (struct known_skip){facts, c[i]};
		wrap[i] = c[i];
		wrap[i].ctx = &ks[i];
		wrap[i].location_begin = skip_begin;
		wrap[i].event = skip_event;
		wrap[i].events = c[i].events ? skip_events : NULL;
		wrap[i].location_end = skip_end;
		wrap[i].finish = skip_finish;
		list[i] = facts ? &wrap[i] : &c[i];
	}
	k = (struct known){facts, c, n};
	kc = (struct ev_consumer){
	    .name = "known", .ctx = &k, .location_begin = known_begin, .locations = EV_LOC_STREAMS};
	if (facts)
		list[n] = &kc;
	if (ret == 0)
		ret = ev_pass_run(src, list, n + (facts != NULL), err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++)
		ev_consumer_release(&c[i]);
	ev_source_close(src);
	return ret;
}
