/* sample-print.h - the profile of a sampled experiment as text, CSV or JSON (`perfscope report`).
 */
#ifndef PSC_SAMPLE_PRINT_H
#define PSC_SAMPLE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "format/experiment.h"
#include "analysis/profile/sample-profile.h"
#include "view/view.h"

struct sample_report {
	const struct experiment *e;
	const struct sample_profile *p; /* sorted */
	size_t top;			/* rows (and lines) to show, 0 = all */
	int lines;			/* the hottest source lines too */
	int accuracy;			/* estimated against exact totals instead of functions */
	/* set by sample_report_setup */
	int tree;	     /* the top-down call tree instead of the functions */
	const char *callers; /* the callers tree of this function instead, or NULL */
	uint64_t min_ns;     /* leave out functions and call paths under this inclusive time */
	double min_share;    /* and rows (self) and tree nodes (inclusive) under this % of the
				samples; 0: none */
};

/* The options of `report` as the sampled view sees them. */
struct sample_view {
	int tree;	      /* --tree */
	const char *callers;  /* --callers FUNC, or NULL */
	const char *sort_key; /* --sort KEY, or NULL */
	uint64_t min_ns;      /* --min-time, 0 when not given */
	double min_share;     /* --min-share PCT (0 < PCT <= 100), 0 when not given */
};

/*
 * How many functions (flat view) or call-tree nodes (--tree, --callers: a hidden node's
 * callees or callers counted too) R's min_share hides.
 */
size_t sample_report_hidden(const struct sample_report *r);

/* The experiment has call chains: functions get their inclusive ("children") share too. */
int sample_report_has_chains(const struct sample_report *r);

/* Event K was not sampled (not supported here): its counts are unknown, not zero. */
int sample_report_missing(const struct sample_report *r, uint32_t k);

/* PART's share of WHOLE in % (0 when WHOLE is 0). */
double sample_share(uint64_t part, uint64_t whole);

/*
 * Check V against R's profile P (sorting P's rows and call tree as asked) and fill R's view
 * fields: 0, or -EINVAL with a one-line message for the user in ERR (an option the sampled view
 * does not have, or a call tree from an experiment without call chains).
 */
int sample_report_setup(struct sample_report *r, struct sample_profile *p,
			const struct sample_view *v, char *err, size_t errlen);

/*
 * Heading (leader, frequency, events, samples, losses), the functions by estimated time with
 * their share of the samples and each event's count (or the call tree, or the callers tree),
 * then with LINES the hottest lines; with ACCURACY the accuracy instead. 0 or -EIO.
 */
int sample_print_text(const struct sample_report *r, FILE *f);

/*
 * CSV (FMT OUT_CSV) or long CSV (OUT_LONG, view.h) of the view R shows, from its columns
 * (sample-view.h): the functions (name,thread,samples,share,time_ns,<one column per event>,
 * file,line, plus incl_samples,incl_share,incl_ns with call chains); with LINES the lines
 * (file,line,function,samples,share,time_ns); with the tree its nodes (path,name,module,depth,
 * samples,share,self_samples,self_share,time_ns,self_ns); with CALLERS the callers tree
 * (depth,function,module,samples,share,time_ns; the long CSV's entities have its path too);
 * with ACCURACY the accuracy. The caveats, and what --min-share hid, go to NOTES (the
 * command's stderr). 0, -ENOMEM or -EIO.
 */
int sample_print_csv(const struct sample_report *r, enum out_format fmt, FILE *f, FILE *notes);

/* JSON object: sampling settings, the callers tree or the call tree when shown, functions,
 * lines, accuracy, threads, caveats. 0, -ENOMEM or -EIO. */
int sample_print_json(const struct sample_report *r, FILE *f);

/*
 * Per event: the total estimated from the samples (sum of their deltas), the exact count of
 * the same events, and the difference in %; as a table with its heading and the caveats (FMT
 * OUT_TEXT), or CSV event,estimated,exact,diff_pct, or long CSV (the caveats to NOTES, which
 * may be NULL with OUT_TEXT). 0, -ENOMEM or -EIO.
 */
int sample_print_accuracy(const struct sample_report *r, FILE *f, enum out_format fmt, FILE *notes);

struct jsonw;

/*
 * sample-tree.c: the nodes of the tree that R prints (the call tree, or the callers tree of
 * r->callers) that its min_share hides, with all below them; 0 when the tree cannot be built.
 */
size_t sample_tree_hidden(const struct sample_report *r);

/*
 * sample-tree.c: the tree R shows (the callers tree of r->callers, else the call tree) from
 * the root's children down, without the nodes --min-time and --min-share leave out: as text
 * (FMT OUT_TEXT: heading and lines) to F, CSV or long CSV to F, or JSON into W (the call tree
 * an array of nodes, each with its path and depth; the callers tree an object with the
 * function and its callers nested). 0, -EINVAL (no such function), -ENOMEM or -EIO.
 */
int sample_print_trees(const struct sample_report *r, enum out_format fmt, FILE *f,
		       struct jsonw *w);

/* sample-tree.c: the call tree as text (sample_print_trees). 0, -ENOMEM or -EIO. */
int sample_print_tree(const struct sample_report *r, FILE *f);

/*
 * sample-tree.c: the callers tree of r->callers: into W as a JSON object when W is given, else
 * to F as CSV or text (sample_print_trees). 0, -ENOMEM or -EIO.
 */
int sample_print_callers(const struct sample_report *r, FILE *f, int csv, struct jsonw *w);

#endif /* PSC_SAMPLE_PRINT_H */
