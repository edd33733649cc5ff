/* region-view.c - the columns of the region profile, and sorting by them. */
#include "view/region-view.h"

#include "pmu/counters.h"
#include "lib/jsonw.h"
#include "view/region-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define R(ctx)	 ((const struct region_report *)(ctx))
#define ROW(row) ((const struct region_row *)(row))

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_S;
	v->s = ROW(row)->name;
}

static void get_pid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_I64;
	v->i = ROW(row)->pid;
}

/* The row's thread (per thread only). */
static const struct thread_summary *thread_of(const void *ctx, const void *row)
{
	return &R(ctx)->p->threads[ROW(row)->thread];
}

/* Text: the thread's id per thread, after its OpenMP label for a thread of a team ("omp
 * thread 1 of rank 0 · 16915"); "all" merged. */
static void get_thread_text(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct thread_summary *t;

	(void)arg;
	if (!R(ctx)->per_thread) {
		view_set_str(v, "all");
		return;
	}
	t = thread_of(ctx, row);
	view_set_thread_label(v, ROW(row)->tid, t->omp_tasks, t->omp_thread_min, t->omp_thread_max,
			      t->rank);
}

/* The OpenMP thread number of the row's thread (per thread only). */
static void get_omp_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct thread_summary *t = thread_of(ctx, row);

	(void)arg;
	view_set_omp_thread(v, t->omp_tasks, t->omp_thread_min, t->omp_thread_max);
}

/* The thread's id per thread, "all" merged. */
static void get_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (R(ctx)->per_thread) {
		v->kind = VIEW_I64;
		v->i = ROW(row)->tid;
	} else {
		v->kind = VIEW_S;
		v->s = "all";
	}
}

static void get_calls(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_U64;
	v->u = ROW(row)->calls;
}

static void get_unclosed(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	v->kind = VIEW_U64;
	v->u = ROW(row)->unclosed;
}

static void get_incl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, ROW(row)->incl_ns);
}

static void get_excl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, ROW(row)->excl_ns);
}

static void get_mean(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct region_row *x = row;

	(void)ctx, (void)arg;
	view_set_f64(v, x->calls ? x->incl_ns / (double)x->calls : 0);
}

static void get_min(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, ROW(row)->min_ns < 0 ? 0 : ROW(row)->min_ns);
}

static void get_max(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, ROW(row)->max_ns);
}

/* Event ARG's scaled count ("*" after it in text when multiplexed), not counted: null. */
static void get_event(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	uint64_t value;

	(void)ctx;
	if (region_row_value(ROW(row), arg, &value))
		return;
	v->kind = VIEW_U64;
	v->u = value;
	if (count_is_scaled(&ROW(row)->counts[arg]))
		v->suffix = "*";
}

static void get_metric(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	double value;

	if (!region_row_metric(R(ctx)->p, ROW(row), &R(ctx)->metrics[arg], &value, NULL, 0))
		view_set_f64(v, value);
}

/* JSON "counters": each event as {value, running_ratio, scaled}, or null where not counted. */
static void json_counters(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct region_profile *p = R(ctx)->p;
	const struct region_row *x = row;

	(void)arg;
	jsonw_object_begin(w);
	for (size_t i = 0; i < p->nevents; i++) {
		uint64_t v;

		jsonw_key(w, p->events[i]);
		if (region_row_value(x, i, &v)) {
			jsonw_null(w);
			continue;
		}
		jsonw_object_begin(w);
		jsonw_kv_u64(w, "value", v);
		jsonw_kv_double(w, "running_ratio", count_running_ratio(&x->counts[i]));
		jsonw_kv_bool(w, "scaled", count_is_scaled(&x->counts[i]));
		jsonw_object_end(w);
	}
	jsonw_object_end(w);
}

/* JSON "metrics": each metric's value, or null. */
static void json_metrics(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct region_report *r = ctx;

	(void)arg;
	jsonw_object_begin(w);
	for (size_t m = 0; m < r->nmetrics; m++) {
		double v;

		jsonw_key(w, r->metrics[m].name);
		if (region_row_metric(r->p, row, &r->metrics[m], &v, NULL, 0))
			jsonw_null(w);
		else
			jsonw_double(w, v);
	}
	jsonw_object_end(w);
}

#define TEXT VIEW_IN_TEXT
#define CSV  VIEW_IN_CSV
#define JSON VIEW_IN_JSON
#define ALL  VIEW_IN_ALL

/* The fixed columns, in the text's order (the CSV has the same; JSON has no mean and says
 * how many regions were left open). */
