/*
 * omp-rt.c - the state of OpenMP recording in libperfscope.so: the process's switch and ids,
 * each thread's worksharing state, the chunk-full path of omp_rec(), and the real libgomp
 * entry points found behind the wrappers once, at load (dlsym may allocate: never on the
 * hot path).
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

__thread struct omp_rt_thread psc_omp_tls __attribute__((tls_model("initial-exec")));
struct omp_rt psc_omp;
struct gomp_real psc_gomp;

__attribute__((noinline, cold)) uint64_t *omp_reserve_slow(struct psc_thread *t, size_t words)
{
	int saved_errno = errno;
	uint64_t *r = thread_reserve(t, words);

	errno = saved_errno;
	return r;
}

/* The definition of NAME in FROM (RTLD_NEXT: the next after libperfscope.so's), into *P (a
 * function pointer). */
#define RESOLVE(p, name) (*(void **)&(p) = dlsym(from, name))

#define RESOLVE_LOOP(s, kind)                                                                      \
	RESOLVE(psc_gomp.loop_##s##_start, "GOMP_loop_" #s "_start");                              \
	RESOLVE(psc_gomp.loop_##s##_next, "GOMP_loop_" #s "_next");                                \
	RESOLVE(psc_gomp.loop_ull_##s##_start, "GOMP_loop_ull_" #s "_start");                      \
	RESOLVE(psc_gomp.loop_ull_##s##_next, "GOMP_loop_ull_" #s "_next");
#define RESOLVE_LOOP_RUNTIME(s) RESOLVE_LOOP(s, 0)
#define RESOLVE_PARALLEL_LOOP(s, kind)                                                             \
	RESOLVE(psc_gomp.parallel_loop_##s, "GOMP_parallel_loop_" #s);
#define RESOLVE_PARALLEL_LOOP_RUNTIME(s) RESOLVE_PARALLEL_LOOP(s, 0)

/* Every entry point from FROM. */
static void gomp_resolve_from(void *from)
{
	RESOLVE(psc_gomp.parallel, "GOMP_parallel");
	RESOLVE(psc_gomp.parallel_reductions, "GOMP_parallel_reductions");
	RESOLVE(psc_gomp.parallel_start, "GOMP_parallel_start");
	RESOLVE(psc_gomp.parallel_end, "GOMP_parallel_end");
	RESOLVE(psc_gomp.parallel_sections, "GOMP_parallel_sections");
	GOMP_PARALLEL_LOOP_SCHEDS(RESOLVE_PARALLEL_LOOP)
	GOMP_PARALLEL_LOOP_RUNTIME_SCHEDS(RESOLVE_PARALLEL_LOOP_RUNTIME)
	GOMP_LOOP_SCHEDS(RESOLVE_LOOP)
	GOMP_LOOP_RUNTIME_SCHEDS(RESOLVE_LOOP_RUNTIME)
	RESOLVE(psc_gomp.loop_start, "GOMP_loop_start");
	RESOLVE(psc_gomp.loop_ull_start, "GOMP_loop_ull_start");
	RESOLVE(psc_gomp.loop_end, "GOMP_loop_end");
	RESOLVE(psc_gomp.loop_end_cancel, "GOMP_loop_end_cancel");
	RESOLVE(psc_gomp.loop_end_nowait, "GOMP_loop_end_nowait");
	RESOLVE(psc_gomp.sections_start, "GOMP_sections_start");
	RESOLVE(psc_gomp.sections2_start, "GOMP_sections2_start");
	RESOLVE(psc_gomp.sections_next, "GOMP_sections_next");
	RESOLVE(psc_gomp.sections_end, "GOMP_sections_end");
	RESOLVE(psc_gomp.sections_end_cancel, "GOMP_sections_end_cancel");
	RESOLVE(psc_gomp.sections_end_nowait, "GOMP_sections_end_nowait");
	RESOLVE(psc_gomp.single_start, "GOMP_single_start");
	RESOLVE(psc_gomp.barrier, "GOMP_barrier");
	RESOLVE(psc_gomp.barrier_cancel, "GOMP_barrier_cancel");
	RESOLVE(psc_gomp.critical_start, "GOMP_critical_start");
	RESOLVE(psc_gomp.critical_name_start, "GOMP_critical_name_start");
	RESOLVE(psc_gomp.ordered_start, "GOMP_ordered_start");
	RESOLVE(psc_gomp.taskwait, "GOMP_taskwait");
	RESOLVE(psc_gomp.taskgroup_end, "GOMP_taskgroup_end");
	RESOLVE(psc_gomp.task, "GOMP_task");
	RESOLVE(psc_gomp.set_lock, "omp_set_lock");
	RESOLVE(psc_gomp.set_nest_lock, "omp_set_nest_lock");
	RESOLVE(psc_gomp.get_thread_num, "omp_get_thread_num");
	RESOLVE(psc_gomp.get_num_threads, "omp_get_num_threads");
	RESOLVE(psc_gomp.get_level, "omp_get_level");
}

void gomp_resolve(int load)
{
	int saved_errno = errno;
	void *gomp;

	gomp_resolve_from(RTLD_NEXT);
	/*
	 * A program linked with -lperfscope before libgomp whose every libgomp symbol
	 * libperfscope.so defines (a lone `omp parallel`) has no libgomp: the linker's
	 * --as-needed dropped it. Its first call of a wrapper loads it.
	 */
	if (load && !psc_gomp.parallel && (gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL)))
		gomp_resolve_from(gomp);
	errno = saved_errno;
}

/* dl_iterate_phdr's callback: stop (1) at an OpenMP runtime, libgomp's entry points being
 * libomp's and libiomp5's too. */
static int omp_runtime_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size, (void)ctx;
	name = name ? name + 1 : info->dlpi_name ? info->dlpi_name : "";
	return !strncmp(name, "libgomp.", 8) || !strncmp(name, "libomp.", 7) ||
	       !strncmp(name, "libiomp5.", 9);
}

/*
 * PERFSCOPE_OPENMP=0 turns the records off; the real entry points are wanted either way, but
 * only looked up when an OpenMP runtime is loaded: a dlsym that finds nothing allocates its
 * error message with malloc, which may be the program's (a program without OpenMP would pay
 * one call of its allocator per entry point). A runtime loaded later is looked up by the
 * first wrapper called.
 */
__attribute__((constructor)) static void omp_rt_init(void)
{
	const char *v = getenv(PSC_ENV_OPENMP);

	psc_omp.off = v && !strcmp(v, "0");
	if (dl_iterate_phdr(omp_runtime_object, NULL))
		gomp_resolve(0);
}
