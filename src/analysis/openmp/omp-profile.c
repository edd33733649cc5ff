/* omp-profile.c - the consumer of the OpenMP events: each thread's instances, implicit tasks
 * and waits collected (omp-int.h), settled at the pass's finish (omp-settle.c). */
#include "analysis/openmp/omp-int.h"

#include "format/format.h"
#include "lib/array.h"
#include "model/pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

static int ob_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct omp_build *b = ctx;

	(void)loc, (void)err, (void)errlen;
	b->nstack = 0;
	b->closed = 0;
	b->nwaits = 0;
	b->nruns = 0;
	b->loc_events = 0;
	return 0;
}

/* The thread of LOC in the profile, added at its first OpenMP event. */
static int thread_of(struct omp_build *b, const struct ev_location *loc)
{
	struct omp_profile *p = b->p;

	if (b->loc_events++)
		return 0;
	if (ARRAY_GROW(p->threads, p->nthreads + 1, p->threads_cap))
		return -ENOMEM;
	p->threads[p->nthreads++] = (struct omp_thread){
	    .pid = loc->pid, .tid = loc->tid, .image = loc->image, .rank = loc->rank};
	if (loc->rank >= 0)
		p->hybrid = 1;
	return 0;
}

static int push_open(struct omp_build *b, int task, size_t index)
{
	if (ARRAY_GROW(b->stack, b->nstack + 1, b->stack_cap))
		return -ENOMEM;
	b->stack[b->nstack++] = (struct omp_open){task, index};
	return 0;
}

/* The innermost open implicit task of the thread, or NULL. */
static struct omp_task *open_task(struct omp_build *b)
{
	for (size_t i = b->nstack; i-- > 0;)
		if (b->stack[i].task)
			return &b->tasks[b->stack[i].index];
	return NULL;
}

/* Close the innermost open construct (TASK: implicit task) of parallel ID (and THREAD) at NS,
 * with whatever is open inside it; one not open is an unmatched end. */
static void close_open(struct omp_build *b, int task, uint64_t id, uint32_t thread, int64_t ns)
{
	for (size_t i = b->nstack; i-- > 0;) {
		const struct omp_open *o = &b->stack[i];

		if (o->task != task)
			continue;
		if (task && b->tasks[o->index].id == id && b->tasks[o->index].thread == thread) {
			b->tasks[o->index].end_ns = ns;
			b->closed = o->index + 1;
		} else if (!task && b->pars[o->index].id == id) {
			b->pars[o->index].end_ns = ns;
			b->closed = 0; /* its closing barrier is over on this thread */
		} else {
			continue;
		}
		b->nstack = i;
		return;
	}
	b->p->unmatched_ends++;
}

static int on_parallel_begin(struct omp_build *b, const struct event *ev)
{
	const struct ev_location *loc = ev->loc;

	if (ARRAY_GROW(b->pars, b->npars + 1, b->pars_cap))
		return -ENOMEM;
	b->pars[b->npars] = (struct omp_par){.pid = loc->pid,
					     .image = loc->image,
					     .rank = loc->rank,
					     .id = ev->omp.parallel,
					     .site = ev->omp.site,
					     .fn = ev->omp.fn,
					     .level = ev->omp.level,
					     .team = ev->omp.team,
					     .begin_ns = ev->ns,
					     .end_ns = -1,
					     .last_ns = -1,
					     .thread = b->p->nthreads - 1,
					     .outer = b->nstack == 0};
	return push_open(b, 0, b->npars++);
}

static int on_itask_begin(struct omp_build *b, const struct event *ev)
{
	const struct ev_location *loc = ev->loc;

	if (ARRAY_GROW(b->tasks, b->ntasks + 1, b->tasks_cap))
		return -ENOMEM;
	b->tasks[b->ntasks] = (struct omp_task){.pid = loc->pid,
						.image = loc->image,
						.id = ev->omp.parallel,
						.thread = ev->omp.thread,
						.tindex = b->p->nthreads - 1,
						.outer = b->nstack == 0,
						.begin_ns = ev->ns,
						.end_ns = -1,
						.bar_enter_ns = -1};
	return push_open(b, 1, b->ntasks++);
}

/* The implicit task the thread's explicit tasks and worksharing count for: the innermost
 * open one, else the last that ended (libgomp runs tasks in the closing barrier, after its
 * end); NULL none. */
