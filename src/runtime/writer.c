/*
 * writer.c - the background thread that writes full chunks to the stream files, so that a
 * recording thread hands a chunk over and goes on filling its other buffer. It compresses
 * them when it can do so before the thread fills that buffer (thread.c, chunk_compress).
 */
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *writer_main(void *arg)
{
	const struct timespec period = {0, 50 * 1000 * 1000};
	struct psc_zwriter z = {0};

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
