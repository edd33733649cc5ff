/*
 * metrics.c - metric group files and the formulas in them.
 *
 * A formula is compiled to a postfix program (struct expr_op[]) so that evaluation is a loop
 * over a fixed-size stack: no recursion, whatever the length of the formula. Parsing recurses
 * only into parentheses, whose nesting is bounded by EXPR_DEPTH_MAX.
 */
#include "metrics.h"

#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXPR_DEPTH_MAX 32	 /* nested parentheses in one formula */
#define EXPR_STACK_MAX 128	 /* evaluation stack; > 2 * EXPR_DEPTH_MAX + 2 */
#define GROUP_FILE_MAX (1 << 20) /* bytes in a group file */
#define MSG_NAME_MAX   64	 /* characters of a user-supplied name quoted in a message */
#define PRINTF(f, a)   __attribute__((format(printf, f, a)))

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

struct expr_parser {
	const char *text;
	const char *p;
	struct metric_expr *e;
	size_t cap;
	unsigned depth;
	size_t stack, maxstack;
	locale_t c_locale;
	unsigned errcol;
	char msg[160];
};

/* ---- small helpers ---------------------------------------------------------------------- */

static PRINTF(3, 4) void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* exactly one line, whatever the file or path contained */
	for (char *c = err; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = '?';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Letter, digit or '_' (not isalnum: formulas must not depend on the locale). */
static bool is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Characters that always continue an identifier; '-', '/' and '=' do so before is_word(). */
static bool is_ident_char(int c)
{
	return is_word(c) || c == '.' || c == ':';
}

static bool is_event_char(int c)
{
	return is_ident_char(c) || c == '-' || c == '/' || c == '=';
}

static bool is_builtin(const char *name)
{
	return !strcmp(name, METRIC_BUILTIN_TIME_NS) || !strcmp(name, METRIC_BUILTIN_TIME_S);
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static bool span_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

static bool is_regular_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* ---- formula parser ----------------------------------------------------------------------- */

static PRINTF(3, 4) int parse_fail(struct expr_parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	ps->errcol = (unsigned)(at - ps->text) + 1;
	va_start(ap, fmt);
	vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_space(struct expr_parser *ps)
{
	while (is_space((unsigned char)*ps->p))
		ps->p++;
}

static int emit(struct expr_parser *ps, enum op_kind kind, const char *at, double num, char *name)
{
	struct metric_expr *e = ps->e;

	if (e->nops == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		struct expr_op *ops = realloc(e->ops, cap * sizeof(*ops));

		if (!ops) {
			free(name);
			return -ENOMEM;
		}
		e->ops = ops;
		ps->cap = cap;
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

	while (is_digit((unsigned char)*q))
		q++;
	if (*q == '.') {
		q++;
		while (is_digit((unsigned char)*q))
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		const char *exp = q++;

		if (*q == '+' || *q == '-')
			q++;
		if (!is_digit((unsigned char)*q))
			return parse_fail(ps, exp, "expected digits after exponent 'e' in number");
		while (is_digit((unsigned char)*q))
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

	while (is_ident_char((unsigned char)*q) ||
	       ((*q == '-' || *q == '/' || *q == '=') && is_word((unsigned char)q[1])))
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
	if (is_digit((unsigned char)*at) || (*at == '.' && is_digit((unsigned char)at[1])))
		return parse_number(ps);
	if (is_word((unsigned char)*at))
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

/*
 * Parse TEXT into *OUT. On -EINVAL, PS->errcol and PS->msg describe the error; the caller
 * formats them for its context (standalone formula or line of a group file).
 */
static int expr_compile(struct expr_parser *ps, const char *text, struct metric_expr **out)
{
	int rc;

	memset(ps, 0, sizeof(*ps));
	*out = NULL;
	ps->text = text;
	ps->p = text;
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
	struct expr_parser ps;
	int rc;

	if (!text || !out)
		return -EINVAL;
	rc = expr_compile(&ps, text, out);
	if (rc == -EINVAL)
		set_err(err, errlen, "column %u: %s", ps.errcol, ps.msg);
	else if (rc)
		set_err(err, errlen, "out of memory");
	return rc;
}

void metric_expr_free(struct metric_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nops; i++)
		free(e->ops[i].name);
	free(e->ops);
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
	size_t pos = 0;
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
		if (buf && pos < buflen) {
			int n =
			    snprintf(buf + pos, buflen - pos, "%s%s", count ? ", " : "", op->name);

			pos += n > 0 ? (size_t)n : 0;
		}
		count++;
	}
	return count;
}

/* ---- group files -------------------------------------------------------------------------- */

struct group_parser {
	struct metric_group *g;
	const char *where; /* PATH in messages */
	char *err;
	size_t errlen;
};

static PRINTF(3, 4) int line_error(struct group_parser *gp, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_err(gp->err, gp->errlen, "%s:%u: %s", gp->where, line, msg);
	return -EINVAL;
}

static int group_parse_events(struct group_parser *gp, unsigned line, const char *s, size_t n)
{
	struct metric_group *g = gp->g;
	const char *end = s + n;

	if (!n)
		return line_error(gp, line, "expected event names after 'events:'");
	for (const char *item = s, *comma; item <= end; item = comma + 1) {
		size_t len, dup = 0;
		char **events;

		comma = memchr(item, ',', (size_t)(end - item));
		comma = comma ? comma : end;
		len = (size_t)(comma - item);
		trim(&item, &len);
		if (!len)
			return line_error(gp, line, "expected an event name before or after ','");
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)item[i];
			char what[8];

			if (is_event_char(c))
				continue;
			snprintf(what, sizeof(what), c >= 0x20 && c < 0x7f ? "'%c'" : "0x%02x", c);
			return line_error(
			    gp, line,
			    "invalid character %s in event name '%.*s'; expected letters, "
			    "digits, '_', '-', '.', ':', '=' or '/'",
			    what, (int)(len < MSG_NAME_MAX ? len : MSG_NAME_MAX), item);
		}
		if (span_is(item, len, METRIC_BUILTIN_TIME_NS) ||
		    span_is(item, len, METRIC_BUILTIN_TIME_S))
			return line_error(gp, line,
					  "'%.*s' is a builtin variable; expected an event name",
					  (int)len, item);
		while (dup < g->nevents && !span_is(item, len, g->events[dup]))
			dup++;
		if (dup < g->nevents)
			continue; /* duplicates are dropped, the first one keeps its place */
		events = realloc(g->events, (g->nevents + 1) * sizeof(*events));
		if (!events)
			return -ENOMEM;
		g->events = events;
		if (!(g->events[g->nevents] = strndup(item, len)))
			return -ENOMEM;
		g->nevents++;
	}
	return 0;
}

static int group_parse_metric(struct group_parser *gp, unsigned line, const char *s, size_t n)
{
	struct metric_group *g = gp->g;
	const char *name = s, *unit = "", *formula, *end = s + n, *q = s;
	size_t namelen, unitlen = 0, formulalen;
	struct expr_parser ps;
	struct metric *metrics, *m;
	int rc;

	while (q < end && *q != '[' && *q != '=')
		q++;
	if (q == end)
		return line_error(gp, line, "expected '=' after metric name");
	namelen = (size_t)(q - s);
	trim(&name, &namelen);
	if (!namelen)
		return line_error(gp, line, "expected a metric name before '%c'", *q);
	if (*q == '[') {
		const char *close = memchr(q, ']', (size_t)(end - q));

		if (!close)
			return line_error(gp, line, "expected ']' after unit");
		unit = q + 1;
		unitlen = (size_t)(close - unit);
		trim(&unit, &unitlen);
		q = close + 1;
		while (q < end && is_space((unsigned char)*q))
			q++;
		if (q == end || *q != '=')
			return line_error(gp, line, "expected '=' after unit");
	}
	formula = q + 1;
	formulalen = (size_t)(end - formula);
	trim(&formula, &formulalen);

	for (size_t i = 0; i < g->nmetrics; i++)
		if (span_is(name, namelen, g->metrics[i].name))
			return line_error(gp, line, "duplicate metric '%.*s'; expected a new name",
					  (int)(namelen < MSG_NAME_MAX ? namelen : MSG_NAME_MAX),
					  name);

	metrics = realloc(g->metrics, (g->nmetrics + 1) * sizeof(*metrics));
	if (!metrics)
		return -ENOMEM;
	g->metrics = metrics;

	m = &g->metrics[g->nmetrics];
	memset(m, 0, sizeof(*m));
	m->name = strndup(name, namelen);
	m->unit = strndup(unit, unitlen);
	m->formula = strndup(formula, formulalen);
	if (!m->name || !m->unit || !m->formula) {
		free(m->name);
		free(m->unit);
		free(m->formula);
		return -ENOMEM;
	}
	m->line = line;
	g->nmetrics++; /* owned by G from here on, released with it on failure */

	rc = expr_compile(&ps, m->formula, &m->expr);
	if (rc == -EINVAL)
		return line_error(gp, line, "%s at column %u in formula", ps.msg, ps.errcol);
	return rc;
}

static int group_parse_line(struct group_parser *gp, unsigned line, const char *s, size_t n)
{
	const char *hash = memchr(s, '#', n), *colon, *key, *val;
	size_t keylen, vallen;

	if (hash)
		n = (size_t)(hash - s);
	trim(&s, &n);
	if (!n)
		return 0;

	colon = memchr(s, ':', n);
	if (!colon)
		return line_error(gp, line, "expected 'description:', 'events:' or 'metric:'");
	key = s;
	keylen = (size_t)(colon - s);
	trim(&key, &keylen);
	val = colon + 1;
	vallen = (size_t)(s + n - val);
	trim(&val, &vallen);

	if (span_is(key, keylen, "events"))
		return group_parse_events(gp, line, val, vallen);
	if (span_is(key, keylen, "metric"))
		return group_parse_metric(gp, line, val, vallen);
	if (span_is(key, keylen, "description")) {
		if (gp->g->description)
			return line_error(gp, line, "second 'description:'; expected at most one");
		gp->g->description = strndup(val, vallen);
		return gp->g->description ? 0 : -ENOMEM;
	}
	return line_error(gp, line,
			  "unknown key '%.*s'; expected 'description:', 'events:' or 'metric:'",
			  (int)(keylen < MSG_NAME_MAX ? keylen : MSG_NAME_MAX), key);
}

/* Every name in every formula must be a builtin or listed in events:. */
static int group_check_names(struct group_parser *gp)
{
	const struct metric_group *g = gp->g;

	for (size_t i = 0; i < g->nmetrics; i++) {
		const struct metric_expr *e = g->metrics[i].expr;

		for (size_t j = 0; j < e->nops; j++) {
			const struct expr_op *op = &e->ops[j];
			bool known;

			if (op->kind != OP_VAR)
				continue;
			known = is_builtin(op->name);
			for (size_t k = 0; k < g->nevents && !known; k++)
				known = !strcmp(g->events[k], op->name);
			if (known)
				continue;
			return line_error(gp, g->metrics[i].line,
					  "'%.*s' at column %u in formula is not listed in "
					  "'events:'%s",
					  MSG_NAME_MAX, op->name, op->col,
					  strpbrk(op->name, "-/=") ? " (write spaces around binary "
								     "'-' and '/')"
								   : "");
		}
	}
	return 0;
}

int metric_group_parse(struct metric_group *g, const char *name, const char *path, const char *text,
		       char *err, size_t errlen)
{
	struct group_parser gp = {
	    .g = g, .where = path ? path : name, .err = err, .errlen = errlen};
	const char *s = text;
	unsigned line = 0;
	int rc = 0;

	if (!g || !name || !text)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->name = strdup(name);
	g->path = strdup(path ? path : "");
	if (!g->name || !g->path) {
		rc = -ENOMEM;
		goto out;
	}

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		rc = group_parse_line(&gp, ++line, s, n);
		if (rc)
			goto out;
		s += n + (nl ? 1 : 0);
	}

	if (!g->nevents)
		rc = line_error(&gp, 1, "no 'events:' line; expected at least one event");
	else
		rc = group_check_names(&gp);
	if (!rc && !g->description && !(g->description = strdup("")))
		rc = -ENOMEM;
out:
	if (rc == -ENOMEM)
		set_err(err, errlen, "%s: out of memory", gp.where);
	if (rc)
		metric_group_release(g);
	return rc;
}

/* Read PATH into a NUL-terminated buffer of *LEN bytes (the file may contain NUL bytes). */
static int read_text(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	int rc = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st))
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (st.st_size > GROUP_FILE_MAX)
		rc = -EFBIG;
	else if (!(*out = malloc((size_t)st.st_size + 1)))
		rc = -ENOMEM;
	if (!rc) {
		*len = fread(*out, 1, (size_t)st.st_size, f);
		(*out)[*len] = '\0';
		if (ferror(f)) {
			free(*out);
			rc = -EIO;
		}
	}
	fclose(f);
	return rc;
}

