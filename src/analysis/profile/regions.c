/* regions.c - matching region begin/end records into a per-thread region profile. */
#include "analysis/profile/regions.h"
#include "model/pass.h"
#include "format/stream.h"
#include "lib/array.h"
#include "lib/hashmap.h"

#include "pmu/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open region on a thread's stack. */
struct frame {
	uint32_t id;
	uint64_t enter_ticks;
	uint64_t child_ticks;
	int have_counts;
	struct count *counts; /* at begin, in stream event order */
};

/* What one stream's pass needs besides the profile. */
struct region_pass {
	struct region_profile *p;
	const struct exp_stream *s;
	const struct clock_fit *fit;
	size_t nev;	/* events of this stream's process */
	size_t *ev_map; /* stream event index -> profile event index */
	uint32_t *group_of;
	int32_t *status;
	int have_layout;
	char **names; /* region id -> name */
	size_t nnames, names_cap;
	size_t *row_of;	 /* region id -> row index + 1, 0 = none yet */
	uint32_t *depth; /* region id -> open instances (recursion) */
	size_t row_of_cap, depth_cap;
	struct frame *stack;
	size_t nstack, stack_cap;
	struct count *scratch;
	struct thread_summary *th;
};

static int profile_event_index(struct region_profile *p, const char *name, size_t *idx)
{
	for (size_t i = 0; i < p->nevents; i++)
		if (!strcmp(p->events[i], name)) {
			*idx = i;
			return 0;
		}
	char **ne = realloc(p->events, (p->nevents + 1) * sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	p->events = ne;
	p->events[p->nevents] = strdup(name);
	if (!p->events[p->nevents])
		return -ENOMEM;
	/* rows made before this event appeared get a zero, uncounted slot */
	for (size_t r = 0; r < p->nrows; r++) {
		struct region_row *row = &p->rows[r];
		struct count *nc = realloc(row->counts, (p->nevents + 1) * sizeof(*nc));
		int32_t *ns = realloc(row->status, (p->nevents + 1) * sizeof(*ns));

		if (nc)
			row->counts = nc;
		if (ns)
			row->status = ns;
		if (!nc || !ns)
			return -ENOMEM;
		row->counts[p->nevents] = (struct count){0, 0, 0};
		row->status[p->nevents] = -ENODATA;
	}
	*idx = p->nevents++;
	return 0;
}

static struct region_row *row_new(struct region_profile *p, const char *name, pid_t pid, pid_t tid)
{
	struct region_row *row;

	if (ARRAY_GROW(p->rows, p->nrows + 1, p->cap))
		return NULL;
	row = &p->rows[p->nrows];
	memset(row, 0, sizeof(*row));
	row->name = strdup(name);
	row->counts = calloc(p->nevents + 1, sizeof(*row->counts));
	row->status = calloc(p->nevents + 1, sizeof(*row->status));
	if (!row->name || !row->counts || !row->status) {
		free(row->name);
		free(row->counts);
		free(row->status);
		return NULL;
	}
	for (size_t i = 0; i < p->nevents; i++)
		row->status[i] = -ENODATA;
	row->pid = pid;
	row->tid = tid;
	row->min_ns = -1;
	p->nrows++;
	return row;
}

static int grow_ids(struct region_pass *ps, uint32_t id)
{
	size_t n = (size_t)id + 1;

	if (n <= ps->nnames)
		return 0;
	if (ARRAY_GROW(ps->names, n, ps->names_cap) || ARRAY_GROW(ps->row_of, n, ps->row_of_cap) ||
	    ARRAY_GROW(ps->depth, n, ps->depth_cap))
		return -ENOMEM;
	for (size_t i = ps->nnames; i < n; i++) {
		ps->names[i] = NULL;
		ps->row_of[i] = 0;
		ps->depth[i] = 0;
	}
	ps->nnames = n;
	return 0;
}

static int on_counters(struct region_profile *p, struct region_pass *ps,
		       const struct stream_record *r)
{
	const struct exp_process *proc = ps->s->proc;

	if (r->arg != proc->nevents || r->npayload < proc->nevents)
		return -EINVAL;
	for (size_t i = 0; i < ps->nev; i++) {
		ps->group_of[i] = (uint32_t)r->payload[i];
		ps->status[i] = (int32_t)(uint32_t)(r->payload[i] >> 32);
	}
	ps->have_layout = 1;
	(void)p;
	return 0;
}

/* Decode a boundary's counter snapshot into OUT (stream event order); 0 if none. */
static int snapshot(struct region_pass *ps, const struct stream_record *r, struct count *out)
{
	if (!ps->have_layout || r->npayload == 0)
		return 0;
	if (count_snapshot_decode(r->payload, r->npayload, ps->group_of, ps->nev, out))
		return -EINVAL;
	return 1;
}

static struct region_row *row_for(struct region_profile *p, struct region_pass *ps, uint32_t id)
{
	if (!ps->row_of[id]) {
		struct region_row *row = row_new(p, ps->names[id], ps->s->pid, ps->s->tid);

		if (!row)
			return NULL;
		row->thread = (uint32_t)(ps->th - p->threads);
		for (size_t i = 0; i < ps->nev; i++)
			row->status[ps->ev_map[i]] = ps->have_layout ? ps->status[i] : -ENODATA;
		ps->row_of[id] = p->nrows;
	}
	return &p->rows[ps->row_of[id] - 1];
}

/* Close the top frame at TICKS; COUNTS_NOW (may be NULL) is the leave snapshot. */
static int frame_close(struct region_profile *p, struct region_pass *ps, uint64_t ticks,
		       const struct count *counts_now, int unclosed)
{
	struct frame *f = &ps->stack[--ps->nstack];
	struct region_row *row = row_for(p, ps, f->id);
	uint64_t incl = ticks - f->enter_ticks;
	double incl_ns = clock_fit_duration(ps->fit, incl);
	double excl_ns =
	    clock_fit_duration(ps->fit, incl - (f->child_ticks < incl ? f->child_ticks : incl));

	if (!row)
		return -ENOMEM;
	ps->depth[f->id]--;
	row->calls++;
	row->unclosed += unclosed;
	/* recursion: only the outermost instance adds inclusive time */
	if (ps->depth[f->id] == 0)
		row->incl_ns += incl_ns;
	row->excl_ns += excl_ns;
	if (row->min_ns < 0 || incl_ns < row->min_ns)
		row->min_ns = incl_ns;
	if (incl_ns > row->max_ns)
		row->max_ns = incl_ns;
	if (ps->nstack)
		ps->stack[ps->nstack - 1].child_ticks += incl;
	if (f->have_counts && counts_now) {
		for (size_t i = 0; i < ps->nev; i++) {
			struct count d = count_delta(&f->counts[i], &counts_now[i]);

			if (ps->depth[f->id] == 0)
				count_add(&row->counts[ps->ev_map[i]], &d);
		}
	} else if (ps->nev) {
		row->counter_gaps++;
	}
	return 0;
}

static int on_enter(struct region_profile *p, struct region_pass *ps, const struct stream_record *r)
{
	struct frame *f;
	int have;

	if (r->arg >= ps->nnames || !ps->names[r->arg])
		return -EINVAL;
	if (ps->nstack == ps->stack_cap) {
		size_t had = ps->stack_cap;

		if (ARRAY_GROW(ps->stack, ps->nstack + 1, ps->stack_cap))
			return -ENOMEM;
		/* the new frames get their counts now; stack_cap counts the frames that have them
		 */
		for (size_t i = had; i < ps->stack_cap; i++) {
			ps->stack[i].counts = calloc(ps->nev + 1, sizeof(*ps->stack[i].counts));
			if (!ps->stack[i].counts) {
				ps->stack_cap = i;
				return -ENOMEM;
			}
		}
	}
	f = &ps->stack[ps->nstack];
	have = snapshot(ps, r, f->counts);
	if (have < 0)
		return have;
	f->id = r->arg;
	f->enter_ticks = r->ticks;
	f->child_ticks = 0;
	f->have_counts = have;
	ps->depth[r->arg]++;
	ps->nstack++;
	return row_for(p, ps, r->arg) ? 0 : -ENOMEM;
}

static int on_leave(struct region_profile *p, struct region_pass *ps, const struct stream_record *r)
{
	size_t k;
	int have, ret;

	if (r->arg >= ps->nnames || !ps->names[r->arg])
		return -EINVAL;
	for (k = ps->nstack; k > 0 && ps->stack[k - 1].id != r->arg; k--)
		;
	if (k == 0) { /* an end without a begin: counted, never fatal */
		ps->th->unmatched_ends++;
		p->unmatched_ends++;
		return 0;
	}
	have = snapshot(ps, r, ps->scratch);
	if (have < 0)
		return have;
	/* regions left open inside this one are closed here and flagged */
	while (ps->nstack > k) {
		ret = frame_close(p, ps, r->ticks, have ? ps->scratch : NULL, 1);
		if (ret)
			return ret;
		p->unclosed++;
	}
	return frame_close(p, ps, r->ticks, have ? ps->scratch : NULL, 0);
}

static int on_def(struct region_pass *ps, const struct stream_record *r)
{
	size_t maxlen = r->npayload * 8;
	const char *text = (const char *)r->payload;
	int ret = grow_ids(ps, r->arg);

	if (ret)
		return ret;
	if (maxlen == 0 || memchr(text, 0, maxlen) == NULL)
		return -EINVAL;
	free(ps->names[r->arg]);
	ps->names[r->arg] = strdup(text);
	return ps->names[r->arg] ? 0 : -ENOMEM;
}

static int region_pass_record(struct region_pass *ps, const struct stream_record *r, char *err,
			      size_t errlen)
{
	struct region_profile *p = ps->p;
	int ret = 0;

	if (r->kind != PSC_KIND_EXT)
		return 0;
	switch (r->type) {
	case PSC_REC_REGION_DEF:
		ret = on_def(ps, r);
		break;
	case PSC_REC_COUNTERS:
		ret = on_counters(p, ps, r);
		break;
	case PSC_REC_REGION_ENTER:
		ret = on_enter(p, ps, r);
		break;
	case PSC_REC_REGION_LEAVE:
		ret = on_leave(p, ps, r);
		break;
	case PSC_REC_LOST:
		ps->th->lost_records += r->npayload ? r->payload[0] : 0;
		break;
	case PSC_REC_THREAD_NAME:
		snprintf(ps->th->name, sizeof(ps->th->name), "%.*s", (int)(r->npayload * 8),
			 (const char *)r->payload);
		break;
	default:
		break;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: byte %llu: %s", ps->s->path,
			 (unsigned long long)r->offset,
			 ret == -ENOMEM ? "out of memory" : "inconsistent region record");
		return ret;
	}
	return 0;
}

