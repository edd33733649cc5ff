/*
 * scallers.h - call trees from the call chains of samples (`record --sample --callgraph`).
 *
 * Every sample is a path of functions, outermost caller first, the sampled function last. The
 * top-down tree merges the paths by prefix: a node is a function reached through one chain of
 * callers, with the samples whose path passes through it (inclusive) and those whose path ends
 * there (self). Per function, the inclusive ("children") count takes each sample once even
 * when the function is on its path more than once (recursion).
 *
 * The callers tree of a function F turns the paths around: its root is F; below it, the
 * functions that called F, below those their callers, and so on, each with the samples whose
 * path reached F through that chain. Where F is on a path more than once, its outermost
 * occurrence counts (the callers of the recursion, not the recursion itself).
 */
#ifndef PSC_AN_SCALLERS_H
#define PSC_AN_SCALLERS_H

#include <stddef.h>
#include <stdint.h>

struct hchain;
struct u64map;

struct scall_func {
	const char *name, *module; /* not owned */
	uint64_t self, incl;	   /* samples */
	uint64_t self_ns, incl_ns; /* the on-CPU time they stand for */
	uint64_t seen;		   /* internal: the last path that counted it, plus one */
};

/* Node 0 is the root (no function, func UINT32_MAX): its counts are every path's. */
struct scall_node {
	uint32_t func, parent;
	uint32_t first_child, next_sibling; /* UINT32_MAX: none */
	uint64_t samples, self;		    /* inclusive and self samples of the path */
	uint64_t time_ns, self_ns;
};

struct scall_tree {
	struct scall_func *funcs;
	size_t nfuncs, funccap;
	struct scall_node *nodes;
	size_t nnodes, nodecap;
	uint64_t paths; /* paths added (samples) */
	/* functions by name and module (lib/hashmap.h), child nodes by parent and function */
	struct hchain *func_index;
	struct u64map *child_index;
};

/* An empty tree (just the root). 0 or -ENOMEM. */
int scall_init(struct scall_tree *t);

/*
 * The index of the function NAME in MODULE in *ID, added when new. NAME and MODULE must live as
 * long as the tree. 0 or -ENOMEM.
 */
int scall_func_id(struct scall_tree *t, const char *name, const char *module, uint32_t *id);

/* Add the path of N function indices (outermost first, the sampled function last) with the
 * weight of one sample, WEIGHT_NS. N may be 0 (a sample without a function). 0 or -ENOMEM. */
int scall_add(struct scall_tree *t, const uint32_t *path, size_t n, uint64_t weight_ns);

/* The function index of NAME (first match), or -1. */
long scall_find(const struct scall_tree *t, const char *name);

/*
 * The callers tree of FUNC of T into OUT (which scall_callers initialises; function indices are
 * T's, OUT's funcs are a copy with the counts of the inverted paths). 0 or -ENOMEM.
 */
int scall_callers(const struct scall_tree *t, uint32_t func, struct scall_tree *out);

/* Sort every node's children by inclusive samples, descending (then by name). 0 or -ENOMEM. */
int scall_sort(struct scall_tree *t);

void scall_release(struct scall_tree *t);

#endif /* PSC_AN_SCALLERS_H */
