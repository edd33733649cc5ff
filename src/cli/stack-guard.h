/*
 * stack-guard.h - the main thread's stack grown at start, and a refused growth said as out of
 * memory.
 *
 * Under an address-space limit (ulimit -v, a batch system's memory cap) the kernel answers a
 * stack that cannot grow with SIGSEGV: no allocation check sees it. Deep library calls take
 * large frames at once (libdw reads a line table with ~200 KiB of stack), so a run that was
 * short of memory crashed where it should have said so. The guard grows the stack once, before
 * any output exists; past that reserve, a refused growth is answered by a handler on a stack
 * of its own: one line on stderr, the caller's cleanup, exit status 1.
 */
#ifndef PSC_CLI_STACK_GUARD_H
#define PSC_CLI_STACK_GUARD_H

/*
 * Grow the calling (main) thread's stack by the reserve and install the SIGSEGV handler. CMD
 * names the command in the message ("perfscope CMD: out of memory: ..."); CLEANUP, which may
 * be NULL, runs in the handler before it exits, so it must be async-signal-safe (unlink the
 * temporary outputs). A SIGSEGV that is not a refused stack growth (a bug, a stack overflow
 * past the stack limit) goes to the handler that was there before, or ends the process as
 * usual. Call it from main, before anything is written.
 */
void stack_guard_install(const char *cmd, void (*cleanup)(void));

#endif /* PSC_CLI_STACK_GUARD_H */
