/* timeline-print.h - `perfscope timeline`: event rates and function shares per interval. */
#ifndef PSC_TIMELINE_PRINT_H
#define PSC_TIMELINE_PRINT_H

#include <stdio.h>

#include "format/experiment.h"
#include "analysis/timeline/timeline.h"
#include "view/view.h"

/*
 * One line per interval (threads summed): start, each event's rate per second, samples and
 * the top function with its share; then the markers. 0 or -EIO.
 */
int timeline_print_text(const struct experiment *e, const struct timeline *t, FILE *f);

/*
 * T in FMT into F: text (timeline_print_text); CSV t_start_ns,t_end_ns,thread,event,value,
 * rate_per_s (one row per interval, sampled thread and event), a blank line, then
 * t_start_ns,t_end_ns,thread,function,samples,share; long CSV the same two blocks, one line per
 * row and number; JSON an object: start_ns, end_ns, interval_ns, events, threads, functions,
 * intervals, markers, regions. 0, -ENOMEM or -EIO.
 */
int timeline_print(const struct experiment *e, const struct timeline *t, enum out_format fmt,
		   FILE *f);

#endif /* PSC_TIMELINE_PRINT_H */
