/*
 * test_outfile.c - output files and directories written aside (outfile.h): a new file appears
 * only at commit; an existing one is refused without force, replaced with its mode with force,
 * and kept as it was when the output is discarded; a symbolic link keeps pointing at the
 * replaced file; a device is written in place; a file that appears while the output is written
 * is not overwritten without force. Directories: entries moved in at commit, the replaced ones
 * deleted by the writer's remover (files it does not know kept and said), everything put back
 * when a move fails, and a directory made for the output removed again on discard. No
 * temporary file or directory is left in any case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "tmpdir.h"

static char dir[256];
static char err[PATH_MAX + 256];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(dir, sizeof(dir), "outfile");
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

/* DIR/NAME into BUF. */
static const char *at(char *buf, size_t len, const char *name)
{
	tmpdir_join(buf, len, dir, name);
	return buf;
}

/* The whole content of PATH ("" when it cannot be read). */
static const char *content(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

/* How many entries of directory PATH start with '.' (besides . and ..). */
static int hidden(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void put(struct outfile *o, const char *text)
{
	assert_int_equal(write(o->fd, text, strlen(text)), (ssize_t)strlen(text));
}

static void test_new_file(void **state)
{
	char path[PATH_MAX];
	struct outfile o;
	struct stat st;
	mode_t mask = umask(0);

	(void)state;
	umask(mask);
	at(path, sizeof(path), "new.txt");
	assert_int_equal(outfile_open(&o, path, 0, err, sizeof(err)), 0);
	put(&o, "new\n");
	/* nothing at the destination until commit */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(hidden(dir), 1);
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), 0);
	assert_string_equal(content(path), "new\n");
	assert_int_equal(hidden(dir), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644 & ~mask);
	unlink(path);
}

static void test_exists_without_force(void **state)
{
	char path[PATH_MAX];
	struct outfile o;

	(void)state;
	at(path, sizeof(path), "keep.txt");
	tmpdir_write(path, "precious\n");
	assert_int_equal(outfile_open(&o, path, 0, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "keep.txt exists"));
	assert_string_equal(content(path), "precious\n");
	assert_int_equal(hidden(dir), 0);
	unlink(path);
}

static void test_force_replaces_with_mode(void **state)
{
	char path[PATH_MAX];
	struct outfile o;
	struct stat st;

	(void)state;
	at(path, sizeof(path), "old.txt");
	tmpdir_write(path, "old\n");
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), 0);
	put(&o, "new\n");
	assert_string_equal(content(path), "old\n");
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), 0);
	assert_string_equal(content(path), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(hidden(dir), 0);
	unlink(path);
}

static void test_discard_keeps_old(void **state)
{
	char path[PATH_MAX];
	struct outfile o;

	(void)state;
	at(path, sizeof(path), "old.txt");
	tmpdir_write(path, "old\n");
	assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), 0);
	put(&o, "half of a new");
	outfile_discard(&o);
	assert_string_equal(content(path), "old\n");
	assert_int_equal(hidden(dir), 0);
	/* a new file discarded: nothing at all */
	unlink(path);
	assert_int_equal(outfile_open(&o, path, 0, err, sizeof(err)), 0);
	put(&o, "half");
	outfile_discard(&o);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(hidden(dir), 0);
}

static void test_symlink_target_replaced(void **state)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct outfile o;
	struct stat st;

	(void)state;
	at(target, sizeof(target), "target.txt");
	at(path, sizeof(path), "link.txt");
	tmpdir_write(target, "old\n");
	assert_int_equal(symlink("target.txt", path), 0);
	assert_int_equal(outfile_open(&o, path, 0, err, sizeof(err)), -EEXIST);
	assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), 0);
	put(&o, "new\n");
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(content(target), "new\n");
	assert_int_equal(hidden(dir), 0);
	unlink(path);
	unlink(target);
}

static void test_device_in_place(void **state)
{
	struct outfile o;

	(void)state;
	assert_int_equal(outfile_open(&o, "/dev/null", 0, err, sizeof(err)), -EEXIST);
	assert_int_equal(outfile_open(&o, "/dev/null", 1, err, sizeof(err)), 0);
	assert_string_equal(o.tmp, "");
	put(&o, "nothing\n");
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), 0);
}

static void test_appeared_meanwhile(void **state)
{
	char path[PATH_MAX];
	struct outfile o;

	(void)state;
	at(path, sizeof(path), "race.txt");
	assert_int_equal(outfile_open(&o, path, 0, err, sizeof(err)), 0);
	put(&o, "ours\n");
	tmpdir_write(path, "theirs\n");
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), -EEXIST);
	assert_string_equal(content(path), "theirs\n");
	assert_int_equal(hidden(dir), 0);
	unlink(path);
}

static void test_errors(void **state)
{
	char path[PATH_MAX];
	struct outfile o;

	(void)state;
	at(path, sizeof(path), "no-such-dir/out.txt");
	assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot write"));
	assert_int_equal(outfile_open(&o, dir, 1, err, sizeof(err)), -EISDIR);
	at(path, sizeof(path), "dangling");
	assert_int_equal(symlink("nowhere", path), 0);
	assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "symbolic link"));
	unlink(path);
	/* a file we may not write is not replaced (root may write any) */
	if (geteuid() != 0) {
		at(path, sizeof(path), "readonly.txt");
		tmpdir_write(path, "mine\n");
		assert_int_equal(chmod(path, 0444), 0);
		assert_int_equal(outfile_open(&o, path, 1, err, sizeof(err)), -EACCES);
		assert_string_equal(content(path), "mine\n");
		assert_int_equal(hidden(dir), 0);
		unlink(path);
	}
}

/* ---- directories: a writer's entries "a" (a file) and "b" (a directory with b/1) ---- */

