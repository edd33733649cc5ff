/*
 * stat-view.h - the tables of `perfscope stat` as views: the events and the metrics (text and
 * JSON), every event, metric and time as one table (CSV and long CSV), and with --per-thread
 * the threads (text: one row per thread, one column per event; JSON: a thread's object) and
 * each thread's events (CSV, long CSV, JSON).
 */
#ifndef PSC_STAT_VIEW_H
#define PSC_STAT_VIEW_H

#include "format/stat-result.h"
#include "view/view.h"

enum stat_table {
	STAT_TABLE_EVENTS,  /* text: value, event, (± stddev, min .. max: with more runs), note;
			       JSON: name, canonical, counted, then value, running_ratio, user_only
			       when counted (the view's option), else reason */
	STAT_TABLE_METRICS, /* text: value, metric, formula; JSON: name, unit, formula, value,
			       missing */
	STAT_TABLE_ROWS,    /* CSV: kind (event, metric, time), name, value, unit, stddev, min,
			       max, runs, running_pct, status */
	STAT_TABLE_THREADS, /* --per-thread, run 0: text pid, tid, name, each event the totals
			       counted, running, then the total and the unattributed rows after a
			       separator; JSON pid, tid, name, events (STAT_TABLE_THREAD_EVENTS) */
	STAT_TABLE_THREAD_EVENTS, /* --per-thread CSV: row (thread, total, unattributed), pid,
				     tid, name, event, value, running_pct, status; JSON (an
				     unattributed row without the view's option): name, counted,
				     value, running_ratio */
};

/* V, the table T of RES (V's ctx) with the rows FMT shows: the JSON of STAT_TABLE_THREADS
 * its threads only, that of STAT_TABLE_THREAD_EVENTS the unattributed parts only (a thread's
 * events are its "events" member). Its rows and columns are malloc'd: stat_view_release frees
 * them. 0 or -ENOMEM. */
int stat_view_make(struct view *v, const struct stat_result *res, enum stat_table t,
		   enum out_format fmt);

/* stat_view_make for STAT_TABLE_THREADS and STAT_TABLE_THREAD_EVENTS (stat-thread-view.c). */
int stat_threads_view_make(struct view *v, const struct stat_result *res, enum stat_table t,
			   enum out_format fmt);

/* Whether ROW of V (STAT_TABLE_EVENTS) was counted: the option its JSON object is written
 * with. */
int stat_view_counted(const struct view *v, const void *row);

/* Free what stat_view_make allocated in V. */
void stat_view_release(struct view *v);

#endif /* PSC_STAT_VIEW_H */
