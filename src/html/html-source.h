/*
 * html-source.h - the pieces of the report's "source" data (html-source.c) that are exact
 * logic, kept apart so unit tests can check them: a source file split into lines with a cost
 * per line and metric, where a function or a region lies in the text, and how the scopes nest.
 */
#ifndef PSC_HTML_SOURCE_H
#define PSC_HTML_SOURCE_H

#include <stddef.h>
#include <stdint.h>

/* What a line's cost is measured in. */
enum src_metric { SRC_TIME, SRC_SAMPLES, SRC_ENERGY, SRC_NMETRICS };

/* "time", "samples", "energy". */
const char *src_metric_name(enum src_metric m);

/* A source file's text split into lines, with a cost per line and metric. */
struct src_file {
	char *path;
	char *text;		    /* owned; every line NUL-terminated in place */
	char **lines;		    /* nlines, into text, without their '\n' (and '\r') */
	unsigned nlines;	    /* a final line without '\n' counts; an empty file has none */
	double *cost[SRC_NMETRICS]; /* nlines each (line N at N - 1), NULL until a cost is added */
	double total[SRC_NMETRICS]; /* of the lines */
};

/* Make F the file PATH with TEXT of SIZE bytes (F takes TEXT, malloc'd with room for SIZE + 1
 * bytes, and copies PATH). 0 or -ENOMEM (then TEXT is freed too). */
int src_file_init(struct src_file *f, const char *path, char *text, size_t size);

/* Add V to line LINE (1-based) in metric M. 0, -ERANGE for a line the file does not have, or
 * -ENOMEM. */
int src_file_add(struct src_file *f, enum src_metric m, unsigned line, double v);

/* The cost of lines FIRST..LAST (inclusive, clipped to the file) in metric M. */
double src_file_sum(const struct src_file *f, enum src_metric m, unsigned first, unsigned last);

void src_file_release(struct src_file *f);

/*
 * The last line of a function whose definition starts at line FIRST, from the text: the line
 * of the '}' matching the first '{' at or after FIRST (braces in comments, strings and
 * character literals ignored). The search stops before line LIMIT (0: the end of the file);
 * 0 when no matching brace is found there.
 */
unsigned src_brace_end(const struct src_file *f, unsigned first, unsigned limit);

/*
 * Where region NAME is marked in the text: the first line calling psc_region_begin("NAME")
 * or PSC_REGION_BEGIN("NAME") in *FIRST and the first line after it ending it the same way
 * in *LAST. 0, or -ENOENT when the text has no such begin and end.
 */
int src_region_lines(const struct src_file *f, const char *name, unsigned *first, unsigned *last);

#define SRC_NO_PARENT SIZE_MAX

/* A function or region where it lies in one file. */
struct src_scope {
	unsigned first, last; /* lines, first <= last */
	size_t parent;	      /* the innermost scope holding it (index), or SRC_NO_PARENT */
	unsigned depth;	      /* 0 outermost */
	size_t id;	      /* the caller's, kept through the sort */
};

/*
 * Sort the N scopes of one file by first line (the longer first at equal first lines, then by
 * id) and give each its parent: the innermost earlier scope whose lines hold all of its own.
 * A scope that overlaps another without being inside it is a sibling of it. 0 or -ENOMEM.
 */
int src_scopes_nest(struct src_scope *s, size_t n);

#endif /* PSC_HTML_SOURCE_H */
