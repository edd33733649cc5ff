/*
 * power-sampler.h - the launcher's power sampler: a thread of `perfscope record` (never of the
 * measured program) that reads every energy counter of a power source each period and writes
 * the power log DIR/power.<source> (docs/format.md, "Power logs"). The first reading is taken
 * when it starts, right before the command is released, and the last one when it finishes,
 * right after the command ended, so that the log covers the run.
 *
 * Nothing here prints: errors come back as negative errno values.
 */
#ifndef PSC_POWER_SAMPLER_H
#define PSC_POWER_SAMPLER_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "record/powercap.h"

#define POWER_PERIOD_DEFAULT_NS 10000000u /* 10 ms */
#define POWER_PERIOD_MIN_NS	1000000u  /* 1 ms: RAPL updates about every millisecond */

struct power_sampler {
	struct power_source *src;
	uint64_t period_ns;
	FILE *f;
	uint64_t *vals;	      /* the last reading, src->n values */
	uint64_t *first;      /* the first reading */
	unsigned char *moved; /* per counter: a reading differed from the first */
	uint64_t readings;    /* rows written */
	uint64_t last_ns;     /* time of the last row */
	uint64_t flush_every; /* rows between flushes (about one second) */
	int error;	      /* first error, negative errno: the log stops there */
	int stop;	      /* set (atomically) to end the thread */
	pthread_t thread;
	int thread_started;
};

/*
 * Create DIR/power.<source>, write its header, take the first reading and start the thread
 * that takes one every PERIOD_NS (>= POWER_PERIOD_MIN_NS) on absolute deadlines. SRC must stay
 * open until power_sampler_release. 0 or a negative errno (nothing left running).
 */
int power_sampler_start(struct power_sampler *ps, struct power_source *src, uint64_t period_ns,
			const char *dir);

/* Stop the thread, take the last reading and close the log. 0, or the first error of the
 * sampler (a counter that could not be read any more, a write error). Idempotent. */
int power_sampler_finish(struct power_sampler *ps);

/* True when counter I ever read another value than its first: a zone that never advanced
 * does not work on this machine. */
int power_sampler_advanced(const struct power_sampler *ps, size_t i);

/* Finish if needed and free the sampler's memory (not the source). */
void power_sampler_release(struct power_sampler *ps);

#endif /* PSC_POWER_SAMPLER_H */
