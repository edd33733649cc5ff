/*
 * timeline-view.h - the tables of `perfscope timeline` as views: the intervals (text: threads
 * summed; JSON: each with its threads), each event's value per interval and thread, each
 * function's samples per interval and thread (CSV and long CSV), the threads, the markers and
 * the regions (JSON).
 */
#ifndef PSC_TIMELINE_VIEW_H
#define PSC_TIMELINE_VIEW_H

#include "view/view.h"

#include "analysis/timeline/timeline.h"
#include "format/experiment.h"
#include "lib/strbuf.h"

struct jsonw;
struct timeline_row_memo;

enum timeline_table {
	TIMELINE_TABLE_INTERVALS, /* per interval: rates and the top function; its threads */
	TIMELINE_TABLE_VALUES,	  /* per interval, sampled thread and event: its value and rate */
	TIMELINE_TABLE_FUNCTIONS, /* per interval, thread and function with samples in it */
	TIMELINE_TABLE_THREADS,	  /* the threads with samples */
	TIMELINE_TABLE_MARKERS,	  /* exec, exit, throttling */
	TIMELINE_TABLE_REGIONS,	  /* the regions the program entered and left */
};

/* A table of a timeline with the getters' context: V.ctx is the struct itself, so it must not
 * move while V is rendered. */
struct timeline_view {
	struct view v;
	const struct experiment *e;
	const struct timeline *t;
	enum timeline_table table;
	enum out_format fmt;		/* the format rendered (text labels the intervals) */
	void *block;			/* rows and columns */
	size_t *label_at;		/* the intervals: each's label in LABELS (SIZE_MAX: none) */
	struct timeline_row_memo *memo; /* the getters' last row, in BLOCK */
	struct strbuf labels;		/* the intervals' top functions as the text shows them */
};

/* TV, the table T of E's timeline TL, in FMT. 0 or -ENOMEM; timeline_view_release frees it. */
int timeline_view_make(struct timeline_view *tv, const struct experiment *e,
		       const struct timeline *tl, enum timeline_table t, enum out_format fmt);

/* Free what timeline_view_make allocated. */
void timeline_view_release(struct timeline_view *tv);

#endif /* PSC_TIMELINE_VIEW_H */
