/*
 * stream-int.h - what the stream reader's files share (stream.c: records and their checks,
 * stream-chunk.c: loading chunks, in this thread or in a prefetch thread). Only they include
 * it.
 */
#ifndef PSC_STREAM_INT_H
#define PSC_STREAM_INT_H

#include "format/stream.h"

/* Format "PATH: byte OFFSET: message" into ERR; returns CODE. */
int stream_fail(char *err, size_t errlen, int code, const char *path, uint64_t offset,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* 1 when all LEN bytes at OFFSET of FD were read, 0 when the file ends first, or a negative
 * errno. */
int stream_read_at(int fd, void *buf, size_t len, uint64_t offset);

/*
 * Make the chunk at r->offset (sequence r->next_seq) the current one: 1 loaded, 0 end of the
 * valid data (r->truncated_at set when a chunk was cut short), or a negative errno with
 * "PATH: byte N: ..." in ERR. The same result, message and offset whether the chunk was read
 * here or by the prefetch thread.
 */
int stream_load_chunk(struct stream_reader *r, char *err, size_t errlen);

/* Stop and join R's prefetch thread, if any, and free its buffers. */
void stream_prefetch_stop(struct stream_reader *r);

#endif /* PSC_STREAM_INT_H */
