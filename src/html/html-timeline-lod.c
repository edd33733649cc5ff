/* html-timeline-lod.c - the Timeline's level of detail: slices kept whole or aggregated into
 * time bins under the report's budgets (html-timeline.h). */
#include "html/html-timeline.h"
#include "lib/array.h"
#include "lib/hash.h"

#include "lib/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tl_init(struct tl_lod *t, const struct tl_params *p)
{
	memset(t, 0, sizeof(*t));
	if (p->run_ns < 1)
		return -EINVAL;
	t->p = *p;
	t->min_ns = p->run_ns >> 16;
	if (t->min_ns < 1)
		t->min_ns = 1;
	t->bin_ns = t->min_ns;
	return 0;
}

int tl_row_add(struct tl_lod *t, pid_t pid, pid_t tid, int rank, unsigned image, size_t *row)
{
	struct tl_row *r;

	if (array_reserve((void **)&t->rows, &t->rowcap, t->nrows + 1, sizeof(*t->rows)))
		return -ENOMEM;
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->tid = tid;
	r->rank = rank;
	r->image = image;
	*row = t->nrows++;
	return 0;
}

static struct tl_lane *lane_get(struct tl_row *r, int depth)
{
	size_t i = (size_t)(depth + 1), cap = r->nlanes;

	if (i >= r->nlanes) {
		if (array_reserve((void **)&r->lanes, &cap, i + 1, sizeof(*r->lanes)))
			return NULL;
		/* array_reserve() may have allocated more than i + 1: only [nlanes, i] is in use */
		memset(r->lanes + r->nlanes, 0, (i + 1 - r->nlanes) * sizeof(*r->lanes));
		r->nlanes = i + 1;
	}
	return &r->lanes[i];
}

static int coarsen(struct tl_lod *t);

/* NS of KEY into the last cell C of its lane (same bin). */
static void cell_merge_last(struct tl_lane *l, struct tl_cell *c, uint64_t key, int64_t ns)
{
	int64_t v = ns;
	size_t i;

	c->busy += ns;
	for (i = 0; i < l->nscratch; i++)
		if (l->scratch[i].key == key)
			break;
	if (i < l->nscratch) {
		v = l->scratch[i].ns += ns;
	} else if (l->nscratch < TL_SCRATCH) {
		l->scratch[l->nscratch].key = key;
		l->scratch[l->nscratch++].ns = ns;
	}
	if (key == c->key) {
		c->dom += ns;
	} else if (v > c->dom) {
		c->key = key;
		c->dom = v;
	}
}

static int cell_add(struct tl_lod *t, struct tl_lane *l, uint64_t bin, uint64_t key, int64_t ns)
{
	struct tl_cell *c;

	if (l->ncells) {
		c = &l->cells[l->ncells - 1];
		if (c->bin == bin) {
			cell_merge_last(l, c, key, ns);
			return 0;
		}
		if (bin < c->bin)
			l->unsorted = 1;
	}
	if (array_reserve((void **)&l->cells, &l->cellcap, l->ncells + 1, sizeof(*l->cells)))
		return -ENOMEM;
	l->cells[l->ncells++] = (struct tl_cell){bin, key, ns, ns};
	l->scratch[0].key = key;
	l->scratch[0].ns = ns;
	l->nscratch = 1;
	t->ncells++;
	if (t->ncells > 2 * t->p.cell_budget + 64)
		return coarsen(t);
	return 0;
}

