/* timeline-print.c - rendering of a timeline as text, CSV and JSON. */
#include "view/timeline-print.h"
#include "lib/textesc.h"
#include "view/table.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Threads without samples (named by a task record only) get no rows. */
static int sampled(const struct timeline *t, size_t th)
{
	return t->walk.threads[th].samples > 0;
}

static double rate(double value, uint64_t from, uint64_t to)
{
	return to > from ? value * 1e9 / (double)(to - from) : 0;
}

/* The function with the most samples in interval I over all threads, and its share. */
static size_t top_function(const struct timeline *t, size_t i, double *share)
{
	size_t nf = t->nfuncs + 1, best = 0;
	uint64_t total = 0, best_n = 0;

	for (size_t f = 0; f < nf; f++) {
		uint64_t n = 0;

		for (size_t th = 0; th < t->walk.nthreads; th++)
			n += t->fsamples[(th * t->nintervals + i) * nf + f];
		total += n;
		if (n > best_n) {
			best_n = n;
			best = f;
		}
	}
	*share = total ? 100.0 * (double)best_n / (double)total : 0;
	return total ? best : SIZE_MAX;
}

/* Event K was not sampled (not supported here): unknown, never 0. */
static int missing(const struct experiment *e, uint32_t k)
{
	return k < e->sampling.nevents && !strcmp(e->sampling.states[k], "not supported");
}

/* Blanks that right-align TEXT in 10 columns ("µs" is one column, two bytes). */
static int pad(const char *text)
{
	size_t w = utf8_width(text);

	return w < 10 ? (int)(10 - w) : 0;
}

static const char *marker_name(int kind)
{
	static const char *const names[] = {"exec", "exit", "throttled", "unthrottled"};

	return kind >= 0 && kind < 4 ? names[kind] : "?";
}

int timeline_print_text(const struct experiment *e, const struct timeline *t, FILE *f)
{
	struct table *tb = table_new();
	char buf[64];
	int ret;

	if (!tb)
		return -ENOMEM;
	fmt_duration(buf, sizeof(buf), (double)t->interval_ns);
	fprintf(f, "Rates per second in intervals of %s, threads summed (CSV/JSON: per thread)\n\n",
		buf);
	table_add_column(tb, "t", TABLE_RIGHT);
	for (uint32_t k = 0; k < t->nevents; k++)
		table_add_column(tb, e->sampling.events[k], TABLE_RIGHT);
	table_add_column(tb, "samples", TABLE_RIGHT);
	table_add_column(tb, "top function", TABLE_LEFT);
	for (size_t i = 0; i < t->nintervals; i++) {
		uint64_t from, to, n = 0;
		double share;
		size_t top;

		timeline_interval(t, i, &from, &to);
		table_add_row(tb);
		fmt_duration(buf, sizeof(buf), (double)from);
		table_set(tb, 0, "%s", buf);
		for (uint32_t k = 0; k < t->nevents; k++) {
			double v = 0;

			for (size_t th = 0; th < t->walk.nthreads; th++)
				v += timeline_value(t, th, i, k);
			fmt_double(buf, sizeof(buf), rate(v, from, to));
			table_set(tb, 1 + k, "%s", missing(e, k) ? "n/a" : buf);
		}
		for (size_t th = 0; th < t->walk.nthreads; th++)
			n += t->samples[th * t->nintervals + i];
		table_set(tb, 1 + t->nevents, "%" PRIu64, n);
		top = top_function(t, i, &share);
		if (top != SIZE_MAX)
			table_set(tb, 2 + t->nevents, "%s (%.0f %%)",
				  top < t->nfuncs ? t->funcs[top] : "other", share);
	}
	ret = table_print(tb, f, "  ");
	table_free(tb);
	if (t->walk.nmarkers || t->nregions)
		fprintf(f, "\nMarkers\n");
	for (size_t m = 0; m < t->walk.nmarkers; m++) {
		const struct sample_marker *mk = &t->walk.markers[m];

		fmt_duration(buf, sizeof(buf), (double)(mk->ns - t->start_ns));
		fprintf(f, "  %*s%s  %s pid %d tid %d\n", pad(buf), "", buf,
			marker_name((int)mk->kind), (int)mk->pid, (int)mk->tid);
	}
	for (size_t r = 0; r < t->nregions; r++) {
		const struct timeline_region *g = &t->regions[r];

		fmt_duration(buf, sizeof(buf), (double)((int64_t)(g->ns - t->start_ns)));
		fprintf(f, "  %*s%s  region %s %s (tid %d)\n", pad(buf), "", buf,
			text_safe(g->name), g->enter ? "begins" : "ends", (int)g->tid);
	}
	return ret ? ret : (ferror(f) ? -EIO : 0);
}

