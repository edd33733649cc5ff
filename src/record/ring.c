/* ring.c - reading perf_event ring buffers (the sampler's and stat --per-thread's). */
#include "record/ring.h"
#include "lib/array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Largest record: the header's size is 16 bits. */
#define RECORD_MAX 65536

void perf_ring_init(struct perf_ring *r, size_t data_bytes)
{
	memset(r, 0, sizeof(*r));
	r->data_bytes = data_bytes;
	r->map_bytes = data_bytes + (size_t)sysconf(_SC_PAGESIZE);
}

int perf_ring_map(struct perf_ring *r, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	r->scratch = malloc(RECORD_MAX);
	if (!r->scratch)
		return -ENOMEM;
	for (;;) {
		p = mmap(NULL, r->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED)
			break;
		if (errno != EPERM || r->data_bytes <= 8 * page)
			return -errno;
		r->data_bytes /= 2;
		r->map_bytes = r->data_bytes + page;
	}
	r->page = p;
	return 0;
}

static const uint8_t *ring_record(struct perf_ring *r, uint64_t tail, size_t size)
{
	const uint8_t *data = (const uint8_t *)r->page + (r->map_bytes - r->data_bytes);
	size_t off = (size_t)(tail % r->data_bytes);

	if (off + size <= r->data_bytes)
		return data + off;
	memcpy(r->scratch, data + off, r->data_bytes - off);
	memcpy(r->scratch + (r->data_bytes - off), data, size - (r->data_bytes - off));
	return r->scratch;
}

int perf_ring_drain(struct perf_ring *r, int (*fn)(void *ctx, const struct perf_event_header *h),
		    void *ctx)
{
	struct perf_event_mmap_page *pc = r->page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	int ret = 0;

	while (tail < head) {
		const struct perf_event_header *h = (const void *)ring_record(r, tail, sizeof(*h));
		size_t size = h->size;

		if (size < sizeof(*h) || size > head - tail)
			break;
		h = (const void *)ring_record(r, tail, size);
		if (!ret)
			ret = fn(ctx, h);
		tail += size;
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	return ret;
}

void perf_ring_release(struct perf_ring *r)
{
	if (r->page)
		munmap(r->page, r->map_bytes);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

int perf_online_cpus(int **out)
{
	char buf[4096];
	int n = 0, *v = NULL;
	size_t cap = 0;
	FILE *f;
	char *p = buf;

	if (ARRAY_GROW(v, 64, cap))
		return -ENOMEM;
	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
	}
	if (f)
		fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++) {
			if (ARRAY_GROW(v, (size_t)n + 1, cap)) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	*out = v;
	return n;
}
