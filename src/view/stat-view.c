/* stat-view.c - the columns of the whole-run tables of `perfscope stat` (stat-view.h). */
#include "view/stat-view.h"

#include "lib/jsonw.h"
#include "pmu/counters.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RES(ctx) ((const struct stat_result *)(ctx))

/* Most metrics a report shows. */
#define METRICS_MAX 64

/* A row of the events, the metrics or the CSV: one event, metric or time. */
struct srow {
	enum { SROW_EVENT, SROW_METRIC, SROW_TIME } kind;
	size_t i;		     /* the event, or the time: 0 wall, 1 user, 2 system */
	struct stat_event_summary s; /* an event's */
	const struct metric *m;	     /* a metric */
	int mret;		     /* 0, -ENODATA or -EDOM: the metric's evaluation */
	double mv;		     /* its value when mret is 0 */
	char missing[256];	     /* its inputs not counted when -ENODATA */
	struct stats t;		     /* a time's */
};

#define SROW(row) ((const struct srow *)(row))

/* V's buffer filled as printf does, as a string value. */
__attribute__((format(printf, 2, 3))) static void set_fmt(struct view_value *v, const char *fmt,
							  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->buf, sizeof(v->buf), fmt, ap);
	va_end(ap);
	view_set_str(v, v->buf);
}

static double rel_stddev(const struct stats *s)
{
	return s->mean != 0 ? 100.0 * stats_stddev(s) / fabs(s->mean) : 0.0;
}

/* Why event ROW was not counted, into V's buffer (LEN bytes of it). */
static const char *reason(const struct stat_result *res, const struct srow *r, struct view_value *v,
			  size_t len)
{
	return counter_status_reason(r->s.status, &res->events[r->i], res->paranoid,
				     res->have_core_pmu, v->buf, len);
}

/* --- the events: text and JSON */

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	static const char *const times[] = {"wall", "user", "system"};
	const struct srow *r = row;

	(void)arg;
	view_set_str(v, r->kind == SROW_EVENT	 ? RES(ctx)->events[r->i].name
			: r->kind == SROW_METRIC ? r->m->name
						 : times[r->i]);
}

/* ARG: 0 the text's value (its count, or why there is none), 1 canonical name, 2 mean */
static void get_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;

	if (arg == 1)
		view_set_str(v, RES(ctx)->events[r->i].canonical);
	else if (arg == 2)
		view_set_f64(v, r->s.value.mean);
	else if (r->s.value.n == 0)
		view_set_str(v, r->s.status ? "not supported" : "not counted");
	else
		view_set_u64(v, (uint64_t)llround(r->s.value.mean));
}

/* ARG: 0 ± relative stddev, 1 min .. max (text, counted events) */
static void get_spread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;
	char a[64], b[64];

	(void)ctx;
	if (r->s.value.n == 0)
		return;
	if (arg == 0) {
		set_fmt(v, "± %.2f%%", rel_stddev(&r->s.value));
		return;
	}
	fmt_count(a, sizeof(a), (uint64_t)llround(r->s.value.min));
	fmt_count(b, sizeof(b), (uint64_t)llround(r->s.value.max));
	set_fmt(v, "%s .. %s", a, b);
}

static void get_note(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;

	(void)arg;
	if (r->s.value.n == 0)
		view_set_str(v, r->s.status ? reason(RES(ctx), r, v, 256)
					    : "never scheduled on the PMU (group did not fit)");
	else if (r->s.min_running < 1.0)
		set_fmt(v, "scaled: counted %.1f%% of the time%s", 100 * r->s.min_running,
			r->s.user_only ? ", user space only" : "");
	else if (r->s.user_only)
		view_set_str(v, "user space only (kernel counting not permitted)");
}

static void get_running_ratio(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, SROW(row)->s.min_running);
}

/* JSON's reason: why an event was not counted; none when it was */
static void get_reason(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;

	(void)arg;
	if (r->s.value.n == 0)
		view_set_str(v, r->s.status ? reason(RES(ctx), r, v, 256) : "not counted");
}

