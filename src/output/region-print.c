/* region-print.c - rendering of the region profile and its caveats. */
#include "region-print.h"
#include "textesc.h"
#include "caveats.h"
#include "table.h"

#include "../core/counters.h"
#include "../core/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t nshown(const struct region_report *r)
{
	return r->top && r->top < r->p->nrows ? r->top : r->p->nrows;
}

static void thread_label(const struct region_report *r, const struct region_row *row, char *buf,
			 size_t len)
{
	if (r->per_thread)
		snprintf(buf, len, "%d", (int)row->tid);
	else
		snprintf(buf, len, "all");
}

/* Why event I is not counted somewhere, for the caveats. */
static void event_reason(const struct region_report *r, size_t i, int status, char *buf, size_t len)
{
	const struct exp_process *pr = r->e->nprocs ? &r->e->procs[0] : NULL;
	struct event_desc ev;

	if (event_resolve(r->p->events[i], &ev))
		snprintf(ev.name, sizeof(ev.name), "%s", r->p->events[i]);
	counter_status_reason(status, &ev, pr ? pr->paranoid : 2, pr ? pr->have_core_pmu : 0, buf,
			      len);
}

void region_report_caveats(const struct region_report *r, void (*fn)(void *ctx, const char *line),
			   void *ctx)
{
	const struct region_profile *p = r->p;

	experiment_caveats(r->e, 1, fn, ctx);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct thread_summary *t = &p->threads[i];

		if (!t->ended && !t->truncated_at && t->records) {
			caveat_say(
			    fn, ctx,
			    "thread %d: no end record: the records after its last written chunk "
			    "are missing (killed, or the end could not be written)",
			    (int)t->tid);
		}
		if (t->lost_records) {
			caveat_say(fn, ctx, "thread %d: %" PRIu64 " records lost", (int)t->tid,
				   t->lost_records);
		}
		if (t->unmatched_ends) {
			caveat_say(fn, ctx,
				   "thread %d: %" PRIu64
				   " psc_region_end without a matching begin (ignored)",
				   (int)t->tid, t->unmatched_ends);
		}
	}
	if (p->unclosed) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " regions were still open at a mismatched end or at the end of "
			   "the run; closed there",
			   p->unclosed);
	}
	for (size_t i = 0; i < p->nevents; i++) {
		int status = 0;
		double low = 1;

		for (size_t k = 0; k < p->nrows && !status; k++)
			status = p->rows[k].status[i];
		/* record said it already, in the words of the machine it ran on */
		if (status && !experiment_unsupported(r->e, p->events[i])) {
			char why[256];

			event_reason(r, i, status, why, sizeof(why));
			caveat_say(fn, ctx, "%s: %s", p->events[i], why);
		}
		for (size_t k = 0; k < p->nrows; k++)
			if (count_is_scaled(&p->rows[k].counts[i]) &&
			    count_running_ratio(&p->rows[k].counts[i]) < low)
				low = count_running_ratio(&p->rows[k].counts[i]);
		if (low < 1) {
			caveat_say(fn, ctx,
				   "%s: multiplexed (counted %.1f %% of the time at least): its "
				   "values are estimates, scaled by enabled / running time",
				   p->events[i], 100 * low);
		}
	}
}

int region_print_text(const struct region_report *r, FILE *f)
{
	const struct region_profile *p = r->p;
	struct table *t = table_new();
	size_t n = nshown(r), col;
	char buf[64];

	if (!t)
		return -ENOMEM;
	if (p->nrows == 0) {
		fprintf(f,
			"%s: no regions and no function calls were recorded (regions: does the "
			"program call psc_region_begin/end, built with -DPERFSCOPE and linked with "
			"-lperfscope? functions: build it with -finstrument-functions and record "
			"with --functions)\n",
			text_safe(r->e->dir));
		table_free(t);
		region_report_caveats(r, caveat_text, f);
		return ferror(f) ? -EIO : 0;
	}
	table_add_column(t, "region", TABLE_LEFT);
	table_add_column(t, "thread", TABLE_RIGHT);
	table_add_column(t, "calls", TABLE_RIGHT);
	table_add_column(t, "inclusive", TABLE_RIGHT);
	table_add_column(t, "exclusive", TABLE_RIGHT);
	table_add_column(t, "mean", TABLE_RIGHT);
	table_add_column(t, "min", TABLE_RIGHT);
	table_add_column(t, "max", TABLE_RIGHT);
	for (size_t i = 0; i < p->nevents; i++)
		table_add_column(t, p->events[i], TABLE_RIGHT);
	for (size_t m = 0; m < r->nmetrics; m++)
		table_add_column(t, r->metrics[m].name, TABLE_RIGHT);
	for (size_t k = 0; k < n; k++) {
		const struct region_row *row = &p->rows[k];

		table_add_row(t);
		table_set(t, 0, "%s", row->name);
		thread_label(r, row, buf, sizeof(buf));
		table_set(t, 1, "%s", buf);
		fmt_count(buf, sizeof(buf), row->calls);
		table_set(t, 2, "%s", buf);
		fmt_duration(buf, sizeof(buf), row->incl_ns);
		table_set(t, 3, "%s", buf);
		fmt_duration(buf, sizeof(buf), row->excl_ns);
		table_set(t, 4, "%s", buf);
		fmt_duration(buf, sizeof(buf), row->calls ? row->incl_ns / (double)row->calls : 0);
		table_set(t, 5, "%s", buf);
		fmt_duration(buf, sizeof(buf), row->min_ns < 0 ? 0 : row->min_ns);
		table_set(t, 6, "%s", buf);
		fmt_duration(buf, sizeof(buf), row->max_ns);
		table_set(t, 7, "%s", buf);
		col = 8;
		for (size_t i = 0; i < p->nevents; i++, col++) {
			uint64_t v;

			if (region_row_value(row, i, &v)) {
				table_set(t, col, "n/a");
				continue;
			}
			fmt_count(buf, sizeof(buf), v);
			table_set(t, col, "%s%s", buf, count_is_scaled(&row->counts[i]) ? "*" : "");
		}
		for (size_t m = 0; m < r->nmetrics; m++, col++) {
			double v;

			if (region_row_metric(p, row, &r->metrics[m], &v, NULL, 0)) {
				table_set(t, col, "n/a");
				continue;
			}
			fmt_double(buf, sizeof(buf), v);
			table_set(t, col, "%s", buf);
		}
	}
	fprintf(f, "\nRegions%s, by %s", r->per_thread ? " per thread" : "",
		r->sort_label ? r->sort_label : "inclusive time");
	if (n < p->nrows)
		fprintf(f, " (top %zu of %zu)", n, p->nrows);
	fprintf(f, ":\n");
	table_print(t, f, "  ");
	table_free(t);
	for (size_t i = 0; i < p->nrows; i++) {
		int scaled = 0;

		for (size_t k = 0; k < p->nevents; k++)
			scaled |= count_is_scaled(&p->rows[i].counts[k]);
		if (scaled) {
			fprintf(
			    f, "  * scaled: the event was multiplexed; the value is an estimate\n");
			break;
		}
	}
	if (!r->no_caveats)
		region_report_caveats(r, caveat_text, f);
	return ferror(f) ? -EIO : 0;
}

