/* func-view.c - the columns of the function profile and of its call tree, and sorting by them. */
#include "view/func-view.h"
#include "lib/path.h"

#include "lib/array.h"
#include "view/func-print.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define R(ctx)	 ((const struct func_report *)(ctx))
#define ROW(row) ((const struct func_row *)(row))

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, ROW(row)->sym.name);
}

static void get_pid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ROW(row)->pid);
}

/* Text: the thread's id per thread, after its OpenMP label for a thread of a team ("omp
 * thread 1 of rank 0 · 16915"); "all" merged. */
static void get_thread_text(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_report *r = R(ctx);
	const struct func_thread *t;
	const struct exp_process *proc;

	(void)arg;
	if (!r->per_thread) {
		view_set_str(v, "all");
		return;
	}
	t = &r->p->threads[ROW(row)->thread];
	proc = r->e ? experiment_process(r->e, t->pid, t->image) : NULL;
	view_set_thread_label(v, ROW(row)->tid, t->th.omp_tasks, t->th.omp_thread_min,
			      t->th.omp_thread_max, proc ? proc->rank : -1);
}

/* The thread's id per thread, "all" merged. */
static void get_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (R(ctx)->per_thread)
		view_set_i64(v, ROW(row)->tid);
	else
		view_set_str(v, "all");
}

/* The OpenMP thread number of the row's thread ("1"; "1-3" for a thread that ran the implicit
 * tasks of several), not counted for a thread of no team. */
static void get_omp_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_thread *t = &R(ctx)->p->threads[ROW(row)->thread];

	(void)arg;
	view_set_omp_thread(v, t->th.omp_tasks, t->th.omp_thread_min, t->th.omp_thread_max);
}

static void get_calls(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->calls);
}

static void get_incl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ROW(row)->incl_ns);
}

static void get_excl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ROW(row)->excl_ns);
}

static void get_excl_pct(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_f64(v, pct(ROW(row)->excl_ns, R(ctx)->p->total_ns));
}

static void get_mean(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_row *x = row;

	(void)ctx, (void)arg;
	view_set_f64(v, x->calls ? (double)x->sum_ns / x->calls : 0);
}

static void get_min(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ROW(row)->min_ns);
}

static void get_max(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ROW(row)->max_ns);
}

/* "file.c:12" (base name), else the module's base name, else nothing. */
static void get_source(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_row *x = row;
	const char *file = sym_info_def_file(&x->sym);

	(void)ctx, (void)arg;
	if (file[0]) {
		snprintf(v->buf, sizeof(v->buf), "%s:%u", path_base(file),
			 sym_info_def_line(&x->sym));
		view_set_str(v, v->buf);
	} else if (x->sym.module[0]) {
		view_set_str(v, path_base(x->sym.module));
	}
}

static void get_file(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, sym_info_def_file(&ROW(row)->sym));
}

/* The line, not counted (an empty CSV cell) when unknown. */
static void get_line_known(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	if (sym_info_def_line(&ROW(row)->sym))
		view_set_u64(v, sym_info_def_line(&ROW(row)->sym));
}

static void get_line(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, sym_info_def_line(&ROW(row)->sym));
}

static void get_module(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, ROW(row)->sym.module);
}

/* The row's load imbalance over threads and ranks; not given where it does not apply. */
static void get_imbalance(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	double imb = func_profile_imbalance(R(ctx)->p, ROW(row));

	(void)arg;
	if (!isnan(imb))
		view_set_f64(v, imb);
}

static void get_unclosed(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ROW(row)->synthetic);
}

#define TEXT VIEW_IN_TEXT
#define CSV  VIEW_IN_CSV
#define JSON VIEW_IN_JSON
#define ALL  VIEW_IN_ALL
#define ENT  VIEW_ENTITY
#define PT   VIEW_PER_THREAD

/* One table for the three formats; where their order or form differs (the text's share after
 * the exclusive time, JSON's after the longest call; the CSV's line empty when unknown), a
 * column appears once per form, with the formats it is in. */
static const struct view_col func_cols[] = {
    {"name", "function", VIEW_STR, TABLE_LEFT, ALL | ENT | VIEW_ASCENDING, get_name, 0, NULL,
     "name", "name", "thread", NULL},
    {"pid", "pid", VIEW_INT, TABLE_RIGHT, JSON | PT, get_pid, 0, NULL, NULL, NULL, NULL, NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, TEXT | PT, get_thread_text, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT | VIEW_ASCENDING, get_thread, 0,
     NULL, NULL, NULL, NULL, NULL},
    {"omp_thread", "omp thread", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT | PT | VIEW_OPENMP,
     get_omp_thread, 0, NULL, NULL, NULL, NULL, NULL},
    {"calls", "calls", VIEW_COUNT, TABLE_RIGHT, ALL, get_calls, 0, NULL, "calls", "calls", "name",
     NULL},
    {"incl_ns", "inclusive", VIEW_NS, TABLE_RIGHT, ALL, get_incl, 0, NULL, "incl", "inclusive time",
     "name", NULL},
    {"excl_ns", "exclusive", VIEW_NS, TABLE_RIGHT, ALL, get_excl, 0, NULL, "excl", "exclusive time",
     "name", NULL},
    {"excl_pct", "excl %", VIEW_PCT, TABLE_RIGHT, TEXT, get_excl_pct, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"mean_ns", "mean", VIEW_NS, TABLE_RIGHT, TEXT | JSON, get_mean, 0, NULL, "mean",
     "mean time per call", "name", NULL},
    {"min_ns", "min", VIEW_NS, TABLE_RIGHT, ALL, get_min, 0, NULL, NULL, NULL, NULL, NULL},
    {"max_ns", "max", VIEW_NS, TABLE_RIGHT, ALL, get_max, 0, NULL, "max", "longest call", "name",
     NULL},
    {"excl_pct", "excl %", VIEW_PCT, TABLE_RIGHT, JSON, get_excl_pct, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"imbalance_pct", "imbalance", VIEW_PCT, TABLE_RIGHT, ALL | VIEW_OPTION, get_imbalance, 0, "-",
     NULL, NULL, NULL, NULL},
    {"source", "source", VIEW_STR, TABLE_LEFT, TEXT, get_source, 0, NULL, NULL, NULL, NULL, NULL},
    {"file", "file", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_file, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"line", "line", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_line_known, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"line", "line", VIEW_INT, TABLE_RIGHT, JSON, get_line, 0, NULL, NULL, NULL, NULL, NULL},
    {"module", "module", VIEW_STR, TABLE_LEFT, JSON, get_module, 0, NULL, NULL, NULL, NULL, NULL},
    {"unclosed_calls", "unclosed", VIEW_COUNT, TABLE_RIGHT, JSON, get_unclosed, 0, NULL, NULL, NULL,
     NULL, NULL},
};

