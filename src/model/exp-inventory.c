/* exp-inventory.c - what an experiment holds, stream by stream: a consumer of the pass that
 * sees every record of a stream as its event. */
#include "model/exp-inventory.h"

#include "model/pass.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* REC's place among the kinds (exp-inventory.h, INVENTORY_NKINDS). */
static size_t kind_index(const struct stream_record *rec)
{
	if (rec->kind != PSC_KIND_EXT)
		return rec->kind == PSC_KIND_FUNC_ENTER ? 0 : 1;
	return (size_t)rec->type + 1;
}

const char *inventory_kind_name(size_t k)
{
	struct stream_record rec = {.kind = PSC_KIND_EXT};

	if (k < 2)
		rec.kind = k ? PSC_KIND_FUNC_EXIT : PSC_KIND_FUNC_ENTER;
	else
		rec.type = (enum psc_rec_type)(k - 1);
	return stream_record_name(&rec);
}

int inventory_kind_samples_only(size_t k)
{
	return k >= PSC_REC_SAMPLE_GROUP + 1u &&
	       (k <= PSC_REC_SAMPLE_TOTALS + 1u || k == PSC_REC_SWITCH + 1u);
}

/* The stream's header must match its file name: a flipped pid or tid is corruption. */
static int check_name(const struct stream_info *si, char *err, size_t errlen)
{
	const struct exp_stream *s = si->s;
	const struct psc_stream_header *h = &si->hdr;

	if (h->pid != (uint32_t)s->pid || h->tid != (uint32_t)s->tid)
		snprintf(err, errlen,
			 "%s: byte %d: the header says pid %u tid %u, the file name %d.%d", s->path,
			 h->pid != (uint32_t)s->pid ? 24 : 28, h->pid, h->tid, (int)s->pid,
			 (int)s->tid);
	else if (h->image != s->image)
		snprintf(err, errlen, "%s: byte 60: the header says image %u, the file name %u",
			 s->path, h->image, s->image);
	else
		return 0;
	return -EINVAL;
}

/* A - B, saturated: a damaged clock fit gives times near INT64_MIN or INT64_MAX. */
static int64_t ns_sub(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(a, b, &d))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return d;
}

/* The consumer: the inventory it fills. */
struct inv_consumer {
	struct exp_inventory *inv;
	struct stream_info *si; /* of the stream being read */
};

static int inv_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct inv_consumer *ic = ctx;
	struct stream_info *si = &ic->inv->streams[loc->index];

	/* an experiment's source: its streams are its first locations, in its order */
	ic->si = si;
	memset(si, 0, sizeof(*si));
	si->s = loc->stream;
	if (!loc->hdr) /* not opened: the pass fails with the reader's message */
		return 0;
	si->hdr = *loc->hdr;
	si->bytes = loc->reader->file_size;
	return check_name(si, err, errlen);
}

/* EV counted as the record it was read from: a call by its kind (the exits made up for a
 * killed run are no record), every other event by its record. */
static void inv_count(struct stream_info *si, const struct event *ev)
{
	const struct stream_record *rec = ev->raw;

	if (ev->kind == EV_CALL_ENTER || ev->kind == EV_CALL_EXIT) {
		si->by_kind[ev->kind == EV_CALL_EXIT] += !ev->call.synthetic;
		return;
	}
	if (!rec)
		return;
	if (kind_index(rec) < INVENTORY_NKINDS) /* the reader returns no other type */
		si->by_kind[kind_index(rec)]++;
	if (rec->kind == PSC_KIND_EXT && rec->type == PSC_REC_THREAD_NAME)
		snprintf(si->thread, sizeof(si->thread), "%s", (const char *)rec->payload);
	if (rec->kind == PSC_KIND_EXT && rec->type == PSC_REC_LOST) {
		si->lost_records += rec->payload[0];
		si->lost_bytes += rec->payload[1];
	}
}

static int inv_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	struct inv_consumer *ic = ctx;

	(void)err, (void)errlen;
	for (size_t i = 0; i < n; i++)
		inv_count(ic->si, &ev[i]);
	return 0;
}

static int inv_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	return inv_events(ctx, ev, 1, err, errlen);
}

/* What the reader found, and the stream's span on its process's clock. */
static int inv_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		   char *err, size_t errlen)
{
	struct stream_info *si = ((struct inv_consumer *)ctx)->si;
	const struct stream_reader *r = loc->reader;
	const struct exp_stream *s = si->s;

	if (f->error) { /* only with EV_PASS_KEEP_GOING: a defect fails the inventory all the same
			 */
		snprintf(err, errlen, "%s", f->errmsg);
		return f->error;
	}
	si->records = r->nrecords;
	si->first_ticks = r->first_ticks;
	si->last_ticks = r->last_ticks;
	si->chunks = r->next_seq;
	si->ended = r->ended;
	si->end_arg = r->end_reason;
	si->cut_at = r->truncated_at;
	if (si->records && s->proc) {
		int64_t base = (int64_t)r->hdr.start_ns; /* below 2^63: the reader checked */

		si->last_at = clock_fit_ns(&s->proc->fit, si->last_ticks);
		si->first_ns = ns_sub(clock_fit_ns(&s->proc->fit, si->first_ticks), base);
		si->last_ns = ns_sub(si->last_at, base);
	}
	return 0;
}