static void region_pass_abandon(struct region_pass *ps)
{
	for (size_t i = 0; i < ps->nnames; i++)
		free(ps->names[i]);
	for (size_t i = 0; i < ps->stack_cap; i++)
		free(ps->stack[i].counts);
	free(ps->names);
	free(ps->row_of);
	free(ps->depth);
	free(ps->stack);
	free(ps->ev_map);
	free(ps->group_of);
	free(ps->status);
	free(ps->scratch);
	free(ps);
}

/* The end of the stream whose walk found F: what is still open closes; frees PS. */
static int region_pass_end(struct region_pass *ps, const struct ev_location_facts *f, char *err,
			   size_t errlen)
{
	struct region_profile *p = ps->p;
	int ret = 0;

	/* what is still open at the end of a cut-short run closes at its last timestamp */
	while (ret == 0 && ps->nstack) {
		ret = frame_close(p, ps, f->last_ticks, NULL, 1);
		p->unclosed++;
	}
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	ps->th->ended = f->ended;
	ps->th->end_reason = f->end_reason;
	ps->th->truncated_at = f->truncated_at;
	ps->th->records = f->records;
	ps->th->omp_tasks = f->omp_tasks;
	ps->th->omp_thread_min = f->omp_thread_min;
	ps->th->omp_thread_max = f->omp_thread_max;
	if (f->records) {
		int64_t a = clock_fit_ns(ps->fit, f->first_ticks);
		int64_t b = clock_fit_ns(ps->fit, f->last_ticks);

		if (!p->span_known || a < p->first_ns)
			p->first_ns = a;
		if (!p->span_known || b > p->last_ns)
			p->last_ns = b;
		p->span_known = 1;
		/* in double: clock fits of corrupt pairs saturate at the ends of int64 */
		p->duration_ns = (double)p->last_ns - (double)p->first_ns;
	}
	region_pass_abandon(ps);
	return ret;
}

