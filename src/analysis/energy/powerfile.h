/*
 * powerfile.h - an external power meter's samples, from a text file: columns of watts, or of
 * volts and amps (multiplied), each with a scale factor; either a time column (seconds since
 * the experiment's start) or a fixed sample rate; whitespace or comma separated; '#' starts a
 * comment. Read fast: an 11-minute run at 20 kHz is 13.6 M lines.
 */
#ifndef PSC_AN_POWERFILE_H
#define PSC_AN_POWERFILE_H

#include <stddef.h>

#include "format/power.h"

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

/* Read PATH into PS (overwritten; left empty on error): one channel "power", kind POWER_WATTS,
 * advancing, each value scaled (volts x amps for a volts/amps file). Columns for statistics:
 * "volts" (V) and "amps" (A), scaled, for a volts/amps file; none for a watts file, whose only
 * column is the channel itself (its statistics are the caller's, from a copy). Sample times
 * are START_NS + offset + (time column x 1e9, in PS->t; or i / rate: PS->t is NULL, PS->t0
 * and PS->dt), strictly increasing on that clock (time values may be negative). 0; -errno
 * with "PATH: strerror" when PATH cannot be read; -EINVAL for a bad SPEC, or with "PATH: line
 * N: ..." (what was found and what was expected) in ERR: a bad number, a missing, empty or
 * extra column, a negative, NaN or infinite value, a time not after the previous one; "PATH:
 * no samples" for a file without data lines; -ENOMEM. */
int power_file_read(struct power_series *ps, const char *path, const struct power_file_spec *spec,
		    double start_ns, char *err, size_t errlen);

#endif /* PSC_AN_POWERFILE_H */
