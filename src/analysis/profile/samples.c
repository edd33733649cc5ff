/* samples.c - samples files as samples with counter deltas, threads and markers. */
#include "analysis/profile/samples.h"
#include "model/pass.h"
#include "format/stream.h"
#include "model/symbols.h"
#include "lib/array.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Completed on-CPU spans a (thread, cpu) keeps at most: past this, those every group that has
 * sampled there is past are dropped (a silent group loses them), and if none is, the two
 * closest ones merge.
 */
#define MAX_SPANS 64

/*
 * Where a thread ran on a CPU, from the switch records: the spans every group's samples on
 * that CPU have not all been handed yet. A group's sample takes those after its previous
 * sample there (prev_vals' time); a span goes once every group's sample there is past it.
 */
struct sample_oncpu {
	uint64_t since;	   /* switched in at this time and still on the CPU, or 0 */
	uint64_t last_rec; /* time of the last switch record, or 0 */
	uint64_t last_out; /* time of the last switch out, or 0 */
	uint64_t *iv;	   /* completed spans: n [from, to] pairs in time order */
	uint32_t n;
	size_t cap; /* pairs */
};

static struct sample_thread *thread_get(struct sample_walk *w, pid_t pid, pid_t tid, size_t *idx)
{
	for (size_t i = w->nthreads; i-- > 0;)
		if (w->threads[i].tid == tid && w->threads[i].pid == pid) {
			*idx = i;
			return &w->threads[i];
		}
	if (ARRAY_GROW(w->threads, w->nthreads + 1, w->threadcap))
		return NULL;
	memset(&w->threads[w->nthreads], 0, sizeof(w->threads[0]));
	w->threads[w->nthreads].pid = pid;
	w->threads[w->nthreads].tid = tid;
	*idx = w->nthreads;
	return &w->threads[w->nthreads++];
}

static int mark(struct sample_walk *w, uint64_t ns, uint64_t pidtid, int kind)
{
	if (ARRAY_GROW(w->markers, w->nmarkers + 1, w->markercap))
		return -ENOMEM;
	w->markers[w->nmarkers++] =
	    (struct sample_marker){ns, (pid_t)(uint32_t)pidtid, (pid_t)(pidtid >> 32), kind};
	return 0;
}

static uint64_t state_key(uint64_t tid, uint64_t cpu, uint64_t group)
{
	return tid << 32 | (cpu & 0xffff) << 16 | (group & 0xffff);
}

/*
 * The state of (tid, cpu, group): its previous values (2 + nevents words in prev_vals, zero
 * when new: sample time, time_running, the values). Its index, or SIZE_MAX when out of memory.
 */
static size_t state_get(struct sample_walk *w, uint64_t tid, uint64_t cpu, uint64_t group)
{
	uint64_t key = state_key(tid, cpu, group), idx;
	size_t words = 2 + (size_t)w->nevents;

	if (u64map_get(w->prev, key, &idx))
		return (size_t)idx;
	/* prev_vals' elements are states of WORDS words */
	if (array_reserve((void **)&w->prev_vals, &w->prevcap, w->nprev + 1,
			  words * sizeof(*w->prev_vals)))
		return SIZE_MAX;
	if (u64map_put(w->prev, key, w->nprev))
		return SIZE_MAX;
	memset(w->prev_vals + w->nprev * words, 0, words * sizeof(uint64_t));
	return w->nprev++;
}

/* The on-CPU spans of (tid, cpu), new ones empty; NULL when out of memory. */
static struct sample_oncpu *oncpu_get(struct sample_walk *w, uint64_t tid, uint64_t cpu)
{
	uint64_t key = state_key(tid, cpu, 0), idx;

	if (u64map_get(w->cpus, key, &idx))
		return &w->oncpu[idx];
	if (ARRAY_GROW(w->oncpu, w->noncpu + 1, w->oncpucap))
		return NULL;
	if (u64map_put(w->cpus, key, w->noncpu))
		return NULL;
	memset(&w->oncpu[w->noncpu], 0, sizeof(w->oncpu[0]));
	return &w->oncpu[w->noncpu++];
}

/* Forget every state (a new file begins). */
static void states_reset(struct sample_walk *w)
{
	for (size_t i = 0; i < w->noncpu; i++)
		free(w->oncpu[i].iv);
	if (w->prev)
		u64map_clear(w->prev);
	if (w->cpus)
		u64map_clear(w->cpus);
	w->nprev = w->noncpu = 0;
}

