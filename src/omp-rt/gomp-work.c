/*
 * gomp-work.c - libgomp's worksharing constructs, interposed: loops (every schedule, long and
 * unsigned long long), sections and single. A thread's chunks and iterations are counted in
 * its thread-local state as the runtime hands them out; one WORK record is written when the
 * thread leaves the construct (GOMP_loop_end*, GOMP_sections_end*), and the barrier that
 * closes it (GOMP_loop_end, GOMP_sections_end) is a BARRIER_WORK wait. A loop with a static
 * schedule and no chunk size is divided by the compiler's own code: gcc calls nothing for it
 * (no WORK record) and its closing barrier is a GOMP_barrier call, an explicit barrier to us.
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include "lib/compiler.h"

void gomp_work_begin(unsigned kind, uint64_t site, long incr)
{
	struct omp_rt_thread *o = &psc_omp_tls;

	o->work_kind = kind;
	o->work_site = site;
	o->work_begin = omp_ticks();
	o->chunks = 0;
	o->iterations = 0;
	o->incr = incr;
}

static void gomp_work_begin_ull(unsigned kind, uint64_t site, bool up, gomp_ull incr)
{
	gomp_work_begin(kind, site, 0);
	psc_omp_tls.work_up = up;
	psc_omp_tls.uincr = incr;
}

/* The iterations of a chunk SPAN long taken STEP at a time (0 for a step of 0), in unsigned
 * arithmetic: spans and steps near the types' limits do not overflow. */
static uint64_t chunk_iterations(uint64_t span, uint64_t step)
{
	return step ? span / step + (span % step != 0) : 0;
}

/* A chunk [ISTART, IEND) of the long loop the thread is in. */
static void gomp_chunk(long istart, long iend)
{
	struct omp_rt_thread *o = &psc_omp_tls;
	long incr = o->incr;

	o->chunks++;
	if (incr > 0 && iend > istart)
		o->iterations +=
		    chunk_iterations((uint64_t)iend - (uint64_t)istart, (uint64_t)incr);
	else if (incr < 0 && istart > iend)
		o->iterations +=
		    chunk_iterations((uint64_t)istart - (uint64_t)iend, 0 - (uint64_t)incr);
}

static void gomp_chunk_ull(gomp_ull istart, gomp_ull iend)
{
	struct omp_rt_thread *o = &psc_omp_tls;
	gomp_ull incr = o->uincr;

	o->chunks++;
	if (o->work_up && iend > istart)
		o->iterations += chunk_iterations(iend - istart, incr);
	else if (!o->work_up && istart > iend)
		o->iterations += chunk_iterations(istart - iend, 0 - incr);
}

/* The thread leaves its construct: its WORK record (none when it was not seen to start). */
static void gomp_work_end(void)
{
	struct omp_rt_thread *o = &psc_omp_tls;

	if (!o->work_site)
		return;
	omp_rec(PSC_REC_OMP_WORK, o->work_kind, 4, o->work_site, o->work_begin, o->chunks,
		o->iterations);
	o->work_site = 0;
}

#define LOOP(s, kind)                                                                              \
	PSC_EXPORT bool GOMP_loop_##s##_start(long start, long end, long incr, long chunk,         \
					      long *istart, long *iend)                            \
	{                                                                                          \
		bool (*real)(long, long, long, long, long *, long *) =                             \
		    GOMP_REAL(loop_##s##_start);                                                   \
		bool more;                                                                         \
                                                                                                   \
		if (!GOMP_RECORDS())                                                               \
			return real(start, end, incr, chunk, istart, iend);                        \
		gomp_work_begin(kind, GOMP_SITE(), incr);                                          \
		more = real(start, end, incr, chunk, istart, iend);                                \
		if (more)                                                                          \
			gomp_chunk(*istart, *iend);                                                \
		return more;                                                                       \
	}                                                                                          \
	PSC_EXPORT bool GOMP_loop_ull_##s##_start(bool up, gomp_ull start, gomp_ull end,           \
						  gomp_ull incr, gomp_ull chunk, gomp_ull *istart, \
						  gomp_ull *iend)                                  \
	{                                                                                          \
		bool (*real)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull, gomp_ull *,             \
			     gomp_ull *) = GOMP_REAL(loop_ull_##s##_start);                        \
		bool more;                                                                         \
                                                                                                   \
		if (!GOMP_RECORDS())                                                               \
			return real(up, start, end, incr, chunk, istart, iend);                    \
		gomp_work_begin_ull(kind, GOMP_SITE(), up, incr);                                  \
		more = real(up, start, end, incr, chunk, istart, iend);                            \
		if (more)                                                                          \
			gomp_chunk_ull(*istart, *iend);                                            \
		return more;                                                                       \
	}                                                                                          \
	LOOP_NEXT(s)

