/*
 * cmd-info.c - `perfscope info`: what an experiment holds. The experiment (command, host, CPU,
 * clock, start, duration), its processes (how each ended, clock calibration, losses) and its
 * streams (thread, size, chunks, records by kind, time span, how each ended), read through
 * the validating reader: a defect stops the command with the file and byte offset.
 */
#include "cli/cli.h"

#include "model/experiment-open.h"
#include "model/objcache.h"
#include "analysis/profile/samples.h"
#include "format/stream.h"
#include "lib/jsonw.h"
#include "view/caveats.h"
#include "view/table.h"
#include "lib/textesc.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Record kinds in display order: the 2 function kinds, then every extended type by its number
 * (PSC_REC_REGION_DEF .. PSC_REC_SWITCH), named by stream_record_name(). The samples-only types
 * never occur in a stream (the reader rejects them there): their counts stay 0 and no column
 * or JSON key shows them.
 */
#define NKINDS (PSC_REC_SWITCH + 2)

static size_t kind_index(const struct stream_record *rec)
{
	if (rec->kind != PSC_KIND_EXT)
		return rec->kind == PSC_KIND_FUNC_ENTER ? 0 : 1;
	return (size_t)rec->type + 1;
}

static const char *kind_name(size_t k)
{
	struct stream_record rec = {.kind = PSC_KIND_EXT};

	if (k < 2)
		rec.kind = k ? PSC_KIND_FUNC_EXIT : PSC_KIND_FUNC_ENTER;
	else
		rec.type = (enum psc_rec_type)(k - 1);
	return stream_record_name(&rec);
}

/* Kinds only a samples file holds (format.h): not a stream's. */
static int samples_only(size_t k)
{
	return k >= PSC_REC_SAMPLE_GROUP + 1u &&
	       (k <= PSC_REC_SAMPLE_TOTALS + 1u || k == PSC_REC_SWITCH + 1u);
}

struct stream_info {
	const struct exp_stream *s;
	struct psc_stream_header hdr;
	char thread[64];
	uint64_t bytes, chunks, records;
	uint64_t by_kind[NKINDS];
	uint64_t first_ticks, last_ticks;
	int64_t first_ns, last_ns; /* since the process's start pair */
	int64_t last_at;	   /* the last record's CLOCK_MONOTONIC ns */
	int ended;
	unsigned end_arg;
	uint64_t cut_at;
	uint64_t lost_records, lost_bytes;
};

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
		if (kind_index(&rec) < NKINDS) /* the reader returns no other type */
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

/* "exit", "thread exit", "exec", "signal 9 (KILL)", "cut at byte N", "no end record". */
static void stream_end_text(const struct stream_info *si, char *buf, size_t len)
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

/*
 * How process P of E ended, from its proc file and its streams' end records. A process whose
 * proc file still says "running" wrote no end: it was killed, or it outlived the command
 * (record waits for the command alone, not for its background processes). A record later
 * than the command's end (meta.json's end_ns, on the same host's clock) shows it outlived it;
 * the command itself, which a signal ended (meta.json's exit_signal), was killed; else the two
 * cannot be told apart (a process still running keeps its last records in its buffer), and
 * the text says so.
 */
