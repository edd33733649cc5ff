/*
 * metric-expr.c - metric formulas: parsing and evaluation (the grammar is in docs/metrics.md).
 *
 * A formula is compiled to a postfix program (struct expr_op[]) so that evaluation is a loop
 * over a fixed-size stack: no recursion, whatever the length of the formula. Parsing recurses
 * only into parentheses, whose nesting is bounded by EXPR_DEPTH_MAX.
 */
#include "pmu/metrics-int.h"
#include "lib/array.h"
#include "lib/mem.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_DEPTH_MAX 32  /* nested parentheses in one formula */
#define EXPR_STACK_MAX 128 /* evaluation stack; > 2 * EXPR_DEPTH_MAX + 2 */

struct expr_parser {
	const char *text;
	const char *p;
	struct metric_expr *e;
	size_t cap;
	unsigned depth;
	size_t stack, maxstack;
	locale_t c_locale;
	struct metric_expr_error *err;
};

/* ---- formula parser ----------------------------------------------------------------------- */

static METRIC_PRINTF(3, 4) int parse_fail(struct expr_parser *ps, const char *at, const char *fmt,
					  ...)
{
	va_list ap;

	ps->err->col = (unsigned)(at - ps->text) + 1;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_space(struct expr_parser *ps)
{
	while (metric_is_space((unsigned char)*ps->p))
		ps->p++;
}

static int emit(struct expr_parser *ps, enum op_kind kind, const char *at, double num, char *name)
{
	struct metric_expr *e = ps->e;

	if (ARRAY_GROW(e->ops, e->nops + 1, ps->cap)) {
		free(name);
		return -ENOMEM;
	}
	e->ops[e->nops++] = (struct expr_op){
	    .kind = kind, .col = (unsigned)(at - ps->text) + 1, .num = num, .name = name};

	if (kind == OP_NUM || kind == OP_VAR) {
		if (++ps->stack > ps->maxstack)
			ps->maxstack = ps->stack;
		if (ps->maxstack > EXPR_STACK_MAX)
			return parse_fail(ps, at, "formula too complex");
	} else if (kind != OP_NEG) {
		ps->stack--;
	}
	return 0;
}

static int parse_number(struct expr_parser *ps)
{
	const char *start = ps->p, *q = ps->p;
	char buf[64];
	double v;

	while (metric_is_digit((unsigned char)*q))
		q++;
	if (*q == '.') {
		q++;
		while (metric_is_digit((unsigned char)*q))
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		const char *exp = q++;

		if (*q == '+' || *q == '-')
			q++;
		if (!metric_is_digit((unsigned char)*q))
			return parse_fail(ps, exp, "expected digits after exponent 'e' in number");
		while (metric_is_digit((unsigned char)*q))
			q++;
	}

	/* strtod follows LC_NUMERIC; formulas always use '.' whatever the program's locale */
	if ((size_t)(q - start) >= sizeof(buf))
		return parse_fail(ps, start, "number longer than %zu characters", sizeof(buf) - 1);
	memcpy(buf, start, (size_t)(q - start));
	buf[q - start] = '\0';
	v = strtod_l(buf, NULL, ps->c_locale);
	if (!isfinite(v))
		return parse_fail(ps, start, "number out of range");
	ps->p = q;
	return emit(ps, OP_NUM, start, v, NULL);
}

static int parse_ident(struct expr_parser *ps)
{
	const char *start = ps->p, *q = ps->p;
	char *name;

	while (metric_is_ident_char((unsigned char)*q) ||
	       ((*q == '-' || *q == '/' || *q == '=') && metric_is_word((unsigned char)q[1])))
		q++;
	name = strndup(start, (size_t)(q - start));
	if (!name)
		return -ENOMEM;
	ps->p = q;
	return emit(ps, OP_VAR, start, 0.0, name);
}

static int parse_binary(struct expr_parser *ps, bool sum);

/* primary := NUMBER | IDENT | '(' sum ')' */
static int parse_primary(struct expr_parser *ps)
{
	const char *at;
	int rc;

	skip_space(ps);
	at = ps->p;
	if (*at == '(') {
		if (ps->depth >= EXPR_DEPTH_MAX)
			return parse_fail(ps, at, "parentheses nested deeper than %d",
					  EXPR_DEPTH_MAX);
		ps->depth++;
		ps->p++;
		rc = parse_binary(ps, true);
		if (rc)
			return rc;
		skip_space(ps);
		if (*ps->p != ')')
			return parse_fail(ps, ps->p, "expected ')'");
		ps->p++;
		ps->depth--;
		return 0;
	}
	if (metric_is_digit((unsigned char)*at) ||
	    (*at == '.' && metric_is_digit((unsigned char)at[1])))
		return parse_number(ps);
	if (metric_is_word((unsigned char)*at))
		return parse_ident(ps);
	return parse_fail(ps, at, "expected number, name or '('");
}

/* unary := '-'* primary */
static int parse_unary(struct expr_parser *ps)
{
	const char *at = NULL;
	bool neg = false;
	int rc;

	skip_space(ps);
	while (*ps->p == '-') {
		if (!neg)
			at = ps->p;
		neg = !neg;
		ps->p++;
		skip_space(ps);
	}
	rc = parse_primary(ps);
	if (rc || !neg)
		return rc;
	return emit(ps, OP_NEG, at, 0.0, NULL);
}

/* sum := product (('+' | '-') product)*, product := unary (('*' | '/') unary)* */
static int parse_binary(struct expr_parser *ps, bool sum)
{
	int rc = sum ? parse_binary(ps, false) : parse_unary(ps);

	while (!rc) {
		static const enum op_kind kinds[] = {
		    ['+'] = OP_ADD, ['-'] = OP_SUB, ['*'] = OP_MUL, ['/'] = OP_DIV};
		const char *at;

		skip_space(ps);
		at = ps->p;
		if (!*at || !strchr(sum ? "+-" : "*/", *at))
			break;
		ps->p++;
		rc = sum ? parse_binary(ps, false) : parse_unary(ps);
		if (!rc)
			rc = emit(ps, kinds[(unsigned char)*at], at, 0.0, NULL);
	}
	return rc;
}

int metric_expr_compile(const char *text, struct metric_expr **out, struct metric_expr_error *err)
{
	struct expr_parser parser = {.text = text, .p = text, .err = err}, *ps = &parser;
	int rc;

	memset(err, 0, sizeof(*err));
	*out = NULL;
	ps->e = calloc(1, sizeof(*ps->e));
	ps->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!ps->e || !ps->c_locale) {
		free(ps->e);
		if (ps->c_locale)
			freelocale(ps->c_locale);
		return -ENOMEM;
	}

	rc = parse_binary(ps, true);
	if (!rc) {
		skip_space(ps);
		if (*ps->p == ')')
			rc = parse_fail(ps, ps->p, "unbalanced ')'");
		else if (*ps->p)
			rc = parse_fail(ps, ps->p, "expected operator or end of formula");
	}
	freelocale(ps->c_locale);
	if (rc) {
		metric_expr_free(ps->e);
		return rc;
	}
	*out = ps->e;
	return 0;
}