#define LOOP_NEXT(s)                                                                               \
	PSC_EXPORT bool GOMP_loop_##s##_next(long *istart, long *iend)                             \
	{                                                                                          \
		bool more = GOMP_REAL(loop_##s##_next)(istart, iend);                              \
                                                                                                   \
		if (more && psc_omp_tls.work_site)                                                 \
			gomp_chunk(*istart, *iend);                                                \
		return more;                                                                       \
	}                                                                                          \
	PSC_EXPORT bool GOMP_loop_ull_##s##_next(gomp_ull *istart, gomp_ull *iend)                 \
	{                                                                                          \
		bool more = GOMP_REAL(loop_ull_##s##_next)(istart, iend);                          \
                                                                                                   \
		if (more && psc_omp_tls.work_site)                                                 \
			gomp_chunk_ull(*istart, *iend);                                            \
		return more;                                                                       \
	}

GOMP_LOOP_SCHEDS(LOOP)

#define LOOP_RUNTIME(s)                                                                            \
	PSC_EXPORT bool GOMP_loop_##s##_start(long start, long end, long incr, long *istart,       \
					      long *iend)                                          \
	{                                                                                          \
		bool (*real)(long, long, long, long *, long *) = GOMP_REAL(loop_##s##_start);      \
		bool more;                                                                         \
                                                                                                   \
		if (!GOMP_RECORDS())                                                               \
			return real(start, end, incr, istart, iend);                               \
		gomp_work_begin(PSC_OMP_WORK_LOOP_RUNTIME, GOMP_SITE(), incr);                     \
		more = real(start, end, incr, istart, iend);                                       \
		if (more)                                                                          \
			gomp_chunk(*istart, *iend);                                                \
		return more;                                                                       \
	}                                                                                          \
	PSC_EXPORT bool GOMP_loop_ull_##s##_start(bool up, gomp_ull start, gomp_ull end,           \
						  gomp_ull incr, gomp_ull *istart, gomp_ull *iend) \
	{                                                                                          \
		bool (*real)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull *, gomp_ull *) =         \
		    GOMP_REAL(loop_ull_##s##_start);                                               \
		bool more;                                                                         \
                                                                                                   \
		if (!GOMP_RECORDS())                                                               \
			return real(up, start, end, incr, istart, iend);                           \
		gomp_work_begin_ull(PSC_OMP_WORK_LOOP_RUNTIME, GOMP_SITE(), up, incr);             \
		more = real(up, start, end, incr, istart, iend);                                   \
		if (more)                                                                          \
			gomp_chunk_ull(*istart, *iend);                                            \
		return more;                                                                       \
	}                                                                                          \
	LOOP_NEXT(s)

GOMP_LOOP_RUNTIME_SCHEDS(LOOP_RUNTIME)

/* The schedule of GOMP_loop_start's SCHED (libgomp's enum gomp_schedule_type, with its
 * monotonic flag in the top bit). */
static unsigned gomp_sched_kind(long sched)
{
	switch (sched & 0x7fffffff) {
	case 1:
		return PSC_OMP_WORK_LOOP_STATIC;
	case 2:
		return PSC_OMP_WORK_LOOP_DYNAMIC;
	case 3:
		return PSC_OMP_WORK_LOOP_GUIDED;
	default:
		return PSC_OMP_WORK_LOOP_RUNTIME;
	}
}

PSC_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
				long *istart, long *iend, uintptr_t *reductions, void **mem)
{
	bool (*real)(long, long, long, long, long, long *, long *, uintptr_t *, void **) =
	    GOMP_REAL(loop_start);
	bool more;

	if (!GOMP_RECORDS())
		return real(start, end, incr, sched, chunk, istart, iend, reductions, mem);
	gomp_work_begin(gomp_sched_kind(sched), GOMP_SITE(), incr);
	more = real(start, end, incr, sched, chunk, istart, iend, reductions, mem);
	if (more && istart && iend)
		gomp_chunk(*istart, *iend);
	return more;
}

