/*
 * powerfile.h - an external power meter's samples, from a text file: columns of watts, or of
 * volts and amps (multiplied), each with a scale factor; either a time column (seconds since
 * the experiment's start) or a fixed sample rate; whitespace or comma separated; '#' starts a
 * comment. Read fast: an 11-minute run at 20 kHz is 13.6 M lines.
 */
#ifndef PSC_AN_POWERFILE_H
#define PSC_AN_POWERFILE_H

#include <stddef.h>

#include "power.h"

#define POWER_FILE_MAX_COLS 16

enum power_col_role {
	PCOL_TIME,  /* seconds since the experiment's start */
	PCOL_WATTS, /* power */
	PCOL_VOLTS, /* with PCOL_AMPS: power = volts x amps */
	PCOL_AMPS,
	PCOL_SKIP, /* a column the meter writes that is not used */
};

struct power_file_spec {
	size_t ncols;
	enum power_col_role role[POWER_FILE_MAX_COLS];
	double scale[POWER_FILE_MAX_COLS]; /* per column, 1 unless given */
	double rate_hz;			   /* without a time column: samples per second */
	double offset_ns;		   /* added to every sample time */
};

/* The default: one column of watts at 20 kHz, no offset. */
void power_file_spec_init(struct power_file_spec *spec);

/* FORMAT: comma-separated column roles ("watts", "time,watts", "volts,amps", "skip" for an
 * unused column); SCALE (may be NULL): comma-separated factors for the value columns (watts
 * or volts and amps, in file order), e.g. "2,1". Keeps SPEC's rate and offset. 0, or -EINVAL
 * with what was expected in ERR. */
int power_file_spec_parse(struct power_file_spec *spec, const char *format, const char *scale,
			  char *err, size_t errlen);

/* Read PATH into PS (channel "power", kind POWER_WATTS; columns for statistics: each value
 * column scaled, and "power" when it is computed from volts and amps). Sample times are
 * START_NS + offset + (time column, or i / rate). 0, or a negative errno with "PATH: line N:
 * ..." (what was found and what was expected) in ERR: a bad number, a missing column, a
 * negative or NaN value, a time not after the previous one, an empty file. */
int power_file_read(struct power_series *ps, const char *path, const struct power_file_spec *spec,
		    double start_ns, char *err, size_t errlen);

#endif /* PSC_AN_POWERFILE_H */
