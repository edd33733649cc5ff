/*
 * rt-mpi.h - what libperfscope.so offers libperfscope-mpi.so: the MPI wrappers record into
 * the same per-thread streams as regions and function calls. Exported from libperfscope.so
 * (libperfscope.map) under a psc_rt_ prefix; not a public API, the two libraries ship together.
 * Every function is safe to call when recording is off (it does nothing then), and none
 * changes errno.
 */
#ifndef PSC_RT_MPI_H
#define PSC_RT_MPI_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this process records (PERFSCOPE_OUT set and recording has not given up). */
int psc_rt_active(void);

/* PSC_REC_MPI_ENTER of ROUTINE (enum mpi_routine) in the calling thread's stream. */
void psc_rt_mpi_enter(unsigned routine);

/* PSC_REC_MPI_LEAVE of ROUTINE: the call SITE and NITEMS items of PSC_MPI_ITEM_WORDS words.
 * Items that do not fit one record (0xffff words) are dropped and counted as lost. */
void psc_rt_mpi_leave(unsigned routine, uint64_t site, const uint64_t *items, size_t nitems);

/* Any other record (PSC_REC_MPI_INIT, _COMM, _CLOCK) of TYPE with ARG and NWORDS of
 * PAYLOAD, timestamped now, in the calling thread's stream. */
void psc_rt_record(unsigned type, uint32_t arg, const uint64_t *payload, size_t nwords);

/* This process is rank RANK of SIZE in MPI_COMM_WORLD: proc.<pid>.json says so from now on
 * (rewritten at once) and streams opened afterwards carry it in their header. */
void psc_rt_set_rank(int rank, int size);

/* CLOCK_MONOTONIC in ns as the runtime's clock pairs read it (so, in tests, with the injected
 * skew of PERFSCOPE_TEST_CLOCK_SKEW): what the MPI clock offsets are measured with. */
uint64_t psc_rt_now_ns(void);

/* Which CLOCK_MONOTONIC psc_rt_now_ns() reads: a hash of the kernel's boot id (never 0), the
 * same for every process of one kernel; 0 when unknown or when a test skew gives this process
 * a clock of its own. Ranks with rank 0's id need no clock offset. */
uint64_t psc_rt_clock_id(void);

/* The experiment directory, or NULL when not recording. */
const char *psc_rt_dir(void);

/* Create NAME in the experiment directory, exclusively and with the runtime's checks
 * (session.h, rt_open): a descriptor opened for writing, or a negative errno. */
int psc_rt_create(const char *name);

#endif /* PSC_RT_MPI_H */
