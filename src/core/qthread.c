/* qthread.c - worker threads that take no signals (qthread.h). */
#include "qthread.h"

#include <signal.h>

int qthread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	/* the new thread inherits the mask in force while it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}
