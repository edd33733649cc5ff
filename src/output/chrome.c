/* chrome.c - Chrome Trace Event JSON, streamed from the call walker (chrome.h). */
#include "chrome.h"

#include "../analysis/calls.h"
#include "../analysis/stream.h"
#include "../core/clock.h"
#include "../core/counts.h"
#include "../core/format.h"
#include "../core/jsonw.h"
#include "../lib/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP	 (1u << 20) /* output buffer: written out in blocks of this size */
#define ROOM_MAX 256	    /* the most one event needs besides its name */
#define PREFIX	 64	    /* an event's head up to "ts": fits in this, copied whole */
#define NAME_PAD 48	    /* names up to this long are copied as a whole block */

/* Buffered output: whole blocks go to the FILE, the first write error is kept. */
struct out {
	FILE *f;
	char *buf;
	size_t len;
	int error;
	int first; /* no event written yet: the next needs no comma */
	uint64_t bytes;
	uint64_t events;
	uint64_t ts_us; /* the integer microseconds last printed, and their digits */
	char ts_text[24];
	size_t ts_len;
};

/* Rendered name suffixes of one process, by function address. */
struct name_slot {
	uint64_t addr;
	size_t off;   /* of the text in names.text */
	uint32_t len; /* 0: empty slot */
};

