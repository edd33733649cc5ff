/* timeline-print.h - `perfscope timeline`: event rates and function shares per interval. */
#ifndef PSC_TIMELINE_PRINT_H
#define PSC_TIMELINE_PRINT_H

#include <stdio.h>

#include "format/experiment.h"
#include "analysis/timeline/timeline.h"

/*
 * One line per interval (threads summed): start, each event's rate per second, samples and
 * the top function with its share; then the markers. 0 or -EIO.
 */
int timeline_print_text(const struct experiment *e, const struct timeline *t, FILE *f);

/*
 * CSV t_start_ns,t_end_ns,thread,event,value,rate_per_s (one row per interval, thread and
 * event), a blank line, then t_start_ns,t_end_ns,thread,function,samples,share. 0 or -EIO.
 */
int timeline_print_csv(const struct experiment *e, const struct timeline *t, FILE *f);

/* JSON object: start_ns, interval_ns, events, series, functions, markers, regions. 0, -ENOMEM
 * or -EIO. */
int timeline_print_json(const struct experiment *e, const struct timeline *t, FILE *f);

#endif /* PSC_TIMELINE_PRINT_H */
