/* stat-threads-prog.c - for test_stat_per_thread.sh: threads named walk-N touch N fresh pages
 * each (N from the arguments), thread "idle" runs the same walk over none, and a child
 * process's thread "child-500" touches 500. All threads exist before any walks (a barrier), so
 * no thread reuses another's stack. Exits with status 3. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXT 16

struct job {
	long pages;
	char name[16];
};

static pthread_barrier_t start;
static long page;

static void walk(long n)
{
	size_t len = (size_t)(n + 1) * (size_t)page;
	volatile char *p =
	    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, len);
}

static void *run(void *arg)
{
	struct job *j = arg;

	pthread_setname_np(pthread_self(), j->name);
	pthread_barrier_wait(&start);
	walk(j->pages);
	return NULL;
}

/* a thread per job, all created before any walks */
static void threads(struct job *jobs, int n)
{
	pthread_t t[MAXT];

	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, &jobs[i]))
			exit(1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
}

int main(int argc, char **argv)
{
	struct job jobs[MAXT] = {{0, "idle"}}, child[1] = {{500, "child-500"}};
	int n = 1, st;
	pid_t pid;

	page = sysconf(_SC_PAGESIZE);
	walk(1); /* the walk's code and libc's pages mapped before the threads race for them */
	for (int i = 1; i < argc && n < MAXT; i++, n++) {
		jobs[n].pages = atol(argv[i]);
		snprintf(jobs[n].name, sizeof(jobs[n].name), "walk-%ld", jobs[n].pages);
	}
	pid = fork();
	if (pid == 0) {
		threads(child, 1);
		_exit(0);
	}
	threads(jobs, n);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return 3;
}
