/*
 * gomp-sync.c - libgomp's waits, interposed: explicit barriers, critical sections (the wait to
 * enter), locks (omp_set_lock, omp_set_nest_lock: the wait to get it), ordered, taskwait and
 * the end of a taskgroup, each a SYNC_ENTER / SYNC_LEAVE pair around the real call. With
 * libomp the OMPT tool records these and the lock wrappers pass through.
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include "lib/compiler.h"

/* The wait of KIND on OBJECT around CALL, when recording. */
#define WAIT(kind, object, call)                                                                   \
	do {                                                                                       \
		if (!GOMP_RECORDS()) {                                                             \
			call;                                                                      \
			break;                                                                     \
		}                                                                                  \
		omp_wait_enter(kind, GOMP_SITE(), (uint64_t)(uintptr_t)(object));                  \
		call;                                                                              \
		omp_wait_leave(kind);                                                              \
	} while (0)

PSC_EXPORT void GOMP_barrier(void)
{
	void (*real)(void) = GOMP_REAL(barrier);

	WAIT(PSC_OMP_SYNC_BARRIER_EXPLICIT, 0, real());
}

PSC_EXPORT bool GOMP_barrier_cancel(void)
{
	bool (*real)(void) = GOMP_REAL(barrier_cancel);
	bool ret;

	WAIT(PSC_OMP_SYNC_BARRIER_EXPLICIT, 0, ret = real());
	return ret;
}

PSC_EXPORT void GOMP_critical_start(void)
{
	void (*real)(void) = GOMP_REAL(critical_start);

	WAIT(PSC_OMP_SYNC_CRITICAL, 0, real());
}

PSC_EXPORT void GOMP_critical_name_start(void **pptr)
{
	void (*real)(void **) = GOMP_REAL(critical_name_start);

	WAIT(PSC_OMP_SYNC_CRITICAL, pptr, real(pptr));
}

PSC_EXPORT void GOMP_ordered_start(void)
{
	void (*real)(void) = GOMP_REAL(ordered_start);

	WAIT(PSC_OMP_SYNC_ORDERED, 0, real());
}

PSC_EXPORT void GOMP_taskwait(void)
{
	void (*real)(void) = GOMP_REAL(taskwait);

	WAIT(PSC_OMP_SYNC_TASKWAIT, 0, real());
}

PSC_EXPORT void GOMP_taskgroup_end(void)
{
	void (*real)(void) = GOMP_REAL(taskgroup_end);

	WAIT(PSC_OMP_SYNC_TASKGROUP, 0, real());
}

/* omp_lock_t and omp_nest_lock_t are opaque: the lock is passed by address. */
PSC_EXPORT void omp_set_lock(void *lock)
{
	void (*real)(void *) = GOMP_REAL(set_lock);

	WAIT(PSC_OMP_SYNC_LOCK, lock, real(lock));
}

PSC_EXPORT void omp_set_nest_lock(void *lock)
{
	void (*real)(void *) = GOMP_REAL(set_nest_lock);

	WAIT(PSC_OMP_SYNC_LOCK, lock, real(lock));
}
