/* stack-guard.c - the stack grown at start; a refused growth said as out of memory. */
#include "cli/stack-guard.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* What perfscope's deepest paths take (libdw's line tables, the printers' recursion), twice. */
#define STACK_RESERVE (1024 * 1024)

/* The guard's state: set once by stack_guard_install, read by the handler (static: a signal
 * handler reaches nothing else). */
static struct {
	uintptr_t top;	 /* an address near the stack's top (main's frame) */
	uintptr_t limit; /* RLIMIT_STACK: growth below top - limit is an overflow, not memory */
	const char *cmd;
	void (*cleanup)(void);
	struct sigaction before;
	char altstack[64 * 1024];
} guard;

/* Touch every page of STACK_RESERVE bytes below the caller, so that the kernel maps them now. */
static __attribute__((noinline)) void stack_grow(void)
{
	volatile char pad[STACK_RESERVE];

	for (size_t i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 0;
	pad[sizeof(pad) - 1] = 0;
}

static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	uintptr_t addr = (uintptr_t)si->si_addr;

	/* an address in the stack's range, short of its limit: the kernel refused to grow it */
	if (addr < guard.top && guard.top - addr + 64 * 1024 < guard.limit) {
		say("perfscope ");
		say(guard.cmd);
		say(": out of memory: the stack could not grow (raise the address-space limit, "
		    "ulimit -v)\n");
		if (guard.cleanup)
			guard.cleanup();
		_exit(1);
	}
	sigaction(SIGSEGV, &guard.before, NULL);
	if (guard.before.sa_flags & SA_SIGINFO && guard.before.sa_sigaction)
		guard.before.sa_sigaction(sig, si, uc);
	/* else returning faults again, under the handler that was there before */
}

void stack_guard_install(const char *cmd, void (*cleanup)(void))
{
	stack_t ss = {.ss_sp = guard.altstack, .ss_size = sizeof(guard.altstack)};
	struct sigaction sa;
	struct rlimit rl;

	guard.top = (uintptr_t)__builtin_frame_address(0);
	guard.limit = 8 * 1024 * 1024;
	if (getrlimit(RLIMIT_STACK, &rl) == 0)
		guard.limit = rl.rlim_cur == RLIM_INFINITY ? (uintptr_t)1 << 30 : rl.rlim_cur;
	guard.cmd = cmd;
	guard.cleanup = cleanup;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL) == 0)
		sigaction(SIGSEGV, &sa, &guard.before);
	if (guard.limit > 2 * STACK_RESERVE)
		stack_grow();
}
