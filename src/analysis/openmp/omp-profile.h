/*
 * omp-profile.h - the OpenMP profile: per parallel region (a construct's call site in its
 * process) and OpenMP thread number, the time of its implicit tasks split into work and waits;
 * per region its load imbalance and the POP OpenMP efficiencies; per thread its serial and
 * parallel time. Built by a consumer of the pass (model/pass.h) from the EV_OMP_* events.
 *
 * The records (format.h PSC_REC_OMP_*) come in two shapes, and both give the same numbers:
 *  - libgomp: no barrier records of the closing barrier; ITASK_END is the thread's arrival at
 *    it. The thread leaves it when the last thread of the team arrives: its barrier wait is
 *    (the team's last ITASK_END) - (its own ITASK_END) (but explicit tasks, below).
 *  - OMPT (libomp): SYNC_ENTER/LEAVE BARRIER_IMPLICIT come before ITASK_END; the wait is
 *    their difference and the task ends at ITASK_END.
 *
 * Metrics, for one implicit task of thread t in one instance of a region:
 *   time_t     = end_t - begin_t: from ITASK_BEGIN to leaving the closing barrier (OMPT: the
 *                ITASK_END; libgomp: the barrier's opening, below);
 *   barrier_t  = the wait in the closing barrier (above);
 *   sync_t     = waits in other barriers (explicit, worksharing: SYNC BARRIER_EXPLICIT and
 *                BARRIER_WORK);
 *   lock_t     = waits for locks and critical sections (LOCK, CRITICAL, ORDERED, ATOMIC);
 *   other_t    = the other waits (TASKWAIT, TASKGROUP, REDUCTION);
 *   work_t     = time_t - barrier_t - sync_t - lock_t - other_t (0 at least).
 * A wait is charged to the innermost implicit task open on its thread when it ends, so the
 * time of a nested region is work of the task that encountered it. An explicit task a thread
 * runs while it waits (in a barrier, a taskwait) is work: its time is taken out of that wait.
 * libgomp runs tasks in the closing barrier after ITASK_END: the barrier opens at the latest
 * of the team's arrivals and the ends of those tasks, and their time is not barrier wait. A row
 * sums these over the instances of its region the thread took part in (calls).
 *
 * Per region r with rows (threads) t = 1..n, over its instances i (elapsed_i = PARALLEL_END -
 * PARALLEL_BEGIN on the encountering thread, team_i the number of its implicit tasks
 * recorded):
 *   imbalance    = (max_t work_t - mean_t work_t) / max_t work_t
 *   load_balance = mean_t work_t / max_t work_t                       (POP: load balance)
 *   region_eff   = sum_t work_t / sum_i (team_i * elapsed_i)          (POP: parallel region
 *                  efficiency: the share of the team's time in the region spent working)
 * Per thread (a stream of the process): span = its first to last record; parallel = its time
 * in outermost parallel regions (the encountering thread: PARALLEL_BEGIN to END; a worker:
 * its outermost implicit tasks' time); serial = span - parallel. The serialisation
 * efficiency of a process (POP) is parallel / span of its initial thread (the one that
 * encountered the outermost regions): the share of the run not serialised on it.
 *
 * Damage and killed runs: an instance without PARALLEL_END (a killed run) counts in its
 * region's `unfinished`, not in calls or times, nor do its implicit tasks; an implicit task
 * without ITASK_END in an instance that ended, and one whose parallel id no PARALLEL_BEGIN of
 * its process named, are left out. Each is said once as a caveat with its count.
 */
#ifndef PSC_AN_OMP_PROFILE_H
#define PSC_AN_OMP_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symtab;
struct ev_consumer;

