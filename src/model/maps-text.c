/*
 * maps-text.c - the text of recorded maps copies read (maps.h): mapping lines, the headers that
 * start a copy (or a line that goes back in address), and the `# object` lines.
 */
#include "model/maps-int.h"

#include "lib/array.h"
#include "lib/hash.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

int maps_grow(void **v, size_t *cap, size_t need, size_t size)
{
	return array_reserve(v, cap, need, size);
}

/* Starts copy KIND at WHEN (timed: the header gave it); GROUP: the headed copy it belongs to,
 * or UINT32_MAX for itself. */
static int copy_start(struct parse *ps, unsigned kind, int64_t when, int timed, uint32_t group)
{
	struct maps *m = ps->m;
	size_t k = m->ncopies;

	if (ARRAY_GROW(m->copies, k + 1, ps->copycap))
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
		if (ARRAY_GROW(m->objects, i + 1, ps->objectcap))
			return -ENOMEM;
		o.build_id = arena_strndup(&m->strings, bid, (size_t)(bide - bid));
		o.path = arena_strndup(&m->strings, s, (size_t)(end - s));
		if (!o.build_id || !o.path || u64map_put(&ps->obj_by_hash, h, i))
			return -ENOMEM;
		m->objects[m->nobjects++] = o;
	}
	if (ARRAY_GROW(ps->objs, ps->nobjs + 1, ps->objcap))
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

int maps_read_text(struct parse *ps, const char *text, size_t len)
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
				if (!ret && ARRAY_GROW(ps->lines, ps->nlines + 1, ps->linecap))
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