PSC_EXPORT bool GOMP_loop_ull_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
				    long sched, gomp_ull chunk, gomp_ull *istart, gomp_ull *iend,
				    uintptr_t *reductions, void **mem)
{
	bool (*real)(bool, gomp_ull, gomp_ull, gomp_ull, long, gomp_ull, gomp_ull *, gomp_ull *,
		     uintptr_t *, void **) = GOMP_REAL(loop_ull_start);
	bool more;

	if (!GOMP_RECORDS())
		return real(up, start, end, incr, sched, chunk, istart, iend, reductions, mem);
	gomp_work_begin_ull(gomp_sched_kind(sched), GOMP_SITE(), up, incr);
	more = real(up, start, end, incr, sched, chunk, istart, iend, reductions, mem);
	if (more && istart && iend)
		gomp_chunk_ull(*istart, *iend);
	return more;
}

/* The end of a construct with its closing barrier: WORK, then the wait in REAL. */
#define WORK_END_BARRIER(real, site)                                                               \
	do {                                                                                       \
		gomp_work_end();                                                                   \
		omp_wait_enter(PSC_OMP_SYNC_BARRIER_WORK, site, 0);                                \
		real;                                                                              \
		omp_wait_leave(PSC_OMP_SYNC_BARRIER_WORK);                                         \
	} while (0)

PSC_EXPORT void GOMP_loop_end(void)
{
	void (*real)(void) = GOMP_REAL(loop_end);

	if (!GOMP_RECORDS()) {
		real();
		return;
	}
	WORK_END_BARRIER(real(), GOMP_SITE());
}

PSC_EXPORT bool GOMP_loop_end_cancel(void)
{
	bool (*real)(void) = GOMP_REAL(loop_end_cancel);
	bool ret;

	if (!GOMP_RECORDS())
		return real();
	WORK_END_BARRIER(ret = real(), GOMP_SITE());
	return ret;
}

PSC_EXPORT void GOMP_loop_end_nowait(void)
{
	if (GOMP_RECORDS())
		gomp_work_end();
	GOMP_REAL(loop_end_nowait)();
}

/* A section number handed out (0: none left). */
static unsigned gomp_section(unsigned n)
{
	if (n && psc_omp_tls.work_site) {
		psc_omp_tls.chunks++;
		psc_omp_tls.iterations++;
	}
	return n;
}

PSC_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	unsigned (*real)(unsigned) = GOMP_REAL(sections_start);

	if (!GOMP_RECORDS())
		return real(count);
	gomp_work_begin(PSC_OMP_WORK_SECTIONS, GOMP_SITE(), 0);
	return gomp_section(real(count));
}

PSC_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
	unsigned (*real)(unsigned, uintptr_t *, void **) = GOMP_REAL(sections2_start);

	if (!GOMP_RECORDS())
		return real(count, reductions, mem);
	gomp_work_begin(PSC_OMP_WORK_SECTIONS, GOMP_SITE(), 0);
	return gomp_section(real(count, reductions, mem));
}

PSC_EXPORT unsigned GOMP_sections_next(void)
{
	return gomp_section(GOMP_REAL(sections_next)());
}

PSC_EXPORT void GOMP_sections_end(void)
{
	void (*real)(void) = GOMP_REAL(sections_end);

	if (!GOMP_RECORDS()) {
		real();
		return;
	}
	WORK_END_BARRIER(real(), GOMP_SITE());
}

PSC_EXPORT bool GOMP_sections_end_cancel(void)
{
	bool (*real)(void) = GOMP_REAL(sections_end_cancel);
	bool ret;

	if (!GOMP_RECORDS())
		return real();
	WORK_END_BARRIER(ret = real(), GOMP_SITE());
	return ret;
}

PSC_EXPORT void GOMP_sections_end_nowait(void)
{
	if (GOMP_RECORDS())
		gomp_work_end();
	GOMP_REAL(sections_end_nowait)();
}

/* single: the thread's WORK record at once (its end and its barrier are not calls of their
 * own), 1 chunk for the thread that runs it. */
PSC_EXPORT bool GOMP_single_start(void)
{
	bool (*real)(void) = GOMP_REAL(single_start);
	bool mine;

	if (!GOMP_RECORDS())
		return real();
	gomp_work_begin(PSC_OMP_WORK_SINGLE, GOMP_SITE(), 0);
	mine = real();
	psc_omp_tls.chunks = mine;
	gomp_work_end();
	return mine;
}
