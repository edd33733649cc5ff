/*
 * load-view.h - the tables of `perfscope mpi --load` as views: the hosts and the ranks (text
 * and JSON), their statistics as one table and every sample (CSV and long CSV), and a host's
 * load over time (text: one column per rank).
 */
#ifndef PSC_LOAD_VIEW_H
#define PSC_LOAD_VIEW_H

#include <stdint.h>

#include "format/loadlog.h"
#include "view/view.h"

enum load_table {
	LOAD_TABLE_HOSTS,     /* text: host, CPUs, samples, busy mean, min, max, log; JSON: host,
				 file, cpus, period_ns, busy, time_ns, busy_over_time, ranks */
	LOAD_TABLE_RANKS,     /* text: rank, host, pid, samples, mean, min, max; JSON (a host's
				 ranks): rank, pid, samples, mean, min, max, share */
	LOAD_TABLE_STATS,     /* CSV: host, rank (`host` for the host's busy fraction), pid,
				 samples, mean, min, max: the hosts, then the ranks */
	LOAD_TABLE_SAMPLES,   /* CSV: host, rank, time_ns, share: every known sample */
	LOAD_TABLE_OVER_TIME, /* text: t (s), host, rank N..: one log's samples in at most
				 LOAD_TEXT_ROWS rows */
};

/* What the getters of a load view read. */
struct load_view_ctx {
	const struct load_set *set;
	size_t log;	 /* LOAD_TABLE_OVER_TIME, and LOAD_TABLE_RANKS in JSON: the host's log */
	uint64_t origin; /* LOAD_TABLE_OVER_TIME: time 0 */
	int one_log;	 /* LOAD_TABLE_RANKS: the ranks of LOG only */
};

/* V, table T of CTX's set (V's ctx is CTX, kept by the caller while V is used). Its rows
 * and columns are malloc'd: load_view_release frees them. 0 or -ENOMEM. */
int load_view_make(struct view *v, const struct load_view_ctx *ctx, enum load_table t);

/* Free what load_view_make allocated in V. */
void load_view_release(struct view *v);

#endif /* PSC_LOAD_VIEW_H */
