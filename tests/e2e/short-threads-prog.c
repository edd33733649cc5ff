/*
 * short-threads-prog.c - N short threads, ALIVE at a time, each calling work() once; prints
 * the program's peak resident memory (getrusage) at the end, for the test to bound.
 * Built with -finstrument-functions.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static volatile int sink;

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 100; i++)
		sink += i;
}

static void *run(void *arg)
{
	work();
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, alive = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t[64];
	struct rusage ru;

	if (alive < 1 || alive > 64)
		return 2;
	for (int i = 0; i < n; i += alive) {
		for (int k = 0; k < alive; k++)
			if (pthread_create(&t[k], NULL, run, NULL))
				return 1;
		for (int k = 0; k < alive; k++)
			pthread_join(t[k], NULL);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("threads %d alive %d maxrss_kib %ld\n", n, alive, ru.ru_maxrss);
	return 0;
}
