/* timeline-print.c - a timeline as text, CSV, JSON and long CSV (timeline-print.h), its tables
 * rendered from their views (timeline-view.h). */
#include "view/timeline-print.h"
#include "lib/textesc.h"
#include "view/table.h"
#include "view/timeline-view.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* Table T of TL in FMT (text, CSV or long CSV) into F. 0, -ENOMEM or -EIO. */
static int print_table(const struct experiment *e, const struct timeline *tl, enum timeline_table t,
		       enum out_format fmt, FILE *f)
{
	struct timeline_view tv;
	int ret = timeline_view_make(&tv, e, tl, t, fmt);

	if (ret)
		return ret;
	ret = fmt == OUT_TEXT	? view_print_text(&tv.v, f, "  ")
	      : fmt == OUT_LONG ? view_print_long(&tv.v, f)
				: view_print_csv(&tv.v, f);
	timeline_view_release(&tv);
	return ret;
}

/* The markers and the regions, one line each. */
static void markers_text(const struct timeline *t, FILE *f)
{
	char buf[64];

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
}

int timeline_print_text(const struct experiment *e, const struct timeline *t, FILE *f)
{
	char buf[64];
	int ret;

	fmt_duration(buf, sizeof(buf), (double)t->interval_ns);
	fprintf(f, "Rates per second in intervals of %s, threads summed (CSV/JSON: per thread)\n\n",
		buf);
	ret = print_table(e, t, TIMELINE_TABLE_INTERVALS, OUT_TEXT, f);
	markers_text(t, f);
	return ret ? ret : (ferror(f) ? -EIO : 0);
}

/* CSV or long CSV: the values, a blank line, the functions' samples. */
static int print_csv(const struct experiment *e, const struct timeline *t, enum out_format fmt,
		     FILE *f)
{
	int ret = print_table(e, t, TIMELINE_TABLE_VALUES, fmt, f);

	fputc('\n', f);
	if (!ret)
		ret = print_table(e, t, TIMELINE_TABLE_FUNCTIONS, fmt, f);
	return ret ? ret : (ferror(f) ? -EIO : 0);
}

/* Table T of TL as the array KEY of W. 0 or -ENOMEM. */
static int json_table(const struct experiment *e, const struct timeline *tl, enum timeline_table t,
		      const char *key, struct jsonw *w)
{
	struct timeline_view tv;

	if (timeline_view_make(&tv, e, tl, t, OUT_JSON))
		return -ENOMEM;
	jsonw_key(w, key);
	view_json_rows(w, &tv.v);
	timeline_view_release(&tv);
	return 0;
}

/* An array KEY of the N strings S(CTX, I), into W. */
static void json_names(struct jsonw *w, const char *key, size_t n,
		       const char *(*s)(const void *ctx, size_t i), const void *ctx)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, s(ctx, i));
	jsonw_array_end(w);
}

static const char *event_name(const void *ctx, size_t k)
{
	return ((const struct experiment *)ctx)->sampling.events[k];
}

static const char *func_name(const void *ctx, size_t fn)
{
	const struct timeline *t = ctx;

	return fn < t->nfuncs ? t->funcs[fn] : "other";
}

static int print_json(const struct experiment *e, const struct timeline *t, FILE *f)
{
	struct jsonw w;
	int ret;

	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	jsonw_kv_u64(&w, "start_ns", t->start_ns);
	jsonw_kv_u64(&w, "end_ns", t->end_ns);
	jsonw_kv_u64(&w, "interval_ns", t->interval_ns);
	json_names(&w, "events", t->nevents, event_name, e);
	ret = json_table(e, t, TIMELINE_TABLE_THREADS, "threads", &w);
	json_names(&w, "functions", t->nfuncs + 1, func_name, t);
	if (!ret)
		ret = json_table(e, t, TIMELINE_TABLE_INTERVALS, "intervals", &w);
	if (!ret)
		ret = json_table(e, t, TIMELINE_TABLE_MARKERS, "markers", &w);
	if (!ret)
		ret = json_table(e, t, TIMELINE_TABLE_REGIONS, "regions", &w);
	jsonw_object_end(&w);
	if (ret) {
		jsonw_release(&w);
		return ret;
	}
	return jsonw_print(&w, f);
}

int timeline_print(const struct experiment *e, const struct timeline *t, enum out_format fmt,
		   FILE *f)
{
	switch (fmt) {
	case OUT_TEXT:
		return timeline_print_text(e, t, f);
	case OUT_JSON:
		return print_json(e, t, f);
	default:
		return print_csv(e, t, fmt, f);
	}
}
