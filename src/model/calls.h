/*
 * calls.h - one thread's stream as matched function calls: enter and exit events in time
 * order, each exit with the call's inclusive and exclusive time. The exits a killed run never
 * wrote are made up at the stream's last timestamp (and flagged), exits whose enter was never
 * recorded are counted and come as no call (a source gets them as records), and an exit that
 * skips frames (longjmp, an exception unwound through code without hooks) closes the skipped
 * frames first. Region records come through as they are, so a consumer sees one timeline.
 * Memory grows with the stack depth.
 */
#ifndef PSC_AN_CALLS_H
#define PSC_AN_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "format/experiment.h"
#include "format/stream.h"

enum call_event_type {
	CALL_ENTER,
	CALL_EXIT,
	CALL_REGION_ENTER,
	CALL_REGION_EXIT,
};

struct call_event {
	enum call_event_type type;
	uint64_t addr;	  /* function address (CALL_ENTER/EXIT) */
	uint32_t region;  /* region id (CALL_REGION_*) */
	const char *name; /* region name, NULL for functions or an undefined id */
	int64_t ns;	  /* time on the process's CLOCK_MONOTONIC base */
	unsigned depth;	  /* function stack depth: of the caller at enter, after exit */
	int synthetic;	  /* an exit the stream lacks, made up by the walker */
	int64_t incl_ns;  /* CALL_EXIT: the call's duration */
	uint64_t offset;  /* byte offset of the record in the stream file */
	/* apart from incl_ns: a consumer that reads both with one 16-byte load would wait for
	 * the two 8-byte stores that wrote them (a failed store-to-load forward, every exit) */
	int64_t excl_ns;	  /* CALL_EXIT: the duration minus its callees' */
	const uint64_t *snapshot; /* CALL_REGION_*: counter snapshot words (until the next event) */
	size_t nsnapshot;
};

struct call_frame {
	uint64_t addr;
	int64_t start_ns;
	int64_t child_ns;
};

/* Thread facts gathered while walking; complete once call_walker_next_event() returned 0. */
struct call_thread {
	char name[17];
	int ended;	       /* the stream has its end record */
	unsigned end_reason;   /* enum psc_end_reason, signal number in bits 8+ */
	uint64_t truncated_at; /* a cut-short stream (killed run): byte offset, else 0 */
	uint64_t lost_records, lost_bytes;
	uint64_t unmatched_exits;  /* exits without a recorded enter (dropped) */
	uint64_t synthetic_exits;  /* exits made up: killed run, or skipped frames */
	uint64_t unwound;	   /* calls the runtime closed at a longjmp or exception */
	uint64_t function_records; /* enter and exit records read */
	int64_t first_ns, last_ns; /* span of the stream's records; first > last when empty */
	int64_t first_call_ns, last_call_ns; /* span of its enter and exit records; first >
						last when none */
	/* OpenMP: the implicit tasks it ran outside any other on the thread (a nested region's
	 * tasks count on a thread that ran none of the outer one's) and the lowest and highest
	 * thread numbers they had */
	uint64_t omp_tasks;
	uint32_t omp_thread_min, omp_thread_max;
};

struct call_walker {
	struct stream_reader r;
	const struct exp_stream *s;
	const struct clock_fit *fit;
	struct call_frame *stack;
	size_t depth, cap;
	char **regions; /* region id -> name, from the stream's definitions */
	size_t nregions, regions_cap;
	struct call_thread th;
	size_t omp_depth; /* implicit tasks open on the thread */
	/* set after call_walker_open(): every record comes out, those that are no call or region
	 * boundary (extended records, exits of calls entered before the recording began) as a
	 * return of 2 (call_walker_next_event()), for a source that hands on every record */
	int records;
	/* set: call events carry their record in ->raw too, as region boundaries do (until the
	 * next event: for a source handing events one at a time, not in batches); the exits the
	 * walker makes up carry none */
	int call_records;
	/* the record of the last event that carries one; records other than calls are read here
	 * (the calls' fast path reads into a local) */
	struct stream_record rec;
	struct stream_record pending; /* a function exit waiting while skipped frames close */
	int have_pending;
	int at_end; /* the stream is read; open frames are being closed */
};

/* Open the stream S of E for walking. 0, or a negative errno with "file: ..." in ERR. */
int call_walker_open(struct call_walker *w, const struct exp_stream *s, char *err, size_t errlen);

/* The next event, as the pass's events (model/event.h): 1 and *EV (EV_CALL_ENTER and
 * EV_CALL_EXIT, with ->raw their record when W->call_records, else NULL; EV_REGION_ENTER and
 * EV_REGION_EXIT with ->raw their record), 0 at the end (open calls closed), or a negative
 * errno with "file: byte N: ..." in ERR. With W->records, also 2 for any other record (->raw,
 * ->ns and ->offset set). ->loc is left as it was. */
int call_walker_next_event(struct call_walker *w, struct event *ev, char *err, size_t errlen);

/* call_walker_next_calls(): MAX call events were gathered. */
#define CALL_WALKER_FULL 3

/*
 * The next call events (EV_CALL_ENTER, EV_CALL_EXIT) into EV[0..*N), at most MAX of them, and
 * what follows them: CALL_WALKER_FULL when MAX were gathered, else call_walker_next_event()'s
 * return for the event after them, which is in EV[*N] (1 an event that is no call, 2 a record,
 * 0 the end, a negative errno). EV has room for MAX + 1 events; with MAX 0, EV[0] is the next
 * event whatever its kind. A source hands calls so to a consumer taking them in batches: the
 * loop costs no call per event.
 */
int call_walker_next_calls(struct call_walker *w, struct event *ev, size_t max, size_t *n,
			   char *err, size_t errlen);

void call_walker_close(struct call_walker *w);

#endif /* PSC_AN_CALLS_H */