static struct omp_task *count_task(struct omp_build *b)
{
	struct omp_task *t = open_task(b);

	return t ? t : b->closed ? &b->tasks[b->closed - 1] : NULL;
}

static int on_sync_enter(struct omp_build *b, const struct event *ev)
{
	if (ARRAY_GROW(b->waits, b->nwaits + 1, b->waits_cap))
		return -ENOMEM;
	b->waits[b->nwaits++] = (struct omp_wait){ev->omp.kind, ev->ns, 0};
	return 0;
}

/* The innermost open wait of KIND ended at NS: its time but the explicit tasks run in it,
 * charged to the innermost open implicit task (none: not counted). A wait of another kind
 * left open inside it (a runtime that told no end of it) stays open; a leave with no wait
 * of its kind open is ignored. */
static void on_sync_leave(struct omp_build *b, unsigned kind, int64_t ns)
{
	struct omp_task *t = open_task(b);
	struct omp_wait w;
	size_t j = b->nwaits;
	int64_t d;

	while (j && b->waits[j - 1].kind != kind)
		j--;
	if (!j)
		return;
	w = b->waits[j - 1];
	memmove(&b->waits[j - 1], &b->waits[j], (b->nwaits - j) * sizeof(*b->waits));
	b->nwaits--;
	d = ns - w.ns - w.task_ns;
	if (!t || d < 0)
		return;
	switch (w.kind) {
	case PSC_OMP_SYNC_BARRIER_IMPLICIT:
		if (t->bar_enter_ns < 0)
			t->bar_enter_ns = w.ns;
		t->bar_ns += d;
		break;
	case PSC_OMP_SYNC_BARRIER_EXPLICIT:
	case PSC_OMP_SYNC_BARRIER_WORK:
		t->sync_ns += d;
		break;
	case PSC_OMP_SYNC_CRITICAL:
	case PSC_OMP_SYNC_LOCK:
	case PSC_OMP_SYNC_ORDERED:
	case PSC_OMP_SYNC_ATOMIC:
		t->lock_ns += d;
		break;
	default:
		t->other_ns += d;
		break;
	}
}

static int on_task_begin(struct omp_build *b, const struct event *ev)
{
	if (ARRAY_GROW(b->runs, b->nruns + 1, b->runs_cap))
		return -ENOMEM;
	b->runs[b->nruns++] = (struct omp_run){ev->ns, b->nwaits};
	return 0;
}

/* An explicit task stops running: its time is work, not waiting. The outermost task run
 * inside the innermost wait takes its time out of that wait; with no wait and no implicit
 * task open (libgomp's closing barrier, after ITASK_END), out of that barrier. */
static void on_task_end(struct omp_build *b, const struct event *ev)
{
	struct omp_task *t = count_task(b);
	struct omp_run r;
	int outermost;

	if (t && ev->omp.kind == 0)
		t->completed++;
	if (!b->nruns)
		return;
	r = b->runs[--b->nruns];
	outermost = !b->nruns || b->runs[b->nruns - 1].waits < r.waits;
	if (r.waits && r.waits == b->nwaits && outermost)
		b->waits[b->nwaits - 1].task_ns += ev->ns - r.ns;
	else if (!r.waits && !b->nruns && t && !open_task(b)) {
		t->bar_task_ns += ev->ns - r.ns;
		t->bar_task_end_ns = ev->ns;
	}
}

/* Worksharing and explicit tasks created, counted for count_task(). */
static void on_counts(struct omp_build *b, const struct event *ev)
{
	struct omp_task *t = count_task(b);

	if (!t)
		return;
	if (ev->kind == EV_OMP_WORK) {
		if (ev->omp.chunks == PSC_OMP_NOT_COUNTED)
			t->not_counted |= OMP_NOT_COUNTED_CHUNKS;
		else
			t->chunks += ev->omp.chunks;
		if (ev->omp.iterations == PSC_OMP_NOT_COUNTED)
			t->not_counted |= OMP_NOT_COUNTED_ITERATIONS;
		else
			t->iterations += ev->omp.iterations;
	} else if (ev->kind == EV_OMP_TASK_CREATE) {
		t->created++;
	}
}