/* A slice too short to keep: its time into the bins it covers. */
static int bin_add(struct tl_lod *t, struct tl_lane *l, int64_t start, int64_t dur, uint64_t key)
{
	if (start < 0) {
		dur += start;
		start = 0;
	}
	if (dur < 0)
		dur = 0;
	do {
		uint64_t bin = (uint64_t)(start / t->bin_ns);
		int64_t edge = (int64_t)(bin + 1) * t->bin_ns, part = edge - start;
		int ret;

		if (part > dur)
			part = dur;
		ret = cell_add(t, l, bin, key, part);
		if (ret < 0)
			return ret;
		start += part;
		dur -= part;
	} while (dur > 0);
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Keep the KEEP longest slices (all of those longer than the (KEEP+1)-th), the others into
 * bins. */
static int raise_threshold(struct tl_lod *t, size_t keep)
{
	int64_t *d, x;
	size_t n = 0;

	if (t->nslices <= keep)
		return 0;
	d = malloc(t->nslices * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t li = 0; li < t->rows[r].nlanes; li++)
			for (size_t i = 0; i < t->rows[r].lanes[li].nsl; i++)
				d[n++] = t->rows[r].lanes[li].sl[i].dur;
	qsort(d, n, sizeof(*d), cmp_desc);
	x = d[keep];
	free(d);
	t->min_ns = x + 1;
	t->raised = 1;
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t li = 0; li < t->rows[r].nlanes; li++) {
			struct tl_lane *l = &t->rows[r].lanes[li];
			size_t k = 0;

			for (size_t i = 0; i < l->nsl; i++) {
				struct tl_slice s = l->sl[i];

				if (s.dur >= t->min_ns) {
					l->sl[k++] = s;
					continue;
				}
				t->nslices--;
				if (bin_add(t, l, s.start, s.dur, s.key) < 0)
					return -ENOMEM;
			}
			l->nsl = k;
		}
	}
	return 0;
}

int tl_add(struct tl_lod *t, size_t row, int depth, int64_t start, int64_t dur, uint64_t key)
{
	struct tl_lane *l;

	if (depth >= (int)t->p.max_depth) {
		t->too_deep++;
		return 0;
	}
	l = lane_get(&t->rows[row], depth);
	if (!l)
		return -ENOMEM;
	t->calls++;
	if (dur < t->min_ns)
		return bin_add(t, l, start, dur, key);
	if (array_reserve((void **)&l->sl, &l->slcap, l->nsl + 1, sizeof(*l->sl)))
		return -ENOMEM;
	l->sl[l->nsl++] = (struct tl_slice){start, dur, key};
	t->nslices++;
	/* memory stays bounded: twice the budget at most before the longest are chosen */
	if (t->nslices > 2 * t->p.slice_budget + 64)
		return raise_threshold(t, t->p.slice_budget);
	return 0;
}

/* Two cells of the same bin as one: the busier name of the two wins. */
static void cell_merge(struct tl_cell *a, const struct tl_cell *b)
{
	a->busy += b->busy;
	if (a->key == b->key) {
		a->dom += b->dom;
	} else if (b->dom > a->dom) {
		a->key = b->key;
		a->dom = b->dom;
	}
}

static int cmp_bin(const void *a, const void *b)
{
	const struct tl_cell *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	return x->dom < y->dom ? 1 : x->dom > y->dom ? -1 : 0;
}

/* Sort a lane's cells by bin, merging equal bins; SHIFT further merges 2^SHIFT bins into one. */
static void lane_normalize(struct tl_lod *t, struct tl_lane *l, unsigned shift)
{
	size_t k = 0;

	if (l->unsorted)
		qsort(l->cells, l->ncells, sizeof(*l->cells), cmp_bin);
	for (size_t i = 0; i < l->ncells; i++) {
		struct tl_cell c = l->cells[i];

		c.bin >>= shift;
		if (k && l->cells[k - 1].bin == c.bin)
			cell_merge(&l->cells[k - 1], &c);
		else
			l->cells[k++] = c;
	}
	t->ncells -= l->ncells - k;
	l->ncells = k;
	l->unsorted = 0;
	if (shift)
		l->nscratch = 0; /* the last cell's names are no longer known apart */
}

