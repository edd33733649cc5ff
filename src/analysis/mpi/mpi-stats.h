/*
 * mpi-stats.h - the MPI routines and traffic of an MPI model: per rank and per routine how
 * often and how long (the mpiP-style aggregate view), and per (sender, receiver) pair the
 * messages, bytes and effective rates, with every message that could not be matched listed.
 */
#ifndef PSC_MPI_STATS_H
#define PSC_MPI_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "format/mpi-routines.h"
#include "analysis/mpi/mpi-model.h"

/* One routine's calls on one rank (or on all ranks). min_ns/max_ns are 0 without calls. */
struct mpi_routine_stat {
	uint64_t calls;
	int64_t total_ns, min_ns, max_ns;
	uint64_t bytes; /* sent and received by its items (sends, receives, collectives) */
};

struct mpi_routines {
	int nranks;
	struct mpi_routine_stat *rank; /* nranks x MPI_ROUTINE_COUNT (mpi_routines_at) */
	struct mpi_routine_stat all[MPI_ROUTINE_COUNT]; /* summed over the ranks */
	int64_t *run_ns;		    /* per rank: its end - start, 0 when missing */
	int64_t *mpi_ns;		    /* per rank: time in MPI calls (all threads) */
	int64_t run_total_ns, mpi_total_ns; /* summed over the ranks */
};

/* The statistics of every routine of every rank of M. 0 or -ENOMEM. */
int mpi_routines_compute(struct mpi_routines *r, const struct mpi_model *m);
void mpi_routines_release(struct mpi_routines *r);

/* Routine ROUTINE of rank RANK. */
static inline const struct mpi_routine_stat *mpi_routines_at(const struct mpi_routines *r, int rank,
							     unsigned routine)
{
	return &r->rank[(size_t)rank * MPI_ROUTINE_COUNT + routine];
}

/* Mean time of a call, 0 without calls. */
static inline double mpi_routine_mean(const struct mpi_routine_stat *s)
{
	return s->calls ? (double)s->total_ns / (double)s->calls : 0;
}

/*
 * The messages from one rank to another. A message's effective rate is its bits over the
 * time from the start of the send (the enter of the call that started it) to the completion
 * of the receive (the leave of the call that completed it); only matched messages with bytes
 * and a positive time have one.
 */
struct mpi_pair {
	int32_t src, dst;
	uint64_t messages;		      /* matched + unmatched_sends + unmatched_recvs */
	uint64_t matched;		      /* both ends seen */
	uint64_t unmatched_sends;	      /* sent, no receive matched */
	uint64_t unmatched_recvs;	      /* received, no send matched */
	uint64_t bytes;			      /* of all its messages */
	uint64_t nrates;		      /* messages with a rate */
	double rate_mean, rate_min, rate_max; /* bits per second; 0 when nrates is 0 */
};

enum mpi_unmatched_kind {
	MPI_UNMATCHED_SEND, /* a send that no receive matched */
	MPI_UNMATCHED_RECV, /* a receive that no send matched */
};

/* A message end without its other end. */
struct mpi_unmatched {
	enum mpi_unmatched_kind kind;
	int rank;	  /* the rank of the call */
	uint32_t routine; /* the call that started the send or completed the receive */
	int32_t peer;	  /* destination of a send, source of a receive */
	int32_t tag;
	uint64_t bytes;
	int64_t enter_ns; /* the call's enter, rank 0's clock */
	uint32_t call;	  /* index in the model's calls */
};

struct mpi_traffic {
	struct mpi_pair *pairs; /* by sender, then receiver; only pairs with messages */
	size_t npairs;
	struct mpi_unmatched *unmatched; /* in time order */
	size_t nunmatched;
	uint64_t messages, matched, bytes; /* over all pairs */
};

/* The traffic of M: every pair with messages and every unmatched end. 0 or -ENOMEM. */
/* Effective rate of matched message MSG in bits per second: its bits over the time from the
 * send's start to the receive's completion. Negative when it has none (unmatched, empty, or
 * no time between them). */
double mpi_message_rate(const struct mpi_model *m, const struct mpi_message *msg);

int mpi_traffic_compute(struct mpi_traffic *t, const struct mpi_model *m);
void mpi_traffic_release(struct mpi_traffic *t);

#endif /* PSC_MPI_STATS_H */
