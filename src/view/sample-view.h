/*
 * sample-view.h - the reports of a sampled experiment as views: the column tables of its
 * functions, its call trees (top-down, and the callers of a function), its hottest source
 * lines and the accuracy of its estimated totals.
 */
#ifndef PSC_SAMPLE_VIEW_H
#define PSC_SAMPLE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"
#include "view/view.h"

struct sample_report;
struct scall_tree;

/* The columns of R's function rows (ctx a struct sample_report, rows struct sprof_row): fixed
 * ones and one per event after the leader, into *COLS (malloc'd, the caller frees it) and *N;
 * the VIEW_OPTION columns are those of call chains. 0 or -ENOMEM. */
int sample_view_cols(const struct sample_report *r, struct view_col **cols, size_t *n);

/* One node of a call tree of samples as a row of the tree views. */
struct sample_tree_row {
	uint32_t node;
	size_t depth;
};

/* Room to spell a node's path: the nodes up to the root, and the text. Its owner releases it
 * (sample_tree_path_release). */
struct sample_tree_path {
	struct strbuf sb;
	uint32_t *up;
	size_t upcap;
};

/* What the getters of the tree views read: the report (for the shares: of all samples), the
 * tree shown (the call tree, or a callers tree) and room to spell a path. */
struct sample_tree_ctx {
	const struct sample_report *r;
	const struct scall_tree *t;
	struct sample_tree_path *path;
};

/*
 * The columns of the call tree (CALLERS 0: path, name, module, depth, inclusive and self
 * samples, shares and times) or of a callers tree (CALLERS 1: depth, function, module,
 * samples, share, time; its path, a VIEW_OPTION column, only in the long CSV): rows struct
 * sample_tree_row, ctx a struct sample_tree_ctx, into *N.
 */
const struct view_col *sample_tree_view_cols(int callers, size_t *n);

/* Free P's memory. */
void sample_tree_path_release(struct sample_tree_path *p);

/* The columns of the hottest source lines (file, line, function, samples, share, time): rows
 * struct sprof_line, ctx a struct sample_report, into *N. */
const struct view_col *sample_lines_view_cols(size_t *n);

/* The columns of the accuracy (event, estimated and exact totals, the difference in %): rows
 * uint32_t, an event's index, ctx a struct sample_report, into *N. */
const struct view_col *sample_accuracy_view_cols(size_t *n);

#endif /* PSC_SAMPLE_VIEW_H */
