/* timeline-view.c - the columns and rows of the tables of `perfscope timeline`
 * (timeline-view.h). */
#include "view/timeline-view.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TV(ctx) ((const struct timeline_view *)(ctx))

/* A row of a table of intervals, as row_of finds it. */
struct trow {
	size_t i;	   /* the interval */
	uint64_t from, to; /* its start and end from the run's start */
	size_t th;	   /* the thread */
	uint32_t k;	   /* the event */
	size_t fn;	   /* the function (nfuncs: "other") */
	size_t label;	   /* the top function's text in the labels; SIZE_MAX: none */
};

/* Threads without samples (named by a task record only) get no rows. */
static int sampled(const struct timeline *t, size_t th)
{
	return t->walk.threads[th].samples > 0;
}

static double rate(double value, uint64_t from, uint64_t to)
{
	return to > from ? value * 1e9 / (double)(to - from) : 0;
}

/* Event K was not sampled (not supported here): unknown, never 0. */
static int missing(const struct experiment *e, uint32_t k)
{
	return k < e->sampling.nevents && !strcmp(e->sampling.states[k], "not supported");
}

static const char *func_name(const struct timeline *t, size_t fn)
{
	return fn < t->nfuncs ? t->funcs[fn] : "other";
}

static uint64_t fsamples(const struct timeline *t, size_t th, size_t i, size_t fn)
{
	return t->fsamples[(th * t->nintervals + i) * (t->nfuncs + 1) + fn];
}

/* ROW of TV's table, which holds no row per interval or cell beside the timeline's own arrays:
 * an interval's entry in TV->label_at, or the cell of an event's value or of a function's
 * samples; its place in its array gives the interval (and the thread and the event or
 * function). */
static struct trow row_find(const struct timeline_view *tv, const void *row)
{
	const struct timeline *t = tv->t;
	struct trow r = {.label = SIZE_MAX};
	size_t idx, per;

	switch (tv->table) {
	case TIMELINE_TABLE_VALUES:
		idx = (size_t)((const double *)row - t->values);
		per = t->nevents;
		r.k = (uint32_t)(idx % per);
		break;
	case TIMELINE_TABLE_FUNCTIONS:
		idx = (size_t)((const uint64_t *)row - t->fsamples);
		per = t->nfuncs + 1;
		r.fn = idx % per;
		break;
	default:
		idx = (size_t)((const size_t *)row - tv->label_at);
		r.i = idx;
		r.label = tv->label_at[idx];
		timeline_interval(t, r.i, &r.from, &r.to);
		return r;
	}
	r.i = idx / per % t->nintervals;
	r.th = idx / per / t->nintervals;
	timeline_interval(t, r.i, &r.from, &r.to);
	return r;
}

/* The last row found: every cell of a row asks for it. */
struct timeline_row_memo {
	const void *row;
	struct trow r;
};

/* ROW of TV's table (row_find), found once for all its cells. */
static struct trow row_of(const struct timeline_view *tv, const void *row)
{
	if (tv->memo->row != row) {
		tv->memo->r = row_find(tv, row);
		tv->memo->row = row;
	}
	return tv->memo->r;
}

#define TR(row) (row_of(TV(ctx), row))

/* --- the columns every table of intervals starts with */

/* ARG: 0 the interval's start, 1 its end */
static void get_edge(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx;
	struct trow r = TR(row);

	view_set_u64(v, arg ? r.to : r.from);
}

static void get_tid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_i64(v, TV(ctx)->t->walk.threads[TR(row).th].tid);
}

/* --- intervals, threads summed */

/* ARG: the event */
static void get_rate(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct timeline *t = TV(ctx)->t;
	struct trow r = TR(row);
	double sum = 0;

	if (missing(TV(ctx)->e, (uint32_t)arg))
		return;
	for (size_t th = 0; th < t->walk.nthreads; th++)
		sum += timeline_value(t, th, r.i, (uint32_t)arg);
	v->kind = VIEW_F64;
	v->d = rate(sum, r.from, r.to);
}

static void get_samples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct timeline *t = TV(ctx)->t;
	uint64_t n = 0;

	(void)arg;
	for (size_t th = 0; th < t->walk.nthreads; th++)
		n += t->samples[th * t->nintervals + TR(row).i];
	view_set_u64(v, n);
}

static void get_top(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	struct trow r = TR(row);

	if (r.label != SIZE_MAX)
		view_set_str(v, TV(ctx)->labels.buf + r.label);
}

/* Per sampled thread: its values (null: not supported), samples and function samples (in the
 * order of the JSON's "functions"). */