/* Append the on-CPU span [FROM, TO] to O, merging its two closest spans when it is full. */
static int span_add(struct sample_oncpu *o, uint64_t from, uint64_t to)
{
	if (o->n && from < o->iv[2 * o->n - 1])
		from = o->iv[2 * o->n - 1];
	if (to <= from)
		return 0;
	if (o->n == MAX_SPANS) {
		uint32_t best = 1;

		for (uint32_t i = 2; i < o->n; i++)
			if (o->iv[2 * i] - o->iv[2 * i - 1] < o->iv[2 * best] - o->iv[2 * best - 1])
				best = i;
		/* the off-CPU gap between spans best - 1 and best counts as on-CPU from now */
		o->iv[2 * best - 1] = o->iv[2 * best + 1];
		memmove(o->iv + 2 * best, o->iv + 2 * best + 2,
			(size_t)(o->n - best - 1) * 2 * sizeof(uint64_t));
		o->n--;
	}
	/* iv's elements are [from, to] pairs */
	if (array_reserve((void **)&o->iv, &o->cap, (size_t)o->n + 1, 2 * sizeof(*o->iv)))
		return -ENOMEM;
	o->iv[2 * o->n] = from;
	o->iv[2 * o->n + 1] = to;
	o->n++;
	return 0;
}

/*
 * Drop the spans of O (thread TID on CPU) that every group's sample there is past: all of
 * them once each group has sampled after their end. With SAMPLED_ONLY (O is full), a group
 * that has not sampled there since the end of O's first span (or never) does not hold them:
 * it has gone quiet behind every span kept, and its next sample gets the spans that are left.
 */
static void spans_prune(struct sample_walk *w, struct sample_oncpu *o, uint64_t tid, uint64_t cpu,
			int sampled_only)
{
	size_t words = 2 + (size_t)w->nevents;
	uint64_t oldest = UINT64_MAX, idx;
	uint32_t keep = 0;

	for (uint32_t g = 0; g < (w->ngroups ? w->ngroups : 1); g++) {
		uint64_t t = u64map_get(w->prev, state_key(tid, cpu, g), &idx)
				 ? w->prev_vals[idx * words]
				 : 0;

		if (sampled_only && (t == 0 || (o->n && t < o->iv[1])))
			continue;
		if (t < oldest)
			oldest = t;
	}
	if (oldest == UINT64_MAX)
		return;
	while (keep < o->n && o->iv[2 * keep + 1] <= oldest)
		keep++;
	if (!keep)
		return;
	memmove(o->iv, o->iv + 2 * keep, (size_t)(o->n - keep) * 2 * sizeof(uint64_t));
	o->n -= keep;
}

/*
 * A switch record: the thread went on or off a CPU. A switch out closes the span that began at
 * the switch in (or at the last switch record, or at the start when no record said when the
 * thread came: the root's first CPU); each group takes of it what is after its last sample.
 */
static int on_switch(struct sample_walk *w, const struct stream_record *rec)
{
	uint64_t tid = rec->payload[0] >> 32, cpu = w->per_cpu ? rec->arg & 0xffffu : 0;
	struct sample_oncpu *o = oncpu_get(w, tid, cpu);

	if (!o)
		return -ENOMEM;
	if (!((rec->arg >> 16) & PSC_SWITCH_OUT)) {
		o->since = rec->ticks;
	} else {
		uint64_t from = o->since ? o->since : o->last_rec;

		/*
		 * Full: a group that has not sampled here since the first span kept must not make
		 * the others' spans merge (off-CPU gaps counted as on-CPU); its next sample starts
		 * at the spans kept.
		 */
		if (o->n == MAX_SPANS)
			spans_prune(w, o, tid, cpu, 1);
		if (span_add(o, from > w->start_ns ? from : w->start_ns, rec->ticks))
			return -ENOMEM;
		o->since = 0;
		o->last_out = rec->ticks;
	}
	o->last_rec = rec->ticks;
	return 0;
}

/*
 * The spans sample S's deltas were counted in, into w->spans: those of O after LAST, the time
 * of the previous sample of S's group on that CPU (0: none), then the span up to the sample.
 * 0 or -ENOMEM.
 */
static int sample_spans(struct sample_walk *w, struct sample_oncpu *o, uint64_t last,
			struct sample *s)
{
	uint64_t covered = 0, from;
	size_t n = 0;

