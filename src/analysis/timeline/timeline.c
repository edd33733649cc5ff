/* timeline.c - per-interval event rates and function shares from samples. */
#include "analysis/timeline/timeline.h"
#include "lib/array.h"
#include "model/pass.h"
#include "analysis/profile/sample-profile.h"
#include "format/stream.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_INTERVAL_NS 1000000u
#define MAX_INTERVALS	1000000u

struct pass {
	struct timeline *t;
	struct symtab *syms;
	struct kallsyms ksyms; /* the experiment's, for kernel IPs */
	struct strmap fids;    /* name -> function id (keys: names) */
	struct u64map counts;  /* (thread, interval, fid) -> samples */
	char **names;
	uint64_t *totals; /* per function id */
	size_t nnames, names_cap, totals_cap;
};

/* A hundredth of SPAN, rounded down to 1, 2 or 5 x 10^k, at least 1 ms. */
static uint64_t default_interval(uint64_t span)
{
	uint64_t target = span / 100, p = 1;

	while (p <= target / 10)
		p *= 10;
	if (5 * p <= target)
		p *= 5;
	else if (2 * p <= target)
		p *= 2;
	return p < MIN_INTERVAL_NS ? MIN_INTERVAL_NS : p;
}

static size_t interval_of(const struct timeline *t, uint64_t ns)
{
	uint64_t i = ns > t->start_ns ? (ns - t->start_ns) / t->interval_ns : 0;

	return i < t->nintervals ? (size_t)i : t->nintervals - 1;
}

void timeline_interval(const struct timeline *t, size_t i, uint64_t *from, uint64_t *to)
{
	uint64_t span = t->end_ns - t->start_ns;

	*from = (uint64_t)i * t->interval_ns;
	*to = *from + t->interval_ns;
	if (i + 1 == t->nintervals && *to > span)
		*to = span > *from ? span : *from + 1;
}

/* Spread DELTA over [from, to] in proportion to the overlap with each interval. */
static void spread(struct timeline *t, size_t th, uint32_t k, uint64_t from, uint64_t to,
		   double delta)
{
	size_t a = interval_of(t, from), b = interval_of(t, to);
	double span = (double)(to - from);

	if (a == b || to <= from) {
		t->values[(th * t->nintervals + b) * t->nevents + k] += delta;
		return;
	}
	for (size_t i = a; i <= b; i++) {
		uint64_t lo = t->start_ns + (uint64_t)i * t->interval_ns, hi = lo + t->interval_ns;

		if (lo < from)
			lo = from;
		if (hi > to || i == b)
			hi = to;
		t->values[(th * t->nintervals + i) * t->nevents + k] +=
		    delta * (double)(hi - lo) / span;
	}
}

/*
 * Spread DELTA over the spans of S (the times its thread counted it) in proportion to their
 * lengths: over the thread's on-CPU time, where the file has switch records.
 */
static void spread_spans(struct timeline *t, const struct sample *s, uint32_t k, double delta)
{
	uint64_t total = 0;

	for (size_t i = 0; i < s->nspans; i++)
		total += s->spans[2 * i + 1] - s->spans[2 * i];
	if (!total) {
		spread(t, s->thread, k, s->ns, s->ns, delta);
		return;
	}
	for (size_t i = 0; i < s->nspans; i++) {
		uint64_t from = s->spans[2 * i], to = s->spans[2 * i + 1];

		if (to > from)
			spread(t, s->thread, k, from, to,
			       delta * (double)(to - from) / (double)total);
	}
}

/* Id of the function named NAME (interned). SIZE_MAX when out of memory. */
static size_t function_id(struct pass *ps, const char *name)
{
	size_t v;

	if (strmap_get(&ps->fids, name, &v))
		return v;
	if (ARRAY_GROW(ps->names, ps->nnames + 1, ps->names_cap) ||
	    ARRAY_GROW(ps->totals, ps->nnames + 1, ps->totals_cap))
		return SIZE_MAX;
	ps->names[ps->nnames] = strdup(name);
	ps->totals[ps->nnames] = 0;
	if (!ps->names[ps->nnames] || strmap_put(&ps->fids, ps->names[ps->nnames], ps->nnames))
		return SIZE_MAX;
	return ps->nnames++;
}

static int on_sample(void *ctx, const struct sample *s)
{
	struct pass *ps = ctx;
	struct timeline *t = ps->t;
	size_t i = interval_of(t, s->ns), fid;
	struct sym_info sym;
	char label[256];
	uint64_t key, v = 0;

	for (uint32_t k = 0; k < t->nevents; k++)
		if (s->delta[k])
			spread_spans(t, s, k, (double)s->delta[k]);
	if (s->group != 0)
		return 0;
	t->samples[s->thread * t->nintervals + i]++;
	if (s->kernel)
		sample_kernel_sym(&ps->ksyms, s->ip, &sym);
	else if (symtab_lookup_at(ps->syms, s->pid, s->image, s->ip, (int64_t)s->ns, &sym))
		return -ENOMEM;
	fid = function_id(ps, sample_function_name(&sym, label, sizeof(label)));
	if (fid == SIZE_MAX || fid >= (1u << 24))
		return -ENOMEM;
	ps->totals[fid]++;
	key = ((uint64_t)(s->thread * t->nintervals + i) << 24) | fid;
	u64map_get(&ps->counts, key, &v);
	return u64map_put(&ps->counts, key, v + 1);
}

