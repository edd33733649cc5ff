/* calls.c - walking a stream as matched calls (calls.h). */
#include "model/calls-step.h"
#include "lib/compiler.h"
#include "lib/array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int call_walker_open(struct call_walker *w, const struct exp_stream *s, char *err, size_t errlen)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->fit = &s->proc->fit;
	w->th.first_ns = w->th.first_call_ns = INT64_MAX;
	w->th.last_ns = w->th.last_call_ns = INT64_MIN;
	ret = stream_open(&w->r, s->path, err, errlen);
	if (ret < 0)
		w->r.fd = -1;
	return ret;
}

void call_walker_close(struct call_walker *w)
{
	if (w->r.path)
		stream_close(&w->r);
	for (size_t i = 0; i < w->nregions; i++)
		free(w->regions[i]);
	free(w->regions);
	free(w->stack);
	memset(w, 0, sizeof(*w));
}

static int frame_open(const struct call_walker *w, uint64_t addr)
{
	for (size_t i = w->depth; i-- > 0;)
		if (w->stack[i].addr == addr)
			return 1;
	return 0;
}

int call_walker_region_define(struct call_walker *w, const struct stream_record *rec)
{
	size_t len = strnlen((const char *)rec->payload, rec->npayload * 8);
	char *name;

	if (rec->arg >= w->nregions) {
		size_t n = (size_t)rec->arg + 1;

		/* grown by doubling: a stream defines its ids one by one, up to 2^20 of them */
		if (ARRAY_GROW(w->regions, n, w->regions_cap))
			return -ENOMEM;
		memset(w->regions + w->nregions, 0, (n - w->nregions) * sizeof(*w->regions));
		w->nregions = n;
	}
	name = strndup((const char *)rec->payload, len);
	if (!name)
		return -ENOMEM;
	free(w->regions[rec->arg]);
	w->regions[rec->arg] = name;
	return 0;
}

int call_walker_other_exit(struct call_walker *w, const struct stream_record *rec, int64_t ns,
			   struct event *ev)
{
	if (frame_open(w, rec->addr)) {
		w->pending = *rec;
		w->have_pending = 1;
		return 0;
	}
	/* entered before recording began: no call, but with w->records still a record */
	w->th.unmatched_exits++;
	if (!w->records)
		return 0;
	ev->ns = ns;
	ev->offset = rec->offset;
	ev->raw = cw_keep_record(w, rec);
	return 2;
}

int call_walker_next_event(struct call_walker *w, struct event *ev, char *err, size_t errlen)
{
	return call_walker_step(w, ev, err, errlen);
}

int call_walker_next_calls(struct call_walker *w, struct event *ev, size_t max, size_t *n,
			   char *err, size_t errlen)
{
	return call_walker_step_calls(w, ev, max, n, err, errlen);
}
