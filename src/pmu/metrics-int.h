/*
 * metrics-int.h - what the two halves of metrics share (metric-expr.c parses and evaluates
 * formulas, metrics.c reads group files and finds them): not for other callers.
 */
#ifndef PSC_METRICS_INT_H
#define PSC_METRICS_INT_H

#include "pmu/metrics.h"

#include <stdbool.h>
#include <stddef.h>

#define METRIC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* A formula compiled to a postfix program. */
enum op_kind { OP_NUM, OP_VAR, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV };

struct expr_op {
	enum op_kind kind;
	unsigned col; /* 1-based column in the formula, for messages */
	double num;   /* OP_NUM */
	char *name;   /* OP_VAR */
};

struct metric_expr {
	struct expr_op *ops;
	size_t nops;
};

/* Where and why a formula did not parse; the caller formats it for its context. */
struct metric_expr_error {
	unsigned col; /* 1-based column */
	char msg[160];
};

/*
 * Parse TEXT into *OUT: 0, -EINVAL with ERR filled in, or -ENOMEM. *OUT is NULL on failure.
 */
int metric_expr_compile(const char *text, struct metric_expr **out, struct metric_expr_error *err);

/* Format one line into ERR (nothing when ERR is NULL or ERRLEN 0); control characters become
 * '?', whatever a file or path contained. */
void metric_set_err(char *err, size_t errlen, const char *fmt, ...) METRIC_PRINTF(3, 4);

/* Character classes of formulas and event lists (not <ctype.h>: they must not depend on the
 * locale). */
static inline bool metric_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Letter, digit or '_'. */
static inline bool metric_is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || metric_is_digit(c) || c == '_';
}

static inline bool metric_is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Characters that always continue an identifier; '-', '/' and '=' do so before a word
 * character. */
static inline bool metric_is_ident_char(int c)
{
	return metric_is_word(c) || c == '.' || c == ':';
}

#endif /* PSC_METRICS_INT_H */
