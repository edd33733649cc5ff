/* stat-thread.c - following the launched command's threads and processes under ptrace, each
 * counted by a group of its own (stat-thread.h). */
#include "record/stat-thread.h"
#include "lib/array.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* Fork, vfork and clone children start traced and stopped; PTRACE_EVENT_EXIT lets the name
 * be read while the thread still exists. */
#define TRACE_OPTIONS                                                                              \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXIT)

/* The comm of TID into NAME (16 bytes); left unchanged when it cannot be read. */
static void read_name(pid_t tid, char *name)
{
	char path[64], buf[16];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		memcpy(name, buf, sizeof(buf));
	}
	fclose(f);
}

/* The process (thread group) of TID from /proc, or TID when it cannot be read. */
static pid_t read_tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static struct st_thread *find(struct stat_threads *st, pid_t tid)
{
	uint64_t k;

	return u64map_get(&st->by_tid, (uint64_t)tid, &k) ? &st->t[k] : NULL;
}

/* The entry of TID, made and its group opened when it is new (FLAGS: counter_set flags). */
static struct st_thread *thread_get(struct stat_threads *st, pid_t tid, unsigned flags)
{
	struct st_thread *t = find(st, tid);
	int ret = -ENOMEM;

	if (t && !t->done)
		return t; /* else an ended thread's tid, reused */
	if (ARRAY_GROW(st->t, st->n + 1, st->cap))
		goto nomem;
	t = &st->t[st->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = read_tgid(tid);
	read_name(tid, t->name);
	t->counts = calloc(st->nev + 1, sizeof(*t->counts));
	t->status = calloc(st->nev + 1, sizeof(*t->status));
	if (t->counts && t->status)
		ret = counter_set_init(&t->set, st->evs, st->nev, flags, NULL);
	if (ret == 0 && u64map_put(&st->by_tid, (uint64_t)tid, st->n))
		ret = -ENOMEM;
	if (ret) {
		free(t->counts);
		free(t->status);
		counter_set_release(&t->set);
		goto fail;
	}
	st->n++;
	/* an event that cannot be opened keeps its status; the thread is still listed */
	counter_set_open(&t->set, tid);
	return t;
nomem:
	ret = -ENOMEM;
fail:
	st->error = st->error ? st->error : ret;
	return NULL;
}

/* T has ended (or the run is over): its final counts, then its descriptors closed. */
static void thread_read(struct stat_threads *st, struct st_thread *t)
{
	uint32_t *group_of;
	uint64_t *words;
	int ret;

	if (t->done)
		return;
	t->done = 1;
	group_of = calloc(st->nev + 1, sizeof(*group_of));
	words = calloc(t->set.snapshot_words + 1, sizeof(*words));
	ret = group_of && words ? 0 : -ENOMEM;
	if (ret == 0)
		ret = counter_set_snapshot(&t->set, words);
	if (ret == 0) {
		counter_set_layout(&t->set, group_of, t->status);
		ret = count_snapshot_decode(words, t->set.snapshot_words, group_of, st->nev,
					    t->counts);
	}
	if (ret)
		for (size_t i = 0; i < st->nev; i++)
			t->status[i] = t->status[i] ? t->status[i] : ret;
	t->read_error = ret;
	counter_set_release(&t->set);
	free(group_of);
	free(words);
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* TID stopped with wait status WS: open what a new thread needs, then let it go on. */
static void on_stop(struct stat_threads *st, pid_t tid, int ws)
{
	int sig = WSTOPSIG(ws), event = (unsigned)ws >> 16;
	unsigned long msg = 0;
	struct st_thread *t;

	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		/* the child is held in its first stop until that stop is seen below */
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0)
			thread_get(st, (pid_t)msg, 0);
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	case PTRACE_EVENT_EXIT:
		t = find(st, tid);
		if (t)
			read_name(tid, t->name);
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	case PTRACE_EVENT_STOP:
		/* a new tracee's first stop (SIGTRAP) or a group stop (the stopping signal) */
		t = thread_get(st, tid, 0);
		if (t)
			t->resumed = 1;
		if (is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	case 0: /* a signal for the command: delivered as it would be without us */
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
		return;
	default:
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	}
}

int stat_threads_attach(struct stat_threads *st, pid_t pid, const struct event_desc *evs,
			size_t nev)
{
	struct rlimit rl;
	struct st_thread *t;

	memset(st, 0, sizeof(*st));
	st->evs = evs;
	st->nev = nev;
	st->pid = pid;
	/* a group per live thread: allow as many descriptors as the hard limit does */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)TRACE_OPTIONS) < 0)
		return -errno;
	t = thread_get(st, pid, COUNTER_ENABLE_ON_EXEC);
	if (!t)
		return st->error;
	t->resumed = 1;
	return 0;
}

int stat_threads_wait(struct stat_threads *st, int *status, struct rusage *ru)
{
	struct sigaction ign, old_int, old_quit;
	int ret = 0;

	/* Ctrl-C goes to the command; the launcher stays to report what it measured */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	for (;;) {
		struct rusage r;
		struct st_thread *t;
		int ws;
		pid_t tid = wait4(-1, &ws, __WALL, &r);

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (WIFSTOPPED(ws)) {
			on_stop(st, tid, ws);
			continue;
		}
		if (!WIFEXITED(ws) && !WIFSIGNALED(ws))
			continue;
		t = find(st, tid);
		if (t)
			thread_read(st, t);
		if (tid != st->pid)
			continue;
		st->signal = WIFEXITED(ws) ? 0 : WTERMSIG(ws);
		*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + st->signal;
		if (ru)
			*ru = r;
		break;
	}
	/* processes the command left running: their counts so far */
	for (size_t k = 0; k < st->n; k++)
		if (!st->t[k].done) {
			read_name(st->t[k].tid, st->t[k].name);
			thread_read(st, &st->t[k]);
		}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return ret ? ret : st->error;
}

int stat_threads_take(struct stat_threads *st, struct stat_run *out)
{
	out->threads = calloc(st->n + 1, sizeof(*out->threads));
	if (!out->threads)
		return -ENOMEM;
	for (size_t k = 0; k < st->n; k++) {
		struct stat_thread *o = &out->threads[k];
		struct st_thread *t = &st->t[k];

		o->pid = t->pid;
		o->tid = t->tid;
		memcpy(o->name, t->name, sizeof(o->name));
		o->counts = t->counts;
		o->status = t->status;
		t->counts = NULL;
		t->status = NULL;
	}
	out->nthreads = st->n;
	return 0;
}

void stat_threads_release(struct stat_threads *st)
{
	for (size_t k = 0; k < st->n; k++) {
		counter_set_release(&st->t[k].set);
		free(st->t[k].counts);
		free(st->t[k].status);
	}
	free(st->t);
	u64map_release(&st->by_tid);
	memset(st, 0, sizeof(*st));
}
