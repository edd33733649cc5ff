/* stat-result.c - summaries of repeated counting runs. */
#include "format/stat-result.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stat_result_alloc(struct stat_result *res, size_t runs)
{
	res->runs = calloc(runs, sizeof(*res->runs));
	if (!res->runs)
		return -ENOMEM;
	res->cap = runs;
	for (size_t r = 0; r < runs; r++) {
		struct stat_run *run = &res->runs[r];

		run->counts = calloc(res->nevents + 1, sizeof(*run->counts));
		run->status = calloc(res->nevents + 1, sizeof(*run->status));
		run->user_only = calloc(res->nevents + 1, sizeof(*run->user_only));
		if (!run->counts || !run->status || !run->user_only)
			return -ENOMEM;
	}
	return 0;
}

static int counted(const struct stat_result *res, const char *name)
{
	for (size_t i = 0; i < res->nevents; i++)
		if (!strcmp(res->events[i].name, name))
			return 1;
	return 0;
}

struct find_ctx {
	struct stat_result *res;
};

static int consider_group(void *arg, const char *name, const char *path)
{
	struct find_ctx *c = arg;
	struct metric_group g, *p;
	char err[256];
	size_t i;

	(void)name;
	if (metric_group_load(&g, path, err, sizeof(err)))
		return 0; /* a broken file is reported by perfscope list, not here */
	for (i = 0; i < g.nevents && counted(c->res, g.events[i]); i++)
		;
	if (i < g.nevents || g.nmetrics == 0) {
		metric_group_release(&g);
		return 0;
	}
	p = realloc(c->res->found, (c->res->nfound + 1) * sizeof(*p));
	if (!p) {
		metric_group_release(&g);
		return -ENOMEM;
	}
	c->res->found = p;
	c->res->found[c->res->nfound++] = g;
	return 0;
}

int stat_result_find_metrics(struct stat_result *res, const char *const *dirs, size_t ndirs)
{
	struct find_ctx c = {res};

	return metric_group_foreach(dirs, ndirs, consider_group, &c);
}

void stat_result_summarize(const struct stat_result *res, size_t i, struct stat_event_summary *out)
{
	memset(out, 0, sizeof(*out));
	stats_init(&out->value);
	out->min_running = 1.0;
	for (size_t r = 0; r < res->nruns; r++) {
		const struct stat_run *run = &res->runs[r];
		uint64_t v;
		double ratio;

		if (run->status[i]) {
			if (!out->status)
				out->status = run->status[i];
			continue;
		}
		out->user_only |= run->user_only[i];
		if (count_scale(&run->counts[i], &v) < 0) {
			out->not_counted_runs++;
			continue;
		}
		ratio = count_running_ratio(&run->counts[i]);
		if (ratio < out->min_running)
			out->min_running = ratio;
		stats_add(&out->value, (double)v);
	}
}

struct lookup_ctx {
	const struct stat_result *res;
	double wall_ns;
};

static int lookup(void *arg, const char *name, double *value)
{
	const struct lookup_ctx *c = arg;
	struct stat_event_summary s;

	if (!strcmp(name, METRIC_BUILTIN_TIME_NS)) {
		*value = c->wall_ns;
		return 0;
	}
	if (!strcmp(name, METRIC_BUILTIN_TIME_S)) {
		*value = c->wall_ns / 1e9;
		return 0;
	}
	for (size_t i = 0; i < c->res->nevents; i++) {
		if (strcmp(c->res->events[i].name, name))
			continue;
		stat_result_summarize(c->res, i, &s);
		if (s.value.n == 0)
			return -ENODATA;
		*value = s.value.mean;
		return 0;
	}
	return -ENOENT;
}

int stat_result_metric(const struct stat_result *res, const struct metric *m, double *value,
		       char *missing, size_t len)
{
	struct lookup_ctx c = {res, 0};
	struct stats wall;
	int ret;

	stats_init(&wall);
	for (size_t r = 0; r < res->nruns; r++)
		stats_add(&wall, res->runs[r].wall_ns);
	c.wall_ns = wall.mean;
	ret = metric_eval(m, lookup, &c, value);
	if (ret == -ENODATA && missing)
		metric_expr_missing(m->expr, lookup, &c, missing, len);
	return ret;
}

int stat_run_unattributed(const struct stat_run *run, size_t i, int64_t *out)
{
	uint64_t total, v;
	int64_t rest;

	if (run->status[i] || count_scale(&run->counts[i], &total) < 0)
		return -ENODATA;
	rest = (int64_t)total;
	for (size_t k = 0; k < run->nthreads; k++) {
		const struct stat_thread *t = &run->threads[k];

		if (t->status[i] == 0 && count_scale(&t->counts[i], &v) == 0)
			rest -= (int64_t)v;
	}
	*out = rest;
	return 0;
}

void stat_result_release(struct stat_result *res)
{
	for (size_t r = 0; r < res->cap; r++) {
		struct stat_run *run = &res->runs[r];

		for (size_t k = 0; k < run->nthreads; k++) {
			free(run->threads[k].counts);
			free(run->threads[k].status);
		}
		free(run->threads);
		free(run->counts);
		free(run->status);
		free(run->user_only);
	}
	for (size_t g = 0; g < res->nfound; g++)
		metric_group_release(&res->found[g]);
	free(res->found);
	free(res->runs);
	free(res->events);
	memset(res, 0, sizeof(*res));
}
