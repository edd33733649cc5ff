/*
 * func-view.h - the function profile and its call tree as views: their column tables (rows:
 * struct func_row, and the nodes of a call tree), and sorting the profile by a column.
 */
#ifndef PSC_FUNC_VIEW_H
#define PSC_FUNC_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "view/view.h"

struct func_report;
struct func_profile;
struct func_tree;

/* The columns of the function profile: ctx a struct func_report, rows struct func_row. */
const struct view_col *func_view_cols(size_t *n);

/*
 * Sort P's rows by the column --sort WORD names (its sort word or its key): its direction,
 * then its tie column (a name: its thread). *LABEL (may be NULL) gets the heading's words.
 * 0, -EINVAL for a word no sortable column has, or -ENOMEM.
 */
int func_view_sort(struct func_profile *p, const char *word, int per_thread, const char **label);

/* One node of a call tree as a row of the tree view. */
struct func_tree_row {
	size_t node, depth;
};

/* Room to spell a node's path, grown by the path getter; its owner frees BUF. */
struct func_tree_path {
	char *buf;
	size_t cap;
};

/* What the getters of the tree view read: the report, its tree, and room to spell a path. */
struct func_tree_ctx {
	const struct func_report *r;
	const struct func_tree *t;
	struct func_tree_path *path;
};

/* The columns of the call tree (path, depth, calls, times, share): rows struct func_tree_row,
 * ctx a struct func_tree_ctx. */
const struct view_col *func_tree_view_cols(size_t *n);

#endif /* PSC_FUNC_VIEW_H */
