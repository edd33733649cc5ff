/*
 * powerlog.c - reading a power log (`power.rapl`, `power.perf`; docs/format.md "Power logs")
 * into a power series. The header is checked strictly; counters are unwrapped in raw units
 * (exact integers) and only then scaled to joules. A last line without its newline is what a
 * launcher killed while writing leaves: it is ignored.
 */
#include "format/powerlog.h"
#include "lib/array.h"
#include "lib/textline.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_MAGIC "# perfscope power 1"

struct log_col {
	char *name, *unit;
	double scale;
	uint64_t wrap;
	uint64_t prev;	/* last raw value */
	uint64_t total; /* raw units since the first row, unwrapped */
};

struct log_reader {
	const char *path;
	char *err;
	size_t errlen;
	size_t line;
	struct log_col *col;
	size_t ncol, colcap;
	char *source;
	uint64_t prev_t;
	size_t cap;   /* rows allocated in the series */
	char **field; /* a row's fields, ncol + 1 */
};

static int fail(struct log_reader *r, int ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "PATH: line N: " and the message into the error buffer; returns RET. */
static int fail(struct log_reader *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = textline_vfail(r->err, r->errlen, r->path, r->line, ret, fmt, ap);
	va_end(ap);
	return ret;
}

/* A column name holds no blank and no comma. */
static int name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == ',')
			return 0;
	return 1;
}

static void cols_free(struct log_reader *r)
{
	for (size_t i = 0; i < r->ncol; i++) {
		free(r->col[i].name);
		free(r->col[i].unit);
	}
	free(r->col);
	free(r->source);
	free(r->field);
	r->field = NULL;
	r->col = NULL;
	r->source = NULL;
	r->ncol = 0;
}

