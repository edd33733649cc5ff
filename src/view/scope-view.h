/* scope-view.h - `report --by scope --categories` as views: the scopes (one row per scope and
 * rank shown) and the MPI calls made directly in each scope. */
#ifndef PSC_SCOPE_VIEW_H
#define PSC_SCOPE_VIEW_H

#include "view/view.h"

struct scope_report;

/* V, the scopes of R (OPS: their MPI calls) as R shows them (--rank, --by scope,rank, --top);
 * its rows are malloc'd: scope_view_release frees them. 0 or -ENOMEM. */
int scope_view_make(struct view *v, const struct scope_report *r, int ops);

/* Free what scope_view_make allocated in V. */
void scope_view_release(struct view *v);

#endif /* PSC_SCOPE_VIEW_H */
