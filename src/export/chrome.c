/* chrome.c - Chrome Trace Event JSON, streamed by a consumer of the pass (chrome.h). */
#include "export/chrome-model.h"
#include "export/chrome-omp.h"

#include "format/stream.h"
#include "pmu/clock.h"
#include "pmu/counts.h"
#include "format/format.h"
#include "lib/array.h"
#include "lib/hashmap.h"
#include "lib/jsonw.h"
#include "lib/strbuf.h"
#include "model/thread-label.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Where the rendered name suffix of one function is in names.text. */
struct name_slot {
	size_t off;
	uint32_t len;
};

/* Rendered name suffixes of one process, by function address. */
struct names {
	struct u64map by_addr; /* function address -> index in slots */
	struct name_slot *slots;
	size_t nslots, slots_cap;
	char *text; /* ,"name":"..."} for each slot */
	size_t len, cap;
	const struct exp_process *proc; /* whose addresses these are */
	uint64_t last_addr;		/* the previous lookup, answered without hashing */
	size_t last_off;
	uint32_t last_len;
};

/* An open region on a thread's region track. */
struct open_region {
	uint32_t id;
};

/* One thread's tracks while its stream is written. */
struct track {
	const struct exp_stream *s;
	char b[PREFIX], e[PREFIX], rb[PREFIX], re[PREFIX], c[PREFIX]; /* heads up to "ts": */
	size_t nb, ne, nrb, nre, nc;
	int64_t origin;
	struct open_region *regions;
	size_t nregions, regions_cap;
	int had_regions;
	/* counters: layout from the stream's counters record, read when first needed */
	int layout; /* 0 not read yet, 1 known, -1 none */
	uint32_t *group_of;
	int32_t *status;
	size_t nev;
	struct count *counts;
	char **cnames; /* per event: ,"name":"EVENT tid T","args":{"value": */
	size_t *ncnames;
};

/* A metadata event: {"ph":"M","pid":P[,"tid":T],"name":KIND,"args":{"name":NAME}} without
 * the closing "}}" when OPEN (the caller adds more args). */
static void meta_event(struct out *o, pid_t pid, long long tid, const char *kind, const char *name,
		       int open)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	o->len = (size_t)(p - o->buf);
	out_lit(o, "{\"ph\":\"M\",\"pid\":");
	out_u64(o, (uint64_t)pid);
	if (tid >= 0) {
		out_lit(o, ",\"tid\":");
		out_u64(o, (uint64_t)tid);
	}
	out_lit(o, ",\"name\":");
	out_string(o, kind);
	out_lit(o, ",\"args\":{\"name\":");
	out_string(o, name);
	if (!open)
		out_lit(o, "}}");
}

