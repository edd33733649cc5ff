/*
 * timeline.h - counters over time from a sampled experiment: per interval and thread, what
 * every event counted (each sample's deltas spread over the span they cover) and which
 * functions the leader's samples fell in; with markers for exec, exit, throttling and the
 * regions the program recorded.
 */
#ifndef PSC_AN_TIMELINE_H
#define PSC_AN_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "analysis/profile/samples.h"
#include "model/symbols.h"

/* A region enter or leave from the program's streams, on the samples' time axis. */
struct timeline_region {
	uint64_t ns;
	pid_t pid, tid;
	int enter; /* 1 enter, 0 leave */
	char name[64];
};

struct timeline {
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC: launch, last record */
	uint64_t interval_ns;
	size_t nintervals;
	uint32_t nevents;
	struct sample_walk walk; /* threads and markers */
	double *values;		 /* [thread][interval][event] */
	uint64_t *samples;	 /* [thread][interval]: the leader's samples */
	size_t nfuncs;		 /* the top functions; index nfuncs is "other" */
	char **funcs;
	uint64_t *fsamples; /* [thread][interval][nfuncs + 1] */
	struct timeline_region *regions;
	size_t nregions, regions_cap;
};

/*
 * Build the timeline of E's samples with intervals of INTERVAL_NS (0: a hundredth of the run,
 * rounded down to 1, 2 or 5 times a power of ten, at least 1 ms), keeping the TOP functions
 * with the most samples (others are summed as "other"). 0, or a negative errno with the
 * message in ERR.
 */
int timeline_build(struct timeline *t, const struct experiment *e, struct symtab *syms,
		   uint64_t interval_ns, size_t top, char *err, size_t errlen);

/* Value of event K in interval I of thread TH. */
static inline double timeline_value(const struct timeline *t, size_t th, size_t i, uint32_t k)
{
	return t->values[(th * t->nintervals + i) * t->nevents + k];
}

/* Start and end of interval I relative to the start (the last one ends at the run's end). */
void timeline_interval(const struct timeline *t, size_t i, uint64_t *from, uint64_t *to);

void timeline_release(struct timeline *t);

#endif /* PSC_AN_TIMELINE_H */
