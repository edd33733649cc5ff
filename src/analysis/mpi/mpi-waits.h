/*
 * mpi-waits.h - wait states of an MPI model: who waits for whom. The p x p wait matrix (row
 * i, column j: time rank i was blocked receiving a message from j before j started sending
 * it, Late Sender), each rank's wait in collectives and its total, and per wait-state pattern
 * the totals per rank and the call sites that waited the most.
 *
 * A blocking call that completes several messages (Waitall) waits once: its wait is split at
 * the times the late peers arrived, each part going to the peer whose arrival ended it, so a
 * rank's waits never add up to more than the time it spent in those calls. A non-blocking
 * collective waits like its blocking twin, in the Wait-family call completing its request,
 * for the late start (I-call) of its participants; such a call splits its wait the same way.
 */
#ifndef PSC_MPI_WAITS_H
#define PSC_MPI_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/mpi/mpi-model.h"

enum mpi_pattern {
	/* a receive (Recv, Sendrecv, or the Wait completing an Irecv) entered before the
	 * sender started the send: until min(send start, the call's leave); matrix cells */
	MPI_PAT_LATE_SENDER,
	/* a synchronous (Ssend, Issend) or rendezvous send blocked until the receive was
	 * posted; not in the matrix */
	MPI_PAT_LATE_RECEIVER,
	/* Barrier: until the last participant entered */
	MPI_PAT_WAIT_BARRIER,
	/* all-to-all collectives (Allreduce, Alltoall, Allgather, ...): until the last entered */
	MPI_PAT_WAIT_NXN,
	/* one-to-all (Bcast, Scatter): a non-root entered before the root */
	MPI_PAT_LATE_BROADCAST,
	/* all-to-one (Reduce, Gather): the root entered before the last non-root */
	MPI_PAT_EARLY_REDUCE,
	/* Scan, Exscan: until the last of the ranks up to this one entered */
	MPI_PAT_EARLY_SCAN,
	MPI_PAT_COUNT
};

/* "Late Sender", "Wait at Barrier", ... */
const char *mpi_pattern_name(enum mpi_pattern p);
/* "late_sender", "wait_barrier", ... for CSV and JSON. */
const char *mpi_pattern_key(enum mpi_pattern p);
/* Collective patterns go into the matrix's collective column. */
static inline int mpi_pattern_is_collective(enum mpi_pattern p)
{
	return p >= MPI_PAT_WAIT_BARRIER;
}

/* The wait of one pattern at one call site (or, site unknown, one routine) of one rank. */
struct mpi_wait_site {
	enum mpi_pattern pattern;
	int rank;
	uint32_t site;	  /* index in the model's sites, MPI_NONE unknown */
	uint32_t routine; /* of the waiting call */
	int64_t wait_ns;
	uint64_t calls; /* calls that waited */
};

struct mpi_waits {
	int p;		  /* world size */
	int64_t *p2p;	  /* p x p: [i * p + j] rank i waiting for rank j (Late Sender) */
	int64_t *coll;	  /* p: collective waits */
	int64_t *total;	  /* p: the row plus the collective wait */
	int64_t *exec_ns; /* p: the rank's execution time, end - start (0 missing) */
	int64_t *pattern; /* p x MPI_PAT_COUNT: [i * MPI_PAT_COUNT + k] */
	uint64_t pattern_calls[MPI_PAT_COUNT]; /* calls that waited, all ranks */
	int64_t pattern_total[MPI_PAT_COUNT];  /* all ranks */
	struct mpi_wait_site *sites;	       /* every site that waited, most wait first */
	size_t nsites;
	int64_t *call_wait; /* the model's ncalls: each call's wait, all patterns summed */
	size_t ncalls;
};

/* The wait states of M. 0 or -ENOMEM. */
int mpi_waits_compute(struct mpi_waits *w, const struct mpi_model *m);
void mpi_waits_release(struct mpi_waits *w);

/* What a wait is shown relative to (perfscope mpi --relative). */
enum mpi_relative {
	MPI_REL_NONE, /* absolute time */
	MPI_REL_EXEC, /* % of the rank's execution time */
	MPI_REL_WAIT, /* % of the rank's total wait */
};

/* Cells smaller than this % (of the execution time, or with MPI_REL_WAIT of the total
 * wait) are hidden unless --all. */
#define MPI_WAITS_HIDE_PCT 0.1

/* NS of rank RANK as % of its execution time (MPI_REL_EXEC) or of its total wait
 * (MPI_REL_WAIT); 0 when that is 0. */
double mpi_waits_pct(const struct mpi_waits *w, int rank, int64_t ns, enum mpi_relative rel);

/* True when a cell of NS of RANK is hidden without --all: under MPI_WAITS_HIDE_PCT % of the
 * rank's total wait with MPI_REL_WAIT, else of its execution time (zero is always hidden). */
int mpi_waits_hidden(const struct mpi_waits *w, int rank, int64_t ns, enum mpi_relative rel);

#endif /* PSC_MPI_WAITS_H */