void stream_info_end_text(const struct stream_info *si, char *buf, size_t len)
{
	unsigned sig = si->end_arg >> 8;

	if (si->ended && (si->end_arg & 0xffu) == PSC_END_SIGNAL) {
		const char *abbrev = sig < 65 ? sigabbrev_np((int)sig) : NULL;

		snprintf(buf, len, "signal %u%s%s%s", sig, abbrev ? " (SIG" : "",
			 abbrev ? abbrev : "", abbrev ? ")" : "");
	} else if (si->ended) {
		snprintf(buf, len, "%s", stream_end_reason_name(si->end_arg));
	} else if (si->cut_at) {
		snprintf(buf, len, "cut at byte %" PRIu64, si->cut_at);
	} else {
		snprintf(buf, len, "no end record");
	}
}

/* Whether P is the command record started: no process of E is its parent (true of the command
 * when it runs the runtime, which a dynamically linked one does). */
static int launched(const struct experiment *e, const struct exp_process *p)
{
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].pid == p->ppid)
			return 0;
	return 1;
}

void inventory_process_state(const struct experiment *e, const struct exp_process *p,
			     const struct stream_info *si, size_t n, char *buf, size_t len)
{
	int64_t last = 0;
	int known = 0;

	for (size_t i = 0; i < n; i++) {
		if (si[i].s->proc != p)
			continue;
		if (si[i].ended && (si[i].end_arg & 0xffu) == PSC_END_SIGNAL) {
			stream_info_end_text(&si[i], buf, len);
			return;
		}
		if (si[i].records && (!known || si[i].last_at > last))
			last = si[i].last_at, known = 1;
	}
	if (strcmp(p->state, "running"))
		snprintf(buf, len, "%s", p->state[0] ? p->state : "unknown");
	else if (known && e->end_ns && last > e->end_ns &&
		 (!p->host[0] || !e->host || !strcmp(p->host, e->host)))
		snprintf(buf, len,
			 "running (outlived the command: still running when record ended)");
	else if (e->exit_signal > 0 && launched(e, p))
		snprintf(buf, len, "running (killed: the command ended by signal %d)",
			 e->exit_signal);
	else if (e->exit_signal < 0 && e->exit_status > 128 && launched(e, p))
		snprintf(buf, len, "running (killed: the command ended by signal %d)",
			 e->exit_status - 128);
	else if (e->exit_status < 0 && e->created_by && !strcmp(e->created_by, "perfscope record"))
		snprintf(buf, len, "running (did not end cleanly; record was killed too)");
	else
		snprintf(buf, len,
			 "running (did not end cleanly: killed, or still running when "
			 "record ended)");
}

int inventory_span_ns(const struct stream_info *si, size_t n, double *out)
{
	int64_t lo = 0, hi = 0;
	int known = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t a, b;

		if (!si[i].records || !si[i].s->proc)
			continue;
		a = ns_sub(si[i].last_at, ns_sub(si[i].last_ns, si[i].first_ns));
		b = si[i].last_at;
		if (!known || a < lo)
			lo = a;
		if (!known || b > hi)
			hi = b;
		known = 1;
	}
	*out = (double)hi - (double)lo;
	return known;
}

size_t inventory_streams_of(const struct exp_process *p, const struct stream_info *si, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += si[i].s->proc == p;
	return k;
}

/* Processes in pid order, then image order. */
static int proc_cmp(const void *a, const void *b)
{
	const struct exp_process *x = *(const struct exp_process *const *)a;
	const struct exp_process *y = *(const struct exp_process *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->image > y->image) - (x->image < y->image);
}

int exp_inventory_consumer(struct ev_consumer *c, struct exp_inventory *inv,
			   const struct experiment *e)
{
	struct inv_consumer *ic = calloc(1, sizeof(*ic));

	memset(inv, 0, sizeof(*inv));
	*c = (struct ev_consumer){.name = "inventory",
				  .kinds = EV_ALL,
				  .locations = EV_LOC_STREAMS,
				  .ctx = ic,
				  .location_begin = inv_begin,
				  .event = inv_event,
				  .events = inv_events,
				  .location_end = inv_end,
				  .release = free};
	inv->e = e;
	inv->streams = calloc(e->nstreams + 1, sizeof(*inv->streams));
	inv->procs = calloc(e->nprocs + 1, sizeof(*inv->procs));
	if (!ic || !inv->streams || !inv->procs)
		return -ENOMEM;
	ic->inv = inv;
	for (size_t i = 0; i < e->nprocs; i++)
		inv->procs[i] = &e->procs[i];
	qsort(inv->procs, e->nprocs, sizeof(*inv->procs), proc_cmp);
	return 0;
}

int exp_inventory_read(struct exp_inventory *inv, const struct experiment *e, char *err,
		       size_t errlen)
{
	struct ev_consumer c, *list[] = {&c};
	int ret = exp_inventory_consumer(&c, inv, e);

	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	else
		ret = ev_pass_experiment(e, list, 1, 0, err, errlen);
	ev_consumer_release(&c);
	return ret;
}

void exp_inventory_release(struct exp_inventory *inv)
{
	free(inv->streams);
	free(inv->procs);
	memset(inv, 0, sizeof(*inv));
}