static void json_counted(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	(void)ctx, (void)arg;
	jsonw_bool(w, SROW(row)->s.value.n > 0);
}

static void json_user_only(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	(void)ctx, (void)arg;
	jsonw_bool(w, SROW(row)->s.user_only);
}

/* {"mean", "stddev", "min", "max"} of S, into W. */
static void json_stats(struct jsonw *w, const struct stats *s)
{
	jsonw_object_begin(w);
	jsonw_kv_double(w, "mean", s->mean);
	jsonw_kv_double(w, "stddev", stats_stddev(s));
	jsonw_kv_double(w, "min", s->min);
	jsonw_kv_double(w, "max", s->max);
	jsonw_object_end(w);
}

static void json_value(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	(void)ctx, (void)arg;
	json_stats(w, &SROW(row)->s.value);
}

#define TXT  VIEW_IN_TEXT
#define JSN  VIEW_IN_JSON
#define CSV  VIEW_IN_CSV
#define MORE VIEW_OPTION /* text: more than one run; JSON: the event was counted */
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

static const struct view_col event_cols[] = {
    COL("value", "value", VIEW_COUNT, TABLE_RIGHT, TXT, get_event, 0),
    COL("name", "event", VIEW_STR, TABLE_LEFT, TXT | JSN | VIEW_ENTITY, get_name, 0),
    COL("canonical", "canonical", VIEW_STR, TABLE_LEFT, JSN, get_event, 1),
    COL("counted", "counted", VIEW_STR, TABLE_LEFT, JSN, get_event, 0, .json = json_counted),
    COL("value", "value", VIEW_DOUBLE, TABLE_RIGHT, JSN | MORE, get_event, 2, .json = json_value),
    COL("running_ratio", "running", VIEW_DOUBLE, TABLE_RIGHT, JSN | MORE, get_running_ratio, 0),
    COL("user_only", "user only", VIEW_STR, TABLE_LEFT, JSN | MORE, get_event, 0,
	.json = json_user_only),
    COL("reason", "reason", VIEW_STR, TABLE_LEFT, JSN | VIEW_JSON_OMIT_NULL, get_reason, 0),
    COL("stddev", "± stddev", VIEW_STR, TABLE_RIGHT, TXT | MORE, get_spread, 0),
    COL("range", "min .. max", VIEW_STR, TABLE_LEFT, TXT | MORE, get_spread, 1),
    COL("note", "note", VIEW_STR, TABLE_LEFT, TXT, get_note, 0),
};

/* --- the metrics: text and JSON */

/* ARG: 0 text's value, 1 text's "name [unit]", 2 text's formula or why there is no value,
 * 3 unit, 4 formula, 5 value (none when unavailable), 6 the inputs missing */
static void get_metric(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;
	const struct metric *m = r->m;

	(void)ctx;
	switch (arg) {
	case 0:
		if (r->mret)
			view_set_str(v, "unavailable");
		else
			view_set_f64(v, r->mv);
		break;
	case 1:
		set_fmt(v, "%s%s%s%s", m->name, m->unit[0] ? " [" : "", m->unit,
			m->unit[0] ? "]" : "");
		break;
	case 2:
		if (r->mret == -ENODATA)
			set_fmt(v, "missing: %s", r->missing);
		else
			view_set_str(v, r->mret ? "undefined (division by zero)" : m->formula);
		break;
	case 3:
		view_set_str(v, m->unit);
		break;
	case 4:
		view_set_str(v, m->formula);
		break;
	case 5:
		if (!r->mret)
			view_set_f64(v, r->mv);
		break;
	default:
		if (r->mret == -ENODATA)
			view_set_str(v, r->missing);
	}
}

