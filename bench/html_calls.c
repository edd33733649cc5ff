/*
 * html_calls.c - the traced program of bench/run_html.sh: a trace of a known number of events
 * made fast. THREADS threads (-t, default 2) each call outer() OUTER times (-o, default
 * 1000), each outer() calls wrap() nested LEVELS deep (-l, default 0), and the innermost
 * calls tiny() so that the run makes CALLS tiny calls in all (-c, default 5*10^7):
 * 2 * CALLS + 2 * (THREADS * (OUTER * (LEVELS + 1) + 1) + 1) function events.
 *
 * Build: cc -O2 -finstrument-functions bench/html_calls.c -o html_calls -pthread
 * Run:   perfscope record --functions -o out -- ./html_calls && perfscope html out
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long calls_per_outer = 25000, outer_per_thread = 1000, levels;

/* noipa: each call stays one traced call */
__attribute__((noipa)) static unsigned long tiny(unsigned long x)
{
	return x * 2654435761UL + 1;
}

__attribute__((noipa)) static unsigned long wrap(unsigned long x, long level)
{
	if (level > 0)
		return wrap(x, level - 1);
	for (long i = 0; i < calls_per_outer; i++)
		x = tiny(x);
	return x;
}

__attribute__((noipa)) static unsigned long outer(unsigned long x)
{
	if (levels)
		return wrap(x, levels - 1);
	for (long i = 0; i < calls_per_outer; i++)
		x = tiny(x);
	return x;
}

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg;

	for (long i = 0; i < outer_per_thread; i++)
		x = outer(x);
	return (void *)(size_t)x;
}

int main(int argc, char **argv)
{
	long calls = 50000000, threads = 2;
	pthread_t th[64];
	int c;

	while ((c = getopt(argc, argv, "c:t:o:l:")) != -1) {
		if (c == 'c')
			calls = atol(optarg);
		else if (c == 't')
			threads = atol(optarg);
		else if (c == 'o')
			outer_per_thread = atol(optarg);
		else if (c == 'l')
			levels = atol(optarg);
		else
			return 2;
	}
	if (threads < 1 || threads > 64 || outer_per_thread < 1 || calls < 1 || levels < 0) {
		fprintf(stderr, "usage: html_calls [-c CALLS] [-t THREADS (1-64)] [-o OUTER] "
				"[-l LEVELS]\n");
		return 2;
	}
	calls_per_outer = calls / (threads * outer_per_thread);
	for (long i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(size_t)i);
	for (long i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("tiny calls: %ld\n", calls_per_outer * outer_per_thread * threads);
	return 0;
}
