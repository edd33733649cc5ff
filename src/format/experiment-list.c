/*
 * experiment-list.c - an experiment directory's listing: which of its files are proc files,
 * streams, samples files and memory maps (layout.h), each put in its place in the experiment.
 */
#include "format/experiment-int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many files of each kind the directory holds: room for them in the experiment's lists. */
struct dir_counts {
	size_t procs, streams, samples;
};

/* The full path of NAME in E's directory, copied: NULL when out of memory. */
static char *dir_path(const struct experiment *e, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	return strdup(path);
}

/* The directory entry NAME, of kind KIND as F tells it, into E (within the room of N). 0, or a
 * negative errno with the message in ERR. */
static int list_entry(struct experiment *e, const char *name, enum layout_kind kind,
		      const struct layout_file *f, const struct dir_counts *n, char *err,
		      size_t errlen)
{
	if (kind == LAYOUT_PROC && e->nprocs < n->procs)
		return exp_proc_load(e, name, err, errlen);
	if (kind == LAYOUT_STREAM && e->nstreams < n->streams) {
		struct exp_stream *s = &e->streams[e->nstreams++];

		s->path = dir_path(e, name);
		s->pid = f->pid;
		s->tid = f->tid;
		s->image = f->image;
		if (!s->path)
			snprintf(err, errlen, "%s: out of memory", e->dir);
		return s->path ? 0 : -ENOMEM;
	}
	if (kind == LAYOUT_SAMPLES && e->nsamples < n->samples) {
		struct exp_samples *s = &e->samples[e->nsamples++];

		s->path = dir_path(e, name);
		s->pid = f->pid;
		if (!s->path)
			snprintf(err, errlen, "%s: out of memory", e->dir);
		return s->path ? 0 : -ENOMEM;
	}
	if (kind == LAYOUT_MAPS || kind == LAYOUT_PMAPS)
		return exp_maps_damage(e, name, f);
	return 0;
}

int exp_list_dir(struct experiment *e, char *err, size_t errlen)
{
	struct dir_counts n = {0};
	struct dirent *de;
	DIR *d = opendir(e->dir);
	int ret = 0;

	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", e->dir,
			 ret == -ENOMEM ? "out of memory reading the directory" : strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		enum layout_kind kind = layout_parse(de->d_name, NULL);

		n.procs += kind == LAYOUT_PROC;
		n.streams += kind == LAYOUT_STREAM;
		n.samples += kind == LAYOUT_SAMPLES;
	}
	e->samples = calloc(n.samples + 1, sizeof(*e->samples));
	e->procs = calloc(n.procs + 1, sizeof(*e->procs));
	e->streams = calloc(n.streams + 1, sizeof(*e->streams));
	if (!e->procs || !e->streams || !e->samples) {
		closedir(d);
		snprintf(err, errlen, "%s: out of memory", e->dir);
		return -ENOMEM;
	}
	rewinddir(d);
	while ((de = readdir(d)) && ret == 0) {
		struct layout_file f;
		enum layout_kind kind = layout_parse(de->d_name, &f);

		ret = list_entry(e, de->d_name, kind, &f, &n, err, errlen);
	}
	closedir(d);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", e->dir);
	return ret;
}
