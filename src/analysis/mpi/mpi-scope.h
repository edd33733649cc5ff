/*
 * mpi-scope.h - time per scope split into computation, MPI and MPI waiting (perfscope report
 * --by scope --categories): a profile in the dimensions rank x scope x category x MPI routine.
 *
 * A scope is a function traced with -finstrument-functions or a region of the regions API;
 * scopes are told apart by kind and name, so the same function on every rank is one scope. An
 * MPI call belongs to the innermost scope open on its thread when it was made (its exclusive
 * MPI time), and to every scope open around it (their inclusive MPI time). Its waiting part is
 * the wait mpi_waits_compute found for that call (every pattern: Late Sender, Late Receiver,
 * the collective ones), at most the call's duration.
 *
 * Categories, exclusive (the scope's own time, without its nested scopes):
 *   comp = excl - MPI time of the calls made directly in it
 *   mpi  = that MPI time minus its wait        (MPI, not waiting)
 *   wait = the wait of those calls             (comp + mpi + wait = excl)
 * and inclusive likewise with incl and every MPI call made while the scope was open (an
 * activation inside another of the same scope, recursion, is counted once).
 *
 * Scope times are on each process's own clock, as in the function and region profiles; MPI
 * times are each call's duration on that clock too, so the categories add up exactly. Waits
 * come from the MPI model (clocks aligned, causality corrected).
 *
 * Nesting: a region ended inside a function it was begun outside of (or a function left while
 * a region begun inside it is open) closes the scopes above it at that time; `misnested`
 * counts those closings, and the record that later ends such a scope is not counted again.
 */
#ifndef PSC_MPI_SCOPE_H
#define PSC_MPI_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-waits.h"
#include "model/symbols.h"
#include "lib/hashmap.h"

enum mpi_scope_kind {
	MPI_SCOPE_FUNCTION,
	MPI_SCOPE_REGION,
	MPI_SCOPE_OUTSIDE, /* "(outside scopes)": MPI calls made with no scope open */
};

/* "function", "region", "outside". */
const char *mpi_scope_kind_name(enum mpi_scope_kind k);

/* One scope on one rank (all of the rank's threads). */
struct mpi_scope_cell {
	uint64_t calls;			   /* activations (the outside scope: its MPI calls) */
	int64_t incl_ns, excl_ns;	   /* the outside scope: both its MPI time */
	uint64_t mpi_calls;		   /* MPI calls made directly in the scope */
	int64_t mpi_excl_ns, wait_excl_ns; /* their time and wait */
	int64_t mpi_incl_ns, wait_incl_ns; /* of every MPI call made while it was open */
};

/* Categories of a cell. */
static inline int64_t mpi_scope_comp(const struct mpi_scope_cell *c)
{
	return c->excl_ns - c->mpi_excl_ns;
}
static inline int64_t mpi_scope_mpi(const struct mpi_scope_cell *c)
{
	return c->mpi_excl_ns - c->wait_excl_ns;
}
static inline int64_t mpi_scope_comp_incl(const struct mpi_scope_cell *c)
{
	return c->incl_ns - c->mpi_incl_ns;
}
static inline int64_t mpi_scope_mpi_incl(const struct mpi_scope_cell *c)
{
	return c->mpi_incl_ns - c->wait_incl_ns;
}

/* The MPI calls made directly in one scope, of one routine, on one rank (MPI_SCOPE_ALL: the
 * sum over the ranks). */
#define MPI_SCOPE_ALL (-1)
struct mpi_scope_op {
	uint32_t scope;
	int rank;
	uint32_t routine; /* enum mpi_routine */
	uint64_t calls;
	int64_t time_ns, wait_ns;
};

struct mpi_scope {
	char *name;
	enum mpi_scope_kind kind;
};