int metric_group_load(struct metric_group *g, const char *path, char *err, size_t errlen)
{
	const char *base, *dot;
	char *text = NULL, *name;
	size_t len = 0, stem;
	int rc;

	if (!g || !path)
		return -EINVAL;
	memset(g, 0, sizeof(*g));

	rc = read_text(path, &text, &len);
	if (rc) {
		char buf[128];

		if (rc == -EFBIG)
			set_err(err, errlen, "%s: file larger than %d bytes", path, GROUP_FILE_MAX);
		else
			set_err(err, errlen, "%s: %s", path, strerror_r(-rc, buf, sizeof(buf)));
		return rc;
	}
	if (memchr(text, '\0', len)) {
		set_err(err, errlen, "%s: contains a NUL byte; expected text", path);
		free(text);
		return -EINVAL;
	}

	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	stem = strlen(base);
	if (ends_with(base, METRIC_GROUP_SUFFIX))
		stem -= strlen(METRIC_GROUP_SUFFIX);
	else if ((dot = strrchr(base, '.')) && dot != base)
		stem = (size_t)(dot - base);
	name = strndup(base, stem);
	if (!name) {
		free(text);
		return -ENOMEM;
	}
	rc = metric_group_parse(g, name, path, text, err, errlen);
	free(name);
	free(text);
	return rc;
}

