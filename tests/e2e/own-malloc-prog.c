/*
 * own-malloc-prog.c - a program that defines malloc, calloc, realloc and free itself (a bump
 * allocator over a static arena) and write(), and is built with -finstrument-functions, so
 * that every allocation and write, also those that the C library and the runtime make for it,
 * enters the hooks. Four threads call malloc 100 times each. It counts the calls of malloc
 * made before main (by the C library and whatever is preloaded) and those made inside fork()
 * (by fork handlers), and prints both: the runtime must add none.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char arena[64 << 20];
static size_t used;
static unsigned long calls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *malloc(size_t size)
{
	void *p = NULL;

	pthread_mutex_lock(&lock);
	calls++;
	size = (size + 15) & ~(size_t)15;
	if (used + size + 16 <= sizeof(arena)) {
		*(size_t *)(arena + used) = size;
		p = arena + used + 16;
		used += size + 16;
	}
	pthread_mutex_unlock(&lock);
	return p;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	void *p = malloc(n * size);

	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *old, size_t size)
{
	void *p = malloc(size);

	if (p && old) {
		size_t had = *(size_t *)((char *)old - 16);

		memcpy(p, old, had < size ? had : size);
	}
	return p;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	return syscall(SYS_write, fd, buf, len);
}

static void *volatile sink;

static void *worker(void *arg)
{
	for (int i = 0; i < 100; i++)
		sink = malloc(32 + i);
	return arg;
}

int main(void)
{
	unsigned long before_main = calls, at_fork;
	pthread_t t[4];
	pid_t pid;
	int st;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("workers: 400 malloc calls\n");
	printf("malloc calls before main: %lu\n", before_main);
	fflush(stdout);
	at_fork = calls;
	pid = fork();
	if (pid == 0) {
		printf("malloc calls in fork: %lu\n", calls - at_fork);
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return 0;
}