static int region_profile_init(struct region_profile *p, const struct experiment *e)
{
	memset(p, 0, sizeof(*p));
	p->threads = calloc(e->nstreams + 1, sizeof(*p->threads));
	return p->threads ? 0 : -ENOMEM;
}

static int region_pass_begin(struct region_profile *p, const struct exp_stream *s,
			     struct region_pass **out)
{
	struct region_pass *ps = calloc(1, sizeof(*ps));
	int ret;

	*out = NULL;
	if (!ps)
		return -ENOMEM;
	ps->p = p;
	ps->s = s;
	ps->fit = &s->proc->fit;
	ps->nev = s->proc->nevents;
	ps->th = &p->threads[p->nthreads++];
	ps->th->pid = s->pid;
	ps->th->tid = s->tid;
	ps->th->rank = s->proc ? s->proc->rank : -1;
	ps->ev_map = calloc(ps->nev + 1, sizeof(*ps->ev_map));
	ps->group_of = calloc(ps->nev + 1, sizeof(*ps->group_of));
	ps->status = calloc(ps->nev + 1, sizeof(*ps->status));
	ps->scratch = calloc(ps->nev + 1, sizeof(*ps->scratch));
	ret = ps->ev_map && ps->group_of && ps->status && ps->scratch ? 0 : -ENOMEM;
	for (size_t k = 0; k < ps->nev && ret == 0; k++)
		ret = profile_event_index(p, s->proc->events[k], &ps->ev_map[k]);
	if (ret) {
		region_pass_abandon(ps);
		return ret;
	}
	*out = ps;
	return 0;
}

