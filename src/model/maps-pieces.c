/*
 * maps-pieces.c - the address space of a memory map's history cut into pieces (maps.h), each
 * listing the mappings that ever held it, and the lookups of an address at a time in them
 * (maps_at) and of its place tags (maps_tag, maps_untag).
 */
#include "model/maps-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The class key: path, place of the file (start - offset) and the object's identity (by
 * build-id when it has one). */
static int class_cmp(const void *a, const void *b, void *ctx)
{
	const struct maps_inst *v = ctx, *x = &v[*(const uint32_t *)a],
			       *y = &v[*(const uint32_t *)b];
	uint64_t bx = x->e.start - x->e.offset, by = y->e.start - y->e.offset;
	int c = strcmp(x->e.path, y->e.path);

	if (c)
		return c;
	if (bx != by)
		return bx < by ? -1 : 1;
	if (!x->obj || !y->obj)
		return !!x->obj - !!y->obj;
	c = strcmp(x->obj->build_id, y->obj->build_id);
	if (c || x->obj->build_id[0])
		return c;
	if (x->obj->size != y->obj->size)
		return x->obj->size < y->obj->size ? -1 : 1;
	return (x->obj->mtime_ns > y->obj->mtime_ns) - (x->obj->mtime_ns < y->obj->mtime_ns);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Gives every instance of M its class: IX (room for all) sorted by class_cmp. */
static void classify(struct maps *m, uint32_t *ix)
{
	size_t n = m->ninsts;

	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, n, sizeof(*ix), class_cmp, m->insts);
	for (size_t i = 0, cls = 0; i < n; i++) {
		if (i && class_cmp(&ix[i - 1], &ix[i], m->insts))
			cls++;
		m->insts[ix[i]].cls = (uint32_t)cls;
	}
}

/* The distinct starts and ends of M's instances, sorted, into B (room for 2 per instance):
 * how many. */
static size_t boundaries(const struct maps *m, uint64_t *b)
{
	size_t nb = 0, u = 0;

	for (size_t i = 0; i < m->ninsts; i++) {
		b[nb++] = m->insts[i].e.start;
		b[nb++] = m->insts[i].e.end;
	}
	qsort(b, nb, sizeof(*b), u64_cmp);
	for (size_t i = 0; i < nb; i++)
		if (!u || b[i] != b[u - 1])
			b[u++] = b[i];
	return u;
}

/*
 * The pieces between consecutive boundaries B[0..NB) that some instance holds, with their
 * instances: counted into COUNT (one per boundary, zeroed; then the piece of each boundary),
 * laid out, filled. 0 or -ENOMEM.
 */
static int lay_out(struct maps *m, const uint64_t *b, size_t nb, uint32_t *count)
{
	size_t n = m->ninsts, total = 0;

	for (size_t i = 0; i < n; i++) {
		const uint64_t *p = bsearch(&m->insts[i].e.start, b, nb, sizeof(*b), u64_cmp);

		for (size_t j = (size_t)(p - b); j + 1 < nb && b[j] < m->insts[i].e.end; j++) {
			count[j]++;
			total++;
		}
	}
	m->pieces = malloc((nb ? nb : 1) * sizeof(*m->pieces));
	m->piece_inst = malloc((total ? total : 1) * sizeof(*m->piece_inst));
	m->piece_ord = malloc((total ? total : 1) * sizeof(*m->piece_ord));
	if (!m->pieces || !m->piece_inst || !m->piece_ord)
		return -ENOMEM;
	total = 0;
	for (size_t j = 0; j + 1 < nb; j++) {
		uint32_t c = count[j];

		if (!c)
			continue;
		count[j] = (uint32_t)m->npieces; /* from here: the piece of boundary j */
		m->pieces[m->npieces++] =
		    (struct maps_piece){b[j], b[j + 1], (uint32_t)total, 0, 0};
		total += c;
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *p = bsearch(&m->insts[i].e.start, b, nb, sizeof(*b), u64_cmp);

		for (size_t j = (size_t)(p - b); j + 1 < nb && b[j] < m->insts[i].e.end; j++) {
			struct maps_piece *pc = &m->pieces[count[j]];

			m->piece_inst[pc->at + pc->n++] = (uint32_t)i;
		}
	}
	return 0;
}

