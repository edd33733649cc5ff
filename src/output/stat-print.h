/* stat-print.h - `perfscope stat` results as a terminal table, CSV or JSON. */
#ifndef PSC_STAT_PRINT_H
#define PSC_STAT_PRINT_H

#include <stdio.h>

#include "../analysis/stat-result.h"

/* Human table: counts (mean ± relative stddev over runs, min..max), what could not be
 * counted and why, running ratios of multiplexed events, metrics and times.
 * 0 or -EIO. */
int stat_print_text(const struct stat_result *res, FILE *f);

/* CSV with the columns kind,name,value,unit,stddev,min,max,runs,running_pct,status
 * (kind: event, metric or time). 0 or -EIO. */
int stat_print_csv(const struct stat_result *res, FILE *f);

/* One JSON object. 0, -ENOMEM or -EIO. */
int stat_print_json(const struct stat_result *res, FILE *f);

#endif /* PSC_STAT_PRINT_H */
