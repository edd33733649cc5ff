/* ring.c - perf_event ring buffer reader. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring_map(struct ring *r, int fd, unsigned data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	if (data_pages == 0 || (data_pages & (data_pages - 1)))
		return -EINVAL;
	r->mapped = page * (1 + (size_t)data_pages);
	p = mmap(NULL, r->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->meta = p;
	r->data = (unsigned char *)p + page;
	r->size = page * data_pages;
	return 0;
}

int ring_drain(struct ring *r, int (*fn)(void *ctx, const struct perf_event_header *h),
	       void *ctx)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	int ret = 0;

	while (tail < head && ret == 0) {
		size_t off = (size_t)(tail & (r->size - 1));
		const struct perf_event_header *h = (const void *)(r->data + off);
		struct perf_event_header hdr;

		/* the header itself may wrap: copy it out byte-wise */
		for (size_t i = 0; i < sizeof(hdr); i++)
			((unsigned char *)&hdr)[i] = r->data[(off + i) & (r->size - 1)];
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break;
		if (off + hdr.size > r->size) {
			if (hdr.size > r->copy_cap) {
				unsigned char *c = realloc(r->copy, hdr.size);

				if (!c)
					return -ENOMEM;
				r->copy = c;
				r->copy_cap = hdr.size;
			}
			for (size_t i = 0; i < hdr.size; i++)
				r->copy[i] = r->data[(off + i) & (r->size - 1)];
			h = (const void *)r->copy;
		}
		ret = fn(ctx, h);
		tail += hdr.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

void ring_unmap(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->mapped);
	free(r->copy);
	memset(r, 0, sizeof(*r));
}
