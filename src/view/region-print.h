/* region-print.h - the region profile of `perfscope report` as text, CSV or JSON. */
#ifndef PSC_REGION_PRINT_H
#define PSC_REGION_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/profile/regions.h"
#include "pmu/metrics.h"
#include "view/view.h"

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

/* The rows R shows (at most R->top) in FMT. Text: a table (region, thread, calls, inclusive,
 * exclusive, mean, min, max, each event, each metric), then every caveat: runs that did not
 * end cleanly, cut streams, lost records, unmatched ends, unclosed regions, events not counted
 * and why. CSV (or long CSV): the text's columns by key (name,thread,calls,incl_ns,excl_ns,
 * mean_ns,min_ns,max_ns, each event and metric named as given), empty cells for values not
 * counted, the caveats to NOTES (the command's stderr) as "perfscope: warning:" lines. JSON:
 * region_json. 0, -ENOMEM or -EIO. */
int region_print(const struct region_report *r, enum out_format fmt, FILE *f, FILE *notes);

/* Call FN with one line per caveat of R: the experiment's, each thread's end, cut and lost
 * records, region ends without a begin and regions left open. */
void region_report_caveats(const struct region_report *r, void (*fn)(void *ctx, const char *line),
			   void *ctx);

struct jsonw;
struct region_row;

/* One row of R as a JSON object: name, pid and thread (or thread "all"), calls, times, each
 * counter as {value, running_ratio, scaled} or null where not counted, each metric. */
void region_row_json(struct jsonw *w, const struct region_report *r, const struct region_row *row);

/* The rows, events, metrics and caveats as one JSON object written into W. */
void region_json(struct jsonw *w, const struct region_report *r);

#endif /* PSC_REGION_PRINT_H */
