/*
 * ompt.c - the OMPT tool libomp (clang -fopenmp) starts: libomp finds ompt_start_tool in the
 * global scope when OpenMP first runs, and calls back at the events below, which become the
 * same records the libgomp wrappers write (format.h PSC_REC_OMP_*), on the thread that runs
 * them. Once it started, the libgomp wrappers pass through (psc_omp.ompt), so that a lock is
 * not recorded twice.
 *
 * What libomp 14 gives differs from the interposition in three ways the records show: the
 * closing barrier of a region comes as a BARRIER_IMPLICIT wait before ITASK_END; every
 * worksharing loop has a WORK record, of kind PSC_OMP_WORK_OTHER (the schedule is not told)
 * with iterations and chunks PSC_OMP_NOT_COUNTED (libomp 14 offers no dispatch callback; a
 * later one's chunks and sections are counted); single's WORK is written at its end.
 *
 * libomp 14 tells a worker that it left a region's closing barrier (and ended its implicit task)
 * only when the next region starts, or at exit. The barrier is complete when the last thread
 * arrives: every thread notes its arrival in a small table by region id (the latest is kept),
 * and a worker's late records are timed with the last arrival, as libgomp's waits are derived,
 * when nothing was written in its stream since it arrived (an explicit task run in the barrier
 * writes records of its own: the leaving is then timed when libomp tells it). Thread 0's leaving is
 * timed when libomp tells it, which may be later (it is woken). The workers' records of a process's
 * last region come after the runtime stopped recording: their streams end in that barrier, which
 * the region's PARALLEL_END closes.
 *
 * A region's data (ompt_data_t, one word) holds its id in the low 48 bits and, once its
 * thread 0 began, the team's size above; an implicit task's holds the region's id and the
 * thread's number, since libomp passes no region at its end.
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include "lib/compiler.h"

#include <omp-tools.h>
#include <stdlib.h>
#include <string.h>

#define ID_BITS	      48
#define ID_MASK	      ((UINT64_C(1) << ID_BITS) - 1)
#define EXPLICIT_TASK (UINT64_C(1) << 63) /* an explicit task's data: its id | this */

/* Call sites of the regions the calling thread encountered and is in, innermost last: the
 * closing barrier of a region comes with its call site (on its thread 0) or none. */
#define SITES_MAX 16

static __thread struct ompt_thread {
	uint64_t sites[SITES_MAX];
	unsigned nsites;
	uint64_t work_begin; /* ticks when the thread entered its worksharing construct */
	uint64_t chunks;     /* the chunks (or sections) dispatched to it there */
	/* where its stream stood after its last record that a later one may be timed back to
	 * (its arrival at a closing barrier, its leaving of it): a record is dated back only
	 * when nothing was written since, so that the stream's times never go back */
	const uint64_t *dated_pos;
	/* the lock acquire whose end is awaited (kind 0: none) */
	struct ompt_lock_wait {
		uint64_t ticks, site, object;
		unsigned kind; /* enum psc_omp_sync */
		const uint64_t *pos;
	} lock;
} ompt_tls __attribute__((tls_model("initial-exec")));

/* The last arrival at the closing barrier of recent regions, by id (0: none yet). */
#define JOINS 64

static struct {
	uint64_t id, ticks;
} ompt_joins[JOINS];

/* The region of the calling thread's implicit task and its number in the team (as the task's
 * data), with those of the tasks it is nested in (a thread 0 of an inner region). */
static __thread struct {
	uint64_t now, outer[SITES_MAX];
	unsigned depth;
} ompt_itasks __attribute__((tls_model("initial-exec")));

/* Region ID begins: its slot of the table. */
static void join_open(uint64_t id)
{
	__atomic_store_n(&ompt_joins[id % JOINS].id, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ompt_joins[id % JOINS].ticks, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ompt_joins[id % JOINS].id, id, __ATOMIC_RELEASE);
}

