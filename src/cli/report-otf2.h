/* report-otf2.h - `perfscope report` on an OTF2 archive (its anchor file, *.otf2): the function
 * profile and the scope categories from the archive's events (analysis/otf2-calls.h). */
#ifndef PSC_REPORT_OTF2_H
#define PSC_REPORT_OTF2_H

#include <stddef.h>

#include "cli.h"

/* PATH names a regular file *.otf2: an OTF2 archive's anchor, which report and html read
 * instead of an experiment directory. */
int report_otf2_is_anchor(const char *path);

/* REP as report_open leaves it, with the function profile of the archive ANCHOR (per thread:
 * a location's rows carry its rank as pid and its OTF2 location id as tid) and no region
 * profile or samples; not yet merged or sorted. Prints the cause on failure; report_close()
 * releases REP either way. */
int report_otf2_open(struct report *rep, const char *cmd, const char *anchor);

/* The one line for an option the archive cannot serve (OPTION: "--lines", "--by region"...):
 * data only a perfscope experiment has. */
void report_otf2_refuse(const char *anchor, const char *option);

/* `report --by scope --categories` on the archive ANCHOR: its MPI model, waits and scope
 * profile, printed. An exit status. */
int report_otf2_scopes(const char *anchor, const struct scope_options *so);

#endif /* PSC_REPORT_OTF2_H */
