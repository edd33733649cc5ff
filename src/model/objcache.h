/*
 * objcache.h - the objects (programs and libraries) a recording mapped: whether the file found
 * under each one's path now is still the one that ran, and the per-user build-id cache that
 * keeps a copy of each, so that a rebuild after the recording does not rename its functions.
 *
 * The runtime writes after every copy of the maps one `# object BUILDID SIZE MTIME PATH` line
 * per loaded object (record --sample writes one per mapping the kernel reported); maps.h reads
 * them. A file is the one that ran when its GNU build-id is the recorded one, or, for an
 * object without a build-id, when its size and modification time are. When it is not (or is
 * gone), its symbols are read from the cache entry of the recorded build-id; without one, the
 * object's addresses stay unnamed (module+offset): a name from another build is never given.
 *
 * The cache (docs/format.md "Build-id cache") is
 *   ${PERFSCOPE_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/perfscope}/buildid/XX/REST/elf
 * (XX the first two hex digits of the build-id, REST the others) holding a full copy of the
 * file; objects without a build-id are kept under .../nobuildid/HASH/elf, HASH naming path,
 * size and mtime. A full copy, as perf's ~/.debug keeps: the symbol tables, the DWARF line
 * tables and the program headers (which place the addresses) all come from it, with no ELF
 * rewriting that could lose a section some reader needs. PERFSCOPE_CACHE_DIR set and empty
 * turns the cache off.
 */
#ifndef PSC_AN_OBJCACHE_H
#define PSC_AN_OBJCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "model/maps.h"

struct Elf;

/* What became of a recorded object's file. */
enum obj_state {
	OBJ_UNCHECKED = 0, /* nothing recorded to check it by (an older experiment) */
	OBJ_SAME,	   /* the file under its path is the one that ran */
	OBJ_CACHED,	   /* changed or gone: read from its copy in the build-id cache */
	OBJ_CHANGED,	   /* changed, and no copy: its addresses are not named */
	OBJ_MISSING,	   /* gone, and no copy: likewise */
};

/* Objects above this size are not copied into the cache unless PERFSCOPE_CACHE_MAX_OBJECT
 * says otherwise. */
#define OBJCACHE_DEFAULT_MAX (256ull << 20)

/*
 * The cache's root directory in BUF: PERFSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/perfscope, else
 * $HOME/.cache/perfscope. NULL when there is none (PERFSCOPE_CACHE_DIR set and empty, no
 * HOME). Nothing is created.
 */
const char *objcache_root(char *buf, size_t len);

/* The largest object the cache copies: PERFSCOPE_CACHE_MAX_OBJECT (bytes, with an optional
 * k, M or G suffix; 0: none), else OBJCACHE_DEFAULT_MAX. */
uint64_t objcache_max_object(void);

/* The GNU build-id of ELF in lower-case hex into HEX (at least 129 bytes); "" without one. */
void obj_build_id_hex(struct Elf *elf, char *hex);

/*
 * Whether a file is the one object O describes: 1 yes, 0 no, -1 O gives nothing to tell by.
 * BUILD_ID is the file's (hex, "" none), ST its stat. With a recorded build-id only the
 * build-id counts; without, the size and modification time.
 */
int obj_same(const struct maps_object *o, const char *build_id, const struct stat *st);

/*
 * Checks the file at PATH against O: OBJ_SAME, OBJ_CHANGED, OBJ_MISSING (no such file) or
 * OBJ_UNCHECKED (O says nothing to check by, or the file cannot be read). NOW gets what the file is
 * now, in words ("build-id 1f2e...", "size 123, modified 2026-11-28 21:04:29"), "" when it is the
 * same or missing.
 */
int obj_check(const struct maps_object *o, const char *path, char *now, size_t nowlen);

/* How O is named in messages: "build-id 1f2e..." or "size 123, modified ...". */
void obj_describe(const struct maps_object *o, char *buf, size_t len);

/*
 * The cache entry of O (recorded for the file at PATH) under ROOT, checked (its build-id, or
 * its size) into OUT: 0, or -ENOENT when there is none that fits.
 */
int objcache_find(const char *root, const struct maps_object *o, const char *path, char *out,
		  size_t outlen);

/*
 * Copies the file at PATH, which must be the one O describes (checked again on the copy),
 * into its entry under ROOT (created 0700, every directory ours and closed to others, no
 * symbolic link followed; the copy is written aside and renamed into place). 1 copied, 0 it
 * was there already, -EFBIG above MAX bytes, -ESTALE the file is not O's, -EPERM the cache
 * is not ours to write, or the -errno of the failure (-ENOSPC, -EDQUOT: the disk is full).
 */
int objcache_store(const char *root, const struct maps_object *o, const char *path, uint64_t max);

/* One object of an experiment: a file its processes mapped, checked. */
struct exp_object {
	char *path;	/* as mapped (absolute) */
	char *build_id; /* recorded, "" none */
	int64_t size, mtime_ns;
	int state;    /* enum obj_state */
	char *now;    /* the file now in words when it changed, else "" */
	char *cached; /* OBJ_CACHED: the entry read instead, else NULL */
	int stored;   /* the cache: 1 copied by this survey, 2 held it already, 0 not
		       * tried (no cache, not the same file), else -errno why not kept */
};

/*
 * The objects of the experiment in DIR: the distinct (path, object) of every mapping with an
 * object line in its maps.* and pmaps.* files, each checked (obj_check), the changed and the
 * missing looked up in the cache. With FILL, every one that is the same is copied into the
 * cache when it is not there yet (a failure there is kept in `stored`, never returned).
 * 0 or -ENOMEM.
 */
int objects_survey(const char *dir, int fill, struct exp_object **out, size_t *n);

/*
 * objects_survey(DIR, 1) for `record` once the command ended. 0, or a negative errno with one
 * line in WHY naming the first object that could not be kept on a full or failing disk: a
 * warning, not a failure of the recording. A cache directory that cannot be used (not a
 * directory, not the user's alone) is no cache, and nothing is said, as for the kernel's
 * symbols.
 */
int objects_cache_fill(const char *dir, char *why, size_t whylen);

/*
 * The caveats of the objects V through FN: one line per object whose addresses cannot be named
 * (rebuilt or gone since the recording, and no copy in the cache), and one line for those the
 * cache had no room for (a full disk).
 */
void objects_caveats(const struct exp_object *v, size_t n, void (*fn)(void *ctx, const char *line),
		     void *ctx);

/* What became of X in a few words, for listings: "same", "rebuilt, read from the build-id
 * cache", "rebuilt (now build-id ...), not named", "gone, not named", "not checked". */
void obj_state_text(const struct exp_object *x, char *buf, size_t len);

void objects_release(struct exp_object *v, size_t n);

#endif /* PSC_AN_OBJCACHE_H */
