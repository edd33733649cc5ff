/*
 * fcopy.h - copy one file to another (a power meter's log into the experiment, a cached copy
 * of the kernel's symbols where a hard link is not possible).
 */
#ifndef PSC_FCOPY_H
#define PSC_FCOPY_H

#include <sys/types.h>

/* Copy the file FROM to TO, created (or truncated) with MODE. The bytes copied, or a negative
 * errno; TO is removed on error. */
long long file_copy(const char *from, const char *to, mode_t mode);

#endif /* PSC_FCOPY_H */
