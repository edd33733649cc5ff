/*
 * thread-label.h - the name a view gives a thread of an OpenMP team: its OpenMP thread number,
 * and its MPI rank in a hybrid run ("omp thread 3 of rank 2"), the same in every report, the
 * HTML timeline and the exports. A thread that ran the implicit tasks of several numbers (a
 * pool thread of teams of different sizes) shows their range ("omp threads 1-3").
 */
#ifndef PSC_MODEL_THREAD_LABEL_H
#define PSC_MODEL_THREAD_LABEL_H

#include <stddef.h>
#include <stdint.h>

struct ev_location_facts;

/*
 * The label of a thread whose walk gave facts F (ev_location_facts: omp_tasks,
 * omp_thread_min/max), in a process of MPI rank RANK (-1 none), into BUF (SIZE bytes): BUF,
 * or NULL when the thread ran no implicit task (no OpenMP thread: the caller names it as it
 * names other threads).
 */
const char *thread_label(char *buf, size_t size, const struct ev_location_facts *f, int rank);

/* The same from the three OpenMP fields themselves (views keep them apart from the facts). */
const char *thread_label_of(char *buf, size_t size, uint64_t omp_tasks, uint32_t omp_min,
			    uint32_t omp_max, int rank);

#endif /* PSC_MODEL_THREAD_LABEL_H */