/* A thread arrived at region ID's closing barrier at TICKS. */
static void join_arrive(uint64_t id, uint64_t ticks)
{
	uint64_t *last = &ompt_joins[id % JOINS].ticks,
		 old = __atomic_load_n(last, __ATOMIC_RELAXED);

	if (__atomic_load_n(&ompt_joins[id % JOINS].id, __ATOMIC_ACQUIRE) != id)
		return;
	while (old < ticks && !__atomic_compare_exchange_n(last, &old, ticks, 1, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED))
		;
}

/* Where the calling thread's stream stands (its next free word), NULL when it has none. */
static const uint64_t *stream_pos(void)
{
	struct psc_thread *t = thread_get();

	return t ? t->pos : NULL;
}

/* 1 when the record of WORDS words just written went right after BEFORE, where the stream
 * stood: not into a new chunk, whose clock record is timed now, so that a later record dated
 * back to this one's time would go back behind that clock record. */
static int written_in_place(const uint64_t *before, unsigned words)
{
	return before && stream_pos() == before + words;
}

/* The last arrival at region ID's closing barrier, if the table still has it, it is not later
 * than now and the calling thread wrote nothing since its record that may be dated back (an
 * explicit task it ran in the barrier, a function call); else 0 (now). */
static uint64_t join_ticks(uint64_t id)
{
	uint64_t ticks = __atomic_load_n(&ompt_joins[id % JOINS].ticks, __ATOMIC_RELAXED);

	if (__atomic_load_n(&ompt_joins[id % JOINS].id, __ATOMIC_ACQUIRE) != id ||
	    !ompt_tls.dated_pos || stream_pos() != ompt_tls.dated_pos)
		return 0;
	return ticks <= omp_ticks() ? ticks : 0;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned requested, int flags, const void *codeptr)
{
	uint64_t id = omp_new_id() & ID_MASK, site = (uint64_t)(uintptr_t)codeptr;
	/* the implicit tasks the thread is in, not omp_get_level(): no OpenMP routine is called
	 * from a tool's callback */
	int level = (int)ompt_itasks.depth + 1;

	(void)task, (void)frame, (void)flags;
	__atomic_store_n(&parallel->value, id, __ATOMIC_RELAXED);
	join_open(id);
	if (ompt_tls.nsites < SITES_MAX)
		ompt_tls.sites[ompt_tls.nsites] = site;
	ompt_tls.nsites++;
	omp_rec(PSC_REC_OMP_PARALLEL_BEGIN, requested, 4, id, site, 0, (uint64_t)level);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
			    const void *codeptr)
{
	uint64_t v = __atomic_load_n(&parallel->value, __ATOMIC_RELAXED);

	(void)task, (void)flags, (void)codeptr;
	if (ompt_tls.nsites)
		ompt_tls.nsites--;
	omp_rec(PSC_REC_OMP_PARALLEL_END, (uint32_t)(v >> ID_BITS), 1, v & ID_MASK, 0, 0, 0);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned team, unsigned index, int flags)
{
	uint64_t id;

	if (flags & ompt_task_initial)
		return;
	if (endpoint == ompt_scope_begin) {
		id = __atomic_load_n(&parallel->value, __ATOMIC_RELAXED) & ID_MASK;
		if (index == 0)
			__atomic_store_n(&parallel->value, id | (uint64_t)team << ID_BITS,
					 __ATOMIC_RELAXED);
		task->value = id | (uint64_t)index << ID_BITS;
		if (ompt_itasks.depth < SITES_MAX)
			ompt_itasks.outer[ompt_itasks.depth] = ompt_itasks.now;
		ompt_itasks.depth++;
		ompt_itasks.now = task->value;
		omp_rec(PSC_REC_OMP_ITASK_BEGIN, index, 2, id, team, 0, 0);
	} else {
		id = task->value & ID_MASK;
		omp_rec_at(task->value >> ID_BITS ? join_ticks(id) : 0, PSC_REC_OMP_ITASK_END,
			   (uint32_t)(task->value >> ID_BITS), 1, id, 0, 0, 0);
		ompt_tls.dated_pos = NULL;
		ompt_itasks.now = ompt_itasks.depth && ompt_itasks.depth <= SITES_MAX
				      ? ompt_itasks.outer[ompt_itasks.depth - 1]
				      : 0;
		ompt_itasks.depth -= ompt_itasks.depth > 0;
	}
}

