/*
 * bare_pmpi.c - the floor of a PMPI tracer on the ping-pong path, for bench/run_mpi.sh.
 *
 * A shared library preloaded into an MPI program (mpirun -x LD_PRELOAD=libbare_pmpi.so), whose
 * MPI_Send and MPI_Recv do nothing but what any tracing wrapper must: read the TSC at entry and
 * at exit, call PMPI_*, and store 16 bytes per event (ticks, routine) into a per-thread array
 * (4 Mi entries mapped with MAP_POPULATE, written round and round, never to a file). The
 * status a receive returns is not looked at (perfscope's wrapper replaces MPI_STATUS_IGNORE to
 * know the real source and size; this one does not). Built by run_mpi.sh with mpicc.
 *
 * With BARE_PMPI_REPORT set in the environment, each process prints the number of events it
 * stored at MPI_Finalize (to check that the wrappers really ran).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include <mpi.h>

#define BARE_EVENTS (4UL << 20)
#define BARE_MASK   (BARE_EVENTS - 1)

struct bare_ev {
	uint64_t ticks;
	uint64_t what; /* routine << 1 | (0 enter, 1 leave) */
};

static __thread struct bare_ev *bare_buf __attribute__((tls_model("initial-exec")));
static __thread uint64_t bare_n __attribute__((tls_model("initial-exec")));

__attribute__((noinline, cold)) static struct bare_ev *bare_alloc(void)
{
	void *p = mmap(NULL, BARE_EVENTS * sizeof(struct bare_ev), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		fputs("bare_pmpi: cannot map the event array\n", stderr);
		abort();
	}
	bare_buf = p;
	return p;
}

static inline void bare_put(uint64_t what)
{
	struct bare_ev *b = bare_buf;

	if (__builtin_expect(!b, 0))
		b = bare_alloc();
	b[bare_n & BARE_MASK] = (struct bare_ev){__rdtsc(), what};
	bare_n++;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	int rc;

	bare_put(2);
	rc = PMPI_Send(buf, count, type, dest, tag, comm);
	bare_put(3);
	return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	int rc;

	bare_put(4);
	rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
	bare_put(5);
	return rc;
}

int MPI_Finalize(void)
{
	if (getenv("BARE_PMPI_REPORT"))
		fprintf(stderr, "bare_pmpi: %llu events\n", (unsigned long long)bare_n);
	return PMPI_Finalize();
}
