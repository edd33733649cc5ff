/*
 * func-tree.c - the call tree of a function profile as it is shown (struct func_tree): chains
 * of direct recursion folded into one node.
 */
#include "analysis/profile/func-profile-int.h"

#include "lib/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The node of T under PARENT (FUNC_NO_PARENT: a root of thread TH) for ROW: found in KIDS or
 * ROOTS, or added with no counts (T has room for it). SIZE_MAX when out of memory. */
static size_t tree_node(struct func_tree *t, struct u64map *kids, struct u64map *roots,
			size_t parent, size_t row, size_t th)
{
	struct u64map *map = parent == FUNC_NO_PARENT ? roots : kids;
	/* node_key's pairs are distinct below 2^32 nodes and rows; roots by thread and row */
	uint64_t key =
	    parent == FUNC_NO_PARENT ? (uint64_t)th << 32 | row : func_node_key(parent, row);
	uint64_t v;
	size_t idx = t->nnodes;

	if (u64map_get(map, key, &v))
		return (size_t)v;
	if (u64map_put(map, key, idx))
		return SIZE_MAX;
	t->nodes[idx] = (struct func_node){.parent = parent, .row = row, .thread = th};
	t->levels[idx] = 1;
	t->nnodes++;
	return idx;
}

/* The nodes of P into T (emptied first): the levels above the first of each chain that FOLD
 * marks (by its head) go into their head's node. 0 or -ENOMEM. */
static int tree_pass(struct func_tree *t, const struct func_profile *p, const uint64_t *level,
		     const size_t *head, const uint8_t *fold, const uint64_t *depth, size_t *map,
		     struct u64map *kids, struct u64map *roots)
{
	t->nnodes = t->folded = 0;
	t->max_levels = 0;
	u64map_clear(kids);
	u64map_clear(roots);
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct func_node *nd = &p->nodes[i];
		size_t at;

		if (fold[head[i]] && level[i] > 1) {
			at = map[nd->parent];
			if (level[i] > t->levels[at])
				t->levels[at] = level[i];
		} else {
			at = tree_node(t, kids, roots,
				       nd->parent == FUNC_NO_PARENT ? FUNC_NO_PARENT
								    : map[nd->parent],
				       nd->row, nd->thread);
			if (at == SIZE_MAX)
				return -ENOMEM;
			t->nodes[at].incl_ns += nd->incl_ns; /* outermost calls: never nested */
			if (fold[i]) {
				t->folded++;
				if (depth[i] > t->max_levels)
					t->max_levels = depth[i];
			}
		}
		map[i] = at;
		t->nodes[at].calls += nd->calls;
		t->nodes[at].excl_ns += nd->excl_ns;
	}
	return 0;
}

int func_tree_build(struct func_tree *t, const struct func_profile *p, uint64_t fold_from)
{
	size_t n = p->nnodes;
	/* per node of P: its level in its chain of direct recursion (1: the chain's head), the
	 * chain's head, and the node of T it went into; per head: the chain's levels and whether
	 * it is folded */
	uint64_t *level = malloc((n + 1) * sizeof(*level));
	size_t *head = malloc((n + 1) * sizeof(*head)), *map = malloc((n + 1) * sizeof(*map));
	uint64_t *depth = calloc(n + 1, sizeof(*depth));
	uint8_t *fold = calloc(n + 1, 1);
	struct u64map kids = {0}, roots = {0};
	int ret = -ENOMEM, again = 1;

	memset(t, 0, sizeof(*t));
	/* at most one node of T per node of P */
	t->nodes = malloc((n + 1) * sizeof(*t->nodes));
	t->levels = malloc((n + 1) * sizeof(*t->levels));
	if (!level || !head || !map || !depth || !fold || !t->nodes || !t->levels)
		goto out;
	/* parents come before their children, so one pass forward finds every chain's depth */
	for (size_t i = 0; i < n; i++) {
		const struct func_node *nd = &p->nodes[i];

		if (nd->parent != FUNC_NO_PARENT && p->nodes[nd->parent].row == nd->row) {
			level[i] = level[nd->parent] + 1;
			head[i] = head[nd->parent];
		} else {
			level[i] = 1;
			head[i] = i;
		}
		if (level[i] > depth[head[i]])
			depth[head[i]] = level[i];
	}
	for (size_t i = 0; i < n; i++)
		fold[i] = head[i] == i && fold_from && depth[i] > fold_from;
	/* chains that share a node of T with a folded one (the same function called from
	 * several levels of a folded caller) are folded too, else that node would have the
	 * function itself as a child: fold them and build again (rarely needed twice) */
	while (again) {
		ret = tree_pass(t, p, level, head, fold, depth, map, &kids, &roots);
		if (ret)
			goto out;
		again = 0;
		for (size_t i = 0; i < n; i++) {
			if (level[i] == 2 && !fold[head[i]] && t->levels[map[head[i]]] > 1) {
				fold[head[i]] = 1;
				again = 1;
			}
		}
	}
out:
	free(level);
	free(head);
	free(map);
	free(depth);
	free(fold);
	u64map_release(&kids);
	u64map_release(&roots);
	if (ret)
		func_tree_release(t);
	return ret;
}

void func_tree_release(struct func_tree *t)
{
	free(t->nodes);
	free(t->levels);
	memset(t, 0, sizeof(*t));
}
