/* sample-tree.c - call trees of a sampled experiment (top-down, and the callers of a function):
 * their rows and their text, CSV, long CSV and JSON from the tree views' columns. */
#include "view/sample-print.h"
#include "lib/textesc.h"
#include "view/table.h"

#include "lib/jsonw.h"
#include "view/sample-view.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define NONE UINT32_MAX

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* Levels shown by indentation; deeper lines say their depth instead, so that the text grows
 * with the number of nodes, not with their depth squared. */
#define TREE_INDENT_MAX 32

/* A function in the text trees: kernel functions marked "[k] " (their module is "[kernel]"). */
static void put_func(FILE *f, size_t depth, const struct scall_func *fn)
{
	fprintf(f, "  %*s", (int)(2 * (depth < TREE_INDENT_MAX ? depth : TREE_INDENT_MAX)), "");
	if (depth > TREE_INDENT_MAX)
		fprintf(f, "[depth %zu] ", depth);
	fprintf(f, "%s%s\n",
		strcmp(fn->module, "[kernel]") || !strcmp(fn->name, "[kernel]") ? "" : "[k] ",
		text_safe(fn->name));
}

/* A walk of a tree without recursion (a call chain can be tens of thousands of frames deep):
 * a stack of nodes to visit, each with its depth. */
struct walk {
	struct sample_tree_row *stack;
	size_t n;
};

/* Room for every node of T. 0 or -ENOMEM. */
static int walk_init(struct walk *w, const struct scall_tree *t)
{
	w->n = 0;
	w->stack = malloc((t->nnodes + 1) * sizeof(*w->stack));
	return w->stack ? 0 : -ENOMEM;
}

/* NODE's children, at DEPTH, to be visited in their order. */
static void walk_push_children(struct walk *w, const struct scall_tree *t, uint32_t node,
			       size_t depth)
{
	size_t from = w->n;

	for (uint32_t c = t->nodes[node].first_child; c != NONE; c = t->nodes[c].next_sibling)
		w->stack[w->n++] = (struct sample_tree_row){c, depth};
	for (size_t i = from, j = w->n; i + 1 < j; i++, j--) {
		struct sample_tree_row x = w->stack[i];

		w->stack[i] = w->stack[j - 1];
		w->stack[j - 1] = x;
	}
}

/* Node N is left out: under --min-time, or under --min-share of ALL samples (inclusive). */
static int below_share(const struct sample_report *r, const struct scall_node *n, uint64_t all)
{
	return r->min_share > 0 && pct(n->samples, all) < r->min_share;
}

static int node_hidden(const struct sample_report *r, const struct scall_node *n, uint64_t all)
{
	return n->time_ns < r->min_ns || below_share(r, n, all);
}

/* Nodes under the children of T's root that --min-share hides where --min-time would show
 * them: a node shown by --min-time (MIN_NS), under --min-share, hides its whole subtree as far
 * as --min-time would show it. SIZE_MAX when out of memory. */
static size_t hidden_in(const struct sample_report *r, const struct scall_tree *t)
{
	uint64_t all = r->p->calls.nodes[0].samples;
	struct walk w;
	size_t k = 0;

	if (walk_init(&w, t))
		return SIZE_MAX;
	walk_push_children(&w, t, 0, 0);
	while (w.n) {
		struct sample_tree_row st = w.stack[--w.n];
		const struct scall_node *n = &t->nodes[st.node];

		if (n->time_ns < r->min_ns)
			continue;
		/* the depth field says: inside a hidden subtree */
		if (st.depth || below_share(r, n, all))
			k++;
		walk_push_children(&w, t, st.node, st.depth || below_share(r, n, all));
	}
	free(w.stack);
	return k;
}

/* The callers tree of r->callers into T (sorted). 0, -EINVAL (no such function) or -ENOMEM;
 * T is released on failure. */
