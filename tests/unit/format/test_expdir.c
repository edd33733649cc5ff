/*
 * test_expdir.c - replacing the experiment in a directory (expdir.h): which meta.json makes a
 * directory an experiment; stash moves exactly the experiment's files aside (a user's
 * stream.c, maps.txt ... stay), restore puts them back and removes the new run's files, drop
 * deletes them; an empty directory needs nothing; a directory that is no experiment, an
 * experiment file name taken by a directory, and a file that cannot be moved leave everything
 * as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/expdir.h"
#include "tmpdir.h"

#define META                                                                                       \
	"{\"format\": \"perfscope-experiment\", \"version\": 1, \"created_by\": \"perfscope "      \
	"record\", \"command\": [\"true\"]}\n"

static char base[256];
static char err[PATH_MAX + 512];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(base, sizeof(base), "expdir");
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(base);
}

/* A fresh directory BASE/NAME holding FILES (NULL-terminated), each holding its own name. */
static const char *make(const char *name, const char *const *files)
{
	static char dir[PATH_MAX];
	char path[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (; files && *files; files++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *files);
		tmpdir_write(path, !strcmp(*files, "meta.json") ? META : *files);
	}
	return dir;
}

/* The sorted entries of DIR (all, hidden ones too) joined by spaces, each with its content's
 * first 16 bytes when it is a file. */
static const char *listing(const char *dir)
{
	static char out[4096];
	char names[64][256], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0, len = 0;

	assert_non_null(d);
	while ((de = readdir(d)) && n < 64)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char text[17] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "r");
		if (f) {
			text[fread(text, 1, 16, f)] = 0;
			fclose(f);
		}
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s=%s", i ? " " : "",
					names[i], text);
	}
	return out;
}

static void test_is_experiment(void **state)
{
	static const struct {
		const char *meta;
		int want;
	} cases[] = {
	    {META, 1},
	    {"{\"format\": \"perfscope-experiment\", \"version\": 7, \"created_by\": \"runtime\"}",
	     1},
	    {"{\"format\": \"perfscope-experiment\", \"version\": 1}", 0},
	    {"{\"format\": \"perfscope-experiment\", \"created_by\": \"x\"}", 0},
	    {"{\"format\": \"other\", \"version\": 1, \"created_by\": \"x\"}", 0},
	    {"{\"version\": 1, \"created_by\": \"x\"}", 0},
	    {"{\"format\": 1, \"version\": 1, \"created_by\": \"x\"}", 0},
	    {"[\"perfscope-experiment\"]", 0},
	    {"{\"format\": \"perfscope-experiment\", ", 0},
	    {"", 0},
	};
	char name[32], path[PATH_MAX + 16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *dir;

		snprintf(name, sizeof(name), "meta%zu", i);
		dir = make(name, NULL);
		snprintf(path, sizeof(path), "%s/meta.json", dir);
		tmpdir_write(path, cases[i].meta);
		err[0] = 0;
		if (expdir_is_experiment(dir, err, sizeof(err)) != cases[i].want)
			fail_msg("meta.json '%s': expected %d (%s)", cases[i].meta, cases[i].want,
				 err);
		if (!cases[i].want)
			assert_non_null(strstr(err, "meta.json"));
	}
	/* invalid JSON: the byte */
	snprintf(path, sizeof(path), "%s/meta8", base);
	assert_int_equal(expdir_is_experiment(path, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "meta.json: byte "));
	/* none at all */
	assert_int_equal(expdir_is_experiment(make("nometa", NULL), err, sizeof(err)), -ENOENT);
}

static void test_stash_restore_drop(void **state)
{
	static const char *const files[] = {
	    "meta.json",  "proc.41.json", "stream.41.41",  "stream.41.42.1", "maps.41",	 "pmaps.41",
	    "samples.41", "power.rapl",	  "load.node1.41", "live.41.0.3",    "kallsyms", "stream.c",
	    "maps.txt",	  "power.csv",	  "proc.py",	   "meta.json.bak",  "notes",	 NULL};
	const char *mine = "maps.txt=maps.txt meta.json.bak=meta.json.bak notes=notes "
			   "power.csv=power.csv proc.py=proc.py stream.c=stream.c";
	char before[4096], path[PATH_MAX + 64];
	struct expdir_stash s;
	const char *dir;

	(void)state;
	dir = make("exp", files);
	snprintf(before, sizeof(before), "%s", listing(dir));
	assert_int_equal(expdir_stash(&s, dir, err, sizeof(err)), 0);
	assert_int_equal(s.nfiles, 11);
	assert_string_equal(s.files[s.nfiles - 1], "meta.json");
	/* only the user's files and the hidden directory are left */
	assert_non_null(strstr(listing(dir), mine));
	assert_int_equal(strncmp(listing(dir), ".perfscope-old.", 15), 0);
	/* a new run's files, then restore: the old experiment is back, the new one gone */
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	tmpdir_write(path, "new");
	snprintf(path, sizeof(path), "%s/samples.99", dir);
	tmpdir_write(path, "new");
	assert_int_equal(expdir_restore(&s, err, sizeof(err)), 0);
	assert_string_equal(listing(dir), before);
	expdir_stash_release(&s);
	/* stash and drop: the old experiment is gone, the user's files stay */
	assert_int_equal(expdir_stash(&s, dir, err, sizeof(err)), 0);
	assert_int_equal(expdir_drop(&s, err, sizeof(err)), 0);
	assert_string_equal(listing(dir), mine);
	expdir_stash_release(&s);
}

