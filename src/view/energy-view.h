/*
 * energy-view.h - the tables of `perfscope energy` as views: the functions, the intervals (text
 * and JSON: one row per interval; CSV and long CSV: one per interval and function), the
 * channels and the power statistics.
 */
#ifndef PSC_ENERGY_VIEW_H
#define PSC_ENERGY_VIEW_H

#include "view/view.h"

struct energy_report;
struct jsonw;

enum energy_table {
	/* the functions shown, the ones --top leaves out summed (not in text), and the time
	 * outside traced functions (exclusive only) */
	ENERGY_TABLE_FUNCTIONS,
	ENERGY_TABLE_INTERVALS, /* per interval: its energy, power and top function */
	ENERGY_TABLE_SLICES,	/* per interval, every function with time or energy in it */
	ENERGY_TABLE_CHANNELS,	/* every power channel's energy over the covered run */
	ENERGY_TABLE_STATS,	/* statistics of every column of the power samples */
};

/* A table of the report with the getters' context: V.ctx is the struct itself, so it must not
 * move while V is rendered. */
struct energy_view {
	struct view v;
	const struct energy_report *r;
	enum out_format fmt; /* the format rendered (text leaves some cells blank) */
	void *block;	     /* the rows */
	double *outside_j;   /* the slices: each interval's energy outside traced functions */
};

/* EV, the table T of R in the rows FMT shows. 0 or -ENOMEM; energy_view_release frees it. */
int energy_view_make(struct energy_view *ev, const struct energy_report *r, enum energy_table t,
		     enum out_format fmt);

/* EV's rows as the JSON array of W. The functions' rows carry their energy per interval
 * ("intervals_excl_j") where they have one. */
void energy_view_json(struct jsonw *w, const struct energy_view *ev);

/* EV in FMT (text, CSV or long CSV) into F: 0, -ENOMEM or -EIO. */
int energy_view_print(const struct energy_view *ev, enum out_format fmt, FILE *f);

/* Free what energy_view_make allocated. */
void energy_view_release(struct energy_view *ev);

#endif /* PSC_ENERGY_VIEW_H */
