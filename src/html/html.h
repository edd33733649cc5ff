/*
 * html.h - the self-contained HTML report: one file with its CSS, JavaScript (Chart.js
 * included) and data inlined, no network access. Assets live in src/html/assets and are
 * embedded at build time; each view's data comes from one html-VIEW.c (html-int.h).
 */
#ifndef PSC_HTML_H
#define PSC_HTML_H

#include <stdio.h>

#include "format/experiment.h"
#include "model/symbols.h"
#include "view/func-print.h"
#include "view/region-print.h"
#include "view/sample-print.h"

/* The session's timeline for the Counters view (session_options.timeline_top): functions
 * kept by name in the sample shares; the others are "other". */
#define HTML_COUNTERS_TOP 8

struct mpi_model;
struct html_energy;
struct session;

/* What the report is made from: the session of the experiment (or archive), which builds every
 * analysis the views ask for, its experiment and symbols, and the profiles' views the CLI set
 * up (report_views), plus the user's choices. The views only render. */
struct html_input {
	struct session *s;
	struct experiment *e;
	struct symtab *syms;
	const struct region_report *rr;
	const struct func_report *fr;
	const struct sample_report *sr; /* NULL without samples files */
	const char *profile_error;	/* why rr, fr and sr are NULL (profile pass failed) */
	/* the anchor file (*.otf2) of the OTF2 archive the report is made from, or NULL: then e
	 * is an empty experiment, fr the archive's function profile (otf2-calls.h), the MPI
	 * model and the timeline's calls come from the archive, and only the views with data
	 * from it are built (html-otf2.c) */
	const char *otf2;
	int grid_rows, grid_cols; /* --grid for the rank grids; 0: chosen from the size */
	/* filled while writing (html.c) */
	const struct mpi_model *mpi; /* the session's, once html_mpi() stated its caveats */
	int mpi_state;		     /* 0 not asked yet, 1 there, -1 none or failed */
	struct html_energy *energy;  /* html_energy() builds it on first use */
	int energy_state;	     /* as mpi_state */
	char **caveats;		     /* caveats of the views, shown by the Summary */
	size_t ncaveats, caveats_cap;
	int failed; /* out of memory somewhere: html_build() fails */
	char *json; /* the report's data, built by html_build() */
};

/*
 * Build the data of IN's report (every view's), before anything is written, so that a failure
 * leaves the output file as it was. 0, or -ENOMEM when memory ran out anywhere: a view is never
 * left out for want of memory (a view's failure to read its data is a caveat in the report).
 */
int html_build(struct html_input *in);

/* Write the report of IN to F, built first unless html_build() did. 0, -ENOMEM or -EIO. */
int html_write(FILE *f, struct html_input *in);

/* How many MPI ranks E's files name: the highest rank in its proc.<pid>.json files and its
 * stream headers (a rank killed before it rewrote its proc file may have its rank only in
 * a stream's header), plus one; 0 when none names a rank, so no stream can hold MPI records
 * the MPI model would keep. Reads 64 bytes of the streams of processes without a rank. */
int html_ranks_named(const struct experiment *e);

/* How many MPI ranks IN's data has: html_ranks_named() of its experiment, or the world size
 * of its archive's MPI model (asked of the session; 0 when it has none). */
int html_input_ranks(struct html_input *in);

/* Release what html_build built in IN (the data, the caveats); the session keeps its own. */
void html_input_release(struct html_input *in);

#endif /* PSC_HTML_H */
