/* stat-thread-view.c - the columns of `perfscope stat --per-thread`'s tables (stat-view.h). */
#include "view/stat-view.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RUN(ctx) (&((const struct stat_result *)(ctx))->runs[0])
#define RES(ctx) ((const struct stat_result *)(ctx))

/* A thread, the total or the unattributed part; in the thread events' table, of event I. */
struct trow {
	enum { TR_THREAD, TR_TOTAL, TR_UNATTR } kind;
	const struct stat_thread *t; /* a thread's */
	size_t i;
	const void **events; /* the threads' table in JSON: the thread's events' rows */
};

#define TROW(row) ((const struct trow *)(row))

/* The separator line of the threads' text. */
static const char separator[1];

/* The events every thread table shows: those the totals counted. */
static int shown(const struct stat_run *run, size_t i)
{
	return run->status[i] == 0;
}

/* ROW's value of event I, scaled: 0 and *OUT, or -ENODATA when it was not counted (the total
 * of an event the threads' table does not show neither). */
static int row_value(const void *ctx, const struct trow *r, size_t i, uint64_t *out)
{
	const struct stat_run *run = RUN(ctx);

	if (r->kind == TR_THREAD)
		return r->t->status[i] ? -ENODATA : count_scale(&r->t->counts[i], out);
	return shown(run, i) ? count_scale(&run->counts[i], out) : -ENODATA;
}

/* The count ROW's running ratio of event I is read from. */
static const struct count *row_count(const void *ctx, const struct trow *r, size_t i)
{
	return r->kind == TR_THREAD ? &r->t->counts[i] : &RUN(ctx)->counts[i];
}

/* ARG: 0 pid, 1 tid; a thread's only */
static void get_pid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;

	(void)ctx;
	if (r->kind != TR_THREAD)
		return;
	v->kind = VIEW_I64;
	v->i = arg ? r->t->tid : r->t->pid;
}

/* ARG: 0 the text's name (the thread's, "?" when unknown, total, unattributed), 1 the thread's
 * as recorded */
static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;

	(void)ctx;
	v->kind = VIEW_S;
	if (arg && r->kind == TR_THREAD)
		v->s = r->t->name;
	else if (arg)
		v->kind = VIEW_NULL;
	else
		v->s = r->kind == TR_TOTAL    ? "total"
		       : r->kind == TR_UNATTR ? "unattributed"
		       : r->t->name[0]	      ? r->t->name
					      : "?";
}

/* The text's cell of event ARG: a thread's count or "-", the total, the unattributed part. */
static void get_count(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;
	int64_t d;
	char a[64];

	if (r->kind == TR_UNATTR) {
		if (stat_run_unattributed(RUN(ctx), arg, &d))
			return;
		fmt_count(a, sizeof(a), (uint64_t)(d < 0 ? -d : d));
		snprintf(v->buf, sizeof(v->buf), "%s%s", d < 0 ? "-" : "", a);
		v->kind = VIEW_S;
		v->s = v->buf;
	} else if (row_value(ctx, r, arg, &v->u) == 0) {
		v->kind = VIEW_U64;
	} else if (r->kind == TR_THREAD) {
		v->kind = VIEW_S;
		v->s = "-";
	}
}

/* The text's running: a thread's lowest running ratio over the events shown, "-" when none
 * was counted. */
static void get_running(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;
	double low = 1.0;
	int counted = 0;
	uint64_t x;

	(void)arg;
	if (r->kind != TR_THREAD)
		return;
	for (size_t i = 0; i < RES(ctx)->nevents; i++) {
		if (!shown(RUN(ctx), i) || row_value(ctx, r, i, &x))
			continue;
		counted = 1;
		if (count_running_ratio(&r->t->counts[i]) < low)
			low = count_running_ratio(&r->t->counts[i]);
	}
	v->kind = VIEW_S;
	v->s = counted ? v->buf : "-";
	if (counted)
		snprintf(v->buf, sizeof(v->buf), "%.1f%%", 100 * low);
}

/* --- a thread's events, the totals and the unattributed parts */