struct mpi_scope_profile {
	int nranks;		  /* the model's world size */
	const uint8_t *present;	  /* nranks: the rank's streams were found (1) */
	struct mpi_scope *scopes; /* most inclusive time (over the ranks) first */
	size_t nscopes, scopes_cap;
	struct mpi_scope_cell *cells; /* nscopes x nranks: [scope * nranks + rank] */
	struct mpi_scope_op *ops;     /* by scope, then rank (MPI_SCOPE_ALL first), routine */
	size_t nops, ops_cap;
	uint64_t misnested;	  /* scopes closed early (see above) */
	uint64_t unmatched_calls; /* MPI records of a thread the model does not hold as calls */
	uint64_t skipped_streams; /* streams of processes that are no rank of the model */
	/* private: scopes by a hash of kind and name, ops by (scope, rank, routine) */
	uint8_t *present_buf;
	struct hchain by_name;
	struct u64map by_op;
};

struct ev_consumer;

/*
 * C: the consumer of a pass (model/pass.h) that builds P from an experiment's streams, whose
 * MPI model M (mpi_model_load) and waits W (mpi_waits_compute on M) are given, naming
 * functions through SYMS. It needs M and W from its first MPI call on (each call finds its
 * place in M by position), so it runs in a pass after the one that builds the model. Run with
 * EV_PASS_KEEP_GOING: a stream of a rank that cannot be read fails it, one of another process
 * is not read. 0, or -ENOMEM (P then released). After a failed pass the caller releases P
 * (mpi_scope_release()); C's release() frees the consumer's state either way.
 */
int mpi_scope_consumer(struct ev_consumer *c, struct mpi_scope_profile *p, struct symtab *syms,
		       const struct mpi_model *m, const struct mpi_waits *w);

/* P built by a pass of its consumer over experiment E. 0, or a negative errno with
 * "file: ..." in ERR. */
int mpi_scope_build(struct mpi_scope_profile *p, const struct experiment *e, struct symtab *syms,
		    const struct mpi_model *m, const struct mpi_waits *w, char *err, size_t errlen);

void mpi_scope_release(struct mpi_scope_profile *p);

/*
 * The profile fed from events read elsewhere (an OTF2 archive, otf2-calls.c) rather than an
 * experiment's streams: one thread at a time, its scopes' enters and leaves (KEY tells a
 * scope's activations apart from others': the archive's region) and its MPI calls in order,
 * the modelled ones exactly as the model M holds that thread's calls (a rank's location
 * whose tid is TID). All return 0 or a negative errno.
 */
struct mpi_scope_feed;
int mpi_scope_feed_open(struct mpi_scope_feed **f, struct mpi_scope_profile *p,
			const struct mpi_model *m, const struct mpi_waits *w);
int mpi_scope_feed_thread(struct mpi_scope_feed *f, int rank, pid_t tid);
int mpi_scope_feed_enter(struct mpi_scope_feed *f, enum mpi_scope_kind kind, const char *name,
			 uint64_t key, int64_t ns);
int mpi_scope_feed_leave(struct mpi_scope_feed *f, uint64_t key, int64_t ns);
void mpi_scope_feed_mpi_enter(struct mpi_scope_feed *f, uint32_t routine, int64_t ns);
int mpi_scope_feed_mpi_leave(struct mpi_scope_feed *f, uint32_t routine, int64_t ns);
/* The thread ends at LAST_NS: open MPI calls and scopes close there. */
int mpi_scope_feed_thread_end(struct mpi_scope_feed *f, int64_t last_ns);
/* OK: the profile finished (sorted, summed over the ranks); else, or on failure, released. */
int mpi_scope_feed_close(struct mpi_scope_feed *f, int ok);

/* A value's spread over the ranks present (a rank where the scope never ran counts as 0). */
struct mpi_scope_spread {
	int64_t min, max;
	double mean;
};

/* SCOPE summed over the ranks present (*SUM), with the spread of its exclusive categories. */
struct mpi_scope_total {
	struct mpi_scope_cell sum;
	struct mpi_scope_spread comp, mpi, wait;
	int nranks; /* ranks present */
};
void mpi_scope_total(const struct mpi_scope_profile *p, size_t scope, struct mpi_scope_total *out);

/* The cell of SCOPE on RANK. */
static inline const struct mpi_scope_cell *mpi_scope_cell(const struct mpi_scope_profile *p,
							  size_t scope, int rank)
{
	return &p->cells[scope * (size_t)p->nranks + (size_t)rank];
}

#endif /* PSC_MPI_SCOPE_H */
