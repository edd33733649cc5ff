/*
 * maps.h - a process's memory map as recorded in `maps.<pid>[.<image>]` (copies of
 * /proc/<pid>/maps written by the runtime) or `pmaps.<pid>[.<image>]` (mappings the kernel
 * reported to `record --sample`), kept with the times of its copies (docs/format.md "Memory
 * maps").
 *
 * Two views of one parse:
 *   - the union of all copies (v, n): where ranges overlap the mapping read later wins (split
 *     into pieces where it covers only part of an earlier one), so an address of a library that
 *     was closed again still finds it. This is the view at the end of the process.
 *   - the history (insts): each mapping with the copies it was present in, and the object
 *     (`# object` line: build-id, size, mtime) its file was when it was mapped. An address and
 *     a time pick one of the mappings that held the address (maps_at), so that two libraries
 *     loaded one after the other at the same address are told apart.
 *
 * Malformed lines are counted and skipped.
 */
#ifndef PSC_MAPS_H
#define PSC_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "model/str-arena.h"

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

/* What a `# object` line says of a loaded object when the copy was taken. */
struct maps_object {
	const char *build_id; /* GNU build-id, lower-case hex; "" when it has none or unknown */
	int64_t size;	      /* the file's size in bytes, -1 unknown */
	int64_t mtime_ns;     /* its modification time in ns since the epoch, -1 unknown */
	const char *path;     /* as recorded (the name dlopen was given; may be relative) */
};

/* A copy replaces the mappings before it (a whole /proc/PID/maps: the start, "# dlopen T",
 * "# dlclose T") or adds to them ("# mmap T" of pmaps; a line that goes back in address
 * within a copy, as files without headers have). */
#define MAPS_COPY_FULL 0u
#define MAPS_COPY_MORE 1u

struct maps_copy {
	int64_t when;  /* the header's time as written (ticks in maps, ns in pmaps); INT64_MIN
			* for the first copy (the start) and when unknown, else never less
			* than the copy before */
	int64_t ns;    /* `when` on the caller's time base (maps_set_times), INT64_MIN unset */
	unsigned kind; /* MAPS_COPY_FULL or MAPS_COPY_MORE */
	int timed;     /* the header gave a time */
};

/* One mapping of the history: present unchanged in copies first..last. */
struct maps_inst {
	struct maps_entry e;	       /* deleted: in any of its copies */
	const struct maps_object *obj; /* its file's object line in its first copy, or NULL */
	uint32_t first, last;
	uint32_t cls; /* instances of one class read the same file at the same place: the same
		       * path, object and start - offset */
};

/* Part of the address space where the same instances hold every address. */
struct maps_piece {
	uint64_t start, end;
	uint32_t at, n;	   /* its instances: piece_inst[at .. at + n), by first copy */
	uint32_t nclasses; /* distinct classes among them */
};

/* The highest place tag (maps_tag): the 63rd and later classes of an address share it. */
#define MAPS_TAG_MAX 63u

struct maps {
	struct maps_entry *v; /* the union: sorted by start, never overlapping */
	size_t n;
	size_t lines;	/* mapping lines read, valid or not */
	size_t skipped; /* malformed lines skipped */
	size_t snapshots;
	struct maps_copy *copies;
	size_t ncopies;
	struct maps_object *objects; /* distinct `# object` lines */
	size_t nobjects;
	struct maps_inst *insts;
	size_t ninsts;
	struct maps_piece *pieces; /* sorted by start, never overlapping */
	size_t npieces;
	uint32_t *piece_inst; /* instance indices of the pieces */
	uint8_t *piece_ord;   /* per piece_inst: its class's rank among the piece's classes */
	size_t ambiguous;     /* pieces held by more than one class */
	int added;	      /* some copy is MAPS_COPY_MORE */
	struct str_arena strings;
};

/* Parses maps text (one or more copies) into m, which must be zeroed. 0 or -ENOMEM. */
int maps_parse(struct maps *m, const char *text, size_t len);
/*
 * Reads and parses the files at PATHS into m (zeroed), in order, as one text (each file after
 * the first starting a copy of unknown time): later lines win. 0 when at least one could be
 * read, else the -errno of the first failure, or -ENOMEM.
 */
int maps_load(struct maps *m, const char *const *paths, size_t npaths);
/* Index of the mapping of the union holding addr, or -1 if none does. */
long maps_find(const struct maps *m, uint64_t addr);

/*
 * Sets each copy's ns from its `when` through CONV (ticks to ns, for instance); copies of
 * unknown time keep INT64_MIN. Lookups at a time (maps_at) need it; CONV NULL: ns = when.
 */
void maps_set_times(struct maps *m, int64_t (*conv)(void *ctx, int64_t when), void *ctx);

/*
 * The instance that held addr at time t (on the copies' ns base), or -1 if none ever did.
 * With c the last copy taken at or before t (the first copy stands for the start): the
 * instance present in c (of those, the latest mapped); if none is, the first one mapped after
 * c (the address ran, so it was mapped: a copy lacking it was taken before it was mapped, or
 * after it was gone); if none is, the last one before c. t = INT64_MAX, or copies without
 * times, give the mapping the union holds.
 */
long maps_at(const struct maps *m, uint64_t addr, int64_t t);

/*
 * The place tag of instance inst at addr: 0 when a single class ever held addr (the common
 * case), else 1 + the rank of inst's class among those that held it (by first mapping),
 * at most MAPS_TAG_MAX.
 */
unsigned maps_tag(const struct maps *m, uint64_t addr, long inst);
/* The instance of addr that tag names (maps_tag), or -1: tag 0 or out of range. */
long maps_untag(const struct maps *m, uint64_t addr, unsigned tag);

void maps_release(struct maps *m);

#endif /* PSC_MAPS_H */