int region_print_csv(const struct region_report *r, FILE *f)
{
	const struct region_profile *p = r->p;
	size_t n = nshown(r);
	char buf[64];

	fprintf(f, "name,thread,calls,incl_ns,excl_ns");
	for (size_t i = 0; i < p->nevents; i++) {
		fputc(',', f);
		csv_field(f, p->events[i]);
	}
	for (size_t m = 0; m < r->nmetrics; m++) {
		fputc(',', f);
		csv_field(f, r->metrics[m].name);
	}
	fputc('\n', f);
	for (size_t k = 0; k < n; k++) {
		const struct region_row *row = &p->rows[k];

		csv_field(f, row->name);
		thread_label(r, row, buf, sizeof(buf));
		fprintf(f, ",%s,%" PRIu64 ",%.0f,%.0f", buf, row->calls, row->incl_ns,
			row->excl_ns);
		for (size_t i = 0; i < p->nevents; i++) {
			uint64_t v;

			if (region_row_value(row, i, &v))
				fputc(',', f);
			else
				fprintf(f, ",%" PRIu64, v);
		}
		for (size_t m = 0; m < r->nmetrics; m++) {
			double v;

			if (region_row_metric(p, row, &r->metrics[m], &v, NULL, 0))
				fputc(',', f);
			else
				fprintf(f, ",%.6g", v);
		}
		fputc('\n', f);
	}
	region_report_caveats(r, caveat_warning, stderr);
	return ferror(f) ? -EIO : 0;
}

void region_row_json(struct jsonw *w, const struct region_report *r, const struct region_row *row)
{
	const struct region_profile *p = r->p;

	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", row->name);
	if (r->per_thread) {
		jsonw_kv_i64(w, "pid", row->pid);
		jsonw_kv_i64(w, "thread", row->tid);
	} else {
		jsonw_kv_string(w, "thread", "all");
	}
	jsonw_kv_u64(w, "calls", row->calls);
	jsonw_kv_double(w, "incl_ns", row->incl_ns);
	jsonw_kv_double(w, "excl_ns", row->excl_ns);
	jsonw_kv_double(w, "min_ns", row->min_ns < 0 ? 0 : row->min_ns);
	jsonw_kv_double(w, "max_ns", row->max_ns);
	jsonw_kv_u64(w, "unclosed", row->unclosed);
	jsonw_key(w, "counters");
	jsonw_object_begin(w);
	for (size_t i = 0; i < p->nevents; i++) {
		uint64_t v;

		jsonw_key(w, p->events[i]);
		if (region_row_value(row, i, &v)) {
			jsonw_null(w);
			continue;
		}
		jsonw_object_begin(w);
		jsonw_kv_u64(w, "value", v);
		jsonw_kv_double(w, "running_ratio", count_running_ratio(&row->counts[i]));
		jsonw_kv_bool(w, "scaled", count_is_scaled(&row->counts[i]));
		jsonw_object_end(w);
	}
	jsonw_object_end(w);
	jsonw_key(w, "metrics");
	jsonw_object_begin(w);
	for (size_t m = 0; m < r->nmetrics; m++) {
		double v;

		jsonw_key(w, r->metrics[m].name);
		if (region_row_metric(p, row, &r->metrics[m], &v, NULL, 0))
			jsonw_null(w);
		else
			jsonw_double(w, v);
	}
	jsonw_object_end(w);
	jsonw_object_end(w);
}

void region_json(struct jsonw *w, const struct region_report *r)
{
	const struct region_profile *p = r->p;
	size_t n = nshown(r);

	jsonw_object_begin(w);
	jsonw_kv_string(w, "experiment", r->e->dir);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->nevents; i++)
		jsonw_string(w, p->events[i]);
	jsonw_array_end(w);
	jsonw_key(w, "regions");
	jsonw_array_begin(w);
	for (size_t k = 0; k < n; k++) {
		region_row_json(w, r, &p->rows[k]);
	}
	jsonw_array_end(w);
	jsonw_key(w, "caveats");
	jsonw_array_begin(w);
	region_report_caveats(r, caveat_json, w);
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int region_print_json(const struct region_report *r, FILE *f)
{
	struct jsonw w;

	jsonw_init(&w, 1);
	region_json(&w, r);
	return jsonw_print(&w, f);
}
