/*
 * func-profile-merge.c - the function profile merged over threads and processes
 * (func_profile_merge), and the load imbalance of each merged row.
 */
#include "analysis/profile/func-profile-int.h"

#include "lib/hash.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The same function in two rows: same module and ELF address (or, unknown, same name). */
static int same_function(const struct func_row *a, const struct func_row *b)
{
	return a->sym.offset == b->sym.offset && !strcmp(a->sym.module, b->sym.module) &&
	       !strcmp(a->sym.name, b->sym.name);
}

static uint64_t function_hash(const struct func_row *r)
{
	return hash_str(hash_str(HASH_INIT ^ r->sym.offset, r->sym.module), r->sym.name);
}

/* Merged row of IN's row R: found in BY_FUNCTION (OUT's rows), or added. SIZE_MAX when out of
 * memory. */
static size_t merged_row(struct func_profile *out, struct hchain *by_function,
			 const struct func_row *r)
{
	uint64_t h = function_hash(r);
	size_t idx;

	for (size_t at = hchain_first(by_function, h); at; at = hchain_next(by_function, at))
		if (same_function(&out->rows[at - 1], r))
			return at - 1;
	struct func_row *m = func_row_add(out, &idx);

	if (!m)
		return SIZE_MAX;
	*m = *r;
	m->tid = 0;
	m->calls = 0;
	m->incl_ns = m->excl_ns = m->sum_ns = m->max_ns = 0;
	m->min_ns = INT64_MAX;
	m->synthetic = 0;
	m->incl_j = m->excl_j = 0;
	m->covered_ns = m->incl_covered_ns = 0;
	m->slices = NULL;
	/* an OpenMP frame's name is the profile's own: OUT keeps a copy */
	if (r->omp_frame && !(m->sym.name = arena_printf(&out->omp_names, "%s", r->sym.name)))
		return SIZE_MAX;
	if (hchain_add(by_function, h, idx))
		return SIZE_MAX;
	return idx;
}

double func_profile_imbalance(const struct func_profile *p, const struct func_row *r)
{
	double mean;

	if (p->traced_threads < 2 || r->thread_max_ns <= 0)
		return NAN;
	mean = (double)r->incl_ns / (double)p->traced_threads;
	return 100.0 * ((double)r->thread_max_ns - mean) / (double)r->thread_max_ns;
}

/* IN's row R added into merged row M. 0 or -ENOMEM. */
static int merge_row(struct func_row *m, const struct func_row *r, size_t nintervals)
{
	m->calls += r->calls;
	m->incl_ns = func_sat_add(m->incl_ns, r->incl_ns);
	m->excl_ns = func_sat_add(m->excl_ns, r->excl_ns);
	m->sum_ns = func_sat_add(m->sum_ns, r->sum_ns);
	m->synthetic += r->synthetic;
	m->incl_j += r->incl_j;
	m->excl_j += r->excl_j;
	m->covered_ns = func_sat_add(m->covered_ns, r->covered_ns);
	m->incl_covered_ns = func_sat_add(m->incl_covered_ns, r->incl_covered_ns);
	if (r->slices && !m->slices && !(m->slices = calloc(nintervals, sizeof(*m->slices))))
		return -ENOMEM;
	for (size_t k = 0; r->slices && k < nintervals; k++) {
		m->slices[k].ns += r->slices[k].ns;
		m->slices[k].j += r->slices[k].j;
	}
	if (r->calls && r->min_ns < m->min_ns)
		m->min_ns = r->min_ns;
	if (r->max_ns > m->max_ns)
		m->max_ns = r->max_ns;
	if (r->incl_ns > m->thread_max_ns)
		m->thread_max_ns = r->incl_ns;
	return 0;
}

/* IN's rows merged by function into OUT's, ROW_MAP the merged row of each. 0 or -ENOMEM. */
static int merge_rows(const struct func_profile *in, struct func_profile *out, size_t *row_map)
{
	struct hchain by_function = {0};
	int ret = 0;

	for (size_t i = 0; i < in->nrows && !ret; i++) {
		size_t idx = merged_row(out, &by_function, &in->rows[i]);

		if (idx == SIZE_MAX) {
			ret = -ENOMEM;
			break;
		}
		row_map[i] = idx;
		ret = merge_row(&out->rows[idx], &in->rows[i], in->nintervals);
	}
	hchain_release(&by_function);
	if (ret)
		return ret;
	for (size_t i = 0; i < out->nrows; i++)
		if (out->rows[i].min_ns == INT64_MAX)
			out->rows[i].min_ns = 0;
	return 0;
}

/* IN's call paths merged into OUT's, by merged row (ROW_MAP) under merged parent; NODE_MAP the
 * merged node of each. 0 or -ENOMEM. */
static int merge_nodes(const struct func_profile *in, struct func_profile *out,
		       const size_t *row_map, size_t *node_map)
{
	struct u64map nodes = {0};
	int ret = 0;

	/* nodes come parents first, so every parent is mapped before its children */
	for (size_t i = 0; i < in->nnodes; i++) {
		const struct func_node *n = &in->nodes[i];
		size_t parent = n->parent == FUNC_NO_PARENT ? FUNC_NO_PARENT : node_map[n->parent];
		uint64_t key = func_node_key(parent, row_map[n->row]), v;
		size_t idx;

		if (u64map_get(&nodes, key, &v)) {
			idx = (size_t)v;
		} else if (!func_node_add(out, parent, row_map[n->row], 0, &idx) ||
			   u64map_put(&nodes, key, idx)) {
			ret = -ENOMEM;
			break;
		}
		node_map[i] = idx;
		out->nodes[idx].calls += n->calls;
		out->nodes[idx].incl_ns = func_sat_add(out->nodes[idx].incl_ns, n->incl_ns);
		out->nodes[idx].excl_ns = func_sat_add(out->nodes[idx].excl_ns, n->excl_ns);
	}
	u64map_release(&nodes);
	return ret;
}

int func_profile_merge(const struct func_profile *in, struct func_profile *out)
{
	size_t *row_map = calloc(in->nrows + 1, sizeof(*row_map));
	size_t *node_map = calloc(in->nnodes + 1, sizeof(*node_map));
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->syms = in->syms;
	out->threads = calloc(in->nthreads + 1, sizeof(*out->threads));
	if (!row_map || !node_map || !out->threads)
		goto done;
	memcpy(out->threads, in->threads, in->nthreads * sizeof(*in->threads));
	out->nthreads = in->nthreads;
	out->function_records = in->function_records;
	out->no_records_caveat = in->no_records_caveat;
	out->unmatched_exits = in->unmatched_exits;
	out->synthetic_exits = in->synthetic_exits;
	out->unwound = in->unwound;
	out->total_ns = in->total_ns;
	out->nintervals = in->nintervals;
	for (size_t t = 0; t < in->nthreads; t++)
		out->traced_threads += in->threads[t].th.function_records > 0;
	ret = merge_rows(in, out, row_map);
	if (!ret)
		ret = merge_nodes(in, out, row_map, node_map);
done:
	free(row_map);
	free(node_map);
	return ret;
}
