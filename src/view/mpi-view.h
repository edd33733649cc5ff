/*
 * mpi-view.h - the tables of `perfscope mpi` as views: the routines, the message pairs, the
 * unmatched message ends, the wait cells (CSV, JSON, long CSV) and the wait matrix (text: one
 * row per rank, one column per peer).
 */
#ifndef PSC_MPI_VIEW_H
#define PSC_MPI_VIEW_H

#include "view/view.h"

struct mpi_report;
struct mpi_routines;

enum mpi_table {
	MPI_TABLE_ROUTINES,  /* rank, routine: all ranks, then each rank */
	MPI_TABLE_PAIRS,     /* sender, receiver */
	MPI_TABLE_UNMATCHED, /* the message ends no other end matched */
	MPI_TABLE_WAITS,     /* rank, peer: the shown cells of the wait matrix and each total */
	MPI_TABLE_MATRIX,    /* the wait matrix as the text shows it */
	MPI_TABLE_PATTERNS,  /* pattern: all ranks, then (CSV, long CSV) each rank that waited */
	MPI_TABLE_SITES,     /* the wait-state patterns' call sites, the worst first */
};

/* The worst call sites of a pattern the text shows when the report does not say. */
#define MPI_TOP_SITES 5

/*
 * V, the table T of R (V's ctx), in the order FMT shows it: the text's routines by time with a
 * separator line before each rank, the CSV's and JSON's by routine; ALL_ONLY: the routines of
 * all ranks only. Its rows and columns are malloc'd: mpi_view_release frees them.
 * 0 or -ENOMEM.
 */
int mpi_view_make(struct view *v, const struct mpi_report *r, enum mpi_table t, enum out_format fmt,
		  int all_only);

/*
 * V, the table MPI_TABLE_PATTERNS or MPI_TABLE_SITES of R (V's ctx) with the rows FMT shows:
 * the patterns of all ranks, and in CSV and long CSV then each rank's that are not 0; every
 * call site, or with PATTERN >= 0 the first R->top_sites of that pattern. Its rows are
 * malloc'd: mpi_view_release frees them. 0 or -ENOMEM.
 */
int mpi_pattern_view_make(struct view *v, const struct mpi_report *r, enum mpi_table t,
			  enum out_format fmt, int pattern);

/* The routines with calls (in all ranks) into ORDER, the most time first; their number. */
int mpi_view_routines_by_time(const struct mpi_routines *rs, unsigned *order);

/* Free what mpi_view_make allocated in V. */
void mpi_view_release(struct view *v);

#endif /* PSC_MPI_VIEW_H */