static void json_threads(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct experiment *e = TV(ctx)->e;
	const struct timeline *t = TV(ctx)->t;
	size_t i = TR(row).i;

	(void)arg;
	jsonw_array_begin(w);
	for (size_t th = 0; th < t->walk.nthreads; th++) {
		if (!sampled(t, th))
			continue;
		jsonw_object_begin(w);
		jsonw_key(w, "values");
		jsonw_array_begin(w);
		for (uint32_t k = 0; k < t->nevents; k++)
			if (missing(e, k))
				jsonw_null(w);
			else
				jsonw_double(w, timeline_value(t, th, i, k));
		jsonw_array_end(w);
		jsonw_kv_u64(w, "samples", t->samples[th * t->nintervals + i]);
		jsonw_key(w, "function_samples");
		jsonw_array_begin(w);
		for (size_t fn = 0; fn <= t->nfuncs; fn++)
			jsonw_u64(w, fsamples(t, th, i, fn));
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

#define ENT  (VIEW_IN_ALL | VIEW_ENTITY)
#define CSVJ (VIEW_IN_CSV | VIEW_IN_JSON)
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

/* The rates of the events go between "t" and "samples" (interval_cols). */
#define NEVENT_AT 3

static const struct view_col interval_cols[] = {
    COL("t", "t", VIEW_NS, TABLE_RIGHT, VIEW_IN_TEXT, get_edge, 0),
    COL("t_start_ns", "start", VIEW_INT, TABLE_RIGHT, CSVJ | VIEW_ENTITY, get_edge, 0),
    COL("t_end_ns", "end", VIEW_INT, TABLE_RIGHT, CSVJ | VIEW_ENTITY, get_edge, 1),
    COL("samples", "samples", VIEW_INT, TABLE_RIGHT, VIEW_IN_TEXT | VIEW_IN_CSV, get_samples, 0),
    COL("top_function", "top function", VIEW_STR, TABLE_LEFT, VIEW_IN_TEXT, get_top, 0),
    COL("threads", "threads", VIEW_STR, TABLE_LEFT, VIEW_IN_JSON, get_top, 0, .json = json_threads),
};

/* --- values per interval, thread and event */

static void get_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, TV(ctx)->e->sampling.events[TR(row).k]);
}

/* ARG: 0 the value, 1 its rate per second; not counted for an event not supported */
static void get_value(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	struct trow r = TR(row);
	double x = *(const double *)row;

	if (!missing(TV(ctx)->e, r.k))
		view_set_f64(v, arg ? rate(x, r.from, r.to) : x);
}

static const struct view_col value_cols[] = {
    COL("t_start_ns", "start", VIEW_INT, TABLE_RIGHT, ENT, get_edge, 0),
    COL("t_end_ns", "end", VIEW_INT, TABLE_RIGHT, ENT, get_edge, 1),
    COL("thread", "thread", VIEW_INT, TABLE_RIGHT, ENT, get_tid, 0),
    COL("event", "event", VIEW_STR, TABLE_LEFT, ENT, get_event, 0),
    COL("value", "value", VIEW_DOUBLE_3, TABLE_RIGHT, VIEW_IN_ALL, get_value, 0,
	.null_text = "n/a"),
    COL("rate_per_s", "rate per s", VIEW_DOUBLE_3, TABLE_RIGHT, VIEW_IN_ALL, get_value, 1,
	.null_text = "n/a"),
};

/* --- samples per interval, thread and function */

static void get_function(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, func_name(TV(ctx)->t, TR(row).fn));
}

/* ARG: 0 the function's samples, 1 their share of the thread's in the interval */
static void get_fsamples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct timeline *t = TV(ctx)->t;
	struct trow r = TR(row);
	uint64_t n = *(const uint64_t *)row, total = t->samples[r.th * t->nintervals + r.i];

	if (!arg) {
		view_set_u64(v, n);
		return;
	}
	v->kind = VIEW_F64;
	v->d = total ? 100.0 * (double)n / (double)total : 0;
}

static const struct view_col function_cols[] = {
    COL("t_start_ns", "start", VIEW_INT, TABLE_RIGHT, ENT, get_edge, 0),
    COL("t_end_ns", "end", VIEW_INT, TABLE_RIGHT, ENT, get_edge, 1),
    COL("thread", "thread", VIEW_INT, TABLE_RIGHT, ENT, get_tid, 0),
    COL("function", "function", VIEW_STR, TABLE_LEFT, ENT, get_function, 0),
    COL("samples", "samples", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_fsamples, 0),
    COL("share", "share", VIEW_SHARE, TABLE_RIGHT, VIEW_IN_ALL, get_fsamples, 1),
};

/* --- threads: rows struct sample_thread */

#define THR(row) ((const struct sample_thread *)(row))