int metric_expr_parse(const char *text, struct metric_expr **out, char *err, size_t errlen)
{
	struct metric_expr_error perr;
	int rc;

	if (!text || !out)
		return -EINVAL;
	rc = metric_expr_compile(text, out, &perr);
	if (rc == -EINVAL)
		metric_set_err(err, errlen, "column %u: %s", perr.col, perr.msg);
	else if (rc)
		metric_set_err(err, errlen, "out of memory");
	return rc;
}

void metric_expr_free(struct metric_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nops; i++)
		free(e->ops[i].name);
	psc_mem_free(e->ops);
	free(e);
}

/* ---- evaluation --------------------------------------------------------------------------- */

int metric_expr_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *ctx, double *out)
{
	double st[EXPR_STACK_MAX];
	bool missing = false, domain = false;
	size_t sp = 0;

	if (!e || !lookup || !out || !e->nops)
		return -EINVAL;

	for (size_t i = 0; i < e->nops; i++) {
		const struct expr_op *op = &e->ops[i];
		double r = NAN;

		switch (op->kind) {
		case OP_NUM:
			st[sp++] = op->num;
			continue;
		case OP_VAR:
			if (lookup(ctx, op->name, &r) != 0) {
				missing = true;
				r = NAN;
			} else if (!isfinite(r)) {
				domain = true;
			}
			st[sp++] = r;
			continue;
		case OP_NEG:
			st[sp - 1] = -st[sp - 1];
			continue;
		case OP_ADD:
			r = st[sp - 2] + st[sp - 1];
			break;
		case OP_SUB:
			r = st[sp - 2] - st[sp - 1];
			break;
		case OP_MUL:
			r = st[sp - 2] * st[sp - 1];
			break;
		case OP_DIV: /* by zero: an error, not an infinity */
			domain |= st[sp - 1] == 0.0;
			r = st[sp - 1] == 0.0 ? NAN : st[sp - 2] / st[sp - 1];
			break;
		}
		sp--;
		if (!isfinite(r))
			domain = true;
		st[sp - 1] = r;
	}

	/* a missing input makes the metric unavailable, whatever else went wrong */
	if (missing)
		return -ENODATA;
	if (domain)
		return -EDOM;
	*out = st[0];
	return 0;
}

int metric_eval(const struct metric *m, metric_lookup_fn lookup, void *ctx, double *out)
{
	if (!m)
		return -EINVAL;
	return metric_expr_eval(m->expr, lookup, ctx, out);
}

int metric_expr_missing(const struct metric_expr *e, metric_lookup_fn lookup, void *ctx, char *buf,
			size_t buflen)
{
	struct strbuf names = STRBUF_INIT;
	int count = 0;

	if (buf && buflen)
		buf[0] = '\0';
	if (!e || !lookup)
		return 0;

	for (size_t i = 0; i < e->nops; i++) {
		const struct expr_op *op = &e->ops[i];
		bool seen = false;
		double v;

		if (op->kind != OP_VAR)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = e->ops[j].kind == OP_VAR && !strcmp(e->ops[j].name, op->name);
		if (seen || lookup(ctx, op->name, &v) == 0)
			continue;
		if (buf && buflen)
			strbuf_addf(&names, "%s%s", count ? ", " : "", op->name);
		count++;
	}
	/* cut to BUFLEN like any message; out of memory, the names joined until then */
	if (buf && buflen)
		snprintf(buf, buflen, "%s", strbuf_str(&names));
	strbuf_release(&names);
	return count;
}
