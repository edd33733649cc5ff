/*
 * metrics.h - metric groups: text files listing events to count and named formulas over them
 * (IPC, miss ratios, rates). The file format and the formula grammar are in docs/metrics.md.
 *
 * Nothing here prints or exits. Functions return 0 or a negative errno code; parse errors put
 * exactly one line into the caller's ERR buffer (which may be NULL when ERRLEN is 0).
 */
#ifndef PSC_METRICS_H
#define PSC_METRICS_H

#include <stddef.h>

/* File name suffix of metric group files. */
#define METRIC_GROUP_SUFFIX ".metrics"
/* Builtin variables every formula may use; the caller's lookup provides their values. */
#define METRIC_BUILTIN_TIME_NS "time_ns"
#define METRIC_BUILTIN_TIME_S  "time_s"

struct metric_expr; /* opaque parsed formula */

struct metric {
	char *name;    /* "IPC" */
	char *unit;    /* "%" or "" (never NULL) */
	char *formula; /* the text after '=' as written, trimmed */
	struct metric_expr *expr;
	unsigned line; /* line of the group file that defines it */
};

struct metric_group {
	char *name;	   /* file stem */
	char *description; /* "" if none */
	char *path;	   /* as given */
	char **events;	   /* in file order, without duplicates */
	size_t nevents;
	struct metric *metrics;
	size_t nmetrics;
};

/*
 * Lookup of a formula input (event or builtin) by NAME: 0 and *VALUE when found, negative
 * when the value is missing (event not supported or not counted).
 */
typedef int (*metric_lookup_fn)(void *ctx, const char *name, double *value);

/*
 * Parse the text of a group file into G, named NAME; PATH (may be NULL) is used in messages.
 * 0, -EINVAL with "PATH:LINE: message" in ERR, or -ENOMEM. G is zeroed on failure.
 */
int metric_group_parse(struct metric_group *g, const char *name, const char *path, const char *text,
		       char *err, size_t errlen);

/*
 * Read and parse the file PATH; the group is named for the basename without its suffix.
 * -errno with "PATH: strerror" in ERR when the file is unreadable, else as metric_group_parse.
 */
int metric_group_load(struct metric_group *g, const char *path, char *err, size_t errlen);

/* Free everything G owns and zero it; a zeroed G is fine. */
void metric_group_release(struct metric_group *g);

/*
 * Evaluate M: 0 and *OUT on success, -ENODATA when an input is missing (the metric is
 * "unavailable"), -EDOM on division by zero or a non-finite result. *OUT is set only on 0.
 */
int metric_eval(const struct metric *m, metric_lookup_fn lookup, void *ctx, double *out);

/*
 * Find group NAME (or a path containing '/' or ending in .metrics, used as is) in the
 * directories DIRS[0..n-1], first match wins; writes the file path. 0, -ENOENT, -ENAMETOOLONG.
 */
int metric_group_find(const char *name, const char *const *dirs, size_t ndirs, char *path,
		      size_t pathlen);

/*
 * Call FN for each *.metrics file in DIRS (first directory wins for duplicate names), sorted by
 * name; directories that cannot be opened and files named ".*" are skipped. 0, -ENOMEM, or
 * FN's first non-zero return value.
 */
int metric_group_foreach(const char *const *dirs, size_t ndirs,
			 int (*fn)(void *ctx, const char *name, const char *path), void *ctx);

/* Parse a standalone formula into *OUT; -EINVAL with "column N: message" in ERR, or -ENOMEM. */
int metric_expr_parse(const char *text, struct metric_expr **out, char *err, size_t errlen);

/* Free a parsed formula; NULL is fine. */
void metric_expr_free(struct metric_expr *e);

/* Evaluate E; return values as metric_eval. */
int metric_expr_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *ctx, double *out);

/*
 * Write the distinct inputs of E that LOOKUP cannot find into BUF, comma separated, in formula
 * order (for "unavailable (missing: X, Y)"); returns how many there are (0: none missing).
 */
int metric_expr_missing(const struct metric_expr *e, metric_lookup_fn lookup, void *ctx, char *buf,
			size_t buflen);

#endif /* PSC_METRICS_H */
