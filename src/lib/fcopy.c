/* fcopy.c - copy one file to another (fcopy.h). */
#include "lib/fcopy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* Bytes read and written at a time. */
#define FCOPY_BUF_BYTES (1u << 20)

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

long long file_copy(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	long long total = 0;
	char *buf;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	buf = malloc(FCOPY_BUF_BYTES);
	if (out < 0 || !buf) {
		int e = out < 0 ? errno : ENOMEM;

		free(buf);
		close(in);
		if (out >= 0) {
			close(out);
			unlink(to);
		}
		return -e;
	}
	while ((n = read(in, buf, FCOPY_BUF_BYTES)) > 0) {
		int ret = fd_write_all(out, buf, (size_t)n);

		if (ret < 0) {
			total = ret;
			break;
		}
		total += n;
	}
	if (n < 0)
		total = -errno;
	free(buf);
	close(in);
	if (close(out) && total >= 0)
		total = -errno;
	if (total < 0)
		unlink(to);
	return total;
}
