/*
 * cmd-info.c - `perfscope info`: what an experiment holds (model/exp-inventory.h), printed as
 * text or JSON. The experiment (command, host, CPU, clock, start, duration), its processes
 * (how each ended, clock calibration, losses) and its streams (thread, size, chunks, records by
 * kind, time span, how each ended), read through the validating reader: a defect stops the
 * command with the file and byte offset.
 */
#include "cli/cli.h"

#include "model/exp-inventory.h"
#include "model/experiment-open.h"
#include "model/pass.h"
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

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
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

/* The experiment's lines: command, exit status, host, CPU, clock, start, spans, events. */
static void print_experiment(FILE *out, const struct exp_inventory *inv)
{
	const struct experiment *e = inv->e;
	char buf[128];
	double span;

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
	if (inventory_span_ns(inv->streams, e->nstreams, &span)) {
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
}

/* The notes under the processes' table: errors, threads not recorded, clock notes. */
static void print_process_notes(FILE *out, const struct exp_inventory *inv)
{
	for (size_t i = 0; i < inv->e->nprocs; i++) {
		const struct exp_process *p = inv->procs[i];

		if (p->error && p->error[0])
			fprintf(out, "  pid %d image %u: %s\n", (int)p->pid, p->image,
				text_safe(p->error));
		if (p->lost_threads)
			fprintf(out,
				"  pid %d image %u: %" PRIu64
				" thread%s not recorded (the runtime could not record %s at all)\n",
				(int)p->pid, p->image, p->lost_threads,
				p->lost_threads == 1 ? "" : "s",
				p->lost_threads == 1 ? "it" : "them");
		if (p->clock_note[0])
			fprintf(out, "  pid %d image %u: %s\n", (int)p->pid, p->image,
				text_safe(p->clock_note));
	}
}

/* The processes' table and its notes, STATUS getting table_print's result while it is 0.
 * -ENOMEM when the table cannot be made (nothing more is printed), else 0. */
static int print_processes(FILE *out, const struct exp_inventory *inv, int *status)
{
	const struct experiment *e = inv->e;
	char buf[128], buf2[64];
	struct table *t;

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
		const struct exp_process *p = inv->procs[i];

		inventory_process_state(e, p, inv->streams, e->nstreams, buf, sizeof(buf));
		table_add_row(t);
		table_set(t, 0, "%d", (int)p->pid);
		table_set(t, 1, "%d", (int)p->ppid);
		table_set(t, 2, "%u", p->image);
		table_set(t, 3, "%d", p->rank);
		table_set(t, 4, "%s", buf);
		table_set(t, 5, "%zu", inventory_streams_of(p, inv->streams, e->nstreams));
		table_set(t, 6, "%s", clock_source_name(p->clock));
		table_set(t, 7, "%.6f", p->fit.ns_per_tick);
		table_set(t, 8, "%zu", p->npairs);
		fmt_count(buf2, sizeof(buf2), p->lost_records);
		table_set(t, 9, "%s", buf2);
		table_set(t, 10, "%s", p->exe);
	}
	if (*status == 0)
		*status = table_print(t, out, "  ");
	table_free(t);
	print_process_notes(out, inv);
	return 0;
}

/* One row of the streams' table. */
static void stream_row(struct table *t, const struct stream_info *s)
{
	char buf[128];

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
	stream_info_end_text(s, buf, sizeof(buf));
	table_set(t, 11, "%s", buf);
}

/* The streams' table, STATUS as in print_processes. -ENOMEM or 0 as print_processes. */
static int print_streams(FILE *out, const struct exp_inventory *inv, int *status)
{
	struct table *t;

	fprintf(out, "\nstreams: %zu\n", inv->e->nstreams);
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
	for (size_t i = 0; i < inv->e->nstreams; i++)
		stream_row(t, &inv->streams[i]);
	if (*status == 0)
		*status = table_print(t, out, "  ");
	table_free(t);
	fprintf(out, "  (first, last: time of the first and last record since the process "
		     "started)\n");
	return 0;
}

/* The records by kind of each stream, a column for each kind some stream holds; STATUS and
 * the result as in print_processes. */
static int print_kinds(FILE *out, const struct exp_inventory *inv, int *status)
{
	int have_kind[INVENTORY_NKINDS] = {0};
	char buf[128];
	struct table *t;

	for (size_t i = 0; i < inv->e->nstreams; i++)
		for (size_t k = 0; k < INVENTORY_NKINDS; k++)
			have_kind[k] |= inv->streams[i].by_kind[k] != 0;
	fprintf(out, "\nrecords by kind:\n");
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "file", TABLE_LEFT);
	for (size_t k = 0; k < INVENTORY_NKINDS; k++)
		if (have_kind[k])
			table_add_column(t, inventory_kind_name(k), TABLE_RIGHT);
	for (size_t i = 0; i < inv->e->nstreams; i++) {
		size_t col = 1;

		table_add_row(t);
		table_set(t, 0, "%s", basename_of(inv->streams[i].s->path));
		for (size_t k = 0; k < INVENTORY_NKINDS; k++) {
			if (!have_kind[k])
				continue;
			fmt_count(buf, sizeof(buf), inv->streams[i].by_kind[k]);
			table_set(t, col++, "%s", buf);
		}
	}
	if (*status == 0)
		*status = table_print(t, out, "  ");
	table_free(t);
	return 0;
}

