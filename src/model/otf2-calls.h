/*
 * otf2-calls.h - the Enter/Leave events of an OTF2 archive (Score-P's, or perfscope export's)
 * as perfscope report's profiles: the function profile (fprofile.h) and the scope profile of
 * --by scope --categories (mpi-scope.h).
 *
 * Every region of the archive is a row of the function profile, MPI routines too (named as
 * the archive names them, "MPI_Send"): a call's exclusive time leaves out the regions entered
 * inside it, MPI calls included. A row's thread is its location: pid is the location's rank
 * (its process's index), tid the OTF2 location id. Times are the archive's ticks in ns since
 * its global offset. A Leave that skips open regions closes them first (counted as calls
 * without an exit record), a Leave of a region not open is dropped and counted, and regions
 * open at a location's last event end there, as the stream walker does (calls.h).
 */
#ifndef PSC_OTF2_CALLS_H
#define PSC_OTF2_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile/func-profile.h"
#include "model/maps.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/mpi/mpi-waits.h"

/*
 * The walk of an archive's calls: its definitions read by otf2_walk_open(), then each rank's
 * locations' Enter/Leave events matched into calls on one stack per location by
 * otf2_walk_run(), which hands them to the caller's callbacks. The profiles below and the
 * HTML report's timeline are built on it.
 */
struct otf2_walk;

/* A location of a rank (a thread of an MPI process) as the walk reads it. */
struct otf2_walk_loc {
	uint64_t id;	  /* the OTF2 location id */
	int rank;	  /* its process's index (the MPI import's rank) */
	uint32_t thread;  /* its index among its rank's locations */
	const char *name; /* as the archive names it */
};

/* A region of the archive, by its index in the walk (otf2_walk_region()). */
struct otf2_walk_region {
	const char *name; /* as shown (its canonical name where the archive gives one) */
	const char *file; /* its source file, "" unknown */
	uint32_t line;	  /* its first line, 0 unknown */
	int32_t routine;  /* MPI routine id; -1 no MPI routine; -2 one the MPI model lacks */
	int mpi;	  /* of the MPI paradigm (an MPI routine or not) */
	int function;	  /* of role FUNCTION (else a region, a loop, ...) */
};

/* A call: its Enter seen (to enter()), or its Leave too (to leave()). */
struct otf2_call {
	uint32_t region;	    /* index of its region */
	unsigned depth;		    /* calls open around it on its location */
	int64_t enter_ns, leave_ns; /* ns since the archive's global offset; leave: leave() */
	int64_t incl_ns;	    /* leave(): leave - enter, 0 when the clock went back */
	int64_t excl_ns;	    /* leave(): incl_ns less the calls made inside it */
	int synthetic;		    /* leave(): closed without its own Leave event */
};

/* What the walk calls (any may be NULL); a negative errno returned stops it with that error. */
struct otf2_walk_ops {
	int (*location)(void *ctx, const struct otf2_walk_loc *l); /* before its events */
	int (*enter)(void *ctx, const struct otf2_call *c);
	int (*leave)(void *ctx, const struct otf2_call *c);
	/* after its events, TH its counts: records, synthetic and unmatched exits, its span */
	int (*location_end)(void *ctx, const struct otf2_walk_loc *l, const struct call_thread *th);
};

/* Open the archive whose anchor file is ANCHOR and read its definitions into *W. 0, or a
 * negative errno with "ANCHOR: ..." in ERR (kept for the walk's later failures too: ERR must
 * live until otf2_walk_close()). *W is set either way: otf2_walk_close() it. */
int otf2_walk_open(struct otf2_walk **w, const char *anchor, char *err, size_t errlen);

/* How many locations of ranks the walk reads, regions it knows. */
size_t otf2_walk_nlocs(const struct otf2_walk *w);
size_t otf2_walk_nregions(const struct otf2_walk *w);

/* The region of index I (< otf2_walk_nregions()). */
const struct otf2_walk_region *otf2_walk_region(const struct otf2_walk *w, uint32_t i);

/*
 * Read the events of every location of a rank (once per open), in the definitions' order,
 * calling OPS with CTX. A Leave closes the calls opened inside its region's call first
 * (synthetic), a Leave of a region not open is counted (unmatched) and dropped, an Enter of an
 * undefined region fails; calls open at a location's last event (any event: ProgramEnd too)
 * close there. When a location's events cannot be read to the end (OTF2's error, or that
 * Enter), its open calls close at the last event read and location_end is called before the
 * walk stops with the error; a callback's error stops it at once. 0, or a negative errno with
 * "ANCHOR: ..." in ERR.
 */
int otf2_walk_run(struct otf2_walk *w, const struct otf2_walk_ops *ops, void *ctx);

void otf2_walk_close(struct otf2_walk *w);

/* OTF2's error messages, kept while an archive is read with OTF2's reader directly (the walk
 * and the import keep theirs in buffers of their own). */
#define OTF2_ERRORS_LEN 256
struct otf2_errors {
	char msg[OTF2_ERRORS_LEN]; /* the first messages of a failure, "" none */
	void (*old)(void);	   /* OTF2's callback before, restored by otf2_errors_end() */
};

/* Keep OTF2's error messages in E->msg from now on, until otf2_errors_end(E). */
void otf2_errors_begin(struct otf2_errors *e);
void otf2_errors_end(struct otf2_errors *e);

/* The function profile of the archive whose anchor file is ANCHOR into P (P->syms NULL; the
 * rows' names and files in NAMES). 0, or a negative errno with "ANCHOR: ..." in ERR. */
int otf2_func_profile(struct func_profile *p, struct str_arena *names, const char *anchor,
		      char *err, size_t errlen);

/*
 * The scope profile of the archive ANCHOR, whose MPI model M was loaded from it
 * (mpi_model_load_otf2) with its waits W. A scope is a region that is no MPI routine (a
 * function for role FUNCTION, else a region); an MPI call the model holds is charged to the
 * innermost scope open around it, others (routines the model does not know) stay in their
 * scope's computation. 0, or a negative errno with "ANCHOR: ..." in ERR.
 */
int otf2_scope_profile(struct mpi_scope_profile *p, const char *anchor, const struct mpi_model *m,
		       const struct mpi_waits *w, char *err, size_t errlen);

#endif /* PSC_OTF2_CALLS_H */
