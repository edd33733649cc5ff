/* sample-view.c - the columns of the sampled functions, hottest lines and accuracy. */
#include "view/sample-view.h"
#include "lib/path.h"

#include "lib/jsonw.h"
#include "view/sample-print.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R(ctx)	 ((const struct sample_report *)(ctx))
#define ROW(row) ((const struct sprof_row *)(row))

static void set_share(const void *ctx, struct view_value *v, uint64_t part)
{
	v->kind = VIEW_F64;
	v->d = sample_share(part, R(ctx)->p->samples);
}

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, ROW(row)->sym.name);
}

static void get_module(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, ROW(row)->sym.module);
}

static void get_pid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_I64;
	v->i = ROW(row)->pid;
}

static void get_tid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_I64;
	v->i = ROW(row)->tid;
}

/* The thread's id per thread, "all" merged. */
static void get_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	if (R(ctx)->p->per_thread)
		get_tid(ctx, row, arg, v);
	else
		view_set_str(v, "all");
}

static void get_samples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->samples);
}

static void get_share(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	set_share(ctx, v, ROW(row)->samples);
}

static void get_time(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->time_ns);
}

static void get_incl_samples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->incl_samples);
}

static void get_incl_share(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	set_share(ctx, v, ROW(row)->incl_samples);
}

static void get_incl_ns(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->incl_ns);
}

/* Event ARG's count, not counted (null) where the event was not sampled. */
static void get_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	if (!sample_report_missing(R(ctx), (uint32_t)arg))
		view_set_u64(v, sprof_counts(R(ctx)->p, ROW(row))[arg]);
}

/* "file.c:12" (base name), else the module's base name. */
static void get_where(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct sprof_row *x = row;

	(void)ctx, (void)arg;
	if (*sym_info_def_file(&x->sym)) {
		snprintf(v->buf, sizeof(v->buf), "%s:%u", path_base(sym_info_def_file(&x->sym)),
			 sym_info_def_line(&x->sym));
		view_set_str(v, v->buf);
	} else {
		view_set_str(v, path_base(x->sym.module));
	}
}

static void get_file(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, sym_info_def_file(&ROW(row)->sym));
}

static void get_line(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, sym_info_def_line(&ROW(row)->sym));
}

/* JSON "counts": every event's count (the leader's too), null where not sampled. */
static void json_counts(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct sample_report *r = ctx;

	(void)arg;
	jsonw_object_begin(w);
	for (uint32_t k = 0; k < r->p->nevents; k++) {
		jsonw_key(w, r->e->sampling.events[k]);
		if (sample_report_missing(r, k))
			jsonw_null(w);
		else
			jsonw_u64(w, sprof_counts(r->p, row)[k]);
	}
	jsonw_object_end(w);
}

#define TEXT VIEW_IN_TEXT
#define CSV  VIEW_IN_CSV
#define JSON VIEW_IN_JSON
#define ALL  VIEW_IN_ALL
#define ENT  VIEW_ENTITY
#define PT   VIEW_PER_THREAD
#define OPT  VIEW_OPTION

/* Before the events' columns. Where the formats' orders differ (JSON's inclusive samples
 * before the counts, the CSV's at the end), a column appears once per place. */
static const struct view_col head_cols[] = {
    {"name", "function", VIEW_STR, TABLE_LEFT, ALL | ENT, get_name, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"module", "module", VIEW_STR, TABLE_LEFT, JSON, get_module, 0, NULL, NULL, NULL, NULL, NULL},
    {"pid", "pid", VIEW_INT, TABLE_RIGHT, JSON | PT, get_pid, 0, NULL, NULL, NULL, NULL, NULL},
    {"tid", "tid", VIEW_INT, TABLE_RIGHT, JSON | PT, get_tid, 0, NULL, NULL, NULL, NULL, NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, TEXT | PT, get_thread, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_thread, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"samples", "samples", VIEW_COUNT, TABLE_RIGHT, ALL, get_samples, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"share", "share", VIEW_SHARE, TABLE_RIGHT, ALL, get_share, 0, NULL, NULL, NULL, NULL, NULL},
    {"incl_share", "children", VIEW_SHARE, TABLE_RIGHT, TEXT | OPT, get_incl_share, 0, NULL, NULL,
     NULL, NULL, NULL},
    {"time_ns", "est. time", VIEW_NS, TABLE_RIGHT, ALL, get_time, 0, NULL, NULL, NULL, NULL, NULL},
    {"incl_samples", "incl. samples", VIEW_COUNT, TABLE_RIGHT, JSON, get_incl_samples, 0, NULL,
     NULL, NULL, NULL, NULL},
    {"incl_share", "children", VIEW_SHARE, TABLE_RIGHT, JSON, get_incl_share, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"incl_ns", "incl. time", VIEW_NS, TABLE_RIGHT, JSON, get_incl_ns, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"counts", "counts", VIEW_STR, TABLE_LEFT, JSON, NULL, 0, NULL, NULL, NULL, NULL, json_counts},
};

