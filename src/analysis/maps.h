/*
 * maps.h - a process's memory map as recorded in `maps.<pid>[.<image>]` (copies of
 * /proc/<pid>/maps), read as the union of all its snapshots.
 *
 * The runtime writes one snapshot at start and appends a fresh one after every dlopen, each
 * later snapshot preceded by a line starting with '#'. Where ranges overlap, the mapping read
 * later wins (split into pieces where it covers only part of an earlier one), so an address of a
 * library that was closed again still finds it. Malformed lines are counted and skipped.
 */
#ifndef PSC_MAPS_H
#define PSC_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* Small string arena: strings copied into it live until arena_release(). */
struct str_arena {
	struct arena_block *head;
};

/* A copy of the n bytes at s (plus a NUL) in the arena; NULL when out of memory. */
char *arena_strndup(struct str_arena *a, const char *s, size_t n);
/* A printf-formatted string in the arena; NULL when out of memory. */
char *arena_printf(struct str_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_release(struct str_arena *a);

#define MAPS_R 1u
#define MAPS_W 2u
#define MAPS_X 4u
#define MAPS_P 8u /* private (copy on write); shared otherwise */

struct maps_entry {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset mapped at start */
	unsigned perms;	     /* MAPS_R | MAPS_W | MAPS_X | MAPS_P */
	int deleted;	     /* the path ended in " (deleted)" (removed from `path`) */
	const char *path;    /* "" for anonymous memory; "[heap]", "[vdso]", ... as written */
};

struct maps {
	struct maps_entry *v; /* sorted by start, never overlapping */
	size_t n;
	size_t lines;	/* mapping lines read, valid or not */
	size_t skipped; /* malformed lines skipped */
	size_t snapshots;
	struct str_arena strings;
};

/* Parses maps text (one or more snapshots) into m, which must be zeroed. 0 or -ENOMEM. */
int maps_parse(struct maps *m, const char *text, size_t len);
/*
 * Reads and parses the files at PATHS into m (zeroed), in order, as one text: later lines win.
 * 0 when at least one could be read, else the -errno of the first failure, or -ENOMEM.
 */
int maps_load(struct maps *m, const char *const *paths, size_t npaths);
/* Index of the mapping holding addr, or -1 if none does. */
long maps_find(const struct maps *m, uint64_t addr);
void maps_release(struct maps *m);

#endif /* PSC_MAPS_H */