static void process_state_text(const struct experiment *e, const struct exp_process *p,
			       const struct stream_info *si, size_t n, char *buf, size_t len)
{
	int64_t last = 0;
	int known = 0;

	for (size_t i = 0; i < n; i++) {
		if (si[i].s->proc != p)
			continue;
		if (si[i].ended && (si[i].end_arg & 0xffu) == PSC_END_SIGNAL) {
			stream_end_text(&si[i], buf, len);
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

/* Start time as "2026-11-21 17:29:00.977101122 UTC", or "unknown". */
static void start_text(uint64_t unix_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(unix_ns / 1000000000u);
	struct tm tm;
	char date[64];

	if (!unix_ns || !gmtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%F %T", &tm)) {
		snprintf(buf, len, "unknown");
		return;
	}
	snprintf(buf, len, "%s.%09" PRIu64 " UTC", date, unix_ns % 1000000000u);
}

/* Span from the first to the last record of every stream, in CLOCK_MONOTONIC ns. */
static int span_ns(const struct stream_info *si, size_t n, double *out)
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

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static size_t streams_of(const struct exp_process *p, const struct stream_info *si, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += si[i].s->proc == p;
	return k;
}

static void print_list(FILE *out, const char *label, char **items, size_t n)
{
	fprintf(out, "%-13s", label);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? (strcmp(label, "command") ? ", " : " ") : "",
			text_safe(items[i]));
	fprintf(out, "%s\n", n ? "" : "-");
}

/* Threads that were sampled at least once. */
static size_t sampled_threads(const struct sample_walk *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nthreads; i++)
		n += w->threads[i].samples > 0;
	return n;
}

static void print_sampling(FILE *out, const struct experiment *e, const struct sample_walk *w)
{
	const struct exp_sampling *sm = &e->sampling;
	char buf[64];

	fprintf(out, "\nsampling: %zu file%s, ", e->nsamples, e->nsamples == 1 ? "" : "s");
	if (sm->frequency)
		fprintf(out, "%" PRIu64 " Hz per thread", sm->frequency);
	else
		fprintf(out, "every %" PRIu64 " events of the leader", sm->period);
	fprintf(out, "%s%s\n", sm->callgraph ? ", call chains" : "",
		sm->user_only ? ", user space only" : "");
	fprintf(out, "  events   ");
	for (size_t i = 0; i < sm->nevents; i++)
		fprintf(
		    out, "%s%s%s%s", i ? ", " : "", text_safe(sm->events[i]), i ? "" : " (leader)",
		    strcmp(sm->states[i], "group")
			? (strcmp(sm->states[i], "own group") ? " (not supported)" : " (own group)")
			: "");
	fmt_count(buf, sizeof(buf), w->samples);
	fprintf(out,
		"\n  samples  %s in %zu thread%s; %" PRIu64 " lost, throttled %" PRIu64
		" times; %s\n",
		buf, sampled_threads(w), sampled_threads(w) == 1 ? "" : "s", w->lost, w->throttled,
		w->ended ? "ended cleanly" : "no end record (record did not finish)");
}

static int print_text(FILE *out, const struct experiment *e, const struct stream_info *si,
		      const struct exp_process *const *procs)
{
	char buf[128], buf2[64];
	struct table *t;
	int have_kind[NKINDS] = {0};
	double span;
	int ret = 0;

	fprintf(out, "%-13s%s\n", "experiment", text_safe(e->dir));
	print_list(out, "command", e->command, e->ncommand);
	if (e->exit_signal > 0 && sigabbrev_np(e->exit_signal))
		fprintf(out, "%-13s%d (killed by SIG%s)\n", "exit status", e->exit_status,
			sigabbrev_np(e->exit_signal));
	else if (e->exit_status >= 0)
		fprintf(out, "%-13s%d\n", "exit status", e->exit_status);
	else if (e->created_by && !strcmp(e->created_by, "perfscope record"))
		fprintf(out,
			"%-13s- (the recording was cut: perfscope record was killed, or is still "
			"running)\n",
			"exit status");
	fprintf(out, "%-13s%s\n", "created by", e->created_by ? text_safe(e->created_by) : "-");
	fprintf(out, "%-13s%s\n", "host", e->host && e->host[0] ? text_safe(e->host) : "-");
	fprintf(out, "%-13s%s\n", "cpu",
		e->cpu_brand && e->cpu_brand[0] ? text_safe(e->cpu_brand) : "-");
	fprintf(out, "%-13s%s\n", "clock", e->clock && e->clock[0] ? text_safe(e->clock) : "-");
	start_text(e->start_unix_ns, buf, sizeof(buf));
	fprintf(out, "%-13s%s\n", "start", buf);
	/* two spans: record's launch to exit (meta.json, as the html Summary gives it), and the
	 * records', which leave out the program's start-up and exit */
	if (e->start_ns && e->end_ns > e->start_ns) {
		fmt_duration(buf, sizeof(buf), (double)(e->end_ns - e->start_ns));
		fprintf(out, "%-13s%s (launch to exit)\n", "duration", buf);
	} else {
		fprintf(out, "%-13s-\n", "duration");
	}
	if (span_ns(si, e->nstreams, &span)) {
		fmt_duration(buf, sizeof(buf), span);
		fprintf(out, "%-13s%s (first to last record)\n", "records span", buf);
	} else {
		fprintf(out, "%-13s-\n", "records span");
	}
	if (e->nprocs)
		print_list(out, "events", e->procs[0].events, e->procs[0].nevents);
	for (size_t i = 0; i < e->nunsupported; i++)
		fprintf(out, "%-13s%s: %s\n", i ? "" : "not counted",
			text_safe(e->unsupported[i].name), text_safe(e->unsupported[i].reason));
	if (e->metric_group && e->metric_group[0])
		fprintf(out, "%-13s%s (%zu metrics)\n", "metric group", text_safe(e->metric_group),
			e->nmetrics);

	fprintf(out, "\nprocesses: %zu\n", e->nprocs);
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "pid", TABLE_RIGHT);
	table_add_column(t, "ppid", TABLE_RIGHT);
	table_add_column(t, "image", TABLE_RIGHT);
	table_add_column(t, "rank", TABLE_RIGHT);
	table_add_column(t, "state", TABLE_LEFT);
	table_add_column(t, "streams", TABLE_RIGHT);
	table_add_column(t, "clock", TABLE_LEFT);
	table_add_column(t, "ns/tick", TABLE_RIGHT);
	table_add_column(t, "pairs", TABLE_RIGHT);
	table_add_column(t, "lost", TABLE_RIGHT);
	table_add_column(t, "exe", TABLE_LEFT);
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *p = procs[i];

		process_state_text(e, p, si, e->nstreams, buf, sizeof(buf));
		table_add_row(t);
		table_set(t, 0, "%d", (int)p->pid);
		table_set(t, 1, "%d", (int)p->ppid);
		table_set(t, 2, "%u", p->image);
		table_set(t, 3, "%d", p->rank);
		table_set(t, 4, "%s", buf);
		table_set(t, 5, "%zu", streams_of(p, si, e->nstreams));
		table_set(t, 6, "%s", clock_source_name(p->clock));
		table_set(t, 7, "%.6f", p->fit.ns_per_tick);
		table_set(t, 8, "%zu", p->npairs);
		fmt_count(buf2, sizeof(buf2), p->lost_records);
		table_set(t, 9, "%s", buf2);
		table_set(t, 10, "%s", p->exe);
	}
	ret = table_print(t, out, "  ");
	table_free(t);
	for (size_t i = 0; i < e->nprocs; i++) {
		if (procs[i]->error && procs[i]->error[0])
			fprintf(out, "  pid %d image %u: %s\n", (int)procs[i]->pid, procs[i]->image,
				text_safe(procs[i]->error));
		if (procs[i]->lost_threads)
			fprintf(out,
				"  pid %d image %u: %" PRIu64
				" thread%s not recorded (the runtime could not record %s at all)\n",
				(int)procs[i]->pid, procs[i]->image, procs[i]->lost_threads,
				procs[i]->lost_threads == 1 ? "" : "s",
				procs[i]->lost_threads == 1 ? "it" : "them");
		if (procs[i]->clock_note[0])
			fprintf(out, "  pid %d image %u: %s\n", (int)procs[i]->pid, procs[i]->image,
				text_safe(procs[i]->clock_note));
	}

	fprintf(out, "\nstreams: %zu\n", e->nstreams);
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "file", TABLE_LEFT);
	table_add_column(t, "pid", TABLE_RIGHT);
	table_add_column(t, "tid", TABLE_RIGHT);
	table_add_column(t, "image", TABLE_RIGHT);
	table_add_column(t, "thread", TABLE_LEFT);
	table_add_column(t, "bytes", TABLE_RIGHT);
	table_add_column(t, "chunks", TABLE_RIGHT);
	table_add_column(t, "records", TABLE_RIGHT);
	table_add_column(t, "first", TABLE_RIGHT);
	table_add_column(t, "last", TABLE_RIGHT);
	table_add_column(t, "lost", TABLE_RIGHT);
	table_add_column(t, "end", TABLE_LEFT);
	for (size_t i = 0; i < e->nstreams; i++) {
		const struct stream_info *s = &si[i];

		table_add_row(t);
		table_set(t, 0, "%s", basename_of(s->s->path));
		table_set(t, 1, "%d", (int)s->s->pid);
		table_set(t, 2, "%d", (int)s->s->tid);
		table_set(t, 3, "%u", s->s->image);
		table_set(t, 4, "%s", s->thread[0] ? s->thread : "-");
		fmt_count(buf, sizeof(buf), s->bytes);
		table_set(t, 5, "%s", buf);
		table_set(t, 6, "%" PRIu64, s->chunks);
		fmt_count(buf, sizeof(buf), s->records);
		table_set(t, 7, "%s", buf);
		fmt_duration(buf, sizeof(buf), (double)s->first_ns);
		table_set(t, 8, "%s", s->records ? buf : "-");
		fmt_duration(buf, sizeof(buf), (double)s->last_ns);
		table_set(t, 9, "%s", s->records ? buf : "-");
		fmt_count(buf, sizeof(buf), s->lost_records);
		table_set(t, 10, "%s", buf);
		stream_end_text(s, buf, sizeof(buf));
		table_set(t, 11, "%s", buf);
		for (size_t k = 0; k < NKINDS; k++)
			have_kind[k] |= s->by_kind[k] != 0;
	}
	if (ret == 0)
		ret = table_print(t, out, "  ");
	table_free(t);
	fprintf(out, "  (first, last: time of the first and last record since the process "
		     "started)\n");

	fprintf(out, "\nrecords by kind:\n");
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "file", TABLE_LEFT);
	for (size_t k = 0; k < NKINDS; k++)
		if (have_kind[k])
			table_add_column(t, kind_name(k), TABLE_RIGHT);
	for (size_t i = 0; i < e->nstreams; i++) {
		size_t col = 1;

		table_add_row(t);
		table_set(t, 0, "%s", basename_of(si[i].s->path));
		for (size_t k = 0; k < NKINDS; k++) {
			if (!have_kind[k])
				continue;
			fmt_count(buf, sizeof(buf), si[i].by_kind[k]);
			table_set(t, col++, "%s", buf);
		}
	}
	if (ret == 0)
		ret = table_print(t, out, "  ");
	table_free(t);
	return ret;
}