/* "# column NAME UNIT SCALE WRAP" (ARGS is what follows "# column "). */
static int parse_column(struct log_reader *r, char *args)
{
	char *f[5], *save = NULL, *end;
	struct log_col *c;
	int n = 0;

	for (char *t = strtok_r(args, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (n < 5)
			f[n++] = t;
		else
			n++;
	if (n != 4)
		return fail(r, -EINVAL,
			    "expected '# column NAME UNIT SCALE WRAP' (4 fields), found %d", n);
	if (strchr(f[0], ','))
		return fail(r, -EINVAL, "column name '%s' holds a comma", f[0]);
	for (size_t i = 0; i < r->ncol; i++)
		if (!strcmp(r->col[i].name, f[0]))
			return fail(r, -EINVAL, "column '%s' appears twice", f[0]);
	if (ARRAY_GROW(r->col, r->ncol + 1, r->colcap))
		return fail(r, -ENOMEM, "out of memory");
	c = r->col + r->ncol;
	memset(c, 0, sizeof(*c));
	errno = 0;
	c->scale = strtod(f[2], &end);
	if (errno || *end || !(c->scale > 0) || !isfinite(c->scale))
		return fail(r, -EINVAL, "column %s: scale '%s' is not a positive number", f[0],
			    f[2]);
	if (textline_u64(f[3], &c->wrap))
		return fail(r, -EINVAL,
			    "column %s: wrap '%s' is not a decimal count (0: does not wrap)", f[0],
			    f[3]);
	c->name = strdup(f[0]);
	c->unit = strdup(f[1]);
	r->ncol++;
	if (!c->name || !c->unit)
		return fail(r, -ENOMEM, "out of memory");
	return 0;
}

/* A '#' line before the header row. */
static int parse_comment(struct log_reader *r, char *s)
{
	uint64_t v;

	if (!strncmp(s, "# column ", 9))
		return parse_column(r, s + 9);
	if (!strncmp(s, "# source ", 9)) {
		if (r->source)
			return fail(r, -EINVAL, "a second '# source' line");
		if (!name_ok(s + 9))
			return fail(r, -EINVAL, "expected '# source NAME', found '%s'", s);
		r->source = strdup(s + 9);
		return r->source ? 0 : fail(r, -ENOMEM, "out of memory");
	}
	if (!strncmp(s, "# period_ns ", 12) && (textline_u64(s + 12, &v) || !v))
		return fail(r, -EINVAL, "expected '# period_ns N' with N > 0, found '%s'", s);
	return 0; /* any other comment */
}

/* The header row must name time_ns and the columns in order. */
static int check_header_row(struct log_reader *r, const char *s)
{
	struct strbuf want = STRBUF_INIT;
	int ret = 0;

	if (!r->source)
		return fail(r, -EINVAL, "expected a '# source NAME' line before the header row");
	if (!r->ncol)
		return fail(r, -EINVAL, "expected '# column' lines before the header row");
	strbuf_adds(&want, "time_ns");
	for (size_t i = 0; i < r->ncol; i++)
		strbuf_addf(&want, ",%s", r->col[i].name);
	if (want.err)
		ret = fail(r, -ENOMEM, "out of memory");
	else if (strcmp(s, want.buf))
		ret = fail(r, -EINVAL, "expected the header row '%s', found '%s'", want.buf, s);
	strbuf_release(&want);
	return ret;
}

/* Room for row N in the series. */
static int grow(struct log_reader *r, struct power_series *ps)
{
	size_t cap = r->cap;

	if (ARRAY_GROW(ps->t, ps->n + 1, cap))
		return -ENOMEM;
	/* every channel's values have the room of the times: from r->cap, they grow alike */
	for (size_t i = 0; i < ps->nch; i++) {
		size_t chcap = r->cap;

		if (ARRAY_GROW(ps->ch[i].v, ps->n + 1, chcap))
			return -ENOMEM;
	}
	r->cap = cap;
	return 0;
}

/* One reading: time and raw values, unwrapped into the channels. */
static int parse_row(struct log_reader *r, struct power_series *ps, char *s)
{
	size_t k = 0;
	uint64_t t;

	if (grow(r, ps))
		return fail(r, -ENOMEM, "out of memory");
	for (char *p = s;; k++) {
		char *comma = strchr(p, ',');

		if (k <= r->ncol)
			r->field[k] = p;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	if (k != r->ncol)
		return fail(r, -EINVAL, "expected %zu fields (time_ns and %zu counters), found %zu",
			    r->ncol + 1, r->ncol, k + 1);
	if (textline_u64(r->field[0], &t))
		return fail(r, -EINVAL, "time_ns '%s' is not a decimal count of ns", r->field[0]);
	if (ps->n && t <= r->prev_t)
		return fail(r, -EINVAL, "time %llu is not after the previous row's %llu",
			    (unsigned long long)t, (unsigned long long)r->prev_t);
	for (k = 0; k < r->ncol; k++) {
		struct log_col *c = &r->col[k];
		uint64_t v, d;

		if (textline_u64(r->field[k + 1], &v))
			return fail(r, -EINVAL, "%s: '%s' is not a decimal counter value", c->name,
				    r->field[k + 1]);
		if (c->wrap && v > c->wrap)
			return fail(r, -EINVAL, "%s: %llu is above its wrap value %llu", c->name,
				    (unsigned long long)v, (unsigned long long)c->wrap);
		if (!ps->n)
			d = 0;
		else if (v >= c->prev)
			d = v - c->prev;
		else if (c->wrap)
			d = c->wrap - c->prev + v;
		else
			return fail(
			    r, -EINVAL,
			    "%s: counter went backwards (%llu after %llu) and does not wrap "
			    "(WRAP 0)",
			    c->name, (unsigned long long)v, (unsigned long long)c->prev);
		if (__builtin_add_overflow(c->total, d, &c->total))
			return fail(r, -EINVAL, "%s: the energy overflows 64 bits", c->name);
		c->prev = v;
		ps->ch[k].v[ps->n] = (double)c->total * c->scale;
		if (!isfinite(ps->ch[k].v[ps->n]))
			return fail(r, -EINVAL, "%s: %llu x scale %g is beyond any energy", c->name,
				    (unsigned long long)c->total, c->scale);
		if (c->total)
			ps->ch[k].advancing = 1;
	}
	r->prev_t = t;
	ps->t[ps->n++] = (double)t;
	return 0;
}

/* The series' channels, named and owned, once the header row is checked. */
static int make_channels(struct log_reader *r, struct power_series *ps)
{
	ps->ch = calloc(r->ncol, sizeof(*ps->ch));
	r->field = calloc(r->ncol + 1, sizeof(*r->field));
	if (!ps->ch || !r->field)
		return fail(r, -ENOMEM, "out of memory");
	ps->nch = r->ncol;
	for (size_t i = 0; i < r->ncol; i++) {
		ps->ch[i].name = strdup(r->col[i].name);
		ps->ch[i].kind = POWER_JOULES;
		if (!ps->ch[i].name)
			return fail(r, -ENOMEM, "out of memory");
	}
	ps->source = r->source;
	r->source = NULL;
	return 0;
}

/* Each channel's mean power over every interval, as a column of n - 1 values in W. */
static int make_columns(struct power_series *ps)
{
	ps->cols = calloc(ps->nch, sizeof(*ps->cols));
	if (!ps->cols)
		return -ENOMEM;
	ps->ncols = ps->nch;
	for (size_t c = 0; c < ps->nch; c++) {
		struct power_column *col = &ps->cols[c];

		col->name = strdup(ps->ch[c].name);
		col->unit = strdup("W");
		col->n = ps->n - 1;
		col->v = malloc((col->n ? col->n : 1) * sizeof(*col->v));
		if (!col->name || !col->unit || !col->v)
			return -ENOMEM;
		for (size_t i = 0; i < col->n; i++)
			col->v[i] = (ps->ch[c].v[i + 1] - ps->ch[c].v[i]) /
				    ((ps->t[i + 1] - ps->t[i]) * 1e-9);
	}
	return 0;
}

int power_log_read(struct power_series *ps, const char *path, char *err, size_t errlen)
{
	struct log_reader r = {.path = path, .err = err, .errlen = errlen};
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t bufcap = 0;
	int ret = 0, header_done = 0;
	ssize_t len;

	memset(ps, 0, sizeof(*ps));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	while (!ret && (len = getline(&buf, &bufcap, f)) >= 0) {
		r.line++;
		if (len == 0 || buf[len - 1] != '\n') {
			if (header_done)
				break; /* a row cut short: the rows before it stand */
			ret = fail(&r, -EINVAL, "the file ends inside its header");
			break;
		}
		buf[len - 1] = '\0';
		if (r.line == 1) {
			if (strcmp(buf, LOG_MAGIC))
				ret = fail(&r, -EINVAL, "expected '%s', found '%.60s'", LOG_MAGIC,
					   buf);
		} else if (buf[0] == '#') {
			if (!header_done)
				ret = parse_comment(&r, buf);
			else if (!strncmp(buf, "# column ", 9))
				ret = fail(&r, -EINVAL, "a '# column' line after the header row");
		} else if (!header_done) {
			ret = check_header_row(&r, buf);
			if (!ret)
				ret = make_channels(&r, ps);
			header_done = 1;
		} else {
			ret = parse_row(&r, ps, buf);
		}
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	if (!ret && !header_done) {
		r.line++;
		ret = fail(&r, -EINVAL,
			   r.line == 1 ? "expected '" LOG_MAGIC "', found an empty file"
				       : "expected the header row 'time_ns,...', found the end");
	}
	if (!ret && ps->n == 0) {
		r.line++;
		ret = fail(&r, -EINVAL, "expected a reading after the header row, found the end");
	}
	if (!ret && make_columns(ps)) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
	}
	if (!ret && ps->n) {
		ps->t0 = ps->t[0];
		ps->dt = 0;
	}
	free(buf);
	fclose(f);
	cols_free(&r);
	if (ret)
		power_series_release(ps);
	return ret;
}
