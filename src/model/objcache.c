/* objcache.c - recorded objects checked against their files, and the build-id cache
 * (objcache.h). */
#include "model/objcache.h"
#include "lib/fcopy.h"

#include "format/env.h"
#include "format/layout.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/hashmap.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *objcache_root(char *buf, size_t len)
{
	const char *env = getenv(PSC_ENV_CACHE_DIR), *base;
	int n;

	if (env)
		n = *env ? snprintf(buf, len, "%s", env) : -1;
	else if ((base = getenv("XDG_CACHE_HOME")) && base[0] == '/')
		n = snprintf(buf, len, "%s/perfscope", base);
	else if ((base = getenv("HOME")) && base[0] == '/')
		n = snprintf(buf, len, "%s/.cache/perfscope", base);
	else
		n = -1;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

uint64_t objcache_max_object(void)
{
	const char *s = getenv(PSC_ENV_CACHE_MAX_OBJECT);
	uint64_t v = 0;
	unsigned shift = 0;

	if (!s || !*s)
		return OBJCACHE_DEFAULT_MAX;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return OBJCACHE_DEFAULT_MAX;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s == 'k' || *s == 'K')
		shift = 10;
	else if (*s == 'm' || *s == 'M')
		shift = 20;
	else if (*s == 'g' || *s == 'G')
		shift = 30;
	else if (*s)
		return OBJCACHE_DEFAULT_MAX;
	if (shift && (s[1] || v > (UINT64_MAX >> shift)))
		return OBJCACHE_DEFAULT_MAX;
	return v << shift;
}

void obj_build_id_hex(struct Elf *elf, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *id;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;

	hex[0] = 0;
	if (n <= 0 || n > 64)
		return;
	for (ssize_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * n] = 0;
}

int obj_same(const struct maps_object *o, const char *build_id, const struct stat *st)
{
	if (o->build_id[0])
		return !strcmp(o->build_id, build_id);
	if (o->size < 0 || o->mtime_ns < 0)
		return -1;
	return (int64_t)st->st_size == o->size &&
	       (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec == o->mtime_ns;
}

/* The build-id of the ELF file open as FD into HEX ("" none or not ELF). */
static void fd_build_id(int fd, char *hex)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	hex[0] = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF)
		obj_build_id_hex(elf, hex);
	elf_end(elf);
}

static void describe(const char *build_id, int64_t size, int64_t mtime_ns, char *buf, size_t len)
{
	char when[64] = "?";
	time_t t = (time_t)(mtime_ns / 1000000000);
	struct tm tm;

	if (build_id[0]) {
		snprintf(buf, len, "build-id %s", build_id);
		return;
	}
	if (mtime_ns >= 0 && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (size >= 0)
		snprintf(buf, len, "no build-id, size %" PRId64 ", modified %s", size, when);
	else
		snprintf(buf, len, "no build-id");
}

void obj_describe(const struct maps_object *o, char *buf, size_t len)
{
	describe(o->build_id, o->size, o->mtime_ns, buf, len);
}

int obj_check(const struct maps_object *o, const char *path, char *now, size_t nowlen)
{
	char hex[132];
	struct stat st;
	int fd, same;

	if (nowlen)
		now[0] = 0;
	if (!o->build_id[0] && (o->size < 0 || o->mtime_ns < 0))
		return OBJ_UNCHECKED;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) /* unreadable is not gone: it can be read as before, or not at all */
		return errno == ENOENT || errno == ENOTDIR ? OBJ_MISSING : OBJ_UNCHECKED;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return OBJ_MISSING;
	}
	hex[0] = 0;
	if (o->build_id[0])
		fd_build_id(fd, hex);
	close(fd);
	same = obj_same(o, hex, &st);
	if (same)
		return OBJ_SAME;
	if (o->build_id[0] && !hex[0])
		snprintf(now, nowlen, "no build-id");
	else
		describe(hex, st.st_size,
			 (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, now, nowlen);
	return OBJ_CHANGED;
}

/* ---- the cache ------------------------------------------------------------------------------ */

/*
 * The entry of O (mapped from PATH) relative to the root: its two directories and the file
 * ("buildid", "1f", "2e3d...", "elf" or "nobuildid", "HASH", "", "elf"). -ENOENT when O cannot
 * have one (no build-id, no size and mtime).
 */
