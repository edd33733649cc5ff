/* kallsyms.c - kernel text symbols: saved at record time, read for kernel samples. */
#include "model/kallsyms.h"

#include "lib/fcopy.h"
#include "format/layout.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/textline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Types of symbols in the kernel's text: local and global functions, weak ones. */
/* DIR/NAME of the experiment's file of KIND (kallsyms or kallsyms.tmp) into BUF of LEN bytes. */
static void exp_path(const char *dir, enum layout_kind kind, char *buf, size_t len)
{
	layout_path(dir, &(struct layout_file){.kind = kind}, buf, len);
}

static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

int kallsyms_save(const char *procfs, const char *dir, char *why, size_t whylen)
{
	char path[4096], tmp[4096], line[512], name[400];
	uint64_t kept = 0, nonzero = 0;
	FILE *in, *out;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/kallsyms", procfs);
	in = fopen(path, "r");
	if (!in) {
		ret = -errno;
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
		unlink(path); /* an older experiment's copy would name this run's samples */
		return ret;
	}
	exp_path(dir, LAYOUT_KALLSYMS_TMP, tmp, sizeof(tmp));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		fclose(in);
		exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
		unlink(path);
		return ret;
	}
	while (fgets(line, sizeof(line), in)) {
		uint64_t addr;
		char type;
		int used = 0;

		if (sscanf(line, "%" SCNx64 " %c %399s%n", &addr, &type, name, &used) < 3 ||
		    !is_text(type))
			continue;
		nonzero += addr != 0;
		kept++;
		/* "name" or "name\t[module]" as the kernel lists it */
		fprintf(out, "%016" PRIx64 " %c %s%s", addr, type, name, line + used);
		if (!strchr(line + used, '\n'))
			fputc('\n', out);
	}
	if (ferror(in) && !ret) {
		ret = -EIO;
		snprintf(why, whylen, "cannot read %s", path);
	}
	fclose(in);
	if (fclose(out) && !ret) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
	}
	if (!ret && (!kept || !nonzero)) {
		ret = -EPERM;
		snprintf(why, whylen,
			 "%s hides kernel addresses (kernel.kptr_restrict; root or CAP_SYSLOG with "
			 "kptr_restrict <= 1 can see them)",
			 path);
	}
	exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
	}
	if (ret) {
		unlink(tmp);
		unlink(path); /* an older experiment's copy would name this run's samples */
	}
	return ret;
}

/*
 * The name of this kernel's cache entry, "kallsyms-BOOTID-MODHASH": the boot (boot_id) and the
 * loaded modules (name, size and address of each line of PROCFS/modules; a missing file is no
 * module). 0, or -ENOENT when there is no boot_id (the entry could not tell kernels apart).
 */
static int cache_key(const char *procfs, char *key, size_t keylen)
{
	char path[4096], id[64], line[1024];
	uint64_t h = HASH_INIT;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", procfs);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	n = fread(id, 1, sizeof(id) - 1, f);
	fclose(f);
	id[n] = 0;
	n = strspn(id, "0123456789abcdefABCDEF-");
	if (n < 8 || (id[n] && id[n] != '\n'))
		return -ENOENT;
	id[n] = 0;
	snprintf(path, sizeof(path), "%s/modules", procfs);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char name[256], size[32], refs[32], deps[512], state[32], addr[32];

			/* "name size refcount deps state address": the refcount changes without a
			 * load */
			if (sscanf(line, "%255s %31s %31s %511s %31s %31s", name, size, refs, deps,
				   state, addr) < 6)
				h = hash_bytes(h, line, strlen(line));
			else {
				h = hash_bytes(hash_bytes(h, name, strlen(name) + 1), size,
					       strlen(size) + 1);
				h = hash_bytes(h, addr, strlen(addr) + 1);
			}
		}
		fclose(f);
	}
	snprintf(key, keylen, "kallsyms-%s-%016" PRIx64, id, h);
	return 0;
}

/* 1 when PROCFS/kallsyms shows this process the addresses: its first text symbol is not at 0
 * (the kernel lists that first, so only the first page is formatted). */
static int addresses_visible(const char *procfs)
{
	char path[4096], line[512], name[400];
	int visible = 0, lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", procfs);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (lines++ < 4096 && fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type;

		if (sscanf(line, "%" SCNx64 " %c %399s", &addr, &type, name) == 3 &&
		    is_text(type)) {
			visible = addr != 0;
			break;
		}
	}
	fclose(f);
	return visible;
}

/* Put ENTRY at DIR/kallsyms (through DIR/kallsyms.tmp): a hard link where the file system
 * allows one (no byte is copied), else a copy. 0 or negative errno. */
