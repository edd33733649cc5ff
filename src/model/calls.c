/* calls.c - walking a stream as matched calls (calls.h). */
#include "model/calls.h"
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

/* always inlined: taken out of func_record(), the call costs the profile's pass 4% */
static PSC_ALWAYS_INLINE int push(struct call_walker *w, uint64_t addr, int64_t ns)
{
	if (w->depth == w->cap && ARRAY_GROW(w->stack, w->depth + 1, w->cap))
		return -ENOMEM;
	w->stack[w->depth++] = (struct call_frame){addr, ns, 0};
	return 0;
}

/* Pop the top frame at NS into an exit event. */
static void pop(struct call_walker *w, int64_t ns, int synthetic, struct event *ev)
{
	struct call_frame *f = &w->stack[--w->depth];
	int64_t incl = ns - f->start_ns;

	ev->kind = EV_CALL_EXIT;
	ev->raw = NULL;
	ev->offset = 0;
	ev->call.addr = f->addr;
	ev->call.name = NULL;
	ev->ns = ns;
	ev->call.depth = (unsigned)w->depth;
	ev->call.synthetic = synthetic;
	ev->call.incl_ns = incl;
	ev->call.excl_ns = incl - f->child_ns;
	if (w->depth)
		w->stack[w->depth - 1].child_ns += incl;
	w->th.synthetic_exits += (uint64_t)synthetic;
}

static int frame_open(const struct call_walker *w, uint64_t addr)
{
	for (size_t i = w->depth; i-- > 0;)
		if (w->stack[i].addr == addr)
			return 1;
	return 0;
}

static int region_define(struct call_walker *w, const struct stream_record *rec)
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

/* An outermost implicit task of thread number NUM on the thread TH. */
static void omp_thread_number(struct call_thread *th, uint32_t num)
{
	if (!th->omp_tasks++ || num < th->omp_thread_min)
		th->omp_thread_min = num;
	if (th->omp_tasks == 1 || num > th->omp_thread_max)
		th->omp_thread_max = num;
}

/* An extended record, read into W->rec (the events' raw record): 1 with *EV for region
 * boundaries, with w->records 2 for the others (as call_walker_next_event() returns them), 0
 * when it only updates state, or -ENOMEM. */
static PSC_ALWAYS_INLINE int ext_record(struct call_walker *w, int64_t ns, struct event *ev)
{
	const struct stream_record *rec = &w->rec;
	int ret = 0;

	switch (rec->type) {
	case PSC_REC_REGION_DEF:
		ret = region_define(w, rec);
		break;
	case PSC_REC_REGION_ENTER:
	case PSC_REC_REGION_LEAVE:
		ev->kind = rec->type == PSC_REC_REGION_ENTER ? EV_REGION_ENTER : EV_REGION_EXIT;
		ev->ns = ns;
		ev->offset = rec->offset;
		ev->raw = &w->rec;
		ev->region.id = rec->arg;
		ev->region.name = rec->arg < w->nregions ? w->regions[rec->arg] : NULL;
		ev->region.snapshot = rec->payload;
		ev->region.nsnapshot = rec->npayload;
		return 1;
	case PSC_REC_LOST:
		if (rec->npayload >= 2) {
			w->th.lost_records += rec->payload[0];
			w->th.lost_bytes += rec->payload[1];
		}
		break;
	case PSC_REC_UNWIND:
		w->th.unwound += rec->arg;
		break;
	case PSC_REC_STREAM_END:
		w->th.ended = 1;
		w->th.end_reason = rec->arg;
		break;
	case PSC_REC_OMP_ITASK_BEGIN:
		if (!w->omp_depth++)
			omp_thread_number(&w->th, rec->arg);
		break;
	case PSC_REC_OMP_ITASK_END:
		w->omp_depth -= w->omp_depth > 0;
		break;
	case PSC_REC_THREAD_NAME:
		memcpy(w->th.name, rec->payload, rec->npayload * 8 < 16 ? rec->npayload * 8 : 16);
		w->th.name[16] = 0;
		break;
	default:
		break;
	}
	if (ret < 0 || !w->records)
		return ret;
	ev->ns = ns;
	ev->offset = rec->offset;
	ev->raw = rec;
	return 2;
}

/* REC in W->rec, where the events that carry their record point (it may be there already). */
static inline const struct stream_record *keep_record(struct call_walker *w,
						      const struct stream_record *rec)
{
	if (rec != &w->rec)
		w->rec = *rec;
	return &w->rec;
}

/* With W->call_records, REC kept for the call event made of it (its ->raw); else NULL. */
static PSC_ALWAYS_INLINE const struct stream_record *call_record(struct call_walker *w,
								 const struct stream_record *rec)
{
	return w->call_records ? keep_record(w, rec) : NULL;
}