static int entry_parts(const struct maps_object *o, const char *path, char d1[16], char d2[160])
{
	if (o->build_id[0]) {
		if (strlen(o->build_id) < 4)
			return -ENOENT;
		snprintf(d1, 16, "%.2s", o->build_id);
		snprintf(d2, 160, "%s", o->build_id + 2);
		return 0;
	}
	if (o->size < 0 || o->mtime_ns < 0)
		return -ENOENT;
	uint64_t h = hash_bytes(HASH_INIT, path, strlen(path) + 1);

	h = hash_bytes(h, &o->size, sizeof(o->size));
	h = hash_bytes(h, &o->mtime_ns, sizeof(o->mtime_ns));
	snprintf(d1, 16, "nobuildid");
	snprintf(d2, 160, "%016" PRIx64, h);
	return 0;
}

/* Whether the file open as FD is a fit copy of O: its build-id, or without one its size. */
static int fits(int fd, const struct maps_object *o)
{
	struct stat st;
	char hex[132];

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (!o->build_id[0])
		return (int64_t)st.st_size == o->size;
	fd_build_id(fd, hex);
	return !strcmp(hex, o->build_id);
}

int objcache_find(const char *root, const struct maps_object *o, const char *path, char *out,
		  size_t outlen)
{
	char d1[16], d2[160];
	int fd, ok, n;

	if (!root || entry_parts(o, path, d1, d2))
		return -ENOENT;
	n = !strcmp(d1, "nobuildid") ? snprintf(out, outlen, "%s/nobuildid/%s/elf", root, d2)
				     : snprintf(out, outlen, "%s/buildid/%s/%s/elf", root, d1, d2);
	if (n < 0 || (size_t)n >= outlen)
		return -ENOENT;
	fd = open(out, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	ok = fits(fd, o);
	close(fd);
	return ok ? 0 : -ENOENT;
}

/* Opens (creating it 0700 if missing) the directory NAME under the directory DFD: ours, closed
 * to others' writes, not a symbolic link. The new descriptor, or -errno (-EPERM: not ours). */
static int dir_at(int dfd, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(dfd, name, 0700) && errno != EEXIST)
		return -errno;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno; /* a link, a file */
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The cache's root, created 0700 if missing (with its parent ~/.cache or $XDG_CACHE_HOME,
 * as the other caches do): a descriptor, or -errno. It must be ours and closed to others'
 * writes; a symbolic link the user made to it is followed. */
static int root_open(const char *root)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(root, '/');
	struct stat st;
	int fd;

	if (mkdir(root, 0700) && errno == ENOENT && slash && slash > root &&
	    (size_t)(slash - root) < sizeof(parent)) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - root), root);
		mkdir(parent, 0700);
		mkdir(root, 0700);
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Copies IN (open) into the new file NAME under DFD. 0 or -errno (the file removed). */
static int copy_into(int in, int dfd, const char *name)
{
	enum { BUF = 1 << 16 };
	char *buf = malloc(BUF);
	int out =
	    buf ? openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
		: -1;
	ssize_t n;
	int ret = 0;

	if (out < 0) {
		ret = buf ? -errno : -ENOMEM;
		free(buf);
		return ret;
	}
	while (!ret && (n = read(in, buf, BUF)) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				ret = -errno;
			continue;
		}
		ret = fd_write_all(out, buf, (size_t)n);
	}
	free(buf);
	if (close(out) && !ret)
		ret = -errno;
	if (ret)
		unlinkat(dfd, name, 0);
	return ret;
}

int objcache_store(const char *root, const struct maps_object *o, const char *path, uint64_t max)
{
	char d1[16], d2[160], found[PATH_MAX], tmp[64];
	static unsigned seq;
	int rfd = -1, fd1 = -1, fd2 = -1, in = -1, ret;
	struct stat st;

	if (!root || entry_parts(o, path, d1, d2))
		return -ENOENT;
	if (!objcache_find(root, o, path, found, sizeof(found)))
		return 0;
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		return -ESTALE;
	}
	if ((uint64_t)st.st_size > max) {
		close(in);
		return -EFBIG;
	}
	ret = rfd = root_open(root);
	if (ret >= 0) {
		const char *top = strcmp(d1, "nobuildid") ? "buildid" : "nobuildid";
		int topfd = dir_at(rfd, top);

		ret = topfd;
		if (topfd >= 0) {
			if (!strcmp(top, "buildid")) {
				ret = fd1 = dir_at(topfd, d1);
				close(topfd);
			} else {
				fd1 = topfd;
			}
		}
	}
	if (ret >= 0)
		ret = fd2 = dir_at(fd1, d2);
	if (ret >= 0) {
		snprintf(tmp, sizeof(tmp), ".elf.%d.%u", (int)getpid(), seq++);
		ret = copy_into(in, fd2, tmp);
	}
	if (ret >= 0) {
		int cfd = openat(fd2, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		struct stat after;

		/* the copy, not the file (which may have changed meanwhile), must be O's; without
		 * a build-id the file must not have changed while it was copied */
		if (cfd < 0 || !fits(cfd, o) ||
		    (!o->build_id[0] && (obj_same(o, "", &st) != 1 || fstat(in, &after) ||
					 after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
					 after.st_mtim.tv_nsec != st.st_mtim.tv_nsec)))
			ret = -ESTALE;
		if (cfd >= 0)
			close(cfd);
		if (!ret && renameat(fd2, tmp, fd2, "elf"))
			ret = -errno;
		if (ret)
			unlinkat(fd2, tmp, 0);
	}
	if (in >= 0)
		close(in);
	if (fd2 >= 0) {
		close(fd2);
		if (ret < 0)
			unlinkat(fd1, d2, AT_REMOVEDIR); /* the entry's directory, if left empty */
	}
	if (fd1 >= 0)
		close(fd1);
	if (rfd >= 0)
		close(rfd);
	return ret < 0 ? ret : 1;
}