/* Which wait a sync region of KIND is; libomp 14 says "implicit" for the closing barriers of
 * both regions and worksharing constructs: a region's comes without a call site (thread 0:
 * the region's own). */
static enum psc_omp_sync sync_kind(ompt_sync_region_t kind, const void *codeptr)
{
	uint64_t site = (uint64_t)(uintptr_t)codeptr;
	unsigned n = ompt_tls.nsites;

	switch ((int)kind) {
	case ompt_sync_region_barrier_implicit:
		return !site || (n && n <= SITES_MAX && ompt_tls.sites[n - 1] == site)
			   ? PSC_OMP_SYNC_BARRIER_IMPLICIT
			   : PSC_OMP_SYNC_BARRIER_WORK;
	case ompt_sync_region_barrier_implicit_parallel:
	case ompt_sync_region_barrier_teams:
		return PSC_OMP_SYNC_BARRIER_IMPLICIT;
	case ompt_sync_region_barrier_implicit_workshare:
		return PSC_OMP_SYNC_BARRIER_WORK;
	case ompt_sync_region_taskwait:
		return PSC_OMP_SYNC_TASKWAIT;
	case ompt_sync_region_taskgroup:
		return PSC_OMP_SYNC_TASKGROUP;
	case ompt_sync_region_reduction:
		return PSC_OMP_SYNC_REDUCTION;
	default: /* barrier, explicit, implementation */
		return PSC_OMP_SYNC_BARRIER_EXPLICIT;
	}
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			 ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	enum psc_omp_sync k = sync_kind(kind, codeptr);
	uint64_t id = ompt_itasks.now & ID_MASK, ticks = 0;
	int closing = k == PSC_OMP_SYNC_BARRIER_IMPLICIT && id;
	const uint64_t *before = stream_pos();

	(void)parallel, (void)task;
	if (endpoint == ompt_scope_begin) {
		if (closing) {
			ticks = omp_ticks();
			join_arrive(id, ticks);
		}
		omp_rec_at(ticks, PSC_REC_OMP_SYNC_ENTER, k, 2, (uint64_t)(uintptr_t)codeptr, 0, 0,
			   0);
		ompt_tls.dated_pos = closing && written_in_place(before, 4) ? stream_pos() : NULL;
		return;
	}
	if (closing && ompt_itasks.now >> ID_BITS)
		ticks = join_ticks(id);
	omp_rec_at(ticks, PSC_REC_OMP_SYNC_LEAVE, k, 0, 0, 0, 0, 0);
	ompt_tls.dated_pos = ticks && written_in_place(before, 2) ? stream_pos() : NULL;
}

static enum psc_omp_sync mutex_kind(ompt_mutex_t kind)
{
	switch (kind) {
	case ompt_mutex_critical:
		return PSC_OMP_SYNC_CRITICAL;
	case ompt_mutex_ordered:
		return PSC_OMP_SYNC_ORDERED;
	case ompt_mutex_atomic:
		return PSC_OMP_SYNC_ATOMIC;
	default:
		return PSC_OMP_SYNC_LOCK;
	}
}

/*
 * A lock's wait, from mutex_acquire to its end: mutex_acquired, or, for a nest lock the thread
 * holds already, nest_lock's scope begin. An acquire may have no end: a failed omp_test_lock
 * (libomp tells no acquired then). So the acquire is only noted, and the wait's two records
 * are written at its end, the first dated back to the acquire when nothing was written in the
 * thread's stream since (a blocked thread writes nothing; else it is timed now, a wait of 0).
 */
static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t wait,
			     const void *codeptr)
{
	(void)hint, (void)impl;
	ompt_tls.lock = (struct ompt_lock_wait){.ticks = omp_ticks(),
						.site = (uint64_t)(uintptr_t)codeptr,
						.object = wait,
						.kind = mutex_kind(kind),
						.pos = stream_pos()};
}