static void sort_index_event(struct out *o, pid_t pid, long long tid, long long index)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	o->len = (size_t)(p - o->buf);
	out_lit(o, "{\"ph\":\"M\",\"pid\":");
	out_u64(o, (uint64_t)pid);
	out_lit(o, ",\"tid\":");
	out_u64(o, (uint64_t)tid);
	out_lit(o, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
	out_u64(o, (uint64_t)index);
	out_lit(o, "}}");
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* ---- function names ---- */

static void names_release(struct names *n)
{
	u64map_release(&n->by_addr);
	free(n->slots);
	free(n->text);
	memset(n, 0, sizeof(*n));
}

static void names_reset(struct names *n, const struct exp_process *proc)
{
	u64map_clear(&n->by_addr);
	n->nslots = 0;
	n->len = 0;
	n->proc = proc;
	n->last_len = 0;
}

/* The rendered ,"name":"..."} of ADDR in stream S's process: looked up once per address. */
static int names_get(struct names *n, struct symtab *st, const struct exp_stream *s, uint64_t addr,
		     const char **text, size_t *len)
{
	struct sym_info info;
	struct name_slot *slot;
	size_t need, nlen;
	uint64_t at;

	if (n->last_len && n->last_addr == addr) {
		*text = n->text + n->last_off;
		*len = n->last_len;
		return 0;
	}
	if (u64map_get(&n->by_addr, addr, &at)) {
		slot = &n->slots[at];
	} else {
		symtab_lookup(st, s->pid, s->image, addr, &info); /* -ENOMEM: "[unknown]" form */
		nlen = strlen(info.name);
		if (nlen > (UINT32_MAX - 16) / 6)
			nlen = (UINT32_MAX - 16) / 6;
		need = 6 * nlen + 16 + NAME_PAD; /* a short name is read as NAME_PAD bytes */
		if (ARRAY_GROW(n->text, n->len + need, n->cap) ||
		    ARRAY_GROW(n->slots, n->nslots + 1, n->slots_cap) ||
		    u64map_put(&n->by_addr, addr, n->nslots))
			return -ENOMEM;
		slot = &n->slots[n->nslots++];
		slot->off = n->len;
		memcpy(n->text + n->len, ",\"name\":\"", 9);
		n->len += 9;
		n->len += jsonw_escape(n->text + n->len, info.name, nlen);
		memcpy(n->text + n->len, "\"}", 2);
		n->len += 2;
		slot->len = (uint32_t)(n->len - slot->off);
	}
	n->last_addr = addr;
	n->last_off = slot->off;
	n->last_len = slot->len;
	*text = n->text + slot->off;
	*len = slot->len;
	return 0;
}

/* ---- counters ---- */

static void track_release(struct track *t)
{
	for (size_t i = 0; i < t->nev; i++)
		free(t->cnames ? t->cnames[i] : NULL);
	free(t->cnames);
	free(t->ncnames);
	free(t->group_of);
	free(t->status);
	free(t->counts);
	free(t->regions);
	memset(t, 0, sizeof(*t));
}

/* The counter layout of T's stream from its counters record EV (the first one: it precedes
 * every snapshot). 0 (t->layout 1, or -1 when it does not fit the process's events), or
 * -ENOMEM. */
static int track_layout(struct track *t, const struct event *ev)
{
	const struct exp_process *proc = t->s->proc;
	const struct stream_record *rec = ev->raw;

	t->layout = -1;
	if (proc->nevents == 0)
		return 0;
	t->nev = proc->nevents;
	t->group_of = calloc(t->nev, sizeof(*t->group_of));
	t->status = calloc(t->nev, sizeof(*t->status));
	t->counts = calloc(t->nev, sizeof(*t->counts));
	t->cnames = calloc(t->nev, sizeof(*t->cnames));
	t->ncnames = calloc(t->nev, sizeof(*t->ncnames));
	if (!t->group_of || !t->status || !t->counts || !t->cnames || !t->ncnames)
		return -ENOMEM;
	if (!rec || rec->arg != t->nev || ev->counters.nevents < t->nev)
		return 0;
	for (size_t i = 0; i < t->nev; i++) {
		const char *name = proc->events[i];
		size_t elen = strlen(name), n;
		char tid[24], *c;

		t->group_of[i] = ev->counters.group_of[i];
		t->status[i] = ev->counters.status[i];
		c = malloc(6 * elen + 64);
		if (!c)
			return -ENOMEM;
		memcpy(c, ",\"name\":\"", 9);
		n = 9 + jsonw_escape(c + 9, name, elen);
		tid[chrome_format_u64(tid, (uint64_t)t->s->tid)] = 0;
		n += (size_t)sprintf(c + n, " tid %s\",\"args\":{\"value\":", tid);
		t->cnames[i] = c;
		t->ncnames[i] = n;
	}
	t->layout = 1;
	return 0;
}

/* "C" events with each counted event's scaled value in the snapshot of EV. */
static void counters_event(struct out *o, struct track *t, const struct event *ev,
			   struct chrome_stats *stats)
{
	int64_t rel = ev->ns - t->origin;

	if (ev->region.nsnapshot == 0 || t->layout <= 0 ||
	    count_snapshot_decode(ev->region.snapshot, ev->region.nsnapshot, t->group_of, t->nev,
				  t->counts))
		return;
	for (size_t i = 0; i < t->nev; i++) {
		uint64_t v;

		if (t->group_of[i] == PSC_NO_GROUP || t->status[i] != 0 ||
		    count_scale(&t->counts[i], &v) < 0)
			continue;
		event_head(o, t->c, t->nc, rel);
		out_put(o, t->cnames[i], t->ncnames[i]);
		out_u64(o, v);
		out_lit(o, "}}");
		stats->counter_values++;
	}
}

/* ---- regions ---- */

static void region_end(struct out *o, struct track *t, int64_t rel, int recorded)
{
	event_head(o, t->re, t->nre, rel);
	if (recorded)
		out_lit(o, "}");
	else
		out_lit(o, ",\"args\":{\"end_recorded\":false}}");
}

static int region_event(struct out *o, struct track *t, const struct event *ev,
			struct chrome_stats *stats)
{
	int64_t rel = ev->ns - t->origin;
	uint32_t id = ev->region.id;
	size_t k;

	t->had_regions = 1;
	if (ev->kind == EV_REGION_ENTER) {
		if (ARRAY_GROW(t->regions, t->nregions + 1, t->regions_cap))
			return -ENOMEM;
		t->regions[t->nregions++].id = id;
		stats->regions++;
		event_head(o, t->rb, t->nrb, rel);
		out_lit(o, ",\"cat\":\"region\",\"name\":");
		if (ev->region.name) {
			out_string(o, ev->region.name);
		} else {
			out_lit(o, "\"region ");
			out_u64(o, id);
			out_lit(o, "\"");
		}
		out_lit(o, "}");
		counters_event(o, t, ev, stats);
		return 0;
	}
	for (k = t->nregions; k > 0 && t->regions[k - 1].id != id; k--)
		;
	if (k == 0) { /* an end without a begin (or of an undefined id): nothing to close */
		counters_event(o, t, ev, stats);
		return 0;
	}
	/* regions left open inside this one end here, flagged */
	while (t->nregions > k) {
		t->nregions--;
		region_end(o, t, rel, 0);
	}
	t->nregions--;
	region_end(o, t, rel, 1);
	counters_event(o, t, ev, stats);
	return 0;
}

/* ---- streams ---- */

static size_t prefix(char *dst, char ph, pid_t pid, uint64_t tid)
{
	size_t n = (size_t)sprintf(dst, "{\"ph\":\"%c\",\"pid\":", ph);

	n += chrome_format_u64(dst + n, (uint64_t)pid);
	memcpy(dst + n, ",\"tid\":", 7);
	n += 7;
	n += chrome_format_u64(dst + n, tid);
	memcpy(dst + n, ",\"ts\":", 6);
	return n + 6;
}

static void track_init(struct track *t, const struct exp_stream *s, int64_t origin)
{
	uint64_t tid = (uint64_t)s->tid, rtid = tid + CHROME_REGION_TID_OFFSET;

	memset(t, 0, sizeof(*t));
	t->s = s;
	t->origin = origin;
	t->nb = prefix(t->b, 'B', s->pid, tid);
	t->ne = prefix(t->e, 'E', s->pid, tid);
	t->nrb = prefix(t->rb, 'B', s->pid, rtid);
	t->nre = prefix(t->re, 'E', s->pid, rtid);
	t->nc = prefix(t->c, 'C', s->pid, tid);
}

/* Thread names after the stream (its name record and caveats are known at its end). */
static void thread_meta(struct out *o, const struct track *t, const struct ev_location_facts *th)
{
	const struct exp_stream *s = t->s;
	const char *exe = s->proc->exe ? base_name(s->proc->exe) : "";
	const char *name = th->name[0] ? th->name : s->tid == s->pid ? exe : "";
	char label[64], omp[48];

	if (thread_label(omp, sizeof(omp), th, s->proc->rank))
		name = omp;
	meta_event(o, s->pid, s->tid, "thread_name", name[0] ? name : "thread", 1);
	if (th->synthetic_exits) {
		out_lit(o, ",\"synthetic_exits\":");
		out_u64(o, th->synthetic_exits);
	}
	if (th->unmatched_exits) {
		out_lit(o, ",\"unmatched_exits\":");
		out_u64(o, th->unmatched_exits);
	}
	if (th->lost_records) {
		out_lit(o, ",\"lost_records\":");
		out_u64(o, th->lost_records);
	}
	if (th->truncated_at) {
		out_lit(o, ",\"truncated_at_byte\":");
		out_u64(o, th->truncated_at);
	}
	out_lit(o, "}}");
	sort_index_event(o, s->pid, s->tid, 2 * (long long)s->tid);
	if (!t->had_regions)
		return;
	snprintf(label, sizeof(label), "regions of %s", name[0] ? name : "thread");
	meta_event(o, s->pid, (long long)s->tid + CHROME_REGION_TID_OFFSET, "thread_name", label,
		   0);
	sort_index_event(o, s->pid, (long long)s->tid + CHROME_REGION_TID_OFFSET,
			 2 * (long long)s->tid + 1);
}

/* ---- the whole trace ---- */

/* Process names: the executables of each pid's images, rank first under MPI. */
static void process_meta(struct out *o, const struct experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *p = &e->procs[i];
		size_t done = 0;
		struct strbuf name = STRBUF_INIT;

		for (size_t j = 0; j < i; j++)
			done |= e->procs[j].pid == p->pid;
		if (done)
			continue;
		if (p->rank >= 0)
			strbuf_addf(&name, "rank %d ", p->rank);
		/* images in exec order */
		for (unsigned img = 0, found = 1; found && !name.err; img++) {
			found = 0;
			for (size_t j = i; j < e->nprocs; j++) {
				const struct exp_process *q = &e->procs[j];

				if (q->pid != p->pid || q->image != img)
					continue;
				strbuf_addf(&name, "%s%s", img ? " -> " : "",
					    q->exe && q->exe[0] ? base_name(q->exe) : "?");
				found = 1;
				break;
			}
		}
		if (!name.err)
			meta_event(o, p->pid, -1, "process_name", strbuf_str(&name), 0);
		else if (!o->error)
			o->error = name.err;
		strbuf_release(&name);
	}
}

