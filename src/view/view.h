/*
 * view.h - a report as data: columns declared once (key, header, type, alignment, getter),
 * rows, and one renderer per output format (text table, CSV, JSON rows, long CSV), with
 * sorting by a column's key.
 *
 * A column's key is its stable machine name: the CSV header, the JSON key, the long CSV's
 * metric and the --sort key. Its type decides how a value is written: in text through the
 * fmt_* helpers of table.h, in CSV and JSON as plain numbers. Where the formats of a report
 * differ in their columns (a JSON key a text table does not show), the column says in which
 * formats it appears (VIEW_IN_*).
 */
#ifndef PSC_VIEW_H
#define PSC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "view/table.h"

struct jsonw;

/* The output formats of every view: --csv, --json, --format text|csv|json|long. */
enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_LONG };

/* How a value is written. Strings are written as they are whatever the type. */
enum view_type {
	VIEW_STR,	/* text */
	VIEW_INT,	/* an integer, written plainly: a thread id, a line */
	VIEW_COUNT,	/* an unsigned count: "1,234,567" in text */
	VIEW_NS,	/* a duration in ns: fmt_duration in text; CSV an integer */
	VIEW_DOUBLE,	/* fmt_double in text; CSV "%.6g" */
	VIEW_PCT,	/* a percentage: "%.1f" in text; CSV "%.6g" */
	VIEW_SHARE,	/* a share in %: "%.1f %" in text; CSV "%.4f" */
	VIEW_RATE,	/* a rate in bit/s: "8 Mbit/s", "1.23 Gbit/s" in text; CSV "%.9g" */
	VIEW_NS_1,	/* a mean duration: as VIEW_NS in text; CSV "%.1f" */
	VIEW_PCT_6,	/* a percentage: as VIEW_PCT in text; CSV "%.6f" */
	VIEW_DOUBLE_15, /* as VIEW_DOUBLE in text; CSV "%.15g" (energies in J) */
	VIEW_DOUBLE_9,	/* as VIEW_DOUBLE in text; CSV "%.9g" (powers, their statistics) */
	VIEW_DOUBLE_3,	/* as VIEW_DOUBLE in text; CSV "%.3f" (counter values and rates) */
	VIEW_FRAC,	/* a fraction in [0, 1]: "%.1f %" of 100 x it in text; CSV "%.6f" of it */
};

/* The formats a column appears in. */
#define VIEW_IN_TEXT 0x1
#define VIEW_IN_CSV  0x2
#define VIEW_IN_JSON 0x4
#define VIEW_IN_ALL  (VIEW_IN_TEXT | VIEW_IN_CSV | VIEW_IN_JSON)
/* Names the row (a long CSV repeats it on every line) rather than measuring it. */
#define VIEW_ENTITY 0x8
/* Shown only when the view's `per_thread` is set. */
#define VIEW_PER_THREAD 0x10
/* Sorted in ascending order (names); others sort the largest first. */
#define VIEW_ASCENDING 0x20
/* Shown only when the view's `option` is set (a column only some experiments have). */
#define VIEW_OPTION 0x40
/* A value not counted leaves the key out of its JSON object (rather than null). */
#define VIEW_JSON_OMIT_NULL 0x80
/* Shown only when the view's `openmp` is set (an experiment whose threads ran OpenMP teams). */
#define VIEW_OPENMP 0x100

/* One cell. A getter sets exactly one kind; VIEW_NULL is "not counted". */
struct view_value {
	enum { VIEW_NULL, VIEW_S, VIEW_I64, VIEW_U64, VIEW_F64 } kind;
	const char *s;
	int64_t i;
	uint64_t u;
	double d;
	const char *suffix; /* appended in text only ("*" for a scaled count); NULL: none */
	char buf[320]; /* room for a getter's string: a file's base name (up to 255) and a line */
};

/* Set V to one kind of value (a getter's usual last line). */
static inline void view_set_i64(struct view_value *v, int64_t i)
{
	v->kind = VIEW_I64;
	v->i = i;
}

static inline void view_set_u64(struct view_value *v, uint64_t u)
{
	v->kind = VIEW_U64;
	v->u = u;
}

static inline void view_set_f64(struct view_value *v, double d)
{
	v->kind = VIEW_F64;
	v->d = d;
}

/* S is kept, not copied: it must outlive the rendering of the row (else use V->buf). */
static inline void view_set_str(struct view_value *v, const char *s)
{
	v->kind = VIEW_S;
	v->s = s;
}

