/*
 * stat-result.h - the counts of `perfscope stat` over one or more runs of a command, and
 * their summary: mean, standard deviation, min and max of the scaled counts, the running
 * ratio of multiplexed events, metrics evaluated on the means.
 */
#ifndef PSC_STAT_RESULT_H
#define PSC_STAT_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/counts.h"
#include "pmu/events.h"
#include "pmu/metrics.h"
#include "lib/stats.h"

/* One thread's own counts (stat --per-thread). */
struct stat_thread {
	pid_t pid, tid;	      /* its process and itself */
	char name[16];	      /* its comm when it ended, "" when unknown */
	struct count *counts; /* event order */
	int32_t *status;      /* event order: 0 counted, else a negative errno */
};

struct stat_run {
	struct count *counts; /* event order */
	int32_t *status;      /* 0 counted, else negative errno of perf_event_open */
	int *user_only;
	double wall_ns, user_ns, sys_ns;
	struct stat_thread *threads; /* --per-thread: the launched thread first, else NULL */
	size_t nthreads;
	int exit_signal; /* the signal that ended the command, 0 when it exited */
};

struct stat_result {
	char **command;
	size_t ncommand;
	struct event_desc *events;
	size_t nevents;
	struct metric_group *group; /* the group given with -g or the default; may be NULL */
	struct metric_group *found; /* other groups whose events were all counted */
	size_t nfound;
	struct stat_run *runs;
	size_t nruns, cap;
	int exit_status;
	int exit_signal; /* with exit_status: the signal that ended the command, 0 none */
	int paranoid, have_core_pmu;
	int per_thread; /* runs carry their threads */
};

struct stat_event_summary {
	struct stats value; /* scaled counts over the runs that counted it */
	double min_running; /* smallest running/enabled ratio over the runs */
	int status;	    /* first non-zero open status, 0 when counted */
	int user_only;
	int not_counted_runs; /* runs where the event never ran (multiplexed out) */
};

/* Room for RUNS runs of res->nevents events. 0 or -ENOMEM. */
int stat_result_alloc(struct stat_result *res, size_t runs);

/* Load every metric group in DIRS whose events were all counted (for -e without -g). */
int stat_result_find_metrics(struct stat_result *res, const char *const *dirs, size_t ndirs);

/* Summary of event I over the runs. */
void stat_result_summarize(const struct stat_result *res, size_t i, struct stat_event_summary *out);

/* Evaluate M on the mean values and the mean wall time: 0, -ENODATA (MISSING lists the
 * inputs not counted) or -EDOM. */
int stat_result_metric(const struct stat_result *res, const struct metric *m, double *value,
		       char *missing, size_t len);

/*
 * The part of event I's total in RUN that no thread's own count holds: the scaled total minus
 * the sum of the threads' scaled counts (negative when multiplexing estimates disagree).
 * 0 and *OUT, or -ENODATA when the total was not counted.
 */
int stat_run_unattributed(const struct stat_run *run, size_t i, int64_t *out);

void stat_result_release(struct stat_result *res);

#endif /* PSC_STAT_RESULT_H */
