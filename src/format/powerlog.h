/*
 * powerlog.h - the energy counters `perfscope record --power rapl|perf` read during the run
 * (`power.<source>` in the experiment, docs/format.md), as a power series: one POWER_JOULES
 * channel per counter, unwrapped (RAPL's energy_uj wraps at max_energy_range_uj).
 */
#ifndef PSC_AN_POWERLOG_H
#define PSC_AN_POWERLOG_H

#include <stddef.h>

#include "format/power.h"

/* Read the power log PATH into PS. Channels in file order, cumulative joules from 0, flagged
 * not advancing when the counter never moved; columns: each channel's mean power over every
 * sampling interval. 0, or a negative errno with "PATH: line N: ..." in ERR. */
int power_log_read(struct power_series *ps, const char *path, char *err, size_t errlen);

#endif /* PSC_AN_POWERLOG_H */