static const struct view_col metric_cols[] = {
    COL("value", "value", VIEW_DOUBLE, TABLE_RIGHT, TXT, get_metric, 0),
    COL("metric", "metric", VIEW_STR, TABLE_LEFT, TXT, get_metric, 1),
    COL("formula", "formula", VIEW_STR, TABLE_LEFT, TXT, get_metric, 2),
    COL("name", "name", VIEW_STR, TABLE_LEFT, JSN | VIEW_ENTITY, get_name, 0),
    COL("unit", "unit", VIEW_STR, TABLE_LEFT, JSN, get_metric, 3),
    COL("formula", "formula", VIEW_STR, TABLE_LEFT, JSN, get_metric, 4),
    COL("value", "value", VIEW_DOUBLE, TABLE_RIGHT, JSN, get_metric, 5),
    COL("missing", "missing", VIEW_STR, TABLE_LEFT, JSN | VIEW_JSON_OMIT_NULL, get_metric, 6),
};

/* --- every event, metric and time: CSV */

static void get_kind(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	static const char *const kinds[] = {"event", "metric", "time"};

	(void)ctx, (void)arg;
	view_set_str(v, kinds[SROW(row)->kind]);
}

/* ARG: 0 mean, 1 stddev, 2 min, 3 max; an event's or a time's (a metric's value: its own) */
static void get_stat(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;
	const struct stats *s = r->kind == SROW_TIME ? &r->t : &r->s.value;
	const double d[] = {s->mean, stats_stddev(s), s->min, s->max};

	(void)ctx;
	if (r->kind == SROW_METRIC) {
		if (arg == 0 && r->mret == 0)
			set_fmt(v, "%.6g", r->mv);
	} else if (r->kind == SROW_EVENT && arg == 1 && s->n) {
		set_fmt(v, "%.3f", d[1]);
	} else if (r->kind == SROW_TIME || s->n) {
		view_set_f64(v, d[arg]);
	}
}

/* ARG: 0 unit, 1 runs, 2 running %, 3 status */
static void get_row(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct srow *r = row;
	int counted = r->kind == SROW_EVENT && r->s.value.n;

	if (arg == 0 && r->kind != SROW_EVENT)
		view_set_str(v, r->kind == SROW_TIME ? "ns" : r->m->unit);
	else if (arg == 1)
		view_set_u64(v, counted ? r->s.value.n : RES(ctx)->nruns);
	else if (arg == 2 && counted)
		set_fmt(v, "%.2f", 100 * r->s.min_running);
	else if (arg == 3 && r->kind == SROW_EVENT && !counted)
		view_set_str(v, r->s.status ? reason(RES(ctx), r, v, 300) : "not counted");
	else if (arg == 3 && r->kind == SROW_EVENT)
		view_set_str(v, r->s.user_only ? "counted (user space only)" : "counted");
	else if (arg == 3 && r->kind == SROW_METRIC && r->mret == -ENODATA)
		set_fmt(v, "unavailable (missing: %s)", r->missing);
	else if (arg == 3)
		view_set_str(v, r->kind == SROW_TIME || !r->mret ? "ok" : "undefined");
}

static const struct view_col row_cols[] = {
    COL("kind", "kind", VIEW_STR, TABLE_LEFT, CSV | VIEW_ENTITY, get_kind, 0),
    COL("name", "name", VIEW_STR, TABLE_LEFT, CSV | VIEW_ENTITY, get_name, 0),
    COL("value", "value", VIEW_COUNT, TABLE_RIGHT, CSV, get_stat, 0),
    COL("unit", "unit", VIEW_STR, TABLE_LEFT, CSV, get_row, 0),
    COL("stddev", "stddev", VIEW_COUNT, TABLE_RIGHT, CSV, get_stat, 1),
    COL("min", "min", VIEW_COUNT, TABLE_RIGHT, CSV, get_stat, 2),
    COL("max", "max", VIEW_COUNT, TABLE_RIGHT, CSV, get_stat, 3),
    COL("runs", "runs", VIEW_COUNT, TABLE_RIGHT, CSV, get_row, 1),
    COL("running_pct", "running %", VIEW_PCT, TABLE_RIGHT, CSV, get_row, 2),
    COL("status", "status", VIEW_STR, TABLE_LEFT, CSV, get_row, 3),
};

