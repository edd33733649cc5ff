/*
 * record-meta.h - meta.json of a recording (docs/format.md), written by `perfscope record`
 * before the command starts (what an interrupted run still needs: the command, the events,
 * the sampled events' names) and again when it ended (its exit, its span, what the sampler
 * counted). Nothing here prints: errors come back with one line in the caller's buffer, the
 * probe's findings through a callback.
 */
#ifndef PSC_RECORD_META_H
#define PSC_RECORD_META_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/events.h"
#include "pmu/metrics.h"
#include "record/record-mpi.h"
#include "record/record-power.h"
#include "record/sampler.h"

/* What meta.json says of a recording whatever its state. */
struct record_meta {
	char **cmd; /* the command as typed, NCMD words */
	int ncmd;
	const struct event_desc *evs; /* the -e/-g events, NEV of them */
	size_t nev;
	const int *status;		  /* per event, record_probe_events's; NULL not probed */
	const struct metric_group *group; /* -g's, or NULL */
	const struct record_power *rp;	  /* --power's ("power": nothing without) */
	const struct record_mpi *mpi;	  /* the MPI run it belongs to */
	uint64_t start_unix_ns;		  /* when record started (CLOCK_REALTIME) */
};

/*
 * Write DIR/meta.json of M: aside and renamed, padded to a block so that a full disk still
 * lets it be rewritten in place. SMP: the sampler, when sampling and open (its events and
 * their fate; once the run ended, what it counted). EXIT_STATUS -1 while the command has not
 * ended, else its status and EXIT_SIGNAL; RUN_NS its start and end (CLOCK_MONOTONIC), NULL
 * before. 0, or a negative errno with one line in ERR.
 */
int record_meta_write(const char *dir, const struct record_meta *m, const struct sampler *smp,
		      int exit_status, int exit_signal, const int64_t run_ns[2], char *err,
		      size_t errlen);

/*
 * Open the NEV events EVS as the runtime will, on this process and disabled, and keep each
 * one's status in STATUS (0 counting, else a negative errno): the runtime cannot tell which
 * cannot be counted, so each one that cannot is handed to NOTE with CTX as a line "NAME: why;
 * counting goes on without it". 0 or -ENOMEM.
 */
int record_probe_events(const struct event_desc *evs, size_t nev, int *status,
			void (*note)(void *ctx, const char *line), void *ctx);

#endif /* PSC_RECORD_META_H */