int timeline_print_csv(const struct experiment *e, const struct timeline *t, FILE *f)
{
	size_t nf = t->nfuncs + 1;

	fprintf(f, "t_start_ns,t_end_ns,thread,event,value,rate_per_s\n");
	for (size_t i = 0; i < t->nintervals; i++) {
		uint64_t from, to;

		timeline_interval(t, i, &from, &to);
		for (size_t th = 0; th < t->walk.nthreads; th++)
			for (uint32_t k = 0; sampled(t, th) && k < t->nevents; k++) {
				double v = timeline_value(t, th, i, k);

				fprintf(f, "%" PRIu64 ",%" PRIu64 ",%d,", from, to,
					(int)t->walk.threads[th].tid);
				csv_field(f, e->sampling.events[k]);
				if (missing(e, k))
					fprintf(f, ",,\n");
				else
					fprintf(f, ",%.3f,%.3f\n", v, rate(v, from, to));
			}
	}
	fprintf(f, "\nt_start_ns,t_end_ns,thread,function,samples,share\n");
	for (size_t i = 0; i < t->nintervals; i++) {
		uint64_t from, to;

		timeline_interval(t, i, &from, &to);
		for (size_t th = 0; th < t->walk.nthreads; th++) {
			uint64_t total = t->samples[th * t->nintervals + i];

			for (size_t fn = 0; fn < nf; fn++) {
				uint64_t n = t->fsamples[(th * t->nintervals + i) * nf + fn];

				if (!n)
					continue;
				fprintf(f, "%" PRIu64 ",%" PRIu64 ",%d,", from, to,
					(int)t->walk.threads[th].tid);
				csv_field(f, fn < t->nfuncs ? t->funcs[fn] : "other");
				fprintf(f, ",%" PRIu64 ",%.4f\n", n,
					total ? 100.0 * (double)n / (double)total : 0);
			}
		}
	}
	return ferror(f) ? -EIO : 0;
}

int timeline_print_json(const struct experiment *e, const struct timeline *t, FILE *f)
{
	size_t nf = t->nfuncs + 1;
	struct jsonw w;

	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, "start_ns", t->start_ns);
	jsonw_kv_u64(&w, "end_ns", t->end_ns);
	jsonw_kv_u64(&w, "interval_ns", t->interval_ns);
	jsonw_key(&w, "events");
	jsonw_array_begin(&w);
	for (uint32_t k = 0; k < t->nevents; k++)
		jsonw_string(&w, e->sampling.events[k]);
	jsonw_array_end(&w);
	jsonw_key(&w, "threads");
	jsonw_array_begin(&w);
	for (size_t th = 0; th < t->walk.nthreads; th++) {
		if (!sampled(t, th))
			continue;
		jsonw_object_begin(&w);
		jsonw_kv_i64(&w, "pid", t->walk.threads[th].pid);
		jsonw_kv_i64(&w, "tid", t->walk.threads[th].tid);
		jsonw_kv_string(&w, "name", t->walk.threads[th].name);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "functions");
	jsonw_array_begin(&w);
	for (size_t fn = 0; fn < nf; fn++)
		jsonw_string(&w, fn < t->nfuncs ? t->funcs[fn] : "other");
	jsonw_array_end(&w);
	/* per interval: t_start_ns, t_end_ns, and per thread its values, samples and function
	 * samples (in the order of "functions") */
	jsonw_key(&w, "intervals");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < t->nintervals; i++) {
		uint64_t from, to;

		timeline_interval(t, i, &from, &to);
		jsonw_object_begin(&w);
		jsonw_kv_u64(&w, "t_start_ns", from);
		jsonw_kv_u64(&w, "t_end_ns", to);
		jsonw_key(&w, "threads");
		jsonw_array_begin(&w);
		for (size_t th = 0; th < t->walk.nthreads; th++) {
			if (!sampled(t, th))
				continue;
			jsonw_object_begin(&w);
			jsonw_key(&w, "values");
			jsonw_array_begin(&w);
			for (uint32_t k = 0; k < t->nevents; k++)
				if (missing(e, k))
					jsonw_null(&w);
				else
					jsonw_double(&w, timeline_value(t, th, i, k));
			jsonw_array_end(&w);
			jsonw_kv_u64(&w, "samples", t->samples[th * t->nintervals + i]);
			jsonw_key(&w, "function_samples");
			jsonw_array_begin(&w);
			for (size_t fn = 0; fn < nf; fn++)
				jsonw_u64(&w, t->fsamples[(th * t->nintervals + i) * nf + fn]);
			jsonw_array_end(&w);
			jsonw_object_end(&w);
		}
		jsonw_array_end(&w);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "markers");
	jsonw_array_begin(&w);
	for (size_t m = 0; m < t->walk.nmarkers; m++) {
		const struct sample_marker *mk = &t->walk.markers[m];

		jsonw_object_begin(&w);
		jsonw_kv_i64(&w, "t_ns", (int64_t)(mk->ns - t->start_ns));
		jsonw_kv_string(&w, "kind", marker_name((int)mk->kind));
		jsonw_kv_i64(&w, "pid", mk->pid);
		jsonw_kv_i64(&w, "tid", mk->tid);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "regions");
	jsonw_array_begin(&w);
	for (size_t r = 0; r < t->nregions; r++) {
		const struct timeline_region *g = &t->regions[r];

		jsonw_object_begin(&w);
		jsonw_kv_i64(&w, "t_ns", (int64_t)(g->ns - t->start_ns));
		jsonw_kv_string(&w, "name", g->name);
		jsonw_kv_string(&w, "kind", g->enter ? "begin" : "end");
		jsonw_kv_i64(&w, "tid", g->tid);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}
