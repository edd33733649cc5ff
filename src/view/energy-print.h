/* energy-print.h - `perfscope energy`: energy per function and per interval, power statistics,
 * in text, CSV, JSON and long CSV. */
#ifndef PSC_ENERGY_PRINT_H
#define PSC_ENERGY_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/energy/energy.h"
#include "format/experiment.h"
#include "format/power.h"
#include "view/view.h"

/* Statistics of one column of the power samples. */
struct energy_stat {
	const char *name, *unit;
	struct power_stats st;
};

/* A channel's energy over the covered run, for the list of channels. */
struct energy_channel {
	const char *name;
	int working;
	double energy_j;
};

struct energy_report {
	const struct experiment *e;
	const struct power_series *ps;
	const char *channel;		      /* the one attributed */
	const struct energy_profile *ep;      /* by the method asked for (trapezoid for both) */
	const struct energy_profile *simpson; /* --method both: by Simpson's rule, else NULL */
	const char *method;		      /* "trapezoid", "simpson" or "both" */
	int inclusive;			      /* functions charged with their callees' energy */
	size_t top;			      /* rows shown, 0 = all */
	const size_t *order;		      /* rows of ep->merged in display order */
	const struct energy_stat *stats;
	size_t nstats;
	double rate_hz; /* samples per second achieved */
	const struct energy_channel *channels;
	size_t nchannels;
	const char *dir; /* for the `perfscope select` hint */
	int stats_only;	 /* CSV and long CSV: the power statistics instead of the functions */
};

/* Rows of EP->merged by energy, largest first (inclusive or exclusive): a malloc'd array of
 * EP->merged.nrows indices, or NULL. */
size_t *energy_order(const struct energy_profile *ep, int inclusive);

/* Call FN with every caveat: power not covering the run, channels not working, threads
 * sharing power, and each function whose mean call is shorter than a few sample periods
 * (with the `perfscope select --min-time` that keeps only longer ones). */
void energy_caveats(const struct energy_report *r, void (*fn)(void *ctx, const char *line),
		    void *ctx);

/*
 * R in FMT into F:
 * - text: the run's energy, the function table, the intervals (if any), the channels, the power
 *   statistics, then the caveats;
 * - CSV: name,calls,time_ns,energy_j,power_w,pct_energy,pct_time (and energy_simpson_j with
 *   --method both), a row "[other functions]" summing those --top leaves out and one
 *   "[outside traced functions]" completing the total (exclusive only); with intervals a blank
 *   line and interval,t_start_ns,t_end_ns,name,time_ns,energy_j. With STATS_ONLY instead:
 *   column,unit,n,mean,sd,cv,min,q1,median,q3,iqr,max,rate_hz;
 * - long CSV: the same tables, one line per row and number (the row's names, metric, value);
 * - JSON: an object with everything the text shows.
 * The caveats go with text and JSON; with CSV and long CSV, which cannot hold them, to NOTES
 * (the command's stderr) as "perfscope: warning:" lines. 0, -ENOMEM or -EIO.
 */
int energy_print(const struct energy_report *r, enum out_format fmt, FILE *f, FILE *notes);

#endif /* PSC_ENERGY_PRINT_H */
