/*
 * main-exit-prog.c - main starts a thread and leaves through pthread_exit; the process ends,
 * with status 0, when that thread has ended (after 200 ms, so that main is gone first). Built
 * with -finstrument-functions.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) void work(void)
{
	const struct timespec pause = {0, 200 * 1000 * 1000};

	nanosleep(&pause, NULL);
	printf("worker done\n");
}

static void *worker(void *arg)
{
	work();
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_exit(NULL);
}