/* After the events' columns. */
static const struct view_col tail_cols[] = {
    {"where", "where", VIEW_STR, TABLE_LEFT, TEXT, get_where, 0, NULL, NULL, NULL, NULL, NULL},
    {"file", "file", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_file, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"line", "line", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT, get_line, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"incl_samples", "incl. samples", VIEW_COUNT, TABLE_RIGHT, CSV | OPT, get_incl_samples, 0, NULL,
     NULL, NULL, NULL, NULL},
    {"incl_share", "children", VIEW_SHARE, TABLE_RIGHT, CSV | OPT, get_incl_share, 0, NULL, NULL,
     NULL, NULL, NULL},
    {"incl_ns", "incl. time", VIEW_NS, TABLE_RIGHT, CSV | OPT, get_incl_ns, 0, NULL, NULL, NULL,
     NULL, NULL},
};

#define NHEAD (sizeof(head_cols) / sizeof(head_cols[0]))
#define NTAIL (sizeof(tail_cols) / sizeof(tail_cols[0]))

int sample_view_cols(const struct sample_report *r, struct view_col **cols, size_t *n)
{
	size_t ne = r->p->nevents > 1 ? r->p->nevents - 1 : 0, k = NHEAD;
	struct view_col *c = calloc(NHEAD + ne + NTAIL, sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, head_cols, sizeof(head_cols));
	/* the leader's count is the samples; each other event has a column */
	for (size_t i = 1; i <= ne; i++, k++)
		c[k] = (struct view_col){r->e->sampling.events[i],
					 r->e->sampling.events[i],
					 VIEW_COUNT,
					 TABLE_RIGHT,
					 TEXT | CSV,
					 get_event,
					 i,
					 "n/a",
					 NULL,
					 NULL,
					 NULL,
					 NULL};
	memcpy(c + k, tail_cols, sizeof(tail_cols));
	*cols = c;
	*n = k + NTAIL;
	return 0;
}

#define LINE(row) ((const struct sprof_line *)(row))

/* "file.c:12" (base name), else "module (no line information)". */
static void get_line_where(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct sprof_line *l = row;

	(void)ctx, (void)arg;
	if (*l->file)
		snprintf(v->buf, sizeof(v->buf), "%s:%u", path_base(l->file), l->line);
	else
		snprintf(v->buf, sizeof(v->buf), "%s (no line information)", path_base(l->module));
	view_set_str(v, v->buf);
}

static void get_line_file(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, LINE(row)->file);
}

static void get_line_line(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, LINE(row)->line);
}

static void get_line_func(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, LINE(row)->func);
}

static void get_line_samples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, LINE(row)->samples);
}

static void get_line_share(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	set_share(ctx, v, LINE(row)->samples);
}

static void get_line_time(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, LINE(row)->time_ns);
}

static const struct view_col lines_cols[] = {
    {"where", "line", VIEW_STR, TABLE_LEFT, TEXT, get_line_where, 0, NULL, NULL, NULL, NULL, NULL},
    {"file", "file", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_line_file, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"line", "line", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT, get_line_line, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"function", "function", VIEW_STR, TABLE_LEFT, ALL | ENT, get_line_func, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"samples", "samples", VIEW_COUNT, TABLE_RIGHT, ALL, get_line_samples, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"share", "share", VIEW_SHARE, TABLE_RIGHT, TEXT | CSV, get_line_share, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"time_ns", "est. time", VIEW_NS, TABLE_RIGHT, ALL, get_line_time, 0, NULL, NULL, NULL, NULL,
     NULL},
};

