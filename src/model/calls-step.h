/*
 * calls-step.h - the call walker's step (calls.h), inlined into the loops that walk a stream:
 * call_walker_next_event() and call_walker_next_calls() in calls.c, and the experiment
 * source's loop over a stream (source-exp.c), where a call per record and per event handed on
 * was a fifth of the pass's cost on streams of MPI records. Private to model/.
 */
#ifndef PSC_MODEL_CALLS_STEP_H
#define PSC_MODEL_CALLS_STEP_H

#include "model/calls.h"
#include "lib/array.h"
#include "lib/compiler.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Region definition REC into W's names: 0 or -ENOMEM. */
int call_walker_region_define(struct call_walker *w, const struct stream_record *rec);

/* An exit record REC at NS that does not close the innermost call (rare: out of the hot path):
 * 0 for one that skipped frames (kept pending), with W->records 2 for one of a call entered
 * before the recording began (counted; else 0). */
int call_walker_other_exit(struct call_walker *w, const struct stream_record *rec, int64_t ns,
			   struct event *ev);

/* always inlined: taken out of cw_func_record(), the call costs the profile's pass 4% */
static PSC_ALWAYS_INLINE int cw_push(struct call_walker *w, uint64_t addr, int64_t ns)
{
	if (w->depth == w->cap && ARRAY_GROW(w->stack, w->depth + 1, w->cap))
		return -ENOMEM;
	w->stack[w->depth++] = (struct call_frame){addr, ns, 0};
	return 0;
}

/* Pop the top frame at NS into an exit event. */
static inline void cw_pop(struct call_walker *w, int64_t ns, int synthetic, struct event *ev)
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

/* An outermost implicit task of thread number NUM on the thread TH. */
static inline void cw_omp_thread_number(struct call_thread *th, uint32_t num)
{
	if (!th->omp_tasks++ || num < th->omp_thread_min)
		th->omp_thread_min = num;
	if (th->omp_tasks == 1 || num > th->omp_thread_max)
		th->omp_thread_max = num;
}

/* An extended record, read into W->rec (the events' raw record): 1 with *EV for region
 * boundaries, with w->records 2 for the others (as call_walker_next_event() returns them), 0
 * when it only updates state, or -ENOMEM. */
static PSC_ALWAYS_INLINE int cw_ext_record(struct call_walker *w, int64_t ns, struct event *ev)
{
	const struct stream_record *rec = &w->rec;
	int ret = 0;

	switch (rec->type) {
	case PSC_REC_REGION_DEF:
		ret = call_walker_region_define(w, rec);
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
			cw_omp_thread_number(&w->th, rec->arg);
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
static inline const struct stream_record *cw_keep_record(struct call_walker *w,
							 const struct stream_record *rec)
{
	if (rec != &w->rec)
		w->rec = *rec;
	return &w->rec;
}

/* With W->call_records, REC kept for the call event made of it (its ->raw); else NULL. */
static PSC_ALWAYS_INLINE const struct stream_record *cw_call_record(struct call_walker *w,
								    const struct stream_record *rec)
{
	return w->call_records ? cw_keep_record(w, rec) : NULL;
}

/* Function record REC at NS: 1 with *EV (an entry, or an exit that closes the innermost call),
 * 0 for none (an exit that skipped frames is kept pending), with W->records 2 for an exit of a
 * call entered before the recording began (counted; else 0), -ENOMEM. */
static PSC_ALWAYS_INLINE int cw_func_record(struct call_walker *w, const struct stream_record *rec,
					    int64_t ns, struct event *ev)
{
	if (!w->th.function_records++)
		w->th.first_call_ns = ns;
	w->th.last_call_ns = ns;
	if (rec->kind == PSC_KIND_FUNC_ENTER) {
		if (cw_push(w, rec->addr, ns) < 0)
			return -ENOMEM;
		/* field by field: a compound literal became a `rep stos` of the whole
		 * event, whose start-up cost was a sixth of this function's time */
		ev->kind = EV_CALL_ENTER;
		ev->raw = cw_call_record(w, rec);
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
		cw_pop(w, ns, 0, ev);
		ev->offset = rec->offset;
		ev->raw = cw_call_record(w, rec);
		return 1;
	}
	return call_walker_other_exit(w, rec, ns, ev);
}

/* The events the walker owes before reading on: the frames a pending exit skipped, then the
 * exit, and at the end of the stream the calls still open. 1 with *EV, 0 none. */
static inline int cw_owed_event(struct call_walker *w, struct event *ev)
{
	if (w->have_pending) {
		/* an exit that skipped frames: close them at its time, then it */
		int64_t at = clock_fit_ns(w->fit, w->pending.ticks);
		int skipped = w->stack[w->depth - 1].addr != w->pending.addr;

		cw_pop(w, at, skipped, ev);
		ev->offset = w->pending.offset;
		if (!skipped && w->call_records)
			ev->raw = &w->pending;
		w->have_pending = skipped;
		return 1;
	}
	if (w->at_end && w->depth) {
		/* a killed run: calls still open end at the last timestamp */
		cw_pop(w, w->th.last_ns, 1, ev);
		return 1;
	}
	return 0;
}

/* One step of the walker: call_walker_next_event(), inlined there and in
 * call_walker_step_calls(). */
static PSC_ALWAYS_INLINE int call_walker_step(struct call_walker *w, struct event *ev, char *err,
					      size_t errlen)
{
	struct stream_record rec;

	for (;;) {
		int64_t ns;
		int ret;

		if (cw_owed_event(w, ev))
			return 1;
		if (w->at_end)
			return 0;
		/* function records into REC; the others into W->rec, where their events point */
		const struct stream_record *rp = &rec;

		if (stream_next_mpi_call(&w->r, &w->rec)) {
			rp = &w->rec;
		} else if (!stream_next_func(&w->r, &rec)) {
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
			ret = cw_func_record(w, rp, ns, ev);
		else if (rp->kind == PSC_KIND_EXT)
			ret = cw_ext_record(w, ns, ev);
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

/* call_walker_next_calls(), inlined into a source's loop. */
static PSC_ALWAYS_INLINE int call_walker_step_calls(struct call_walker *w, struct event *ev,
						    size_t max, size_t *n, char *err, size_t errlen)
{
	size_t i = 0;

	for (;;) {
		int ret = call_walker_step(w, &ev[i], err, errlen);

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

#endif /* PSC_MODEL_CALLS_STEP_H */
