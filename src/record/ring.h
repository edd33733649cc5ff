/* ring.h - a perf_event ring buffer read from user space: map it on an event's fd and hand
 * every complete record to a callback (records that wrap around the end made contiguous). */
#ifndef PSC_RING_H
#define PSC_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	struct perf_event_mmap_page *page; /* NULL until mapped */
	size_t data_bytes;		   /* a power-of-two number of pages; set before mapping */
	size_t map_bytes;		   /* data_bytes + the control page */
	uint8_t *scratch;		   /* a wrapped record, made contiguous */
};

/* DATA_BYTES of ring data (a power-of-two number of pages) for mapping on an event. */
void perf_ring_init(struct perf_ring *r, size_t data_bytes);

/* Map R on FD; when the locked-memory limit (kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK)
 * refuses it, halve the data size down to 8 pages. 0 or a negative errno. */
int perf_ring_map(struct perf_ring *r, int fd);

/* Call FN with every complete record between the tail and the head, then free them. A
 * non-zero return of FN is kept (the first one) and returned; the records after it are
 * consumed without calling FN. */
int perf_ring_drain(struct perf_ring *r, int (*fn)(void *ctx, const struct perf_event_header *h),
		    void *ctx);

/* Unmap R and free its memory. */
void perf_ring_release(struct perf_ring *r);

/* The online CPUs, from /sys/devices/system/cpu/online ("0-3,8"), or 0..n-1 from sysconf when
 * it cannot be read: their count with the malloc'd list in *OUT, or -ENOMEM. */
int perf_online_cpus(int **out);

#endif /* PSC_RING_H */
