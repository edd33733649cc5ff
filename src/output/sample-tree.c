/* sample-tree.c - call trees of a sampled experiment: top-down, and the callers of a function. */
#include "sample-print.h"
#include "textesc.h"
#include "table.h"

#include "../core/jsonw.h"

#include <errno.h>
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

/* A function in the text trees: kernel functions marked "[k] " (their module is "[kernel]"). */
static void put_func(FILE *f, unsigned depth, const struct scall_func *fn)
{
	fprintf(f, "  %*s%s%s\n", (int)(2 * depth), "",
		strcmp(fn->module, "[kernel]") || !strcmp(fn->name, "[kernel]") ? "" : "[k] ",
		text_safe(fn->name));
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

/* Nodes in the subtree of NODE. */
/* Nodes of NODE's subtree (itself included) that --min-time (MIN_NS) would show. */
static size_t subtree_size(const struct scall_tree *t, uint32_t node, uint64_t min_ns)
{
	size_t n = 1;

	if (t->nodes[node].time_ns < min_ns)
		return 0;
	for (uint32_t c = t->nodes[node].first_child; c != NONE; c = t->nodes[c].next_sibling)
		n += subtree_size(t, c, min_ns);
	return n;
}

/* Nodes under NODE (itself included) that --min-share hides where --min-time would show them. */
static size_t hidden_under(const struct sample_report *r, const struct scall_tree *t, uint32_t node,
			   uint64_t all)
{
	const struct scall_node *n = &t->nodes[node];
	size_t k = 0;

	if (n->time_ns < r->min_ns)
		return 0;
	if (below_share(r, n, all))
		return subtree_size(t, node, r->min_ns);
	for (uint32_t c = n->first_child; c != NONE; c = t->nodes[c].next_sibling)
		k += hidden_under(r, t, c, all);
	return k;
}

static size_t hidden_in(const struct sample_report *r, const struct scall_tree *t)
{
	uint64_t all = r->p->calls.nodes[0].samples;
	size_t k = 0;

	for (uint32_t c = t->nodes[0].first_child; c != NONE; c = t->nodes[c].next_sibling)
		k += hidden_under(r, t, c, all);
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
		return hidden_in(r, calls);
	func = scall_find(calls, r->callers);
	if (func < 0)
		return 0;
	if (!scall_callers(calls, (uint32_t)func, &t) && !scall_sort(&t))
		k = hidden_in(r, &t);
	scall_release(&t);
	return k;
}

static void tree_node(const struct sample_report *r, const struct scall_tree *t, uint32_t node,
		      unsigned depth, FILE *f)
{
	const struct scall_node *n = &t->nodes[node];
	uint64_t all = t->nodes[0].samples;
	char samples[32], time[32];

	if (node_hidden(r, n, all))
		return;
	fmt_count(samples, sizeof(samples), n->samples);
	fmt_duration(time, sizeof(time), (double)n->time_ns);
	fputs("  ", f);
	put_right(f, samples, 9);
	fprintf(f, " %7.1f %%  %6.1f %%  ", pct(n->samples, all), pct(n->self, all));
	put_right(f, time, 10);
	put_func(f, depth, &t->funcs[n->func]);
	for (uint32_t c = n->first_child; c != NONE; c = t->nodes[c].next_sibling)
		tree_node(r, t, c, depth + 1, f);
}

int sample_print_tree(const struct sample_report *r, FILE *f)
{
	const struct scall_tree *t = &r->p->calls;

	fprintf(f, "Call tree from the samples' call chains (callees by inclusive samples):\n");
	fprintf(f, "  %9s %9s  %8s  %10s  %s\n", "samples", "incl.", "self", "est. time",
		"function");
	for (uint32_t c = t->nodes[0].first_child; c != NONE; c = t->nodes[c].next_sibling)
		tree_node(r, t, c, 0, f);
	return ferror(f) ? -EIO : 0;
}

/* One node of the callers tree and its callers: text, CSV or JSON. */
static void callers_node(const struct sample_report *r, const struct scall_tree *t, uint32_t node,
			 unsigned depth, FILE *f, int csv, struct jsonw *w)
{
	const struct scall_node *n = &t->nodes[node];
	const struct scall_func *fn = &t->funcs[n->func];
	uint64_t all = r->p->calls.nodes[0].samples;
	char samples[32], time[32];

	if (node_hidden(r, n, all))
		return;
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
		fprintf(f, "%u,", depth);
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
	for (uint32_t c = n->first_child; c != NONE; c = t->nodes[c].next_sibling)
		callers_node(r, t, c, depth + 1, f, csv, w);
	if (w) {
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
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
	for (uint32_t c = t.nodes[0].first_child; c != NONE; c = t.nodes[c].next_sibling)
		callers_node(r, &t, c, 0, f, csv, w);
	if (w) {
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	scall_release(&t);
	return w ? 0 : (ferror(f) ? -EIO : 0);
}
