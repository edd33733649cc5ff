/*
 * cpuinfo-files.c - the small file readers of cpuinfo-int.h: files below a procfs or sysfs root
 * given by the caller, read with open/read into the caller's buffers (no heap, no stdio), so
 * that they are safe inside the measured process.
 */
#include "pmu/cpuinfo-int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ci_trim_right(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

char *ci_skip_space(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

int ci_open_rel(const char *root, const char *name)
{
	char path[CI_PATH_LEN];
	int n = snprintf(path, sizeof(path), "%s/%s", root, name);
	int fd;

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ci_read_rel with a va_list. */
static int read_relv(char *buf, size_t len, const char *root, const char *fmt, va_list ap)
{
	char path[CI_PATH_LEN];
	size_t used = 0;
	int n, m, fd;

	n = snprintf(path, sizeof(path), "%s/", root);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	m = vsnprintf(path + n, sizeof(path) - n, fmt, ap);
	if (m < 0 || (size_t)m >= sizeof(path) - n)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used + 1 < len) {
		ssize_t r = read(fd, buf + used, len - 1 - used);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			m = -errno;
			close(fd);
			return m;
		}
		if (r == 0)
			break;
		used += (size_t)r;
	}
	close(fd);
	buf[used] = '\0';
	ci_trim_right(buf);
	return (int)strlen(buf);
}

int ci_read_rel(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = read_relv(buf, len, root, fmt, ap);
	va_end(ap);
	return ret;
}

int ci_read_int_rel(int *out, const char *root, const char *fmt, ...)
{
	char buf[32], *end;
	va_list ap;
	long v;
	int ret;

	va_start(ap, fmt);
	ret = read_relv(buf, sizeof(buf), root, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno || *end || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

void ci_copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ---- line reader for /proc files whose size is not known in advance ---- */

#define LINE_CAP (sizeof(((struct ci_line_reader *)0)->buf) - 1)

char *ci_line_next(struct ci_line_reader *lr)
{
	for (;;) {
		char *base = lr->buf + lr->start;
		char *nl = memchr(base, '\n', lr->end - lr->start);
		ssize_t n;

		if (nl || (lr->eof && lr->start < lr->end)) {
			int skip = lr->skipping;

			lr->start = nl ? (size_t)(nl - lr->buf) + 1 : lr->end;
			*(nl ? nl : lr->buf + lr->end) = '\0';
			lr->skipping = 0;
			if (!skip)
				return base;
			continue;
		}
		if (lr->eof)
			return NULL;
		memmove(lr->buf, base, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
		if (lr->end == LINE_CAP) { /* over-long line: return its start, skip the rest */
			int skip = lr->skipping;

			lr->buf[LINE_CAP] = '\0';
			lr->end = 0;
			lr->skipping = 1;
			if (!skip)
				return lr->buf;
			continue;
		}
		n = read(lr->fd, lr->buf + lr->end, LINE_CAP - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			lr->eof = 1;
		else
			lr->end += (size_t)n;
	}
}

char *ci_kv_split(char *line, char **val)
{
	char *colon = strchr(line, ':');

	if (!colon)
		return NULL;
	*colon = '\0';
	ci_trim_right(line);
	*val = ci_skip_space(colon + 1);
	ci_trim_right(*val);
	return line;
}
