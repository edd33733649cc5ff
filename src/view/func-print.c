/* func-print.c - rendering of the function profile, its call tree and its caveats. */
#include "view/func-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
#include "view/table.h"

#include "view/func-view.h"

#include "format/format.h"
#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int row_shown(const struct func_report *r, const struct func_row *row)
{
	return row->incl_ns >= r->min_ns;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* How a thread's stream ended, in words. */
static void end_words(const struct call_thread *th, char *buf, size_t len)
{
	unsigned reason = th->end_reason & 0xff, sig = th->end_reason >> 8;

	if (!th->ended)
		snprintf(buf, len, "no end record: killed (SIGKILL?); data up to the last chunk%s",
			 th->truncated_at ? ", last chunk cut" : "");
	else if (reason == PSC_END_SIGNAL)
		snprintf(buf, len, "signal %u (SIG%s)", sig, sigabbrev_np((int)sig) ?: "?");
	else if (reason == PSC_END_EXEC)
		snprintf(buf, len, "exec");
	else if (reason == PSC_END_UNCLOSED)
		snprintf(buf, len,
			 "not closed (killed by SIGKILL, or left through _exit): its records "
			 "recovered from its buffer");
	else if (reason == PSC_END_THREAD_EXIT)
		snprintf(buf, len, "thread exit");
	else
		snprintf(buf, len, "exit");
}

static int thread_clean(const struct call_thread *th)
{
	unsigned reason = th->end_reason & 0xff;

	return th->ended && reason != PSC_END_SIGNAL && reason != PSC_END_UNCLOSED;
}

void func_report_caveats(const struct func_report *r, void (*fn)(void *ctx, const char *line),
			 void *ctx)
{
	const struct func_profile *p = r->p;
	char how[160];

	if (p->function_records == 0 && p->no_records_caveat) {
		fn(ctx, p->no_records_caveat);
	} else if (p->function_records == 0) {
		fn(ctx, "no function events were recorded: build the program with "
			"-finstrument-functions and record it with perfscope record --functions");
	}
	experiment_caveats(r->e, 0, fn, ctx);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct func_thread *t = &p->threads[i];

		if (!thread_clean(&t->th)) {
			const struct exp_process *pr = experiment_process(r->e, t->pid, t->image);

			end_words(&t->th, how, sizeof(how));
			/* the process ended well but could not write the stream's end (record
			 * then completed it from the buffer: "unclosed") */
			if ((!t->th.ended || (t->th.end_reason & 0xff) == PSC_END_UNCLOSED) && pr &&
			    pr->error[0] && strcmp(pr->state, "running"))
				snprintf(how, sizeof(how),
					 "its last records could not be written "
					 "(see the process's error)");
			caveat_say(fn, ctx, "thread %d of process %d did not end cleanly: %s",
				   (int)t->tid, (int)t->pid, how);
		}
		if (t->th.lost_records || t->th.lost_bytes) {
			caveat_say(fn, ctx,
				   "thread %d: %" PRIu64 " records lost, %" PRIu64
				   " bytes of chunks not written",
				   (int)t->tid, t->th.lost_records, t->th.lost_bytes);
		}
	}
	if (p->synthetic_exits) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " calls had no exit record (the run was killed, or called exit, "
			   "pthread_exit or exec, or longjmp or an exception skipped them): "
			   "closed at the next exit of a caller or at the last timestamp",
			   p->synthetic_exits);
	}
	if (p->unwound) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " calls were left by a longjmp or an exception without running their "
			   "exit: closed where the runtime saw the jump (the next call or return "
			   "of a caller)",
			   p->unwound);
	}
	if (p->unmatched_exits) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " exits without a recorded entry (calls begun before recording) "
			   "ignored",
			   p->unmatched_exits);
	}
}

static size_t threads_traced(const struct func_profile *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nthreads; i++)
		n += p->threads[i].th.function_records > 0;
	return n;
}

/* Calls over all rows: completed ones and those a cut run left open (closed by the reader), as
 * the text heading and the JSON total both say. */
static uint64_t profile_calls(const struct func_profile *p)
{
	uint64_t calls = 0;

	for (size_t k = 0; k < p->nrows; k++)
		if (!p->rows[k].omp_frame) /* an OpenMP construct is no call */
			calls += p->rows[k].calls;
	return calls;
}

/* The rows R shows, in order (at most R->top of those --min-time leaves), into *ROWS; *ELIGIBLE
 * gets how many --min-time leaves. 0 or -ENOMEM. */
