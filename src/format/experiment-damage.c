/*
 * experiment-damage.c - the files of an experiment that are cut short or empty (struct
 * exp_damage), listed as they are found.
 */
#include "format/experiment-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct exp_damage *exp_damage_add(struct experiment *e, const char *name, enum exp_damage_kind kind,
				  uint64_t size, uint64_t at)
{
	struct exp_damage *d = realloc(e->damaged, (e->ndamaged + 1) * sizeof(*d));

	if (!d)
		return NULL;
	e->damaged = d;
	d += e->ndamaged;
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return NULL;
	d->kind = kind;
	d->size = size;
	d->at = at;
	e->ndamaged++;
	return d;
}

uint64_t exp_file_size(const char *dir, const char *name, int *exists)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*exists = stat(path, &st) == 0;
	return *exists ? (uint64_t)st.st_size : 0;
}

struct exp_damage *exp_damaged_proc(const struct experiment *e, pid_t pid, unsigned image)
{
	for (size_t i = 0; i < e->ndamaged; i++) {
		struct exp_damage *d = &e->damaged[i];

		if ((pid < 0 || (d->pid == pid && d->image == image)) &&
		    layout_parse(d->name, NULL) == LAYOUT_PROC)
			return d;
	}
	return NULL;
}

int exp_short_file(struct experiment *e, const char *path, uint64_t size, pid_t pid, unsigned image,
		   int launcher)
{
	const char *name = strrchr(path, '/');
	struct exp_damage *d;

	if (size >= sizeof(struct psc_stream_header))
		return 0;
	d = exp_damage_add(e, name ? name + 1 : path, size ? EXP_DAMAGE_HEADER : EXP_DAMAGE_EMPTY,
			   size, size);
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	return 1;
}

int exp_scan_damage(struct experiment *e, const char *path, const struct stream_extent *x,
		    uint64_t header, pid_t pid, unsigned image, int launcher)
{
	const char *name = strrchr(path, '/');
	struct exp_damage *d = NULL;

	name = name ? name + 1 : path;
	if (x->defect)
		return 0; /* corruption: the full pass names it */
	if (x->cut_at)
		d = exp_damage_add(e, name, EXP_DAMAGE_CUT, x->size, x->cut_at);
	else if (!x->chunks)
		d = exp_damage_add(e, name, EXP_DAMAGE_CUT, x->size, header);
	else if (x->want_end && x->ended == 0)
		d = exp_damage_add(e, name, EXP_DAMAGE_UNENDED, x->size, x->size);
	else
		return 0;
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	return 0;
}

int exp_maps_damage(struct experiment *e, const char *name, const struct layout_file *f)
{
	struct layout_file maps_file = {.kind = LAYOUT_MAPS, .pid = f->pid, .image = f->image};
	int pid = f->pid, launcher = f->kind == LAYOUT_PMAPS, exists;
	unsigned image = f->image;
	struct exp_damage *d;
	char maps[64];

	if (exp_file_size(e->dir, name, &exists) || !exists)
		return 0;
	d = exp_damage_add(e, name, EXP_DAMAGE_EMPTY, 0, 0);
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	if (launcher) {
		layout_name(&maps_file, maps, sizeof(maps));
		d->maps_cover = exp_file_size(e->dir, maps, &exists) > 0;
	}
	return 0;
}

static int cmp_damage(const void *a, const void *b)
{
	return strcmp(((const struct exp_damage *)a)->name, ((const struct exp_damage *)b)->name);
}

void exp_damage_sort(struct experiment *e)
{
	if (e->ndamaged)
		qsort(e->damaged, e->ndamaged, sizeof(*e->damaged), cmp_damage);
}
