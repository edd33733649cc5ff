/*
 * metrics.c - metric group files: reading and checking them, and finding them in the search
 * directories. The formulas in them are parsed and evaluated by metric-expr.c.
 */
#include "pmu/metrics-int.h"
#include "lib/array.h"
#include "lib/mem.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GROUP_FILE_MAX (1 << 20) /* bytes in a group file */
#define MSG_NAME_MAX   64	 /* characters of a user-supplied name quoted in a message */

/* ---- small helpers ---------------------------------------------------------------------- */

void metric_set_err(char *err, size_t errlen, const char *fmt, ...)
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

static bool is_event_char(int c)
{
	return metric_is_ident_char(c) || c == '-' || c == '/' || c == '=';
}

static bool is_builtin(const char *name)
{
	return !strcmp(name, METRIC_BUILTIN_TIME_NS) || !strcmp(name, METRIC_BUILTIN_TIME_S);
}

static void trim(const char **s, size_t *n)
{
	while (*n && metric_is_space((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && metric_is_space((unsigned char)(*s)[*n - 1]))
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

/* ---- group files -------------------------------------------------------------------------- */

struct group_parser {
	struct metric_group *g;
	const char *where; /* PATH in messages */
	char *err;
	size_t errlen;
	size_t events_cap, metrics_cap; /* g's events and metrics allocated */
};

static METRIC_PRINTF(3, 4) int line_error(struct group_parser *gp, unsigned line, const char *fmt,
					  ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	metric_set_err(gp->err, gp->errlen, "%s:%u: %s", gp->where, line, msg);
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
		if (ARRAY_GROW(g->events, g->nevents + 1, gp->events_cap))
			return -ENOMEM;
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
	struct metric_expr_error perr;
	struct metric *m;
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
		while (q < end && metric_is_space((unsigned char)*q))
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

	if (ARRAY_GROW(g->metrics, g->nmetrics + 1, gp->metrics_cap))
		return -ENOMEM;
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

	rc = metric_expr_compile(m->formula, &m->expr, &perr);
	if (rc == -EINVAL)
		return line_error(gp, line, "%s at column %u in formula", perr.msg, perr.col);
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
		metric_set_err(err, errlen, "%s: out of memory", gp.where);
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
			metric_set_err(err, errlen, "%s: file larger than %d bytes", path,
				       GROUP_FILE_MAX);
		else
			metric_set_err(err, errlen, "%s: %s", path,
				       strerror_r(-rc, buf, sizeof(buf)));
		return rc;
	}
	if (memchr(text, '\0', len)) {
		metric_set_err(err, errlen, "%s: contains a NUL byte; expected text", path);
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
	psc_mem_free(g->events);
	psc_mem_free(g->metrics);
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
static int group_scan_dir(const char *dir, char ***list, size_t *n, size_t *cap)
{
	const size_t suffixlen = strlen(METRIC_GROUP_SUFFIX);
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return 0; /* a missing directory in a search path is not an error */
	while (!rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name), stem = len - suffixlen, i = 0;
		char *ent;

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
		if (ARRAY_GROW(*list, *n + 1, *cap)) {
			free(ent);
			rc = -ENOMEM;
			break;
		}
		(*list)[(*n)++] = ent;
	}
	closedir(d);
	return rc;
}

int metric_group_foreach(const char *const *dirs, size_t ndirs,
			 int (*fn)(void *ctx, const char *name, const char *path), void *ctx)
{
	char **list = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!fn || (ndirs && !dirs))
		return -EINVAL;
	for (size_t i = 0; i < ndirs && !rc; i++)
		if (dirs[i] && *dirs[i])
			rc = group_scan_dir(dirs[i], &list, &n, &cap);
	if (!rc && n)
		qsort(list, n, sizeof(*list), group_entry_cmp);
	for (size_t i = 0; i < n && !rc; i++)
		rc = fn(ctx, list[i], list[i] + strlen(list[i]) + 1);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	psc_mem_free(list);
	return rc;
}