struct names {
	struct name_slot *slots;
	size_t nslots, nused; /* nslots: a power of two */
	char *text;	      /* ,"name":"..."} for each slot */
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

static void out_flush(struct out *o)
{
	if (o->len && !o->error && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->error = errno ? -errno : -EIO;
	o->bytes += o->len;
	o->len = 0;
}

/* Room for N (<= OUT_CAP) more bytes at the end of the buffer. */
static inline char *out_room(struct out *o, size_t n)
{
	if (OUT_CAP - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

static void out_put(struct out *o, const void *p, size_t n)
{
	if (OUT_CAP - o->len < n) {
		out_flush(o);
		if (n > OUT_CAP) {
			if (!o->error && fwrite(p, 1, n, o->f) != n)
				o->error = errno ? -errno : -EIO;
			o->bytes += n;
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

#define out_lit(o, lit) out_put((o), (lit), sizeof(lit) - 1)

/* S escaped, in pieces that never split a UTF-8 sequence. */
static void out_escaped(struct out *o, const char *s, size_t len)
{
	while (len) {
		size_t k = len < 4096 ? len : 4096;

		for (size_t back = 0; k < len && back < 3 && ((unsigned char)s[k] & 0xc0) == 0x80;
		     back++)
			k--;
		o->len += jsonw_escape(out_room(o, 6 * k), s, k);
		s += k;
		len -= k;
	}
}

static void out_string(struct out *o, const char *s)
{
	out_lit(o, "\"");
	out_escaped(o, s, strlen(s));
	out_lit(o, "\"");
}

static void out_u64(struct out *o, uint64_t v)
{
	o->len += chrome_format_u64(out_room(o, 24), v);
}

/* The separator before an event. */
static inline char *event_start(struct out *o, char *p)
{
	if (o->first) {
		o->first = 0;
		*p++ = '\n';
	} else {
		*p++ = ',';
		*p++ = '\n';
	}
	o->events++;
	return p;
}

/* The time at P: consecutive events mostly share their microseconds, whose digits are kept. */
static inline char *put_ts(struct out *o, char *p, int64_t ns)
{
	uint64_t us, r;

	if (ns < 0)
		return p + chrome_format_us(p, ns);
	us = (uint64_t)ns / 1000;
	r = (uint64_t)ns % 1000;
	if (us != o->ts_us) {
		o->ts_us = us;
		o->ts_len = chrome_format_u64(o->ts_text, us);
	}
	memcpy(p, o->ts_text, sizeof(o->ts_text));
	p += o->ts_len;
	p[0] = '.';
	p[1] = (char)('0' + r / 100);
	p[2] = (char)('0' + r / 10 % 10);
	p[3] = (char)('0' + r % 10);
	return p + 4;
}

/* Separator, the head PREFIX (up to "ts":, N bytes, in a PREFIX-sized array) and the time. */
static inline char *event_head_at(struct out *o, const char *prefix, size_t n, int64_t rel_ns)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	memcpy(p, prefix, PREFIX);
	return put_ts(o, p + n, rel_ns);
}

static inline void event_head(struct out *o, const char *prefix, size_t n, int64_t rel_ns)
{
	o->len = (size_t)(event_head_at(o, prefix, n, rel_ns) - o->buf);
}

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
	free(n->slots);
	free(n->text);
	memset(n, 0, sizeof(*n));
}

static void names_reset(struct names *n, const struct exp_process *proc)
{
	if (n->slots)
		memset(n->slots, 0, n->nslots * sizeof(*n->slots));
	n->nused = 0;
	n->len = 0;
	n->proc = proc;
	n->last_len = 0;
}

static inline size_t slot_of(uint64_t addr, size_t nslots)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (nslots - 1);
}

static int names_grow(struct names *n)
{
	size_t ns = n->nslots ? n->nslots * 2 : 1024;
	struct name_slot *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < n->nslots; i++) {
		const struct name_slot *from = &n->slots[i];
		size_t k;

		if (!from->len)
			continue;
		for (k = slot_of(from->addr, ns); slots[k].len; k = (k + 1) & (ns - 1))
			;
		slots[k] = *from;
	}
	free(n->slots);
	n->slots = slots;
	n->nslots = ns;
	return 0;
}

/* The rendered ,"name":"..."} of ADDR in stream S's process: looked up once per address. */
static int names_get(struct names *n, struct symtab *st, const struct exp_stream *s, uint64_t addr,
		     const char **text, size_t *len)
{
	struct sym_info info;
	struct name_slot *slot;
	size_t k, need, nlen;

	if (n->last_len && n->last_addr == addr) {
		*text = n->text + n->last_off;
		*len = n->last_len;
		return 0;
	}
	if ((n->nused + 1) * 2 > n->nslots && names_grow(n))
		return -ENOMEM;
	for (k = slot_of(addr, n->nslots); n->slots[k].len; k = (k + 1) & (n->nslots - 1))
		if (n->slots[k].addr == addr)
			break;
	slot = &n->slots[k];
	if (!slot->len) {
		symtab_lookup(st, s->pid, s->image, addr, &info); /* -ENOMEM: "[unknown]" form */
		nlen = strlen(info.name);
		if (nlen > (UINT32_MAX - 16) / 6)
			nlen = (UINT32_MAX - 16) / 6;
		need = 6 * nlen + 16 + NAME_PAD; /* a short name is read as NAME_PAD bytes */
		if (n->cap - n->len < need) {
			size_t cap = n->cap ? n->cap : 4096;
			char *t;

			while (cap - n->len < need)
				cap *= 2;
			t = realloc(n->text, cap);
			if (!t)
				return -ENOMEM;
			n->text = t;
			n->cap = cap;
		}
		slot->addr = addr;
		slot->off = n->len;
		memcpy(n->text + n->len, ",\"name\":\"", 9);
		n->len += 9;
		n->len += jsonw_escape(n->text + n->len, info.name, nlen);
		memcpy(n->text + n->len, "\"}", 2);
		n->len += 2;
		slot->len = (uint32_t)(n->len - slot->off);
		n->nused++;
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

/* The counters record of T's stream (it precedes every snapshot). 0 (t->layout 1 or -1), or
 * -ENOMEM. */
static int track_layout(struct track *t)
{
	const struct exp_process *proc = t->s->proc;

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
	if (!stream_counters_layout(t->s->path, (uint32_t)t->nev, t->group_of, t->status))
		return 0;
	for (size_t i = 0; i < t->nev; i++) {
		const char *ev = proc->events[i];
		size_t elen = strlen(ev), n;
		char tid[24], *c;

		c = malloc(6 * elen + 64);
		if (!c)
			return -ENOMEM;
		n = 0;
		memcpy(c, ",\"name\":\"", 9);
		n = 9 + jsonw_escape(c + 9, ev, elen);
		tid[chrome_format_u64(tid, (uint64_t)t->s->tid)] = 0;
		n += (size_t)sprintf(c + n, " tid %s\",\"args\":{\"value\":", tid);
		t->cnames[i] = c;
		t->ncnames[i] = n;
	}
	t->layout = 1;
	return 0;
}

/* "C" events with each counted event's scaled value in the snapshot of EV. */
static int counters_event(struct out *o, struct track *t, const struct call_event *ev,
			  struct chrome_stats *stats)
{
	int64_t rel = ev->ns - t->origin;
	int ret;

	if (ev->nsnapshot == 0)
		return 0;
	if (t->layout == 0 && (ret = track_layout(t)) < 0)
		return ret;
	if (t->layout < 0 ||
	    count_snapshot_decode(ev->snapshot, ev->nsnapshot, t->group_of, t->nev, t->counts))
		return 0;
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
	return 0;
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

static int region_event(struct out *o, struct track *t, const struct call_event *ev,
			struct chrome_stats *stats)
{
	int64_t rel = ev->ns - t->origin;
	size_t k;

	t->had_regions = 1;
	if (ev->type == CALL_REGION_ENTER) {
		if (t->nregions == t->regions_cap) {
			size_t cap = t->regions_cap ? 2 * t->regions_cap : 16;
			struct open_region *r = realloc(t->regions, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			t->regions = r;
			t->regions_cap = cap;
		}
		t->regions[t->nregions++].id = ev->region;
		stats->regions++;
		event_head(o, t->rb, t->nrb, rel);
		out_lit(o, ",\"cat\":\"region\",\"name\":");
		if (ev->name) {
			out_string(o, ev->name);
		} else {
			out_lit(o, "\"region ");
			out_u64(o, ev->region);
			out_lit(o, "\"");
		}
		out_lit(o, "}");
		return counters_event(o, t, ev, stats);
	}
	for (k = t->nregions; k > 0 && t->regions[k - 1].id != ev->region; k--)
		;
	if (k == 0) /* an end without a begin (or of an undefined id): nothing to close */
		return counters_event(o, t, ev, stats);
	/* regions left open inside this one end here, flagged */
	while (t->nregions > k) {
		t->nregions--;
		region_end(o, t, rel, 0);
	}
	t->nregions--;
	region_end(o, t, rel, 1);
	return counters_event(o, t, ev, stats);
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
static void thread_meta(struct out *o, const struct track *t, const struct call_thread *th)
{
	const struct exp_stream *s = t->s;
	const char *exe = s->proc->exe ? base_name(s->proc->exe) : "";
	const char *name = th->name[0] ? th->name : s->tid == s->pid ? exe : "";
	char label[64];

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

static int write_stream(struct out *o, struct names *names, struct symtab *st,
			const struct exp_stream *s, int64_t origin, struct chrome_stats *stats,
			char *err, size_t errlen)
{
	struct call_walker w;
	struct call_event ev;
	struct track t;
	int ret;

	if (names->proc != s->proc)
		names_reset(names, s->proc);
	track_init(&t, s, origin);
	ret = call_walker_open(&w, s, err, errlen);
	if (ret < 0) {
		call_walker_close(&w);
		return ret;
	}
	while ((ret = call_walker_next(&w, &ev, err, errlen)) > 0 && !o->error) {
		const char *text;
		size_t len;

		switch (ev.type) {
		case CALL_ENTER:
			ret = names_get(names, st, s,
					symtab_place(st, s->pid, s->image, ev.addr, ev.ns), &text,
					&len);
			if (ret < 0)
				break;
			if (len <= NAME_PAD) {
				char *p = event_head_at(o, t.b, t.nb, ev.ns - origin);

				memcpy(p, text, NAME_PAD);
				o->len = (size_t)(p + len - o->buf);
			} else {
				event_head(o, t.b, t.nb, ev.ns - origin);
				out_put(o, text, len);
			}
			stats->calls++;
			break;
		case CALL_EXIT:
			if (ev.synthetic) {
				event_head(o, t.e, t.ne, ev.ns - origin);
				out_lit(o, ",\"args\":{\"exit_recorded\":false}}");
			} else {
				char *p = event_head_at(o, t.e, t.ne, ev.ns - origin);

				*p++ = '}';
				o->len = (size_t)(p - o->buf);
			}
			break;
		case CALL_REGION_ENTER:
		case CALL_REGION_EXIT:
			ret = region_event(o, &t, &ev, stats);
			break;
		}
		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", s->path);
			break;
		}
	}
	if (ret > 0) /* stopped by a write error, which the caller reports */
		ret = 0;
	if (ret == 0) {
		/* regions a killed run left open end with the stream's last record */
		while (t.nregions) {
			t.nregions--;
			region_end(o, &t, w.th.last_ns - origin, 0);
		}
		thread_meta(o, &t, &w.th);
		stats->synthetic_exits += w.th.synthetic_exits;
		stats->unmatched_exits += w.th.unmatched_exits;
		stats->lost_records += w.th.lost_records;
		stats->threads++;
	}
	call_walker_close(&w);
	track_release(&t);
	return ret;
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

int chrome_write(FILE *f, struct experiment *e, struct symtab *st, struct chrome_stats *stats,
		 char *err, size_t errlen)
{
	struct out o = {.f = f, .first = 1, .ts_us = UINT64_MAX};
	struct names names;
	struct chrome_stats local;
	int64_t origin = time_origin(e);
	int ret = 0;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	memset(&names, 0, sizeof(names));
	o.buf = malloc(OUT_CAP);
	if (!o.buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	header(&o, e, origin);
	process_meta(&o, e);
	for (size_t i = 0; i < e->nstreams && ret == 0 && !o.error; i++)
		ret = write_stream(&o, &names, st, &e->streams[i], origin, stats, err, errlen);
	if (ret == 0) {
		out_lit(&o, "\n]}\n");
		out_flush(&o);
		if (!o.error && fflush(f) != 0)
			o.error = errno ? -errno : -EIO;
		if (o.error) {
			ret = o.error;
			snprintf(err, errlen, "write failed: %s", strerror(-ret));
		}
	}
	stats->events = o.events;
	stats->bytes = o.bytes;
	names_release(&names);
	free(o.buf);
	return ret;
}
