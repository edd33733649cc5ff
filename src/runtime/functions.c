/*
 * functions.c - the -finstrument-functions hooks: a 16-byte record per function entry and
 * exit (timestamp with the kind bits, function address) in the calling thread's chunk. The
 * fast path is a few loads, the counter read and two stores: no lock, no system call, no
 * string work, no stack frame; everything else (first event of a thread, full chunk, a filter,
 * a clock other than the cycle counter, a re-entered hook) takes the slow path.
 */
#include "session.h"

#include "../core/filter.h"
#include "../core/format.h"

#include <errno.h>

/* The clock the fast path reads inline: the cycle counter of the architecture. */
#if defined(__aarch64__)
#define FAST_CLOCK CLOCK_SOURCE_CNTVCT
#else
#define FAST_CLOCK CLOCK_SOURCE_TSC
#endif

/* Everything the fast path does not handle. Keeps errno. */
__attribute__((noinline, cold)) static void func_record_slow(void *fn, enum psc_kind kind)
{
	int saved_errno = errno;
	const struct psc_filter *f = __atomic_load_n(&psc_session.filter, __ATOMIC_ACQUIRE);
	struct psc_thread *t = psc_tls_thread;
	uint64_t *r;

	if (f && !filter_match(f, (uintptr_t)fn))
		goto out;
	if (!t) {
		t = thread_get_slow();
		if (!t)
			goto out;
	}
	if (t->guard) {
		/* a signal handler interrupted the runtime on this thread */
		t->lost_records++;
		goto out;
	}
	thread_guard_enter(t);
	if (unlikely(!t->functions)) {
		t->functions = 1;
		t->live->stream.features |= PSC_FEAT_FUNCTIONS;
	}
	r = t->closed ? NULL : thread_reserve(t, 2);
	if (t->closed)
		__atomic_add_fetch(&t->lost_records, 1, __ATOMIC_RELAXED);
	if (r) {
		r[0] = psc_word0(clock_ticks(psc_session.clock), kind);
		r[1] = (uintptr_t)fn;
		thread_commit(t, 2);
	}
	thread_guard_leave(t);
out:
	errno = saved_errno;
}

static inline void func_record(void *fn, enum psc_kind kind)
{
	struct psc_thread *t = psc_tls_thread;
	uint64_t *r;

	if (unlikely(psc_session.filter != NULL) || unlikely(psc_session.clock != FAST_CLOCK) ||
	    unlikely(!t) || unlikely(t->guard)) {
		func_record_slow(fn, kind);
		return;
	}
	thread_guard_enter(t);
	/* the room is checked under the guard: a handler may have filled it just before */
	r = t->pos;
	if (unlikely(r + 2 > t->end)) {
		thread_guard_leave(t);
		func_record_slow(fn, kind);
		return;
	}
	r[0] = psc_word0(clock_ticks(FAST_CLOCK), kind);
	r[1] = (uintptr_t)fn;
	thread_commit(t, 2);
	thread_guard_leave(t);
}

PSC_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	func_record(fn, PSC_KIND_FUNC_ENTER);
}

PSC_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	func_record(fn, PSC_KIND_FUNC_EXIT);
}
