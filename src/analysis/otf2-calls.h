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

#include "fprofile.h"
#include "maps.h"
#include "mpi-model.h"
#include "mpi-scope.h"
#include "mpi-waits.h"

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
