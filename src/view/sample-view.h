/* sample-view.h - the functions of a sampled experiment as a view: its columns. */
#ifndef PSC_SAMPLE_VIEW_H
#define PSC_SAMPLE_VIEW_H

#include <stddef.h>

#include "view/view.h"

struct sample_report;

/* The columns of R's function rows (ctx a struct sample_report, rows struct sprof_row): fixed
 * ones and one per event after the leader, into *COLS (malloc'd, the caller frees it) and *N;
 * the VIEW_OPTION columns are those of call chains. 0 or -ENOMEM. */
int sample_view_cols(const struct sample_report *r, struct view_col **cols, size_t *n);

#endif /* PSC_SAMPLE_VIEW_H */
