/*
 * omp-rt.h - OpenMP recording inside libperfscope.so (docs/format.md "OpenMP records"): the
 * libgomp entry points it interposes (gomp-*.c) and the OMPT tool libomp starts (ompt.c) write
 * the PSC_REC_OMP_* records into the calling thread's stream, through omp_rec() below.
 *
 * It lives in libperfscope.so rather than a library of its own so that a program linked with
 * -lperfscope and run with PERFSCOPE_OUT alone records OpenMP too (its DT_NEEDED entry comes
 * before libgomp's, gcc adds -lgomp last), so that the records take the runtime's inline
 * path (no exported call, no copy), and so that libomp finds ompt_start_tool in the global
 * scope wherever libperfscope.so was loaded from. Private to the runtime.
 */
#ifndef PSC_OMP_RT_H
#define PSC_OMP_RT_H

#include "runtime/session.h"

#include "format/env.h"
#include "format/format.h"

#include <errno.h>
#include <stdint.h>

/* What the calling thread is doing in OpenMP constructs the interposition sees (libgomp): the
 * worksharing construct it is in, counted until it leaves it. */
struct omp_rt_thread {
	uint64_t work_site;  /* call site of the construct's start; 0 when in none */
	uint64_t work_begin; /* ticks when the thread entered it */
	uint64_t chunks, iterations;
	long incr;		  /* the loop's increment (long loops) */
	unsigned long long uincr; /* the loop's increment (unsigned long long loops) */
	unsigned work_kind;	  /* enum psc_omp_work */
	int work_up;		  /* unsigned long long loops: counting up */
};

extern __thread struct omp_rt_thread psc_omp_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The process's OpenMP recording: whether it is on, the next parallel region's id. */
struct omp_rt {
	int off;	  /* PERFSCOPE_OPENMP=0: every wrapper passes through */
	int ompt;	  /* libomp started our OMPT tool: the libgomp wrappers pass through */
	int ompt_chunks;  /* that libomp calls back at each chunk (dispatch): they are counted */
	uint64_t next_id; /* parallel region and task ids, atomically incremented, never 0 */
};

extern struct omp_rt psc_omp __attribute__((visibility("hidden")));

/* 1 when OpenMP records are written (the process records, OpenMP is not turned off). */
static inline int omp_on(void)
{
	return psc_session.state == SESSION_RECORDING && !psc_omp.off;
}

/* A new id for a parallel region or a task, unique in the process, never 0. */
static inline uint64_t omp_new_id(void)
{
	return __atomic_add_fetch(&psc_omp.next_id, 1, __ATOMIC_RELAXED);
}

/* Ticks of the runtime's clock now, as the records' timestamps. */
static inline uint64_t omp_ticks(void)
{
	return clock_ticks(psc_session.clock);
}

/* Room for WORDS words in T's chunk after the current one filled (errno kept). */
uint64_t *omp_reserve_slow(struct psc_thread *t, size_t words);

/*
 * Write the OpenMP record TYPE with ARG and the first N of the payload words A, B, C, D into
 * the calling thread's stream, timestamped TICKS (0: now; an earlier time only when nothing
 * later is in the stream). Nothing when the thread cannot record (no state, a closed stream)
 * or is inside the runtime already (counted as lost). No lock, no system call unless the
 * chunk is full, errno untouched.
 */
static inline void omp_rec_at(uint64_t ticks, enum psc_rec_type type, uint32_t arg, unsigned n,
			      uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	struct psc_thread *t = thread_get();
	uint64_t *r;

	if (unlikely(!t)) {
		thread_count_closed_drop();
		return;
	}
	if (unlikely(t->guard)) {
		t->lost_records++;
		return;
	}
	thread_guard_enter(t);
	/* room for the longest record: the words past this one's are overwritten by the next */
	r = t->pos;
	if (unlikely(r + 6 > t->end)) {
		r = omp_reserve_slow(t, 6);
		ticks = 0; /* a new chunk begins with a clock record of now */
	}
	if (likely(r != NULL)) {
		r[0] = psc_word0(ticks ? ticks : omp_ticks(), PSC_KIND_EXT);
		r[1] = psc_ext_word1(type, 2 + n, arg);
		r[2] = a;
		r[3] = b;
		r[4] = c;
		r[5] = d;
		thread_commit(t, 2 + n);
	}
	thread_guard_leave(t);
}

/* omp_rec_at() now. */
static inline void omp_rec(enum psc_rec_type type, uint32_t arg, unsigned n, uint64_t a, uint64_t b,
			   uint64_t c, uint64_t d)
{
	omp_rec_at(0, type, arg, n, a, b, c, d);
}

/* The wait records around a blocking call: SYNC_ENTER of KIND at SITE on OBJECT, SYNC_LEAVE. */
static inline void omp_wait_enter(enum psc_omp_sync kind, uint64_t site, uint64_t object)
{
	omp_rec(PSC_REC_OMP_SYNC_ENTER, kind, 2, site, object, 0, 0);
}

static inline void omp_wait_leave(enum psc_omp_sync kind)
{
	omp_rec(PSC_REC_OMP_SYNC_LEAVE, kind, 0, 0, 0, 0, 0);
}

/* Resolve the real libgomp entry points (dlsym RTLD_NEXT): at load, and again from a wrapper
 * that finds its pointer NULL (libgomp dlopen'ed later), which with LOAD also loads libgomp
 * when the process has none (the linker dropped it: libperfscope.so defined every symbol the
 * program wanted from it). Cold, may allocate (dlsym, dlopen). */
void gomp_resolve(int load);

#endif /* PSC_OMP_RT_H */
