/* stat-print.h - `perfscope stat` results as a terminal table, CSV or JSON. */
#ifndef PSC_STAT_PRINT_H
#define PSC_STAT_PRINT_H

#include <stdio.h>

#include "format/stat-result.h"

/* Human table: counts (mean ± relative stddev over runs, min..max), what could not be
 * counted and why, running ratios of multiplexed events, metrics and times.
 * 0 or -EIO. */
int stat_print_text(const struct stat_result *res, FILE *f);

/* CSV with the columns kind,name,value,unit,stddev,min,max,runs,running_pct,status
 * (kind: event, metric or time). 0 or -EIO. */
int stat_print_csv(const struct stat_result *res, FILE *f);

/* One JSON object. 0, -ENOMEM or -EIO. */
int stat_print_json(const struct stat_result *res, FILE *f);

struct jsonw;
/* stat_print_json with more members: EXTRA (may be NULL) writes them into the open object
 * after the totals'. 0, -ENOMEM or -EIO. */
int stat_print_json_extra(const struct stat_result *res, FILE *f,
			  void (*extra)(struct jsonw *w, const struct stat_result *res));

/* stat-thread-print.c: RES (one run with its threads) as the totals of stat_print_text, then
 * a table of the threads (pid, tid, name, each event, lowest running ratio), the totals and
 * the unattributed part. 0, -ENOMEM or -EIO. */
int stat_threads_print_text(const struct stat_result *res, FILE *f);

/* CSV with the columns row,pid,tid,name,event,value,running_pct,status, one line per thread
 * and event, then the total and the unattributed part of each event (docs/cmd-stat.md).
 * 0 or -EIO. */
int stat_threads_print_csv(const struct stat_result *res, FILE *f);

/* The object of stat_print_json with "threads" and "unattributed" added. 0, -ENOMEM or -EIO. */
int stat_threads_print_json(const struct stat_result *res, FILE *f);

#endif /* PSC_STAT_PRINT_H */
