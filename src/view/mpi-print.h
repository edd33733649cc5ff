/* mpi-print.h - `perfscope mpi`: the MPI analyses as text tables, CSV and JSON. */
#ifndef PSC_MPI_PRINT_H
#define PSC_MPI_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "view/view.h"

enum mpi_view {
	MPI_VIEW_SUMMARY,  /* the run in a few lines, then the wait matrix */
	MPI_VIEW_WAITS,	   /* the wait matrix */
	MPI_VIEW_TRAFFIC,  /* messages per (sender, receiver) and the unmatched ones */
	MPI_VIEW_ROUTINES, /* calls and time per routine, all ranks and per rank */
	MPI_VIEW_PATTERNS, /* wait-state patterns and their worst call sites */
};

struct mpi_report {
	const struct mpi_model *m;
	const struct experiment *e; /* the experiment, NULL for an OTF2 archive */
	const struct mpi_routines *routines;
	const struct mpi_traffic *traffic;
	const struct mpi_waits *waits;
	enum mpi_relative rel; /* the wait matrix's cells (--relative) */
	int all;	       /* show the cells under MPI_WAITS_HIDE_PCT (--all) */
	int no_correction;     /* causality violations counted, not corrected */
	size_t top_sites;      /* worst call sites per pattern in text (0: 5) */
};

/* Call FN with every caveat: the experiment's, the model's warnings (missing or cut short
 * ranks, dropped records), missing ranks, the clock alignment, causality violations before
 * and after the correction with its largest shift, unmatched messages and collectives short
 * of participants. */
void mpi_caveats(const struct mpi_report *r, void (*fn)(void *ctx, const char *line), void *ctx);

/* Text tables of VIEW, then the caveats ("  ! " lines). 0, -ENOMEM or -EIO. */
int mpi_print_text(const struct mpi_report *r, enum mpi_view view, FILE *f);

/*
 * CSV of VIEW (the summary view prints the wait matrix's); the caveats go to NOTES (the
 * command's stderr) as "perfscope: warning:" lines.
 *  - waits: rank,peer,wait_ns,pct_exec,pct_wait with peer a rank, `collective` or `total`;
 *    cells hidden in the table are left out unless R->all, `total` is always there.
 *  - routines: rank,routine,calls,total_ns,mean_ns,min_ns,max_ns,pct_run,pct_mpi,bytes
 *    (rank `all` first: summed over the ranks).
 *  - traffic: sender,receiver,messages,matched,unmatched_sends,unmatched_recvs,bytes,
 *    rate_mean_bps,rate_min_bps,rate_max_bps; a blank line, then the unmatched ends:
 *    kind,rank,routine,peer,tag,bytes,time_ns (time from the run's start).
 *  - patterns: pattern,rank,wait_ns,pct_exec,calls (rank `all` first); a blank line, then
 *    every call site: pattern,rank,function,file,line,routine,wait_ns,calls.
 * 0 or -EIO.
 */
int mpi_print_csv(const struct mpi_report *r, enum mpi_view view, FILE *f, FILE *notes);

/* One JSON object: the run (ranks, times, clock, violations), the view's data (the summary
 * view: the summary, the routines of all ranks and the wait matrix) and "caveats".
 * 0, -ENOMEM or -EIO. */
int mpi_print_json(const struct mpi_report *r, enum mpi_view view, FILE *f);

/* VIEW in FMT: mpi_print_text, mpi_print_csv, mpi_print_json, or the long CSV (OUT_LONG: the
 * keys of a row, metric, value; each block of the CSV so; the caveats to NOTES). 0, -ENOMEM
 * or -EIO. */
int mpi_print(const struct mpi_report *r, enum mpi_view view, enum out_format fmt, FILE *f,
	      FILE *notes);

#endif /* PSC_MPI_PRINT_H */