static int callers_tree(const struct sample_report *r, struct scall_tree *t)
{
	long func = scall_find(&r->p->calls, r->callers);
	int ret;

	/* sample_report_setup made sure the function is there */
	if (func < 0)
		return -EINVAL;
	ret = scall_callers(&r->p->calls, (uint32_t)func, t);
	if (!ret)
		ret = scall_sort(t);
	if (ret)
		scall_release(t);
	return ret;
}

size_t sample_tree_hidden(const struct sample_report *r)
{
	struct scall_tree t;
	size_t k;

	if (r->min_share <= 0)
		return 0;
	if (!r->callers)
		return (k = hidden_in(r, &r->p->calls)) == SIZE_MAX ? 0 : k;
	if (callers_tree(r, &t))
		return 0;
	k = hidden_in(r, &t);
	scall_release(&t);
	return k == SIZE_MAX ? 0 : k;
}

/* The nodes of T that R shows (under the root, without those --min-time and --min-share
 * leave out, with their subtrees), in the order the text shows them, into *ROWS (malloc'd)
 * and *N. 0 or -ENOMEM. */
static int tree_rows(const struct sample_report *r, const struct scall_tree *t,
		     struct sample_tree_row **rows, size_t *n)
{
	uint64_t all = r->p->calls.nodes[0].samples;
	struct walk w;

	*n = 0;
	*rows = malloc((t->nnodes + 1) * sizeof(**rows));
	if (!*rows || walk_init(&w, t)) {
		free(*rows);
		return -ENOMEM;
	}
	walk_push_children(&w, t, 0, 0);
	while (w.n) {
		struct sample_tree_row st = w.stack[--w.n];

		if (node_hidden(r, &t->nodes[st.node], all))
			continue;
		(*rows)[(*n)++] = st;
		walk_push_children(&w, t, st.node, st.depth + 1);
	}
	free(w.stack);
	return 0;
}

/* How the text lays out a tree's numeric columns: the gap before each and its width (the
 * function follows, indented by its depth). */
struct text_cell {
	const char *key, *gap;
	int width;
};

static const struct text_cell tree_text[] = {
    {"samples", "  ", 9}, {"share", " ", 9}, {"self_share", "  ", 8}, {"time_ns", "  ", 10}};
static const struct text_cell callers_text[] = {
    {"samples", "  ", 9}, {"share", " ", 9}, {"time_ns", "  ", 10}};

static const struct view_col *col_of(const struct view *v, const char *key)
{
	for (size_t c = 0; c < v->ncols; c++)
		if (!strcmp(v->cols[c].key, key) && (v->cols[c].flags & VIEW_IN_TEXT))
			return &v->cols[c];
	return NULL;
}

/* The header of the text tree V, laid out as CELLS (N of them). */
static void text_header(const struct view *v, const struct text_cell *cells, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%*s", cells[i].gap, cells[i].width, col_of(v, cells[i].key)->header);
	fprintf(f, "  %s\n", "function");
}

/* One line of the text tree V: ROW's values laid out as CELLS (N of them), then its function. */
static void text_line(const struct view *v, const struct sample_tree_row *row,
		      const struct text_cell *cells, size_t n, FILE *f)
{
	const struct sample_tree_ctx *c = v->ctx;
	struct view_value val;
	char buf[64];

	for (size_t i = 0; i < n; i++) {
		const struct view_col *col = col_of(v, cells[i].key);

		view_get(v, col, row, &val);
		view_format(col, &val, OUT_TEXT, buf, sizeof(buf));
		fprintf(f, "%s%*s", cells[i].gap, cells[i].width, buf);
	}
	put_func(f, row->depth, &c->t->funcs[c->t->nodes[row->node].func]);
}

/* ROW's JSON values of V as keys of the open object, into W. */
static void json_fields(struct jsonw *w, const struct view *v, const void *row)
{
	struct view_value val;

	for (size_t c = 0; c < v->ncols; c++) {
		if (!(v->cols[c].flags & VIEW_IN_JSON))
			continue;
		view_get(v, &v->cols[c], row, &val);
		jsonw_key(w, v->cols[c].key);
		if (val.kind == VIEW_S)
			jsonw_string(w, val.s);
		else if (val.kind == VIEW_U64)
			jsonw_u64(w, val.u);
		else if (val.kind == VIEW_F64)
			jsonw_double(w, val.d);
		else
			jsonw_null(w);
	}
}

