/*
 * clocksync.h - MPI clock offsets: at MPI_Init and at MPI_Finalize rank 0 measures every
 * rank's CLOCK_MONOTONIC offset to its own by ping-pong (docs/format.md "MPI records").
 * Part of libperfscope-mpi.so; uses PMPI_* only.
 */
#ifndef PSC_MPI_CLOCKSYNC_H
#define PSC_MPI_CLOCKSYNC_H

#include <mpi.h>

/*
 * Measure the offsets collectively on COMM (a private duplicate of MPI_COMM_WORLD: every rank
 * of the world must call it) and record one PSC_REC_MPI_CLOCK with arg PHASE
 * (PSC_MPI_CLOCK_INIT or _FINALIZE) in the calling thread's stream. Returns 0, or a negative
 * errno (-EIO when an MPI call failed); prints nothing.
 */
int mpi_clock_measure(int phase, MPI_Comm comm);

#endif /* PSC_MPI_CLOCKSYNC_H */