static void header(struct out *o, const struct experiment *e, int64_t origin)
{
	char num[24];

	out_lit(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"perfscope\"");
	if (e->created_by && e->created_by[0]) {
		out_lit(o, ",\"created_by\":");
		out_string(o, e->created_by);
	}
	if (e->ncommand) {
		out_lit(o, ",\"command\":\"");
		for (size_t i = 0; i < e->ncommand; i++) {
			if (i)
				out_lit(o, " ");
			out_escaped(o, e->command[i], strlen(e->command[i]));
		}
		out_lit(o, "\"");
	}
	if (e->host && e->host[0]) {
		out_lit(o, ",\"host\":");
		out_string(o, e->host);
	}
	if (e->clock && e->clock[0]) {
		out_lit(o, ",\"clock\":");
		out_string(o, e->clock);
	}
	/* as strings: JavaScript numbers are not exact beyond 2^53 */
	num[chrome_format_u64(num, (uint64_t)origin)] = 0;
	out_lit(o, ",\"ts_origin_monotonic_ns\":");
	out_string(o, num);
	if (e->start_unix_ns) {
		num[chrome_format_u64(num, e->start_unix_ns)] = 0;
		out_lit(o, ",\"start_unix_ns\":");
		out_string(o, num);
	}
	out_lit(o, "},\"traceEvents\":[");
}

