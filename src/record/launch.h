/*
 * launch.h - running the measured command: fork, hold the child before exec so that
 * counters can be attached to it, then release it and wait.
 */
#ifndef PSC_LAUNCH_H
#define PSC_LAUNCH_H

#include <sys/resource.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd;  /* writing a byte releases the child into exec */
	int err_fd; /* the child writes exec's errno here; EOF means exec succeeded */
	int signal; /* launch_wait: the signal that ended the child, 0 when it exited */
};

/* Fork a child that will exec ARGV (PATH search) once released. 0 or a negative errno. */
int launch_prepare(struct launch *l, char *const argv[]);

/* Release the child. 0 when exec succeeded, else the negative errno of exec (the child has
 * exited with 127 or 126 then). */
int launch_go(struct launch *l);

/* launch_go() in two halves, for a launcher that must serve the child (a ptrace tracer)
 * while it execs: release it, then, once it cannot need the launcher any more, learn the
 * exec's outcome (as launch_go returns it; the result waits in a pipe until read). */
void launch_release(struct launch *l);
int launch_exec_result(struct launch *l);

/* Give up before releasing the child: it exits without running anything; reaped here. */
void launch_abort(struct launch *l);

/* Wait for the child; *STATUS gets the shell convention: exit code, or 128 + signal (the
 * signal also in L->signal, which tells it from an exit code above 128). RU (may be NULL) gets
 * the child's resource usage. 0 or a negative errno. */
int launch_wait(struct launch *l, int *status, struct rusage *ru);

/* Exit status for a failed exec: 127 not found, 126 found but not executable. */
int launch_exec_status(int err);

#endif /* PSC_LAUNCH_H */