static int shown_rows(const struct func_report *r, const void ***rows, size_t *nrows,
		      size_t *eligible)
{
	const struct func_profile *p = r->p;

	*nrows = *eligible = 0;
	*rows = malloc((p->nrows + 1) * sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (size_t k = 0; k < p->nrows; k++) {
		if (!row_shown(r, &p->rows[k]))
			continue;
		++*eligible;
		if (!r->top || *nrows < r->top)
			(*rows)[(*nrows)++] = &p->rows[k];
	}
	return 0;
}

static void func_view_of(struct view *v, const struct func_report *r, const void **rows, size_t n)
{
	*v = (struct view){0};
	v->cols = func_view_cols(&v->ncols);
	v->rows = rows;
	v->nrows = n;
	v->ctx = r;
	v->per_thread = r->per_thread;
	/* the load imbalance, in a profile merged over two threads or more */
	v->option = !r->per_thread && r->p->traced_threads >= 2;
	/* the threads' OpenMP numbers, per thread when some thread ran a team's tasks */
	for (size_t i = 0; r->per_thread && i < r->p->nthreads && !v->openmp; i++)
		v->openmp = r->p->threads[i].th.omp_tasks > 0;
}

static int print_text(const struct func_report *r, const struct view *v, size_t eligible, FILE *f)
{
	const struct func_profile *p = r->p;
	int ret = 0;

	if (p->function_records) {
		char buf[64], total[32];
		uint64_t calls = profile_calls(p);

		fmt_count(buf, sizeof(buf), calls);
		fmt_duration(total, sizeof(total), (double)p->total_ns);
		fprintf(f, "\nFunctions%s, by %s: %s call%s in %zu thread%s, %s traced",
			r->per_thread ? " per thread" : "",
			r->sort_label ? r->sort_label : "exclusive time", buf,
			calls == 1 ? "" : "s", threads_traced(p), threads_traced(p) == 1 ? "" : "s",
			total);
		if (v->nrows < eligible)
			fprintf(f, " (top %zu of %zu)", v->nrows, eligible);
		fprintf(f, ":\n");
		ret = view_print_text(v, f, "  ");
	}
	func_report_caveats(r, caveat_text, f);
	if (ret)
		return ret;
	return ferror(f) ? -EIO : 0;
}

/* Children of every node of a tree, in one array: kids[first[n] .. first[n + 1]), by inclusive
 * time, the longest first; slot N (the number of nodes) holds the roots. */
struct tree_index {
	size_t *first, *kids;
};

static int kid_cmp(const void *a, const void *b, void *ctx)
{
	const struct func_node *nodes = ctx;
	const struct func_node *x = &nodes[*(const size_t *)a];
	const struct func_node *y = &nodes[*(const size_t *)b];

	return (x->incl_ns < y->incl_ns) - (x->incl_ns > y->incl_ns);
}

static int tree_index_build(const struct func_tree *t, struct tree_index *ti)
{
	size_t n = t->nnodes, *fill;

	ti->first = calloc(n + 2, sizeof(size_t));
	ti->kids = calloc(n + 1, sizeof(size_t));
	fill = calloc(n + 2, sizeof(size_t));
	if (!ti->first || !ti->kids || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t parent = t->nodes[i].parent == FUNC_NO_PARENT ? n : t->nodes[i].parent;

		ti->first[parent + 1]++;
	}
	for (size_t i = 1; i <= n + 1; i++)
		ti->first[i] += ti->first[i - 1];
	for (size_t i = 0; i < n; i++) {
		size_t parent = t->nodes[i].parent == FUNC_NO_PARENT ? n : t->nodes[i].parent;

		ti->kids[ti->first[parent] + fill[parent]++] = i;
	}
	free(fill);
	for (size_t i = 0; i <= n; i++)
		qsort_r(ti->kids + ti->first[i], ti->first[i + 1] - ti->first[i], sizeof(size_t),
			kid_cmp, t->nodes);
	return 0;
}

/* S right-aligned in WIDTH display columns (µ is one column but two bytes). */
static void put_right(FILE *f, const char *s, size_t width)
{
	for (size_t w = utf8_width(s); w < width; w++)
		fputc(' ', f);
	fputs(s, f);
}

/* Levels of the tree shown by indentation; deeper lines say their depth instead, so that the
 * text grows with the number of nodes, not with their depth squared. */
#define TREE_INDENT_MAX 32

/* One line of the tree: node N at DEPTH. */
static void tree_line(const struct func_report *r, const struct func_tree *t, size_t node,
		      size_t depth, FILE *f)
{
	const struct func_profile *p = r->p;
	const struct func_node *n = &t->nodes[node];
	char incl[32], excl[32], calls[32];

	fmt_duration(incl, sizeof(incl), (double)n->incl_ns);
	fmt_duration(excl, sizeof(excl), (double)n->excl_ns);
	fmt_count(calls, sizeof(calls), n->calls);
	fputs("  ", f);
	put_right(f, incl, 10);
	fprintf(f, " %5.1f%% ", pct(n->incl_ns, p->total_ns));
	put_right(f, calls, 12);
	fputc(' ', f);
	put_right(f, excl, 10);
	fprintf(f, "  %*s", (int)(2 * (depth < TREE_INDENT_MAX ? depth : TREE_INDENT_MAX)), "");
	if (depth > TREE_INDENT_MAX)
		fprintf(f, "[depth %zu] ", depth);
	fputs(text_safe(p->rows[n->row].sym.name), f);
	if (t->levels[node] > 1) {
		fmt_count(calls, sizeof(calls), t->levels[node]);
		fprintf(f, "  [recursion: %s levels]", calls);
	}
	fputc('\n', f);
}

/* A node to print, and its depth. */
struct tree_frame {
	size_t node, depth;
};

/* The rows of the subtree of ROOT at depth 0 appended to ROWS (at *N), in the order the text
 * shows them, walked with a stack of its own, STACK (room for every node of T: each is pushed
 * once), as a recursion a million calls deep is a million nodes deep; nodes under --min-time
 * are left out with their subtrees. */
static void tree_collect(const struct func_report *r, const struct func_tree *t,
			 const struct tree_index *ti, size_t root, struct tree_frame *stack,
			 struct func_tree_row *rows, size_t *n)
{
	size_t sp = 0;

	stack[sp++] = (struct tree_frame){root, 0};
	while (sp) {
		struct tree_frame fr = stack[--sp];

		if (t->nodes[fr.node].incl_ns < r->min_ns)
			continue;
		rows[(*n)++] = (struct func_tree_row){fr.node, fr.depth};
		/* the children in reverse, so that the longest comes off the stack first */
		for (size_t k = ti->first[fr.node + 1]; k > ti->first[fr.node]; k--)
			stack[sp++] = (struct tree_frame){ti->kids[k - 1], fr.depth + 1};
	}
}

/* The tree as text: heading, the note on folded recursion, one line per row, and per thread
 * each thread's call paths under its name. */
static void tree_text(const struct func_report *r, const struct func_tree *t, uint64_t fold,
		      const struct func_tree_row *rows, size_t n, FILE *f)
{
	size_t thread = SIZE_MAX;

	fprintf(f, "\nCall tree (children by inclusive time):\n");
	if (t->folded) {
		char deepest[32], from[32];

		fmt_count(deepest, sizeof(deepest), t->max_levels);
		fmt_count(from, sizeof(from), fold);
		fprintf(
		    f,
		    "  (direct recursion deeper than %s level%s is folded into one line, marked "
		    "[recursion: N levels]: %zu chain%s, the deepest %s levels; "
		    "--no-fold-recursion shows every level)\n",
		    from, fold == 1 ? "" : "s", t->folded, t->folded == 1 ? "" : "s", deepest);
	}
	fprintf(f, "  %10s %6s %12s %10s  %s\n", "inclusive", "%", "calls", "exclusive",
		"function");
	for (size_t k = 0; k < n; k++) {
		const struct func_node *node = &t->nodes[rows[k].node];

		if (r->per_thread && rows[k].depth == 0 && node->thread != thread) {
			const struct func_thread *ft = &r->p->threads[node->thread];

			thread = node->thread;
			fprintf(f, "  thread %d%s%s%s of process %d:\n", (int)ft->tid,
				ft->th.name[0] ? " \"" : "", text_safe(ft->th.name),
				ft->th.name[0] ? "\"" : "", (int)ft->pid);
		}
		tree_line(r, t, rows[k].node, rows[k].depth, f);
	}
	func_report_caveats(r, caveat_text, f);
}

/* The tree as data: CSV, long CSV or JSON (the nodes, with how recursion was folded and the
 * caveats), from the tree view's columns. */
static int tree_data(const struct func_report *r, const struct func_tree *t, uint64_t fold,
		     const struct func_tree_row *rows, size_t n, enum out_format fmt, FILE *f,
		     FILE *notes)
{
	struct func_tree_path path = {0};
	struct func_tree_ctx ctx = {r, t, &path};
	const void **ptrs = malloc((n + 1) * sizeof(*ptrs));
	struct view v = {.ctx = &ctx, .nrows = n, .per_thread = r->per_thread};
	struct jsonw w;
	int ret;

	if (!ptrs)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		ptrs[k] = &rows[k];
	v.cols = func_tree_view_cols(&v.ncols);
	v.rows = ptrs;
	if (fmt != OUT_JSON) {
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
		func_report_caveats(r, caveat_warning, notes);
	} else {
		jsonw_init(&w, 1);
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "experiment", r->e->dir);
		jsonw_kv_i64(&w, "total_ns", r->p->total_ns);
		jsonw_kv_u64(&w, "fold_recursion", fold);
		jsonw_kv_u64(&w, "folded", t->folded);
		jsonw_key(&w, "nodes");
		view_json_rows(&w, &v);
		jsonw_key(&w, "caveats");
		jsonw_array_begin(&w);
		func_report_caveats(r, caveat_json, &w);
		jsonw_array_end(&w);
		jsonw_object_end(&w);
		ret = jsonw_print(&w, f);
	}
	free(path.buf);
	free(ptrs);
	return ret;
}

