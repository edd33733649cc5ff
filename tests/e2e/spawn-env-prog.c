/*
 * spawn-env-prog.c - a program that starts copies of itself with environments of their own:
 * one with posix_spawn and an environment of one variable, one with fork and execve and an
 * empty environment, one with posix_spawn and PERFSCOPE_OUT set empty (which must keep it out
 * of the experiment). Each child calls g() N times; the parent calls f() once per child.
 * Built with -finstrument-functions.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void f(void)
{
	sink++;
}

__attribute__((noinline)) void g(void)
{
	sink--;
}

static int wait_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *one[] = {"SPAWN_ENV_PROG=1", NULL}, *none[] = {NULL};
	char *out[] = {"PERFSCOPE_OUT=", NULL};
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "child")) {
		for (int i = 0, n = atoi(argv[2]); i < n; i++)
			g();
		return 0;
	}
	if (len <= 0)
		return 1;
	self[len] = 0;
	char *args[] = {self, "child", "5", NULL}, *args7[] = {self, "child", "7", NULL};
	char *args11[] = {self, "child", "11", NULL};

	f();
	if (posix_spawn(&pid, self, NULL, NULL, args, one) || !wait_ok(pid))
		return 1;
	f();
	pid = fork();
	if (pid == 0) {
		execve(self, args7, none);
		_exit(127);
	}
	if (pid < 0 || !wait_ok(pid))
		return 1;
	f();
	if (posix_spawn(&pid, self, NULL, NULL, args11, out) || !wait_ok(pid))
		return 1;
	printf("children: g 5 (posix_spawn), g 7 (execve), g 11 (kept out)\n");
	return 0;
}
