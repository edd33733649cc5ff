/*
 * region-view.h - the region profile as a view: its columns (fixed ones, then one per counted
 * event and one per metric of the experiment) and sorting the profile by a column.
 */
#ifndef PSC_REGION_VIEW_H
#define PSC_REGION_VIEW_H

#include <stddef.h>

#include "view/view.h"

struct region_report;
struct region_profile;

/* The columns of R's rows (ctx a struct region_report, rows struct region_row) into *COLS
 * (malloc'd, the caller frees it) and *N. 0 or -ENOMEM. */
int region_view_cols(const struct region_report *r, struct view_col **cols, size_t *n);

/*
 * Sort P's rows by the column --sort WORD names (its sort word or its key) among the fixed
 * columns: its direction, then its tie column (a name: its thread). *LABEL (may be NULL) gets
 * the heading's words. 0 or -EINVAL for a word no sortable column has.
 */
int region_view_sort(struct region_profile *p, const char *word, int per_thread,
		     const char **label);

/* Whether --sort WORD names a sortable column of the region view (the function view has the
 * same words and keys). */
int region_view_sortable(const char *word);

/* The --sort words the function and region views share, as "incl, excl, ... or name", into
 * BUF. */
void report_sort_words(char *buf, size_t len);

#endif /* PSC_REGION_VIEW_H */