int func_print_tree(const struct func_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	uint64_t fold = r->fold_recursion == FUNC_FOLD_NONE ? 0
			: r->fold_recursion		    ? r->fold_recursion
							    : FUNC_FOLD_RECURSION;
	struct tree_index ti = {0};
	struct tree_frame *stack = NULL;
	struct func_tree_row *rows = NULL;
	struct func_tree t;
	size_t roots, n = 0;
	int ret = func_tree_build(&t, r->p, fold);

	if (ret == 0)
		ret = tree_index_build(&t, &ti);
	if (ret == 0 && !(stack = malloc((t.nnodes + 1) * sizeof(*stack))))
		ret = -ENOMEM;
	if (ret == 0 && !(rows = malloc((t.nnodes + 1) * sizeof(*rows))))
		ret = -ENOMEM;
	if (ret < 0)
		goto out;
	roots = t.nnodes;
	for (size_t k = ti.first[roots]; !r->per_thread && k < ti.first[roots + 1]; k++)
		tree_collect(r, &t, &ti, ti.kids[k], stack, rows, &n);
	/* per thread: each thread's call paths together */
	for (size_t th = 0; r->per_thread && th < r->p->nthreads; th++)
		for (size_t k = ti.first[roots]; k < ti.first[roots + 1]; k++)
			if (t.nodes[ti.kids[k]].thread == th)
				tree_collect(r, &t, &ti, ti.kids[k], stack, rows, &n);
	if (fmt == OUT_TEXT)
		tree_text(r, &t, fold, rows, n, f);
	else
		ret = tree_data(r, &t, fold, rows, n, fmt, f, notes);
out:
	free(rows);
	free(stack);
	free(ti.first);
	free(ti.kids);
	func_tree_release(&t);
	if (ret)
		return ret;
	return ferror(f) ? -EIO : 0;
}