/* ---- an experiment's objects ---------------------------------------------------------------- */

static int same_object(const struct exp_object *x, const char *path, const struct maps_object *o)
{
	return !strcmp(x->path, path) && !strcmp(x->build_id, o->build_id) &&
	       (o->build_id[0] || (x->size == o->size && x->mtime_ns == o->mtime_ns));
}

static void object_free(struct exp_object *x);

struct survey {
	struct exp_object *v;
	size_t n, cap;
	struct hchain by_hash; /* the objects in v, by the hash of their path and identity */
	const char *root;
	uint64_t max;
	int fill;
};

static uint64_t object_hash(const char *path, const struct maps_object *o)
{
	uint64_t h = hash_bytes(HASH_INIT, path, strlen(path) + 1);

	h = hash_bytes(h, o->build_id, strlen(o->build_id) + 1);
	if (!o->build_id[0]) {
		h = hash_bytes(h, &o->size, sizeof(o->size));
		h = hash_bytes(h, &o->mtime_ns, sizeof(o->mtime_ns));
	}
	return h;
}

/* Checks object O mapped from PATH once. 0 or -ENOMEM. */
static int survey_add(struct survey *s, const char *path, const struct maps_object *o)
{
	char now[256], entry[PATH_MAX];
	uint64_t h = object_hash(path, o);
	struct exp_object *x;

	for (size_t at = hchain_first(&s->by_hash, h); at; at = hchain_next(&s->by_hash, at))
		if (same_object(&s->v[at - 1], path, o))
			return 0;
	if (ARRAY_GROW(s->v, s->n + 1, s->cap))
		return -ENOMEM;
	x = &s->v[s->n];
	memset(x, 0, sizeof(*x));
	x->size = o->size;
	x->mtime_ns = o->mtime_ns;
	x->state = obj_check(o, path, now, sizeof(now));
	if (x->state == OBJ_SAME && s->fill && s->root) {
		x->stored = objcache_store(s->root, o, path, s->max);
		x->stored = x->stored == 0 ? 2 : x->stored;
	} else if ((x->state == OBJ_CHANGED || x->state == OBJ_MISSING) &&
		   !objcache_find(s->root, o, path, entry, sizeof(entry))) {
		x->state = OBJ_CACHED;
		x->cached = strdup(entry);
	}
	x->path = strdup(path);
	x->build_id = strdup(o->build_id);
	x->now = strdup(now);
	if (!x->path || !x->build_id || !x->now || (x->state == OBJ_CACHED && !x->cached)) {
		object_free(x);
		return -ENOMEM;
	}
	if (hchain_add(&s->by_hash, h, s->n)) {
		object_free(x);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static int object_cmp(const void *a, const void *b)
{
	const struct exp_object *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : strcmp(x->build_id, y->build_id);
}

int objects_survey(const char *dir, int fill, struct exp_object **out, size_t *n)
{
	char rootbuf[PATH_MAX], path[PATH_MAX];
	struct survey s = {.fill = fill, .max = objcache_max_object()};
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return 0;
	s.root = objcache_root(rootbuf, sizeof(rootbuf));
	while (!ret && (de = readdir(d))) {
		enum layout_kind kind = layout_parse(de->d_name, NULL);
		const char *const paths[] = {path};
		struct maps m = {0};

		if (kind != LAYOUT_MAPS && kind != LAYOUT_PMAPS)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		ret = maps_load(&m, paths, 1);
		if (ret == -ENOMEM)
			break;
		ret = 0;
		for (size_t i = 0; i < m.ninsts && !ret; i++)
			if (m.insts[i].obj && m.insts[i].e.path[0] == '/')
				ret = survey_add(&s, m.insts[i].e.path, m.insts[i].obj);
		maps_release(&m);
	}
	closedir(d);
	hchain_release(&s.by_hash);
	if (ret) {
		objects_release(s.v, s.n);
		return ret;
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), object_cmp);
	*out = s.v;
	*n = s.n;
	return 0;
}

int objects_cache_fill(const char *dir, char *why, size_t whylen)
{
	struct exp_object *v;
	size_t n;
	char root[PATH_MAX];
	int ret = objects_survey(dir, 1, &v, &n);

	if (ret) {
		snprintf(why, whylen, "build-id cache: out of memory");
		return ret;
	}
	/* a cache directory that cannot be used is no cache, as for the kernel's symbols; a
	 * full disk, or one that fails, is said */
	for (size_t i = 0; i < n && !ret; i++)
		if (v[i].stored == -ENOSPC || v[i].stored == -EDQUOT || v[i].stored == -EIO) {
			ret = v[i].stored;
			snprintf(why, whylen, "build-id cache %s: %s not kept: %s",
				 objcache_root(root, sizeof(root)) ? root : "?", v[i].path,
				 strerror(-ret));
		}
	objects_release(v, n);
	return ret;
}

void objects_caveats(const struct exp_object *v, size_t n, void (*fn)(void *ctx, const char *line),
		     void *ctx)
{
	char root[PATH_MAX], line[2 * PATH_MAX + 512], was[192];
	const char *cache = objcache_root(root, sizeof(root))
				? "the build-id cache has no copy"
				: "the build-id cache is off (PERFSCOPE_CACHE_DIR is empty)";
	const struct exp_object *full = NULL;
	size_t nfull = 0;

	for (size_t i = 0; i < n; i++) {
		const struct exp_object *x = &v[i];
		const char *base = strrchr(x->path, '/');
		struct maps_object o = {x->build_id, x->size, x->mtime_ns, x->path};

		base = base && base[1] ? base + 1 : x->path;
		obj_describe(&o, was, sizeof(was));
		if (x->state == OBJ_CHANGED)
			snprintf(line, sizeof(line),
				 "%s %s after the recording (%s, now %s) and %s: its addresses are "
				 "shown as %s+0xOFFSET",
				 x->path, x->build_id[0] ? "was rebuilt" : "changed", was, x->now,
				 cache, base);
		else if (x->state == OBJ_MISSING)
			snprintf(line, sizeof(line),
				 "%s is gone since the recording (%s) and %s: its addresses are "
				 "shown as %s+0xOFFSET",
				 x->path, was, cache, base);
		else {
			if (x->state == OBJ_SAME &&
			    (x->stored == -ENOSPC || x->stored == -EDQUOT)) {
				full = full ? full : x;
				nfull++;
			}
			continue;
		}
		fn(ctx, line);
	}
	if (full) {
		snprintf(line, sizeof(line),
			 "the build-id cache %s is full: %s%s%s not kept (%zu object%s): should %s "
			 "be rebuilt, %s addresses could not be named",
			 root, full->path, nfull > 1 ? " and " : "", nfull > 1 ? "others" : "",
			 nfull, nfull > 1 ? "s" : "", nfull > 1 ? "they" : "it",
			 nfull > 1 ? "their" : "its");
		fn(ctx, line);
	}
}

void obj_state_text(const struct exp_object *x, char *buf, size_t len)
{
	const char *what = x->build_id[0] ? "rebuilt" : "changed";

	switch (x->state) {
	case OBJ_SAME:
		snprintf(buf, len, "same");
		break;
	case OBJ_CACHED:
		snprintf(buf, len, "%s, read from the build-id cache",
			 x->now && x->now[0] ? what : "gone");
		break;
	case OBJ_CHANGED:
		snprintf(buf, len, "%s (now %s), not named", what, x->now);
		break;
	case OBJ_MISSING:
		snprintf(buf, len, "gone, not named");
		break;
	default:
		snprintf(buf, len, "not checked (nothing recorded to check it by)");
	}
}

/* The strings of X. */
static void object_free(struct exp_object *x)
{
	free(x->path);
	free(x->build_id);
	free(x->now);
	free(x->cached);
}

void objects_release(struct exp_object *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		object_free(&v[i]);
	free(v);
}