/* The earliest clock pair of any process: time 0 of the trace. */
static int64_t time_origin(const struct experiment *e)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < e->nprocs; i++)
		for (size_t j = 0; j < e->procs[i].npairs; j++)
			if (e->procs[i].pairs[j].ns < min)
				min = e->procs[i].pairs[j].ns;
	return min == UINT64_MAX ? 0 : (int64_t)min;
}

/* ---- the consumer ---- */

struct chrome {
	struct out o;
	struct names names;
	struct track t;
	const struct experiment *e;
	struct symtab *st;
	struct chrome_stats *stats, local;
	struct chrome_model *model;
	int mpi_open; /* the model has an MPI call open (chrome_model_mpi()): a function's exit
		       * ends it, without a call into the model at every exit */
	struct chrome_omp *omp;
	int64_t origin;
};

/* The first write error of C, said in ERR. */
static int write_failed(struct chrome *c, char *err, size_t errlen)
{
	snprintf(err, errlen, "write failed: %s", strerror(-c->o.error));
	return c->o.error;
}

static int chrome_location_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct chrome *c = ctx;

	if (c->o.error)
		return write_failed(c, err, errlen);
	if (!loc->stream)
		return 0; /* a samples file */
	chrome_model_location(c->model);
	c->mpi_open = 0;
	chrome_omp_location(c->omp);
	if (c->names.proc != loc->proc)
		names_reset(&c->names, loc->proc);
	track_release(&c->t);
	track_init(&c->t, loc->stream, c->origin);
	return 0;
}

