/* qthread.h - worker threads that take no signals. */
#ifndef PSC_QTHREAD_H
#define PSC_QTHREAD_H

#include <pthread.h>

/* Start FN(ARG) in a new joinable thread, *T, that blocks every signal, so that the signals
 * meant for the process (a command's SIGINT, SIGCHLD) stay with the threads that handle them.
 * 0 or a negative errno. */
int qthread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif /* PSC_QTHREAD_H */