static void json_strings(struct jsonw *w, const char *key, char **items, size_t n)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, items[i]);
	jsonw_array_end(w);
}

static void json_process(struct jsonw *w, const struct experiment *e, const struct exp_process *p,
			 const struct stream_info *si, size_t n)
{
	char buf[128];

	process_state_text(e, p, si, n, buf, sizeof(buf));
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "pid", p->pid);
	jsonw_kv_i64(w, "ppid", p->ppid);
	jsonw_kv_u64(w, "image", p->image);
	jsonw_kv_i64(w, "rank", p->rank);
	jsonw_kv_string(w, "exe", p->exe);
	jsonw_kv_string(w, "state", p->state);
	jsonw_kv_string(w, "ended", buf);
	jsonw_kv_u64(w, "streams", streams_of(p, si, n));
	jsonw_kv_string(w, "clock", clock_source_name(p->clock));
	jsonw_kv_double(w, "ns_per_tick", p->fit.ns_per_tick);
	jsonw_kv_string(w, "clock_note", p->clock_note);
	jsonw_key(w, "clock_pairs");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->npairs; i++) { /* strings, as in proc.<pid>.json: above 2^53 */
		jsonw_array_begin(w);
		snprintf(buf, sizeof(buf), "%" PRIu64, p->pairs[i].ticks);
		jsonw_string(w, buf);
		snprintf(buf, sizeof(buf), "%" PRIu64, p->pairs[i].ns);
		jsonw_string(w, buf);
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
	json_strings(w, "events", p->events, p->nevents);
	jsonw_kv_u64(w, "lost_records", p->lost_records);
	jsonw_kv_u64(w, "lost_bytes", p->lost_bytes);
	jsonw_kv_u64(w, "lost_threads", p->lost_threads);
	jsonw_kv_u64(w, "regions_folded", p->regions_folded);
	jsonw_kv_u64(w, "region_names_cut", p->region_names_cut);
	jsonw_kv_string(w, "error", p->error);
	jsonw_object_end(w);
}

