/* html-counters.c - the report's "counters" data: the sampled events over time as
 * `perfscope timeline` builds them (timeline.h), summed over threads, with the samples of the
 * top functions per interval and the markers (exec, exit, throttling, regions). */
#include "html/html-int.h"

#include "analysis/timeline/timeline.h"
#include "model/session.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Markers written at most (vertical lines on every chart): a region in a hot loop would
 * otherwise make millions and hang the page. Also the most region names listed. */
#define HTML_COUNTERS_MARKERS 1000

static const char *marker_name(int kind)
{
	static const char *const names[] = {"exec", "exit", "throttled", "unthrottled"};

	return kind >= 0 && kind < 4 ? names[kind] : "?";
}

/* Event K was not sampled (not supported here): unknown, not 0. */
static int missing(const struct experiment *e, uint32_t k)
{
	return k < e->sampling.nevents && !strcmp(e->sampling.states[k], "not supported");
}

/* "intervals" of T: "t_ns" (n + 1 edges), "samples" per interval, "rates" per event (per
 * second, threads summed; null for an event not counted), "functions" and "fsamples"
 * [function][interval], threads summed. */
static void intervals_json(struct jsonw *w, const struct experiment *e, const struct timeline *t)
{
	size_t n = t->nintervals, nf = t->nfuncs + 1, nth = t->walk.nthreads;
	uint64_t from = 0, to = 0;

	jsonw_key(w, "t_ns");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		timeline_interval(t, i, &from, &to);
		jsonw_u64(w, from);
	}
	jsonw_u64(w, to);
	jsonw_array_end(w);
	jsonw_key(w, "samples");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		uint64_t s = 0;

		for (size_t th = 0; th < nth; th++)
			s += t->samples[th * n + i];
		jsonw_u64(w, s);
	}
	jsonw_array_end(w);
	jsonw_key(w, "rates");
	jsonw_array_begin(w);
	for (uint32_t k = 0; k < t->nevents; k++) {
		if (missing(e, k)) {
			jsonw_null(w);
			continue;
		}
		jsonw_array_begin(w);
		for (size_t i = 0; i < n; i++) {
			double v = 0;

			timeline_interval(t, i, &from, &to);
			for (size_t th = 0; th < nth; th++)
				v += timeline_value(t, th, i, k);
			jsonw_double(w, to > from ? round(v * 1e9 / (double)(to - from)) : 0);
		}
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "functions");
	jsonw_array_begin(w);
	for (size_t f = 0; f < nf; f++)
		jsonw_string(w, f < t->nfuncs ? t->funcs[f] : "other");
	jsonw_array_end(w);
	jsonw_key(w, "fsamples");
	jsonw_array_begin(w);
	for (size_t f = 0; f < nf; f++) {
		jsonw_array_begin(w);
		for (size_t i = 0; i < n; i++) {
			uint64_t s = 0;

			for (size_t th = 0; th < nth; th++)
				s += t->fsamples[(th * n + i) * nf + f];
			jsonw_u64(w, s);
		}
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
}

/* A marker to write: where it comes from (the walk's markers, or the regions) and when. */
struct marker_ref {
	uint64_t ns;
	int region; /* 0: t->walk.markers[i], 1: t->regions[i] */
	size_t i;
};

/* By kind (exec, exit and throttling before regions, so a program's few process markers
 * survive a region in a hot loop), then time, then order of reading. */
