/*
 * writer.c - the background thread that writes full chunks to the stream files, so that a
 * recording thread hands a chunk over and goes on filling its other buffer. It compresses
 * them when it can do so before the thread fills that buffer (thread.c, chunk_compress).
 */
#include "runtime/session.h"

#include "lib/direach.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The state letter of the task whose stat file is PATH ('?' when it cannot be read). */
static char task_state(const char *path)
{
	char buf[512], *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

struct live_tasks {
	pid_t self;
	int others;
};

static int live_task_cb(const char *name, void *arg)
{
	struct live_tasks *lt = arg;
	char path[64];
	char state;

	if (atoi(name) == lt->self)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", name);
	state = task_state(path);
	lt->others += state != 'Z' && state != 'X' && state != '?';
	return lt->others > 0;
}

/*
 * 1 when every thread of the program has ended but this one: its main thread left through
 * pthread_exit (the process's own state is then a zombie's) and no other runs. The process
 * ends when its last thread does, and the writer must not be the thread that keeps it.
 */
static int alone_in_process(void)
{
	struct live_tasks lt = {(pid_t)syscall(SYS_gettid), 0};

	if (task_state("/proc/self/stat") != 'Z')
		return 0;
	return dir_each("/proc/self/task", live_task_cb, &lt) == 0 && lt.others == 0;
}

static void *writer_main(void *arg)
{
	const struct timespec period = {0, 50 * 1000 * 1000};
	struct psc_zwriter z = {0};
	unsigned rounds = 0;

	(void)arg;
	psc_tls_quiet = RT_QUIET_RUNTIME;
	prctl(PR_SET_NAME, "psc-writer");
	for (;;) {
		unsigned seen = __atomic_load_n(&psc_session.writer_kick, __ATOMIC_ACQUIRE);
		struct psc_thread *t = __atomic_load_n(&psc_session.threads, __ATOMIC_ACQUIRE);

		for (; t; t = t->next) {
			int state = OUT_QUEUED;

			if (__atomic_load_n(&t->populate, __ATOMIC_ACQUIRE))
				slot_populate(t);
			if (__atomic_compare_exchange_n(&t->out_state, &state, OUT_WRITING, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
				thread_write_out(t, &z);
		}
		if (psc_session.state == SESSION_RECORDING)
			session_check_objects();
		/* every half second: the program's threads have all ended (main called
		 * pthread_exit): close the streams and end, so that the process ends with
		 * status 0, as it does without perfscope */
		if (++rounds % 10 == 0 && alone_in_process()) {
			session_finish();
			return NULL;
		}
		/* sleep until the next hand-off (at once if one came during the walk), or a
		 * while, to look for dlopen'ed objects */
		syscall(SYS_futex, &psc_session.writer_kick, FUTEX_WAIT_PRIVATE, seen, &period,
			NULL, 0);
	}
	return NULL;
}

/* Start the writer of this process; it never records, so every signal is blocked in it. */
static int writer_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t tid;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	ret = pthread_create(&tid, &attr, writer_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

int writer_kick(void)
{
	pid_t pid = psc_session.pid;

	if (psc_session.writer_failed)
		return -1;
	if (unlikely(__atomic_load_n(&psc_session.writer_pid, __ATOMIC_ACQUIRE) != pid)) {
		int started = 0;

		pthread_mutex_lock(&psc_session.lock);
		if (psc_session.writer_pid != pid) {
			if (writer_start() == 0) {
				__atomic_store_n(&psc_session.writer_pid, pid, __ATOMIC_RELEASE);
				started = 1;
			} else {
				psc_session.writer_failed = 1;
			}
		} else {
			started = 1;
		}
		pthread_mutex_unlock(&psc_session.lock);
		if (!started)
			return -1;
	}
	__atomic_add_fetch(&psc_session.writer_kick, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &psc_session.writer_kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return 0;
}
