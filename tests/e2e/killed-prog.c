/*
 * killed-prog.c - programs that end without closing their streams. Modes:
 *   kill N        N calls of f, then SIGKILL to itself
 *   daemon K M    K calls of f, then daemon(): the parent leaves through _exit, the child makes
 *                 M calls of g and exits normally (creating the file named by $DAEMON_DONE last)
 *   progress FILE loop calling f, counting the calls completed in FILE (a shared mapping), so
 *                 that whoever kills it knows how many calls returned before the kill
 * Built with -finstrument-functions.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void f(int x)
{
	sink += x;
}

__attribute__((noinline)) void g(int x)
{
	sink -= x;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "kill") && argc > 2) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++)
			f(i);
		printf("%d calls of f\n", n);
		fflush(stdout);
		kill(getpid(), SIGKILL);
	} else if (!strcmp(mode, "daemon") && argc > 3) {
		int k = atoi(argv[2]), m = atoi(argv[3]);
		const char *done = getenv("DAEMON_DONE");

		for (int i = 0; i < k; i++)
			f(i);
		if (daemon(1, 1) < 0)
			return 1;
		for (int i = 0; i < m; i++)
			g(i);
		if (done)
			close(open(done, O_WRONLY | O_CREAT, 0644));
		return 0;
	} else if (!strcmp(mode, "progress") && argc > 2) {
		int fd = open(argv[2], O_RDWR | O_CREAT, 0644);
		volatile uint64_t *done;

		if (fd < 0 || ftruncate(fd, 4096) < 0)
			return 1;
		done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (done == MAP_FAILED)
			return 1;
		for (uint64_t i = 0;; i++) {
			f((int)i);
			*done = i + 1;
		}
	}
	fprintf(stderr, "usage: killed-prog kill N | daemon K M | progress FILE\n");
	return 2;
}
