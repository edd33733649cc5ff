/* region-print.h - the region profile of `perfscope report` as text, CSV or JSON. */
#ifndef PSC_REGION_PRINT_H
#define PSC_REGION_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "../analysis/experiment.h"
#include "../analysis/regions.h"
#include "../core/metrics.h"

struct region_report {
	const struct experiment *e;
	const struct region_profile *p; /* rows in display order */
	int per_thread;			/* rows are per thread (else merged: thread "all") */
	const struct metric *metrics;
	size_t nmetrics;
	size_t top;		/* rows to show, 0 = all */
	const char *sort_label; /* "inclusive time", ... for the heading */
	int no_caveats;		/* the caveats were printed already (with the functions) */
};

/* Table of rows, then every caveat: runs that did not end cleanly, cut streams, lost
 * records, unmatched ends, unclosed regions, events not counted and why. 0 or -EIO. */
int region_print_text(const struct region_report *r, FILE *f);

/* Call FN with one line per caveat of R: the experiment's, each thread's end, cut and lost
 * records, region ends without a begin and regions left open. */
void region_report_caveats(const struct region_report *r, void (*fn)(void *ctx, const char *line),
			   void *ctx);

/* CSV: name,thread,calls,incl_ns,excl_ns, one column per event (named as given), one per
 * metric; empty cells for values not counted. The caveats go to stderr, one
 * "perfscope: warning:" line each. 0 or -EIO. */
int region_print_csv(const struct region_report *r, FILE *f);

struct jsonw;
struct region_row;

/* One row of R as a JSON object: name, pid and thread (or thread "all"), calls, times, each
 * counter as {value, running_ratio, scaled} or null where not counted, each metric. */
void region_row_json(struct jsonw *w, const struct region_report *r, const struct region_row *row);

/* The rows, events, metrics and caveats as one JSON object written into W. */
void region_json(struct jsonw *w, const struct region_report *r);

/* region_json printed to F. 0, -ENOMEM or -EIO. */
int region_print_json(const struct region_report *r, FILE *f);

#endif /* PSC_REGION_PRINT_H */
