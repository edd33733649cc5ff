/* func-print.h - the function profile of `perfscope report` as text, CSV, JSON or a call tree. */
#ifndef PSC_FUNC_PRINT_H
#define PSC_FUNC_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/profile/func-profile.h"
#include "view/view.h"

struct func_report {
	const struct experiment *e;
	const struct func_profile *p; /* rows in display order */
	int per_thread;		      /* rows are per thread (else merged: thread "all") */
	size_t top;		      /* rows to show, 0 = all */
	int64_t min_ns;		      /* rows and tree nodes shorter than this are left out */
	const char *sort_label;	      /* "exclusive time", ... for the heading */
	/* the call tree folds chains of direct recursion deeper than this many levels into one
	 * line (func_tree_build); 0: FUNC_FOLD_RECURSION, FUNC_FOLD_NONE: none */
	uint64_t fold_recursion;
};

#define FUNC_FOLD_NONE UINT64_MAX

/* Chains of direct recursion deeper than this are folded in the call tree by default: deep
 * enough to leave a recursion of a few levels (a tree walk, a divide and conquer over
 * thousands of items) as it ran, shallow enough that a deep one is a line, not a page. */
#define FUNC_FOLD_RECURSION 16

/* The functions R shows (at most R->top of those --min-time leaves) in FMT: the text table
 * (calls, inclusive/exclusive time, share of the run, mean, min, max, source) then how the run
 * ended and every caveat; CSV (name,thread,calls,incl_ns,excl_ns,min_ns,max_ns,file,line) or
 * long CSV, the caveats to NOTES (the command's stderr) as "perfscope: warning:" lines; or a
 * JSON object: functions, threads (with how each stream ended) and caveats. 0, -ENOMEM or
 * -EIO. */
int func_print(const struct func_report *r, enum out_format fmt, FILE *f, FILE *notes);

/* Call FN with one line per caveat of R: the experiment's, each thread's that did not end
 * cleanly, was cut or lost records, and calls closed or exits ignored. */
void func_report_caveats(const struct func_report *r, void (*fn)(void *ctx, const char *line),
			 void *ctx);

/* The call tree in FMT. Text: one line per call path with inclusive time, share, calls and
 * exclusive time, children by inclusive time; chains of direct recursion deeper than
 * R->fold_recursion folded (and said so), indentation up to 32 levels, "[depth D]" below.
 * CSV, long CSV and JSON: one row per node in the same order, with its path from the root
 * ("main;compute;kernel"), depth and values (func-view.h); the caveats as func_print() says
 * them, to NOTES with CSV and long CSV. 0, -ENOMEM or -EIO. */
int func_print_tree(const struct func_report *r, enum out_format fmt, FILE *f, FILE *notes);

#endif /* PSC_FUNC_PRINT_H */
