/*
 * calls.c - functions called a number of times known in advance, in three threads.
 *
 * Built with -finstrument-functions and run under `perfscope record --functions`, a report
 * must show exactly these calls (the end-to-end test tests/e2e/test_trace_counts.sh checks
 * them):
 *
 *   function  calls  thread                         called by
 *   main          1  main thread                    the C library
 *   leaf       1000  main thread                    main (a loop of 1000)
 *   rec          11  main thread                    main (rec(10): 10, 9, ..., 0), itself
 *   worker        2  one in each of 2 new threads   the C library (pthread start routine)
 *   work       1000  500 in each worker thread      worker (a loop of 500)
 *
 * No other function of the program is instrumented. The main thread also sleeps for
 * 100 ms inside main (nanosleep, not traced) so that main's inclusive time is almost all of
 * the main thread's traced time. The output is fixed: the same three lines in every run.
 *
 * Build: cc -O2 -g -finstrument-functions examples/calls.c -o calls -pthread
 * Run:   perfscope record --functions -o calls.out -- ./calls && perfscope report calls.out
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define LEAF_CALLS	1000
#define REC_DEPTH	10
#define WORKERS		2
#define WORK_PER_THREAD 500
#define SLEEP_NS	100000000L

/* noipa: never inlined, cloned or specialised, so that each call is one traced call */
__attribute__((noipa)) static unsigned long leaf(unsigned long x)
{
	return x * 2654435761UL + 1;
}

__attribute__((noipa)) static unsigned long rec(unsigned n)
{
	unsigned long r;

	if (n == 0)
		return 1;
	r = rec(n - 1) + n;
	__asm__ volatile("" : "+r"(r)); /* no tail recursion, even uninstrumented */
	return r;
}

__attribute__((noipa)) static unsigned long work(unsigned long x)
{
	return (x ^ (x >> 7)) * 31 + 7;
}

__attribute__((noipa)) static void *worker(void *arg)
{
	unsigned long *acc = arg;
	unsigned long x = *acc;

	for (int i = 0; i < WORK_PER_THREAD; i++)
		x = work(x);
	*acc = x;
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	unsigned long acc[WORKERS];
	unsigned long x = 1, sum = 0;
	struct timespec pause = {0, SLEEP_NS};
	int started = 0;

	for (int i = 0; i < LEAF_CALLS; i++)
		x = leaf(x);
	sum = rec(REC_DEPTH);
	for (int i = 0; i < WORKERS; i++) {
		acc[i] = (unsigned long)i + 1;
		if (pthread_create(&th[i], NULL, worker, &acc[i]) != 0) {
			fprintf(stderr, "calls: cannot create thread %d\n", i);
			break;
		}
		started++;
	}
	while (nanosleep(&pause, &pause) != 0)
		;
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		x ^= acc[i];
	}
	if (started != WORKERS)
		return 1;
	printf("leaf: %d calls, rec: %d calls, work: %d calls in %d threads\n", LEAF_CALLS,
	       REC_DEPTH + 1, WORKERS * WORK_PER_THREAD, WORKERS);
	printf("rec(%d) = %lu\n", REC_DEPTH, sum);
	printf("checksum: %lu\n", x);
	return 0;
}
