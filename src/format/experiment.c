/*
 * experiment.c - an experiment directory read (experiment.h): the directory checked, its
 * streams salvaged, then meta.json, the listing with the proc files, the checks of the streams
 * and samples files, and the clock fits, each done by its own file (experiment-int.h).
 */
#include "format/experiment-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* DIR, that must be a directory, as E's. 0, or a negative errno with the message in ERR. */
static int exp_dir(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir,
			 e == ENOENT ? "no such experiment directory" : strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (an experiment is a directory)", dir);
		return -ENOTDIR;
	}
	e->dir = strdup(dir);
	if (!e->dir) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	return 0;
}

/* experiment_read() but for the release of what a failure left. */
static int exp_read(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	int ret;

	memset(e, 0, sizeof(*e));
	e->exit_status = -1;
	e->exit_signal = -1;
	ret = exp_dir(e, dir, err, errlen);
	if (ret)
		return ret;
	/* streams of killed processes are completed from their live buffer files first; what
	 * cannot be (a read-only directory) is said in the caveats */
	salvage_dir(dir, &e->salvage, err, errlen);
	err[0] = 0;
	ret = exp_meta_load(e, err, errlen);
	if (!ret)
		ret = exp_list_dir(e, err, errlen);
	if (ret)
		return ret;
	if (!e->has_meta && e->nprocs == 0 && !exp_damaged_proc(e, -1, 0)) {
		snprintf(err, errlen,
			 "%s: not a perfscope experiment (no meta.json, no proc.*.json)", dir);
		return -EINVAL;
	}
	ret = exp_streams_check(e, err, errlen);
	if (ret)
		return ret;
	ret = exp_samples_check(e);
	if (ret) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return ret;
	}
	exp_damage_sort(e);
	exp_fit_clocks(e);
	return 0;
}

/* What exp_read() left when it failed is released here: no caller leaks it. */
int experiment_read(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	int ret = exp_read(e, dir, err, errlen);

	if (ret)
		experiment_clear(e);
	return ret;
}

struct exp_process *experiment_process(const struct experiment *e, pid_t pid, unsigned image)
{
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].pid == pid && e->procs[i].image == image)
			return &e->procs[i];
	return NULL;
}

void experiment_clear(struct experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_process *p = &e->procs[i];

		free(p->exe);
		free(p->host);
		free(p->state);
		free(p->error);
		free(p->pairs);
		exp_free_str_array(p->events, p->nevents);
	}
	for (size_t i = 0; i < e->nstreams; i++)
		free(e->streams[i].path);
	for (size_t i = 0; i < e->nsamples; i++)
		free(e->samples[i].path);
	free(e->samples);
	exp_free_str_array(e->sampling.events, e->sampling.nevents);
	exp_free_str_array(e->sampling.states, e->sampling.nevents);
	free(e->sampling.error);
	free(e->sampling.kallsyms_error);
	for (size_t i = 0; i < e->ndamaged; i++)
		free(e->damaged[i].name);
	free(e->damaged);
	for (size_t i = 0; i < e->nmetrics; i++) {
		free(e->metrics[i].name);
		free(e->metrics[i].unit);
		free(e->metrics[i].formula);
	}
	free(e->metrics);
	free(e->metric_group);
	free(e->power.source);
	free(e->power.file);
	free(e->power.path);
	free(e->power.format);
	free(e->power.scale);
	for (size_t i = 0; i < e->nunsupported; i++) {
		free(e->unsupported[i].name);
		free(e->unsupported[i].reason);
	}
	free(e->unsupported);
	free(e->procs);
	free(e->streams);
	exp_free_str_array(e->command, e->ncommand);
	free(e->created_by);
	free(e->host);
	free(e->clock);
	free(e->cpu_brand);
	free(e->dir);
	memset(e, 0, sizeof(*e));
}
