/*
 * powerfile.c - an external power meter's text file (powerfile.h).
 *
 * The file is read in large blocks and only whole lines are parsed: every line in a block
 * ends in '\n' (one is added after a last line without it), so the scanner needs no bounds
 * checks inside a line. Numbers in the common decimal form are converted by hand: up to 19
 * significant digits in a 64-bit mantissa, scaled by an exact power of ten up to 1e22 (exact
 * for mantissas below 2^53, within an ulp above). Anything else (inf, nan, hex, longer
 * mantissas, larger exponents) goes to strtod, so that it is still read or recognised.
 */
#include "analysis/energy/powerfile.h"
#include "lib/array.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BLOCK (1u << 20)	     /* bytes per read() */
#define MAX_LINE   (16u << 20)	     /* a longer line is not a meter's text */
#define INIT_CAP   ((size_t)1 << 24) /* at most this many samples pre-sized from the file size */

static const char *const role_name[] = {"time", "watts", "volts", "amps", "skip"};

#define NROLES (sizeof(role_name) / sizeof(role_name[0]))

/* Character classes of the line scanner: anything else is part of a token. */
enum { C_TOK, C_BLANK, C_COMMA, C_HASH, C_CR, C_NL };

static const unsigned char cls[256] = {
    [' '] = C_BLANK, ['\t'] = C_BLANK, [','] = C_COMMA,
    ['#'] = C_HASH,  ['\r'] = C_CR,    ['\n'] = C_NL,
};

static const double pow10_exact[23] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,  1e6,	 1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

void power_file_spec_init(struct power_file_spec *spec)
{
	size_t i;

	memset(spec, 0, sizeof(*spec));
	spec->ncols = 1;
	spec->role[0] = PCOL_WATTS;
	for (i = 0; i < POWER_FILE_MAX_COLS; i++)
		spec->scale[i] = 1;
	spec->rate_hz = 20000;
	spec->offset_ns = 0;
}

static int is_value(enum power_col_role r)
{
	return r == PCOL_WATTS || r == PCOL_VOLTS || r == PCOL_AMPS;
}

/* The roles of SPEC as a format ("time,watts") appended to SB; only the value columns with
 * VALUES_ONLY. 0 or -ENOMEM. */
static int format_text(const struct power_file_spec *spec, int values_only, struct strbuf *sb)
{
	const char *sep = "";

	for (size_t i = 0; i < spec->ncols && (unsigned)spec->role[i] < NROLES; i++) {
		if (values_only && !is_value(spec->role[i]))
			continue;
		strbuf_addf(sb, "%s%s", sep, role_name[spec->role[i]]);
		sep = ",";
	}
	return sb->err;
}