/* Keep the TOP functions with the most samples; the rest become "other". */
static int fold_functions(struct pass *ps, size_t top, size_t nthreads)
{
	struct timeline *t = ps->t;
	size_t *rank = malloc((ps->nnames + 1) * sizeof(*rank)), n = 0;

	if (!rank)
		return -ENOMEM;
	for (size_t f = 0; f < ps->nnames; f++)
		rank[f] = SIZE_MAX;
	t->nfuncs = top < ps->nnames ? top : ps->nnames;
	t->funcs = calloc(t->nfuncs + 1, sizeof(*t->funcs));
	t->fsamples = calloc(nthreads * t->nintervals * (t->nfuncs + 1) + 1, sizeof(uint64_t));
	if (!t->funcs || !t->fsamples) {
		free(rank);
		return -ENOMEM;
	}
	for (; n < t->nfuncs; n++) {
		size_t best = SIZE_MAX;

		for (size_t f = 0; f < ps->nnames; f++)
			if (rank[f] == SIZE_MAX &&
			    (best == SIZE_MAX || ps->totals[f] > ps->totals[best]))
				best = f;
		rank[best] = n;
		t->funcs[n] = ps->names[best];
		ps->names[best] = NULL;
	}
	for (size_t slot = 0; slot < ps->counts.cap; slot++) {
		uint64_t key = ps->counts.keys[slot], cell, f;

		if (!ps->counts.used[slot])
			continue;
		cell = key >> 24;
		f = rank[key & 0xffffff];
		t->fsamples[cell * (t->nfuncs + 1) + (f == SIZE_MAX ? t->nfuncs : f)] +=
		    ps->counts.vals[slot];
	}
	free(rank);
	return 0;
}

static int region_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct timeline *t = ctx;
	struct timeline_region *g;

	if (ARRAY_GROW(t->regions, t->nregions + 1, t->regions_cap)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	g = &t->regions[t->nregions++];
	g->ns = (uint64_t)ev->ns;
	g->pid = ev->loc->pid;
	g->tid = ev->loc->tid;
	g->enter = ev->kind == EV_REGION_ENTER;
	snprintf(g->name, sizeof(g->name), "%s", ev->region.name ? ev->region.name : "?");
	return 0;
}

/* The regions the program recorded, in CLOCK_MONOTONIC ns: one pass over the streams. */
static int read_regions(struct timeline *t, const struct experiment *e, char *err, size_t errlen)
{
	struct ev_consumer c = {.name = "timeline regions",
				.kinds = EV_BIT(EV_REGION_ENTER) | EV_BIT(EV_REGION_EXIT),
				.locations = EV_LOC_STREAMS,
				.ctx = t,
				.event = region_event},
			   *list[] = {&c};

	return ev_pass_experiment(e, list, 1, 0, err, errlen);
}

int timeline_build(struct timeline *t, const struct experiment *e, struct symtab *syms,
		   uint64_t interval_ns, size_t top, char *err, size_t errlen)
{
	struct pass ps = {.t = t, .syms = syms};
	size_t nthreads;
	int ret;

	memset(t, 0, sizeof(*t));
	/* a first pass finds the span and the threads, so the arrays have their final size */
	ret = samples_walk(e, &t->walk, NULL, NULL, err, errlen);
	t->start_ns = t->walk.start_ns;
	t->end_ns = t->walk.end_ns > t->start_ns ? t->walk.end_ns : t->start_ns + 1;
	nthreads = t->walk.nthreads;
	sample_walk_release(&t->walk);
	if (ret)
		return ret;
	t->nevents = (uint32_t)e->sampling.nevents;
	t->interval_ns = interval_ns ? interval_ns : default_interval(t->end_ns - t->start_ns);
	t->nintervals = (size_t)((t->end_ns - t->start_ns + t->interval_ns - 1) / t->interval_ns);
	if (t->nintervals > MAX_INTERVALS) {
		snprintf(
		    err, errlen,
		    "%zu intervals of %llu ns: give a longer --interval (at most %u intervals)",
		    t->nintervals, (unsigned long long)t->interval_ns, MAX_INTERVALS);
		return -EINVAL;
	}
	t->values = calloc(nthreads * t->nintervals * t->nevents + 1, sizeof(double));
	t->samples = calloc(nthreads * t->nintervals + 1, sizeof(uint64_t));
	if (!t->values || !t->samples) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = kallsyms_load(&ps.ksyms, e->dir, err, errlen);
	if (!ret)
		ret = samples_walk(e, &t->walk, on_sample, &ps, err, errlen);
	if (ret == -ENOMEM && !*err)
		snprintf(err, errlen, "out of memory");
	if (!ret && (ret = fold_functions(&ps, top, t->walk.nthreads)))
		snprintf(err, errlen, "out of memory");
	if (!ret)
		ret = read_regions(t, e, err, errlen);
	for (size_t f = 0; f < ps.nnames; f++)
		free(ps.names[f]);
	free(ps.names);
	free(ps.totals);
	strmap_release(&ps.fids);
	u64map_release(&ps.counts);
	kallsyms_release(&ps.ksyms);
	return ret;
}

void timeline_release(struct timeline *t)
{
	sample_walk_release(&t->walk);
	for (size_t f = 0; f < t->nfuncs; f++)
		free(t->funcs[f]);
	free(t->funcs);
	free(t->fsamples);
	free(t->values);
	free(t->samples);
	free(t->regions);
	memset(t, 0, sizeof(*t));
}
