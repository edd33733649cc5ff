/*
 * sampler-int.h - what the sampler's files share (sampler.c opens, drains and finishes;
 * sampler-records.c decodes the ring buffers' records). Not for use outside the sampler.
 */
#ifndef PSC_SAMPLER_INT_H
#define PSC_SAMPLER_INT_H

#include <stdint.h>

#include <linux/perf_event.h>

#include "record/ring.h"
#include "record/sampler.h"

/* sample_id_all trailer of non-sample records: pid/tid, time, cpu, identifier */
#define TRAILER_BYTES 32u

/* One CPU's sampling groups. */
struct sampler_cpu {
	int cpu;
	int *fd;	       /* per event, -1 when not open */
	uint64_t *id;	       /* per group: the kernel id of its leader on this cpu */
	struct perf_ring ring; /* on the first leader; the other leaders write into it */
};

/*
 * Record H, read from the ring of CPU, into S's samples file: samples, executable mappings,
 * task and switch events, losses and throttling (counted in S too); other records are
 * skipped, as is a record too short for what it says. 0, or the negative errno of
 * sample_out_add (out of memory).
 */
int sampler_take_record(struct sampler *s, struct sampler_cpu *cpu,
			const struct perf_event_header *h);

#endif /* PSC_SAMPLER_INT_H */
