/*
 * func-profile-int.h - what the files of the function profile share (func-profile.c,
 * func-profile-merge.c, func-tree.c): adding rows and nodes, the key of a call path, and a
 * saturating sum of durations. Not for use outside them.
 */
#ifndef PSC_FUNC_PROFILE_INT_H
#define PSC_FUNC_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile/func-profile.h"
#include "lib/hashmap.h"
#include "model/event.h"

/* A new row of P, zeroed with min_ns INT64_MAX (no call yet), its index in *IDX. NULL when
 * out of memory. */
struct func_row *func_row_add(struct func_profile *p, size_t *idx);

/* A new node of P for ROW under PARENT (FUNC_NO_PARENT: a root) in thread TH, with no counts,
 * its index in *IDX. NULL when out of memory. */
struct func_node *func_node_add(struct func_profile *p, size_t parent, size_t row, size_t th,
				size_t *idx);

/* The key of the call path of ROW under node PARENT (FUNC_NO_PARENT: a root), distinct for
 * every pair below 2^32 nodes and rows. */
static inline uint64_t func_node_key(size_t parent, size_t row)
{
	return ((uint64_t)(parent == FUNC_NO_PARENT ? 0 : parent + 1) << 32) ^ (uint64_t)row;
}

#define PASS_CACHE 1024 /* direct-mapped caches in front of the maps: most lookups repeat */

struct func_omp;

/* The OpenMP events the function profile makes frames of. */
#define FUNC_OMP_KINDS                                                                             \
	(EV_BIT(EV_OMP_PARALLEL_BEGIN) | EV_BIT(EV_OMP_PARALLEL_END) |                             \
	 EV_BIT(EV_OMP_ITASK_BEGIN) | EV_BIT(EV_OMP_ITASK_END) | EV_BIT(EV_OMP_SYNC_ENTER) |       \
	 EV_BIT(EV_OMP_SYNC_LEAVE))

/* An OpenMP frame open on the stream being walked (func-profile-omp.c). */
struct func_omp_open {
	size_t depth;	  /* its node's place in the pass's stack */
	unsigned kind;	  /* enum in func-profile-omp.c */
	uint64_t id;	  /* the parallel region's id (a parallel region or an implicit task) */
	int64_t begin_ns; /* when it opened */
	int64_t child_ns; /* the inclusive times of what ran in it, on this thread */
	int64_t call_ns;  /* of which calls' (the call around it does not count them its own) */
	int barrier;	  /* a parallel region's: its closing barrier had its own records */
};

/* State of one stream's pass (func-profile.c). */
struct pass {
	struct u64map rows;  /* address -> row */
	struct u64map nodes; /* func_node_key(parent, row) -> node */
	struct {
		uint64_t key;
		size_t val;
	} row_cache[PASS_CACHE], node_cache[PASS_CACHE];
	size_t *stack; /* open nodes */
	size_t depth, cap;
	/* with energy: charge at each open node's enter, and the last event's time and charge */
	const struct func_energy *en;
	double *wstack;
	size_t wcap, hint, slice;
	int64_t last_ns;
	double last_w;
	/* OpenMP frames: the open ones, and per stack level the time of the frames that ended
	 * directly inside that level's call (taken from its exclusive time at its exit, and
	 * counted in NADJ while not 0); a call's exit goes through func_omp_exit() while either
	 * is there */
	struct func_omp *omp;	/* the consumer's */
	struct u64map omp_rows; /* frame index -> row */
	struct func_omp_open *open;
	size_t nopen, opencap;
	int64_t *adj;
	size_t adjcap, nadj;
};

/* Push a new activation of ROW of P on PS's stack in thread TH (its node found or added). 0
 * or -ENOMEM. */
int func_pass_push(struct func_profile *p, struct pass *ps, size_t th, size_t row);

/* With energy (PS->en): the bookkeeping at an event at NS, an enter (ENTER) or an exit of
 * INCL_NS: the segment since the last event goes to the node on top; an enter remembers the
 * charge, an exit charges its activation. 0 or -ENOMEM. */
int func_pass_energy(struct func_profile *p, struct pass *ps, int64_t ns, int enter,
		     int64_t incl_ns);

/* Account one call's exit EV in row R and node N. */
void func_row_exit(struct func_row *r, struct func_node *n, const struct ev_call *ev);

/* The OpenMP frames' state of a consumer, shared by its streams; NULL when out of memory. */
struct func_omp *func_omp_new(void);
void func_omp_free(struct func_omp *o);

/* OpenMP event EV of location L (thread TH of P) opening or closing a frame. 0 or -ENOMEM. */
int func_omp_event(struct func_profile *p, struct pass *ps, const struct ev_location *l, size_t th,
		   const struct event *ev);

/* A call's exit EV (at NS) while OpenMP frames are open or owed (PS->nopen, PS->nadj): the
 * frames above it closed, its exclusive time without the frames that ran inside it. 0 or
 * -ENOMEM. */
int func_omp_exit(struct func_profile *p, struct pass *ps, const struct ev_call *ev, int64_t ns);

/* The frames still open at the end of a stream closed at NS (as the source closes calls). 0
 * or -ENOMEM. */
int func_omp_end(struct func_profile *p, struct pass *ps, int64_t ns);

/* P's OpenMP frame rows named from O, their call sites through SYMS (may be NULL). 0 or
 * -ENOMEM. */
int func_omp_name(struct func_profile *p, struct func_omp *o, struct symtab *syms);

/* A + B, pinned at the int64_t limits: a damaged trace (times near 2^62, deep recursion) must
 * not overflow a sum of durations (undefined behaviour). */
static inline int64_t func_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

#endif /* PSC_FUNC_PROFILE_INT_H */
