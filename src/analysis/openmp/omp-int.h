/*
 * omp-int.h - what the OpenMP consumer collects in its pass (omp-profile.c) and settles into
 * the profile at its finish (omp-settle.c): every instance of a parallel region and every
 * implicit task, joined by (process, parallel id) once all threads are read, since a thread's
 * barrier wait depends on the others' arrivals.
 */
#ifndef PSC_AN_OMP_INT_H
#define PSC_AN_OMP_INT_H

#include "analysis/openmp/omp-profile.h"

#include <stddef.h>
#include <stdint.h>

/* An instance of a parallel region, from the encountering thread's PARALLEL_BEGIN. */
struct omp_par {
	pid_t pid;
	unsigned image;
	int rank;
	uint64_t id, site, fn;
	uint32_t level, team;
	int64_t begin_ns, end_ns; /* end -1: no PARALLEL_END */
	size_t thread;		  /* index of the encountering thread in p->threads */
	int outer;		  /* nothing else was open on its thread */
	size_t region;		  /* its region, set at the finish */
	int64_t last_ns;	  /* the last arrival of its team at its closing barrier */
	uint32_t ntasks;	  /* its implicit tasks recorded */
};

/* A thread's implicit task in an instance. */
struct omp_task {
	pid_t pid;
	unsigned image;
	uint64_t id;
	uint32_t thread; /* its OpenMP thread number */
	size_t tindex;	 /* its stream in p->threads */
	int outer;
	int64_t begin_ns, end_ns; /* end -1: no ITASK_END */
	int64_t bar_enter_ns;	  /* OMPT: it entered its closing barrier, -1 none */
	int64_t bar_ns, sync_ns, lock_ns, other_ns;
	/* explicit tasks it ran after its end (libgomp's closing barrier): their time, and the
	 * end of the last (0 none), when the barrier could open at the earliest */
	int64_t bar_task_ns, bar_task_end_ns;
	uint64_t chunks, iterations, created, completed;
	unsigned not_counted; /* OMP_NOT_COUNTED_*: a worksharing record that does not tell */
	size_t par;	      /* its instance in pars (at the finish), SIZE_MAX none */
};

/* What is open on the thread being walked. */
struct omp_open {
	int task; /* 1 an implicit task, 0 a parallel construct */
	size_t index;
};

/* A wait of the thread being walked (SYNC_ENTER without its LEAVE yet). */
struct omp_wait {
	unsigned kind;	 /* enum psc_omp_sync */
	int64_t ns;	 /* when it began */
	int64_t task_ns; /* explicit tasks the thread ran while waiting */
};

/* An explicit task the thread being walked runs (TASK_BEGIN without its TASK_END yet). */
struct omp_run {
	int64_t ns;   /* when it began (or resumed) */
	size_t waits; /* waits open when it began */
};

struct omp_build {
	struct omp_profile *p;
	struct symtab *syms;
	struct omp_par *pars;
	size_t npars, pars_cap;
	struct omp_task *tasks;
	size_t ntasks, tasks_cap;
	/* the thread being walked */
	struct omp_open *stack;
	size_t nstack, stack_cap;
	/* its last implicit task that ended, + 1, while the thread may still be in that region's
	 * closing barrier (until the encountering thread's PARALLEL_END); 0 none */
	size_t closed;
	struct omp_wait *waits;
	size_t nwaits, waits_cap;
	struct omp_run *runs;
	size_t nruns, runs_cap;
	uint64_t loc_events; /* OpenMP events of the thread being walked */
};

/* Join B's instances and tasks into B->p's regions, rows and threads' times; name the
 * regions. 0 or -ENOMEM. */
int omp_settle(struct omp_build *b);

#endif /* PSC_AN_OMP_INT_H */