/* The noted acquire's wait ends now: its records. */
static void lock_acquired(void)
{
	struct ompt_lock_wait *l = &ompt_tls.lock;

	if (!l->kind)
		return;
	omp_rec_at(l->pos && stream_pos() == l->pos ? l->ticks : 0, PSC_REC_OMP_SYNC_ENTER, l->kind,
		   2, l->site, l->object, 0, 0);
	omp_wait_leave(l->kind);
	l->kind = 0;
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait, const void *codeptr)
{
	(void)kind, (void)wait, (void)codeptr;
	lock_acquired();
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait, const void *codeptr)
{
	(void)wait, (void)codeptr;
	if (endpoint == ompt_scope_begin)
		lock_acquired();
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
		    ompt_data_t *task, uint64_t count, const void *codeptr)
{
	unsigned wk = kind == ompt_work_sections ? PSC_OMP_WORK_SECTIONS
		      : kind == ompt_work_single_executor || kind == ompt_work_single_other
			  ? PSC_OMP_WORK_SINGLE
			  : PSC_OMP_WORK_OTHER;

	(void)parallel, (void)task, (void)count;
	if (endpoint == ompt_scope_begin) {
		ompt_tls.work_begin = omp_ticks();
		ompt_tls.chunks = 0;
		return;
	}
	/* a single's chunk is known (1 for the thread that ran it), others' when dispatched;
	 * the iterations a thread ran, never (count is the whole loop's) */
	omp_rec(PSC_REC_OMP_WORK, wk, 4, (uint64_t)(uintptr_t)codeptr, ompt_tls.work_begin,
		wk == PSC_OMP_WORK_SINGLE ? kind == ompt_work_single_executor
		: psc_omp.ompt_chunks	  ? ompt_tls.chunks
					  : PSC_OMP_NOT_COUNTED,
		wk == PSC_OMP_WORK_SINGLE ? 0 : PSC_OMP_NOT_COUNTED);
}

/* A chunk of a loop or a section handed to the calling thread (libomp 15 and later). */
static void on_dispatch(ompt_data_t *parallel, ompt_data_t *task, ompt_dispatch_t kind,
			ompt_data_t instance)
{
	(void)parallel, (void)task, (void)kind, (void)instance;
	ompt_tls.chunks++;
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame, ompt_data_t *task,
			   int flags, int deps, const void *codeptr)
{
	(void)parent, (void)frame, (void)deps;
	if (!(flags & ompt_task_explicit))
		return;
	task->value = omp_new_id() | EXPLICIT_TASK;
	omp_rec(PSC_REC_OMP_TASK_CREATE, 0, 2, task->value & ~EXPLICIT_TASK,
		(uint64_t)(uintptr_t)codeptr, 0, 0);
}

/* A thread switches from the task PRIOR to NEXT (explicit tasks are those marked so). */
static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (status == ompt_task_early_fulfill || status == ompt_task_late_fulfill)
		return;
	if (prior && (prior->value & EXPLICIT_TASK))
		omp_rec(PSC_REC_OMP_TASK_END, status != ompt_task_complete, 1,
			prior->value & ~EXPLICIT_TASK, 0, 0, 0);
	if (next && (next->value & EXPLICIT_TASK))
		omp_rec(PSC_REC_OMP_TASK_BEGIN, 0, 1, next->value & ~EXPLICIT_TASK, 0, 0, 0);
}

static int ompt_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

	(void)device, (void)data;
	if (!set)
		return 0;
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait);
	set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
	set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
	set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	psc_omp.ompt_chunks =
	    set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch) >= ompt_set_sometimes;
	set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
	set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	__atomic_store_n(&psc_omp.ompt, 1, __ATOMIC_RELEASE);
	return 1;
}

static void ompt_finalize(ompt_data_t *data)
{
	(void)data;
}

/* libomp's question, when OpenMP first runs: record through OMPT when this process records
 * and OpenMP recording is not turned off, else decline (NULL: libomp runs without a tool). */
PSC_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	static ompt_start_tool_result_t tool = {ompt_initialize, ompt_finalize, {0}};

	(void)version, (void)runtime;
	return omp_on() ? &tool : NULL;
}