/* The callers tree V as nested JSON objects, each with its callers in "callers", into W. */
static void callers_json(struct jsonw *w, const struct view *v)
{
	size_t open = 0;

	for (size_t k = 0; k < v->nrows; k++) {
		const struct sample_tree_row *row = v->rows[k];

		/* close the nodes down to this one's parent */
		for (; open > row->depth; open--) {
			jsonw_array_end(w);
			jsonw_object_end(w);
		}
		jsonw_object_begin(w);
		json_fields(w, v, row);
		jsonw_key(w, "callers");
		jsonw_array_begin(w);
		open++;
	}
	for (; open; open--) {
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
}

/* The tree V (CALLERS: a callers tree) in FMT: text to F, CSV or long CSV to F, JSON into W. */
static int render(const struct sample_report *r, const struct view *v, int callers,
		  enum out_format fmt, FILE *f, struct jsonw *w)
{
	const struct text_cell *cells = callers ? callers_text : tree_text;
	size_t n = callers ? sizeof(callers_text) / sizeof(callers_text[0])
			   : sizeof(tree_text) / sizeof(tree_text[0]);

	if (fmt == OUT_CSV)
		return view_print_csv(v, f);
	if (fmt == OUT_LONG)
		return view_print_long(v, f);
	if (fmt == OUT_JSON && callers) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "function", r->callers);
		jsonw_key(w, "tree");
		jsonw_array_begin(w);
		callers_json(w, v);
		jsonw_array_end(w);
		jsonw_object_end(w);
		return 0;
	}
	if (fmt == OUT_JSON) {
		view_json_rows(w, v);
		return 0;
	}
	if (callers)
		fprintf(f,
			"Callers of %s (each line called the one above it; shares of all "
			"samples):\n",
			text_safe(r->callers));
	else
		fprintf(
		    f, "Call tree from the samples' call chains (callees by inclusive samples):\n");
	text_header(v, cells, n, f);
	for (size_t k = 0; k < v->nrows; k++)
		text_line(v, v->rows[k], cells, n, f);
	return ferror(f) ? -EIO : 0;
}

int sample_print_trees(const struct sample_report *r, enum out_format fmt, FILE *f, struct jsonw *w)
{
	struct sample_tree_path path = {STRBUF_INIT, NULL, 0};
	struct sample_tree_ctx ctx = {r, &r->p->calls, &path};
	struct view v = {.ctx = &ctx, .option = fmt == OUT_LONG};
	struct sample_tree_row *rows = NULL;
	const void **ptrs = NULL;
	struct scall_tree callers;
	size_t n = 0;
	int ret = 0;

	if (r->callers && (ret = callers_tree(r, &callers)))
		return ret;
	if (r->callers)
		ctx.t = &callers;
	if (!(ret = tree_rows(r, ctx.t, &rows, &n)) && !(ptrs = malloc((n + 1) * sizeof(*ptrs))))
		ret = -ENOMEM;
	if (!ret) {
		for (size_t k = 0; k < n; k++)
			ptrs[k] = &rows[k];
		v.cols = sample_tree_view_cols(r->callers != NULL, &v.ncols);
		v.rows = ptrs;
		v.nrows = n;
		ret = render(r, &v, r->callers != NULL, fmt, f, w);
	}
	free(ptrs);
	free(rows);
	sample_tree_path_release(&path);
	if (r->callers)
		scall_release(&callers);
	return ret;
}

int sample_print_tree(const struct sample_report *r, FILE *f)
{
	return sample_print_trees(r, OUT_TEXT, f, NULL);
}

int sample_print_callers(const struct sample_report *r, FILE *f, int csv, struct jsonw *w)
{
	return sample_print_trees(r, w ? OUT_JSON : csv ? OUT_CSV : OUT_TEXT, f, w);
}
