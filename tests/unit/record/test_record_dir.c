/*
 * test_record_dir.c - record's experiment directory (src/record/record-dir.h): what it refuses,
 * with its message, and what it leaves behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record-dir.h"

static char top[256];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(top, sizeof(top), "recdir");
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(top);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];

	tmpdir_join(path, sizeof(path), dir, name);
	tmpdir_write(path, text);
}

/* A new directory is made, and removed again when the command never ran. */
static void test_create_abandon(void **state)
{
	struct expdir_stash old = {0};
	char dir[PATH_MAX], err[PATH_MAX + 512] = "";
	struct stat st;
	int created = -1;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/new", top);
	assert_int_equal(record_dir_prepare(dir, 0, &created, &old, err, sizeof(err)), 0);
	assert_int_equal(created, 1);
	assert_int_equal(stat(dir, &st), 0);
	assert_false(record_dir_has_functions(dir));
	put(dir, "meta.json", "{}");
	assert_int_equal(record_dir_abandon(dir, created, &old, err, sizeof(err)), 0);
	assert_int_equal(stat(dir, &st), -1);
	expdir_stash_release(&old);
}

/* An existing directory is refused without --force, and with it when it holds something that
 * is not an experiment; an empty one is taken. */
static void test_existing(void **state)
{
	struct expdir_stash old = {0};
	char dir[PATH_MAX], err[PATH_MAX + 512] = "", want[PATH_MAX + 64];
	int created = -1;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/old", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(record_dir_prepare(dir, 0, &created, &old, err, sizeof(err)), -EEXIST);
	snprintf(want, sizeof(want), "%s exists; not overwriting it (use --force, or -o NEWDIR)",
		 dir);
	assert_string_equal(err, want);
	assert_int_equal(created, 0);

	assert_int_equal(record_dir_prepare(dir, 1, &created, &old, err, sizeof(err)), 0);
	assert_int_equal(created, 0);
	assert_int_equal(record_dir_drop_old(&old, err, sizeof(err)), 0);
	expdir_stash_release(&old);

	memset(&old, 0, sizeof(old));
	put(dir, "notes.txt", "mine");
	err[0] = 0;
	assert_int_not_equal(record_dir_prepare(dir, 1, &created, &old, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "; --force replaces only an experiment, and nothing in "));
	snprintf(want, sizeof(want), "%s/notes.txt", dir);
	assert_int_equal(access(want, F_OK), 0);
	expdir_stash_release(&old);
}

static void test_cannot_create(void **state)
{
	struct expdir_stash old = {0};
	char dir[PATH_MAX], err[PATH_MAX + 512] = "", want[PATH_MAX + 64];
	int created = -1;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/no/such", top);
	assert_int_equal(record_dir_prepare(dir, 0, &created, &old, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "cannot create %s: %s", dir, strerror(ENOENT));
	assert_string_equal(err, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_abandon),
	    cmocka_unit_test(test_existing),
	    cmocka_unit_test(test_cannot_create),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