static void json_stream(struct jsonw *w, const struct stream_info *s)
{
	char buf[64];

	stream_end_text(s, buf, sizeof(buf));
	jsonw_object_begin(w);
	jsonw_kv_string(w, "file", basename_of(s->s->path));
	jsonw_kv_i64(w, "pid", s->s->pid);
	jsonw_kv_i64(w, "tid", s->s->tid);
	jsonw_kv_u64(w, "image", s->s->image);
	jsonw_kv_i64(w, "rank", s->hdr.rank);
	jsonw_kv_string(w, "thread", s->thread);
	jsonw_kv_u64(w, "bytes", s->bytes);
	jsonw_kv_u64(w, "chunks", s->chunks);
	jsonw_kv_u64(w, "records", s->records);
	jsonw_key(w, "by_kind");
	jsonw_object_begin(w);
	for (size_t k = 0; k < NKINDS; k++)
		if (!samples_only(k))
			jsonw_kv_u64(w, kind_name(k), s->by_kind[k]);
	jsonw_object_end(w);
	jsonw_key(w, "first_ns");
	if (s->records)
		jsonw_i64(w, s->first_ns);
	else
		jsonw_null(w);
	jsonw_key(w, "last_ns");
	if (s->records)
		jsonw_i64(w, s->last_ns);
	else
		jsonw_null(w);
	jsonw_key(w, "ended");
	jsonw_bool(w, s->ended);
	jsonw_kv_string(w, "end", buf);
	jsonw_key(w, "end_signal");
	if (s->ended && (s->end_arg & 0xffu) == PSC_END_SIGNAL)
		jsonw_u64(w, s->end_arg >> 8);
	else
		jsonw_null(w);
	jsonw_key(w, "cut_at");
	if (s->cut_at)
		jsonw_u64(w, s->cut_at);
	else
		jsonw_null(w);
	jsonw_kv_u64(w, "lost_records", s->lost_records);
	jsonw_kv_u64(w, "lost_bytes", s->lost_bytes);
	jsonw_object_end(w);
}

