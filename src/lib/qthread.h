/* qthread.h - worker threads that take no signals, and whether a CPU is there for one. */
#ifndef PSC_QTHREAD_H
#define PSC_QTHREAD_H

#include <pthread.h>

/* Start FN(ARG) in a new joinable thread, *T, that blocks every signal, so that the signals
 * meant for the process (a command's SIGINT, SIGCHLD) stay with the threads that handle them.
 * 0 or a negative errno. */
int qthread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* CPUs this process may run on (its affinity mask), at least 1: whether a second thread can
 * overlap work with the first (the stream reader's read-ahead, the report's views). */
int qthread_cpus(void);

#endif /* PSC_QTHREAD_H */