void metric_group_release(struct metric_group *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nevents; i++)
		free(g->events[i]);
	for (size_t i = 0; i < g->nmetrics; i++) {
		free(g->metrics[i].name);
		free(g->metrics[i].unit);
		free(g->metrics[i].formula);
		metric_expr_free(g->metrics[i].expr);
	}
	free(g->events);
	free(g->metrics);
	free(g->name);
	free(g->description);
	free(g->path);
	memset(g, 0, sizeof(*g));
}

/* ---- finding group files ------------------------------------------------------------------ */

int metric_group_find(const char *name, const char *const *dirs, size_t ndirs, char *path,
		      size_t pathlen)
{
	if (!name || !*name || !path || !pathlen || (ndirs && !dirs))
		return -EINVAL;
	path[0] = '\0';

	if (strchr(name, '/') || ends_with(name, METRIC_GROUP_SUFFIX)) {
		if (strlen(name) >= pathlen)
			return -ENAMETOOLONG;
		if (!is_regular_file(name))
			return -ENOENT;
		strcpy(path, name);
		return 0;
	}
	for (size_t i = 0; i < ndirs; i++) {
		int n;

		if (!dirs[i] || !*dirs[i])
			continue;
		n = snprintf(path, pathlen, "%s/%s%s", dirs[i], name, METRIC_GROUP_SUFFIX);
		if (n < 0 || (size_t)n >= pathlen) {
			path[0] = '\0';
			return -ENAMETOOLONG;
		}
		if (is_regular_file(path))
			return 0;
	}
	path[0] = '\0';
	return -ENOENT;
}

