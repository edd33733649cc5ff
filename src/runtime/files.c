/*
 * files.c - every file the runtime creates or writes in the experiment directory goes through
 * here: the directory is checked to be the one the session trusted at start, and each file is
 * opened relative to it, never through a symbolic link, and never one that another user owns.
 */
#include "runtime/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A directory nobody else can change: ours, and writable by nobody else unless sticky (then
 * nobody else can remove or rename our entries, and O_EXCL keeps us out of theirs). */
static int dir_trusted(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode) || st->st_uid != geteuid())
		return 0;
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX);
}

int rt_dir_trust(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) || !dir_trusted(&st))
		return -EPERM;
	psc_session.dir_dev = st.st_dev;
	psc_session.dir_ino = st.st_ino;
	return 0;
}

/* The session's directory, opened and checked to be the one trusted at start. */
static int dir_open(void)
{
	int fd = open(psc_session.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != psc_session.dir_dev ||
	    st.st_ino != psc_session.dir_ino || !dir_trusted(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int rt_open(const char *name, int flags, mode_t mode)
{
	int dfd = dir_open(), fd, err;
	struct stat st;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = errno;
	close(dfd);
	if (fd < 0)
		return -err;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return fd; /* made just now, by us */
	/* an existing file: ours, a plain file, and not a hard link to someone's file */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int rt_unlink(const char *name)
{
	int dfd = dir_open(), ret;

	if (dfd < 0)
		return dfd;
	ret = unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	close(dfd);
	return ret;
}

int rt_rename(const char *from, const char *to, int exclusive)
{
	int dfd = dir_open(), ret;

	if (dfd < 0)
		return dfd;
	/* link fails when TO exists: the first process of the experiment wins */
	if (exclusive)
		ret = linkat(dfd, from, dfd, to, 0) < 0 ? -errno : 0;
	else
		ret = renameat(dfd, from, dfd, to) < 0 ? -errno : 0;
	close(dfd);
	return ret;
}

int rt_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
