/*
 * bare_hook.c - the hardware floor of a function tracer, for bench/run_trace.sh.
 *
 * A shared library, preloaded into a program built with -finstrument-functions
 * (LD_PRELOAD=libbare_hook.so ./fib 34), whose __cyg_profile_func_enter/_exit do nothing but
 * what any tracer of this kind must do: read the TSC and store one 16-byte record
 * (ticks << 2 | kind, function address), the record layout of perfscope's streams, into a
 * per-thread array. The array (64 MiB, 4 Mi records) is mapped with MAP_POPULATE (no page
 * faults in the hooks) on the thread's first call and written round and round: nothing is ever
 * written to a file, so this is the cost of the hooks alone, without any I/O, buffer hand-off or
 * bounds handling.
 *
 * With BARE_HOOK_REPORT set in the environment, the number of records the main thread wrote
 * is printed to stderr at exit (to check that the hooks really ran).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define BARE_RECORDS (4UL << 20) /* 16-byte records: 64 MiB per thread */
#define BARE_MASK    (BARE_RECORDS - 1)

struct bare_rec {
	uint64_t word0; /* ticks << 2 | kind (0 enter, 1 exit) */
	uint64_t fn;
};

struct bare_thread {
	struct bare_rec *buf;
	uint64_t n; /* records written; the next goes to buf[n & BARE_MASK] */
};

#define NOINSTR __attribute__((no_instrument_function))
#define EXPORT	__attribute__((visibility("default")))

static __thread struct bare_thread bare_tls __attribute__((tls_model("initial-exec")));

NOINSTR __attribute__((noinline, cold)) static struct bare_rec *bare_alloc(void)
{
	void *p = mmap(NULL, BARE_RECORDS * sizeof(struct bare_rec), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		static const char msg[] = "bare_hook: cannot map the 64 MiB record array\n";

		fwrite(msg, 1, sizeof(msg) - 1, stderr);
		abort();
	}
	bare_tls.buf = p;
	return p;
}

NOINSTR static inline void bare_put(uint64_t kind, void *fn)
{
	struct bare_rec *b = bare_tls.buf;
	uint64_t i;

	if (__builtin_expect(b == NULL, 0))
		b = bare_alloc();
	i = bare_tls.n++ & BARE_MASK;
	b[i].word0 = __rdtsc() << 2 | kind;
	b[i].fn = (uint64_t)(uintptr_t)fn;
}

NOINSTR EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	bare_put(0, fn);
}

NOINSTR EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	bare_put(1, fn);
}

NOINSTR __attribute__((destructor)) static void bare_report(void)
{
	if (getenv("BARE_HOOK_REPORT"))
		fprintf(stderr, "bare_hook: %llu records in the main thread\n",
			(unsigned long long)bare_tls.n);
}