/* A parallel region: a construct's call site in one process image. */
struct omp_region {
	pid_t pid;
	unsigned image;
	int rank;	     /* MPI world rank of its process, -1 none */
	uint64_t site;	     /* return address of the runtime call the compiler made */
	uint64_t fn;	     /* the outlined function (of its first instance) */
	char *name;	     /* "function@file:line" of the site; "function" or the address */
	uint32_t level;	     /* nesting level of its first instance (1 outermost) */
	uint32_t team;	     /* the largest team it had */
	uint64_t calls;	     /* instances that ended */
	uint64_t unfinished; /* instances without PARALLEL_END */
	int64_t time_ns;     /* sum of the instances' elapsed times */
	int64_t team_ns;     /* sum of team size x elapsed time */
	uint32_t threads;    /* its rows */
	int64_t work_ns, barrier_ns; /* summed over its rows */
	int64_t work_max_ns;
	double work_mean_ns;
	double imbalance, load_balance, region_eff; /* fractions; 0 when no work was seen */
};

/* A region x thread number. */
struct omp_row {
	size_t region; /* index in regions */
	uint32_t thread;
	uint64_t calls; /* implicit tasks of the thread in the region's instances */
	int64_t time_ns, work_ns, barrier_ns, sync_ns, lock_ns, other_ns;
	uint64_t chunks, iterations;		 /* worksharing (WORK records) */
	unsigned not_counted;			 /* OMP_NOT_COUNTED_* */
	uint64_t tasks_created, tasks_completed; /* explicit tasks */
};

/* omp_row.not_counted: the runtime did not tell a thread's chunks or iterations of some
 * worksharing construct (PSC_OMP_NOT_COUNTED: LLVM's libomp), so the sums are not known. */
#define OMP_NOT_COUNTED_CHUNKS	   0x1u
#define OMP_NOT_COUNTED_ITERATIONS 0x2u

/* A thread (stream) that had OpenMP events. */
struct omp_thread {
	pid_t pid, tid;
	unsigned image;
	int rank;
	int initial; /* it encountered outermost parallel regions */
	int64_t span_ns, parallel_ns, serial_ns;
};

struct omp_build;

struct omp_profile {
	struct omp_region *regions; /* by process (pid, image), then time, largest first */
	size_t nregions, regions_cap;
	struct omp_row *rows; /* by region (in that order), then thread number */
	size_t nrows, rows_cap;
	struct omp_thread *threads; /* in the pass's order of locations */
	size_t nthreads, threads_cap;
	int hybrid;		 /* some region is of an MPI rank */
	uint64_t events;	 /* OpenMP events seen */
	uint64_t orphan_tasks;	 /* implicit tasks of a parallel id never begun */
	uint64_t open_tasks;	 /* implicit tasks without their end in an instance that ended */
	uint64_t unfinished;	 /* instances without PARALLEL_END */
	uint64_t unmatched_ends; /* PARALLEL_END or ITASK_END with no open begin on the thread */
	char **caveats;
	size_t ncaveats, caveats_cap;
};

/*
 * The name of a parallel region's call SITE in process PID's image IMAGE, as the regions of
 * this profile are named (the function profile's OpenMP frames use it too):
 * "function@file:line", "inlined@file:line (inlined in function)" where the construct is in
 * code the compiler inlined into another function (the source's function first, as the line
 * is its), "function", "module+0xoffset" of the return address where no symbol names it, else
 * the address. SYMS may be NULL (the address). A string to free(), NULL when
 * out of memory.
 */
char *omp_site_name(struct symtab *syms, pid_t pid, unsigned image, uint64_t site);

/*
 * C: a consumer (model/pass.h) building P (emptied here) from the EV_OMP_* events of the
 * streams; SYMS (may be NULL: sites are named by address) names the regions' call sites at
 * the pass's finish. 0 or -ENOMEM; C is to be released (ev_consumer_release()) either way.
 */
int omp_profile_consumer(struct ev_consumer *c, struct omp_profile *p, struct symtab *syms);

/* The name the exports give a wait of KIND (enum psc_omp_sync): "omp barrier (implicit)",
 * "omp lock", ...; "omp wait" for a kind this version does not know. */
const char *omp_wait_name(unsigned kind);

/* Free what P holds (its regions, rows, threads, names and caveats); P is empty after. */
void omp_profile_release(struct omp_profile *p);

#endif /* PSC_AN_OMP_PROFILE_H */
