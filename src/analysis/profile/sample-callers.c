/* scallers.c - top-down call trees and callers trees from sampled call paths. */
#include "analysis/profile/sample-callers.h"
#include "lib/array.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static int node_new(struct scall_tree *t, uint32_t func, uint32_t parent, uint32_t *idx)
{
	if (ARRAY_GROW(t->nodes, t->nnodes + 1, t->nodecap))
		return -ENOMEM;
	*idx = (uint32_t)t->nnodes;
	t->nodes[t->nnodes++] = (struct scall_node){func, parent, NONE, NONE, 0, 0, 0, 0};
	if (parent != NONE) {
		t->nodes[*idx].next_sibling = t->nodes[parent].first_child;
		t->nodes[parent].first_child = *idx;
	}
	return 0;
}

int scall_init(struct scall_tree *t)
{
	uint32_t root;

	memset(t, 0, sizeof(*t));
	t->func_index = calloc(1, sizeof(*t->func_index));
	t->child_index = calloc(1, sizeof(*t->child_index));
	if (!t->func_index || !t->child_index)
		return -ENOMEM;
	return node_new(t, NONE, NONE, &root);
}

static int same_func(const struct scall_func *f, const char *name, const char *module)
{
	return !strcmp(f->name, name) && !strcmp(f->module, module);
}

int scall_func_id(struct scall_tree *t, const char *name, const char *module, uint32_t *id)
{
	uint64_t h = hash_str(hash_str(HASH_INIT, name) ^ 0x9e37, module);

	for (size_t at = hchain_first(t->func_index, h); at; at = hchain_next(t->func_index, at))
		if (same_func(&t->funcs[at - 1], name, module)) {
			*id = (uint32_t)(at - 1);
			return 0;
		}
	if (ARRAY_GROW(t->funcs, t->nfuncs + 1, t->funccap))
		return -ENOMEM;
	if (hchain_add(t->func_index, h, t->nfuncs))
		return -ENOMEM;
	t->funcs[t->nfuncs] = (struct scall_func){name, module, 0, 0, 0, 0, 0};
	*id = (uint32_t)t->nfuncs++;
	return 0;
}

/* Add PATH COUNT times, standing for NS together. */
static int add_path(struct scall_tree *t, const uint32_t *path, size_t n, uint64_t count,
		    uint64_t ns)
{
	uint32_t node = 0;

	t->paths++;
	t->nodes[0].samples += count;
	t->nodes[0].time_ns += ns;
	for (size_t i = 0; i < n; i++) {
		uint64_t key = (uint64_t)node << 32 | path[i], v;
		struct scall_func *f = &t->funcs[path[i]];
		uint32_t child;

		if (u64map_get(t->child_index, key, &v)) {
			child = (uint32_t)v;
		} else {
			if (node_new(t, path[i], node, &child) ||
			    u64map_put(t->child_index, key, child))
				return -ENOMEM;
		}
		node = child;
		t->nodes[node].samples += count;
		t->nodes[node].time_ns += ns;
		/* once per path, however often the function recurs on it */
		if (f->seen != t->paths) {
			f->seen = t->paths;
			f->incl += count;
			f->incl_ns += ns;
		}
	}
	t->nodes[node].self += count;
	t->nodes[node].self_ns += ns;
	if (n) {
		t->funcs[path[n - 1]].self += count;
		t->funcs[path[n - 1]].self_ns += ns;
	}
	return 0;
}

int scall_add(struct scall_tree *t, const uint32_t *path, size_t n, uint64_t weight_ns)
{
	for (size_t i = 0; i < n; i++)
		if (path[i] >= t->nfuncs)
			return -EINVAL;
	return add_path(t, path, n, 1, weight_ns);
}

long scall_find(const struct scall_tree *t, const char *name)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!strcmp(t->funcs[i].name, name))
			return (long)i;
	return -1;
}

int scall_callers(const struct scall_tree *t, uint32_t func, struct scall_tree *out)
{
	uint32_t *rev = NULL, id;
	size_t cap = 0;
	int ret = scall_init(out);

	for (size_t i = 0; !ret && i < t->nfuncs; i++)
		ret = scall_func_id(out, t->funcs[i].name, t->funcs[i].module, &id);
	/* every node where paths end is those paths: walk each up to the root */
	for (size_t i = 1; !ret && i < t->nnodes; i++) {
		const struct scall_node *nd = &t->nodes[i];
		size_t n = 0, at = SIZE_MAX;

		if (!nd->self)
			continue;
		for (uint32_t k = (uint32_t)i; k != 0; k = t->nodes[k].parent) {
			if (ARRAY_GROW(rev, n + 1, cap)) {
				ret = -ENOMEM;
				break;
			}
			if (t->nodes[k].func == func)
				at = n; /* the outermost occurrence so far */
			rev[n++] = t->nodes[k].func;
		}
		if (!ret && at != SIZE_MAX)
			ret = add_path(out, rev + at, n - at, nd->self, nd->self_ns);
	}
	free(rev);
	return ret;
}

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct scall_tree *t = ctx;
	const struct scall_node *x = &t->nodes[*(const uint32_t *)a],
				*y = &t->nodes[*(const uint32_t *)b];

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(t->funcs[x->func].name, t->funcs[y->func].name);
}

int scall_sort(struct scall_tree *t)
{
	uint32_t *kids = malloc((t->nnodes + 1) * sizeof(*kids));

	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < t->nnodes; i++) {
		size_t n = 0;

		for (uint32_t c = t->nodes[i].first_child; c != NONE; c = t->nodes[c].next_sibling)
			kids[n++] = c;
		if (n < 2)
			continue;
		qsort_r(kids, n, sizeof(*kids), cmp_child, t);
		t->nodes[i].first_child = kids[0];
		for (size_t k = 0; k < n; k++)
			t->nodes[kids[k]].next_sibling = k + 1 < n ? kids[k + 1] : NONE;
	}
	free(kids);
	return 0;
}

void scall_release(struct scall_tree *t)
{
	if (t->func_index)
		hchain_release(t->func_index);
	if (t->child_index)
		u64map_release(t->child_index);
	free(t->func_index);
	free(t->child_index);
	free(t->funcs);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}