/* The B event of a call entered at EV. 0 or -ENOMEM. */
static int call_enter(struct chrome *c, const struct event *ev)
{
	const struct exp_stream *s = c->t.s;
	struct out *o = &c->o;
	const char *text;
	size_t len;
	int ret;

	ret = names_get(&c->names, c->st, s,
			symtab_place(c->st, s->pid, s->image, ev->call.addr, ev->ns), &text, &len);
	if (ret < 0)
		return ret;
	if (len <= NAME_PAD) {
		char *p = event_head_at(o, c->t.b, c->t.nb, ev->ns - c->origin);

		memcpy(p, text, NAME_PAD);
		o->len = (size_t)(p + len - o->buf);
	} else {
		event_head(o, c->t.b, c->t.nb, ev->ns - c->origin);
		out_put(o, text, len);
	}
	c->stats->calls++;
	return 0;
}

static void call_exit(struct chrome *c, const struct event *ev)
{
	struct out *o = &c->o;

	if (ev->call.synthetic) {
		event_head(o, c->t.e, c->t.ne, ev->ns - c->origin);
		out_lit(o, ",\"args\":{\"exit_recorded\":false}}");
	} else {
		char *p = event_head_at(o, c->t.e, c->t.ne, ev->ns - c->origin);

		*p++ = '}';
		o->len = (size_t)(p - o->buf);
	}
}

/* The MPI call open on LOC, if any, ends at NS (a killed run's). */
static inline void mpi_close(struct chrome *c, const struct ev_location *loc, int64_t ns)
{
	if (c->mpi_open) {
		chrome_model_close(c->model, &c->o, loc, ns - c->origin);
		c->mpi_open = 0;
	}
}

static int chrome_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct chrome *c = ctx;
	int ret = 0;

	switch (ev->kind) {
	case EV_CALL_ENTER:
		ret = call_enter(c, ev);
		break;
	case EV_CALL_EXIT:
		mpi_close(c, ev->loc, ev->ns);
		call_exit(c, ev);
		break;
	case EV_REGION_ENTER:
	case EV_REGION_EXIT:
		ret = region_event(&c->o, &c->t, ev, c->stats);
		break;
	case EV_COUNTERS:
		if (c->t.layout == 0)
			ret = track_layout(&c->t, ev);
		break;
	case EV_MPI_COMM:
	case EV_MPI_ENTER:
	case EV_MPI_LEAVE:
		ret = chrome_model_mpi(c->model, &c->o, ev, c->origin, c->stats);
		if (ret >= 0) {
			c->mpi_open = ret;
			ret = 0;
		}
		break;
	case EV_SAMPLE:
	case EV_TASK:
		if (ev->loc->samples)
			ret = chrome_model_sample(c->model, &c->o, c->st, ev, c->origin, c->stats);
		break;
	default:
		if (chrome_omp_kinds() & EV_BIT(ev->kind))
			ret = chrome_omp_event(c->omp, &c->o, ev, c->origin);
		break;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: out of memory", ev->loc->name);
		return ret;
	}
	return c->o.error ? write_failed(c, err, errlen) : 0;
}

/* A batch of call events (ev_consumer.events): chrome_event() without its call per event. */
static int chrome_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct chrome *c = ctx;

	for (size_t i = 0; i < n; i++) {
		int ret = 0;

		if (ev[i].kind == EV_CALL_ENTER) {
			ret = call_enter(c, &ev[i]);
		} else {
			mpi_close(c, ev[i].loc, ev[i].ns);
			call_exit(c, &ev[i]);
		}
		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", ev[i].loc->name);
			return ret;
		}
		if (c->o.error)
			return write_failed(c, err, errlen);
	}
	return 0;
}