/* The consumer's state (region_profile_consumer): the pass of the stream being walked. */
struct region_consumer {
	struct region_profile *p;
	struct region_pass *ps;
};

static int rc_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct region_consumer *rc = ctx;
	int ret = region_pass_begin(rc->p, loc->stream, &rc->ps);

	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int rc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct region_consumer *rc = ctx;

	return region_pass_record(rc->ps, ev->raw, err, errlen);
}

static int rc_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct region_consumer *rc = ctx;
	struct region_pass *ps = rc->ps;

	(void)loc;
	rc->ps = NULL;
	return region_pass_end(ps, f, err, errlen);
}

static void rc_release(void *ctx)
{
	struct region_consumer *rc = ctx;

	if (rc->ps)
		region_pass_abandon(rc->ps);
	free(rc);
}

int region_profile_consumer(struct ev_consumer *c, struct region_profile *p,
			    const struct experiment *e)
{
	struct region_consumer *rc = calloc(1, sizeof(*rc));

	/* the records region_pass_record() reads: every kind of event that carries them */
	*c = (struct ev_consumer){.name = "regions",
				  .kinds = EV_BIT(EV_REGION_ENTER) | EV_BIT(EV_REGION_EXIT) |
					   EV_BIT(EV_COUNTERS) | EV_BIT(EV_LOST) |
					   EV_BIT(EV_THREAD_NAME) | EV_BIT(EV_MARKER),
				  .locations = EV_LOC_STREAMS,
				  .ctx = rc,
				  .location_begin = rc_begin,
				  .event = rc_event,
				  .location_end = rc_end,
				  .release = rc_release};
	if (!rc) {
		memset(p, 0, sizeof(*p));
		return -ENOMEM;
	}
	rc->p = p;
	return region_profile_init(p, e);
}

int region_profile_build(struct region_profile *p, const struct experiment *e, char *err,
			 size_t errlen)
{
	struct ev_consumer c, *list[] = {&c};
	int ret = region_profile_consumer(&c, p, e);

	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	else
		ret = ev_pass_experiment(e, list, 1, 0, err, errlen);
	ev_consumer_release(&c);
	return ret;
}

