/*
 * maps.c - parser of recorded /proc/<pid>/maps snapshots (maps.h).
 *
 * Lines are gathered into runs of ascending, non-overlapping mappings (a snapshot is one run;
 * a '#' line or a line that goes back in address starts the next). Each run is merged into the
 * result: the run's mappings replace whatever part of earlier ones they cover.
 */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
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

int maps_parse(struct maps *m, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	const char *last_path = NULL;
	struct entry_vec run = {0};
	int ret = 0;

	m->snapshots = len > 0;
	while (s < end && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end, *path;
		struct maps_entry e;
		size_t pathlen;

		if (eol > s && eol[-1] == '\r')
			eol--;
		if (s < eol && *s == '#') {
			if (run.n)
				ret = merge_run(m, &run);
			run.n = 0;
			m->snapshots++;
		} else if (s < eol) {
			m->lines++;
			if (parse_line(s, eol, &e, &path, &pathlen)) {
				m->skipped++;
			} else {
				if (run.n && e.start < run.v[run.n - 1].end) {
					ret = merge_run(m, &run);
					run.n = 0;
				}
				if (last_path && !strncmp(last_path, path, pathlen) &&
				    !last_path[pathlen])
					e.path = last_path;
				else
					e.path = last_path =
					    arena_strndup(&m->strings, path, pathlen);
				if (!e.path)
					ret = -ENOMEM;
				if (!ret)
					ret = vec_push(&run, &e);
			}
		}
		s = nl ? nl + 1 : end;
	}
	if (!ret && run.n)
		ret = merge_run(m, &run);
	free(run.v);
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
		size_t before = len;
		int r = read_append(paths[i], &buf, &len, &cap);

		if (r == -ENOMEM) {
			free(buf);
			return r;
		}
		if (r == 0) {
			found++;
			/* a file without a final newline must not join the next one's first line */
			if (len > before && buf[len - 1] != '\n') {
				char nl[] = "\n# next file\n";

				while (len + sizeof(nl) > cap) {
					char *nb = realloc(buf, cap *= 2);

					if (!nb) {
						free(buf);
						return -ENOMEM;
					}
					buf = nb;
				}
				memcpy(buf + len, nl, sizeof(nl) - 1);
				len += sizeof(nl) - 1;
			}
		} else if (ret == -ENOENT) {
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

void maps_release(struct maps *m)
{
	free(m->v);
	arena_release(&m->strings);
	memset(m, 0, sizeof(*m));
}
