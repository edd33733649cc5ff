/* thread-label.c - the names of OpenMP threads (thread-label.h). */
#include "model/thread-label.h"
#include "model/event.h"

#include <stdio.h>

const char *thread_label_of(char *buf, size_t size, uint64_t omp_tasks, uint32_t omp_min,
			    uint32_t omp_max, int rank)
{
	int n;

	if (!omp_tasks)
		return NULL;
	if (omp_min == omp_max)
		n = snprintf(buf, size, "omp thread %u", omp_min);
	else
		n = snprintf(buf, size, "omp threads %u-%u", omp_min, omp_max);
	if (rank >= 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " of rank %d", rank);
	return buf;
}

const char *thread_label(char *buf, size_t size, const struct ev_location_facts *f, int rank)
{
	return thread_label_of(buf, size, f->omp_tasks, f->omp_thread_min, f->omp_thread_max, rank);
}