/* The writer's remover: its files, and the directory when that leaves it empty. */
static int remover(const char *d)
{
	char p[PATH_MAX];

	tmpdir_join(p, sizeof(p), d, "a");
	unlink(p);
	tmpdir_join(p, sizeof(p), d, "b/1");
	unlink(p);
	tmpdir_join(p, sizeof(p), d, "b");
	rmdir(p);
	rmdir(d);
	return 0;
}

static void write_entries(const char *d, const char *text)
{
	char p[PATH_MAX];

	tmpdir_join(p, sizeof(p), d, "a");
	tmpdir_write(p, text);
	tmpdir_join(p, sizeof(p), d, "b");
	assert_int_equal(mkdir(p, 0755), 0);
	tmpdir_join(p, sizeof(p), d, "b/1");
	tmpdir_write(p, text);
}

static const char *const entries[] = {"b", "a"};

static void test_dir_new(void **state)
{
	char path[PATH_MAX], p[PATH_MAX + 64];
	struct outdir od;

	(void)state;
	at(path, sizeof(path), "archive");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), 0);
	assert_int_equal(od.made, 1);
	write_entries(od.tmp, "new");
	assert_int_equal(outdir_commit(&od, entries, 2, remover, err, sizeof(err)), 0);
	tmpdir_join(p, sizeof(p), path, "b/1");
	assert_string_equal(content(p), "new");
	assert_int_equal(hidden(path), 0);
	remover(path);
	/* discarded: the directory made for it goes too */
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), 0);
	write_entries(od.tmp, "new");
	outdir_discard(&od, remover);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_dir_replace(void **state)
{
	char path[PATH_MAX], p[PATH_MAX + 64];
	struct outdir od;

	(void)state;
	at(path, sizeof(path), "archive");
	assert_int_equal(mkdir(path, 0755), 0);
	write_entries(path, "old");
	tmpdir_join(p, sizeof(p), path, "user.html");
	tmpdir_write(p, "mine");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), 0);
	assert_int_equal(od.made, 0);
	write_entries(od.tmp, "new");
	assert_int_equal(outdir_commit(&od, entries, 2, remover, err, sizeof(err)), 0);
	tmpdir_join(p, sizeof(p), path, "a");
	assert_string_equal(content(p), "new");
	tmpdir_join(p, sizeof(p), path, "b/1");
	assert_string_equal(content(p), "new");
	tmpdir_join(p, sizeof(p), path, "user.html");
	assert_string_equal(content(p), "mine");
	assert_int_equal(hidden(path), 0);
	/* the old b held a file the remover does not know: kept, and said */
	tmpdir_join(p, sizeof(p), path, "b/notes");
	tmpdir_write(p, "mine too");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), 0);
	write_entries(od.tmp, "newer");
	assert_int_equal(outdir_commit(&od, entries, 2, remover, err, sizeof(err)), 1);
	assert_non_null(strstr(err, ".perfscope-old."));
	tmpdir_join(p, sizeof(p), path, "b/1");
	assert_string_equal(content(p), "newer");
	assert_int_equal(hidden(path), 1);
	assert_int_equal(tmpdir_remove(path), 0);
}

static void test_dir_commit_fails(void **state)
{
	char path[PATH_MAX], p[PATH_MAX + 64];
	struct outdir od;

	(void)state;
	at(path, sizeof(path), "archive");
	assert_int_equal(mkdir(path, 0755), 0);
	write_entries(path, "old");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), 0);
	/* the writer made b but not a: the move of a fails after b was moved in */
	tmpdir_join(p, sizeof(p), od.tmp, "b");
	assert_int_equal(mkdir(p, 0755), 0);
	tmpdir_join(p, sizeof(p), od.tmp, "b/1");
	tmpdir_write(p, "new");
	assert_int_equal(outdir_commit(&od, entries, 2, remover, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/a"));
	tmpdir_join(p, sizeof(p), path, "a");
	assert_string_equal(content(p), "old");
	tmpdir_join(p, sizeof(p), path, "b/1");
	assert_string_equal(content(p), "old");
	assert_int_equal(hidden(path), 0);
	remover(path);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_dir_errors(void **state)
{
	char path[PATH_MAX];
	struct outdir od;

	(void)state;
	at(path, sizeof(path), "file");
	tmpdir_write(path, "x");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), -ENOTDIR);
	unlink(path);
	at(path, sizeof(path), "no/such/dir");
	assert_int_equal(outdir_open(&od, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot write"));
}

static void test_rename_noreplace(void **state)
{
	char a[PATH_MAX], b[PATH_MAX];

	(void)state;
	at(a, sizeof(a), "ra");
	at(b, sizeof(b), "rb");
	tmpdir_write(a, "a");
	tmpdir_write(b, "b");
	assert_int_equal(rename_noreplace(AT_FDCWD, a, AT_FDCWD, b), -EEXIST);
	assert_string_equal(content(b), "b");
	unlink(b);
	assert_int_equal(rename_noreplace(AT_FDCWD, a, AT_FDCWD, b), 0);
	assert_string_equal(content(b), "a");
	assert_int_equal(access(a, F_OK), -1);
	unlink(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_file),
	    cmocka_unit_test(test_exists_without_force),
	    cmocka_unit_test(test_force_replaces_with_mode),
	    cmocka_unit_test(test_discard_keeps_old),
	    cmocka_unit_test(test_symlink_target_replaced),
	    cmocka_unit_test(test_device_in_place),
	    cmocka_unit_test(test_appeared_meanwhile),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_dir_new),
	    cmocka_unit_test(test_dir_replace),
	    cmocka_unit_test(test_dir_commit_fails),
	    cmocka_unit_test(test_dir_errors),
	    cmocka_unit_test(test_rename_noreplace),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