	if (ARRAY_GROW(w->spans, 2 * ((size_t)o->n + 1), w->spancap))
		return -ENOMEM;
	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t a = o->iv[2 * i] > last ? o->iv[2 * i] : last, b = o->iv[2 * i + 1];

		if (b <= a)
			continue;
		w->spans[n++] = a;
		w->spans[n++] = b;
		covered += b - a;
	}
	/* on the CPU since its switch in, or since the group's last sample there */
	from = o->since ? (o->since > last ? o->since : last) : (last > o->last_out ? last : 0);
	if (!from) {
		/*
		 * No record says when the thread came on this CPU (the root, running since its
		 * exec): the on-CPU time the spans do not cover ends at the sample.
		 */
		uint64_t rest = s->weight_ns > covered ? s->weight_ns - covered : 0;

		from = s->ns > rest ? s->ns - rest : 0;
		if (from < last)
			from = last;
		if (from < o->last_rec)
			from = o->last_rec;
		if (from < w->start_ns)
			from = w->start_ns;
	}
	if (n && from < w->spans[n - 1])
		from = w->spans[n - 1];
	if (s->ns > from || !n) {
		w->spans[n++] = from < s->ns ? from : s->ns;
		w->spans[n++] = s->ns;
	}
	s->spans = w->spans;
	s->nspans = n / 2;
	s->from_ns = w->spans[0];
	return 0;
}

static unsigned image_get(struct sample_walk *w, pid_t pid)
{
	uint64_t v = 1;

	u64map_get(w->images, (uint64_t)(uint32_t)pid, &v);
	return v ? (unsigned)(v - 1) : 0;
}

/* A task record: thread names, and exec, which starts the next image of its process. */
static int on_task(struct sample_walk *w, const struct stream_record *rec, pid_t root)
{
	const uint64_t *p = rec->payload;
	pid_t pid = (pid_t)(uint32_t)p[0], tid = (pid_t)(p[0] >> 32);
	struct sample_thread *t;
	size_t idx;

	if (rec->arg == PSC_TASK_EXEC) {
		uint64_t v = pid == root ? 0 : 1;

		/* the root's first exec is the launch itself: image 0 begins there */
		u64map_get(w->images, (uint64_t)(uint32_t)pid, &v);
		if (u64map_put(w->images, (uint64_t)(uint32_t)pid, v + 1) ||
		    mark(w, rec->ticks, p[0], MARK_EXEC))
			return -ENOMEM;
	}
	if (rec->arg == PSC_TASK_EXIT)
		return mark(w, rec->ticks, p[0], MARK_EXIT);
	if (rec->arg == PSC_TASK_COMM || rec->arg == PSC_TASK_EXEC) {
		t = thread_get(w, pid, tid, &idx);
		if (!t)
			return -ENOMEM;
		snprintf(t->name, sizeof(t->name), "%.*s", (int)sizeof(t->name) - 1,
			 (const char *)(p + 1));
	}
	return 0;
}

static int on_sample(struct sample_walk *w, const struct stream_record *rec, const uint64_t *groups,
		     int (*fn)(void *, const struct sample *), void *ctx)
{
	const uint64_t *p = rec->payload, *val = p + 6;
	uint64_t nr = p[3], *prev, running = p[5], last;
	struct sample s = {0};
	struct sample_thread *t;
	size_t idx;

	s.ns = rec->ticks;
	s.pid = (pid_t)(uint32_t)p[0];
	s.tid = (pid_t)(p[0] >> 32);
	s.ip = p[1];
	s.cpu = (unsigned)(p[2] & 0xffff);
	s.kernel = !!((p[2] >> 16) & PSC_SAMPLE_KERNEL);
	s.group = rec->arg;
	s.nchain = (size_t)(p[2] >> 32);
	s.nkchain = (size_t)(p[2] >> PSC_SAMPLE_KFRAMES_SHIFT) & PSC_SAMPLE_KFRAMES_MAX;
	s.chain = val + nr;
	s.image = image_get(w, s.pid);
	t = thread_get(w, s.pid, s.tid, &s.thread);
	/* per-CPU events count a thread per CPU; a per-task event (before Linux 6.12) follows it */
	idx = state_get(w, (uint64_t)(uint32_t)s.tid, w->per_cpu ? s.cpu : 0, s.group);
	if (!t || idx == SIZE_MAX)
		return -ENOMEM;
	prev = w->prev_vals + idx * (2 + (size_t)w->nevents);
	last = prev[0];
	memset(w->delta, 0, w->nevents * sizeof(uint64_t));
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t ev = groups[rec->arg * w->nevents + k];

		/* counts only grow; a smaller value is a new thread with a recycled tid */
		w->delta[ev] = val[k] >= prev[2 + ev] ? val[k] - prev[2 + ev] : val[k];
		prev[2 + ev] = val[k];
	}
	s.weight_ns = running >= prev[1] ? running - prev[1] : running;
	s.from_ns = s.ns > s.weight_ns ? s.ns - s.weight_ns : 0;
	if (s.from_ns < prev[0])
		s.from_ns = prev[0];
	if (s.from_ns < w->start_ns)
		s.from_ns = w->start_ns;
	prev[0] = s.ns;
	prev[1] = running;
	s.delta = w->delta;
	if (w->switches) {
		uint64_t tid = (uint64_t)(uint32_t)s.tid, cpu = w->per_cpu ? s.cpu : 0;
		struct sample_oncpu *o = oncpu_get(w, tid, cpu);

		if (!o || sample_spans(w, o, last, &s))
			return -ENOMEM;
		spans_prune(w, o, tid, cpu, 0);
	} else {
		w->spans[0] = s.from_ns;
		w->spans[1] = s.ns;
		s.spans = w->spans;
		s.nspans = 1;
	}
	if (!t->samples)
		t->first_ns = s.ns;
	t->samples++;
	t->last_ns = s.ns;
	t->weight_ns += s.weight_ns;
	w->samples++;
	return fn ? fn(ctx, &s) : 0;
}

