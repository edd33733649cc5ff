/*
 * experiment-streams.c - the stream and samples files of an experiment checked before they are
 * read: each stream's process and clock pairs, the files cut short or empty, and the sampling
 * of an experiment whose meta.json does not tell it.
 */
#include "format/experiment-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_stream(const void *a, const void *b)
{
	const struct exp_stream *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The process a stream's clock pairs go to, and whether memory ran out adding one. */
struct pair_sink {
	struct exp_process *p;
	int oom;
};

static void add_pair(void *ctx, uint64_t ticks, uint64_t ns)
{
	struct pair_sink *sink = ctx;
	struct exp_process *p = sink->p;
	struct clock_pair *np = realloc(p->pairs, (p->npairs + 1) * sizeof(*np));

	if (!np) {
		sink->oom = 1;
		return;
	}
	p->pairs = np;
	p->pairs[p->npairs].ticks = ticks;
	p->pairs[p->npairs].ns = ns;
	p->npairs++;
}

/*
 * meta.json has no "sampling": the events of the first samples file's header, named "event0",
 * "event1"... 0 or -ENOMEM (a header that cannot be read leaves the experiment without
 * sampling: the samples walk then says why).
 */
static int sampling_guess(struct experiment *e)
{
	struct exp_sampling *sm = &e->sampling;
	struct stream_reader r;
	char err[256];
	uint32_t n;

	if (stream_open(&r, e->samples[0].path, err, sizeof(err)))
		return 0;
	n = r.hdr.nevents;
	stream_close(&r);
	sm->events = calloc((size_t)n + 1, sizeof(*sm->events));
	sm->states = calloc((size_t)n + 1, sizeof(*sm->states));
	sm->error = strdup("");
	sm->kallsyms_error = strdup("");
	if (!sm->events || !sm->states || !sm->error || !sm->kallsyms_error)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "event%u", i);
		sm->events[i] = strdup(name);
		sm->states[i] = strdup("group");
		sm->nevents = i + 1;
		if (!sm->events[i] || !sm->states[i])
			return -ENOMEM;
	}
	sm->inherit = 1;
	sm->guessed = 1;
	e->has_sampling = 1;
	return 0;
}

int exp_samples_check(struct experiment *e)
{
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < e->nsamples; i++) {
		struct exp_samples *f = &e->samples[i];
		struct stream_extent x = {.want_end = 1};
		struct layout_file pmaps = {.kind = LAYOUT_PMAPS, .pid = (int)f->pid};
		struct layout_file maps = {.kind = LAYOUT_MAPS, .pid = (int)f->pid};
		int exists, left_out;
		uint64_t size = exp_file_size(e->dir, strrchr(f->path, '/') + 1, &exists);
		char name[64], err[256];

		left_out = ret ? 0 : exp_short_file(e, f->path, size, f->pid, 0, 1);
		if (left_out < 0)
			ret = left_out;
		if (left_out > 0) {
			free(f->path);
			continue;
		}
		e->samples[keep++] = *f;
		if (ret)
			continue; /* out of memory: the files are kept to be freed */
		if (stream_scan(f->path, NULL, NULL, &x, err, sizeof(err)) == 0)
			ret = exp_scan_damage(e, f->path, &x, sizeof(struct psc_stream_header),
					      f->pid, 0, 1);
		layout_name(&pmaps, name, sizeof(name));
		exp_file_size(e->dir, name, &exists);
		if (!ret && !exists) {
			layout_name(&maps, name, sizeof(name));
			exp_file_size(e->dir, name, &exists);
			if (!exists) {
				struct exp_damage *d;

				layout_name(&pmaps, name, sizeof(name));
				d = exp_damage_add(e, name, EXP_DAMAGE_MISSING, 0, 0);
				if (!d)
					ret = -ENOMEM;
				else {
					d->pid = f->pid;
					d->launcher = 1;
				}
			}
		}
	}
	e->nsamples = keep;
	if (ret || !e->nsamples || e->has_sampling)
		return ret;
	return sampling_guess(e);
}

/*
 * Stream S (of E, sorted): its process found, its clock pairs added to it, its damage listed.
 * 1 left out (no whole header, or its proc file left out), 0 kept, or a negative errno with
 * the message in ERR.
 */
static int stream_check(struct experiment *e, struct exp_stream *s, char *err, size_t errlen)
{
	struct pair_sink sink = {NULL, 0};
	struct stream_extent x = {0};
	struct exp_damage *dp;
	char serr[256];
	int exists, ret;
	uint64_t size = exp_file_size(e->dir, strrchr(s->path, '/') + 1, &exists);

	s->proc = experiment_process(e, s->pid, s->image);
	ret = exp_short_file(e, s->path, size, s->pid, s->image, 0);
	if (!ret && !s->proc && (dp = exp_damaged_proc(e, s->pid, s->image))) {
		dp->streams_out++; /* said with its process's file */
		ret = 1;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: out of memory", e->dir);
	if (ret)
		return ret;
	if (!s->proc) {
		if (s->image)
			snprintf(err, errlen, "%s: no proc.%d.%u.json for this stream", s->path,
				 (int)s->pid, s->image);
		else
			snprintf(err, errlen, "%s: no proc.%d.json for this stream", s->path,
				 (int)s->pid);
		return -EINVAL;
	}
	sink.p = s->proc;
	if (stream_scan(s->path, add_pair, &sink, &x, serr, sizeof(serr)) == 0 &&
	    exp_scan_damage(e, s->path, &x, sizeof(struct psc_stream_header), s->pid, s->image,
			    0)) {
		snprintf(err, errlen, "%s: out of memory", e->dir);
		return -ENOMEM;
	}
	if (sink.oom) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -ENOMEM;
	}
	return 0;
}

int exp_streams_check(struct experiment *e, char *err, size_t errlen)
{
	size_t keep = 0;

	qsort(e->streams, e->nstreams, sizeof(*e->streams), cmp_stream);
	for (size_t i = 0; i < e->nstreams; i++) {
		struct exp_stream *s = &e->streams[i];
		int ret = stream_check(e, s, err, errlen);

		if (ret < 0)
			return ret;
		if (ret) {
			free(s->path);
			s->path = NULL; /* left out */
		}
	}
	for (size_t i = 0; i < e->nstreams; i++)
		if (e->streams[i].path)
			e->streams[keep++] = e->streams[i];
	e->nstreams = keep;
	return 0;
}