/* Where record put the power samples (meta.json's "power"). */
static void print_power(FILE *out, const struct experiment *e)
{
	const struct exp_power *pw = &e->power;

	if (!strcmp(pw->source, "file"))
		fprintf(out,
			"\npower: meter file %s, copied to %s (format %s, %.6g Hz unless timed, "
			"offset %.6g ms%s%s)\n",
			text_safe(pw->path), text_safe(pw->file),
			pw->format[0] ? text_safe(pw->format) : "watts",
			pw->rate_hz > 0 ? pw->rate_hz : 20000, pw->offset_ns / 1e6,
			pw->scale[0] ? ", scale " : "", text_safe(pw->scale));
	else
		fprintf(out, "\npower: %s every %.3g ms, in %s (see: perfscope energy)\n",
			text_safe(pw->source), (double)pw->period_ns / 1e6, text_safe(pw->file));
}

/* The cache column of an object: whether the build-id cache holds its copy. */
static const char *object_cache_text(const struct exp_object *x, char *buf, size_t len)
{
	if (x->stored == 1 || x->stored == 2)
		return x->stored == 1 ? "copied now" : "kept";
	if (x->stored == -EFBIG)
		return "too big to keep";
	if (x->stored < 0) {
		snprintf(buf, len, "not kept: %s",
			 x->stored == -EPERM ? "the cache directory is not the user's alone"
					     : strerror(-x->stored));
		return buf;
	}
	return x->state == OBJ_CACHED ? "read from it" : "-";
}

/* The recorded objects: build-id, what became of the file, the cache (objcache.h). */
static int print_objects(FILE *out, const struct experiment *e)
{
	char state[512], cache[128];
	struct table *t;
	int ret;

	fprintf(out, "\nobjects: %zu\n", e->nobjects);
	if (!e->nobjects)
		return 0;
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "build-id", TABLE_LEFT);
	table_add_column(t, "state", TABLE_LEFT);
	table_add_column(t, "cache", TABLE_LEFT);
	table_add_column(t, "path", TABLE_LEFT);
	for (size_t i = 0; i < e->nobjects; i++) {
		const struct exp_object *x = &e->objects[i];

		obj_state_text(x, state, sizeof(state));
		table_add_row(t);
		table_set(t, 0, "%s", x->build_id[0] ? x->build_id : "-");
		table_set(t, 1, "%s", state);
		table_set(t, 2, "%s", object_cache_text(x, cache, sizeof(cache)));
		table_set(t, 3, "%s", x->path);
	}
	ret = table_print(t, out, "  ");
	table_free(t);
	return ret;
}

