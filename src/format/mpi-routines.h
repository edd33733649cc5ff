/*
 * mpi-routines.h - the MPI routines perfscope records, by id: the order of
 * src/mpi-rt/mpi-calls.def, which the runtime writes into PSC_REC_MPI_ENTER/LEAVE and the
 * analyses read back. Shared by libperfscope-mpi.so and the CLI; needs no MPI header.
 */
#ifndef PSC_MPI_ROUTINES_H
#define PSC_MPI_ROUTINES_H

#include <stddef.h>

/* What the analyses make of a routine. */
enum mpi_kind {
	MPI_KIND_INIT,
	MPI_KIND_FINALIZE,
	MPI_KIND_SEND,	     /* blocking send (Ssend: items carry PSC_MPI_F_SYNC) */
	MPI_KIND_RECV,	     /* blocking receive */
	MPI_KIND_SENDRECV,   /* a send and a receive in one call */
	MPI_KIND_ISEND,	     /* starts a send request */
	MPI_KIND_IRECV,	     /* posts a receive request */
	MPI_KIND_PROBE,	     /* Probe, Iprobe */
	MPI_KIND_WAIT,	     /* completes requests, blocking */
	MPI_KIND_TEST,	     /* completes requests when they are done, never blocks */
	MPI_KIND_REQUEST,    /* Request_free, Cancel */
	MPI_KIND_PERSISTENT, /* creates a persistent request */
	MPI_KIND_START,	     /* starts persistent requests */
	MPI_KIND_BARRIER,
	MPI_KIND_ONE_TO_ALL, /* rooted, the root sends: Bcast, Scatter(v) */
	MPI_KIND_ALL_TO_ONE, /* rooted, the root receives: Reduce, Gather(v) */
	MPI_KIND_ALL_TO_ALL, /* N x N: Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter */
	MPI_KIND_SCAN,	     /* Scan, Exscan */
	MPI_KIND_ICOLL,	     /* non-blocking collective */
	MPI_KIND_COMM,	     /* communicator creation or release */
};

enum mpi_routine {
#define MPI_CALL(name, family, kind, twin, params) MPI_ROUTINE_##name,
#include "mpi-rt/mpi-calls.def"
#undef MPI_CALL
	MPI_ROUTINE_COUNT
};

/* "MPI_Send" for MPI_ROUTINE_Send; NULL for an id out of range. */
const char *mpi_routine_name(unsigned id);

/* The kind of routine ID; MPI_KIND_INIT for an id out of range (check with the name). */
enum mpi_kind mpi_routine_kind(unsigned id);

/* The id of a non-blocking collective's blocking twin (mpi-calls.def's column: MPI_Iallreduce's
 * is MPI_Allreduce), whose kind says what the collective's completion waits for; -1 for every
 * other routine and an id out of range. */
int mpi_routine_twin(unsigned id);

/* The id of NAME ("MPI_Send", also without the prefix and in any case, as Fortran and OTF2
 * traces spell it), or -1. */
int mpi_routine_find(const char *name);

/* Collectives: the kinds whose calls the analyses match across the communicator's ranks. */
static inline int mpi_kind_is_collective(enum mpi_kind k)
{
	return k == MPI_KIND_BARRIER || k == MPI_KIND_ONE_TO_ALL || k == MPI_KIND_ALL_TO_ONE ||
	       k == MPI_KIND_ALL_TO_ALL || k == MPI_KIND_SCAN;
}

#endif /* PSC_MPI_ROUTINES_H */