static int chrome_location_end(void *ctx, const struct ev_location *loc,
			       const struct ev_location_facts *facts, char *err, size_t errlen)
{
	struct chrome *c = ctx;

	if (!loc->stream)
		return c->o.error ? write_failed(c, err, errlen) : 0;
	/* MPI calls and regions a killed run left open end with the stream's last record; a
	 * stream without records (cut inside its first chunk) has none open and no last record */
	if (facts->first_ns <= facts->last_ns) {
		mpi_close(c, loc, facts->last_ns);
		if (chrome_omp_close(c->omp, &c->o, facts->last_ns - c->origin) < 0) {
			snprintf(err, errlen, "%s: out of memory", loc->name);
			return -ENOMEM;
		}
		while (c->t.nregions) {
			c->t.nregions--;
			region_end(&c->o, &c->t, facts->last_ns - c->origin, 0);
		}
	}
	thread_meta(&c->o, &c->t, facts);
	c->stats->synthetic_exits += facts->synthetic_exits;
	c->stats->unmatched_exits += facts->unmatched_exits;
	c->stats->lost_records += facts->lost_records;
	c->stats->threads++;
	track_release(&c->t);
	return c->o.error ? write_failed(c, err, errlen) : 0;
}

static int chrome_finish(void *ctx, char *err, size_t errlen)
{
	struct chrome *c = ctx;

	chrome_omp_finish(c->omp, &c->o);
	out_lit(&c->o, "\n]}\n");
	out_flush(&c->o);
	if (!c->o.error && fflush(c->o.f) != 0)
		c->o.error = errno ? -errno : -EIO;
	c->stats->events = c->o.events;
	c->stats->bytes = c->o.bytes;
	return c->o.error ? write_failed(c, err, errlen) : 0;
}

static void chrome_release(void *ctx)
{
	struct chrome *c = ctx;

	c->stats->events = c->o.events;
	c->stats->bytes = c->o.bytes;
	names_release(&c->names);
	track_release(&c->t);
	chrome_model_free(c->model);
	chrome_omp_free(c->omp);
	free(c->o.buf);
	free(c);
}

int chrome_consumer(struct ev_consumer *consumer, FILE *f, const struct experiment *e,
		    struct symtab *st, struct chrome_stats *stats)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c || !(c->o.buf = malloc(OUT_CAP)) || chrome_model_new(&c->model) < 0 ||
	    chrome_omp_new(&c->omp, st) < 0) {
		if (c) {
			chrome_model_free(c->model);
			free(c->o.buf);
		}
		free(c);
		return -ENOMEM;
	}
	c->o.f = f;
	c->o.first = 1;
	c->o.ts_us = UINT64_MAX;
	c->e = e;
	c->st = st;
	c->stats = stats ? stats : &c->local;
	memset(c->stats, 0, sizeof(*c->stats));
	c->origin = time_origin(e);
	header(&c->o, e, c->origin);
	process_meta(&c->o, e);
	*consumer = (struct ev_consumer){
	    .name = "chrome",
	    .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT) | EV_BIT(EV_REGION_ENTER) |
		     EV_BIT(EV_REGION_EXIT) | EV_BIT(EV_COUNTERS) | EV_BIT(EV_MPI_COMM) |
		     EV_BIT(EV_MPI_ENTER) | EV_BIT(EV_MPI_LEAVE) | EV_BIT(EV_SAMPLE) |
		     EV_BIT(EV_TASK) | chrome_omp_kinds(),
	    .ctx = c,
	    .location_begin = chrome_location_begin,
	    .event = chrome_event,
	    .events = chrome_events,
	    .location_end = chrome_location_end,
	    .finish = chrome_finish,
	    .release = chrome_release,
	};
	return 0;
}

int chrome_write(FILE *f, struct experiment *e, struct symtab *st, struct chrome_stats *stats,
		 char *err, size_t errlen)
{
	struct ev_consumer c = {0}, *cs[1] = {&c};
	int ret = chrome_consumer(&c, f, e, st, stats);

	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = ev_pass_experiment(e, cs, 1, 0, err, errlen);
	ev_consumer_release(&c);
	return ret;
}