const struct view_col *func_view_cols(size_t *n)
{
	*n = sizeof(func_cols) / sizeof(func_cols[0]);
	return func_cols;
}

int func_view_sort(struct func_profile *p, const char *word, int per_thread, const char **label)
{
	struct func_report r = {.p = p, .per_thread = per_thread};
	size_t n = sizeof(func_cols) / sizeof(func_cols[0]);
	struct view_order o = {func_cols, n, view_sort_col(func_cols, n, word), &r, per_thread};

	if (!o.by)
		return -EINVAL;
	if (label)
		*label = o.by->sort_label;
	return func_profile_sort(p, view_order_cmp, &o);
}

#define TROW(row)      ((const struct func_tree_row *)(row))
#define TCTX(ctx)      ((const struct func_tree_ctx *)(ctx))
#define NODE(ctx, row) (&TCTX(ctx)->t->nodes[TROW(row)->node])

/* The names from the root down to the node, joined by ';' (the folded stacks' form). */
static void get_path(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_tree_ctx *c = ctx;
	const struct func_profile *p = c->r->p;
	size_t len = 0, node = TROW(row)->node, at;

	(void)arg;
	for (size_t k = node; k != FUNC_NO_PARENT; k = c->t->nodes[k].parent)
		len += strlen(p->rows[c->t->nodes[k].row].sym.name) + 1;
	if (array_reserve((void **)&c->path->buf, &c->path->cap, len, 1))
		return; /* out of memory: the path is not given */
	at = len - 1;
	c->path->buf[at] = '\0';
	for (size_t k = node; k != FUNC_NO_PARENT; k = c->t->nodes[k].parent) {
		const char *name = p->rows[c->t->nodes[k].row].sym.name;
		size_t l = strlen(name);

		at -= l;
		memcpy(c->path->buf + at, name, l);
		if (at)
			c->path->buf[--at] = ';';
	}
	view_set_str(v, c->path->buf);
}

static void get_tname(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, TCTX(ctx)->r->p->rows[NODE(ctx, row)->row].sym.name);
}

static void get_tthread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (TCTX(ctx)->r->per_thread)
		view_set_i64(v, TCTX(ctx)->r->p->threads[NODE(ctx, row)->thread].tid);
	else
		view_set_str(v, "all");
}

static void get_depth(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, TROW(row)->depth);
}

static void get_tcalls(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, NODE(ctx, row)->calls);
}

static void get_tincl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_i64(v, NODE(ctx, row)->incl_ns);
}

static void get_texcl(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_i64(v, NODE(ctx, row)->excl_ns);
}

static void get_tpct(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_f64(v, pct(NODE(ctx, row)->incl_ns, TCTX(ctx)->r->p->total_ns));
}

static void get_levels(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, TCTX(ctx)->t->levels[TROW(row)->node]);
}

static const struct view_col tree_cols[] = {
    {"path", "path", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_path, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"name", "function", VIEW_STR, TABLE_LEFT, ALL | ENT, get_tname, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"thread", "thread", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT, get_tthread, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"depth", "depth", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT, get_depth, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"calls", "calls", VIEW_COUNT, TABLE_RIGHT, ALL, get_tcalls, 0, NULL, NULL, NULL, NULL, NULL},
    {"incl_ns", "inclusive", VIEW_NS, TABLE_RIGHT, ALL, get_tincl, 0, NULL, NULL, NULL, NULL, NULL},
    {"excl_ns", "exclusive", VIEW_NS, TABLE_RIGHT, ALL, get_texcl, 0, NULL, NULL, NULL, NULL, NULL},
    {"incl_pct", "%", VIEW_PCT, TABLE_RIGHT, ALL, get_tpct, 0, NULL, NULL, NULL, NULL, NULL},
    {"recursion_levels", "levels", VIEW_COUNT, TABLE_RIGHT, CSV | JSON, get_levels, 0, NULL, NULL,
     NULL, NULL, NULL},
};

const struct view_col *func_tree_view_cols(size_t *n)
{
	*n = sizeof(tree_cols) / sizeof(tree_cols[0]);
	return tree_cols;
}
