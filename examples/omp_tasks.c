/*
 * omp_tasks.c - OpenMP explicit tasks with known counts, in two regions: in the first, one
 * thread of the team creates N tasks (`omp single`, `omp task`) and waits for them all (`omp
 * taskwait`); in the second, the master thread creates N tasks and waits for none, so that
 * the team runs them in the region's closing barrier. Task i costs a little more than task
 * i - 1, so the threads finish apart.
 *
 * It prints what it did, counted by the tasks themselves:
 *   tasks 2N ran R threads T
 * R equals 2N unless a task was lost. Usage: omp_tasks [N] (default 200).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink[64];

/* Task I's work. */
static double task_work(int i)
{
	double x = 0;

	for (int k = 0; k < 2000 * (i + 1); k++)
		x += (double)k * 0.25;
	return x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, threads = 1;
	long ran = 0;

	if (n < 0 || n > 100000) {
		fprintf(stderr, "usage: omp_tasks [N] (0 to 100000 tasks)\n");
		return 2;
	}
#pragma omp parallel
	{
#pragma omp single
		{
			threads = omp_get_num_threads();
			for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i)
				{
					sink[omp_get_thread_num() % 64] = task_work(i);
					__atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
				}
			}
#pragma omp taskwait
		}
	}
#pragma omp parallel
	{
#pragma omp master
		for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i)
			{
				sink[omp_get_thread_num() % 64] = task_work(i);
				__atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
			}
		}
	}
	printf("tasks %d ran %ld threads %d\n", 2 * n, ran, threads);
	return 0;
}
