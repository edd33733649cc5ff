/*
 * regions.h - the region profile: per region and thread, calls, inclusive and exclusive
 * time and the counter deltas between each begin and its end. Built in one streaming pass
 * (memory grows with regions x threads, not with records).
 */
#ifndef PSC_AN_REGIONS_H
#define PSC_AN_REGIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/counts.h"
#include "format/experiment.h"

struct region_row {
	char *name;
	pid_t pid, tid;	 /* tid 0 in a row merged over threads */
	uint32_t thread; /* its thread in the profile's threads (not in a row merged over them) */
	uint64_t calls;
	uint64_t unclosed; /* begins never ended (closed at the stream's last timestamp) */
	double incl_ns, excl_ns, min_ns, max_ns;
	struct count *counts;  /* per event: summed deltas of the inclusive intervals */
	int32_t *status;       /* per event: 0 counted, else the negative errno of its open */
	uint64_t counter_gaps; /* boundaries without a counter snapshot */
};

struct thread_summary {
	pid_t pid, tid;
	char name[17];
	int ended; /* the stream has its end record */
	unsigned end_reason;
	uint64_t truncated_at; /* cut-short stream (killed run): offset, else 0 */
	uint64_t lost_records;
	uint64_t unmatched_ends; /* psc_region_end without a matching begin */
	uint64_t records;
	int rank; /* of its process, -1 none */
	/* the implicit tasks it ran and their OpenMP thread numbers (thread-label.h) */
	uint64_t omp_tasks;
	uint32_t omp_thread_min, omp_thread_max;
};

struct region_profile {
	size_t nevents;
	char **events; /* names, shared layout of every row's counts */
	struct region_row *rows;
	size_t nrows, cap;
	struct thread_summary *threads;
	size_t nthreads;
	uint64_t unmatched_ends, unclosed;
	double duration_ns;	   /* first to last record over all streams */
	int64_t first_ns, last_ns; /* that span on the CLOCK_MONOTONIC time base */
	int span_known;
};

/* Build the profile of every stream in E (one pass of the experiment source with
 * region_profile_consumer()). 0, or a negative errno with "file: byte N: ..." in ERR. */
int region_profile_build(struct region_profile *p, const struct experiment *e, char *err,
			 size_t errlen);

struct ev_consumer;

/* C: a consumer (model/pass.h) building P (emptied here) from the region records of E's
 * streams. 0 or -ENOMEM; C is to be released (ev_consumer_release()) either way. */
int region_profile_consumer(struct ev_consumer *c, struct region_profile *p,
			    const struct experiment *e);

/* Rows merged over threads (same region name): a new profile in OUT. 0 or -ENOMEM. */
int region_profile_merge_threads(const struct region_profile *in, struct region_profile *out);

/* Scaled value of event I in ROW: 0 and *OUT, or -ENODATA when it was not counted. */
int region_row_value(const struct region_row *row, size_t i, uint64_t *out);

/* Evaluate metric M for ROW: events by name, time_ns/time_s = inclusive time. 0, -ENODATA
 * (inputs listed in MISSING) or -EDOM. */
struct metric;
int region_row_metric(const struct region_profile *p, const struct region_row *row,
		      const struct metric *m, double *out, char *missing, size_t len);

void region_profile_release(struct region_profile *p);

#endif /* PSC_AN_REGIONS_H */
