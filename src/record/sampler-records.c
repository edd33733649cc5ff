/* sampler-records.c - the sampler's ring buffer records decoded into the samples file. */
#include "record/sampler.h"
#include "record/sample-out.h"
#include "record/sampler-int.h"

#include "format/format.h"

#include <string.h>
#include <sys/mman.h>

static int group_of_id(const struct sampler *s, const struct sampler_cpu *cpu, uint64_t id)
{
	for (uint32_t g = 0; g < s->ngroups; g++)
		if (cpu->id[g] == id)
			return (int)g;
	return -1;
}

size_t sampler_chain(const uint64_t *chain, size_t n, uint64_t ip, uint64_t *out, size_t cap,
		     unsigned *nkernel)
{
	uint64_t ctx = 0;
	size_t m = 0, user = 0;
	int first = 1;

	*nkernel = 0;
	for (size_t k = 0; k < n && m < cap; k++) {
		uint64_t a = chain[k];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = a;
			first = 1;
			continue;
		}
		/* each context's first entry is where it was interrupted: the IP for its own */
		if (first && a == ip) {
			first = 0;
			continue;
		}
		first = 0;
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL) {
			/* kernel frames come first, and at most what word 2 can count */
			if (user || *nkernel == PSC_SAMPLE_KFRAMES_MAX)
				continue;
			++*nkernel;
		} else if (ctx == (uint64_t)PERF_CONTEXT_USER || (!ctx && !(a >> 63))) {
			user++;
		} else {
			continue; /* hypervisor and guest contexts */
		}
		out[m++] = a;
	}
	return m;
}

static int take_sample(struct sampler *s, struct sampler_cpu *cpu,
		       const struct perf_event_header *h)
{
	const uint64_t *w = (const uint64_t *)(h + 1),
		       *end = (const uint64_t *)((const uint8_t *)h + h->size);
	uint64_t p[3 + 3 + 64 + 256];
	uint64_t id, ip, pidtid, ns, cpuw, nr, nchain = 0;
	unsigned nkernel = 0;
	size_t np = 0;
	int g;

	if (w + 8 > end)
		return 0;
	id = *w++;
	ip = *w++;
	pidtid = *w++;
	ns = *w++;
	cpuw = *w++ & 0xffffu;
	nr = w[0];
	g = group_of_id(s, cpu, id);
	if (g < 0 || nr != s->groups[g].n || nr > 64 || w + 3 + 2 * nr > end)
		return 0;
	p[np++] = pidtid;
	p[np++] = ip;
	p[np++] = cpuw | ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL
			      ? (uint64_t)PSC_SAMPLE_KERNEL << 16
			      : 0);
	p[np++] = nr;
	p[np++] = w[1];
	p[np++] = w[2];
	for (uint64_t k = 0; k < nr; k++)
		p[np++] = w[3 + 2 * k];
	w += 3 + 2 * nr;
	if (s->cfg.callgraph && w < end) {
		uint64_t n = *w++;

		if (n > (uint64_t)(end - w))
			n = (uint64_t)(end - w);
		nchain = sampler_chain(w, (size_t)n, ip, p + np, sizeof(p) / sizeof(p[0]) - np,
				       &nkernel);
		np += nchain;
	}
	p[2] |= (uint64_t)nkernel << PSC_SAMPLE_KFRAMES_SHIFT | nchain << 32;
	s->samples++;
	return sample_out_add(s->out, ns, PSC_REC_SAMPLE, (uint32_t)g, p, np);
}

/* The sample_id_all trailer of a non-sample record. */
static void trailer(const struct perf_event_header *h, uint64_t *pidtid, uint64_t *ns,
		    uint32_t *cpu)
{
	const uint64_t *t = (const uint64_t *)((const uint8_t *)h + h->size - TRAILER_BYTES);

	*pidtid = t[0];
	*ns = t[1];
	*cpu = (uint32_t)t[2];
}

/* An executable mapping (PERF_RECORD_MMAP2 H at time NS) into the pmaps file; others are left
 * out. */
