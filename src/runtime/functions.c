/*
 * functions.c - the -finstrument-functions hooks: a 16-byte record per function entry and
 * exit (timestamp with the kind bits, function address) in the calling thread's chunk. No
 * lock, no system call and no string work on the fast path.
 */
#include "session.h"

#include "../core/format.h"
#include "../core/filter.h"

#include <errno.h>

/* Slow path: first event of the thread, full chunk, closed stream or a re-entered hook.
 * Returns where to write 2 words, or NULL to drop the event. Keeps errno. */
__attribute__((noinline, cold)) static uint64_t *func_reserve_slow(void)
{
	int saved_errno = errno;
	struct psc_thread *t = psc_tls_thread;
	uint64_t *r = NULL;

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
	t->functions = 1;
	if (!t->closed)
		r = thread_reserve(t, 2);
	thread_guard_leave(t);
out:
	errno = saved_errno;
	return r;
}

static inline void func_record(void *fn, enum psc_kind kind)
{
	struct psc_thread *t = psc_tls_thread;
	const struct psc_filter *f = psc_session.filter;
	uint64_t *r;

	if (unlikely(f != NULL) && !filter_match(f, (uintptr_t)fn))
		return;
	if (unlikely(!t) || unlikely(t->guard) || unlikely(t->pos + 2 > t->end)) {
		r = func_reserve_slow();
		if (!r)
			return;
		t = psc_tls_thread;
	}
	thread_guard_enter(t);
	r = t->pos;
	r[0] = psc_word0(clock_ticks(psc_session.clock), kind);
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