/* The OpenMP thread number of a thread that ran TASKS implicit tasks numbered MIN to MAX:
 * the number, "MIN-MAX" for a pool thread of several, not counted for a thread of no team. */
void view_set_omp_thread(struct view_value *v, uint64_t tasks, uint32_t min, uint32_t max);

/* The text's label of thread TID of MPI rank RANK (-1 none) with those OpenMP fields: its
 * OpenMP label (model/thread-label.h) and its id, "omp thread 1 of rank 0 · 16915"; the id
 * alone for a thread of no team. */
void view_set_thread_label(struct view_value *v, int64_t tid, uint64_t tasks, uint32_t min,
			   uint32_t max, int rank);

struct view_col {
	const char *key;    /* CSV header, JSON key, long CSV metric, --sort key */
	const char *header; /* text header */
	enum view_type type;
	enum table_align align;
	unsigned flags; /* VIEW_IN_*, VIEW_ENTITY, VIEW_PER_THREAD, VIEW_ASCENDING, VIEW_OPTION,
			  VIEW_JSON_OMIT_NULL, VIEW_OPENMP */
	/* the value of ROW (one of the view's rows) for this column; ARG is the column's arg */
	void (*get)(const void *ctx, const void *row, size_t arg, struct view_value *v);
	size_t arg;		/* for columns made at run time: an event's index, ... */
	const char *null_text;	/* text of a VIEW_NULL value; NULL: empty */
	const char *sort;	/* its --sort word (its key sorts too); NULL: not a sort key */
	const char *sort_label; /* the heading's words when sorted by it ("exclusive time") */
	const char *tie;	/* key of the column that orders equal values (NULL: none) */
	/* writes the JSON value itself, for a value that is an object (NULL: from get) */
	void (*json)(struct jsonw *w, const void *ctx, const void *row, size_t arg);
};

struct view {
	const struct view_col *cols;
	size_t ncols;
	const void *const *rows; /* in display order */
	size_t nrows;
	const void *ctx; /* passed to every getter */
	int per_thread;	 /* show the VIEW_PER_THREAD columns */
	int option;	 /* show the VIEW_OPTION columns */
	int openmp;	 /* show the VIEW_OPENMP columns */
	/* a row equal to it is a separator line in text and no row in CSV, JSON or long CSV
	 * (NULL: none) */
	const void *separator;
};

/* The value of column C for ROW of V, into *OUT. */
void view_get(const struct view *v, const struct view_col *c, const void *row,
	      struct view_value *out);

/* The text of a value as column C shows it in a table (OUT_TEXT) or a CSV cell (OUT_CSV, also
 * the long CSV's value), into BUF. */
void view_format(const struct view_col *c, const struct view_value *val, enum out_format fmt,
		 char *buf, size_t len);

/* The text table of V's rows (table.h: aligned, INDENT before each line). 0, -ENOMEM or -EIO. */
int view_print_text(const struct view *v, FILE *f, const char *indent);

/* CSV: a header of the keys of the CSV columns, then one line per row. 0 or -EIO. */
int view_print_csv(const struct view *v, FILE *f);

/* Long (tidy) CSV: the keys of the entity columns, "metric", "value"; then one line per row and
 * numeric CSV column, its value written as the CSV cell. 0 or -EIO. */
int view_print_long(const struct view *v, FILE *f);

/* ROW (of V's kind) as a JSON object keyed by the JSON columns' keys, into W. */
void view_json_row(struct jsonw *w, const struct view *v, const void *row);

/* The rows of V as a JSON array of objects keyed by the JSON columns' keys, into W. */
void view_json_rows(struct jsonw *w, const struct view *v);

/* The column of COLS (N of them) that --sort WORD names (its sort word or its key), or NULL. */
const struct view_col *view_sort_col(const struct view_col *cols, size_t n, const char *word);

/* The sort words of COLS as "incl, excl, calls or name", into BUF. */
void view_sort_words(const struct view_col *cols, size_t n, char *buf, size_t len);

/* qsort_r-style order of two rows A and B by a column: its direction, then its tie column's. */
struct view_order {
	const struct view_col *cols; /* the table the tie column is found in */
	size_t ncols;
	const struct view_col *by;
	const void *ctx; /* the getters' */
	int per_thread;
};

/* Compare rows A and B (pointers to rows) as ORDER (a struct view_order *) says. */
int view_order_cmp(const void *a, const void *b, void *order);

#endif /* PSC_VIEW_H */