/* A sample's kernel frames are some of its call chain: 0, or -EINVAL with the message in ERR. */
static int check_kframes(const struct exp_samples *f, const struct stream_record *rec, char *err,
			 size_t errlen)
{
	unsigned nk = (unsigned)(rec->payload[2] >> PSC_SAMPLE_KFRAMES_SHIFT) &
		      PSC_SAMPLE_KFRAMES_MAX,
		 n = (unsigned)(rec->payload[2] >> 32);

	if (nk <= n)
		return 0;
	/* word 2 of the payload: after the record's two words and two more */
	snprintf(err, errlen,
		 "%s: byte %llu: a sample's %u kernel frames are more than its call chain of %u",
		 f->path, (unsigned long long)rec->offset + 32, nk, n);
	return -EINVAL;
}

/* The consumer's state (samples_consumer). */
struct samples_consumer {
	struct sample_walk *w;
	int (*fn)(void *ctx, const struct sample *s);
	void *ctx;
	struct exp_samples f; /* the file being read: its path and the pid of its command */
	uint64_t *groups;     /* per group, its members' event indices */
};

/* A samples file's header: for as many events as meta.json. */
static int sc_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct samples_consumer *sc = ctx;
	struct sample_walk *w = sc->w;
	const struct psc_stream_header *h = loc->hdr;

	states_reset(w);
	u64map_clear(w->images);
	if (!(h->features & PSC_FEAT_SAMPLES) || h->nevents != w->nevents) {
		snprintf(err, errlen, "%s: byte 56: %u sampled events, meta.json lists %u",
			 loc->name, h->nevents, w->nevents);
		return -EINVAL;
	}
	free(sc->groups);
	sc->groups = calloc((size_t)w->nevents * w->nevents + 1, sizeof(*sc->groups));
	if (!sc->groups)
		return -ENOMEM;
	sc->f = (struct exp_samples){(char *)loc->name, loc->pid};
	if (!w->start_ns || h->start_ns < w->start_ns)
		w->start_ns = h->start_ns;
	w->switches = !!(h->features & PSC_FEAT_SWITCHES);
	w->ngroups = 0;
	return 0;
}

static int add_totals(struct sample_walk *w, const struct stream_record *rec)
{
	if (!w->totals)
		w->totals = calloc(3 * (size_t)w->nevents + 1, sizeof(uint64_t));
	if (!w->totals)
		return -ENOMEM;
	for (size_t k = 0; k < 3 * (size_t)w->nevents; k++)
		w->totals[k] = rec->payload[k] == UINT64_MAX || w->totals[k] == UINT64_MAX
				   ? UINT64_MAX
				   : w->totals[k] + rec->payload[k];
	return 0;
}

