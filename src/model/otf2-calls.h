/*
 * otf2-calls.h - the calls of an OTF2 archive (Score-P's, or perfscope export's), as its
 * source gives them (ev_source_otf2, pass.h), and perfscope report's profiles of them: the
 * function profile (func-profile.h) and the scope profile of --by scope --categories
 * (mpi-scope.h).
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

struct ev_source;
struct ev_location;
struct ev_consumer;

/* A region of an archive source (ev_source_otf2), by its index: the ev.call.addr of its calls. */
struct otf2_region {
	const char *name; /* as shown (its canonical name where the archive gives one) */
	const char *file; /* its source file, "" unknown */
	uint32_t line;	  /* its first line, 0 unknown */
	int32_t routine;  /* MPI routine id; -1 no MPI routine; -2 one the MPI model lacks */
	int mpi;	  /* of the MPI paradigm (an MPI routine or not) */
	int function;	  /* of role FUNCTION (else a region, a loop, ...) */
};

/* How many regions the archive source SRC defines; 0 for a source of another kind. */
size_t otf2_source_nregions(const struct ev_source *src);

/* The region of index I of SRC (valid until ev_source_close()), NULL when there is none. */
const struct otf2_region *otf2_source_region(const struct ev_source *src, uint32_t i);

/* The anchor file SRC was opened with, for messages ("" for a source of another kind). */
const char *otf2_source_anchor(const struct ev_source *src);

/* The index of location LOC of SRC among its rank's locations (the rank's thread). */
uint32_t otf2_source_thread(const struct ev_source *src, const struct ev_location *loc);

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

/* Name the rows of P, the function profile of the archive source SRC built by
 * func_profile_consumer() (with no symtab), after its pass: the regions' names, and their
 * source (file and first line) or the file alone as the module ("MPI" for Score-P's MPI
 * routines), copied into NAMES; P's caveat for an archive without calls. 0 or -ENOMEM. */
int otf2_func_profile_name(struct func_profile *p, struct str_arena *names,
			   const struct ev_source *src);

/* The function profile of the archive whose anchor file is ANCHOR into P (P->syms NULL; the
 * rows' names and files in NAMES): one pass of its source. 0, or a negative errno with
 * "ANCHOR: ..." in ERR. */
int otf2_func_profile(struct func_profile *p, struct str_arena *names, const char *anchor,
		      char *err, size_t errlen);

/*
 * C: a consumer (pass.h) of the archive source SRC building P, the scope profile of the
 * archive whose MPI model M was loaded from it (mpi_model_load_otf2) with its waits W. A scope
 * is a region that is no MPI routine (a function for role FUNCTION, else a region); an MPI
 * call the model holds is charged to the innermost scope open around it, others (routines the
 * model does not know) stay in their scope's computation. P is finished at the pass's end;
 * released with C (ev_consumer_release()) when the pass failed. 0 or -ENOMEM.
 */
int otf2_scope_consumer(struct ev_consumer *c, struct mpi_scope_profile *p,
			const struct ev_source *src, const struct mpi_model *m,
			const struct mpi_waits *w);

/* The scope profile of the archive ANCHOR (otf2_scope_consumer) in one pass of its source.
 * 0, or a negative errno with "ANCHOR: ..." in ERR. */
int otf2_scope_profile(struct mpi_scope_profile *p, const char *anchor, const struct mpi_model *m,
		       const struct mpi_waits *w, char *err, size_t errlen);

#endif /* PSC_OTF2_CALLS_H */