/* Each piece's instances ranked by class (piece_ord), its classes and M's ambiguous pieces
 * counted. */
static void rank_classes(struct maps *m)
{
	for (size_t j = 0; j < m->npieces; j++) {
		struct maps_piece *pc = &m->pieces[j];

		for (uint32_t k = 0; k < pc->n; k++) {
			uint32_t cls = m->insts[m->piece_inst[pc->at + k]].cls, r;

			for (r = 0; r < k; r++)
				if (m->insts[m->piece_inst[pc->at + r]].cls == cls)
					break;
			if (r == k) {
				m->piece_ord[pc->at + k] =
				    (uint8_t)(pc->nclasses < 255 ? pc->nclasses : 255);
				pc->nclasses++;
			} else {
				m->piece_ord[pc->at + k] = m->piece_ord[pc->at + r];
			}
		}
		m->ambiguous += pc->nclasses > 1;
	}
}

int maps_build_pieces(struct maps *m)
{
	size_t n = m->ninsts, nb;
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix)), *count = NULL;
	uint64_t *b = malloc((2 * n + 1) * sizeof(*b));
	int ret = -ENOMEM;

	if (!ix || !b)
		goto out;
	classify(m, ix);
	nb = boundaries(m, b);
	count = calloc(nb ? nb : 1, sizeof(*count));
	if (!count || lay_out(m, b, nb, count))
		goto out;
	rank_classes(m);
	ret = 0;
out:
	free(ix);
	free(b);
	free(count);
	return ret;
}

/* The piece holding addr, or NULL. */
static const struct maps_piece *piece_of(const struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->npieces;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->pieces[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->npieces && m->pieces[lo].start <= addr ? &m->pieces[lo] : NULL;
}

long maps_at(const struct maps *m, uint64_t addr, int64_t t)
{
	const struct maps_piece *pc = piece_of(m, addr);
	const uint32_t *v;
	size_t c, lo = 0, hi = m->ncopies;
	long after, before = -1;

	if (!pc)
		return -1;
	v = m->piece_inst + pc->at;
	if (pc->n == 1)
		return v[0];
	/* c: the last copy at or before t (the first one stands for the start) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t == INT64_MAX || m->copies[mid].ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	c = lo ? lo - 1 : 0;
	/* the piece's instances are by first copy: k is the first one mapped after c */
	lo = 0;
	hi = pc->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->insts[v[mid]].first <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	after = lo < pc->n ? (long)v[lo] : -1;
	/* the one present in c, the latest mapped: in whole copies only, the one mapped last
	 * before c is the only one that can be; with added copies an earlier one can be too */
	for (size_t k = lo; k-- > 0;) {
		const struct maps_inst *x = &m->insts[v[k]];

		if (x->last >= c)
			return v[k];
		if (before < 0 || x->last > m->insts[before].last)
			before = v[k];
		if (!m->added)
			break;
	}
	return after >= 0 ? after : before;
}

unsigned maps_tag(const struct maps *m, uint64_t addr, long inst)
{
	const struct maps_piece *pc = piece_of(m, addr);

	if (!pc || pc->nclasses < 2 || inst < 0)
		return 0;
	for (uint32_t k = 0; k < pc->n; k++)
		if (m->piece_inst[pc->at + k] == (uint32_t)inst) {
			unsigned ord = m->piece_ord[pc->at + k];

			return ord + 1 < MAPS_TAG_MAX ? ord + 1 : MAPS_TAG_MAX;
		}
	return 0;
}

long maps_untag(const struct maps *m, uint64_t addr, unsigned tag)
{
	const struct maps_piece *pc = piece_of(m, addr);

	if (!pc || pc->nclasses < 2 || tag == 0)
		return -1;
	for (uint32_t k = 0; k < pc->n; k++) {
		unsigned ord = m->piece_ord[pc->at + k];

		if ((ord + 1 < MAPS_TAG_MAX ? ord + 1 : MAPS_TAG_MAX) == tag)
			return m->piece_inst[pc->at + k];
	}
	return -1;
}