const struct view_col *sample_lines_view_cols(size_t *n)
{
	*n = sizeof(lines_cols) / sizeof(lines_cols[0]);
	return lines_cols;
}

#define EVENT(row) (*(const uint32_t *)(row))

/*
 * Estimated and exact total of event K, and the estimate's difference in % (NaN when the exact
 * count is 0); returns 0 when the exact count is missing.
 */
static int accuracy_of(const struct sample_report *r, uint32_t k, uint64_t *est, uint64_t *exact,
		       double *diff_pct)
{
	const uint64_t *t = r->p->walk.totals;

	*est = r->p->estimated[k];
	*exact = t ? t[3 * k] : UINT64_MAX;
	*diff_pct = *exact && *exact != UINT64_MAX
			? 100.0 * ((double)*est - (double)*exact) / (double)*exact
			: NAN;
	return *exact != UINT64_MAX && !sample_report_missing(r, k);
}

static void get_acc_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, R(ctx)->e->sampling.events[EVENT(row)]);
}

/* Not counted where the event was not sampled. */
static void get_acc_estimated(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (!sample_report_missing(R(ctx), EVENT(row)))
		view_set_u64(v, R(ctx)->p->estimated[EVENT(row)]);
}

/* The exact count; not counted where it is missing. */
static void get_acc_exact(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	uint64_t est, exact;
	double diff;

	(void)arg;
	if (accuracy_of(R(ctx), EVENT(row), &est, &exact, &diff))
		view_set_u64(v, exact);
}

/* As get_acc_exact, but empty (not "not counted") for an event that was not sampled. */
static void get_acc_exact_text(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	if (sample_report_missing(R(ctx), EVENT(row)))
		view_set_str(v, "");
	else
		get_acc_exact(ctx, row, arg, v);
}

/* The difference in %, not counted without an exact count (or with one of 0). */
static void get_acc_diff(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	uint64_t est, exact;
	double diff;

	(void)arg;
	if (accuracy_of(R(ctx), EVENT(row), &est, &exact, &diff) && !isnan(diff)) {
		v->kind = VIEW_F64;
		v->d = diff;
	}
}

/* The difference as the text ("%+.2f %", ARG 0) and the CSV ("%.3f", ARG 1) write it. */
static void get_acc_diff_fmt(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	get_acc_diff(ctx, row, arg, v);
	if (v->kind != VIEW_F64)
		return;
	snprintf(v->buf, sizeof(v->buf), arg ? "%.3f" : "%+.2f %%", v->d);
	view_set_str(v, v->buf);
}

/* Where the formats write a value differently (an exact count not counted, the difference's
 * decimals), a column appears once per format. */
static const struct view_col accuracy_cols[] = {
    {"event", "event", VIEW_STR, TABLE_LEFT, ALL | ENT, get_acc_event, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"estimated", "estimated", VIEW_COUNT, TABLE_RIGHT, ALL, get_acc_estimated, 0, "not supported",
     NULL, NULL, NULL, NULL},
    {"exact", "exact", VIEW_COUNT, TABLE_RIGHT, TEXT, get_acc_exact_text, 0, "not counted", NULL,
     NULL, NULL, NULL},
    {"exact", "exact", VIEW_COUNT, TABLE_RIGHT, CSV | JSON, get_acc_exact, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"diff_pct", "diff_pct", VIEW_PCT, TABLE_RIGHT, TEXT, get_acc_diff_fmt, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"diff_pct", "diff_pct", VIEW_PCT, TABLE_RIGHT, CSV, get_acc_diff_fmt, 1, NULL, NULL, NULL,
     NULL, NULL},
    {"diff_pct", "diff_pct", VIEW_PCT, TABLE_RIGHT, JSON, get_acc_diff, 0, NULL, NULL, NULL, NULL,
     NULL},
};

const struct view_col *sample_accuracy_view_cols(size_t *n)
{
	*n = sizeof(accuracy_cols) / sizeof(accuracy_cols[0]);
	return accuracy_cols;
}