static int take_mmap2(struct sampler *s, const struct perf_event_header *h, uint64_t ns)
{
	const uint32_t *u = (const uint32_t *)(h + 1);
	const uint64_t *q = (const uint64_t *)(u + 2);
	/* pid, tid, addr, len, pgoff, then maj, min, ino, ino_generation or (MMAP_BUILD_ID)
	 * build_id_size, 3 reserved bytes, build_id[20]; prot, flags, name */
	const uint32_t *pf = (const uint32_t *)(q + 6);
	const char *name = (const char *)(pf + 2);
	const char *limit = (const char *)h + h->size - TRAILER_BYTES;
	struct sample_mmap_id id = {0};

	if (name >= limit || !memchr(name, 0, (size_t)(limit - name)))
		return 0;
	if (!(pf[0] & PROT_EXEC))
		return 0;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		const uint8_t *b = (const uint8_t *)(q + 3);

		id.build_id_len = b[0] < sizeof(id.build_id) ? b[0] : sizeof(id.build_id);
		memcpy(id.build_id, b + 4, id.build_id_len);
	} else {
		id.maj = ((const uint32_t *)(q + 3))[0];
		id.min = ((const uint32_t *)(q + 3))[1];
		id.ino = q[4];
		id.has_ino = 1;
	}
	return sample_out_add_mmap_id(s->out, ns, (pid_t)u[0], q[0], q[1], q[2], pf[0], pf[1], &id,
				      name);
}

int sampler_take_record(struct sampler *s, struct sampler_cpu *cpu,
			const struct perf_event_header *h)
{
	const uint32_t *u = (const uint32_t *)(h + 1);
	uint64_t pidtid, ns, p[2 + 8] = {0};
	uint32_t arg, cpuno;

	if (h->type == PERF_RECORD_SAMPLE)
		return take_sample(s, cpu, h);
	if (h->size < sizeof(*h) + TRAILER_BYTES)
		return 0;
	trailer(h, &pidtid, &ns, &cpuno);
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		return take_mmap2(s, h, ns);
	case PERF_RECORD_COMM: {
		const char *name = (const char *)(u + 2);
		size_t len = strnlen(name, 16);

		p[0] = u[0] | (uint64_t)u[1] << 32;
		memcpy(p + 1, name, len);
		arg = (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? PSC_TASK_EXEC : PSC_TASK_COMM;
		return sample_out_add(s->out, ns, PSC_REC_TASK, arg, p, 1 + (len + 8) / 8);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* pid, ppid, tid, ptid, time */
		p[0] = u[0] | (uint64_t)u[2] << 32;
		p[1] = u[1] | (uint64_t)u[3] << 32;
		ns = *(const uint64_t *)(u + 4);
		return sample_out_add(s->out, ns, PSC_REC_TASK,
				      h->type == PERF_RECORD_FORK ? PSC_TASK_FORK : PSC_TASK_EXIT,
				      p, 2);
	case PERF_RECORD_LOST:
		p[0] = *(const uint64_t *)(u + 2);
		p[1] = 0;
		s->lost += p[0];
		return sample_out_add(s->out, ns, PSC_REC_LOST, 0, p, 2);
	case PERF_RECORD_LOST_SAMPLES:
		p[0] = *(const uint64_t *)u;
		p[1] = 0;
		s->lost += p[0];
		return sample_out_add(s->out, ns, PSC_REC_LOST, 0, p, 2);
	case PERF_RECORD_SWITCH:
		arg = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? PSC_SWITCH_OUT : 0;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			arg |= PSC_SWITCH_PREEMPT;
		return sample_out_add(s->out, ns, PSC_REC_SWITCH, (cpuno & 0xffffu) | arg << 16,
				      &pidtid, 1);
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		s->throttled += h->type == PERF_RECORD_THROTTLE;
		p[0] = pidtid;
		return sample_out_add(s->out, ns, PSC_REC_THROTTLE, h->type == PERF_RECORD_THROTTLE,
				      p, 1);
	default:
		return 0;
	}
}
