/*
 * fork-busy-loader-prog.c - forks N children while another thread keeps the dynamic loader's
 * lock held (dl_iterate_phdr with a callback that sleeps), as a thread that unwinds an
 * exception or looks up symbols does. A child inherits the lock held by a thread it does not
 * have: a fork handler that takes it never returns. Each child calls child_work() and exits;
 * the parent waits for each one at most 5 s, then prints how many returned and how many were
 * stuck (and kills those). Built with -finstrument-functions.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static int hold_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct timespec ms = {0, 1000000};

	(void)info;
	(void)size;
	(void)arg;
	nanosleep(&ms, NULL);
	return 1;
}

static void *holder(void *arg)
{
	while (!stop)
		dl_iterate_phdr(hold_cb, NULL);
	return arg;
}

__attribute__((noinline)) void child_work(void)
{
	static volatile int sink;

	sink++;
}

/* Wait for PID at most 5 s: 1 when it exited 0, else 0 (killed when still running). */
static int wait_child(pid_t pid)
{
	int st;

	for (int i = 0; i < 5000; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, ok = 0;
	pthread_t t;
	struct timespec ms = {0, 2000000};

	pthread_create(&t, NULL, holder, NULL);
	for (int i = 0; i < n; i++) {
		pid_t pid;

		nanosleep(&ms, NULL);
		pid = fork();
		if (pid == 0) {
			child_work();
			_exit(0);
		}
		if (pid > 0)
			ok += wait_child(pid);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("children: %d returned, %d stuck\n", ok, n - ok);
	return 0;
}
