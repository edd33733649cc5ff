/*
 * fprofile.h - the function profile of a traced experiment: per function and thread, calls,
 * inclusive time (recursion not counted twice), exclusive time, shortest and longest call,
 * and the call tree. One streaming pass per stream: memory grows with functions x threads
 * (and call paths for the tree), not with events.
 */
#ifndef PSC_AN_FPROFILE_H
#define PSC_AN_FPROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/calls.h"
#include "format/experiment.h"
#include "model/str-arena.h"
#include "model/symbols.h"

struct func_row {
	pid_t pid, tid; /* tid 0 in a row merged over threads and processes */
	unsigned image;
	uint64_t addr;	     /* runtime address in its process image (first one seen when merged) */
	struct sym_info sym; /* strings owned by the profile's symtab */
	uint64_t calls;
	int64_t incl_ns; /* outermost activations only: a recursive call is inside its caller */
	int64_t excl_ns;
	int64_t sum_ns; /* every call's duration, recursive ones too: the mean per call */
	int64_t min_ns, max_ns;
	/* merged rows: the largest inclusive time of one thread (func_profile_imbalance) */
	int64_t thread_max_ns;
	uint64_t synthetic; /* calls closed at the end of a cut-short stream, or skipped */
	unsigned active;    /* activations open during the pass */
	/* with a struct func_energy: */
	double incl_j, excl_j;	   /* energy charged, as incl_ns and excl_ns */
	int64_t covered_ns;	   /* exclusive time within the power samples' span */
	int64_t incl_covered_ns;   /* inclusive time (outermost calls) within that span */
	struct func_slice *slices; /* exclusive time and energy per interval, or NULL */
	/* an OpenMP construct's frame ("[omp parallel SITE]", "[omp barrier]"...: named, with
	 * module "" and addr 0) rather than a function: 1 + its index in the pass, else 0 */
	size_t omp_frame;
	size_t thread; /* index in threads of a per-thread row's thread; 0 in a merged profile */
};

/* A row's share of one time interval. */
struct func_slice {
	int64_t ns;
	double j;
};

/*
 * Energy charged to the calls as the profile is built (energy.h prepares it). A thread's
 * call from a to b is charged at(b) - at(a), and its exclusive segments likewise, so the
 * energy of a run cut at function boundaries adds up exactly.
 */
struct func_energy {
	/* Energy in J charged to a thread that is inside traced code, from the start up to NS;
	 * non-decreasing. *HINT: the caller's cursor, 0 at the start of each stream. */
	double (*at)(const void *ctx, int64_t ns, size_t *hint);
	const void *ctx;
	int64_t cover_start, cover_end; /* span of the power samples */
	const int64_t *edges;		/* nintervals + 1 increasing times, or NULL */
	size_t nintervals;
};

#define FUNC_NO_PARENT SIZE_MAX

/* A call path: a function called from its parent's path. */
struct func_node {
	size_t parent; /* node index, FUNC_NO_PARENT for a root */
	size_t row;    /* its function's row */
	size_t thread; /* index in threads; in a merged profile 0 */
	uint64_t calls;
	int64_t incl_ns, excl_ns;
};

struct func_thread {
	pid_t pid, tid;
	unsigned image;
	struct call_thread th;
	int64_t traced_ns; /* first to last record of the stream */
};

struct func_profile {
	struct symtab *syms; /* not owned */
	struct func_row *rows;
	size_t nrows, rowcap;
	struct func_node *nodes;
	size_t nnodes, nodecap;
	struct func_thread *threads;
	size_t nthreads;
	uint64_t function_records; /* over all streams */
	/* the caveat when there are none (a static string), NULL for an experiment's: "build the
	 * program with -finstrument-functions" */
	const char *no_records_caveat;
	uint64_t unmatched_exits, synthetic_exits;
	uint64_t unwound;      /* calls the runtime closed where it saw a longjmp or an exception */
	int64_t total_ns;      /* traced time summed over threads with function events */
	size_t traced_threads; /* threads with function events (over every process) */
	size_t nintervals;     /* of every row's slices */
	/* the names of the OpenMP frames' rows */
	struct str_arena omp_names;
};

