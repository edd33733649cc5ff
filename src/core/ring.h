/*
 * ring.h - reading a perf_event ring buffer (the records the kernel writes into an event's
 * mmap'd buffer: PERF_RECORD_READ, COMM, LOST, and samples).
 */
#ifndef PSC_RING_H
#define PSC_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;    /* data area bytes, a power of two */
	size_t mapped;  /* whole mapping */
	unsigned char *copy; /* a record that wraps around the end is copied here */
	size_t copy_cap;
};

/* Map FD's ring buffer with DATA_PAGES pages of data (a power of two). 0 or negative errno. */
int ring_map(struct ring *r, int fd, unsigned data_pages);

/* Hand every record written since the last call to FN (a contiguous copy when it wraps),
 * then release the space. Stops early when FN returns non-zero and returns that value. */
int ring_drain(struct ring *r, int (*fn)(void *ctx, const struct perf_event_header *h),
	       void *ctx);

void ring_unmap(struct ring *r);

#endif /* PSC_RING_H */