static void json_objects(struct jsonw *w, const struct experiment *e)
{
	static const char *const states[] = {"unchecked", "same", "cached", "changed", "missing"};
	char buf[512];

	jsonw_key(w, "objects");
	jsonw_array_begin(w);
	for (size_t i = 0; i < e->nobjects; i++) {
		const struct exp_object *x = &e->objects[i];

		jsonw_object_begin(w);
		jsonw_kv_string(w, "path", x->path);
		jsonw_kv_string(w, "build_id", x->build_id);
		jsonw_key(w, "size");
		if (x->size >= 0)
			jsonw_i64(w, x->size);
		else
			jsonw_null(w);
		jsonw_key(w, "mtime_ns");
		if (x->mtime_ns >= 0)
			jsonw_i64(w, x->mtime_ns);
		else
			jsonw_null(w);
		jsonw_kv_string(w, "state", states[x->state]);
		jsonw_kv_string(w, "now", x->now);
		jsonw_key(w, "cached");
		if (x->cached)
			jsonw_string(w, x->cached);
		else
			jsonw_null(w);
		jsonw_kv_string(w, "cache", object_cache_text(x, buf, sizeof(buf)));
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void json_power(struct jsonw *w, const struct experiment *e)
{
	jsonw_key(w, "power");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "source", e->power.source);
	jsonw_kv_string(w, "file", e->power.file);
	if (!strcmp(e->power.source, "file")) {
		jsonw_kv_string(w, "path", e->power.path);
		jsonw_kv_string(w, "format", e->power.format[0] ? e->power.format : "watts");
		jsonw_kv_string(w, "scale", e->power.scale);
		jsonw_kv_double(w, "rate_hz", e->power.rate_hz > 0 ? e->power.rate_hz : 20000);
		jsonw_kv_double(w, "offset_ns", e->power.offset_ns);
	} else {
		jsonw_kv_i64(w, "period_ns", e->power.period_ns);
	}
	jsonw_object_end(w);
}

static void json_sampling(struct jsonw *w, const struct experiment *e, const struct sample_walk *sw)
{
	const struct exp_sampling *sm = &e->sampling;

	jsonw_key(w, "sampling");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "files", e->nsamples);
	jsonw_kv_u64(w, "frequency", sm->frequency);
	jsonw_kv_u64(w, "period", sm->period);
	jsonw_kv_bool(w, "callgraph", sm->callgraph);
	jsonw_kv_bool(w, "user_only", sm->user_only);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < sm->nevents; i++) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", sm->events[i]);
		jsonw_kv_string(w, "state", sm->states[i]);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_kv_u64(w, "samples", sw->samples);
	jsonw_kv_u64(w, "threads", sampled_threads(sw));
	jsonw_kv_u64(w, "lost", sw->lost);
	jsonw_kv_u64(w, "throttled", sw->throttled);
	jsonw_kv_bool(w, "clean_end", sw->ended);
	jsonw_object_end(w);
}