struct region_profile;
struct ev_consumer;

/*
 * C: a consumer (model/pass.h) building P (emptied here) from the calls of an experiment
 * source's streams, naming functions through SYMS once the pass is done, with ENERGY (may be
 * NULL) the energy of every call; with SYMS NULL (an OTF2 archive's calls, whose addresses
 * are no program's), the rows keyed by the calls' addresses as they are and left unnamed for
 * the caller (otf2_func_profile_name). NLOCATIONS: the source's. 0 or -ENOMEM; C is to be
 * released (ev_consumer_release()) either way, P with func_profile_release().
 * With OpenMP events (EV_OMP_*), the constructs are rows and nodes of their own (omp_frame):
 * a parallel region on the thread that encountered it, inside the function that opened it; a
 * team member's implicit task, the root of its calls; a wait (barrier, lock, critical ...).
 * Their time is not the exclusive time of the call around them (func-profile-omp.c).
 */
int func_profile_consumer(struct ev_consumer *c, struct func_profile *p, struct symtab *syms,
			  const struct func_energy *energy, size_t nlocations);

/* The profile of every stream of E in one pass of the experiment source, with REGIONS (may be
 * NULL) the region profile in the same pass, and ENERGY (may be NULL) as for
 * func_profile_consumer(). 0, or a negative errno with "file: byte N: ..." in ERR. */
int func_profile_build(struct func_profile *p, const struct experiment *e, struct symtab *syms,
		       struct region_profile *regions, const struct func_energy *energy, char *err,
		       size_t errlen);

/* Rows and call tree merged over threads and processes (the same function: the same module
 * and address in it; an OpenMP frame: the same name), into OUT. 0 or -ENOMEM. */
int func_profile_merge(const struct func_profile *in, struct func_profile *out);

/*
 * The load imbalance of merged row R of P over the threads (of every rank) that recorded
 * function events: (max - mean) / max of their inclusive times in the function, in %, a thread
 * that never called it counting 0 (POP's load balance of one scope). NaN when it does not
 * apply: fewer than 2 such threads, or no time.
 */
double func_profile_imbalance(const struct func_profile *p, const struct func_row *r);

/*
 * A call tree to show: P's call paths with each chain of direct recursion (f called by f called
 * by f ...) deeper than a limit folded into one node, so that a recursion a million levels
 * deep is one line rather than a million. A folded node stands for every level of its chain:
 * calls and exclusive time summed over the levels, inclusive time that of the outermost call
 * (the others are inside it), and as children the other functions called from any level,
 * merged by function (a callee's calls from different levels never overlap in time, so their
 * sums are its time under the recursion). Inclusive time stays exclusive time plus the
 * children's inclusive times at every node.
 */
struct func_tree {
	struct func_node *nodes; /* parents before children; row and thread as in P */
	uint64_t *levels;	 /* per node: the levels of recursion it stands for (1: none) */
	size_t nnodes;
	size_t folded;	     /* chains folded */
	uint64_t max_levels; /* the deepest chain folded (0: none) */
};

/* T (emptied) from P's call tree, folding the chains of direct recursion of more than
 * FOLD_FROM levels (0: none folded; 1: every one). 0 or -ENOMEM. */
int func_tree_build(struct func_tree *t, const struct func_profile *p, uint64_t fold_from);

void func_tree_release(struct func_tree *t);

/* Sort the rows with CMP (qsort_r style), keeping the call tree's references to them. 0 or
 * -ENOMEM. */
int func_profile_sort(struct func_profile *p, int (*cmp)(const void *, const void *, void *),
		      void *ctx);

void func_profile_release(struct func_profile *p);

#endif /* PSC_AN_FPROFILE_H */
