/*
 * loadlog.c - reading load logs (docs/format.md "Load logs") and aggregating an
 * experiment's logs per host and per rank. The header is checked strictly; a last line without
 * its newline is what a process killed while writing leaves: it is ignored.
 */
#include "format/loadlog.h"
#include "lib/array.h"
#include "lib/textline.h"

#include "format/layout.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_MAGIC "# perfscope load 1"
/* A rank's share is CPUs in use: more than this many is a damaged file (and would overflow the
 * statistics' weighted sums). */
#define LOAD_SHARE_MAX 1048576.0

struct load_reader {
	const char *path;
	char *err;
	size_t errlen;
	size_t line;
	size_t ranks_cap, pids_cap;	      /* ranks and pids allocated */
	size_t time_cap, host_cap, share_cap; /* samples allocated */
};

static int fail(struct load_reader *r, int ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "PATH: line N: " and the message into the error buffer; returns RET. */
static int fail(struct load_reader *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = textline_vfail(r->err, r->errlen, r->path, r->line, ret, fmt, ap);
	va_end(ap);
	return ret;
}

/* A non-negative int. */
static int parse_int(const char *s, int *v)
{
	uint64_t x;

	if (textline_u64(s, &x) < 0 || x > 0x7fffffff)
		return -EINVAL;
	*v = (int)x;
	return 0;
}

/* A share: `-` (NAN) or a finite decimal number from 0 to MAX. */
static int parse_share(const char *s, double max, double *v)
{
	char *end;

	if (!strcmp(s, "-")) {
		*v = NAN;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || !isfinite(*v) || *v < 0 || *v > max)
		return -EINVAL;
	return 0;
}

/* "# KEY VALUE" header lines (LINE without its "# "). */
static int load_header_line(struct load_reader *r, struct load_log *log, char *line)
{
	char *value = strchr(line, ' ');
	uint64_t v;

	if (!value)
		return 0; /* a comment */
	*value++ = 0;
	if (!strcmp(line, "host")) {
		if (log->host)
			return fail(r, -EINVAL, "a second host line");
		if (!*value || strchr(value, ' '))
			return fail(r, -EINVAL, "expected a host name without blanks");
		log->host = strdup(value);
		return log->host ? 0 : -ENOMEM;
	}
	if (!strcmp(line, "period_ns")) {
		if (textline_u64(value, &v) < 0 || v == 0)
			return fail(r, -EINVAL, "expected a period in ns (a positive integer)");
		log->period_ns = v;
		return 0;
	}
	if (!strcmp(line, "cpus")) {
		if (parse_int(value, &log->cpus) < 0)
			return fail(r, -EINVAL, "expected a CPU count");
		return 0;
	}
	if (!strcmp(line, "rank")) {
		int rank, pid, n = 0;
		char extra;

		if (sscanf(value, "%d pid %d%n%c", &rank, &pid, &n, &extra) != 2 || rank < 0 ||
		    pid <= 0 || value[n])
			return fail(r, -EINVAL, "expected '# rank R pid P'");
		for (size_t i = 0; i < log->nranks; i++)
			if (log->ranks[i] == rank)
				return fail(r, -EINVAL, "rank %d listed twice", rank);
		if (ARRAY_GROW(log->ranks, log->nranks + 1, r->ranks_cap) ||
		    ARRAY_GROW(log->pids, log->nranks + 1, r->pids_cap))
			return -ENOMEM;
		log->ranks[log->nranks] = rank;
		log->pids[log->nranks++] = pid;
	}
	return 0; /* another key: a comment */
}

/* The header row: time_ns,host,rankR,... in the order of the rank lines. */
static int load_columns(struct load_reader *r, const struct load_log *log, char *line)
{
	char *save = NULL, *tok = strtok_r(line, ",", &save);
	size_t col = 0;
	char want[32];

	if (!log->host || !log->period_ns || !log->nranks)
		return fail(r, -EINVAL, "header without %s before the column row",
			    !log->host	      ? "'# host'"
			    : !log->period_ns ? "'# period_ns'"
					      : "'# rank'");
	if (!tok || strcmp(tok, "time_ns") || !(tok = strtok_r(NULL, ",", &save)) ||
	    strcmp(tok, "host"))
		return fail(r, -EINVAL, "expected the column row 'time_ns,host,rank...'");
	while ((tok = strtok_r(NULL, ",", &save))) {
		if (col >= log->nranks)
			return fail(r, -EINVAL, "more columns than '# rank' lines");
		snprintf(want, sizeof(want), "rank%d", log->ranks[col]);
		if (strcmp(tok, want))
			return fail(r, -EINVAL, "column %zu is '%s', expected '%s'", col + 3, tok,
				    want);
		col++;
	}
	if (col != log->nranks)
		return fail(r, -EINVAL, "%zu rank columns for %zu '# rank' lines", col,
			    log->nranks);
	return 0;
}

static int load_grow(struct load_reader *r, struct load_log *log)
{
	size_t need = log->nsamples + 1;

	/* share's elements are rows of nranks shares */
	if (ARRAY_GROW(log->time_ns, need, r->time_cap) ||
	    ARRAY_GROW(log->host_busy, need, r->host_cap) ||
	    array_reserve((void **)&log->share, &r->share_cap, need,
			  log->nranks * sizeof(*log->share)))
		return -ENOMEM;
	return 0;
}

/* One sample row. */
static int load_row(struct load_reader *r, struct load_log *log, char *line)
{
	char *save = NULL, *tok = strtok_r(line, ",", &save);
	size_t i = log->nsamples, col = 0;
	uint64_t t;
	int err = load_grow(r, log);

	if (err)
		return err;
	if (!tok || textline_u64(tok, &t) < 0)
		return fail(r, -EINVAL, "expected a time in ns");
	if (i > 0 && t <= log->time_ns[i - 1])
		return fail(r, -EINVAL, "time %s not after the previous row's", tok);
	log->time_ns[i] = t;
	if (!(tok = strtok_r(NULL, ",", &save)) || parse_share(tok, 1.0, &log->host_busy[i]) < 0)
		return fail(r, -EINVAL, "expected the host's busy share (0 to 1, or '-')");
	while ((tok = strtok_r(NULL, ",", &save))) {
		if (col >= log->nranks)
			return fail(r, -EINVAL, "more than %zu rank values", log->nranks);
		if (parse_share(tok, LOAD_SHARE_MAX, &log->share[i * log->nranks + col]) < 0)
			return fail(r, -EINVAL,
				    "rank %d: expected a CPU share (0 to %.0f CPUs, or '-')",
				    log->ranks[col], LOAD_SHARE_MAX);
		col++;
	}
	if (col != log->nranks)
		return fail(r, -EINVAL, "%zu rank values, expected %zu", col, log->nranks);
	log->nsamples++;
	return 0;
}

int load_log_read(struct load_log *log, const char *path, char *err, size_t errlen)
{
	struct load_reader r = {.path = path, .err = err, .errlen = errlen};
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0, in_header = 1;

	memset(log, 0, sizeof(*log));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!(log->path = strdup(path)))
		ret = -ENOMEM;
	while (ret == 0 && (len = getline(&line, &cap, f)) >= 0) {
		if (len == 0 || line[len - 1] != '\n')
			break; /* cut short: ignored, the file ends before it */
		r.line++;
		line[--len] = 0;
		if ((size_t)len != strlen(line)) {
			ret = fail(&r, -EINVAL, "a NUL byte");
		} else if (r.line == 1) {
			if (strcmp(line, LOAD_MAGIC))
				ret = fail(&r, -EINVAL, "expected '" LOAD_MAGIC "'");
		} else if (in_header && !strncmp(line, "# ", 2)) {
			ret = load_header_line(&r, log, line + 2);
		} else if (in_header) {
			ret = load_columns(&r, log, line);
			in_header = 0;
		} else {
			ret = load_row(&r, log, line);
		}
	}
	if (ret == 0 && ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	} else if (ret == 0 && r.line == 0) {
		r.line = 1;
		ret = fail(&r, -EINVAL, "empty file");
	} else if (ret == 0 && in_header) {
		r.line++;
		ret = fail(&r, -EINVAL, "the file ends before the column row");
	}
	free(line);
	fclose(f);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (ret)
		load_log_release(log);
	return ret;
}

