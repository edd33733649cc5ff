/*
 * direach.h - the entries of a directory without the heap: opendir() allocates with malloc,
 * which the runtime must not call (the measured program may define malloc itself).
 */
#ifndef PSC_DIREACH_H
#define PSC_DIREACH_H

/*
 * Call FN(NAME, ARG) for each entry of the directory PATH but "." and "..", in the order the
 * file system gives. Stops at the first nonzero return of FN and returns it; 0 after the last
 * entry; -errno when PATH cannot be opened or read.
 */
int dir_each(const char *path, int (*fn)(const char *name, void *arg), void *arg);

#endif /* PSC_DIREACH_H */
