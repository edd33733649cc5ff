/*
 * stat-thread.h - `perfscope stat --per-thread`: the counts of every thread of the launched
 * command and of its child processes, each counted on its own.
 *
 * The command runs under ptrace (PTRACE_SEIZE with the clone, fork and vfork options): a
 * thread or process it creates starts stopped, and its own counter group (pid = its tid, not
 * inherited) is opened before it runs its first user instruction. When the kernel reports its
 * end (waitpid), its counts are final: they are read and its descriptors closed. The launched
 * thread's own group is enabled at exec like the inherited totals. What the groups miss is
 * the kernel's work in a new task between its creation and its first stop: the difference
 * between the inherited totals and the sum over threads ("unattributed", docs/cmd-stat.md).
 */
#ifndef PSC_STAT_THREAD_H
#define PSC_STAT_THREAD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "format/stat-result.h"
#include "lib/hashmap.h"
#include "pmu/counters.h"

struct st_thread {
	pid_t pid, tid;
	char name[16];
	struct counter_set set;
	int resumed;	/* its first stop was seen and it runs */
	int done;	/* read and closed */
	int read_error; /* negative errno of the final read, 0 */
	struct count *counts;
	int32_t *status;
};

struct stat_threads {
	const struct event_desc *evs;
	size_t nev;
	pid_t pid; /* the launched command */
	struct st_thread *t;
	size_t n, cap;
	struct u64map by_tid; /* live tid -> index in t */
	int error;	      /* first negative errno of the bookkeeping (memory) */
	int signal;	      /* the signal that ended the command, 0 when it exited */
};

/*
 * Start tracing the launched, not yet released command PID and open its own group of the
 * NEV events EVS, enabled at its exec. 0, or a negative errno: -EPERM when ptrace is refused
 * (another tracer, a seccomp policy, kernel.yama.ptrace_scope = 3).
 */
int stat_threads_attach(struct stat_threads *st, pid_t pid, const struct event_desc *evs,
			size_t nev);

/*
 * Follow the command until the launched process ends: resume every stopped thread (opening
 * the group of a new one first), pass the signals on, read each thread's group when it ends.
 * *STATUS gets the command's status in the shell convention (and ST->signal the signal that
 * ended it, 0 when it exited), RU its resource usage (as launch_wait). 0 or a negative errno.
 */
int stat_threads_wait(struct stat_threads *st, int *status, struct rusage *ru);

/* Move the threads' counts into OUT->threads, the launched thread first, then in order of
 * creation. 0 or -ENOMEM. */
int stat_threads_take(struct stat_threads *st, struct stat_run *out);

/* Free what ST holds (counter groups still open are closed). */
void stat_threads_release(struct stat_threads *st);

#endif /* PSC_STAT_THREAD_H */
