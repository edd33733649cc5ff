/*
 * maps-union.c - the union of the copies of a memory map (maps.h): merged in order, each
 * copy's mappings replacing whatever part of earlier ones they cover.
 */
#include "model/maps-int.h"
#include "lib/array.h"

#include <errno.h>
#include <stdlib.h>

struct entry_vec {
	struct maps_entry *v;
	size_t n, cap;
};

static int vec_push(struct entry_vec *vec, const struct maps_entry *e)
{
	if (ARRAY_GROW(vec->v, vec->n + 1, vec->cap))
		return -ENOMEM;
	vec->v[vec->n++] = *e;
	return 0;
}

/* The part [start, end) of e, with its file offset moved along. */
static struct maps_entry piece(const struct maps_entry *e, uint64_t start, uint64_t end)
{
	struct maps_entry p = *e;

	p.offset = e->offset + (start - e->start);
	p.start = start;
	p.end = end;
	return p;
}

/* m->v := run ∪ (m->v − cover(run)); both sorted and without overlaps. */
static int merge_run(struct maps *m, const struct entry_vec *run)
{
	struct entry_vec rest = {0}, out = {0};
	size_t i, j = 0, k;
	int ret = 0;

	for (i = 0; i < m->n && !ret; i++) {
		const struct maps_entry *a = &m->v[i];
		uint64_t cur = a->start;

		while (j < run->n && run->v[j].end <= a->start)
			j++;
		for (k = j; k < run->n && run->v[k].start < a->end && cur < a->end; k++) {
			if (run->v[k].start > cur) {
				struct maps_entry p = piece(a, cur, run->v[k].start);

				if ((ret = vec_push(&rest, &p)))
					break;
			}
			if (run->v[k].end > cur)
				cur = run->v[k].end;
		}
		if (!ret && cur < a->end) {
			struct maps_entry p = piece(a, cur, a->end);

			ret = vec_push(&rest, &p);
		}
	}
	for (i = 0, j = 0; !ret && (i < rest.n || j < run->n);) {
		if (j == run->n || (i < rest.n && rest.v[i].start < run->v[j].start))
			ret = vec_push(&out, &rest.v[i++]);
		else
			ret = vec_push(&out, &run->v[j++]);
	}
	free(rest.v);
	if (ret) {
		free(out.v);
		return ret;
	}
	free(m->v);
	m->v = out.v;
	m->n = out.n;
	return 0;
}

int maps_build_union(struct parse *ps)
{
	struct entry_vec run = {0};
	int ret = 0;

	for (size_t i = 0; i < ps->nlines && !ret; i++) {
		ret = vec_push(&run, &ps->lines[i].e);
		if (!ret && (i + 1 == ps->nlines || ps->lines[i + 1].copy != ps->lines[i].copy)) {
			ret = merge_run(ps->m, &run);
			run.n = 0;
		}
	}
	free(run.v);
	return ret;
}
