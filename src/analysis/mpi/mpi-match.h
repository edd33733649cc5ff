/*
 * mpi-match.h - the parts of mpi_model_build (mpi-model.c) that work on messages and
 * collectives: matching sends to receives (mpi-match.c), and counting and correcting
 * causality violations (mpi-causal.c).
 * Internal to the MPI model.
 */
#ifndef PSC_MPI_MATCH_H
#define PSC_MPI_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/mpi/mpi-model.h"
#include "lib/array.h"

/*
 * The plausible range of times and clock offsets (docs/format.md "MPI records"): a rank's own
 * CLOCK_MONOTONIC time and its offset to rank 0's clock are within +-2^60 ns (36 years), so
 * that aligned times stay within +-2^61 and any difference of two fits in an int64. The
 * loader rejects records outside it (with file and byte offset); the builder clamps to it.
 */
#define MPI_TIME_LIMIT_NS (INT64_C(1) << 60)

/* Clock drift the model believes: offsets at init and finalize differing by more than
 * MPI_DRIFT_PPM of the time between them, plus MPI_DRIFT_SLACK_NS, plus half of each
 * measurement's round trip (an offset measured by ping-pong is within half its round trip of
 * the truth), are not a clock's drift; the finalize one is ignored with a warning. */
#define MPI_DRIFT_PPM	   1000
#define MPI_DRIFT_SLACK_NS 1000000

/* T clamped into [-MPI_TIME_LIMIT_NS, MPI_TIME_LIMIT_NS]. */
static inline int64_t mpi_time_clamp(int64_t t)
{
	return t < -MPI_TIME_LIMIT_NS  ? -MPI_TIME_LIMIT_NS
	       : t > MPI_TIME_LIMIT_NS ? MPI_TIME_LIMIT_NS
				       : t;
}

/*
 * Match the SEND and ISEND items of every rank to RECV items by (source, destination,
 * communicator, tag) in order: sends by the time their call started, receives by the time
 * they were posted (the Irecv of a completion, found by request id). Fills msgs, the items'
 * msg, unmatched_sends and unmatched_recvs. Locations grouped by rank. 0 or -ENOMEM.
 */
int mpi_match_messages(struct mpi_model *m);

/*
 * Count the messages received before they were sent (violations_before) and the collective
 * participants that left before an enter they follow (coll_violations_before: in a barrier
 * or N x N every enter, at a non-root of a one-to-all the root's, at the root of an
 * all-to-one the non-roots', in a scan those of the ranks up to it; a non-blocking one ends
 * at the call completing its request; an operation moving no data but a barrier has none).
 * When CORRECT, move each such end forward to the enter it follows plus the smallest latency
 * seen (at most 1 us; messages and collectives each their own), amortising the shift over
 * the location's events back to its previous MPI event with items and carrying it to all its
 * later events, then count again (violations_after, coll_violations_after,
 * max_correction_ns). With KEEP_UNCORRECTED, a correction that moved a call leaves the times
 * before it in m->uncorrected. 0 or -ENOMEM.
 */
int mpi_correct_causality(struct mpi_model *m, int correct, int keep_uncorrected);

#endif /* PSC_MPI_MATCH_H */
