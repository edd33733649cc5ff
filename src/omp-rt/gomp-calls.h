/*
 * gomp-calls.h - the libgomp entry points libperfscope.so interposes, with their signatures
 * as libgomp 12 defines them (libgomp_g.h, omp.h), and the real ones found behind ours.
 * Private to src/omp-rt.
 */
#ifndef PSC_GOMP_CALLS_H
#define PSC_GOMP_CALLS_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*gomp_fn)(void *);
typedef unsigned long long gomp_ull;

/* Loops of the long and unsigned long long kinds: start (with a chunk size) and next. */
#define GOMP_LOOP_SCHEDS(X)                                                                        \
	X(static, PSC_OMP_WORK_LOOP_STATIC)                                                        \
	X(dynamic, PSC_OMP_WORK_LOOP_DYNAMIC)                                                      \
	X(guided, PSC_OMP_WORK_LOOP_GUIDED)                                                        \
	X(nonmonotonic_dynamic, PSC_OMP_WORK_LOOP_DYNAMIC)                                         \
	X(nonmonotonic_guided, PSC_OMP_WORK_LOOP_GUIDED)                                           \
	X(ordered_static, PSC_OMP_WORK_LOOP_STATIC)                                                \
	X(ordered_dynamic, PSC_OMP_WORK_LOOP_DYNAMIC)                                              \
	X(ordered_guided, PSC_OMP_WORK_LOOP_GUIDED)

/* Loops whose schedule the runtime chooses: start without a chunk size, and next. */
#define GOMP_LOOP_RUNTIME_SCHEDS(X)                                                                \
	X(runtime)                                                                                 \
	X(nonmonotonic_runtime)                                                                    \
	X(maybe_nonmonotonic_runtime)                                                              \
	X(ordered_runtime)

/* Combined parallel loops: with a chunk size, and the runtime ones without. */
#define GOMP_PARALLEL_LOOP_SCHEDS(X)                                                               \
	X(static, PSC_OMP_WORK_LOOP_STATIC)                                                        \
	X(dynamic, PSC_OMP_WORK_LOOP_DYNAMIC)                                                      \
	X(guided, PSC_OMP_WORK_LOOP_GUIDED)                                                        \
	X(nonmonotonic_dynamic, PSC_OMP_WORK_LOOP_DYNAMIC)                                         \
	X(nonmonotonic_guided, PSC_OMP_WORK_LOOP_GUIDED)

#define GOMP_PARALLEL_LOOP_RUNTIME_SCHEDS(X)                                                       \
	X(runtime)                                                                                 \
	X(nonmonotonic_runtime)                                                                    \
	X(maybe_nonmonotonic_runtime)

#define GOMP_REAL_LOOP(s, kind)                                                                    \
	bool (*loop_##s##_start)(long, long, long, long, long *, long *);                          \
	bool (*loop_##s##_next)(long *, long *);                                                   \
	bool (*loop_ull_##s##_start)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull, gomp_ull *,     \
				     gomp_ull *);                                                  \
	bool (*loop_ull_##s##_next)(gomp_ull *, gomp_ull *);
#define GOMP_REAL_LOOP_RUNTIME(s)                                                                  \
	bool (*loop_##s##_start)(long, long, long, long *, long *);                                \
	bool (*loop_##s##_next)(long *, long *);                                                   \
	bool (*loop_ull_##s##_start)(bool, gomp_ull, gomp_ull, gomp_ull, gomp_ull *, gomp_ull *);  \
	bool (*loop_ull_##s##_next)(gomp_ull *, gomp_ull *);
#define GOMP_REAL_PARALLEL_LOOP(s, kind)                                                           \
	void (*parallel_loop_##s)(gomp_fn, void *, unsigned, long, long, long, long, unsigned);
#define GOMP_REAL_PARALLEL_LOOP_RUNTIME(s)                                                         \
	void (*parallel_loop_##s)(gomp_fn, void *, unsigned, long, long, long, unsigned);

/* The real entry points (NULL: not found). */
struct gomp_real {
	void (*parallel)(gomp_fn, void *, unsigned, unsigned);
	unsigned (*parallel_reductions)(gomp_fn, void *, unsigned, unsigned);
	void (*parallel_start)(gomp_fn, void *, unsigned);
	void (*parallel_end)(void);
	void (*parallel_sections)(gomp_fn, void *, unsigned, unsigned, unsigned);
	GOMP_PARALLEL_LOOP_SCHEDS(GOMP_REAL_PARALLEL_LOOP)
	GOMP_PARALLEL_LOOP_RUNTIME_SCHEDS(GOMP_REAL_PARALLEL_LOOP_RUNTIME)
	GOMP_LOOP_SCHEDS(GOMP_REAL_LOOP)
	GOMP_LOOP_RUNTIME_SCHEDS(GOMP_REAL_LOOP_RUNTIME)
	bool (*loop_start)(long, long, long, long, long, long *, long *, uintptr_t *, void **);
	bool (*loop_ull_start)(bool, gomp_ull, gomp_ull, gomp_ull, long, gomp_ull, gomp_ull *,
			       gomp_ull *, uintptr_t *, void **);
	void (*loop_end)(void);
	bool (*loop_end_cancel)(void);
	void (*loop_end_nowait)(void);
	unsigned (*sections_start)(unsigned);
	unsigned (*sections2_start)(unsigned, uintptr_t *, void **);
	unsigned (*sections_next)(void);
	void (*sections_end)(void);
	bool (*sections_end_cancel)(void);
	void (*sections_end_nowait)(void);
	bool (*single_start)(void);
	void (*barrier)(void);
	bool (*barrier_cancel)(void);
	void (*critical_start)(void);
	void (*critical_name_start)(void **);
	void (*ordered_start)(void);
	void (*taskwait)(void);
	void (*taskgroup_end)(void);
	void (*task)(gomp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **,
		     int, void *);
	void (*set_lock)(void *);
	void (*set_nest_lock)(void *);
	int (*get_thread_num)(void);
	int (*get_num_threads)(void);
	int (*get_level)(void);
};

extern struct gomp_real psc_gomp __attribute__((visibility("hidden")));

/* The real entry point FIELD, resolved now if it was not found at load. */
#define GOMP_REAL(field)                                                                           \
	(likely(psc_gomp.field != NULL) ? psc_gomp.field : (gomp_resolve(1), psc_gomp.field))

/* The return address of the wrapper: the call site in the program. */
#define GOMP_SITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* 1 when the wrapper records: recording is on and libomp's OMPT tool does not do it. */
#define GOMP_RECORDS() (omp_on() && !psc_omp.ompt)

/* The calling thread enters a worksharing construct of KIND at SITE (loops: INCR). */
void gomp_work_begin(unsigned kind, uint64_t site, long incr);

#endif /* PSC_GOMP_CALLS_H */
