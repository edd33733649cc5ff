/*
 * html-timeline.h - the Timeline view's level of detail (html-timeline-lod.c), used by its
 * data builder (html-timeline.c) and its unit test.
 *
 * Every call, region and MPI routine is a slice (start, duration, name) in a lane: one lane
 * per row (thread or rank) and nesting depth, plus one lane per row for MPI routines. A slice
 * at least min_ns long is kept whole; a shorter one is added to its lane's time bins of
 * bin_ns (split where it crosses a bin's edge), which record the busy time and the name that
 * took most of it (SLOG-2's preview drawables). Budgets bound the report: over slice_budget
 * slices, min_ns rises to keep the slice_budget longest and the others go to bins; over
 * cell_budget bins, bin_ns doubles and neighbouring bins merge.
 */
#ifndef PSC_HTML_TIMELINE_H
#define PSC_HTML_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a slice's key means until tl_resolve() makes it a name id (kind in the top bits). */
#define TL_KEY_REGION (1ull << 63) /* | region id */
#define TL_KEY_MPI    (1ull << 62) /* | routine */
#define TL_SCRATCH    8		   /* names whose time a lane's last bin tracks exactly */

enum tl_kind { TL_FUNCTION, TL_REGION, TL_MPI };

struct tl_slice {
	int64_t start, dur; /* ns from the run's start */
	uint64_t key;	    /* TL_KEY_* or a function address, then a name id */
};

/* A time bin of a lane: [bin * bin_ns, (bin + 1) * bin_ns). */
struct tl_cell {
	uint64_t bin;
	uint64_t key; /* the name that was busy longest in it */
	int64_t busy; /* ns covered by the aggregated slices */
	int64_t dom;  /* ns of that name */
};

struct tl_lane {
	struct tl_slice *sl;
	size_t nsl, slcap;
	struct tl_cell *cells; /* by bin when !unsorted */
	size_t ncells, cellcap;
	int unsorted; /* cells were added out of order (demoted slices) */
	/* the last cell's time per name, so its dominant name is exact for up to TL_SCRATCH */
	struct {
		uint64_t key;
		int64_t ns;
	} scratch[TL_SCRATCH];
	size_t nscratch;
};

/* A row: one thread (of a rank with MPI). lanes[0] holds MPI routines, lanes[1 + d] depth d. */
struct tl_row {
	pid_t pid, tid;
	int rank;	/* -1 without MPI */
	char name[17];	/* the thread's name */
	char omp[40];	/* its OpenMP label ("omp thread 3", thread-label.h), "" none */
	unsigned image; /* program image of the stream (symbols) */
	struct tl_lane *lanes;
	size_t nlanes;
};

struct tl_params {
	int64_t run_ns;	     /* the run's length: min_ns and bin_ns start at run_ns / 65536 */
	size_t slice_budget; /* slices kept whole, at most */
	size_t cell_budget;  /* bins, at most */
	unsigned max_depth;  /* deeper calls are left out (counted) */
};

struct tl_names {
	char **names;
	uint8_t *kinds; /* enum tl_kind */
	size_t n, cap;
	void *index; /* struct hchain (lib/hashmap.h): hash of kind and name -> ids */
};

struct tl_lod {
	struct tl_params p;
	int64_t min_ns, bin_ns;
	struct tl_row *rows;
	size_t nrows, rowcap;
	size_t nslices, ncells; /* over every lane */
	uint64_t calls;		/* slices added */
	uint64_t too_deep;	/* calls deeper than max_depth, left out */
	int raised;		/* the slice budget raised min_ns */
	int coarsened;		/* the bin budget widened bin_ns */
	struct tl_names names;
};

/* Start with P; every other field zero. 0 or -EINVAL (run_ns < 1). */
int tl_init(struct tl_lod *t, const struct tl_params *p);

/* A new row; its index in *ROW. 0 or -ENOMEM. */
int tl_row_add(struct tl_lod *t, pid_t pid, pid_t tid, int rank, unsigned image, size_t *row);

/* A slice of ROW at DEPTH (-1: MPI lane), START and DUR in ns from the run's start, in time
 * order within its lane. 0 or -ENOMEM. */
int tl_add(struct tl_lod *t, size_t row, int depth, int64_t start, int64_t dur, uint64_t key);

/* Replace the keys of ROW's lanes (from FIRST_LANE on, or only lane 0 when ONLY_MPI) by name
 * ids: NAME(ctx, key, &kind) gives each key's name (NULL: out of memory). 0 or -ENOMEM. */
int tl_resolve(struct tl_lod *t, size_t row, int only_mpi,
	       const char *(*name)(void *ctx, uint64_t key, enum tl_kind *kind), void *ctx);

/* Apply the budgets and sort every lane's bins. 0 or -ENOMEM. */
int tl_finish(struct tl_lod *t);

/* The id of NAME of KIND in the string table, added if new; -ENOMEM. */
long tl_name_id(struct tl_names *n, const char *name, enum tl_kind kind);

void tl_release(struct tl_lod *t);

/* MPI messages as arrows: sender's row at the send's start to the receiver's row at the
 * receive's end; the longest arrow_budget of them (in time order). */
struct tl_arrows {
	uint32_t *from, *to;
	int64_t *t0, *t1;
	uint64_t *bytes;
	size_t n;
	size_t total; /* matched messages */
};

struct html_input;

/* The timeline of IN's experiment (html-timeline.c): every stream's calls and regions, the
 * MPI model's calls and messages, under the given budgets (P's run_ns is computed).
 * *ORIGIN_NS is the run's start (CLOCK_MONOTONIC, rank 0's with MPI). 1 and T, A filled,
 * 0 when there is nothing to show, -ENOMEM. Unreadable streams are caveats. */
int tl_build(struct tl_lod *t, struct tl_arrows *a, int64_t *origin_ns, struct html_input *in,
	     const struct tl_params *p, size_t arrow_budget);

void tl_arrows_release(struct tl_arrows *a);

#endif /* PSC_HTML_TIMELINE_H */