static void json_threads(struct jsonw *w, const struct func_profile *p)
{
	char how[160];

	jsonw_key(w, "threads");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct func_thread *t = &p->threads[i];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "pid", t->pid);
		jsonw_kv_i64(w, "tid", t->tid);
		jsonw_kv_u64(w, "image", t->image);
		jsonw_kv_string(w, "name", t->th.name);
		jsonw_kv_i64(w, "traced_ns", t->traced_ns);
		jsonw_kv_u64(w, "function_records", t->th.function_records);
		jsonw_key(w, "clean_end");
		jsonw_bool(w, thread_clean(&t->th));
		end_words(&t->th, how, sizeof(how));
		jsonw_kv_string(w, "end", how);
		jsonw_kv_u64(w, "truncated_at", t->th.truncated_at);
		jsonw_kv_u64(w, "lost_records", t->th.lost_records);
		jsonw_kv_u64(w, "unmatched_exits", t->th.unmatched_exits);
		jsonw_kv_u64(w, "synthetic_exits", t->th.synthetic_exits);
		jsonw_kv_u64(w, "unwound", t->th.unwound);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static int print_json(const struct func_report *r, const struct view *v, FILE *f)
{
	const struct func_profile *p = r->p;
	struct jsonw w;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "experiment", r->e->dir);
	jsonw_kv_i64(&w, "total_ns", p->total_ns);
	jsonw_kv_u64(&w, "calls", profile_calls(p));
	jsonw_key(&w, "functions");
	view_json_rows(&w, v);
	json_threads(&w, p);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	func_report_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}

int func_print(const struct func_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	const void **rows;
	size_t n, eligible;
	struct view v;
	int ret = shown_rows(r, &rows, &n, &eligible);

	if (ret)
		return ret;
	func_view_of(&v, r, rows, n);
	if (fmt == OUT_TEXT) {
		ret = print_text(r, &v, eligible, f);
	} else if (fmt == OUT_JSON) {
		ret = print_json(r, &v, f);
	} else {
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
		func_report_caveats(r, caveat_warning, notes);
	}
	free(rows);
	return ret;
}
