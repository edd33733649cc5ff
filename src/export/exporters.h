/*
 * exporters.h - the formats `perfscope export` writes, as a table: one row per format with its
 * name, what it is, where it goes by default, what it needs of the experiment and the function
 * that writes it. `export --format NAME` is a lookup in this table; a new format is a new row
 * (and its writer), not a new branch in the command.
 */
#ifndef PSC_EXPORTERS_H
#define PSC_EXPORTERS_H

#include <stddef.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/mpi/mpi-model.h"
#include "model/symbols.h"
#include "export/chrome.h"
#include "export/otf2-export.h"

/* Where a format's output goes. */
enum export_target {
	EXPORT_FILE,	 /* one file (or standard output), opened by the caller */
	EXPORT_DIRECTORY /* a directory the writer makes or replaces itself */
};

/* What a writer needs besides the experiment and its symbols (exporter.needs). */
#define EXPORT_NEEDS_MPI                                                                           \
	0x1u /* the MPI model, when the experiment has MPI records, built with                     \
	      * MPI_BUILD_KEEP_UNCORRECTED */

/* One export: its input, prepared by the caller as the row's needs say, and its totals. */
struct export_job {
	struct experiment *e;
	struct symtab *st;
	const struct mpi_model *mpi; /* EXPORT_NEEDS_MPI: the model, NULL without MPI records */
	FILE *out;		     /* EXPORT_FILE */
	const char *path;	     /* EXPORT_DIRECTORY */
	union {
		struct chrome_stats chrome;
		struct otf2_export_stats otf2;
	} stats;
};

struct exporter {
	const char *name;
	const char *description; /* for the list of formats in messages and help */
	const char *default_output;
	enum export_target target;
	unsigned needs; /* EXPORT_NEEDS_* */
	/* Write JOB: 0 (otf2: 1 when the replaced archive held files kept aside, said in ERR),
	 * or a negative errno with a one-line message in ERR. */
	int (*write)(struct export_job *job, char *err, size_t errlen);
};

/* The row of format NAME, or NULL. */
const struct exporter *exporter_find(const char *name);

/* The I-th row (0 ..), NULL past the last. */
const struct exporter *exporter_at(size_t i);

/* "NAME (DESCRIPTION), NAME (DESCRIPTION)" of every row into BUF (cut to LEN bytes). */
void exporter_list(char *buf, size_t len);

#endif /* PSC_EXPORTERS_H */
