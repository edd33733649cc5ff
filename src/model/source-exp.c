/*
 * source-exp.c - an experiment directory as a source of events (pass.h): its streams, each
 * walked as matched calls (calls.h) with every other record handed on as its event, then its
 * samples files record by record. The reader's validation and messages are those of
 * stream.c and calls.c, unchanged.
 */
#include "model/pass-int.h"

#include "model/calls-step.h"
#include "format/experiment.h"
#include "format/stream.h"
#include "lib/array.h"
#include "lib/compiler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers the decoded records point into, reused from record to record. */
struct exp_src {
	const struct experiment *e;
	uint32_t *group_of;
	int32_t *status;
	size_t ncounters, gcap, scap;
	int32_t *members;
	size_t mcap;
	char *text;
	size_t tcap;
	/* the events of a stream: calls gathered for a batch, then the next event */
	struct event batch[EV_CALL_BATCH + 1];
};

/* A NUL-terminated copy of the text in NWORDS words at P (up to its NUL): ev.text. */
static const char *decode_text(struct exp_src *x, const uint64_t *p, size_t nwords)
{
	size_t len = strnlen((const char *)p, nwords * 8);

	if (array_reserve((void **)&x->text, &x->tcap, len + 1, 1))
		return NULL;
	memcpy(x->text, p, len);
	x->text[len] = 0;
	return x->text;
}

