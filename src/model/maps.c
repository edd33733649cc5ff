/*
 * maps.c - parser of recorded /proc/<pid>/maps copies and of their history (maps.h).
 *
 * The text is read into copies (a header line, or a line that goes back in address, starts the
 * next) and their `# object` lines. The union merges the copies in order: each one's mappings
 * replace whatever part of earlier ones they cover. The history follows each mapping through
 * the copies: a whole copy ends the mappings it lacks, an added one ends none. Pieces of the
 * address space then list the mappings that ever held them, for maps_at.
 */
#include "model/maps.h"

#include "lib/hashmap.h"
#include "lib/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

static char *arena_alloc(struct str_arena *a, size_t n)
{
	struct arena_block *b = a->head;

	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

char *arena_strndup(struct str_arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_printf(struct str_arena *a, const char *fmt, ...)
{
	va_list ap;
	char buf[256], *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof(buf))
		return arena_strndup(a, buf, (size_t)n);
	p = arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_release(struct str_arena *a)
{
	while (a->head) {
		struct arena_block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

struct entry_vec {
	struct maps_entry *v;
	size_t n, cap;
};

static int vec_push(struct entry_vec *vec, const struct maps_entry *e)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 64;
		struct maps_entry *v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		vec->v = v;
		vec->cap = cap;
	}
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

/* Up to 16 hex digits ending at a character in `stops`; advances *p past the stop. */
static int parse_hex(const char **p, const char *end, const char *stops, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	for (; s < end && !strchr(stops, *s); s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (digits == 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0 || s == end || !*s)
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

/* One line "start-end perms offset dev inode [path]" into e (path not yet copied). */
static int parse_line(const char *s, const char *end, struct maps_entry *e, const char **path,
		      size_t *pathlen)
{
	static const char deleted[] = " (deleted)";
	const size_t dlen = sizeof(deleted) - 1;
	uint64_t dev_major, dev_minor;
	int digits = 0;

	memset(e, 0, sizeof(*e));
	if (parse_hex(&s, end, "-", &e->start) || parse_hex(&s, end, " ", &e->end) ||
	    e->start >= e->end || end - s < 5 || s[4] != ' ')
		return -1;
	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return -1;
	e->perms = (s[0] == 'r' ? MAPS_R : 0) | (s[1] == 'w' ? MAPS_W : 0) |
		   (s[2] == 'x' ? MAPS_X : 0) | (s[3] == 'p' ? MAPS_P : 0);
	s += 5;
	if (parse_hex(&s, end, " ", &e->offset) || parse_hex(&s, end, ":", &dev_major) ||
	    parse_hex(&s, end, " ", &dev_minor))
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		digits++;
	if (digits == 0 || digits > 20 || (s < end && *s != ' '))
		return -1;
	while (s < end && *s == ' ')
		s++;
	*path = s;
	*pathlen = (size_t)(end - s);
	if (memchr(s, '\0', *pathlen))
		return -1;
	if (*pathlen > dlen && !memcmp(end - dlen, deleted, dlen)) {
		*pathlen -= dlen;
		e->deleted = 1;
	}
	return 0;
}

/* ---- reading the text into copies ----------------------------------------------------------- */

/* A mapping line of copy `copy`. */
struct raw_line {
	struct maps_entry e;
	uint32_t copy;
};

/* An object line of the copies that start at copy `group` (a header's). */
struct raw_object {
	uint32_t group;
	uint32_t obj;
};

struct parse {
	struct maps *m;
	struct raw_line *lines;
	size_t nlines, linecap;
	struct raw_object *objs;
	size_t nobjs, objcap;
	uint32_t *group; /* per copy: the headed copy whose object lines apply */
	size_t copycap, objectcap;
	struct u64map obj_by_hash;
	char **real; /* per object: its path resolved (realpath), "" when it cannot be */
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t cap2 = *cap ? *cap : 16;

	while (cap2 < need)
		cap2 *= 2;
	void *nv = realloc(*v, cap2 * size);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = cap2;
	return 0;
}

/* Starts copy KIND at WHEN (timed: the header gave it); GROUP: the headed copy it belongs to,
 * or UINT32_MAX for itself. */
static int copy_start(struct parse *ps, unsigned kind, int64_t when, int timed, uint32_t group)
{
	struct maps *m = ps->m;
	size_t k = m->ncopies;

	if (grow((void **)&m->copies, &ps->copycap, k + 1, sizeof(*m->copies)))
		return -ENOMEM;
	/* the group array follows the copies' capacity */
	uint32_t *g = realloc(ps->group, ps->copycap * sizeof(*g));

	if (!g)
		return -ENOMEM;
	ps->group = g;
	if (k && when < m->copies[k - 1].when)
		when = m->copies[k - 1].when; /* never before the copy before it */
	if (k && !timed)
		when = m->copies[k - 1].when;
	m->copies[k] = (struct maps_copy){when, INT64_MIN, kind, timed};
	m->added |= kind == MAPS_COPY_MORE;
	ps->group[k] = group == UINT32_MAX ? (uint32_t)k : group;
	m->ncopies++;
	return 0;
}

/* "-", or decimal digits (a leading '-' allowed) into *v; -1 for "-". 0, or -1 malformed. */
static int parse_dec(const char *s, const char *end, int64_t *v)
{
	int neg = 0;
	uint64_t x = 0;

	if (end - s == 1 && *s == '-') {
		*v = -1;
		return 0;
	}
	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	if (s == end || end - s > 19)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* The next space-separated word of [*s, end): [*w, *we); advances past one space. */
static int word(const char **s, const char *end, const char **w, const char **we)
{
	const char *sp = memchr(*s, ' ', (size_t)(end - *s));

	if (!sp || sp == *s)
		return -1;
	*w = *s;
	*we = sp;
	*s = sp + 1;
	return 0;
}

/* "# object BUILDID SIZE MTIME PATH" (after "# object ") into the current group's objects.
 * A malformed line is ignored. 0 or -ENOMEM. */
static int object_line(struct parse *ps, const char *s, const char *end)
{
	struct maps *m = ps->m;
	const char *w, *we, *bid, *bide, *line = s;
	struct maps_object o;
	uint64_t h, v;
	size_t i;

	if (!m->ncopies || word(&s, end, &bid, &bide))
		return 0;
	if (!(bide - bid == 1 && *bid == '-')) {
		if ((bide - bid) % 2 || bide - bid > 128)
			return 0;
		for (w = bid; w < bide; w++)
			if (!((*w >= '0' && *w <= '9') || (*w >= 'a' && *w <= 'f')))
				return 0;
	} else {
		bide = bid;
	}
	if (word(&s, end, &w, &we) || parse_dec(w, we, &o.size) || word(&s, end, &w, &we) ||
	    parse_dec(w, we, &o.mtime_ns) || s == end || memchr(s, '\0', (size_t)(end - s)))
		return 0;
	h = hash_bytes(HASH_INIT, line, (size_t)(end - line));
	i = m->nobjects;
	if (u64map_get(&ps->obj_by_hash, h, &v)) {
		const struct maps_object *x = &m->objects[v];

		if ((size_t)(bide - bid) == strlen(x->build_id) &&
		    !memcmp(bid, x->build_id, (size_t)(bide - bid)) && x->size == o.size &&
		    x->mtime_ns == o.mtime_ns && (size_t)(end - s) == strlen(x->path) &&
		    !memcmp(s, x->path, (size_t)(end - s)))
			i = (size_t)v;
	}
	if (i == m->nobjects) {
		if (grow((void **)&m->objects, &ps->objectcap, i + 1, sizeof(*m->objects)))
			return -ENOMEM;
		o.build_id = arena_strndup(&m->strings, bid, (size_t)(bide - bid));
		o.path = arena_strndup(&m->strings, s, (size_t)(end - s));
		if (!o.build_id || !o.path || u64map_put(&ps->obj_by_hash, h, i))
			return -ENOMEM;
		m->objects[m->nobjects++] = o;
	}
	if (grow((void **)&ps->objs, &ps->objcap, ps->nobjs + 1, sizeof(*ps->objs)))
		return -ENOMEM;
	ps->objs[ps->nobjs++] = (struct raw_object){ps->group[m->ncopies - 1], (uint32_t)i};
	return 0;
}

/* A '#' line: a header starts a copy, an object line is kept, others are ignored. */
static int hash_line(struct parse *ps, const char *s, const char *end)
{
	static const struct {
		const char *word;
		unsigned kind;
	} headers[] = {{"dlopen", MAPS_COPY_FULL},
		       {"dlclose", MAPS_COPY_FULL},
		       {"file", MAPS_COPY_FULL},
		       {"mmap", MAPS_COPY_MORE}};
	size_t len = (size_t)(end - s);

	if (len > 9 && !memcmp(s, "# object ", 9))
		return object_line(ps, s + 9, end);
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		size_t wl = strlen(headers[i].word);
		int64_t when = INT64_MIN;
		int timed = 0;

		if (len < 2 + wl || memcmp(s, "# ", 2) || memcmp(s + 2, headers[i].word, wl) ||
		    (len > 2 + wl && s[2 + wl] != ' '))
			continue;
		if (len > 3 + wl && s[3 + wl] != '-' && !parse_dec(s + 3 + wl, end, &when))
			timed = 1;
		ps->m->snapshots++;
		return copy_start(ps, headers[i].kind, timed ? when : INT64_MIN, timed, UINT32_MAX);
	}
	return 0;
}

/* Reads TEXT into copies, lines and object lines. */
static int read_text(struct parse *ps, const char *text, size_t len)
{
	struct maps *m = ps->m;
	const char *s = text, *end = text + len;
	const char *last_path = NULL;
	int ret = copy_start(ps, MAPS_COPY_FULL, INT64_MIN, 0, UINT32_MAX);

	m->snapshots = len > 0;
	while (s < end && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end, *path;
		struct maps_entry e;
		size_t pathlen;

		if (eol > s && eol[-1] == '\r')
			eol--;
		if (s < eol && *s == '#') {
			ret = hash_line(ps, s, eol);
		} else if (s < eol) {
			m->lines++;
			if (parse_line(s, eol, &e, &path, &pathlen)) {
				m->skipped++;
			} else {
				struct raw_line *prev =
				    ps->nlines ? &ps->lines[ps->nlines - 1] : NULL;

				/* a line going back in address adds a copy (of the same time) */
				if (prev && prev->copy == m->ncopies - 1 && e.start < prev->e.end)
					ret = copy_start(ps, MAPS_COPY_MORE,
							 m->copies[m->ncopies - 1].when,
							 m->copies[m->ncopies - 1].timed,
							 ps->group[m->ncopies - 1]);
				if (last_path && !strncmp(last_path, path, pathlen) &&
				    !last_path[pathlen])
					e.path = last_path;
				else
					e.path = last_path =
					    arena_strndup(&m->strings, path, pathlen);
				if (!e.path)
					ret = -ENOMEM;
				if (!ret && grow((void **)&ps->lines, &ps->linecap, ps->nlines + 1,
						 sizeof(*ps->lines)))
					ret = -ENOMEM;
				if (!ret)
					ps->lines[ps->nlines++] =
					    (struct raw_line){e, (uint32_t)(m->ncopies - 1)};
			}
		}
		s = nl ? nl + 1 : end;
	}
	return ret;
}

/* ---- the union ------------------------------------------------------------------------------ */

static int build_union(struct parse *ps)
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

/* ---- the history ---------------------------------------------------------------------------- */

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

/* Follows every mapping through the copies into m->insts. */
static int build_history(struct parse *ps)
{
	struct maps *m = ps->m;
	struct u64map at = {0}, next = {0}; /* start -> instance + 1, of the open instances */
	uint32_t *open = NULL, *nopen = NULL;
	size_t nopen_n = 0, open_n = 0, opencap = 0, nopencap = 0, instcap = 0, li = 0;
	int ret = 0;

	/* an open instance's `last` is set when a whole copy lacks it, or at the end */
	for (size_t k = 0; k < m->ncopies && !ret; k++) {
		int full = m->copies[k].kind == MAPS_COPY_FULL;

		if (full) {
			nopen_n = 0;
			u64map_clear(&next);
		}
		for (; li < ps->nlines && ps->lines[li].copy == k && !ret; li++) {
			const struct maps_entry *e = &ps->lines[li].e;
			uint64_t v;
			size_t ix;

			/* a whole copy continues the mappings it still has; an added mapping is a
			 * new one, even where the same line was before (another file may have
			 * been mapped there, as its object line tells) */
			if (full && u64map_get(&at, e->start, &v) && v &&
			    same_mapping(&m->insts[v - 1].e, e)) {
				ix = (size_t)(v - 1);
				m->insts[ix].e.deleted |= e->deleted;
				m->insts[ix].last = (uint32_t)k;
			} else {
				const struct maps_object *obj = NULL;

				if (grow((void **)&m->insts, &instcap, m->ninsts + 1,
					 sizeof(*m->insts))) {
					ret = -ENOMEM;
					break;
				}
				obj = object_of(ps, ps->group[k], e->path, &ret);
				ix = m->ninsts++;
				m->insts[ix] =
				    (struct maps_inst){*e, obj, (uint32_t)k, (uint32_t)k, 0};
				if (!full) {
					if (grow((void **)&open, &opencap, open_n + 1,
						 sizeof(*open)) ||
					    u64map_put(&at, e->start, ix + 1))
						ret = -ENOMEM;
					else
						open[open_n++] = (uint32_t)ix;
					continue;
				}
			}
			if (grow((void **)&nopen, &nopencap, nopen_n + 1, sizeof(*nopen)) ||
			    u64map_put(&next, e->start, ix + 1))
				ret = -ENOMEM;
			else
				nopen[nopen_n++] = (uint32_t)ix;
		}
		if (full && !ret) {
			uint32_t *t = open;
			size_t tc = opencap;
			struct u64map tm = at;

			/* the ones this copy lacks ended with the copy before */
			for (size_t i = 0; i < open_n; i++)
				if (m->insts[open[i]].last != k)
					m->insts[open[i]].last = (uint32_t)(k - 1);
			open = nopen;
			opencap = nopencap;
			open_n = nopen_n;
			nopen = t;
			nopencap = tc;
			at = next;
			next = tm;
		}
	}
	for (size_t i = 0; i < open_n && !ret; i++)
		m->insts[open[i]].last = (uint32_t)(m->ncopies - 1);
	free(open);
	free(nopen);
	u64map_release(&at);
	u64map_release(&next);
	return ret;
}

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

/* Gives every instance its class, and cuts the address space into pieces. */
static int build_pieces(struct maps *m)
{
	size_t n = m->ninsts, nb = 0, total = 0;
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix)), *count = NULL;
	uint64_t *b = malloc((2 * n + 1) * sizeof(*b));
	int ret = -ENOMEM;

	if (!ix || !b)
		goto out;
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, n, sizeof(*ix), class_cmp, m->insts);
	for (size_t i = 0, cls = 0; i < n; i++) {
		if (i && class_cmp(&ix[i - 1], &ix[i], m->insts))
			cls++;
		m->insts[ix[i]].cls = (uint32_t)cls;
	}
	for (size_t i = 0; i < n; i++) {
		b[nb++] = m->insts[i].e.start;
		b[nb++] = m->insts[i].e.end;
	}
	qsort(b, nb, sizeof(*b), u64_cmp);
	{
		size_t u = 0;

		for (size_t i = 0; i < nb; i++)
			if (!u || b[i] != b[u - 1])
				b[u++] = b[i];
		nb = u;
	}
	/* pieces between consecutive boundaries: count, lay out, fill */
	count = calloc(nb ? nb : 1, sizeof(*count));
	if (!count)
		goto out;
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
		goto out;
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
	ret = 0;
out:
	free(ix);
	free(b);
	free(count);
	return ret;
}

int maps_parse(struct maps *m, const char *text, size_t len)
{
	struct parse ps = {.m = m};
	int ret = read_text(&ps, text, len);

	if (!ret)
		ret = build_union(&ps);
	if (!ret)
		ret = build_history(&ps);
	if (!ret)
		ret = build_pieces(m);
	free(ps.lines);
	free(ps.objs);
	free(ps.group);
	free(ps.real);
	u64map_release(&ps.obj_by_hash);
	return ret;
}

/* Append the contents of PATH to *BUF (LEN used of CAP bytes). 0 or -errno. */
static int read_append(const char *path, char **buf, size_t *len, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (*len == *cap) {
			char *nb = realloc(*buf, *cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			*buf = nb;
			*cap *= 2;
		}
		n = read(fd, *buf + *len, *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		*len += (size_t)n;
	}
	close(fd);
	return ret;
}

int maps_load(struct maps *m, const char *const *paths, size_t npaths)
{
	size_t len = 0, cap = 65536, found = 0;
	char *buf = malloc(cap);
	int ret = -ENOENT;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < npaths; i++) {
		static const char sep[] = "\n# file\n";
		size_t before = len;
		int r;

		/* the next file starts a copy of its own (after a newline, should the file
		 * before end without one) */
		if (found) {
			while (len + sizeof(sep) > cap) {
				char *nb = realloc(buf, cap *= 2);

				if (!nb) {
					free(buf);
					return -ENOMEM;
				}
				buf = nb;
			}
			memcpy(buf + len, sep, sizeof(sep) - 1);
			len += sizeof(sep) - 1;
		}
		r = read_append(paths[i], &buf, &len, &cap);
		if (r == -ENOMEM) {
			free(buf);
			return r;
		}
		if (r == 0) {
			found++;
		} else {
			if (found)
				len = before;
			if (ret == -ENOENT)
				ret = r;
		}
	}
	ret = found ? maps_parse(m, buf, len) : ret;
	free(buf);
	return ret;
}

long maps_find(const struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->v[lo].start <= addr)
		return (long)lo;
	return -1;
}

void maps_set_times(struct maps *m, int64_t (*conv)(void *ctx, int64_t when), void *ctx)
{
	int64_t last = INT64_MIN;

	for (size_t k = 0; k < m->ncopies; k++) {
		struct maps_copy *c = &m->copies[k];
		int64_t ns = c->when == INT64_MIN ? INT64_MIN : conv ? conv(ctx, c->when) : c->when;

		c->ns = ns < last ? last : ns;
		last = c->ns;
	}
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

void maps_release(struct maps *m)
{
	free(m->v);
	free(m->copies);
	free(m->objects);
	free(m->insts);
	free(m->pieces);
	free(m->piece_inst);
	free(m->piece_ord);
	arena_release(&m->strings);
	memset(m, 0, sizeof(*m));
}
