/*
 * load-print.h - `perfscope mpi --load`: each host's CPU busy share and each rank's CPU share
 * over time and their means, from the experiment's load logs (format/loadlog.h), as a
 * table, CSV, JSON or long CSV, rendered from the views of load-view.h.
 */
#ifndef PSC_LOAD_PRINT_H
#define PSC_LOAD_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/experiment.h"
#include "format/loadlog.h"

enum load_format {
	LOAD_FORMAT_TEXT = 0,
	LOAD_FORMAT_CSV = 1,
	LOAD_FORMAT_JSON = 2,
	LOAD_FORMAT_LONG = 3, /* the CSV in long form: entities, metric, value */
};

/* At most this many rows of load over time per host in text; more samples are merged into
 * rows of consecutive samples (interval-weighted means). CSV and JSON give every sample. */
#define LOAD_TEXT_ROWS 40

/*
 * Read the load logs of E's directory and print them to OUT in FORMAT:
 * - text: a table of hosts (CPUs, samples, busy mean/min/max in %), a table of ranks (host,
 *   pid, samples, CPU share mean/min/max in CPUs), then per host its load over time (seconds
 *   since the run's start: meta.json's start_ns when it precedes the samples, else one period
 *   before the first sample).
 * - CSV: `host,rank,pid,samples,mean,min,max` (rank `host` for the host's busy fraction, pid
 *   empty there), a blank line, then `host,rank,time_ns,share` for every known sample.
 * - long CSV: each block of the CSV in long form (its entity columns, metric, value).
 * - JSON: {"hosts": [{"host", "file", "cpus", "period_ns", "samples", "busy": {"mean", "min",
 *   "max"}, "time_ns": [...], "busy_over_time": [...], "ranks": [{"rank", "pid", "samples",
 *   "mean", "min", "max", "share": [...]}]}]} (null for a share not known).
 * 0; -ENOENT with "DIR: no load logs ..." in ERR when the experiment has none; another
 * negative errno with the reader's message ("FILE: line N: ..."); -EIO when writing failed.
 */
int load_print(FILE *out, const struct experiment *e, enum load_format format, char *err,
	       size_t errlen);

/* Print SET already read (see load_print); ORIGIN_NS: the text output's time 0, 0 for one
 * period before each host's first sample. 0 or -EIO (or -ENOMEM). */
int load_print_set(FILE *out, const struct load_set *set, int64_t origin_ns,
		   enum load_format format);

#endif /* PSC_LOAD_PRINT_H */
