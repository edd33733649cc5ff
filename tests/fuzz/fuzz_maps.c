/*
 * fuzz_maps.c - libFuzzer target for the memory map reader (src/model/maps.c): the input is
 * a `maps.<pid>` file (one or more /proc/<pid>/maps snapshots), parsed from memory by
 * maps_parse and read from a memfd by maps_load (as one file, and as two files: the input and
 * itself again, which joins the later snapshot over the earlier one).
 *
 * Besides the sanitizers, the target checks the reader's contract and aborts when it is broken:
 *   - 0 (or -ENOMEM); the mappings sorted by start, each non-empty, none overlapping; every
 *     path a string without a newline; skipped <= lines; at most two mappings a line;
 *   - maps_find finds each mapping by its first and last address and nothing in the gaps;
 *   - maps_load of the file gives the mappings maps_parse gives, and so does maps_load of
 *     the file given twice (the later snapshot wins where it maps, and it maps the same).
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_maps tests/fuzz/corpus-maps.
 */
#include "model/maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_maps: contract broken: %s\n", what);
		abort();
	}
}

static void check_maps(const struct maps *m)
{
	check(m->skipped <= m->lines, "skipped lines are lines");
	/* a mapping read later can split an earlier one in two: at most two pieces a line */
	check(m->n <= 2 * m->lines, "no more than two mappings a line");
	for (size_t i = 0; i < m->n; i++) {
		const struct maps_entry *e = &m->v[i];

		check(e->start < e->end, "a mapping is not empty");
		check(i == 0 || m->v[i - 1].end <= e->start, "sorted and not overlapping");
		check(e->path && !strchr(e->path, '\n'), "a path of one line");
		check(maps_find(m, e->start) == (long)i && maps_find(m, e->end - 1) == (long)i,
		      "maps_find finds a mapping's first and last address");
		if (i > 0 && m->v[i - 1].end < e->start)
			check(maps_find(m, e->start - 1) == -1, "nothing in a gap");
	}
	if (m->n) {
		check(m->v[0].start == 0 || maps_find(m, m->v[0].start - 1) == -1,
		      "nothing below the first mapping");
		check(m->v[m->n - 1].end == 0 || maps_find(m, m->v[m->n - 1].end) == -1,
		      "nothing above the last mapping");
	}
}

static int same_maps(const struct maps *a, const struct maps *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].start != b->v[i].start || a->v[i].end != b->v[i].end ||
		    a->v[i].offset != b->v[i].offset || a->v[i].perms != b->v[i].perms ||
		    a->v[i].deleted != b->v[i].deleted || strcmp(a->v[i].path, b->v[i].path))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct maps m, f, twice;
	const char *paths[2];
	int ret, fret;

	if (fd < 0) {
		fd = memfd_create("maps", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	memset(&m, 0, sizeof(m));
	ret = maps_parse(&m, (const char *)data, size);
	check(ret == 0 || ret == -ENOMEM, "maps_parse returns 0 or -ENOMEM");
	if (ret == 0)
		check_maps(&m);

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	paths[0] = paths[1] = path;
	memset(&f, 0, sizeof(f));
	ret = fret = maps_load(&f, paths, 1);
	check(ret == 0 || ret == -ENOMEM, "maps_load of a readable file returns 0 or -ENOMEM");
	if (ret == 0) {
		check_maps(&f);
		check(same_maps(&m, &f), "maps_load reads what maps_parse parses");
	}
	memset(&twice, 0, sizeof(twice));
	ret = maps_load(&twice, paths, 2);
	check(ret == 0 || ret == -ENOMEM, "maps_load of two files returns 0 or -ENOMEM");
	if (ret == 0) {
		check_maps(&twice);
		/* the second copy replaces the first wherever it maps: the same result */
		check(fret != 0 || same_maps(&f, &twice), "a file read twice reads as once");
	}
	maps_release(&m);
	maps_release(&f);
	maps_release(&twice);
	return 0;
}