static void test_empty_dir(void **state)
{
	struct expdir_stash s;
	const char *dir;
	char path[PATH_MAX + 64];

	(void)state;
	dir = make("empty", NULL);
	assert_int_equal(expdir_stash(&s, dir, err, sizeof(err)), 0);
	assert_int_equal(s.nfiles, 0);
	assert_string_equal(s.name, "");
	/* the new run's files go again on restore */
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	tmpdir_write(path, META);
	assert_int_equal(expdir_restore(&s, err, sizeof(err)), 0);
	assert_string_equal(listing(dir), "");
	expdir_stash_release(&s);
}

static void test_refused(void **state)
{
	static const char *const notexp[] = {"stream.1.2", "stream.c", "notes", NULL};
	static const char *const exp[] = {"meta.json", "stream.1.2", NULL};
	char before[4096], path[PATH_MAX + 64];
	struct expdir_stash s;
	const char *dir;

	(void)state;
	dir = make("notexp", notexp);
	snprintf(before, sizeof(before), "%s", listing(dir));
	assert_int_equal(expdir_stash(&s, dir, err, sizeof(err)), -ENOTEMPTY);
	assert_non_null(strstr(err, "no meta.json"));
	assert_string_equal(listing(dir), before);
	/* an experiment file's name taken by a directory */
	dir = make("dirent", exp);
	snprintf(path, sizeof(path), "%s/stream.1.3", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(before, sizeof(before), "%s", listing(dir));
	assert_int_equal(expdir_stash(&s, dir, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "stream.1.3 is not a regular file"));
	assert_string_equal(listing(dir), before);
	/* a refused stash has nothing to restore: the experiment's files stay */
	assert_int_equal(expdir_restore(&s, err, sizeof(err)), 0);
	assert_string_equal(listing(dir), before);
}

/* A file that cannot be moved: immutable (root), else in a directory without write permission
 * (which keeps the hidden directory from being made). */
static void test_unmovable(void **state)
{
	static const char *const exp[] = {"meta.json",	"maps.7",     "proc.7.json",
					  "stream.7.7", "stream.7.8", NULL};
	char before[4096], path[PATH_MAX + 64];
	struct expdir_stash s;
	const char *dir;
	int fd = -1, flags = 0, ret;

	(void)state;
	dir = make("locked", exp);
	snprintf(before, sizeof(before), "%s", listing(dir));
	snprintf(path, sizeof(path), "%s/stream.7.8", dir);
	if (geteuid() == 0) {
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 ||
		    (flags |= FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)) {
			close(fd);
			skip();
		}
	} else {
		assert_int_equal(chmod(dir, 0555), 0);
	}
	ret = expdir_stash(&s, dir, err, sizeof(err));
	if (fd >= 0) {
		flags &= ~FS_IMMUTABLE_FL;
		assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
		close(fd);
	} else {
		chmod(dir, 0755);
	}
	assert_true(ret < 0);
	assert_string_equal(listing(dir), before);
	assert_non_null(strstr(err, geteuid() == 0 ? "stream.7.8" : dir));
}

static void test_clear(void **state)
{
	static const char *const files[] = {
	    "meta.json",      "stream.3.3",	  "proc.3.json", "stream.c",
	    ".meta.json.tmp", "proc.3.json.tmp3", "notes",	 NULL};
	const char *dir;

	(void)state;
	dir = make("clear", files);
	assert_int_equal(expdir_clear(dir), 0);
	assert_string_equal(listing(dir), "notes=notes stream.c=stream.c");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_is_experiment), cmocka_unit_test(test_stash_restore_drop),
	    cmocka_unit_test(test_empty_dir),	  cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_unmovable),	  cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