static int print_json(FILE *out, const struct experiment *e, const struct stream_info *si,
		      const struct exp_process *const *procs, const struct sample_walk *sw)
{
	struct jsonw w;
	double span;
	int ret;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "experiment", e->dir);
	json_strings(&w, "command", e->command, e->ncommand);
	jsonw_key(&w, "exit_status");
	if (e->exit_status >= 0)
		jsonw_i64(&w, e->exit_status);
	else
		jsonw_null(&w);
	jsonw_key(&w, "exit_signal");
	if (e->exit_signal >= 0)
		jsonw_i64(&w, e->exit_signal);
	else
		jsonw_null(&w);
	jsonw_kv_string(&w, "created_by", e->created_by ? e->created_by : "");
	jsonw_kv_string(&w, "host", e->host ? e->host : "");
	jsonw_kv_string(&w, "cpu", e->cpu_brand ? e->cpu_brand : "");
	jsonw_kv_string(&w, "clock", e->clock ? e->clock : "");
	jsonw_kv_u64(&w, "start_unix_ns", e->start_unix_ns);
	jsonw_key(&w, "duration_ns");
	if (span_ns(si, e->nstreams, &span))
		jsonw_double(&w, span);
	else
		jsonw_null(&w);
	jsonw_key(&w, "records_span_ns");
	if (span_ns(si, e->nstreams, &span))
		jsonw_double(&w, span);
	else
		jsonw_null(&w);
	jsonw_key(&w, "run_ns");
	if (e->start_ns && e->end_ns > e->start_ns)
		jsonw_i64(&w, e->end_ns - e->start_ns);
	else
		jsonw_null(&w);
	jsonw_kv_string(&w, "metric_group", e->metric_group ? e->metric_group : "");
	jsonw_key(&w, "unsupported_events");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < e->nunsupported; i++) {
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "name", e->unsupported[i].name);
		jsonw_kv_i64(&w, "status", e->unsupported[i].status);
		jsonw_kv_string(&w, "reason", e->unsupported[i].reason);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "processes");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < e->nprocs; i++)
		json_process(&w, e, procs[i], si, e->nstreams);
	jsonw_array_end(&w);
	jsonw_key(&w, "streams");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < e->nstreams; i++)
		json_stream(&w, &si[i]);
	jsonw_array_end(&w);
	if (sw)
		json_sampling(&w, e, sw);
	if (e->has_power)
		json_power(&w, e);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	experiment_caveats(e, 1, caveat_json, &w);
	jsonw_array_end(&w);
	json_objects(&w, e);
	jsonw_object_end(&w);
	ret = jsonw_text(&w) ? 0 : -ENOMEM;
	if (ret == 0 && fprintf(out, "%s\n", jsonw_text(&w)) < 0)
		ret = -EIO;
	jsonw_release(&w);
	return ret;
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

int cmd_info(int argc, char **argv)
{
	const char *dir = "perfscope.out", *output = NULL;
	int json = 0, force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct stream_info *si = NULL;
	const struct exp_process **procs = NULL;
	struct sample_walk sw = {0};
	struct experiment e;
	char err[1024];
	FILE *out;

	memset(&e, 0, sizeof(e));
	ret = cli_parse("info", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error("info", "one experiment directory at a time (got '%s' and '%s')",
			  argv[1 + first], argv[2 + first]);
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	ret = EXIT_USAGE;
	if (experiment_open(&e, dir, err, sizeof(err))) {
		cli_error("info", "%s", err);
		goto out;
	}
	si = calloc(e.nstreams + 1, sizeof(*si));
	procs = calloc(e.nprocs + 1, sizeof(*procs));
	if (!si || !procs) {
		cli_error("info", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < e.nprocs; i++)
		procs[i] = &e.procs[i];
	qsort(procs, e.nprocs, sizeof(*procs), proc_cmp);
	for (size_t i = 0; i < e.nstreams; i++) {
		if (stream_info_read(&si[i], &e.streams[i], err, sizeof(err))) {
			cli_error("info", "%s", err);
			goto out;
		}
	}
	if (e.nsamples && samples_walk(&e, &sw, NULL, NULL, err, sizeof(err))) {
		cli_error("info", "%s", err);
		goto out;
	}
	if (cli_output_open("info", output, force, &out))
		goto out;
	ret = (json ? print_json(out, &e, si, procs, e.nsamples ? &sw : NULL)
		    : print_text(out, &e, si, procs))
		  ? 1
		  : 0;
	if (!json && !ret && e.nsamples)
		print_sampling(out, &e, &sw);
	if (!json && !ret && e.has_power)
		print_power(out, &e);
	if (!json && !ret && print_objects(out, &e))
		ret = 1;
	if (!json && !ret) {
		struct caveat_block cb = {out, 0};

		/* the processes' table says how each one ended (one that outlived the command is
		 * not called killed), so the caveats leave that out */
		experiment_caveats(&e, 0, caveat_block, &cb);
	}
	/* a failed write (a full disk) is named by cli_output_close, which keeps the old file */
	ret = cli_output_close("info", out, ret == 0 || ferror(out), ret);
out:
	sample_walk_release(&sw);
	free(si);
	free(procs);
	experiment_release(&e);
	return ret;
}
