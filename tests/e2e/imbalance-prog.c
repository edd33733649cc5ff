/* imbalance-prog.c - threads that spend known, different times in work(): thread k of N
 * spins (k + 1) * UNIT ms in it, main never calls it. Each thread measures its own time in
 * work() and the program prints them ("work_ns TID NS"), the truth the load imbalance that
 * perfscope reports is checked against. Built with -finstrument-functions by the test. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long unit_ms = 20;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void work(long ms)
{
	long long end = now_ns() + ms * 1000000LL;

	while (now_ns() < end)
		;
}

static void *thread_main(void *arg)
{
	long k = (long)arg;
	long long t0 = now_ns();

	work((k + 1) * unit_ms);
	printf("work_ns %ld %lld\n", k, now_ns() - t0);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[16];

	if (argc > 2)
		unit_ms = atol(argv[2]);
	if (n < 1 || n > 16)
		return 2;
	for (long k = 0; k < n; k++)
		pthread_create(&t[k], NULL, thread_main, (void *)k);
	for (int k = 0; k < n; k++)
		pthread_join(t[k], NULL);
	return 0;
}
