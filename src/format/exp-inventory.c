/* exp-inventory.c - what an experiment holds, stream by stream, read through the validating
 * reader. */
#include "format/exp-inventory.h"

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

/* Read the whole stream of S into SI. 0, or a negative errno with the message in ERR. */
static int stream_info_read(struct stream_info *si, const struct exp_stream *s, char *err,
			    size_t errlen)
{
	struct stream_reader r;
	struct stream_record rec;
	int ret;

	memset(si, 0, sizeof(*si));
	si->s = s;
	ret = stream_open(&r, s->path, err, errlen);
	if (ret)
		return ret;
	si->hdr = r.hdr;
	si->bytes = r.file_size;
	ret = check_name(si, err, errlen);
	while (ret == 0 && (ret = stream_next(&r, &rec, err, errlen)) > 0) {
		if (si->records++ == 0)
			si->first_ticks = rec.ticks;
		si->last_ticks = rec.ticks;
		if (kind_index(&rec) < INVENTORY_NKINDS) /* the reader returns no other type */
			si->by_kind[kind_index(&rec)]++;
		if (rec.kind == PSC_KIND_EXT && rec.type == PSC_REC_THREAD_NAME)
			snprintf(si->thread, sizeof(si->thread), "%s", (const char *)rec.payload);
		if (rec.kind == PSC_KIND_EXT && rec.type == PSC_REC_LOST) {
			si->lost_records += rec.payload[0];
			si->lost_bytes += rec.payload[1];
		}
		ret = 0;
	}
	si->chunks = r.next_seq;
	si->ended = r.ended;
	si->end_arg = r.end_reason;
	si->cut_at = r.truncated_at;
	if (si->records && s->proc) {
		int64_t base = (int64_t)r.hdr.start_ns; /* below 2^63: the reader checked */

		si->last_at = clock_fit_ns(&s->proc->fit, si->last_ticks);
		si->first_ns = ns_sub(clock_fit_ns(&s->proc->fit, si->first_ticks), base);
		si->last_ns = ns_sub(si->last_at, base);
	}
	stream_close(&r);
	return ret;
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

int exp_inventory_read(struct exp_inventory *inv, const struct experiment *e, char *err,
		       size_t errlen)
{
	memset(inv, 0, sizeof(*inv));
	inv->e = e;
	inv->streams = calloc(e->nstreams + 1, sizeof(*inv->streams));
	inv->procs = calloc(e->nprocs + 1, sizeof(*inv->procs));
	if (!inv->streams || !inv->procs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->nprocs; i++)
		inv->procs[i] = &e->procs[i];
	qsort(inv->procs, e->nprocs, sizeof(*inv->procs), proc_cmp);
	for (size_t i = 0; i < e->nstreams; i++) {
		int ret = stream_info_read(&inv->streams[i], &e->streams[i], err, errlen);

		if (ret)
			return ret;
	}
	return 0;
}

void exp_inventory_release(struct exp_inventory *inv)
{
	free(inv->streams);
	free(inv->procs);
	memset(inv, 0, sizeof(*inv));
}