/* ARG: 0 pid, 1 tid, 2 name */
static void get_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx;
	if (arg == 2)
		view_set_str(v, THR(row)->name);
	else
		view_set_i64(v, arg ? THR(row)->tid : THR(row)->pid);
}

static const struct view_col thread_cols[] = {
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, ENT, get_thread, 0),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, ENT, get_thread, 1),
    COL("name", "name", VIEW_STR, TABLE_LEFT, VIEW_IN_ALL, get_thread, 2),
};

/* --- markers: rows struct sample_marker */

#define MK(row) ((const struct sample_marker *)(row))

static const char *marker_name(int kind)
{
	static const char *const names[] = {"exec", "exit", "throttled", "unthrottled"};

	return kind >= 0 && kind < 4 ? names[kind] : "?";
}

/* ARG: 0 the time from the run's start, 1 the kind, 2 pid, 3 tid */
static void get_marker(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	switch (arg) {
	case 0:
		view_set_i64(v, (int64_t)(MK(row)->ns - TV(ctx)->t->start_ns));
		break;
	case 1:
		view_set_str(v, marker_name((int)MK(row)->kind));
		break;
	default:
		view_set_i64(v, arg == 2 ? MK(row)->pid : MK(row)->tid);
	}
}

static const struct view_col marker_cols[] = {
    COL("t_ns", "t", VIEW_NS, TABLE_RIGHT, ENT, get_marker, 0),
    COL("kind", "kind", VIEW_STR, TABLE_LEFT, ENT, get_marker, 1),
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, ENT, get_marker, 2),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, ENT, get_marker, 3),
};

/* --- regions: rows struct timeline_region */

#define RG(row) ((const struct timeline_region *)(row))

/* ARG: 0 the time from the run's start, 1 the name, 2 begin or end, 3 tid */
static void get_region(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	switch (arg) {
	case 0:
		view_set_i64(v, (int64_t)(RG(row)->ns - TV(ctx)->t->start_ns));
		break;
	case 1:
		view_set_str(v, RG(row)->name);
		break;
	case 2:
		view_set_str(v, RG(row)->enter ? "begin" : "end");
		break;
	default:
		view_set_i64(v, RG(row)->tid);
	}
}

static const struct view_col region_cols[] = {
    COL("t_ns", "t", VIEW_NS, TABLE_RIGHT, ENT, get_region, 0),
    COL("name", "region", VIEW_STR, TABLE_LEFT, ENT, get_region, 1),
    COL("kind", "kind", VIEW_STR, TABLE_LEFT, ENT, get_region, 2),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, ENT, get_region, 3),
};

/* --- rows */

/* The label of the function with the most samples in interval I over all threads, and its
 * share, appended to L: its offset, or SIZE_MAX when the interval has no samples. */
static size_t top_label(const struct timeline *t, size_t i, struct strbuf *l)
{
	size_t best = 0, at = l->len;
	uint64_t total = 0, best_n = 0;

	for (size_t fn = 0; fn <= t->nfuncs; fn++) {
		uint64_t n = 0;

		for (size_t th = 0; th < t->walk.nthreads; th++)
			n += fsamples(t, th, i, fn);
		total += n;
		if (n > best_n) {
			best_n = n;
			best = fn;
		}
	}
	if (!total)
		return SIZE_MAX;
	strbuf_addf(l, "%s (%.0f %%)", func_name(t, best), 100.0 * (double)best_n / (double)total);
	strbuf_add(l, "", 1);
	return at;
}

/* The intervals into ROWS, with the top functions' labels in text: their number. */
static size_t interval_rows(struct timeline_view *tv, const void **rows)
{
	const struct timeline *tl = tv->t;

	for (size_t i = 0; i < tl->nintervals; i++) {
		tv->label_at[i] = tv->fmt == OUT_TEXT ? top_label(tl, i, &tv->labels) : SIZE_MAX;
		rows[i] = &tv->label_at[i];
	}
	return tl->nintervals;
}

/* The cells of table T (the events' values of the sampled threads, or the functions' samples
 * that are not 0) into ROWS, by interval, then thread: their number. */
static size_t cell_rows(const struct timeline *tl, enum timeline_table t, const void **rows)
{
	size_t n = 0;

	for (size_t i = 0; i < tl->nintervals; i++) {
		for (size_t th = 0; th < tl->walk.nthreads; th++) {
			size_t cell = th * tl->nintervals + i;

			for (uint32_t k = 0;
			     t == TIMELINE_TABLE_VALUES && sampled(tl, th) && k < tl->nevents; k++)
				rows[n++] = &tl->values[cell * tl->nevents + k];
			for (size_t fn = 0; t == TIMELINE_TABLE_FUNCTIONS && fn <= tl->nfuncs; fn++)
				if (fsamples(tl, th, i, fn))
					rows[n++] = &tl->fsamples[cell * (tl->nfuncs + 1) + fn];
		}
	}
	return n;
}