static int decode_counters(struct exp_src *x, const struct stream_record *rec, struct event *ev)
{
	size_t n = rec->npayload;

	if (array_reserve((void **)&x->group_of, &x->gcap, n + 1, sizeof(*x->group_of)) ||
	    array_reserve((void **)&x->status, &x->scap, n + 1, sizeof(*x->status)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		x->group_of[i] = (uint32_t)rec->payload[i];
		x->status[i] = (int32_t)(uint32_t)(rec->payload[i] >> 32);
	}
	ev->counters.nevents = (uint32_t)n;
	ev->counters.group_of = x->group_of;
	ev->counters.status = x->status;
	return 0;
}

static void decode_mpi_leave(const struct stream_record *rec, struct event *ev)
{
	ev->mpi.routine = (int)rec->arg;
	ev->mpi.site = rec->npayload ? rec->payload[0] : 0;
	ev->mpi.item_words = rec->payload + 1;
	ev->mpi.nitems = rec->npayload ? (rec->npayload - 1) / PSC_MPI_ITEM_WORDS : 0;
}

static int decode_mpi_comm(struct exp_src *x, const struct stream_record *rec, struct event *ev)
{
	uint64_t size = rec->npayload >= 2 ? rec->payload[1] : 0;

	/* the reader checked that the members fit the record */
	if (array_reserve((void **)&x->members, &x->mcap, size + 1, sizeof(*x->members)))
		return -ENOMEM;
	for (uint64_t i = 0; i < size; i++)
		x->members[i] = (int32_t)(uint32_t)(rec->payload[2 + i / 2] >> (32 * (i % 2)));
	ev->mpi_comm.index = rec->arg;
	ev->mpi_comm.key = rec->payload[0];
	ev->mpi_comm.size = (uint32_t)size;
	ev->mpi_comm.members = x->members;
	return 0;
}

/* What each extended record type becomes as an event (EV_MARKER: none of its own). */
static const unsigned char kind_of_type[] = {
    [PSC_REC_COUNTERS] = EV_COUNTERS,
    [PSC_REC_LOST] = EV_LOST,
    [PSC_REC_THREAD_NAME] = EV_THREAD_NAME,
    [PSC_REC_MPI_INIT] = EV_MPI_INIT,
    [PSC_REC_MPI_ENTER] = EV_MPI_ENTER,
    [PSC_REC_MPI_LEAVE] = EV_MPI_LEAVE,
    [PSC_REC_MPI_COMM] = EV_MPI_COMM,
    [PSC_REC_MPI_CLOCK] = EV_MPI_CLOCK,
    [PSC_REC_SAMPLE] = EV_SAMPLE,
    [PSC_REC_SWITCH] = EV_SWITCH,
    [PSC_REC_TASK] = EV_TASK,
    [PSC_REC_OMP_PARALLEL_BEGIN] = EV_OMP_PARALLEL_BEGIN,
    [PSC_REC_OMP_PARALLEL_END] = EV_OMP_PARALLEL_END,
    [PSC_REC_OMP_ITASK_BEGIN] = EV_OMP_ITASK_BEGIN,
    [PSC_REC_OMP_ITASK_END] = EV_OMP_ITASK_END,
    [PSC_REC_OMP_SYNC_ENTER] = EV_OMP_SYNC_ENTER,
    [PSC_REC_OMP_SYNC_LEAVE] = EV_OMP_SYNC_LEAVE,
    [PSC_REC_OMP_WORK] = EV_OMP_WORK,
    [PSC_REC_OMP_TASK_CREATE] = EV_OMP_TASK_CREATE,
    [PSC_REC_OMP_TASK_BEGIN] = EV_OMP_TASK_BEGIN,
    [PSC_REC_OMP_TASK_END] = EV_OMP_TASK_END,
};

/* The kind of the stream record REC: what it becomes as an event. */
static inline enum ev_kind record_kind(const struct stream_record *rec)
{
	unsigned k;

	if (rec->kind != PSC_KIND_EXT || (size_t)rec->type >= ARRAY_SIZE(kind_of_type))
		return EV_MARKER;
	k = kind_of_type[rec->type];
	/* 0 is EV_CALL_ENTER, which no extended record is: the types without an entry */
	return k ? (enum ev_kind)k : EV_MARKER;
}

static void decode_sample(const struct stream_record *rec, struct event *ev)
{
	const uint64_t *p = rec->payload;
	struct ev_sample *s = &ev->sample;

	s->pid = (pid_t)(uint32_t)p[0];
	s->tid = (pid_t)(uint32_t)(p[0] >> 32);
	s->group = rec->arg;
	s->ip = p[1];
	s->cpu = (unsigned)(p[2] & 0xffffu);
	s->flags = (unsigned)((p[2] >> 16) & 0xffu);
	s->kernel_frames = (unsigned)(p[2] >> PSC_SAMPLE_KFRAMES_SHIFT) & PSC_SAMPLE_KFRAMES_MAX;
	s->values = p + 3;
	s->nvalues = 3 + (size_t)p[3];
	s->chain = p + 6 + p[3];
	s->nchain = (size_t)(p[2] >> 32);
}

/* TICKS of a record of EV's location in ns, as the walker times its records. */
static int64_t record_ticks_ns(const struct event *ev, uint64_t ticks)
{
	const struct ev_location *loc = ev->loc;

	return loc && loc->proc && !loc->samples ? clock_fit_ns(&loc->proc->fit, ticks)
						 : (int64_t)ticks;
}

/* The fields of an OpenMP event EV from its record REC (the reader checked the lengths). */
static void decode_omp(const struct stream_record *rec, struct event *ev)
{
	const uint64_t *p = rec->payload;
	struct ev_omp *o = &ev->omp;

	*o = (struct ev_omp){0};
	switch (ev->kind) {
	case EV_OMP_PARALLEL_BEGIN:
		*o = (struct ev_omp){.parallel = p[0],
				     .site = p[1],
				     .fn = p[2],
				     .team = rec->arg,
				     .level = (uint32_t)p[3]};
		break;
	case EV_OMP_PARALLEL_END:
		*o = (struct ev_omp){.parallel = p[0], .team = rec->arg};
		break;
	case EV_OMP_ITASK_BEGIN:
		*o = (struct ev_omp){.parallel = p[0], .thread = rec->arg, .team = (uint32_t)p[1]};
		break;
	case EV_OMP_ITASK_END:
		*o = (struct ev_omp){.parallel = p[0], .thread = rec->arg};
		break;
	case EV_OMP_SYNC_ENTER:
		*o = (struct ev_omp){.kind = rec->arg, .site = p[0], .object = p[1]};
		break;
	case EV_OMP_SYNC_LEAVE:
		o->kind = rec->arg;
		break;
	case EV_OMP_WORK:
		*o = (struct ev_omp){.kind = rec->arg,
				     .site = p[0],
				     .begin_ns = record_ticks_ns(ev, p[1]),
				     .chunks = p[2],
				     .iterations = p[3]};
		break;
	case EV_OMP_TASK_CREATE:
		*o = (struct ev_omp){.object = p[0], .site = p[1]};
		break;
	default: /* EV_OMP_TASK_BEGIN, EV_OMP_TASK_END */
		*o = (struct ev_omp){.object = p[0], .kind = rec->arg};
		break;
	}
}

/* The fields of an event of kind EV->kind from its record REC (the reader checked the
 * lengths). 0 or -ENOMEM. */
static PSC_ALWAYS_INLINE int decode(struct exp_src *x, const struct stream_record *rec,
				    struct event *ev)
{
	const uint64_t *p = rec->payload;

	switch (ev->kind) {
	case EV_COUNTERS:
		return decode_counters(x, rec, ev);
	case EV_LOST:
		ev->lost = (struct ev_lost){p[0], rec->npayload >= 2 ? p[1] : 0, rec->arg};
		return 0;
	case EV_THREAD_NAME:
		ev->text = decode_text(x, p, rec->npayload);
		return ev->text ? 0 : -ENOMEM;
	case EV_MPI_INIT:
		ev->mpi_init = (struct ev_mpi_init){
		    .rank = (int)rec->arg,
		    .size = (int)p[0],
		    .thread_level = (unsigned)(uint32_t)p[1],
		    .version = (uint32_t)(p[1] >> 32) ? (unsigned)(p[1] >> 32) : 1,
		};
		return 0;
	case EV_MPI_ENTER:
		ev->mpi = (struct ev_mpi){.routine = (int)rec->arg};
		return 0;
	case EV_MPI_LEAVE:
		decode_mpi_leave(rec, ev);
		return 0;
	case EV_MPI_COMM:
		return decode_mpi_comm(x, rec, ev);
	case EV_MPI_CLOCK:
		ev->mpi_clock =
		    (struct ev_mpi_clock){rec->arg, (int64_t)p[0], (int64_t)p[1], (int64_t)p[2]};
		return 0;
	case EV_SAMPLE:
		decode_sample(rec, ev);
		return 0;
	case EV_SWITCH:
		ev->sw = (struct ev_switch){(pid_t)(uint32_t)p[0], (pid_t)(uint32_t)(p[0] >> 32),
					    rec->arg & 0xffffu, rec->arg >> 16};
		return 0;
	case EV_TASK:
		ev->task = (struct ev_task){.what = rec->arg,
					    .pid = (pid_t)(uint32_t)p[0],
					    .tid = (pid_t)(uint32_t)(p[0] >> 32)};
		if (rec->arg == PSC_TASK_FORK || rec->arg == PSC_TASK_EXIT) {
			ev->task.ppid = (pid_t)(uint32_t)p[1];
			ev->task.ptid = (pid_t)(uint32_t)(p[1] >> 32);
			return 0;
		}
		ev->task.comm = decode_text(x, p + 1, rec->npayload - 1);
		return ev->task.comm ? 0 : -ENOMEM;
	case EV_OMP_PARALLEL_BEGIN:
	case EV_OMP_PARALLEL_END:
	case EV_OMP_ITASK_BEGIN:
	case EV_OMP_ITASK_END:
	case EV_OMP_SYNC_ENTER:
	case EV_OMP_SYNC_LEAVE:
	case EV_OMP_WORK:
	case EV_OMP_TASK_CREATE:
	case EV_OMP_TASK_BEGIN:
	case EV_OMP_TASK_END:
		decode_omp(rec, ev);
		return 0;
	default:
		return 0;
	}
}

/* Record REC at NS as its event, to the consumers that want it. */
static PSC_ALWAYS_INLINE int emit_record(struct exp_src *x, struct ev_pass *p, struct event *ev,
					 const struct stream_record *rec, int64_t ns,
					 const char *path)
{
	int ret;

	ev->kind = record_kind(rec);
	if (!p->nby_kind[ev->kind])
		return 0;
	ev->ns = ns;
	ev->offset = rec->offset;
	ev->raw = rec;
	ret = decode(x, rec, ev);
	if (ret < 0) {
		snprintf(p->err, p->errlen, "%s: out of memory", path);
		return ret;
	}
	return ev_emit(p, ev);
}

static const char *walker_region_name(const void *ctx, uint32_t id)
{
	const struct call_walker *w = ctx;

	return id < w->nregions ? w->regions[id] : NULL;
}

/* LOC's file could not be opened (error RET, message in P->err): RET, or when the pass keeps
 * going, the location begun and ended with the error in its facts F. */
static int unopened(struct ev_pass *p, const struct ev_location *loc, int ret,
		    struct ev_location_facts *f)
{
	ret = ev_pass_source_error(p, ret, f);
	if (ret < 0)
		return ret;
	f->unopened = 1;
	f->first_ns = f->first_call_ns = INT64_MAX;
	f->last_ns = f->last_call_ns = INT64_MIN;
	ret = ev_pass_begin(p, loc);
	if (ret > 0) /* declined by every consumer */
		return 0;
	return ret < 0 ? ret : ev_pass_end(p, loc, f);
}

/* The facts of W's stream as read so far into F (its error fields kept). */
static void stream_facts(const struct call_walker *w, struct ev_location_facts *f)
{
	memcpy(f->name, w->th.name, sizeof(f->name));
	f->ended = w->th.ended;
	f->end_reason = w->th.end_reason;
	f->truncated_at = w->th.truncated_at;
	f->lost_records = w->th.lost_records;
	f->lost_bytes = w->th.lost_bytes;
	f->unmatched_exits = w->th.unmatched_exits;
	f->synthetic_exits = w->th.synthetic_exits;
	f->unwound = w->th.unwound;
	f->function_records = w->th.function_records;
	f->records = w->r.nrecords;
	f->first_ns = w->th.first_ns;
	f->last_ns = w->th.last_ns;
	f->first_call_ns = w->th.first_call_ns;
	f->last_call_ns = w->th.last_call_ns;
	f->first_ticks = w->r.first_ticks;
	f->last_ticks = w->r.last_ticks;
	f->omp_tasks = w->th.omp_tasks;
	f->omp_thread_min = w->th.omp_thread_min;
	f->omp_thread_max = w->th.omp_thread_max;
}

/* The events of W's stream at LOC to P's consumers, the calls in batches to a consumer
 * taking them so: 0, or a negative errno (a source error the pass goes past in F). */
static int stream_events(struct exp_src *x, struct call_walker *w, const struct ev_location *loc,
			 struct ev_pass *p, struct ev_location_facts *f)
{
	struct ev_consumer *bc = ev_call_batcher(p);
	size_t k = bc ? EV_CALL_BATCH : 0;

	w->call_records = !bc; /* events one at a time: each call may show its record */
	for (size_t i = 0; i <= k; i++) {
		memset(&x->batch[i], 0, sizeof(x->batch[i]));
		x->batch[i].loc = loc;
	}
	for (;;) {
		struct event *ev;
		size_t n;
		int ret = call_walker_step_calls(w, x->batch, k, &n, p->err, p->errlen);

		/* the calls before it first: an error of the source comes after them */
		if (n) {
			int r = ev_emit_calls(p, bc, x->batch, n);

			if (r < 0)
				return r;
		}
		if (ret == CALL_WALKER_FULL)
			continue;
		if (ret <= 0)
			return ret < 0 ? ev_pass_source_error(p, ret, f) : 0;
		ev = &x->batch[n];
		if (ret == 2) /* a record that is no call or region boundary */
			ret = emit_record(x, p, ev, ev->raw, ev->ns, loc->stream->path);
		else
			ret = p->nby_kind[ev->kind] ? ev_emit(p, ev) : 0;
		if (ret < 0)
			return ret;
	}
}

static int walk_stream(struct exp_src *x, struct ev_location *loc, struct ev_pass *p)
{
	struct ev_location_facts f;
	struct call_walker w;
	int ret;

	memset(&f, 0, sizeof(f));
	ret = call_walker_open(&w, loc->stream, p->err, p->errlen);
	if (ret < 0) {
		call_walker_close(&w);
		return unopened(p, loc, ret, &f);
	}
	w.records = 1;
	loc->hdr = &w.r.hdr;
	loc->reader = &w.r;
	loc->region_name = walker_region_name;
	loc->region_ctx = &w;
	ret = ev_pass_begin(p, loc);
	if (ret) { /* declined by every consumer (1), or a consumer's error */
		ret = ret > 0 ? 0 : ret;
		goto done;
	}
	ret = stream_events(x, &w, loc, p, &f);
	if (ret == 0) {
		stream_facts(&w, &f);
		ret = ev_pass_end(p, loc, &f);
	}
done:
	loc->hdr = NULL;
	loc->reader = NULL;
	loc->region_name = NULL;
	loc->region_ctx = NULL;
	call_walker_close(&w);
	return ret;
}

/* A file record by record, each as its event (record_kind()), times as recorded (ns in a
 * samples file; ticks in a stream read alone, whose process is not known). */
static int walk_records(struct exp_src *x, struct ev_location *loc, struct ev_pass *p)
{
	struct ev_location_facts f;
	struct stream_reader r;
	struct stream_record rec;
	struct event ev;
	int ret;

	memset(&f, 0, sizeof(f));
	ret = stream_open(&r, loc->name, p->err, p->errlen);
	if (ret < 0)
		return unopened(p, loc, ret, &f);
	loc->hdr = &r.hdr;
	loc->reader = &r;
	memset(&ev, 0, sizeof(ev));
	f.first_ns = f.first_call_ns = INT64_MAX;
	f.last_ns = f.last_call_ns = INT64_MIN;
	ev.loc = loc;
	ret = ev_pass_begin(p, loc);
	if (ret > 0) { /* declined by every consumer */
		ret = 0;
		goto done;
	}
	while (ret == 0) {
		int64_t ns;

		ret = stream_next(&r, &rec, p->err, p->errlen);
		if (ret <= 0) {
			ret = ret < 0 ? ev_pass_source_error(p, ret, &f) : 0;
			break;
		}
		ns = (int64_t)rec.ticks;
		if (ns < f.first_ns)
			f.first_ns = ns;
		if (ns > f.last_ns)
			f.last_ns = ns;
		if (rec.kind == PSC_KIND_EXT && rec.type == PSC_REC_LOST && rec.npayload >= 2) {
			f.lost_records += rec.payload[0];
			f.lost_bytes += rec.payload[1];
		}
		ret = emit_record(x, p, &ev, &rec, ns, loc->name);
	}
	if (ret == 0) {
		f.ended = r.ended;
		f.end_reason = r.end_reason;
		f.truncated_at = r.truncated_at;
		f.records = r.nrecords;
		f.first_ticks = r.first_ticks;
		f.last_ticks = r.last_ticks;
		ret = ev_pass_end(p, loc, &f);
	}
done:
	loc->hdr = NULL;
	loc->reader = NULL;
	stream_close(&r);
	return ret;
}

static int exp_walk(struct ev_source *src, struct ev_location *loc, struct ev_pass *p)
{
	struct exp_src *x = src->priv;

	return loc->stream ? walk_stream(x, loc, p) : walk_records(x, loc, p);
}

static void exp_close(struct ev_source *src)
{
	struct exp_src *x = src->priv;

	free(x->group_of);
	free(x->status);
	free(x->members);
	free(x->text);
	free(x);
	free(src->locs);
	free(src);
}

static const struct ev_source_ops exp_ops = {exp_walk, exp_close};

/* A source of N locations (E may be NULL), its locations zeroed: 0 or -ENOMEM. */
static int source_new(struct ev_source **out, size_t n, const struct experiment *e, char *err,
		      size_t errlen)
{
	struct ev_source *src = calloc(1, sizeof(*src));
	struct exp_src *x = calloc(1, sizeof(*x));

	*out = NULL;
	if (src)
		src->locs = calloc(n + 1, sizeof(*src->locs));
	if (!src || !x || !src->locs) {
		if (src)
			free(src->locs);
		free(src);
		free(x);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->e = e;
	src->ops = &exp_ops;
	src->priv = x;
	src->nlocs = n;
	*out = src;
	return 0;
}

int ev_source_experiment(struct ev_source **out, const struct experiment *e, char *err,
			 size_t errlen)
{
	struct ev_source *src;
	int ret = source_new(&src, e->nstreams + e->nsamples, e, err, errlen);

	*out = NULL;
	if (ret)
		return ret;
	for (size_t i = 0; i < e->nstreams; i++) {
		const struct exp_stream *s = &e->streams[i];

		src->locs[i] = (struct ev_location){.index = i,
						    .pid = s->pid,
						    .tid = s->tid,
						    .image = s->image,
						    .rank = s->proc->rank,
						    .name = s->path,
						    .stream = s,
						    .proc = s->proc};
	}
	for (size_t i = 0; i < e->nsamples; i++) {
		size_t k = e->nstreams + i;

		src->locs[k] = (struct ev_location){.index = k,
						    .pid = e->samples[i].pid,
						    .rank = -1,
						    .name = e->samples[i].path,
						    .samples = 1};
	}
	*out = src;
	return 0;
}

int ev_pass_experiment(const struct experiment *e, struct ev_consumer *const *c, size_t n,
		       unsigned flags, char *err, size_t errlen)
{
	struct ev_source *src;
	int ret = ev_source_experiment(&src, e, err, errlen);

	if (ret < 0)
		return ret;
	ret = ev_pass_run_flags(src, c, n, flags, err, errlen);
	ev_source_close(src);
	return ret;
}

int ev_source_file(struct ev_source **out, const char *path, char *err, size_t errlen)
{
	int ret = source_new(out, 1, NULL, err, errlen);

	if (ret == 0)
		(*out)->locs[0] = (struct ev_location){.index = 0, .rank = -1, .name = path};
	return ret;
}