/* Sort entries "NAME\0PATH" by name. */
static int group_entry_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append "NAME\0PATH" for each group file of DIR whose name is not in LIST yet. */
static int group_scan_dir(const char *dir, char ***list, size_t *n)
{
	const size_t suffixlen = strlen(METRIC_GROUP_SUFFIX);
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return 0; /* a missing directory in a search path is not an error */
	while (!rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name), stem = len - suffixlen, i = 0;
		char *ent, **nl;

		if (de->d_name[0] == '.' || len <= suffixlen ||
		    !ends_with(de->d_name, METRIC_GROUP_SUFFIX))
			continue;
		while (i < *n && (strncmp((*list)[i], de->d_name, stem) || (*list)[i][stem]))
			i++;
		if (i < *n)
			continue; /* an earlier directory has it */
		ent = malloc(stem + 1 + strlen(dir) + 1 + len + 1);
		if (!ent) {
			rc = -ENOMEM;
			break;
		}
		sprintf(ent, "%.*s", (int)stem, de->d_name);
		sprintf(ent + stem + 1, "%s/%s", dir, de->d_name);
		if (!is_regular_file(ent + stem + 1)) {
			free(ent);
			continue;
		}
		nl = realloc(*list, (*n + 1) * sizeof(*nl));
		if (!nl) {
			free(ent);
			rc = -ENOMEM;
			break;
		}
		*list = nl;
		(*list)[(*n)++] = ent;
	}
	closedir(d);
	return rc;
}

int metric_group_foreach(const char *const *dirs, size_t ndirs,
			 int (*fn)(void *ctx, const char *name, const char *path), void *ctx)
{
	char **list = NULL;
	size_t n = 0;
	int rc = 0;

	if (!fn || (ndirs && !dirs))
		return -EINVAL;
	for (size_t i = 0; i < ndirs && !rc; i++)
		if (dirs[i] && *dirs[i])
			rc = group_scan_dir(dirs[i], &list, &n);
	if (!rc && n)
		qsort(list, n, sizeof(*list), group_entry_cmp);
	for (size_t i = 0; i < n && !rc; i++)
		rc = fn(ctx, list[i], list[i] + strlen(list[i]) + 1);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return rc;
}
