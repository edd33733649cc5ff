/* html-counters.c - the report's "counters" data: the sampled events over time as
 * `perfscope timeline` builds them (timeline.h), summed over threads, with the samples of the
 * top functions per interval and the markers (exec, exit, throttling, regions). */
#include "html-int.h"

#include "../analysis/timeline.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Functions kept by name in the sample shares; the others are "other". */
#define HTML_COUNTERS_TOP 8

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

/* "markers": the program's exec and exit, throttling, and its regions' begins and ends, in
 * ns since the start (a region record before the start is clamped to 0). */
static void markers_json(struct jsonw *w, const struct timeline *t)
{
	jsonw_key(w, "markers");
	jsonw_array_begin(w);
	for (size_t m = 0; m < t->walk.nmarkers; m++) {
		const struct sample_marker *mk = &t->walk.markers[m];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "t_ns", mk->ns > t->start_ns ? (int64_t)(mk->ns - t->start_ns) : 0);
		jsonw_kv_string(w, "kind", marker_name((int)mk->kind));
		jsonw_kv_i64(w, "pid", mk->pid);
		jsonw_kv_i64(w, "tid", mk->tid);
		jsonw_object_end(w);
	}
	for (size_t r = 0; r < t->nregions; r++) {
		const struct timeline_region *g = &t->regions[r];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "t_ns", g->ns > t->start_ns ? (int64_t)(g->ns - t->start_ns) : 0);
		jsonw_kv_string(w, "kind", g->enter ? "begin" : "end");
		jsonw_kv_string(w, "name", g->name);
		jsonw_kv_i64(w, "pid", g->pid);
		jsonw_kv_i64(w, "tid", g->tid);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

int html_data_counters(struct jsonw *w, struct html_input *in)
{
	struct timeline t;
	char err[512] = "";
	int ret;

	if (!in->e->nsamples)
		return 0;
	memset(&t, 0, sizeof(t));
	/* interval 0: a hundredth of the run, rounded to 1, 2 or 5 x 10^k (about 100) */
	ret = timeline_build(&t, in->e, in->syms, 0, HTML_COUNTERS_TOP, err, sizeof(err));
	if (ret == -ENOMEM)
		goto out;
	if (ret < 0 || !t.nintervals) {
		html_caveat(in, "Counters over time left out: %s",
			    err[0] ? err : "no interval with samples");
		ret = 0;
		goto out;
	}
	jsonw_key(w, "counters");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "end_ns", t.end_ns > t.start_ns ? t.end_ns - t.start_ns : 0);
	jsonw_kv_u64(w, "interval_ns", t.interval_ns);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (uint32_t k = 0; k < t.nevents; k++)
		jsonw_string(w, k < in->e->sampling.nevents ? in->e->sampling.events[k] : "?");
	jsonw_array_end(w);
	intervals_json(w, in->e, &t);
	markers_json(w, &t);
	jsonw_object_end(w);
out:
	timeline_release(&t);
	return ret;
}