/* An exit record REC at NS that does not close the innermost call (rare: out of the hot path):
 * 0 for one that skipped frames (kept pending), with W->records 2 for one of a call entered
 * before the recording began (counted; else 0). */
static __attribute__((noinline)) int
other_exit(struct call_walker *w, const struct stream_record *rec, int64_t ns, struct event *ev)
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
	ev->raw = keep_record(w, rec);
	return 2;
}

/* Function record REC at NS: 1 with *EV (an entry, or an exit that closes the innermost call),
 * 0 for none (an exit that skipped frames is kept pending), with W->records 2 for an exit of a
 * call entered before the recording began (counted; else 0), -ENOMEM. */
static PSC_ALWAYS_INLINE int func_record(struct call_walker *w, const struct stream_record *rec,
					 int64_t ns, struct event *ev)
{
	if (!w->th.function_records++)
		w->th.first_call_ns = ns;
	w->th.last_call_ns = ns;
	if (rec->kind == PSC_KIND_FUNC_ENTER) {
		if (push(w, rec->addr, ns) < 0)
			return -ENOMEM;
		/* field by field: a compound literal became a `rep stos` of the whole
		 * event, whose start-up cost was a sixth of this function's time */
		ev->kind = EV_CALL_ENTER;
		ev->raw = call_record(w, rec);
		ev->call.addr = rec->addr;
		ev->call.name = NULL;
		ev->ns = ns;
		ev->call.depth = (unsigned)w->depth - 1;
		ev->call.synthetic = 0;
		ev->call.incl_ns = 0;
		ev->offset = rec->offset;
		ev->call.excl_ns = 0;
		return 1;
	}
	if (w->depth && w->stack[w->depth - 1].addr == rec->addr) {
		pop(w, ns, 0, ev);
		ev->offset = rec->offset;
		ev->raw = call_record(w, rec);
		return 1;
	}
	return other_exit(w, rec, ns, ev);
}

/* The events the walker owes before reading on: the frames a pending exit skipped, then the
 * exit, and at the end of the stream the calls still open. 1 with *EV, 0 none. */
static inline int owed_event(struct call_walker *w, struct event *ev)
{
	if (w->have_pending) {
		/* an exit that skipped frames: close them at its time, then it */
		int64_t at = clock_fit_ns(w->fit, w->pending.ticks);
		int skipped = w->stack[w->depth - 1].addr != w->pending.addr;

		pop(w, at, skipped, ev);
		ev->offset = w->pending.offset;
		if (!skipped && w->call_records)
			ev->raw = &w->pending;
		w->have_pending = skipped;
		return 1;
	}
	if (w->at_end && w->depth) {
		/* a killed run: calls still open end at the last timestamp */
		pop(w, w->th.last_ns, 1, ev);
		return 1;
	}
	return 0;
}

/* call_walker_next_event(), inlined there and in call_walker_next_calls(), whose loop over it
 * then costs no call per event. */
static PSC_ALWAYS_INLINE int next_event(struct call_walker *w, struct event *ev, char *err,
					size_t errlen)
{
	struct stream_record rec;

	for (;;) {
		int64_t ns;
		int ret;

		if (owed_event(w, ev))
			return 1;
		if (w->at_end)
			return 0;
		/* function records into REC; the others into W->rec, where their events point */
		const struct stream_record *rp = &rec;

		if (!stream_next_func(&w->r, &rec)) {
			ret = stream_next(&w->r, &w->rec, err, errlen);
			if (ret < 0)
				return ret;
			if (ret == 0) {
				w->at_end = 1;
				w->th.truncated_at = w->r.truncated_at;
				continue;
			}
			rp = &w->rec;
		}
		ns = clock_fit_ns(w->fit, rp->ticks);
		if (ns < w->th.first_ns)
			w->th.first_ns = ns;
		if (ns > w->th.last_ns)
			w->th.last_ns = ns;
		if (rp->kind == PSC_KIND_FUNC_ENTER || rp->kind == PSC_KIND_FUNC_EXIT)
			ret = func_record(w, rp, ns, ev);
		else if (rp->kind == PSC_KIND_EXT)
			ret = ext_record(w, ns, ev);
		else
			ret = 0;
		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", w->s->path);
			return ret;
		}
		if (ret)
			return ret;
	}
}

int call_walker_next_event(struct call_walker *w, struct event *ev, char *err, size_t errlen)
{
	return next_event(w, ev, err, errlen);
}

int call_walker_next_calls(struct call_walker *w, struct event *ev, size_t max, size_t *n,
			   char *err, size_t errlen)
{
	size_t i = 0;

	for (;;) {
		int ret = next_event(w, &ev[i], err, errlen);

		if (ret != 1 || ev[i].kind > EV_CALL_EXIT || !max) {
			*n = i;
			return ret;
		}
		if (++i == max) {
			*n = i;
			return CALL_WALKER_FULL;
		}
	}
}