/* The text report's tables: 0, or a negative errno (out of memory, a failed write). */
static int print_text(FILE *out, const struct exp_inventory *inv)
{
	int status = 0, ret;

	print_experiment(out, inv);
	if ((ret = print_processes(out, inv, &status)) ||
	    (ret = print_streams(out, inv, &status)) || (ret = print_kinds(out, inv, &status)))
		return ret;
	return status;
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

	inventory_process_state(e, p, si, n, buf, sizeof(buf));
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "pid", p->pid);
	jsonw_kv_i64(w, "ppid", p->ppid);
	jsonw_kv_u64(w, "image", p->image);
	jsonw_kv_i64(w, "rank", p->rank);
	jsonw_kv_string(w, "exe", p->exe);
	jsonw_kv_string(w, "state", p->state);
	jsonw_kv_string(w, "ended", buf);
	jsonw_kv_u64(w, "streams", inventory_streams_of(p, si, n));
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

	stream_info_end_text(s, buf, sizeof(buf));
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
	for (size_t k = 0; k < INVENTORY_NKINDS; k++)
		if (!inventory_kind_samples_only(k))
			jsonw_kv_u64(w, inventory_kind_name(k), s->by_kind[k]);
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

static int print_json(FILE *out, const struct exp_inventory *inv, const struct sample_walk *sw)
{
	const struct experiment *e = inv->e;
	const struct stream_info *si = inv->streams;
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
	if (inventory_span_ns(si, e->nstreams, &span))
		jsonw_double(&w, span);
	else
		jsonw_null(&w);
	jsonw_key(&w, "records_span_ns");
	if (inventory_span_ns(si, e->nstreams, &span))
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
		json_process(&w, e, inv->procs[i], si, e->nstreams);
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

/* The report of INV (SW: its samples, when it has) as text or JSON into OUT. 0, or 1 when it
 * could not be written in full. */
static int print_info(FILE *out, int json, const struct exp_inventory *inv,
		      const struct sample_walk *sw)
{
	const struct experiment *e = inv->e;
	int ret =
	    (json ? print_json(out, inv, e->nsamples ? sw : NULL) : print_text(out, inv)) ? 1 : 0;

	if (!json && !ret && e->nsamples)
		print_sampling(out, e, sw);
	if (!json && !ret && e->has_power)
		print_power(out, e);
	if (!json && !ret && print_objects(out, e))
		ret = 1;
	if (!json && !ret) {
		struct caveat_block cb = {out, 0};

		/* the processes' table says how each one ended (one that outlived the command is
		 * not called killed), so the caveats leave that out */
		experiment_caveats(e, 0, caveat_block, &cb);
	}
	return ret;
}

/* INV and SW: what E's streams and samples files hold, from one pass. 0, or a negative errno
 * with the message in ERR (the first defect). */
static int info_read(const struct experiment *e, struct exp_inventory *inv, struct sample_walk *sw,
		     char *err, size_t errlen)
{
	struct ev_consumer ci, cs = {0}, *list[] = {&ci, &cs};
	int ret = exp_inventory_consumer(&ci, inv, e);

	if (ret == 0 && e->nsamples)
		ret = samples_consumer(&cs, e, sw, NULL, NULL);
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	else
		ret = ev_pass_experiment(e, list, e->nsamples ? 2 : 1, 0, err, errlen);
	ev_consumer_release(&ci);
	ev_consumer_release(&cs);
	return ret;
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
	struct exp_inventory inv = {0};
	struct sample_walk sw = {0};
	struct experiment e;
	char err[1024];
	FILE *out;

	memset(&e, 0, sizeof(e));
	ret = cli_parse("info", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand("info", argc - 1 - first, argv + 1 + first, &dir))
		return EXIT_USAGE;
	ret = EXIT_USAGE;
	if (experiment_open(&e, dir, err, sizeof(err))) {
		cli_error("info", "%s", err);
		goto out;
	}
	if (info_read(&e, &inv, &sw, err, sizeof(err))) {
		cli_error("info", "%s", err);
		goto out;
	}
	if (cli_output_open("info", output, force, &out))
		goto out;
	ret = print_info(out, json, &inv, &sw);
	/* a failed write (a full disk) is named by cli_output_close, which keeps the old file */
	ret = cli_output_close("info", out, ret == 0 || ferror(out), ret);
out:
	sample_walk_release(&sw);
	exp_inventory_release(&inv);
	experiment_release(&e);
	return ret;
}
