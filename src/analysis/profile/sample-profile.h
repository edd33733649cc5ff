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

#include "format/experiment.h"
#include "model/kallsyms.h"
#include "analysis/profile/samples.h"
#include "analysis/profile/sample-callers.h"
#include "model/symbols.h"

struct sprof_row {
	pid_t pid, tid; /* tid 0 when merged over threads */
	unsigned image;
	uint64_t addr; /* first sampled address seen for the function */
	struct sym_info sym;
	uint64_t samples; /* of the leader's group */
	uint64_t time_ns; /* on-CPU time those samples stand for */
	size_t counts;	  /* index of its nevents counts in sample_profile.counts */
	/*
	 * With call chains: the leader's samples with the function anywhere on their path
	 * (counted once per sample, also when recursive), and their time; without chains the
	 * same as samples and time_ns. A function only seen as a caller has samples 0.
	 */
	uint64_t incl_samples, incl_ns;
	uint32_t cfunc; /* its function in sample_profile.calls */
	uint64_t seen;	/* internal: the last sample that counted it inclusively, plus one */
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
	/* rows and lines by their keys (lib/hashmap.h) */
	struct hchain *index, *line_index;
	struct str_arena names; /* labels of rows without a symbol */
	/* kernel IPs are named from the experiment's kallsyms file, when it has one */
	struct kallsyms ksyms;
	uint64_t kernel_samples, kernel_named; /* the leader's samples in the kernel, named */
	/*
	 * The leader's samples as paths of functions (outermost caller first) merged over the
	 * threads; with call chains (chains is the number of samples that had one), else each
	 * path is just the sampled function.
	 */
	struct scall_tree calls;
	uint64_t chains;
	/*
	 * Kernel frames of the leader's call chains, and those left out of the paths because
	 * no kernel symbol names them (no kallsyms in the experiment).
	 */
	uint64_t kframes, kframes_unnamed;
};

/*
 * Build the profile of E's samples files, per thread when PER_THREAD, with the per-line table
 * when LINES. 0, or a negative errno with the message in ERR.
 */
int sample_profile_build(struct sample_profile *p, const struct experiment *e, struct symtab *syms,
			 int per_thread, int lines, char *err, size_t errlen);

/* Sort rows by time (then samples) descending, lines by samples descending. */
void sample_profile_sort(struct sample_profile *p);

/* How sample_profile_sort_by orders the rows. */
enum sprof_key { SPROF_SELF, SPROF_INCL, SPROF_NAME };

/* Sort rows by KEY (self: time, then samples; incl: inclusive time, then inclusive samples;
 * name), lines by samples descending. */
void sample_profile_sort_by(struct sample_profile *p, enum sprof_key key);

/*
 * Name the kernel address ADDR into *SYM from P's kallsyms: "[kernel]" as a whole when the
 * experiment has none or no symbol holds it. Returns 1 when named.
 */
int sample_kernel_sym(const struct kallsyms *k, uint64_t addr, struct sym_info *sym);

/* The NEVENTS counts of row R. */
static inline const uint64_t *sprof_counts(const struct sample_profile *p,
					   const struct sprof_row *r)
{
	return p->counts + r->counts * p->nevents;
}

void sample_profile_release(struct sample_profile *p);

#endif /* PSC_AN_SPROFILE_H */
