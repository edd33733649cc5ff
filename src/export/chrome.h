/*
 * chrome.h - an experiment as Chrome Trace Event JSON, the format Perfetto (ui.perfetto.dev)
 * and chrome://tracing open (docs/cmd-export.md describes what is written).
 *
 * One track per thread with its function calls and MPI calls as B/E slices, a second track per
 * thread with its regions (regions and functions nest independently), MPI messages as flow
 * events from the send to the receive, samples as instant events on their threads, process and
 * thread names as "M" events, the counters read at region boundaries as "C" counter tracks, and
 * OpenMP implicit tasks and waits as "X" slices on their threads' tracks (chrome-omp.h).
 * Timestamps are microseconds with three decimals (exact to the nanosecond) from the experiment's
 * earliest clock pair. The trace is streamed: events are written as the streams are read, so memory
 * is bounded by the call depth and the names seen, not by the trace's length (but the OpenMP
 * parallel regions' ids, kept to name their tasks: chrome-omp.h).
 */
#ifndef PSC_CHROME_H
#define PSC_CHROME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/experiment.h"
#include "model/symbols.h"
#include "model/pass.h"

/* The numeric tid of a thread's region track: the thread's tid plus this. */
#define CHROME_REGION_TID_OFFSET 1000000000

/* What was written, for the caller's summary and caveats. */
struct chrome_stats {
	uint64_t events;	    /* trace events of every phase */
	uint64_t calls;		    /* function slices (B events on function tracks) */
	uint64_t regions;	    /* region slices */
	uint64_t counter_values;    /* "C" events */
	uint64_t mpi_calls;	    /* MPI call slices */
	uint64_t messages;	    /* flow starts ("s"): messages sent */
	uint64_t messages_received; /* flow ends ("f") */
	uint64_t samples;	    /* sample instants ("i") */
	uint64_t synthetic_exits;   /* call ends made up: killed run, or frames skipped */
	uint64_t unmatched_exits;   /* exits without a recorded enter (dropped) */
	uint64_t lost_records;	    /* records the runtime could not store */
	uint64_t threads;	    /* streams written */
	uint64_t bytes;		    /* bytes written */
};

/*
 * C becomes a consumer of a pass over experiment E's source (pass.h) that writes E as one JSON
 * object to OUT, naming functions through ST (both kept by the caller until C is released).
 * STATS (may be NULL) receives the totals, complete when the pass ended (its bytes and events
 * also after a failed one). The pass's error is the consumer's: a failed write is -EIO or the
 * write's errno, "write failed: ...". 0, or -ENOMEM.
 */
int chrome_consumer(struct ev_consumer *c, FILE *out, const struct experiment *e, struct symtab *st,
		    struct chrome_stats *stats);

/*
 * Write experiment E as one JSON object to OUT, naming functions through ST. STATS (may be
 * NULL) receives the totals. One pass with chrome_consumer() alone. 0, or a negative errno with a
 * one-line message in ERR (a stream that cannot be read: "file: byte N: ..."; a failed write: -EIO
 * or the write's errno).
 */
int chrome_write(FILE *out, struct experiment *e, struct symtab *st, struct chrome_stats *stats,
		 char *err, size_t errlen);

/* V in decimal into DST (room for 20 bytes needed). Returns the bytes written (no NUL). */
size_t chrome_format_u64(char *dst, uint64_t v);

/* NS nanoseconds as microseconds with three decimals ("-1.500" for -1500) into DST (room for
 * 32 bytes needed). Returns the bytes written (no NUL). */
size_t chrome_format_us(char *dst, int64_t ns);

#endif /* PSC_CHROME_H */
