/*
 * omp-view.h - the OpenMP profile as views (`perfscope report --openmp`): one row per parallel
 * region x thread, the regions with their imbalance and efficiencies, the threads' serial and
 * parallel time; rendered as text, CSV, JSON or long CSV from the one column table of each.
 * The metrics are defined in analysis/openmp/omp-profile.h and docs/cmd-report.md.
 */
#ifndef PSC_OMP_VIEW_H
#define PSC_OMP_VIEW_H

#include <stdio.h>

#include "view/view.h"

struct experiment;
struct omp_hybrid;
struct omp_profile;

enum omp_table {
	OMP_TABLE_ROWS,	   /* region, thread: calls, time, work, waits, chunks, tasks */
	OMP_TABLE_REGIONS, /* region: calls, time, work, imbalance, load balance, efficiency */
	OMP_TABLE_THREADS, /* thread (stream): span, parallel, serial */
	OMP_TABLE_HYBRID,  /* rank, then all: the hybrid efficiencies (analysis/openmp/omp-hybrid.h)
			    */
};

/* What the getters of an OpenMP view read. */
struct omp_report {
	const struct omp_profile *p;
	const struct experiment *e; /* its caveats are said with the report; NULL: none */
	const struct omp_hybrid *h; /* the hybrid efficiencies of a hybrid run; NULL: none */
};

/* V, table T of R (V's ctx is R, kept by the caller while V is used); the rank columns shown
 * when a region is of an MPI rank. Its rows are malloc'd: omp_view_release frees them. 0 or
 * -ENOMEM. */
int omp_view_make(struct view *v, const struct omp_report *r, enum omp_table t);

/* Free what omp_view_make allocated in V. */
void omp_view_release(struct view *v);

/*
 * The three tables of R in FMT into F, and the hybrid efficiency table after them when R has
 * it: text with a heading each and the caveats under them; CSV and long CSV the tables one
 * after the other, a blank line between, the caveats as warnings to NOTES (the command's
 * stderr); JSON one object
 * {rows, regions, threads, [hybrid_efficiency,] caveats}. An empty profile (no OpenMP
 * records) gives in text only the caveats (what was lost, a full disk), in CSV the headers, in
 * JSON empty arrays: the command says there are no records. 0, -ENOMEM or -EIO.
 */
int omp_print(const struct omp_report *r, enum out_format fmt, FILE *f, FILE *notes);

#endif /* PSC_OMP_VIEW_H */