static void get_kind(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	static const char *const kinds[] = {"thread", "total", "unattributed"};

	(void)ctx, (void)arg;
	v->kind = VIEW_S;
	v->s = kinds[TROW(row)->kind];
}

static void get_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	v->kind = VIEW_S;
	v->s = RES(ctx)->events[TROW(row)->i].name;
}

/* ARG: 0 value, 1 running % (CSV), 2 running ratio (JSON); none when not counted */
static void get_value(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;
	uint64_t x;

	if (r->kind == TR_UNATTR) {
		if (arg == 0 && stat_run_unattributed(RUN(ctx), r->i, &v->i) == 0)
			v->kind = VIEW_I64;
		else if (arg == 0)
			return;
	} else if (row_value(ctx, r, r->i, &x)) {
		return;
	} else if (arg == 0) {
		v->kind = VIEW_U64;
		v->u = x;
	}
	if (arg == 1) {
		snprintf(v->buf, sizeof(v->buf), "%.2f",
			 100 * count_running_ratio(row_count(ctx, r, r->i)));
		v->kind = VIEW_S;
		v->s = v->buf;
	} else if (arg == 2) {
		v->kind = VIEW_F64;
		v->d = count_running_ratio(row_count(ctx, r, r->i));
	}
}

static void get_status(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct trow *r = row;
	uint64_t x;

	(void)arg;
	v->kind = VIEW_S;
	if (r->kind == TR_UNATTR || row_value(ctx, r, r->i, &x) == 0)
		v->s = "counted";
	else if (r->kind == TR_THREAD && r->t->status[r->i])
		v->s = strerror(-r->t->status[r->i]);
	else
		v->s = "not counted";
}

static void json_counted(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	uint64_t x;

	(void)arg;
	jsonw_bool(w, row_value(ctx, row, TROW(row)->i, &x) == 0);
}

#define TXT VIEW_IN_TEXT
#define JSN VIEW_IN_JSON
#define CSV VIEW_IN_CSV
#define ENT VIEW_ENTITY
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

/* JSON without the view's option: an unattributed part (name, value) */
static const struct view_col event_cols[] = {
    COL("row", "row", VIEW_STR, TABLE_LEFT, CSV | ENT, get_kind, 0),
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_pid, 0),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_pid, 1),
    COL("name", "name", VIEW_STR, TABLE_LEFT, CSV | ENT, get_name, 1),
    COL("event", "event", VIEW_STR, TABLE_LEFT, CSV | ENT, get_event, 0),
    COL("name", "event", VIEW_STR, TABLE_LEFT, JSN, get_event, 0),
    COL("counted", "counted", VIEW_STR, TABLE_LEFT, JSN | VIEW_OPTION, get_status, 0,
	.json = json_counted),
    COL("value", "value", VIEW_COUNT, TABLE_RIGHT, CSV | JSN, get_value, 0),
    COL("running_pct", "running %", VIEW_PCT, TABLE_RIGHT, CSV, get_value, 1),
    COL("running_ratio", "running", VIEW_DOUBLE, TABLE_RIGHT, JSN | VIEW_OPTION, get_value, 2),
    COL("status", "status", VIEW_STR, TABLE_LEFT, CSV, get_status, 0),
};

#define NEVENT_COLS (sizeof(event_cols) / sizeof(event_cols[0]))

static void json_events(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	struct view v = {.cols = event_cols,
			 .ncols = NEVENT_COLS,
			 .rows = TROW(row)->events,
			 .nrows = RES(ctx)->nevents,
			 .ctx = ctx,
			 .option = 1};

	(void)arg;
	view_json_rows(w, &v);
}

static const struct view_col thread_cols[] = {
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, TXT | JSN | ENT, get_pid, 0),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, TXT | JSN | ENT, get_pid, 1),
    COL("name", "name", VIEW_STR, TABLE_LEFT, TXT, get_name, 0),
    COL("name", "name", VIEW_STR, TABLE_LEFT, JSN, get_name, 1),
    COL("events", "events", VIEW_STR, TABLE_LEFT, JSN, get_name, 1, .json = json_events),
};