static size_t rows_max(const struct timeline *t, enum timeline_table tt)
{
	switch (tt) {
	case TIMELINE_TABLE_INTERVALS:
		return t->nintervals;
	case TIMELINE_TABLE_VALUES:
		return t->nintervals * t->walk.nthreads * t->nevents;
	case TIMELINE_TABLE_FUNCTIONS:
		return t->nintervals * t->walk.nthreads * (t->nfuncs + 1);
	case TIMELINE_TABLE_THREADS:
		return t->walk.nthreads;
	case TIMELINE_TABLE_MARKERS:
		return t->walk.nmarkers;
	default:
		return t->nregions;
	}
}

/* The intervals' columns with a rate column per event, into COLS: their number. */
static size_t interval_columns(const struct timeline_view *tv, struct view_col *cols)
{
	size_t n = 0;

	for (size_t c = 0; c < sizeof(interval_cols) / sizeof(interval_cols[0]); c++) {
		if (c == NEVENT_AT)
			for (uint32_t k = 0; k < tv->t->nevents; k++)
				cols[n++] = (struct view_col)COL(
				    tv->e->sampling.events[k], tv->e->sampling.events[k],
				    VIEW_DOUBLE, TABLE_RIGHT, VIEW_IN_TEXT, get_rate, k,
				    .null_text = "n/a");
		cols[n++] = interval_cols[c];
	}
	return n;
}

/* Table T's rows into ROWS: their number. */
static size_t table_rows(struct timeline_view *tv, enum timeline_table t, const void **rows)
{
	const struct timeline *tl = tv->t;
	size_t n = 0;

	switch (t) {
	case TIMELINE_TABLE_THREADS:
		for (size_t th = 0; th < tl->walk.nthreads; th++)
			if (sampled(tl, th))
				rows[n++] = &tl->walk.threads[th];
		return n;
	case TIMELINE_TABLE_MARKERS:
		for (; n < tl->walk.nmarkers; n++)
			rows[n] = &tl->walk.markers[n];
		return n;
	case TIMELINE_TABLE_REGIONS:
		for (; n < tl->nregions; n++)
			rows[n] = &tl->regions[n];
		return n;
	case TIMELINE_TABLE_INTERVALS:
		return interval_rows(tv, rows);
	default:
		return cell_rows(tl, t, rows);
	}
}

int timeline_view_make(struct timeline_view *tv, const struct experiment *e,
		       const struct timeline *tl, enum timeline_table t, enum out_format fmt)
{
	static const struct {
		const struct view_col *cols;
		size_t n;
	} tables[] = {
	    {interval_cols, sizeof(interval_cols) / sizeof(interval_cols[0])},
	    {value_cols, sizeof(value_cols) / sizeof(value_cols[0])},
	    {function_cols, sizeof(function_cols) / sizeof(function_cols[0])},
	    {thread_cols, sizeof(thread_cols) / sizeof(thread_cols[0])},
	    {marker_cols, sizeof(marker_cols) / sizeof(marker_cols[0])},
	    {region_cols, sizeof(region_cols) / sizeof(region_cols[0])},
	};
	size_t max = rows_max(tl, t), ncols = tables[t].n + tl->nevents;
	size_t head = (max + 1) * sizeof(void *) +
		      (t == TIMELINE_TABLE_INTERVALS ? (max + 1) * sizeof(size_t) : 0);
	char *block = malloc(head + ncols * sizeof(struct view_col) + sizeof(*tv->memo));
	const void **rows = (const void **)block;
	struct view_col *cols = (struct view_col *)(block + head);

	*tv = (struct timeline_view){.e = e, .t = tl, .table = t, .fmt = fmt, .block = block};
	tv->v =
	    (struct view){.cols = tables[t].cols, .ncols = tables[t].n, .rows = rows, .ctx = tv};
	if (!block)
		return -ENOMEM;
	tv->memo = (struct timeline_row_memo *)(cols + ncols);
	tv->memo->row = NULL;
	if (t == TIMELINE_TABLE_INTERVALS) {
		tv->v.ncols = interval_columns(tv, cols);
		tv->v.cols = cols;
		tv->label_at = (size_t *)(rows + max + 1);
	}
	tv->v.nrows = table_rows(tv, t, rows);
	if (tv->labels.err) {
		timeline_view_release(tv);
		return -ENOMEM;
	}
	return 0;
}

void timeline_view_release(struct timeline_view *tv)
{
	free(tv->block);
	strbuf_release(&tv->labels);
	*tv = (struct timeline_view){0};
}