/* Bins twice as wide, until the cells fit their budget. */
static int coarsen(struct tl_lod *t)
{
	unsigned shift = 0;

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t li = 0; li < t->rows[r].nlanes; li++)
			lane_normalize(t, &t->rows[r].lanes[li], 0);
	/* a bin as long as the run holds each lane in one cell: wider ones change nothing */
	while (t->ncells > t->p.cell_budget && t->bin_ns < t->p.run_ns) {
		shift = 1;
		t->coarsened = 1;
		t->bin_ns *= 2;
		for (size_t r = 0; r < t->nrows; r++)
			for (size_t li = 0; li < t->rows[r].nlanes; li++)
				lane_normalize(t, &t->rows[r].lanes[li], shift);
	}
	return 0;
}

int tl_finish(struct tl_lod *t)
{
	if (t->nslices > t->p.slice_budget && raise_threshold(t, t->p.slice_budget) < 0)
		return -ENOMEM;
	return coarsen(t);
}

long tl_name_id(struct tl_names *n, const char *name, enum tl_kind kind)
{
	uint64_t h = hash_str(HASH_INIT ^ (uint64_t)kind, name);
	struct hchain *idx = n->index;
	size_t id;

	if (!idx) {
		idx = n->index = calloc(1, sizeof(*idx));
		if (!idx)
			return -ENOMEM;
	}
	for (size_t at = hchain_first(idx, h); at; at = hchain_next(idx, at))
		if (n->kinds[at - 1] == kind && !strcmp(n->names[at - 1], name))
			return (long)(at - 1);
	id = n->n;
	{
		/* names and kinds both have room for cap: from it, they grow alike */
		size_t cap = n->cap, kcap = n->cap;

		if (ARRAY_GROW(n->names, id + 1, cap) || ARRAY_GROW(n->kinds, id + 1, kcap))
			return -ENOMEM;
		n->cap = cap;
	}
	n->names[id] = strdup(name);
	if (!n->names[id])
		return -ENOMEM;
	n->kinds[id] = (uint8_t)kind;
	n->n++;
	if (hchain_add(idx, h, id) < 0)
		return -ENOMEM;
	return (long)id;
}

int tl_resolve(struct tl_lod *t, size_t row, int only_mpi,
	       const char *(*name)(void *ctx, uint64_t key, enum tl_kind *kind), void *ctx)
{
	struct tl_row *r = &t->rows[row];
	struct u64map ids = {0};
	int ret = 0;

	size_t lo = only_mpi ? 0 : 1, hi = only_mpi ? 1 : r->nlanes;

	if (hi > r->nlanes)
		hi = r->nlanes;
	for (size_t li = lo; li < hi && ret == 0; li++) {
		struct tl_lane *l = &r->lanes[li];
		size_t total = l->nsl + l->ncells;

		for (size_t i = 0; i < total && ret == 0; i++) {
			uint64_t *key = i < l->nsl ? &l->sl[i].key : &l->cells[i - l->nsl].key, v;

			if (!u64map_get(&ids, *key, &v)) {
				enum tl_kind kind = TL_FUNCTION;
				const char *s = name(ctx, *key, &kind);
				long id = s ? tl_name_id(&t->names, s, kind) : -ENOMEM;

				if (id < 0 || u64map_put(&ids, *key, (uint64_t)id) < 0) {
					ret = -ENOMEM;
					break;
				}
				v = (uint64_t)id;
			}
			*key = v;
		}
		l->nscratch = 0; /* its keys are gone: later merges compare dominant times */
	}
	u64map_release(&ids);
	return ret;
}

void tl_release(struct tl_lod *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t li = 0; li < t->rows[r].nlanes; li++) {
			free(t->rows[r].lanes[li].sl);
			free(t->rows[r].lanes[li].cells);
		}
		free(t->rows[r].lanes);
	}
	free(t->rows);
	for (size_t i = 0; i < t->names.n; i++)
		free(t->names.names[i]);
	free(t->names.names);
	free(t->names.kinds);
	if (t->names.index) {
		hchain_release(t->names.index);
		free(t->names.index);
	}
	memset(t, 0, sizeof(*t));
}
