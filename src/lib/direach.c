/*
 * direach.c - directory entries through getdents64 into a buffer on the stack (direach.h).
 */
#include "lib/direach.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct linux_dirent64, which glibc before 2.30 does not declare. */
struct dirent64_rec {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

int dir_each(const char *path, int (*fn)(const char *name, void *arg), void *arg)
{
	_Alignas(8) char buf[4096];
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0, saved;

	if (fd < 0)
		return -errno;
	while (!ret) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		for (long at = 0; at < n && !ret;) {
			const struct dirent64_rec *d = (const void *)(buf + at);

			at += d->reclen;
			if (strcmp(d->name, ".") && strcmp(d->name, ".."))
				ret = fn(d->name, arg);
		}
	}
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}
