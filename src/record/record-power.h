/*
 * record-power.h - `perfscope record --power SRC`: the options, opening the source before
 * anything runs, the power sampler around the run, the meter file copied after it, meta.json's
 * "power" and the summary lines. Prints its messages (CLI side of powercap.h and
 * power-sampler.h).
 */
#ifndef PSC_RECORD_POWER_H
#define PSC_RECORD_POWER_H

#include <stdint.h>

#include "analysis/energy/powerfile.h"
#include "lib/jsonw.h"
#include "record/powercap.h"
#include "record/power-sampler.h"

enum record_power_kind {
	RECORD_POWER_NONE = 0,
	RECORD_POWER_RAPL,
	RECORD_POWER_PERF,
	RECORD_POWER_FILE,
};

struct record_power {
	/* the options as given (NULL when not) */
	const char *arg;			    /* --power: rapl, perf or file:PATH */
	const char *period;			    /* --power-period */
	const char *format, *scale, *rate, *offset; /* --power-format/-scale/-rate/-offset */
	/* parsed */
	enum record_power_kind kind;
	const char *path; /* file: the meter's file */
	uint64_t period_ns;
	double rate_hz, offset_ns;
	struct power_source src;
	struct power_sampler smp;
	int started, sampler_error;
};

/* The --power-format, --power-scale, --power-rate and --power-offset texts (each may be NULL)
 * as SPEC, for record and energy alike. Prints one line naming the cause for CMD; 0 or
 * -EINVAL. */
int meter_spec_parse(const char *cmd, const char *format, const char *scale, const char *rate,
		     const char *offset, struct power_file_spec *spec);

/* Check the options and open the source (rapl, perf). Prints one line naming the cause and
 * the fix; 0 or a negative errno (a usage error: exit 2, nothing created yet). */
int record_power_prepare(struct record_power *rp);

/* Right before the command is released: start the sampler into DIR (rapl, perf). Prints the
 * cause; 0 or a negative errno. */
int record_power_start(struct record_power *rp, const char *dir);

/* Right after the command ended: the last reading, the log closed. Quiet. */
void record_power_stop(struct record_power *rp);

/* After a run that happened: copy the meter's file into DIR (file:PATH; a warning when it is
 * missing) and print the summary of the readings. */
void record_power_report(struct record_power *rp, const char *dir);

/* meta.json's "power" object (nothing without --power). */
void record_power_meta(const struct record_power *rp, struct jsonw *w);

/* Stop whatever runs, close the source. */
void record_power_release(struct record_power *rp);

#endif /* PSC_RECORD_POWER_H */
