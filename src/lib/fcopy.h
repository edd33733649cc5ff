/*
 * fcopy.h - copy one file to another (a power meter's log into the experiment, a cached copy
 * of the kernel's symbols where a hard link is not possible), and write a whole buffer.
 */
#ifndef PSC_FCOPY_H
#define PSC_FCOPY_H

#include <stddef.h>
#include <sys/types.h>

/* Write the LEN bytes at BUF to FD, going on after short writes and EINTR. 0, or a negative
 * errno: that of the write that failed (a short write sets none; a full disk fails the next). */
int fd_write_all(int fd, const void *buf, size_t len);

/* Copy the file FROM to TO, created (or truncated) with MODE. The bytes copied, or a negative
 * errno; TO is removed on error. */
long long file_copy(const char *from, const char *to, mode_t mode);

#endif /* PSC_FCOPY_H */
