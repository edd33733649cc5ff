/*
 * pass.h - one pass over a source's events, many consumers (perf's struct perf_tool,
 * uftrace's fstack + dump ops). A source (an experiment directory: its streams and samples
 * files) is walked once; each location's events go, in time order, to every consumer that
 * asked for their kind. Analyses and exporters are consumers; none opens a file. An OTF2
 * archive is a source too (ev_source_otf2: its locations' calls).
 *
 * Locations are walked one after another (a consumer sees location_begin, its events,
 * location_end, then the next location), each stream read ahead by a second thread
 * (stream.h); locations are not decoded in parallel yet.
 */
#ifndef PSC_MODEL_PASS_H
#define PSC_MODEL_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"

struct experiment;

/* Which locations of an experiment a consumer visits (ev_consumer.locations; 0: all). */
#define EV_LOC_STREAMS 0x1u /* the streams of the runtime */
#define EV_LOC_SAMPLES 0x2u /* the samples files of record --sample */

/*
 * A consumer. Any callback may be NULL. Each returns 0, or a negative errno with a one-line
 * message in ERR that stops the pass (the pass adds nothing to the message but the file and
 * byte offset of a source error). KINDS: the EV_BIT()s of the events it wants. A consumer
 * visits every location its LOCATIONS name (location_begin, its events, location_end), even
 * one that turns out to hold none of its kinds; a file no consumer visits is not opened.
 */
struct ev_consumer {
	const char *name; /* for messages and tests */
	uint64_t kinds;
	unsigned locations; /* EV_LOC_*, 0 all: the files of the others are not opened for it */
	void *ctx;
	/* 1: the consumer wants nothing of LOC (it gets neither its events nor its location_end;
	 * a location every consumer declines is not read further) */
	int (*location_begin)(void *ctx, const struct ev_location *loc, char *err, size_t errlen);
	int (*event)(void *ctx, const struct event *ev, char *err, size_t errlen);
	/* optional: N call events (EV_CALL_ENTER, EV_CALL_EXIT) at once, EV[0..n) in time order,
	 * as event() would get them one by one. A source may hand calls so to a consumer that is
	 * the only one wanting both call kinds at a location (each call costs the pass far less
	 * than the indirect call per event); every other event, and location_end, come after the
	 * calls before them. */
	int (*events)(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen);
	int (*location_end)(void *ctx, const struct ev_location *loc,
			    const struct ev_location_facts *facts, char *err, size_t errlen);
	/* once, after the last location */
	int (*finish)(void *ctx, char *err, size_t errlen);
	/* frees CTX: after the pass, whether it succeeded or not (ev_consumer_release()) */
	void (*release)(void *ctx);
	/* set by ev_consumer_isolate(): where the pass keeps this consumer's failure */
	struct ev_isolated *isolated;
};

/* C's release(), once: the consumer's state freed, whatever became of its pass. */
void ev_consumer_release(struct ev_consumer *c);

/*
 * A consumer kept apart from the others of its pass, so that one pass builds analyses that
 * fail separately (the profile of a damaged stream beside the MPI model, which reads past the
 * damage): when one of its callbacks returns an error, the pass keeps it in RET and MSG, the
 * consumer gets nothing more (its release() still runs) and the pass goes on for the others.
 * Running out of memory still stops the pass. With SOURCE_ERRORS set, a location that ends in
 * a source error (EV_PASS_KEEP_GOING: facts->error) fails the consumer too, as it would fail
 * a pass of its own. The pass calls the consumer's callbacks directly and looks at ISOLATED
 * only when one fails: isolation costs nothing per event.
 */
struct ev_isolated {
	int source_errors;
	int ret;	/* 0, or the consumer's negative errno */
	char msg[1024]; /* its message */
};

/* OUT: INNER isolated, its failure kept in ISO (->ret and ->msg cleared). The pass turns OUT's
 * callbacks off when it fails: OUT, not INNER, is the one to hand to the pass. */
void ev_consumer_isolate(struct ev_consumer *out, struct ev_isolated *iso,
			 const struct ev_consumer *inner, int source_errors);

struct ev_source;

/* The experiment E (kept open by the caller) as a source: its streams, then its samples files. */
int ev_source_experiment(struct ev_source **src, const struct experiment *e, char *err,
			 size_t errlen);

/* The stream or samples file at PATH alone (no experiment around it: its process, so its clock
 * fit, unknown) as a source of one location: its records in order, each as the event its
 * record alone makes (function and region records as EV_MARKER: no call is matched), at
 * times in the file's units. PATH is kept, not copied. */
int ev_source_file(struct ev_source **src, const char *path, char *err, size_t errlen);

/*
 * The OTF2 archive whose anchor file is ANCHOR (kept by the caller) as a source: its
 * locations of ranks (pid the rank, tid the OTF2 location id), each one's Enter/Leave events
 * matched into EV_CALL_ENTER and EV_CALL_EXIT (ev.call.addr the region's index, ev.call.name
 * its name; otf2-calls.h for the regions and the rules of matching), their facts at
 * location_end. 0, or a negative errno with "ANCHOR: ..." in ERR.
 */
int ev_source_otf2(struct ev_source **src, const char *anchor, char *err, size_t errlen);

/* Its locations, known before the pass. */
size_t ev_source_nlocations(const struct ev_source *src);
const struct ev_location *ev_source_location(const struct ev_source *src, size_t i);

void ev_source_close(struct ev_source *src);

/* ev_pass_run_flags(): a location whose file cannot be opened or read to its end is no
 * failure: its location_end gets the error in facts->error and ->errmsg (what was read up to
 * the defect delivered), and the pass goes on with the next location. Errors of consumers and
 * running out of memory still stop the pass. */
#define EV_PASS_KEEP_GOING 0x1u

/* The name of region ID of LOC, NULL when the location defined none by that id (so far):
 * valid while LOC is walked (location_begin to location_end). */
const char *ev_location_region_name(const struct ev_location *loc, uint32_t id);

/* Walk SRC once, handing its events to the N consumers C[0..n). 0, or the first negative errno
 * (of the source: "file: byte N: ...", or of a consumer) with its message in ERR. */
int ev_pass_run(struct ev_source *src, struct ev_consumer *const *c, size_t n, char *err,
		size_t errlen);

/* ev_pass_run() with FLAGS (EV_PASS_*). */
int ev_pass_run_flags(struct ev_source *src, struct ev_consumer *const *c, size_t n, unsigned flags,
		      char *err, size_t errlen);

/* One pass of the N consumers C[0..n) with FLAGS over the experiment E (kept open by the
 * caller): its source opened, walked and closed. 0, or the first negative errno with its
 * message in ERR, as ev_pass_run(). */
int ev_pass_experiment(const struct experiment *e, struct ev_consumer *const *c, size_t n,
		       unsigned flags, char *err, size_t errlen);

#endif /* PSC_MODEL_PASS_H */
