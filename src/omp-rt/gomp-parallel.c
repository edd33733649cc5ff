/*
 * gomp-parallel.c - libgomp's parallel constructs, interposed: the encountering thread writes
 * PARALLEL_BEGIN and PARALLEL_END around the real call, and every thread of the team runs the
 * outlined function through a trampoline that writes its implicit task's ITASK_BEGIN and
 * ITASK_END around it. The trampoline's data (the real function and data, the region's id) is
 * on the encountering thread's stack: GOMP_parallel returns only when the team is done. The
 * closing barrier is inside libgomp, after the outlined function returns: ITASK_END marks the
 * thread's arrival at it, and the analysis derives the wait from the last arrival.
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include "lib/compiler.h"

/* One parallel region, as its team's trampolines see it. */
struct gomp_team {
	gomp_fn fn;
	void *data;
	uint64_t id, site;
	unsigned work_kind; /* a combined parallel loop or sections: the construct, else 0 */
	long incr;
	unsigned size; /* the team's size, set by its thread 0 */
};

static void gomp_trampoline(void *arg)
{
	struct gomp_team *w = arg;
	unsigned me = (unsigned)psc_gomp.get_thread_num();
	unsigned n = (unsigned)psc_gomp.get_num_threads();

	if (me == 0)
		w->size = n;
	omp_rec(PSC_REC_OMP_ITASK_BEGIN, me, 2, w->id, n, 0, 0);
	if (w->work_kind)
		gomp_work_begin(w->work_kind, w->site, w->incr);
	w->fn(w->data);
	omp_rec(PSC_REC_OMP_ITASK_END, me, 1, w->id, 0, 0, 0);
}

/* The team W of a region of NTHREADS asked for at SITE begins: its PARALLEL_BEGIN. */
static void gomp_team_begin(struct gomp_team *w, gomp_fn fn, void *data, unsigned nthreads,
			    uint64_t site)
{
	int level = psc_gomp.get_level ? psc_gomp.get_level() + 1 : 1;

	*w = (struct gomp_team){.fn = fn, .data = data, .id = omp_new_id(), .site = site};
	omp_rec(PSC_REC_OMP_PARALLEL_BEGIN, nthreads, 4, w->id, site, (uint64_t)(uintptr_t)fn,
		(uint64_t)level);
}

static void gomp_team_end(const struct gomp_team *w)
{
	omp_rec(PSC_REC_OMP_PARALLEL_END, w->size, 1, w->id, 0, 0, 0);
}

PSC_EXPORT void GOMP_parallel(gomp_fn fn, void *data, unsigned nthreads, unsigned flags)
{
	void (*real)(gomp_fn, void *, unsigned, unsigned) = GOMP_REAL(parallel);
	struct gomp_team w;

	if (!GOMP_RECORDS() || !psc_gomp.get_thread_num) {
		real(fn, data, nthreads, flags);
		return;
	}
	gomp_team_begin(&w, fn, data, nthreads, GOMP_SITE());
	real(gomp_trampoline, &w, nthreads, flags);
	gomp_team_end(&w);
}

PSC_EXPORT unsigned GOMP_parallel_reductions(gomp_fn fn, void *data, unsigned nthreads,
					     unsigned flags)
{
	unsigned (*real)(gomp_fn, void *, unsigned, unsigned) = GOMP_REAL(parallel_reductions);
	struct gomp_team w;
	unsigned ret;

	if (!GOMP_RECORDS() || !psc_gomp.get_thread_num)
		return real(fn, data, nthreads, flags);
	gomp_team_begin(&w, fn, data, nthreads, GOMP_SITE());
	ret = real(gomp_trampoline, &w, nthreads, flags);
	gomp_team_end(&w);
	return ret;
}

PSC_EXPORT void GOMP_parallel_sections(gomp_fn fn, void *data, unsigned nthreads, unsigned count,
				       unsigned flags)
{
	void (*real)(gomp_fn, void *, unsigned, unsigned, unsigned) = GOMP_REAL(parallel_sections);
	struct gomp_team w;

	if (!GOMP_RECORDS() || !psc_gomp.get_thread_num) {
		real(fn, data, nthreads, count, flags);
		return;
	}
	gomp_team_begin(&w, fn, data, nthreads, GOMP_SITE());
	w.work_kind = PSC_OMP_WORK_SECTIONS;
	real(gomp_trampoline, &w, nthreads, count, flags);
	gomp_team_end(&w);
}

