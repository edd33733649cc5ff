/*
 * mpi-match.h - the parts of mpi_model_build (mpi-model.c) that work on messages: matching
 * sends to receives, and counting and correcting causality violations (mpi-match.c).
 * Internal to the MPI model.
 */
#ifndef PSC_MPI_MATCH_H
#define PSC_MPI_MATCH_H

#include <stddef.h>

#include "mpi-model.h"

/* Make *P hold at least NEED elements of SIZE bytes (*CAP of them now). 0 or -ENOMEM. */
int mpi_grow(void **p, size_t *cap, size_t need, size_t size);

/*
 * Match the SEND and ISEND items of every rank to RECV items by (source, destination,
 * communicator, tag) in order: sends by the time their call started, receives by the time
 * they were posted (the Irecv of a completion, found by request id). Fills msgs, the items'
 * msg, unmatched_sends and unmatched_recvs. Locations grouped by rank. 0 or -ENOMEM.
 */
int mpi_match_messages(struct mpi_model *m);

/*
 * Count the messages received before they were sent (violations_before); when CORRECT,
 * move each such receive's end forward to the send's start plus the smallest latency seen
 * (at most 1 us), amortising the shift over the receiver's events back to its previous
 * message event and carrying it to all its later events, then count again
 * (violations_after, max_correction_ns). 0 or -ENOMEM.
 */
int mpi_correct_causality(struct mpi_model *m, int correct);

#endif /* PSC_MPI_MATCH_H */
