/*
 * loadlog.h - load logs (`load.<host>.<pid>`, written by the MPI load sampler of
 * libperfscope-mpi.so; docs/format.md "Load logs"): the reader of one log, and the set of an
 * experiment's logs with each host's and each rank's load over time and its mean.
 */
#ifndef PSC_AN_LOADLOG_H
#define PSC_AN_LOADLOG_H

#include <stddef.h>
#include <stdint.h>

/* One load log. Shares that the log gives as `-` are NAN. */
struct load_log {
	char *path;
	char *host;
	uint64_t period_ns;
	int cpus; /* the host's online CPUs, 0 when the log does not say */
	size_t nranks;
	int *ranks; /* world ranks, in the log's column order */
	int *pids;
	size_t nsamples;
	uint64_t *time_ns; /* CLOCK_MONOTONIC of the writing rank, increasing */
	double *host_busy; /* busy fraction of the host's CPUs, 0..1 */
	double *share;	   /* nsamples x nranks (row-major): each rank's CPUs in use */
};

/* Mean, minimum and maximum of a share over a log's samples. The mean is weighted by each
 * sample's interval (the time since the previous row; the period for the first), so a short
 * last interval counts for what it covers. Samples given as `-` are left out; n = 0 and NAN
 * values when none is known. */
struct load_stats {
	size_t n;
	double mean, min, max;
};

/* A rank of the set: where its samples are. */
struct load_rank {
	int rank, pid;
	size_t log; /* index in load_set.logs */
	size_t col; /* its column in that log */
	struct load_stats st;
};

/* Every load log of an experiment: logs ordered by their first (writing) rank, ranks by world
 * rank, each host's busy statistics in busy[log]. */
struct load_set {
	struct load_log *logs;
	struct load_stats *busy;
	size_t nlogs;
	struct load_rank *ranks;
	size_t nranks;
};

/*
 * Read and validate the load log PATH into LOG (strict header; a last line without its
 * newline is ignored). 0, or a negative errno (-EINVAL for a malformed file) with
 * "PATH: line N: ..." (or "PATH: ..." when it cannot be read) in ERR.
 */
int load_log_read(struct load_log *log, const char *path, char *err, size_t errlen);

void load_log_release(struct load_log *log);

/* The share of rank column COL at sample I of LOG. */
static inline double load_log_share(const struct load_log *log, size_t i, size_t col)
{
	return log->share[i * log->nranks + col];
}

/* Statistics of VALUES (NSAMPLES of them, STRIDE apart) at the sample times of LOG. */
struct load_stats load_log_stats(const struct load_log *log, const double *values, size_t stride);

/*
 * Read every `load.*` file of the experiment directory DIR into SET and aggregate. 0;
 * -ENOENT with "DIR: no load logs ..." in ERR when there is none; another negative errno with
 * the failing file's message (a rank found in two logs is -EINVAL).
 */
int load_set_read(struct load_set *set, const char *dir, char *err, size_t errlen);

void load_set_release(struct load_set *set);

#endif /* PSC_AN_LOADLOG_H */