static int ob_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct omp_build *b = ctx;
	int ret = thread_of(b, ev->loc);

	b->p->events++;
	if (ret == 0) {
		switch (ev->kind) {
		case EV_OMP_PARALLEL_BEGIN:
			ret = on_parallel_begin(b, ev);
			break;
		case EV_OMP_PARALLEL_END:
			close_open(b, 0, ev->omp.parallel, 0, ev->ns);
			break;
		case EV_OMP_ITASK_BEGIN:
			ret = on_itask_begin(b, ev);
			break;
		case EV_OMP_ITASK_END:
			close_open(b, 1, ev->omp.parallel, ev->omp.thread, ev->ns);
			break;
		case EV_OMP_SYNC_ENTER:
			ret = on_sync_enter(b, ev);
			break;
		case EV_OMP_SYNC_LEAVE:
			on_sync_leave(b, ev->omp.kind, ev->ns);
			break;
		case EV_OMP_TASK_BEGIN:
			ret = on_task_begin(b, ev);
			break;
		case EV_OMP_TASK_END:
			on_task_end(b, ev);
			break;
		default:
			on_counts(b, ev);
			break;
		}
	}
	return ret < 0 ? oom(err, errlen) : 0;
}

static int ob_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct omp_build *b = ctx;
	struct omp_thread *t;

	(void)loc, (void)err, (void)errlen;
	if (!b->loc_events)
		return 0;
	t = &b->p->threads[b->p->nthreads - 1];
	t->span_ns = f->last_ns > f->first_ns ? f->last_ns - f->first_ns : 0;
	/* the stream ends in its task's closing barrier (OMPT, the process's last region): the
	 * arrival is known, the settling ends the wait when the team's last thread arrived */
	if (b->nwaits && b->waits[b->nwaits - 1].kind == PSC_OMP_SYNC_BARRIER_IMPLICIT) {
		struct omp_task *task = open_task(b);

		if (task && task->bar_enter_ns < 0)
			task->bar_enter_ns = b->waits[b->nwaits - 1].ns;
	}
	return 0;
}

static int ob_finish(void *ctx, char *err, size_t errlen)
{
	return omp_settle(ctx) < 0 ? oom(err, errlen) : 0;
}

static void ob_release(void *ctx)
{
	struct omp_build *b = ctx;

	free(b->pars);
	free(b->tasks);
	free(b->stack);
	free(b->waits);
	free(b->runs);
	free(b);
}

int omp_profile_consumer(struct ev_consumer *c, struct omp_profile *p, struct symtab *syms)
{
	struct omp_build *b = calloc(1, sizeof(*b));
	uint64_t kinds = 0;

	for (unsigned k = EV_OMP_PARALLEL_BEGIN; k <= EV_OMP_TASK_END; k++)
		kinds |= EV_BIT(k);
	*c = (struct ev_consumer){.name = "openmp",
				  .kinds = kinds,
				  .locations = EV_LOC_STREAMS,
				  .ctx = b,
				  .location_begin = ob_begin,
				  .event = ob_event,
				  .location_end = ob_end,
				  .finish = ob_finish,
				  .release = ob_release};
	memset(p, 0, sizeof(*p));
	if (!b)
		return -ENOMEM;
	b->p = p;
	b->syms = syms;
	return 0;
}

void omp_profile_release(struct omp_profile *p)
{
	for (size_t i = 0; i < p->nregions; i++)
		free(p->regions[i].name);
	free(p->regions);
	free(p->rows);
	free(p->threads);
	for (size_t i = 0; i < p->ncaveats; i++)
		free(p->caveats[i]);
	free(p->caveats);
	memset(p, 0, sizeof(*p));
}

const char *omp_wait_name(unsigned kind)
{
	static const char *const names[] = {
	    [PSC_OMP_SYNC_BARRIER_IMPLICIT] = "omp barrier (implicit)",
	    [PSC_OMP_SYNC_BARRIER_EXPLICIT] = "omp barrier",
	    [PSC_OMP_SYNC_BARRIER_WORK] = "omp barrier (worksharing)",
	    [PSC_OMP_SYNC_CRITICAL] = "omp critical",
	    [PSC_OMP_SYNC_LOCK] = "omp lock",
	    [PSC_OMP_SYNC_ORDERED] = "omp ordered",
	    [PSC_OMP_SYNC_ATOMIC] = "omp atomic",
	    [PSC_OMP_SYNC_TASKWAIT] = "omp taskwait",
	    [PSC_OMP_SYNC_TASKGROUP] = "omp taskgroup",
	    [PSC_OMP_SYNC_REDUCTION] = "omp reduction",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "omp wait";
}