/* region_profile_merge_threads, finding OUT's rows by name in BY_NAME. */
static int merge_threads(const struct region_profile *in, struct region_profile *out,
			 struct strmap *by_name)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < in->nevents; i++) {
		size_t idx;

		if (profile_event_index(out, in->events[i], &idx))
			return -ENOMEM;
	}
	out->unmatched_ends = in->unmatched_ends;
	out->unclosed = in->unclosed;
	out->duration_ns = in->duration_ns;
	/* the threads' summaries carry the caveats: keep them */
	out->threads = calloc(in->nthreads + 1, sizeof(*out->threads));
	if (!out->threads)
		return -ENOMEM;
	memcpy(out->threads, in->threads, in->nthreads * sizeof(*in->threads));
	out->nthreads = in->nthreads;
	for (size_t r = 0; r < in->nrows; r++) {
		const struct region_row *src = &in->rows[r];
		struct region_row *dst;
		size_t k;

		if (strmap_get(by_name, src->name, &k)) {
			dst = &out->rows[k];
		} else {
			dst = row_new(out, src->name, src->pid, 0);
			/* the row's own copy of the name is the key: it lives as long as the row */
			if (!dst || strmap_put(by_name, dst->name, out->nrows - 1))
				return -ENOMEM;
			for (size_t i = 0; i < in->nevents; i++)
				dst->status[i] = 0;
		}
		dst->calls += src->calls;
		dst->unclosed += src->unclosed;
		dst->incl_ns += src->incl_ns;
		dst->excl_ns += src->excl_ns;
		dst->counter_gaps += src->counter_gaps;
		if (dst->min_ns < 0 || src->min_ns < dst->min_ns)
			dst->min_ns = src->min_ns;
		if (src->max_ns > dst->max_ns)
			dst->max_ns = src->max_ns;
		for (size_t i = 0; i < in->nevents; i++) {
			count_add(&dst->counts[i], &src->counts[i]);
			if (src->status[i] && !dst->status[i])
				dst->status[i] = src->status[i];
		}
	}
	return 0;
}

int region_profile_merge_threads(const struct region_profile *in, struct region_profile *out)
{
	struct strmap by_name = {0}; /* row name -> row index in OUT */
	int ret = merge_threads(in, out, &by_name);

	strmap_release(&by_name);
	return ret;
}

void region_profile_release(struct region_profile *p)
{
	for (size_t r = 0; r < p->nrows; r++) {
		free(p->rows[r].name);
		free(p->rows[r].counts);
		free(p->rows[r].status);
	}
	for (size_t i = 0; i < p->nevents; i++)
		free(p->events[i]);
	free(p->events);
	free(p->rows);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}

int region_row_value(const struct region_row *row, size_t i, uint64_t *out)
{
	if (row->status[i] || (row->calls && row->counter_gaps >= row->calls))
		return -ENODATA;
	return count_scale(&row->counts[i], out);
}

struct row_lookup {
	const struct region_profile *p;
	const struct region_row *row;
};

static int row_lookup(void *arg, const char *name, double *value)
{
	const struct row_lookup *c = arg;
	uint64_t v;

	if (!strcmp(name, METRIC_BUILTIN_TIME_NS)) {
		*value = c->row->incl_ns;
		return 0;
	}
	if (!strcmp(name, METRIC_BUILTIN_TIME_S)) {
		*value = c->row->incl_ns / 1e9;
		return 0;
	}
	for (size_t i = 0; i < c->p->nevents; i++) {
		if (strcmp(c->p->events[i], name))
			continue;
		if (region_row_value(c->row, i, &v))
			return -ENODATA;
		*value = (double)v;
		return 0;
	}
	return -ENOENT;
}

int region_row_metric(const struct region_profile *p, const struct region_row *row,
		      const struct metric *m, double *out, char *missing, size_t len)
{
	struct row_lookup c = {p, row};
	int ret = metric_eval(m, row_lookup, &c, out);

	if (ret == -ENODATA && missing)
		metric_expr_missing(m->expr, row_lookup, &c, missing, len);
	return ret;
}