void load_log_release(struct load_log *log)
{
	free(log->path);
	free(log->host);
	free(log->ranks);
	free(log->pids);
	free(log->time_ns);
	free(log->host_busy);
	free(log->share);
	memset(log, 0, sizeof(*log));
}

struct load_stats load_log_stats(const struct load_log *log, const double *values, size_t stride)
{
	struct load_stats st = {0, NAN, NAN, NAN};
	double sum = 0, weight = 0;

	for (size_t i = 0; i < log->nsamples; i++) {
		double v = values[i * stride];
		double w = (double)(i ? log->time_ns[i] - log->time_ns[i - 1] : log->period_ns);

		if (isnan(v))
			continue;
		if (st.n == 0 || v < st.min)
			st.min = v;
		if (st.n == 0 || v > st.max)
			st.max = v;
		st.n++;
		sum += v * w;
		weight += w;
	}
	if (st.n)
		st.mean = sum / weight;
	return st;
}

static int log_cmp(const void *a, const void *b)
{
	const struct load_log *x = a, *y = b;

	return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct load_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* qsort order of file names: qsort passes pointers to the char * elements. */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of DIR's load logs (load.<host>.<pid>), sorted. */
static int load_list(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (layout_parse(de->d_name, NULL) != LAYOUT_LOAD)
			continue;
		if (ARRAY_GROW(*names, *n + 1, cap))
			break;
		if (!((*names)[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (de) /* stopped early: out of memory */
		return -ENOMEM;
	if (*n > 1)
		qsort(*names, *n, sizeof(char *), name_cmp);
	return 0;
}

/* Fill SET's ranks and statistics from its logs. */
static int load_aggregate(struct load_set *set, char *err, size_t errlen)
{
	size_t n = 0;

	qsort(set->logs, set->nlogs, sizeof(*set->logs), log_cmp);
	for (size_t l = 0; l < set->nlogs; l++)
		n += set->logs[l].nranks;
	set->busy = calloc(set->nlogs, sizeof(*set->busy));
	set->ranks = calloc(n ? n : 1, sizeof(*set->ranks));
	if (!set->busy || !set->ranks) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t l = 0; l < set->nlogs; l++) {
		const struct load_log *log = &set->logs[l];

		set->busy[l] = load_log_stats(log, log->host_busy, 1);
		for (size_t c = 0; c < log->nranks; c++) {
			struct load_rank *r = &set->ranks[set->nranks++];

			r->rank = log->ranks[c];
			r->pid = log->pids[c];
			r->log = l;
			r->col = c;
			r->st = log->nsamples ? load_log_stats(log, log->share + c, log->nranks)
					      : load_log_stats(log, NULL, 0);
		}
	}
	qsort(set->ranks, set->nranks, sizeof(*set->ranks), rank_cmp);
	for (size_t i = 1; i < set->nranks; i++)
		if (set->ranks[i].rank == set->ranks[i - 1].rank) {
			snprintf(err, errlen, "%s: rank %d is also in %s",
				 set->logs[set->ranks[i].log].path, set->ranks[i].rank,
				 set->logs[set->ranks[i - 1].log].path);
			return -EINVAL;
		}
	return 0;
}

int load_set_read(struct load_set *set, const char *dir, char *err, size_t errlen)
{
	char **names;
	size_t n;
	int ret;

	memset(set, 0, sizeof(*set));
	ret = load_list(dir, &names, &n);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
	} else if (n == 0) {
		snprintf(err, errlen, "%s: no load logs (recorded without --mpi, or with --load=0)",
			 dir);
		ret = -ENOENT;
	} else if (!(set->logs = calloc(n, sizeof(*set->logs)))) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	for (size_t i = 0; ret == 0 && i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(len);

		if (!path) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			break;
		}
		snprintf(path, len, "%s/%s", dir, names[i]);
		ret = load_log_read(&set->logs[set->nlogs], path, err, errlen);
		free(path);
		if (ret == 0)
			set->nlogs++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret == 0)
		ret = load_aggregate(set, err, errlen);
	if (ret)
		load_set_release(set);
	return ret;
}

void load_set_release(struct load_set *set)
{
	for (size_t i = 0; i < set->nlogs; i++)
		load_log_release(&set->logs[i]);
	free(set->logs);
	free(set->busy);
	free(set->ranks);
	memset(set, 0, sizeof(*set));
}
