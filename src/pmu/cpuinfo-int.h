/*
 * cpuinfo-int.h - reading small procfs and sysfs files below a root directory, shared by
 * cpuinfo.c (CPU identification) and perf-state.c (perf subsystem state): not for other callers.
 * None of it allocates; paths are built on the stack.
 */
#ifndef PSC_CPUINFO_INT_H
#define PSC_CPUINFO_INT_H

#include <stddef.h>

#define CI_PATH_LEN 1024

/* Remove trailing whitespace from S in place. */
void ci_trim_right(char *s);

/* S past its leading whitespace. */
char *ci_skip_space(char *s);

/* Copy SRC into DST of LEN bytes (LEN > 0), truncating; always NUL-terminated. */
void ci_copy_str(char *dst, size_t len, const char *src);

/* Open ROOT/NAME read-only; returns the fd or -errno. */
int ci_open_rel(const char *root, const char *name);

/* Read the small file ROOT/FMT... into BUF, NUL-terminated, trailing whitespace removed.
 * Returns the length or -errno. */
int ci_read_rel(char *buf, size_t len, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read the decimal int in ROOT/FMT...; returns 0 or -errno. */
int ci_read_int_rel(int *out, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Line reader for /proc files whose size is not known in advance; set fd, zero the rest. */
struct ci_line_reader {
	int fd;
	int eof;
	int skipping; /* discarding the rest of an over-long line */
	size_t start, end;
	char buf[4096];
};

/* Next line, NUL-terminated in place without its newline; NULL at the end. A line longer than
 * the buffer is returned truncated and its rest skipped. */
char *ci_line_next(struct ci_line_reader *lr);

/* Split "key<ws>: value" in place; returns the key or NULL when the line has no colon. */
char *ci_kv_split(char *line, char **val);

#endif /* PSC_CPUINFO_INT_H */
