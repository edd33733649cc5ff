/* outfile.c - output files and directories written aside (outfile.h). */
#include "lib/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rename_noreplace(int fromfd, const char *from, int tofd, const char *to)
{
	struct stat st;

	if (renameat2(fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -errno;
	/* no rename flags on this file system: a hard link cannot replace anything either */
	if (linkat(fromfd, from, tofd, to, 0) == 0) {
		unlinkat(fromfd, from, 0);
		return 0;
	}
	if (errno == EEXIST)
		return -EEXIST;
	/* a directory, or a file system without hard links */
	if (fstatat(tofd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(fromfd, from, tofd, to) < 0 ? -errno : 0;
}

int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = d != NULL;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

/* DIR and the base name of PATH: DIR is "." for a bare name. */
static void split(const char *path, char *dir, size_t dirlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dirlen, ".");
		*base = path;
	} else {
		snprintf(dir, dirlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

/* Create the temporary file of O in DIR, named after BASE: its descriptor, or -errno. */
static int create_tmp(struct outfile *o, const char *dir, const char *base, mode_t mode)
{
	for (unsigned n = 0; n < 1000; n++) {
		int fd, len;

		/* hidden, and short enough for NAME_MAX whatever BASE is */
		len = n ? snprintf(o->tmp, sizeof(o->tmp), "%s/.%.200s.tmp%d-%u", dir, base,
				   (int)getpid(), n)
			: snprintf(o->tmp, sizeof(o->tmp), "%s/.%.200s.tmp%d", dir, base,
				   (int)getpid());
		if (len < 0 || (size_t)len >= sizeof(o->tmp))
			return -ENAMETOOLONG;
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int outfile_open(struct outfile *o, const char *path, int force, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat st, lst;
	int fd, have_old = 0;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->force = force;
	if (strlen(path) >= sizeof(o->path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (lstat(path, &lst) < 0) {
		if (errno != ENOENT) {
			int e = errno;

			snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
			return -e;
		}
		snprintf(o->path, sizeof(o->path), "%s", path);
	} else if (!force) {
		snprintf(err, errlen, "%s exists", path);
		return -EEXIST;
	} else if (stat(path, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write %s: %s", path,
			 e == ENOENT ? "a symbolic link to nothing" : strerror(e));
		return -e;
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(EISDIR));
		return -EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		/* a device or a pipe: nothing to replace */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			int e = errno;

			snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
			return -e;
		}
		snprintf(o->path, sizeof(o->path), "%s", path);
		return 0;
	} else if ((S_ISLNK(lst.st_mode) && !realpath(path, o->path)) ||
		   faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0) {
		/* a file we may not write is not replaced either */
		int e = errno;

		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
		return -e;
	} else {
		if (!S_ISLNK(lst.st_mode))
			snprintf(o->path, sizeof(o->path), "%s", path);
		have_old = 1;
	}
	split(o->path, dir, sizeof(dir), &base);
	fd = create_tmp(o, dir, base, have_old ? 0600 : 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: cannot create a file in %s: %s", path, dir,
			 strerror(-fd));
		o->tmp[0] = 0;
		return fd;
	}
	o->fd = fd;
	if (have_old) {
		/* the replacement keeps the mode and, where allowed, the owner of the file */
		if (fchmod(fd, st.st_mode & 0777) < 0) {
			int e = errno;

			outfile_discard(o);
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
			return -e;
		}
		if (st.st_uid != geteuid() || st.st_gid != getegid())
			if (fchown(fd, st.st_uid, st.st_gid) < 0)
				errno = 0;
	}
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int ret = 0;

	if (o->fd >= 0 && close(o->fd) < 0)
		ret = -errno;
	o->fd = -1;
	if (!o->tmp[0]) {
		if (ret)
			snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-ret));
		return ret;
	}
	if (!ret)
		ret = o->force ? (rename(o->tmp, o->path) < 0 ? -errno : 0)
			       : rename_noreplace(AT_FDCWD, o->tmp, AT_FDCWD, o->path);
	if (ret == -EEXIST && !o->force)
		snprintf(err, errlen, "%s exists", o->path);
	else if (ret)
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-ret));
	if (ret)
		unlink(o->tmp);
	o->tmp[0] = 0;
	return ret;
}

void outfile_discard(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}

int outdir_open(struct outdir *o, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int e;

	memset(o, 0, sizeof(*o));
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%s/.perfscope-new.XXXXXX", path) >=
		(int)sizeof(o->tmp)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (mkdir(path, 0777) == 0)
		o->made = 1;
	else if (errno != EEXIST || (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)))
		goto fail;
	if (mkdtemp(o->tmp))
		return 0;
fail:
	e = errno == EEXIST ? ENOTDIR : errno;
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
	if (o->made)
		rmdir(path);
	o->made = 0;
	o->tmp[0] = 0;
	return -e;
}

/* Where an entry of outdir_commit is. */
enum { OLD_ASIDE = 1, NEW_IN = 2 };

int outdir_commit(struct outdir *o, const char *const *names, size_t n, int (*rm)(const char *dir),
		  char *err, size_t errlen)
{
	char old[PATH_MAX + 32] = "";
	int newfd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dirfd = open(o->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned char *where = calloc(n + 1, 1);
	int oldfd = -1, ret = 0;
	size_t i = 0;
	struct stat st;

	if (newfd < 0 || dirfd < 0 || !where) {
		ret = !where ? -ENOMEM : -errno;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-ret));
		goto undo;
	}
	for (i = 0; i < n; i++) {
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (oldfd < 0) {
				snprintf(old, sizeof(old), "%s/.perfscope-old.XXXXXX", o->path);
				if (!mkdtemp(old) ||
				    (oldfd = open(old, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
					ret = -errno;
					snprintf(err, errlen, "cannot write %s: %s", o->path,
						 strerror(-ret));
					goto undo;
				}
			}
			ret = rename_noreplace(dirfd, names[i], oldfd, names[i]);
			if (ret)
				break;
			where[i] |= OLD_ASIDE;
		} else if (errno != ENOENT) {
			ret = -errno;
			break;
		}
		ret = rename_noreplace(newfd, names[i], dirfd, names[i]);
		if (ret)
			break;
		where[i] |= NEW_IN;
	}
	if (ret) {
		snprintf(err, errlen, "cannot replace %s/%s: %s", o->path, names[i],
			 strerror(-ret));
		goto undo;
	}
	close(newfd);
	close(dirfd);
	free(where);
	rmdir(o->tmp);
	if (oldfd >= 0) {
		close(oldfd);
		rm(old);
		if (rmdir(old) < 0 && errno != ENOENT) {
			snprintf(err, errlen,
				 "the replaced %s kept files perfscope did not write: in %s",
				 o->path, old);
			return 1;
		}
	}
	return 0;
undo:
	/* back as it was: the new entries into the temporary directory, the old ones in place */
	for (size_t j = i + 1; where && j-- > 0;) {
		if (where[j] & NEW_IN)
			rename_noreplace(dirfd, names[j], newfd, names[j]);
		if (where[j] & OLD_ASIDE)
			rename_noreplace(oldfd, names[j], dirfd, names[j]);
	}
	if (old[0])
		rmdir(old);
	if (oldfd >= 0)
		close(oldfd);
	if (newfd >= 0)
		close(newfd);
	if (dirfd >= 0)
		close(dirfd);
	free(where);
	outdir_discard(o, rm);
	return ret;
}

void outdir_discard(struct outdir *o, int (*rm)(const char *dir))
{
	if (o->tmp[0]) {
		rm(o->tmp);
		rmdir(o->tmp);
	}
	if (o->made)
		rmdir(o->path);
	o->tmp[0] = 0;
	o->made = 0;
}
