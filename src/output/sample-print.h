/* sample-print.h - the profile of a sampled experiment as text, CSV or JSON (`perfscope report`).
 */
#ifndef PSC_SAMPLE_PRINT_H
#define PSC_SAMPLE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "../analysis/experiment.h"
#include "../analysis/sprofile.h"

struct sample_report {
	const struct experiment *e;
	const struct sample_profile *p; /* sorted */
	size_t top;			/* rows (and lines) to show, 0 = all */
	int lines;			/* the hottest source lines too */
	int accuracy;			/* estimated against exact totals instead of functions */
};

/*
 * Heading (leader, frequency, events, samples, losses), the functions by estimated time with
 * their share of the samples and each event's count, then with LINES the hottest lines.
 * 0 or -EIO.
 */
int sample_print_text(const struct sample_report *r, FILE *f);

/*
 * CSV: name,thread,samples,share,time_ns,<one column per event>,file,line; with LINES instead
 * file,line,function,samples,share,time_ns. 0 or -EIO.
 */
int sample_print_csv(const struct sample_report *r, FILE *f);

/* JSON object: sampling settings, functions, lines, accuracy, threads. 0, -ENOMEM or -EIO. */
int sample_print_json(const struct sample_report *r, FILE *f);

/*
 * Per event: the total estimated from the samples (sum of their deltas), the exact count of
 * the same events, and the difference in %; as a table, or CSV event,estimated,exact,diff_pct.
 * 0 or -EIO.
 */
int sample_print_accuracy(const struct sample_report *r, FILE *f, int csv);

#endif /* PSC_SAMPLE_PRINT_H */
