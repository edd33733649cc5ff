/* fuzz-one-cpu.h - keep a fuzz target on one CPU.
 *
 * The stream reader prefetches the next chunk in a thread when the process may run on two
 * CPUs or more (stream-chunk.c). Under libFuzzer that would create and join a thread for
 * every multi-chunk input, which is slower and less deterministic with -fork/-jobs; the
 * prefetch thread has its own test (tests/unit/test_stream_prefetch.c). Pinning the target
 * to the CPU it starts on turns the read-ahead off in every reader the analyses open. */
#ifndef PSC_FUZZ_ONE_CPU_H
#define PSC_FUZZ_ONE_CPU_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

/* Pin the calling process to the CPU it runs on now. Where that is refused (a cpuset or
 * seccomp policy) the read-ahead simply stays on: it is an optimisation, not a requirement. */
static inline void fuzz_one_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

#endif /* PSC_FUZZ_ONE_CPU_H */
