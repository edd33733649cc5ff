/* test_stack_guard.c - a refused stack growth is said as out of memory; other faults are not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/stack-guard.h"
#include "tmpdir.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static char marker[PATH_MAX + 16];

/* The guard's cleanup: removes the marker file (async-signal-safe). */
static void remove_marker(void)
{
	unlink(marker);
}

/* Recurse with 64 KiB frames, each touched, DEPTH times. */
static __attribute__((noinline)) int deep(int depth)
{
	volatile char frame[64 * 1024];

	for (size_t i = 0; i < sizeof(frame); i += 4096)
		frame[i] = (char)depth;
	return depth ? deep(depth - 1) + frame[0] : frame[0];
}

/* VmSize of this process, in bytes. */
static uint64_t vm_size(void)
{
	char line[256];
	uint64_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

enum what { OOM, BAD_ACCESS, CHAINED, OVERFLOW };

/* A SIGSEGV handler the program had before the guard: says so and exits 3. */
static void handler_before(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (write(STDERR_FILENO, "before\n", 7) < 0)
		_exit(4);
	_exit(3);
}

/* Run WHAT in a child with the guard installed; its wait status, stderr into ERR. */
static int child(enum what what, char *err, size_t errlen)
{
	int pfd[2], status;
	size_t got = 0;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {4 << 20, 4 << 20};

		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		if (what == OVERFLOW)
			setrlimit(RLIMIT_STACK, &rl);
		/* not cmocka's handler: the one a program has, or one of its own */
		if (what == CHAINED) {
			struct sigaction sa = {.sa_sigaction = handler_before,
					       .sa_flags = SA_SIGINFO};

			sigaction(SIGSEGV, &sa, NULL);
		} else {
			signal(SIGSEGV, SIG_DFL);
		}
		stack_guard_install("test", remove_marker);
		if (what == OOM) {
			rl.rlim_cur = rl.rlim_max = vm_size() + (256 << 10);
			setrlimit(RLIMIT_AS, &rl);
			deep(100);
		} else if (what == BAD_ACCESS || what == CHAINED) {
			volatile char *page =
			    mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			*page = 1;
		} else {
			deep(1000);
		}
		_exit(0);
	}
	close(pfd[1]);
	while (got + 1 < errlen && (n = read(pfd[0], err + got, errlen - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = 0;
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_refused_growth_is_out_of_memory(void **state)
{
	char err[4096], dir[PATH_MAX];
	int status, fd;

	(void)state;
	if (UNDER_ASAN)
		skip(); /* the sanitizer reserves terabytes: no address-space limit can be set */
	assert_int_equal(tmpdir_make(dir, sizeof(dir), "stack-guard"), 0);
	snprintf(marker, sizeof(marker), "%s/marker", dir);
	fd = open(marker, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	status = child(OOM, err, sizeof(err));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_string_equal(err, "perfscope test: out of memory: the stack could not grow (raise "
				 "the address-space limit, ulimit -v)\n");
	assert_int_equal(access(marker, F_OK), -1); /* the cleanup ran */
	assert_int_equal(tmpdir_remove(dir), 0);
}

static void test_bad_access_still_crashes(void **state)
{
	char err[4096];
	int status = child(BAD_ACCESS, err, sizeof(err));

	(void)state;
	assert_string_equal(err, "");
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static void test_fault_goes_to_the_handler_before(void **state)
{
	char err[4096];
	int status = child(CHAINED, err, sizeof(err));

	(void)state;
	assert_string_equal(err, "before\n");
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

static void test_overflow_past_the_limit_is_not_memory(void **state)
{
	char err[4096];
	int status = child(OVERFLOW, err, sizeof(err));

	(void)state;
	assert_string_equal(err, "");
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refused_growth_is_out_of_memory),
	    cmocka_unit_test(test_bad_access_still_crashes),
	    cmocka_unit_test(test_fault_goes_to_the_handler_before),
	    cmocka_unit_test(test_overflow_past_the_limit_is_not_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
