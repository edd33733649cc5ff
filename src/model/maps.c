/*
 * maps.c - parser of recorded /proc/<pid>/maps copies and of their history (maps.h).
 *
 * The text is read into copies (a header line, or a line that goes back in address, starts the
 * next) and their `# object` lines. The union merges the copies in order: each one's mappings
 * replace whatever part of earlier ones they cover. The history follows each mapping through
 * the copies: a whole copy ends the mappings it lacks, an added one ends none. Pieces of the
 * address space then list the mappings that ever held them, for maps_at.
 */
#include "model/maps-int.h"
#include "lib/array.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int maps_parse(struct maps *m, const char *text, size_t len)
{
	struct parse ps = {.m = m};
	int ret = maps_read_text(&ps, text, len);

	if (!ret)
		ret = maps_build_union(&ps);
	if (!ret)
		ret = maps_build_history(&ps);
	if (!ret)
		ret = maps_build_pieces(m);
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

		if (ARRAY_GROW(*buf, *len + 1, *cap)) {
			ret = -ENOMEM;
			break;
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
			if (ARRAY_GROW(buf, len + sizeof(sep), cap)) {
				free(buf);
				return -ENOMEM;
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