/* The combination of roles: exactly one of watts or volts and amps, at most one time. */
static int spec_check(const struct power_file_spec *spec, const char *fmt, char *err, size_t errlen)
{
	size_t count[NROLES] = {0}, i;

	if (spec->ncols == 0 || spec->ncols > POWER_FILE_MAX_COLS) {
		snprintf(err, errlen, "format '%s': %zu columns: expected 1 to %d", fmt,
			 spec->ncols, POWER_FILE_MAX_COLS);
		return -EINVAL;
	}
	for (i = 0; i < spec->ncols; i++) {
		if ((unsigned)spec->role[i] >= NROLES) {
			snprintf(err, errlen, "format: column %zu has no role", i + 1);
			return -EINVAL;
		}
		if (++count[spec->role[i]] == 2 && spec->role[i] != PCOL_SKIP) {
			snprintf(err, errlen, "format '%s': %s given twice", fmt,
				 role_name[spec->role[i]]);
			return -EINVAL;
		}
	}
	if (count[PCOL_WATTS] && (count[PCOL_VOLTS] || count[PCOL_AMPS])) {
		snprintf(
		    err, errlen,
		    "format '%s': both watts and volts/amps: expected watts, or volts and amps",
		    fmt);
		return -EINVAL;
	}
	if (!count[PCOL_WATTS] && count[PCOL_VOLTS] != count[PCOL_AMPS]) {
		snprintf(err, errlen,
			 "format '%s': %s without %s: expected watts, or volts and amps", fmt,
			 count[PCOL_VOLTS] ? "volts" : "amps",
			 count[PCOL_VOLTS] ? "amps" : "volts");
		return -EINVAL;
	}
	if (!count[PCOL_WATTS] && !count[PCOL_VOLTS]) {
		snprintf(err, errlen,
			 "format '%s': no power column: expected watts, or volts and amps", fmt);
		return -EINVAL;
	}
	for (i = 0; i < spec->ncols; i++) {
		if (is_value(spec->role[i]) && !(spec->scale[i] > 0 && isfinite(spec->scale[i]))) {
			snprintf(err, errlen,
				 "scale of column %zu (%s): %g: expected a number above 0", i + 1,
				 role_name[spec->role[i]], spec->scale[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_scale(struct power_file_spec *s, const char *scale, char *err, size_t errlen)
{
	size_t nval = 0, nfac = 0, i, col[POWER_FILE_MAX_COLS];
	double fac[POWER_FILE_MAX_COLS];
	const char *p = scale;

	for (i = 0; i < s->ncols; i++)
		if (is_value(s->role[i]))
			col[nval++] = i;
	for (;;) {
		char *end;
		double v = strtod(p, &end);

		while (*end == ' ' || *end == '\t')
			end++;
		if (end == p || (*end && *end != ',') || !(v > 0 && isfinite(v))) {
			size_t len = strcspn(p, ",");

			snprintf(err, errlen, "scale '%s': '%.*s': expected a number above 0",
				 scale, (int)(len > 40 ? 40 : len), p);
			return -EINVAL;
		}
		if (nfac < POWER_FILE_MAX_COLS)
			fac[nfac] = v;
		nfac++;
		if (!*end)
			break;
		p = end + 1;
	}
	if (nfac != nval) {
		struct strbuf values = STRBUF_INIT;
		int rc = format_text(s, 1, &values) ? -ENOMEM : -EINVAL;

		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen,
				 "scale '%s': %zu factor%s for %zu value column%s (%s)", scale,
				 nfac, nfac == 1 ? "" : "s", nval, nval == 1 ? "" : "s",
				 strbuf_str(&values));
		strbuf_release(&values);
		return rc;
	}
	for (i = 0; i < nval; i++)
		s->scale[col[i]] = fac[i];
	return 0;
}

int power_file_spec_parse(struct power_file_spec *spec, const char *format, const char *scale,
			  char *err, size_t errlen)
{
	struct power_file_spec s = *spec;
	const char *p = format;
	size_t n = 0, i;
	int rc;

	if (!format[strspn(format, " \t")]) {
		snprintf(err, errlen,
			 "format '%s': no columns: expected roles such as watts, time,watts or "
			 "volts,amps",
			 format);
		return -EINVAL;
	}
	for (;;) {
		const char *b, *e;
		size_t r;

		while (*p == ' ' || *p == '\t')
			p++;
		for (b = p; *p && *p != ','; p++)
			;
		for (e = p; e > b && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		for (r = 0; r < NROLES; r++)
			if (strlen(role_name[r]) == (size_t)(e - b) &&
			    !strncasecmp(role_name[r], b, (size_t)(e - b)))
				break;
		if (r == NROLES) {
			snprintf(err, errlen,
				 "format '%s': unknown column '%.*s': expected time, watts, volts, "
				 "amps or skip",
				 format, (int)(e - b > 40 ? 40 : e - b), b);
			return -EINVAL;
		}
		if (n == POWER_FILE_MAX_COLS) {
			snprintf(err, errlen, "format '%s': more than %d columns", format,
				 POWER_FILE_MAX_COLS);
			return -EINVAL;
		}
		s.role[n++] = (enum power_col_role)r;
		if (!*p)
			break;
		p++;
	}
	s.ncols = n;
	for (i = 0; i < POWER_FILE_MAX_COLS; i++)
		s.scale[i] = 1;
	rc = spec_check(&s, format, err, errlen);
	if (rc == 0 && scale)
		rc = parse_scale(&s, scale, err, errlen);
	if (rc == 0)
		*spec = s;
	return rc;
}

/* ---- reading -------------------------------------------------------------------------------- */

struct reader {
	const struct power_file_spec *spec;
	const char *path;
	char *err;
	size_t errlen;
	unsigned long long line;
	int seen_data; /* a line with values was read (the first may be a header) */
	int timed, va;
	size_t itime, iwatts, ivolts, iamps; /* column indices of the roles present */
	double base_ns;			     /* start + offset */
	double prev_s;			     /* the previous line's time column */
	size_t n, cap;
	double *t, *w, *volts, *amps; /* w: the channel (watts, or volts x amps) */
	struct strbuf fmt;	      /* the roles as a format, for messages */
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int at = snprintf(r->err, r->errlen, "%s: line %llu: ", r->path, r->line);

	if (at >= 0 && (size_t)at < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + at, r->errlen - (size_t)at, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Token [B, E) for a message: at most 32 bytes, anything unprintable as '?'. */
static const char *quote(char *buf, const char *b, const char *e)
{
	size_t i, n = (size_t)(e - b) > 32 ? 32 : (size_t)(e - b);

	for (i = 0; i < n; i++)
		buf[i] = b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '?';
	strcpy(buf + i, n < (size_t)(e - b) ? "..." : "");
	return buf;
}

static const char *skip_blank(const char *p)
{
	while (cls[(unsigned char)*p] == C_BLANK)
		p++;
	return p;
}

static const char *token_end(const char *p)
{
	while (cls[(unsigned char)*p] == C_TOK)
		p++;
	return p;
}

/* The number at S in decimal form; the end of what was read, or NULL to ask strtod. */
static const char *fast_number(const char *s, double *out)
{
	const char *p = s;
	uint64_t m = 0;
	int nd = 0, dexp = 0, any = 0, neg = 0;
	double v;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; (unsigned)(*p - '0') < 10; p++, any = 1) {
		if (m || *p != '0') {
			if (nd++ == 19)
				return NULL;
			m = m * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p == '.') {
		for (p++; (unsigned)(*p - '0') < 10; p++, any = 1, dexp--) {
			if (m || *p != '0') {
				if (nd++ == 19)
					return NULL;
				m = m * 10 + (uint64_t)(*p - '0');
			}
		}
	}
	if (!any)
		return NULL;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		int eneg = 0, ev = 0;

		if (*q == '-' || *q == '+')
			eneg = *q++ == '-';
		if ((unsigned)(*q - '0') >= 10)
			return NULL;
		for (; (unsigned)(*q - '0') < 10; q++)
			if (ev < 100000)
				ev = ev * 10 + (*q - '0');
		dexp += eneg ? -ev : ev;
		p = q;
	}
	if (m == 0)
		dexp = 0;
	if (dexp < -22 || dexp > 22)
		return NULL;
	v = (double)m;
	v = dexp < 0 ? v / pow10_exact[-dexp] : v * pow10_exact[dexp];
	*out = neg ? -v : v;
	return p;
}

/* Column K's token at *P into *V: 0, or an error. *P moves to the token's end. */
static int read_value(struct reader *r, const char **pp, size_t k, double *v)
{
	const char *b = *pp, *e = fast_number(b, v);
	enum power_col_role role = r->spec->role[k];
	char q[40];

	if (!e || cls[(unsigned char)*e] == C_TOK) {
		char *end;

		e = token_end(b);
		*v = strtod(b, &end);
		if (end != e)
			return fail(r, "not a number: '%s' (column %zu, %s)%s", quote(q, b, e),
				    k + 1, role_name[role],
				    r->seen_data ? "" : "; a header line must start with '#'");
	}
	*pp = e;
	if (isnan(*v))
		return fail(r, "NaN: '%s' (column %zu, %s)", quote(q, b, e), k + 1,
			    role_name[role]);
	if (isinf(*v))
		return fail(r, "infinite: '%s' (column %zu, %s)", quote(q, b, e), k + 1,
			    role_name[role]);
	if (*v < 0 && role != PCOL_TIME)
		return fail(r, "negative value %s (column %zu, %s)", quote(q, b, e), k + 1,
			    role_name[role]);
	return 0;
}

/* Room for NEED samples in every array R fills. */
static int grow(struct reader *r, size_t need)
{
	double **arr[] = {&r->w, r->timed ? &r->t : NULL, r->va ? &r->volts : NULL,
			  r->va ? &r->amps : NULL};
	size_t cap = r->cap;

	/* every array has room for r->cap: from it, they grow alike */
	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
		size_t c = r->cap;

		if (arr[i] && ARRAY_GROW(*arr[i], need, c))
			return -ENOMEM;
		cap = arr[i] ? c : cap;
	}
	r->cap = cap;
	return 0;
}

/* Words after the last column, for the column count in a message. */
static size_t count_tokens(const char *p)
{
	size_t n = 0;

	for (;;) {
		while (cls[(unsigned char)*p] == C_BLANK || cls[(unsigned char)*p] == C_COMMA ||
		       (*p == '\r' && p[1] != '\n'))
			p++;
		if (cls[(unsigned char)*p] != C_TOK)
			return n;
		n++;
		p = token_end(p);
	}
}

static int count_error(struct reader *r, size_t found)
{
	int skip = strstr(strbuf_str(&r->fmt), "skip") != NULL;

	return fail(r, "expected %zu %s (%s), found %zu", r->spec->ncols,
		    skip		  ? "columns"
		    : r->spec->ncols == 1 ? "number"
					  : "numbers",
		    strbuf_str(&r->fmt), found);
}

/* The end of line at P ('\n', after an optional comment or '\r'), or NULL if P is not there. */
static const char *line_end(const char *p)
{
	if (*p == '#')
		return rawmemchr(p, '\n');
	if (*p == '\r' && p[1] == '\n')
		return p + 1;
	return *p == '\n' ? p : NULL;
}

/* X in as few digits as read back the same. */
static const char *shortest(char *buf, double x)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return buf;
	}
	snprintf(buf, 32, "%.17g", x);
	return buf;
}

/* One data line from P (its first token); the position after its '\n', or NULL on error. */
static const char *parse_line(struct reader *r, const char *p, int *rc)
{
	const struct power_file_spec *spec = r->spec;
	double val[POWER_FILE_MAX_COLS];
	const char *e;
	size_t k, i;

	for (k = 0; k < spec->ncols; k++) {
		if (k > 0) {
			p = skip_blank(p);
			if (*p == ',')
				p = skip_blank(p + 1);
		}
		if (*p == ',') {
			*rc = fail(r, "column %zu (%s) is empty", k + 1, role_name[spec->role[k]]);
			return NULL;
		}
		if (cls[(unsigned char)*p] != C_TOK) {
			*rc = *p == '\r' && p[1] != '\n'
				  ? fail(r, "carriage return inside the line")
				  : count_error(r, k);
			return NULL;
		}
		if (spec->role[k] == PCOL_SKIP)
			p = token_end(p);
		else if ((*rc = read_value(r, &p, k, &val[k])) < 0)
			return NULL;
	}
	p = skip_blank(p);
	if (*p == ',')
		p = skip_blank(p + 1);
	e = line_end(p);
	if (!e) {
		*rc = *p == '\r' && p[1] != '\n' ? fail(r, "carriage return inside the line")
						 : count_error(r, spec->ncols + count_tokens(p));
		return NULL;
	}
	if (r->n == r->cap && (*rc = grow(r, r->n + 1)) < 0)
		return NULL;
	i = r->n;
	if (r->va) {
		double v = val[r->ivolts] * spec->scale[r->ivolts];
		double a = val[r->iamps] * spec->scale[r->iamps];

		r->volts[i] = v;
		r->amps[i] = a;
		r->w[i] = v * a;
	} else {
		r->w[i] = val[r->iwatts] * spec->scale[r->iwatts];
	}
	if (!isfinite(r->w[i])) {
		*rc = fail(r, "power out of range after scaling");
		return NULL;
	}
	if (r->timed) {
		double ts = val[r->itime];

		r->t[i] = r->base_ns + ts * 1e9;
		if (i > 0 && !(r->t[i] > r->t[i - 1])) {
			char a[32], b[32];

			*rc = fail(r, "time %s s is not after the previous %s s", shortest(a, ts),
				   shortest(b, r->prev_s));
			return NULL;
		}
		r->prev_s = ts;
	}
	r->n++;
	r->seen_data = 1;
	return e + 1;
}

/* Lines [P, END); END[-1] is '\n'. */
static int parse_block(struct reader *r, const char *p, const char *end)
{
	int rc = 0;

	while (p < end) {
		const char *e;

		r->line++;
		p = skip_blank(p);
		e = line_end(p);
		if (e) {
			p = e + 1; /* blank or comment */
			continue;
		}
		p = parse_line(r, p, &rc);
		if (!p)
			return rc;
	}
	return 0;
}

static int read_all(struct reader *r, int fd)
{
	size_t cap = READ_BLOCK, len = 0;
	char *buf = malloc(cap + 1), *last;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + len, cap - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			snprintf(r->err, r->errlen, "%s: %s", r->path, strerror(errno));
			break;
		}
		if (got == 0) {
			if (len) {
				buf[len++] = '\n';
				rc = parse_block(r, buf, buf + len);
			}
			break;
		}
		/* the bytes before these hold no '\n': they are what followed the last one */
		last = memrchr(buf + len, '\n', (size_t)got);
		len += (size_t)got;
		if (last) {
			size_t rest = len - (size_t)(last + 1 - buf);

			rc = parse_block(r, buf, last + 1);
			if (rc < 0)
				break;
			memmove(buf, last + 1, rest);
			len = rest;
		} else if (len == cap) {
			char *nb;

			if (cap >= MAX_LINE) {
				r->line++;
				rc = fail(r, "longer than %u bytes: not a power meter's text",
					  MAX_LINE);
				break;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	free(buf);
	return rc;
}

static int setup(struct reader *r, const struct power_file_spec *spec, double start_ns)
{
	size_t k;
	int rc;

	if (format_text(spec, 0, &r->fmt))
		return -ENOMEM;
	rc = spec_check(spec, strbuf_str(&r->fmt), r->err, r->errlen);
	if (rc < 0)
		return rc;
	for (k = 0; k < spec->ncols; k++) {
		switch (spec->role[k]) {
		case PCOL_TIME:
			r->timed = 1;
			r->itime = k;
			break;
		case PCOL_WATTS:
			r->iwatts = k;
			break;
		case PCOL_VOLTS:
			r->va = 1;
			r->ivolts = k;
			break;
		case PCOL_AMPS:
			r->iamps = k;
			break;
		case PCOL_SKIP:
			break;
		}
	}
	if (!r->timed && !(spec->rate_hz > 0 && isfinite(spec->rate_hz))) {
		snprintf(r->err, r->errlen, "power rate %g Hz: expected a number above 0",
			 spec->rate_hz);
		return -EINVAL;
	}
	if (!isfinite(spec->offset_ns) || !isfinite(start_ns)) {
		snprintf(r->err, r->errlen, "power offset %g ns or start %g ns is not finite",
			 spec->offset_ns, start_ns);
		return -EINVAL;
	}
	r->base_ns = start_ns + spec->offset_ns;
	return 0;
}

static void shrink(double **a, size_t n)
{
	double *p = *a ? realloc(*a, n * sizeof(double)) : NULL;

	if (p)
		*a = p;
}

/* Hand the arrays of R over to PS; on failure PS stays empty and R keeps them. */
static int build(struct power_series *ps, struct reader *r)
{
	struct power_channel *ch = calloc(1, sizeof(*ch));
	struct power_column *c = r->va ? calloc(2, sizeof(*c)) : NULL;
	char *src = strdup(r->path), *name = strdup("power");
	int ok = ch && src && name && (!r->va || c);

	if (ok && r->va) {
		c[0].name = strdup("volts");
		c[0].unit = strdup("V");
		c[1].name = strdup("amps");
		c[1].unit = strdup("A");
		ok = c[0].name && c[0].unit && c[1].name && c[1].unit;
	}
	if (!ok) {
		if (c) {
			free(c[0].name);
			free(c[0].unit);
			free(c[1].name);
			free(c[1].unit);
		}
		free(c);
		free(ch);
		free(src);
		free(name);
		return -ENOMEM;
	}
	if (c) {
		c[0].v = r->volts;
		c[1].v = r->amps;
		c[0].n = c[1].n = r->n;
		r->volts = r->amps = NULL;
	}
	ch->name = name;
	ch->kind = POWER_WATTS;
	ch->advancing = 1;
	ch->v = r->w;
	r->w = NULL;
	ps->source = src;
	ps->n = r->n;
	ps->t = r->t;
	r->t = NULL;
	if (!ps->t) {
		ps->t0 = r->base_ns;
		ps->dt = 1e9 / r->spec->rate_hz;
	}
	ps->ch = ch;
	ps->nch = 1;
	ps->cols = c;
	ps->ncols = c ? 2 : 0;
	return 0;
}

int power_file_read(struct power_series *ps, const char *path, const struct power_file_spec *spec,
		    double start_ns, char *err, size_t errlen)
{
	struct reader r = {
	    .spec = spec, .path = path, .err = err, .errlen = errlen, .fmt = STRBUF_INIT};
	struct stat st;
	int fd, rc;

	memset(ps, 0, sizeof(*ps));
	rc = setup(&r, spec, start_ns);
	if (rc < 0)
		goto out;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		strbuf_release(&r.fmt);
		return rc;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t want = (size_t)st.st_size / 8 + 1024; /* lines of 8 bytes or more */

		rc = grow(&r, want < INIT_CAP ? want : INIT_CAP);
	}
	if (rc == 0)
		rc = read_all(&r, fd);
	close(fd);
	if (rc == 0 && r.n == 0) {
		snprintf(err, errlen, "%s: no samples", path);
		rc = -EINVAL;
	}
	if (rc == 0) {
		shrink(&r.w, r.n);
		shrink(&r.t, r.n);
		shrink(&r.volts, r.n);
		shrink(&r.amps, r.n);
		rc = build(ps, &r);
	}
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	strbuf_release(&r.fmt);
	free(r.w);
	free(r.t);
	free(r.volts);
	free(r.amps);
	return rc;
}