#define NTHREAD_COLS (sizeof(thread_cols) / sizeof(thread_cols[0]))

/* The threads' columns into COLS: the fixed ones, one per event shown, the running ratio;
 * their number. */
static size_t make_thread_cols(const struct stat_result *res, struct view_col *cols)
{
	size_t n = NTHREAD_COLS;

	memcpy(cols, thread_cols, sizeof(thread_cols));
	for (size_t i = 0; i < res->nevents; i++)
		if (shown(&res->runs[0], i))
			cols[n++] =
			    (struct view_col)COL(res->events[i].name, res->events[i].name,
						 VIEW_COUNT, TABLE_RIGHT, TXT, get_count, i);
	cols[n++] =
	    (struct view_col)COL("running", "running", VIEW_STR, TABLE_RIGHT, TXT, get_running, 0);
	return n;
}

/* Every thread's events into ROWS and R, thread by thread; their number. */
static size_t thread_event_rows(const struct stat_result *res, const void **rows, struct trow *r)
{
	const struct stat_run *run = &res->runs[0];
	size_t n = 0;

	for (size_t k = 0; k < run->nthreads; k++)
		for (size_t i = 0; i < res->nevents; i++, n++) {
			r[n] = (struct trow){.kind = TR_THREAD, .t = &run->threads[k], .i = i};
			rows[n] = &r[n];
		}
	return n;
}

/* The totals and unattributed parts (UNATTR_ONLY: those only) after N rows; the new count. */
static size_t total_rows(const struct stat_result *res, const void **rows, struct trow *r, size_t n,
			 int unattr_only)
{
	int64_t d;

	for (size_t i = 0; i < res->nevents; i++) {
		if (!unattr_only) {
			r[n] = (struct trow){.kind = TR_TOTAL, .i = i};
			rows[n] = &r[n];
			n++;
		}
		if (stat_run_unattributed(&res->runs[0], i, &d) == 0) {
			r[n] = (struct trow){.kind = TR_UNATTR, .i = i};
			rows[n] = &r[n];
			n++;
		}
	}
	return n;
}

int stat_threads_view_make(struct view *v, const struct stat_result *res, enum stat_table t,
			   enum out_format fmt)
{
	size_t nth = res->nruns ? res->runs[0].nthreads : 0, nev = res->nevents;
	size_t max = nth * nev + 2 * nev + nth + 3, ncols = NTHREAD_COLS + nev + 1;
	size_t head = max * (sizeof(void *) + sizeof(struct trow));
	char *block = calloc(1, head + ncols * sizeof(struct view_col));
	const void **rows = (const void **)block, **te = rows + nth + 3;
	struct trow *r = (struct trow *)(rows + max), *ter = r + nth + 3;
	struct view_col *cols = (struct view_col *)(block + head);

	*v = (struct view){.rows = rows, .ctx = res, .separator = separator};
	if (!block)
		return -ENOMEM;
	if (t == STAT_TABLE_THREAD_EVENTS) {
		v->cols = event_cols;
		v->ncols = NEVENT_COLS;
		if (nth && fmt != OUT_JSON)
			v->nrows = thread_event_rows(res, rows, r);
		if (res->nruns)
			v->nrows = total_rows(res, rows, r, v->nrows, fmt == OUT_JSON);
		return 0;
	}
	v->cols = cols;
	v->ncols = make_thread_cols(res, cols);
	if (nth)
		thread_event_rows(res, te, ter);
	for (size_t k = 0; k < nth; k++) {
		r[k] = (struct trow){.kind = TR_THREAD, .t = &res->runs[0].threads[k]};
		r[k].events = te + k * nev;
		rows[v->nrows++] = &r[k];
	}
	if (fmt != OUT_TEXT || !res->nruns)
		return 0;
	rows[v->nrows++] = separator;
	r[nth] = (struct trow){.kind = TR_TOTAL};
	r[nth + 1] = (struct trow){.kind = TR_UNATTR};
	rows[v->nrows++] = &r[nth];
	rows[v->nrows++] = &r[nth + 1];
	return 0;
}