/* --- rows */

/* Every metric to show into OUT (room for MAX): the group's, then those of groups found for
 * -e, each name once; their number. */
static size_t metrics_of(const struct stat_result *res, const struct metric **out, size_t max)
{
	size_t n = 0;

	if (res->group)
		for (size_t i = 0; i < res->group->nmetrics && n < max; i++)
			out[n++] = &res->group->metrics[i];
	for (size_t g = 0; g < res->nfound; g++)
		for (size_t i = 0; i < res->found[g].nmetrics && n < max; i++) {
			size_t k;

			for (k = 0; k < n && strcmp(out[k]->name, res->found[g].metrics[i].name);
			     k++)
				;
			if (k == n)
				out[n++] = &res->found[g].metrics[i];
		}
	return n;
}

/* The rows of table T of RES into R (room for every event, metric and time); their number. */
static size_t make_rows(const struct stat_result *res, enum stat_table t, struct srow *r,
			const struct metric *const *ms, size_t nm)
{
	size_t n = 0;

	for (size_t i = 0; t != STAT_TABLE_METRICS && i < res->nevents; i++, n++) {
		r[n].kind = SROW_EVENT;
		r[n].i = i;
		stat_result_summarize(res, i, &r[n].s);
	}
	for (size_t k = 0; t != STAT_TABLE_EVENTS && k < nm; k++, n++) {
		r[n].kind = SROW_METRIC;
		r[n].m = ms[k];
		r[n].mret =
		    stat_result_metric(res, ms[k], &r[n].mv, r[n].missing, sizeof(r[n].missing));
	}
	for (size_t k = 0; t == STAT_TABLE_ROWS && k < 3; k++, n++) {
		r[n].kind = SROW_TIME;
		r[n].i = k;
		stats_init(&r[n].t);
		for (size_t x = 0; x < res->nruns; x++)
			stats_add(&r[n].t, k == 0   ? res->runs[x].wall_ns
					   : k == 1 ? res->runs[x].user_ns
						    : res->runs[x].sys_ns);
	}
	return n;
}

int stat_view_make(struct view *v, const struct stat_result *res, enum stat_table t,
		   enum out_format fmt)
{
	const struct metric *ms[METRICS_MAX];
	size_t nm = metrics_of(res, ms, METRICS_MAX), max = res->nevents + nm + 3;
	const void **rows;
	struct srow *r;

	if (t == STAT_TABLE_THREADS || t == STAT_TABLE_THREAD_EVENTS)
		return stat_threads_view_make(v, res, t, fmt);
	*v = (struct view){.ctx = res, .option = fmt == OUT_TEXT && res->nruns > 1};
	rows = malloc(max * (sizeof(*rows) + sizeof(*r)));
	if (!rows)
		return -ENOMEM;
	r = (struct srow *)(rows + max);
	memset(r, 0, max * sizeof(*r));
	v->rows = rows;
	v->nrows = make_rows(res, t, r, ms, nm);
	for (size_t i = 0; i < v->nrows; i++)
		rows[i] = &r[i];
	v->cols = t == STAT_TABLE_EVENTS    ? event_cols
		  : t == STAT_TABLE_METRICS ? metric_cols
					    : row_cols;
	v->ncols = t == STAT_TABLE_EVENTS    ? sizeof(event_cols) / sizeof(event_cols[0])
		   : t == STAT_TABLE_METRICS ? sizeof(metric_cols) / sizeof(metric_cols[0])
					     : sizeof(row_cols) / sizeof(row_cols[0]);
	return 0;
}

int stat_view_counted(const struct view *v, const void *row)
{
	(void)v;
	return SROW(row)->s.value.n > 0;
}

void stat_view_release(struct view *v)
{
	free((void *)v->rows);
	*v = (struct view){0};
}