/* A combined parallel loop: the team's threads start in the loop the runtime set up. */
#define PARALLEL_LOOP(s, kind)                                                                     \
	PSC_EXPORT void GOMP_parallel_loop_##s(gomp_fn fn, void *data, unsigned nthreads,          \
					       long start, long end, long incr, long chunk,        \
					       unsigned flags)                                     \
	{                                                                                          \
		void (*real)(gomp_fn, void *, unsigned, long, long, long, long, unsigned) =        \
		    GOMP_REAL(parallel_loop_##s);                                                  \
		struct gomp_team w;                                                                \
                                                                                                   \
		if (!GOMP_RECORDS() || !psc_gomp.get_thread_num) {                                 \
			real(fn, data, nthreads, start, end, incr, chunk, flags);                  \
			return;                                                                    \
		}                                                                                  \
		gomp_team_begin(&w, fn, data, nthreads, GOMP_SITE());                              \
		w.work_kind = kind;                                                                \
		w.incr = incr;                                                                     \
		real(gomp_trampoline, &w, nthreads, start, end, incr, chunk, flags);               \
		gomp_team_end(&w);                                                                 \
	}
GOMP_PARALLEL_LOOP_SCHEDS(PARALLEL_LOOP)

#define PARALLEL_LOOP_RUNTIME(s)                                                                   \
	PSC_EXPORT void GOMP_parallel_loop_##s(gomp_fn fn, void *data, unsigned nthreads,          \
					       long start, long end, long incr, unsigned flags)    \
	{                                                                                          \
		void (*real)(gomp_fn, void *, unsigned, long, long, long, unsigned) =              \
		    GOMP_REAL(parallel_loop_##s);                                                  \
		struct gomp_team w;                                                                \
                                                                                                   \
		if (!GOMP_RECORDS() || !psc_gomp.get_thread_num) {                                 \
			real(fn, data, nthreads, start, end, incr, flags);                         \
			return;                                                                    \
		}                                                                                  \
		gomp_team_begin(&w, fn, data, nthreads, GOMP_SITE());                              \
		w.work_kind = PSC_OMP_WORK_LOOP_RUNTIME;                                           \
		w.incr = incr;                                                                     \
		real(gomp_trampoline, &w, nthreads, start, end, incr, flags);                      \
		gomp_team_end(&w);                                                                 \
	}
GOMP_PARALLEL_LOOP_RUNTIME_SCHEDS(PARALLEL_LOOP_RUNTIME)

/*
 * The old ABI: GOMP_parallel_start starts the team and returns, the encountering thread runs
 * the outlined function itself, then calls GOMP_parallel_end. Its regions are kept in a small
 * per-thread stack (nesting deeper than that is not recorded); the workers' trampolines read
 * them from there, which stays valid until GOMP_parallel_end returns.
 */
#define OLD_ABI_DEPTH 8

static __thread struct gomp_old_abi {
	struct gomp_team team[OLD_ABI_DEPTH];
	unsigned depth, skipped;
} gomp_old __attribute__((tls_model("initial-exec")));

PSC_EXPORT void GOMP_parallel_start(gomp_fn fn, void *data, unsigned nthreads)
{
	void (*real)(gomp_fn, void *, unsigned) = GOMP_REAL(parallel_start);
	struct gomp_team *w;

	if (!GOMP_RECORDS() || !psc_gomp.get_thread_num || gomp_old.depth >= OLD_ABI_DEPTH) {
		/* a pass-through inside a recorded region: its end must not pop that region */
		gomp_old.skipped += gomp_old.depth > 0;
		real(fn, data, nthreads);
		return;
	}
	w = &gomp_old.team[gomp_old.depth++];
	gomp_team_begin(w, fn, data, nthreads, GOMP_SITE());
	real(gomp_trampoline, w, nthreads);
	/* the encountering thread is thread 0 of the new team */
	w->size = (unsigned)psc_gomp.get_num_threads();
	omp_rec(PSC_REC_OMP_ITASK_BEGIN, 0, 2, w->id, w->size, 0, 0);
}

PSC_EXPORT void GOMP_parallel_end(void)
{
	void (*real)(void) = GOMP_REAL(parallel_end);
	struct gomp_team *w;

	if (gomp_old.skipped) {
		gomp_old.skipped--;
		real();
		return;
	}
	if (!gomp_old.depth) {
		real();
		return;
	}
	w = &gomp_old.team[gomp_old.depth - 1];
	omp_rec(PSC_REC_OMP_ITASK_END, 0, 1, w->id, 0, 0, 0);
	real();
	gomp_team_end(w);
	gomp_old.depth--;
}
