/*
 * scope-print.h - `perfscope report --by scope --categories`: time per scope in computation,
 * MPI and MPI waiting (mpi-scope.h) as text tables, CSV and JSON.
 */
#ifndef PSC_SCOPE_PRINT_H
#define PSC_SCOPE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-scope.h"
#include "view/view.h"

struct scope_report {
	const struct mpi_scope_profile *p;
	const struct mpi_model *m;
	const struct experiment *e;
	int rank;     /* MPI_SCOPE_ALL: summed over the ranks; else that rank only (--rank) */
	int per_rank; /* with MPI_SCOPE_ALL: every rank's rows after the sums (--by scope,rank) */
	size_t top;   /* the first N scopes (most inclusive time), 0 all */
};

/* Two tables: the scopes (exclusive categories; summed, with min/mean/max over the ranks,
 * unless one rank is asked for) and their MPI calls per routine; then the caveats ("  ! "
 * lines). 0, -ENOMEM or -EIO. */
int scope_print_text(const struct scope_report *r, FILE *f);

/*
 * CSV, two tables separated by a blank line; the caveats go to NOTES (the command's stderr)
 * as "perfscope: warning:" lines.
 *  - scope,kind,rank,calls,incl_ns,excl_ns,comp_ns,mpi_ns,wait_ns,comp_incl_ns,mpi_incl_ns,
 *    wait_incl_ns,mpi_calls,comp_min_ns,comp_mean_ns,comp_max_ns,mpi_min_ns,mpi_mean_ns,
 *    mpi_max_ns,wait_min_ns,wait_mean_ns,wait_max_ns
 *    kind: function, region or outside; rank: a rank, or `all` (summed over the ranks, the
 *    only rows with the min/mean/max columns, which are empty elsewhere).
 *    comp_ns + mpi_ns + wait_ns = excl_ns; the _incl_ns ones add up to incl_ns.
 *  - scope,kind,rank,routine,calls,time_ns,wait_ns: the MPI calls made directly in each scope.
 * 0 or -EIO.
 */
int scope_print_csv(const struct scope_report *r, FILE *f, FILE *notes);

/* One JSON object: "ranks", "rank" (a number or "all"), "scopes" and "operations" (objects
 * with the CSV's names as keys), "misnested", "unmatched_mpi_calls" and "caveats".
 * 0, -ENOMEM or -EIO. */
int scope_print_json(const struct scope_report *r, FILE *f);

/* R in FMT: scope_print_text, scope_print_csv, scope_print_json, or the long CSV (OUT_LONG:
 * each table of the CSV with the keys of a row, metric, value; the caveats to NOTES). 0,
 * -ENOMEM or -EIO. */
int scope_print(const struct scope_report *r, enum out_format fmt, FILE *f, FILE *notes);

#endif /* PSC_SCOPE_PRINT_H */