static int place_entry(const char *entry, const char *dir)
{
	char tmp[4096], path[4096];
	int ret = 0;

	exp_path(dir, LAYOUT_KALLSYMS_TMP, tmp, sizeof(tmp));
	exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
	unlink(tmp);
	if (link(entry, tmp)) {
		long long n = file_copy(entry, tmp, 0644);

		ret = n < 0 ? (int)n : 0;
	}
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		unlink(tmp);
	}
	return ret;
}

/*
 * Remove the entries that can no longer serve: this boot's with other modules (KEEP is the new
 * one), and other boots' unused for a week (another machine sharing the directory keeps its own
 * while it is in use).
 */
static void cache_prune(const char *cachedir, const char *keep)
{
	const char *boot_end = strrchr(keep, '-');
	size_t boot_len = boot_end ? (size_t)(boot_end - keep) : 0;
	time_t now = time(NULL);
	struct dirent *e;
	DIR *d = opendir(cachedir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (strncmp(e->d_name, "kallsyms-", 9) || !strcmp(e->d_name, keep) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if ((boot_len && !strncmp(e->d_name, keep, boot_len) &&
		     e->d_name[boot_len] == '-') ||
		    now - st.st_mtime > 7 * 24 * 3600)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int kallsyms_save_cached(const char *procfs, const char *dir, const char *cachedir, char *why,
			 size_t whylen)
{
	char key[160], entry[4096], tmp[4096], path[4096];
	struct stat st;
	int ret, fd;

	if (!cachedir || !*cachedir || cache_key(procfs, key, sizeof(key)) ||
	    !addresses_visible(procfs))
		return kallsyms_save(procfs, dir, why, whylen);
	snprintf(entry, sizeof(entry), "%s/%s", cachedir, key);
	if (!stat(entry, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && !place_entry(entry, dir))
		return 0;
	ret = kallsyms_save(procfs, dir, why, whylen);
	if (ret)
		return ret;
	/* the new entry: written under a temporary name, renamed into place; failures are silent
	 * (the experiment has its copy) */
	exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", cachedir, key);
	fd = mkstemp(tmp);
	if (fd < 0)
		return 0;
	close(fd);
	unlink(tmp);
	if ((link(path, tmp) && file_copy(path, tmp, 0644) < 0) || rename(tmp, entry)) {
		unlink(tmp);
		return 0;
	}
	cache_prune(cachedir, key);
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* of aliases at one address, prefer the one without a leading underscore */
	return (x->name[0] == '_') - (y->name[0] == '_');
}

/* "PATH: line LINE: " and the message into ERR; returns -EINVAL. */
static int load_fail(char *err, size_t errlen, const char *path, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int load_fail(char *err, size_t errlen, const char *path, size_t line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = textline_vfail(err, errlen, path, line, -EINVAL, fmt, ap);
	va_end(ap);
	return ret;
}

int kallsyms_load(struct kallsyms *k, const char *dir, char *err, size_t errlen)
{
	char path[4096];
	size_t len = 0, cap = 0, lines = 0, line = 0;
	FILE *f;
	int c;

	memset(k, 0, sizeof(*k));
	exp_path(dir, LAYOUT_KALLSYMS, path, sizeof(path));
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		k->missing = 1;
		if (e == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	/* the whole file in one buffer; lines are cut in place */
	while ((c = getc(f)) != EOF) {
		if (ARRAY_GROW(k->text, len + 2, cap)) {
			fclose(f);
			kallsyms_release(k);
			snprintf(err, errlen, "%s: out of memory", path);
			return -ENOMEM;
		}
		k->text[len++] = (char)c;
		lines += c == '\n';
	}
	fclose(f);
	if (!k->text)
		return 0;
	k->text[len] = 0;
	k->v = calloc(lines + 1, sizeof(*k->v));
	if (!k->v) {
		kallsyms_release(k);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (char *p = k->text, *nl; *p; p = nl + 1) {
		char *end, *name;
		uint64_t addr;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		else
			*nl = 0;
		line++;
		addr = strtoull(p, &end, 16);
		if (end == p || end[0] != ' ' || !end[1] || end[2] != ' ' || !end[3]) {
			kallsyms_release(k);
			return load_fail(err, errlen, path, line,
					 "expected 'ADDRESS TYPE NAME' (a copy of /proc/kallsyms)");
		}
		name = end + 3;
		for (char *t = name; *t; t++)
			if (*t == '\t')
				*t = ' ';
		k->v[k->n++] = (struct kallsym){addr, name};
		if (!nl[1])
			break;
	}
	qsort(k->v, k->n, sizeof(*k->v), cmp_sym);
	return 0;
}

const struct kallsym *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->v[0].addr ||
	    (addr > k->v[k->n - 1].addr && addr - k->v[k->n - 1].addr > (16u << 20)))
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first alias at that address (sorted to prefer names without '_') */
	while (lo > 0 && k->v[lo - 1].addr == k->v[lo].addr)
		lo--;
	return &k->v[lo];
}

void kallsyms_release(struct kallsyms *k)
{
	free(k->v);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