/* One record of the file. */
static int sc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct samples_consumer *sc = ctx;
	struct sample_walk *w = sc->w;
	const struct stream_record *rec = ev->raw;
	int ret = 0;

	if (rec->ticks > w->end_ns)
		w->end_ns = rec->ticks;
	if (rec->kind != PSC_KIND_EXT)
		return 0;
	switch (rec->type) {
	case PSC_REC_SAMPLE_GROUP:
		for (size_t k = 0; k < rec->npayload; k++)
			sc->groups[rec->arg * w->nevents + k] = rec->payload[k];
		if (rec->arg >= w->ngroups)
			w->ngroups = rec->arg + 1;
		break;
	case PSC_REC_SWITCH:
		ret = w->switches ? on_switch(w, rec) : 0;
		break;
	case PSC_REC_SAMPLE:
		ret = check_kframes(&sc->f, rec, err, errlen);
		if (ret)
			return ret;
		ret = on_sample(w, rec, sc->groups, sc->fn, sc->ctx);
		break;
	case PSC_REC_TASK:
		ret = on_task(w, rec, sc->f.pid);
		break;
	case PSC_REC_THROTTLE:
		ret = mark(w, rec->ticks, rec->payload[0],
			   rec->arg ? MARK_THROTTLE : MARK_UNTHROTTLE);
		w->throttled += rec->arg;
		break;
	case PSC_REC_LOST:
		if (rec->arg == PSC_LOST_UNWRITTEN)
			w->unwritten += rec->payload[0];
		else
			w->lost += rec->payload[0];
		break;
	case PSC_REC_SAMPLE_TOTALS:
		ret = add_totals(w, rec);
		break;
	default:
		break;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", sc->f.path);
	return ret;
}

static int sc_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct samples_consumer *sc = ctx;

	(void)loc, (void)err, (void)errlen;
	sc->w->ended &= f->ended;
	return 0;
}

static void sc_release(void *ctx)
{
	struct samples_consumer *sc = ctx;

	free(sc->groups);
	free(sc);
}

int samples_consumer(struct ev_consumer *c, const struct experiment *e, struct sample_walk *w,
		     int (*fn)(void *ctx, const struct sample *s), void *ctx)
{
	struct samples_consumer *sc = calloc(1, sizeof(*sc));

	memset(w, 0, sizeof(*w));
	*c = (struct ev_consumer){.name = "samples",
				  .kinds = EV_ALL,
				  .locations = EV_LOC_SAMPLES,
				  .ctx = sc,
				  .location_begin = sc_begin,
				  .event = sc_event,
				  .location_end = sc_end,
				  .release = sc_release};
	if (!sc)
		return -ENOMEM;
	sc->w = w;
	sc->fn = fn;
	sc->ctx = ctx;
	w->nevents = (uint32_t)e->sampling.nevents;
	w->per_cpu = !e->has_sampling || e->sampling.inherit;
	w->ended = 1;
	w->prev = calloc(1, sizeof(*w->prev));
	w->cpus = calloc(1, sizeof(*w->cpus));
	w->images = calloc(1, sizeof(*w->images));
	w->delta = calloc(w->nevents + 1, sizeof(uint64_t));
	w->spans = calloc(2, sizeof(uint64_t));
	w->spancap = 2;
	if (!w->prev || !w->cpus || !w->images || !w->delta || !w->spans)
		return -ENOMEM;
	return 0;
}

int samples_walk(const struct experiment *e, struct sample_walk *w,
		 int (*fn)(void *ctx, const struct sample *s), void *ctx, char *err, size_t errlen)
{
	struct ev_consumer c, *list[] = {&c};
	int ret = samples_consumer(&c, e, w, fn, ctx);

	if (ret == 0)
		ret = ev_pass_experiment(e, list, 1, 0, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	ev_consumer_release(&c);
	return ret;
}

void sample_walk_release(struct sample_walk *w)
{
	states_reset(w);
	free(w->oncpu);
	free(w->spans);
	if (w->prev)
		u64map_release(w->prev);
	if (w->cpus)
		u64map_release(w->cpus);
	free(w->cpus);
	if (w->images)
		u64map_release(w->images);
	free(w->prev);
	free(w->images);
	free(w->prev_vals);
	free(w->delta);
	free(w->threads);
	free(w->markers);
	free(w->totals);
	memset(w, 0, sizeof(*w));
}

const char *sample_function_name(const struct sym_info *sym, char *buf, size_t len)
{
	const char *slash = strrchr(sym->module, '/');

	if (sym->known)
		return sym->name;
	if (!*sym->module)
		return "[unknown]";
	if (*sym->module == '[')
		return sym->module;
	snprintf(buf, len, "%s (no symbols)", slash ? slash + 1 : sym->module);
	return buf;
}
