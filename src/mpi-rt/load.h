/*
 * load.h - the MPI load sampler: on each host, the lowest world rank runs a thread that
 * writes the host's CPU busy share and each local rank's CPU share every period to
 * load.<host>.<pid> in the experiment directory (docs/format.md "Load logs").
 * Part of libperfscope-mpi.so; uses PMPI_* only.
 */
#ifndef PSC_MPI_LOAD_H
#define PSC_MPI_LOAD_H

#include <mpi.h>

/*
 * Start the sampler (collective over WORLD, a communicator spanning MPI_COMM_WORLD: every
 * rank must call it). The period comes from PERFSCOPE_MPI_LOAD (ms, default 100, 0 = off).
 * Does nothing when not recording. Failures are silent: the run goes on without a load log.
 */
void mpi_load_start(MPI_Comm world);

/* Stop and join the sampler thread of this process, if any, after a last sample; flush the
 * log. Local (not collective); safe to call when mpi_load_start started nothing. */
void mpi_load_stop(void);

#endif /* PSC_MPI_LOAD_H */