static int cmp_kept(const void *pa, const void *pb)
{
	const struct marker_ref *a = pa, *b = pb;

	if (a->region != b->region)
		return a->region - b->region;
	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* By time, then kind and order of reading: the order markers are written in. */
static int cmp_time(const void *pa, const void *pb)
{
	const struct marker_ref *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	if (a->region != b->region)
		return a->region - b->region;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Region records by name, then order of reading (CTX: the regions). */
static int cmp_region_name(const void *pa, const void *pb, void *ctx)
{
	const struct timeline_region *g = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = strcmp(g[a].name, g[b].name);

	return c ? c : (a > b) - (a < b);
}

/* A region name's records: the first one's index, begins, ends. */
struct region_count {
	size_t first;
	uint64_t begins, ends;
};

static int cmp_first(const void *pa, const void *pb)
{
	const struct region_count *a = pa, *b = pb;

	return (a->first > b->first) - (a->first < b->first);
}

/* "regions": each region name once with its begins and ends in the whole run (markers cut by
 * the budget included), in order of first appearance; at most HTML_COUNTERS_MARKERS names. */
static int regions_json(struct jsonw *w, struct html_input *in, const struct timeline *t)
{
	size_t n = t->nregions, ng = 0;
	size_t *idx = malloc((n + 1) * sizeof(*idx));
	struct region_count *g = malloc((n + 1) * sizeof(*g));

	if (!idx || !g) {
		free(idx);
		free(g);
		return -ENOMEM;
	}
	for (size_t r = 0; r < n; r++)
		idx[r] = r;
	qsort_r(idx, n, sizeof(*idx), cmp_region_name, t->regions);
	for (size_t i = 0; i < n; i++) {
		const struct timeline_region *r = &t->regions[idx[i]];

		if (!i || strcmp(r->name, t->regions[idx[i - 1]].name))
			g[ng++] = (struct region_count){idx[i], 0, 0};
		g[ng - 1].begins += r->enter != 0;
		g[ng - 1].ends += r->enter == 0;
	}
	qsort(g, ng, sizeof(*g), cmp_first);
	jsonw_key(w, "regions");
	jsonw_array_begin(w);
	for (size_t k = 0; k < ng && k < HTML_COUNTERS_MARKERS; k++) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", t->regions[g[k].first].name);
		jsonw_kv_u64(w, "begins", g[k].begins);
		jsonw_kv_u64(w, "ends", g[k].ends);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	if (ng > HTML_COUNTERS_MARKERS)
		html_caveat(in, "Counters over time: %zu region names, the first %d listed", ng,
			    HTML_COUNTERS_MARKERS);
	free(idx);
	free(g);
	return 0;
}

/* "markers": the program's exec and exit, throttling, and its regions' begins and ends, in
 * ns since the start (a region record before the start is clamped to 0), in time order. At
 * most HTML_COUNTERS_MARKERS: process markers first, then the earliest region records; the
 * others are counted in "markers_dropped" and a caveat. */
static int markers_json(struct jsonw *w, struct html_input *in, const struct timeline *t)
{
	size_t n = t->walk.nmarkers + t->nregions, keep = n, k = 0;
	struct marker_ref *refs = malloc((n + 1) * sizeof(*refs));

	if (!refs)
		return -ENOMEM;
	for (size_t m = 0; m < t->walk.nmarkers; m++)
		refs[k++] = (struct marker_ref){t->walk.markers[m].ns, 0, m};
	for (size_t r = 0; r < t->nregions; r++)
		refs[k++] = (struct marker_ref){t->regions[r].ns, 1, r};
	if (n > HTML_COUNTERS_MARKERS) {
		keep = HTML_COUNTERS_MARKERS;
		qsort(refs, n, sizeof(*refs), cmp_kept);
		html_caveat(in,
			    "Counters over time: %zu of %zu markers drawn (process markers, then "
			    "the earliest region begins and ends); %zu later ones left out",
			    keep, n, n - keep);
	}
	qsort(refs, keep, sizeof(*refs), cmp_time);
	jsonw_kv_u64(w, "markers_dropped", n - keep);
	jsonw_key(w, "markers");
	jsonw_array_begin(w);
	for (size_t i = 0; i < keep; i++) {
		const uint64_t rel = refs[i].ns > t->start_ns ? refs[i].ns - t->start_ns : 0;

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "t_ns", (int64_t)rel);
		if (refs[i].region) {
			const struct timeline_region *g = &t->regions[refs[i].i];

			jsonw_kv_string(w, "kind", g->enter ? "begin" : "end");
			jsonw_kv_string(w, "name", g->name);
			jsonw_kv_i64(w, "pid", g->pid);
			jsonw_kv_i64(w, "tid", g->tid);
		} else {
			const struct sample_marker *mk = &t->walk.markers[refs[i].i];

			jsonw_kv_string(w, "kind", marker_name((int)mk->kind));
			jsonw_kv_i64(w, "pid", mk->pid);
			jsonw_kv_i64(w, "tid", mk->tid);
		}
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	free(refs);
	return regions_json(w, in, t);
}

int html_data_counters(struct jsonw *w, struct html_input *in)
{
	const struct timeline *t;
	char err[512] = "";
	void *tl;
	int ret;

	if (!in->e->nsamples)
		return 0;
	/* the session's options: interval 0 (a hundredth of the run, rounded to 1, 2 or
	 * 5 x 10^k: about 100) and the top HTML_COUNTERS_TOP functions (html.h) */
	ret = session_get(in->s, SESSION_TIMELINE, &tl, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	t = tl;
	if (ret < 0 || !t->nintervals) {
		html_caveat(in, "Counters over time left out: %s",
			    err[0] && ret < 0 ? err : "no interval with samples");
		return 0;
	}
	jsonw_key(w, "counters");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "end_ns", t->end_ns > t->start_ns ? t->end_ns - t->start_ns : 0);
	jsonw_kv_u64(w, "interval_ns", t->interval_ns);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (uint32_t k = 0; k < t->nevents; k++)
		jsonw_string(w, k < in->e->sampling.nevents ? in->e->sampling.events[k] : "?");
	jsonw_array_end(w);
	intervals_json(w, in->e, t);
	ret = markers_json(w, in, t);
	jsonw_object_end(w);
	return ret;
}
