/* stat-print.h - `perfscope stat` results as a terminal table, CSV, JSON or long CSV, from the
 * views of stat-view.h. */
#ifndef PSC_STAT_PRINT_H
#define PSC_STAT_PRINT_H

#include <stdio.h>

#include "format/stat-result.h"
#include "view/view.h"

/*
 * RES in FMT into F (docs/cmd-stat.md):
 * - text: the counts (mean ± relative stddev over runs, min .. max), what could not be counted
 *   and why, running ratios of multiplexed events, the metrics and the times; with
 *   res->per_thread then a table of the threads (pid, tid, name, each event counted, lowest
 *   running ratio), the total and the unattributed part.
 * - CSV: kind,name,value,unit,stddev,min,max,runs,running_pct,status (kind: event, metric or
 *   time); per thread row,pid,tid,name,event,value,running_pct,status, one line per thread and
 *   event, then the total and the unattributed part of each event.
 * - long CSV: the CSV's entity columns, metric, value: one line per row and number.
 * - JSON: one object (command, runs, exit status and signal, times, events, metrics; per
 *   thread also "threads" and "unattributed").
 * 0, -ENOMEM or -EIO.
 */
int stat_print(const struct stat_result *res, enum out_format fmt, FILE *f);

#endif /* PSC_STAT_PRINT_H */
