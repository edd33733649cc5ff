/*
 * sprofile.h - the profile of a sampled experiment: per function (and thread), the leader's
 * samples, their share, the on-CPU time they stand for, and what every sampled event counted
 * there (the deltas the samples carry); optionally per source line. Estimated totals (the
 * sums of the deltas) sit next to the exact counts of the same events for --accuracy.
 */
#ifndef PSC_AN_SPROFILE_H
#define PSC_AN_SPROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"
#include "samples.h"
#include "symbols.h"

struct sprof_row {
	pid_t pid, tid; /* tid 0 when merged over threads */
	unsigned image;
	uint64_t addr; /* first sampled address seen for the function */
	struct sym_info sym;
	uint64_t samples; /* of the leader's group */
	uint64_t time_ns; /* on-CPU time those samples stand for */
	size_t counts;	  /* index of its nevents counts in sample_profile.counts */
};

struct sprof_line {
	const char *file; /* "" when the address has no line information */
	unsigned line;
	const char *func;
	const char *module;
	uint64_t samples, time_ns;
};

struct sample_profile {
	struct symtab *syms; /* not owned */
	struct sample_walk walk;
	uint32_t nevents;
	int per_thread;
	struct sprof_row *rows;
	size_t nrows, rowcap;
	uint64_t *counts; /* nevents per row */
	struct sprof_line *lines;
	size_t nlines, linecap;
	uint64_t samples, time_ns; /* leader's samples and their time, over all rows */
	uint64_t *estimated;	   /* per event: the sum of every sample's delta */
	struct u64map *index, *line_index;
	struct str_arena names; /* labels of rows without a symbol */
};

/*
 * Build the profile of E's samples files, per thread when PER_THREAD, with the per-line table
 * when LINES. 0, or a negative errno with the message in ERR.
 */
int sample_profile_build(struct sample_profile *p, const struct experiment *e, struct symtab *syms,
			 int per_thread, int lines, char *err, size_t errlen);

/* Sort rows by time (then samples) descending, lines by samples descending. */
void sample_profile_sort(struct sample_profile *p);

/* The NEVENTS counts of row R. */
static inline const uint64_t *sprof_counts(const struct sample_profile *p,
					   const struct sprof_row *r)
{
	return p->counts + r->counts * p->nevents;
}

void sample_profile_release(struct sample_profile *p);

#endif /* PSC_AN_SPROFILE_H */
