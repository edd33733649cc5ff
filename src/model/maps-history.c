/*
 * maps-history.c - the history of a memory map (maps.h): each mapping followed through the
 * copies (a whole copy ends the mappings it lacks, an added one ends none), with the object
 * line of the file it mapped.
 */
#include "model/maps-int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Object I's path resolved through symbolic links now ("" when it cannot be). NULL: out of
 * memory. */
static const char *object_real(struct parse *ps, size_t i)
{
	struct maps *m = ps->m;
	char buf[PATH_MAX], *r;

	if (!ps->real) {
		ps->real = calloc(m->nobjects ? m->nobjects : 1, sizeof(*ps->real));
		if (!ps->real)
			return NULL;
	}
	if (ps->real[i])
		return ps->real[i];
	r = m->objects[i].path[0] == '/' && !strstr(m->objects[i].path, "\\012")
		? realpath(m->objects[i].path, buf)
		: NULL;
	ps->real[i] = arena_strndup(&m->strings, r ? r : "", r ? strlen(r) : 0);
	return ps->real[i];
}

/*
 * The object line of GROUP that describes the file mapped at PATH: the one with that path, else
 * the one whose path leads there through symbolic links (a library found as libfoo.so.1), else
 * the only one with its base name (dlopen given a relative path). NULL if none. *ERR: -ENOMEM.
 */
static const struct maps_object *object_of(struct parse *ps, uint32_t group, const char *path,
					   int *err)
{
	struct maps *m = ps->m;
	size_t lo = 0, hi = ps->nobjs, first, last, i, found = SIZE_MAX, nbase = 0;

	if (path[0] != '/')
		return NULL;
	/* the object lines are in group order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->objs[mid].group < group)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	for (last = first; last < ps->nobjs && ps->objs[last].group == group; last++)
		if (!strcmp(m->objects[ps->objs[last].obj].path, path))
			return &m->objects[ps->objs[last].obj];
	for (i = first; i < last; i++) {
		const char *r = object_real(ps, ps->objs[i].obj);

		if (!r) {
			*err = -ENOMEM;
			return NULL;
		}
		if (!strcmp(r, path))
			return &m->objects[ps->objs[i].obj];
	}
	for (i = first; i < last; i++)
		if (!strcmp(base_of(m->objects[ps->objs[i].obj].path), base_of(path)) &&
		    (found == SIZE_MAX || ps->objs[found].obj != ps->objs[i].obj)) {
			found = i;
			nbase++;
		}
	return nbase == 1 ? &m->objects[ps->objs[found].obj] : NULL;
}

static int same_mapping(const struct maps_entry *a, const struct maps_entry *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->perms == b->perms && (a->path == b->path || !strcmp(a->path, b->path));
}

/* Instances that are open (present in the last whole copy, or added since): their indices,
 * and by their start. */
struct open_set {
	uint32_t *v;
	size_t n, cap;
	struct u64map at; /* start -> instance + 1 */
};

/* Instance IX, mapped at START, into S. 0 or -ENOMEM. */
static int open_add(struct open_set *s, uint64_t start, size_t ix)
{
	if (maps_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
	    u64map_put(&s->at, start, ix + 1))
		return -ENOMEM;
	s->v[s->n++] = (uint32_t)ix;
	return 0;
}

/*
 * The mapping line E of copy K (FULL: a whole copy) into PS's instances (m->insts of INSTCAP):
 * the instance of OPEN it continues, or a new one. A whole copy's go into NEXT, an added
 * copy's into OPEN. 0 or -ENOMEM.
 */
static int history_line(struct parse *ps, size_t k, int full, const struct maps_entry *e,
			size_t *instcap, struct open_set *open, struct open_set *next)
{
	struct maps *m = ps->m;
	const struct maps_object *obj;
	uint64_t v;
	size_t ix;
	int ret = 0;

	/* a whole copy continues the mappings it still has; an added mapping is a new one, even
	 * where the same line was before (another file may have been mapped there, as its object
	 * line tells) */
	if (full && u64map_get(&open->at, e->start, &v) && v &&
	    same_mapping(&m->insts[v - 1].e, e)) {
		ix = (size_t)(v - 1);
		m->insts[ix].e.deleted |= e->deleted;
		m->insts[ix].last = (uint32_t)k;
		return open_add(next, e->start, ix);
	}
	if (maps_grow((void **)&m->insts, instcap, m->ninsts + 1, sizeof(*m->insts)))
		return -ENOMEM;
	obj = object_of(ps, ps->group[k], e->path, &ret);
	ix = m->ninsts++;
	m->insts[ix] = (struct maps_inst){*e, obj, (uint32_t)k, (uint32_t)k, 0};
	if (open_add(full ? next : open, e->start, ix))
		return -ENOMEM;
	return ret;
}

/* The end of whole copy K: the instances of OPEN it lacks ended with the copy before, and
 * those of NEXT (the copy's) are the open ones from here. */
static void history_copy_end(struct maps *m, size_t k, struct open_set *open, struct open_set *next)
{
	struct open_set t = *open;

	for (size_t i = 0; i < open->n; i++)
		if (m->insts[open->v[i]].last != k)
			m->insts[open->v[i]].last = (uint32_t)(k - 1);
	*open = *next;
	*next = t;
}

int maps_build_history(struct parse *ps)
{
	struct maps *m = ps->m;
	struct open_set open = {0}, next = {0};
	size_t instcap = 0, li = 0;
	int ret = 0;

	/* an open instance's `last` is set when a whole copy lacks it, or at the end */
	for (size_t k = 0; k < m->ncopies && !ret; k++) {
		int full = m->copies[k].kind == MAPS_COPY_FULL;

		if (full) {
			next.n = 0;
			u64map_clear(&next.at);
		}
		for (; li < ps->nlines && ps->lines[li].copy == k && !ret; li++)
			ret = history_line(ps, k, full, &ps->lines[li].e, &instcap, &open, &next);
		if (full && !ret)
			history_copy_end(m, k, &open, &next);
	}
	for (size_t i = 0; i < open.n && !ret; i++)
		m->insts[open.v[i]].last = (uint32_t)(m->ncopies - 1);
	free(open.v);
	free(next.v);
	u64map_release(&open.at);
	u64map_release(&next.at);
	return ret;
}