static const struct view_col region_cols[] = {
    {"name", "region", VIEW_STR, TABLE_LEFT, ALL | VIEW_ENTITY | VIEW_ASCENDING, get_name, 0, NULL,
     "name", "name", "thread", NULL},
    {"pid", "pid", VIEW_INT, TABLE_RIGHT, JSON | VIEW_PER_THREAD, get_pid, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, CSV | JSON | VIEW_ENTITY | VIEW_ASCENDING,
     get_thread, 0, NULL, NULL, NULL, NULL, NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, TEXT, get_thread_text, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"omp_thread", "omp thread", VIEW_INT, TABLE_RIGHT,
     CSV | JSON | VIEW_ENTITY | VIEW_PER_THREAD | VIEW_OPENMP, get_omp_thread, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"calls", "calls", VIEW_COUNT, TABLE_RIGHT, ALL, get_calls, 0, NULL, "calls", "calls", "name",
     NULL},
    {"incl_ns", "inclusive", VIEW_NS, TABLE_RIGHT, ALL, get_incl, 0, NULL, "incl", "inclusive time",
     "name", NULL},
    {"excl_ns", "exclusive", VIEW_NS, TABLE_RIGHT, ALL, get_excl, 0, NULL, "excl", "exclusive time",
     "name", NULL},
    {"mean_ns", "mean", VIEW_NS, TABLE_RIGHT, TEXT | CSV, get_mean, 0, NULL, "mean",
     "mean time per call", "name", NULL},
    {"min_ns", "min", VIEW_NS, TABLE_RIGHT, ALL, get_min, 0, NULL, NULL, NULL, NULL, NULL},
    {"max_ns", "max", VIEW_NS, TABLE_RIGHT, ALL, get_max, 0, NULL, "max", "longest call", "name",
     NULL},
    {"unclosed", "unclosed", VIEW_COUNT, TABLE_RIGHT, JSON, get_unclosed, 0, NULL, NULL, NULL, NULL,
     NULL},
};

#define NFIXED (sizeof(region_cols) / sizeof(region_cols[0]))

int region_view_cols(const struct region_report *r, struct view_col **cols, size_t *n)
{
	size_t ne = r->p->nevents, nm = r->nmetrics, k = NFIXED;
	struct view_col *c = calloc(NFIXED + ne + nm + 2, sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, region_cols, sizeof(region_cols));
	for (size_t i = 0; i < ne; i++, k++)
		c[k] = (struct view_col){r->p->events[i],
					 r->p->events[i],
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
	for (size_t m = 0; m < nm; m++, k++)
		c[k] = (struct view_col){r->metrics[m].name,
					 r->metrics[m].name,
					 VIEW_DOUBLE,
					 TABLE_RIGHT,
					 TEXT | CSV,
					 get_metric,
					 m,
					 "n/a",
					 NULL,
					 NULL,
					 NULL,
					 NULL};
	c[k++] =
	    (struct view_col){"counters", "counters", VIEW_STR, TABLE_LEFT, JSON, NULL,
			      0,	  NULL,	      NULL,	NULL,	    NULL, json_counters};
	c[k++] = (struct view_col){"metrics", "metrics", VIEW_STR, TABLE_LEFT, JSON, NULL,
				   0,	      NULL,	 NULL,	   NULL,       NULL, json_metrics};
	*cols = c;
	*n = k;
	return 0;
}

int region_view_sort(struct region_profile *p, const char *word, int per_thread, const char **label)
{
	struct region_report r = {.p = p, .per_thread = per_thread};
	struct view_order o = {region_cols, NFIXED, view_sort_col(region_cols, NFIXED, word), &r,
			       per_thread};

	if (!o.by)
		return -EINVAL;
	if (label)
		*label = o.by->sort_label;
	if (p->nrows)
		qsort_r(p->rows, p->nrows, sizeof(*p->rows), view_order_cmp, &o);
	return 0;
}

int region_view_sortable(const char *word)
{
	return view_sort_col(region_cols, NFIXED, word) != NULL;
}

void report_sort_words(char *buf, size_t len)
{
	/* the order the words have always been listed in, each a sort word of the table */
	static const char *const words[] = {"incl", "excl", "calls", "mean", "max", "name"};
	const size_t n = sizeof(words) / sizeof(words[0]);
	struct view_col listed[sizeof(words) / sizeof(words[0])];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct view_col *c = view_sort_col(region_cols, NFIXED, words[i]);

		if (c)
			listed[k++] = *c;
	}
	view_sort_words(listed, k, buf, len);
}
