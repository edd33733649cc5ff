/* sample-tree.c - call trees of a sampled experiment: top-down, and the callers of a function. */
#include "view/sample-print.h"
#include "lib/textesc.h"
#include "view/table.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#define NONE UINT32_MAX

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void put_right(FILE *f, const char *s, int width)
{
	fprintf(f, "%*s", width, s);
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
 * a stack of nodes to visit, each with its depth, and a mark for leaving a node. */
struct step {
	uint32_t node;
	uint32_t leave; /* 1: the node's children are done */
	size_t depth;
};

struct walk {
	struct step *stack;
	size_t n;
};

/* Room for every node of T twice (entered and left). 0 or -ENOMEM. */
static int walk_init(struct walk *w, const struct scall_tree *t)
{
	w->n = 0;
	w->stack = malloc((2 * t->nnodes + 1) * sizeof(*w->stack));
	return w->stack ? 0 : -ENOMEM;
}

static void walk_push(struct walk *w, uint32_t node, size_t depth, uint32_t leave)
{
	w->stack[w->n++] = (struct step){node, leave, depth};
}

/* NODE's children, at DEPTH, to be visited in their order. */
static void walk_push_children(struct walk *w, const struct scall_tree *t, uint32_t node,
			       size_t depth)
{
	size_t from = w->n;

	for (uint32_t c = t->nodes[node].first_child; c != NONE; c = t->nodes[c].next_sibling)
		walk_push(w, c, depth, 0);
	for (size_t i = from, j = w->n; i + 1 < j; i++, j--) {
		struct step x = w->stack[i];

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
		struct step st = w.stack[--w.n];
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

size_t sample_tree_hidden(const struct sample_report *r)
{
	const struct scall_tree *calls = &r->p->calls;
	struct scall_tree t;
	long func;
	size_t k = 0;

	if (r->min_share <= 0)
		return 0;
	if (!r->callers)
		return (k = hidden_in(r, calls)) == SIZE_MAX ? 0 : k;
	func = scall_find(calls, r->callers);
	if (func < 0)
		return 0;
	if (!scall_callers(calls, (uint32_t)func, &t) && !scall_sort(&t))
		k = hidden_in(r, &t);
	k = k == SIZE_MAX ? 0 : k;
	scall_release(&t);
	return k;
}

static void tree_line(const struct scall_tree *t, uint32_t node, size_t depth, FILE *f)
{
	const struct scall_node *n = &t->nodes[node];
	uint64_t all = t->nodes[0].samples;
	char samples[32], time[32];

	fmt_count(samples, sizeof(samples), n->samples);
	fmt_duration(time, sizeof(time), (double)n->time_ns);
	fputs("  ", f);
	put_right(f, samples, 9);
	fprintf(f, " %7.1f %%  %6.1f %%  ", pct(n->samples, all), pct(n->self, all));
	put_right(f, time, 10);
	put_func(f, depth, &t->funcs[n->func]);
}

int sample_print_tree(const struct sample_report *r, FILE *f)
{
	const struct scall_tree *t = &r->p->calls;
	uint64_t all = t->nodes[0].samples;
	struct walk w;

	if (walk_init(&w, t))
		return -ENOMEM;
	fprintf(f, "Call tree from the samples' call chains (callees by inclusive samples):\n");
	fprintf(f, "  %9s %9s  %8s  %10s  %s\n", "samples", "incl.", "self", "est. time",
		"function");
	walk_push_children(&w, t, 0, 0);
	while (w.n) {
		struct step st = w.stack[--w.n];

		if (node_hidden(r, &t->nodes[st.node], all))
			continue;
		tree_line(t, st.node, st.depth, f);
		walk_push_children(&w, t, st.node, st.depth + 1);
	}
	free(w.stack);
	return ferror(f) ? -EIO : 0;
}

/* One node of the callers tree as it is entered (its callers follow): text, CSV or JSON. */
static void callers_enter(const struct sample_report *r, const struct scall_tree *t, uint32_t node,
			  size_t depth, FILE *f, int csv, struct jsonw *w)
{
	const struct scall_node *n = &t->nodes[node];
	const struct scall_func *fn = &t->funcs[n->func];
	uint64_t all = r->p->calls.nodes[0].samples;
	char samples[32], time[32];

	if (w) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", fn->name);
		jsonw_kv_string(w, "module", fn->module);
		jsonw_kv_u64(w, "samples", n->samples);
		jsonw_kv_double(w, "share", pct(n->samples, all));
		jsonw_kv_u64(w, "time_ns", n->time_ns);
		jsonw_key(w, "callers");
		jsonw_array_begin(w);
	} else if (csv) {
		fprintf(f, "%zu,", depth);
		csv_field(f, fn->name);
		fputc(',', f);
		csv_field(f, fn->module);
		fprintf(f, ",%" PRIu64 ",%.4f,%" PRIu64 "\n", n->samples, pct(n->samples, all),
			n->time_ns);
	} else {
		fmt_count(samples, sizeof(samples), n->samples);
		fmt_duration(time, sizeof(time), (double)n->time_ns);
		fputs("  ", f);
		put_right(f, samples, 9);
		fprintf(f, " %7.1f %%  ", pct(n->samples, all));
		put_right(f, time, 10);
		put_func(f, depth, fn);
	}
}

/* The callers tree T under its root, walked with a stack of its own. 0 or -ENOMEM. */
static int callers_walk(const struct sample_report *r, const struct scall_tree *t, FILE *f, int csv,
			struct jsonw *w)
{
	uint64_t all = r->p->calls.nodes[0].samples;
	struct walk wk;

	if (walk_init(&wk, t))
		return -ENOMEM;
	walk_push_children(&wk, t, 0, 0);
	while (wk.n) {
		struct step st = wk.stack[--wk.n];

		if (st.leave) {
			jsonw_array_end(w);
			jsonw_object_end(w);
			continue;
		}
		if (node_hidden(r, &t->nodes[st.node], all))
			continue;
		callers_enter(r, t, st.node, st.depth, f, csv, w);
		if (w)
			walk_push(&wk, st.node, st.depth, 1);
		walk_push_children(&wk, t, st.node, st.depth + 1);
	}
	free(wk.stack);
	return 0;
}

int sample_print_callers(const struct sample_report *r, FILE *f, int csv, struct jsonw *w)
{
	const struct scall_tree *calls = &r->p->calls;
	long func = scall_find(calls, r->callers);
	struct scall_tree t;
	int ret;

	/* sample_report_setup made sure the function is there */
	if (func < 0)
		return -EINVAL;
	ret = scall_callers(calls, (uint32_t)func, &t);
	if (!ret)
		ret = scall_sort(&t);
	if (ret) {
		scall_release(&t);
		return ret;
	}
	if (w) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "function", r->callers);
		jsonw_key(w, "tree");
		jsonw_array_begin(w);
	} else if (csv) {
		fprintf(f, "depth,function,module,samples,share,time_ns\n");
	} else {
		fprintf(f,
			"Callers of %s (each line called the one above it; shares of all "
			"samples):\n",
			text_safe(r->callers));
		fprintf(f, "  %9s %9s  %10s  %s\n", "samples", "incl.", "est. time", "function");
	}
	ret = callers_walk(r, &t, f, csv, w);
	if (w) {
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	scall_release(&t);
	if (ret)
		return ret;
	return w ? 0 : (ferror(f) ? -EIO : 0);
}
