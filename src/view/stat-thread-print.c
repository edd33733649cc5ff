/* stat-thread-print.c - `perfscope stat --per-thread` results as text, CSV and JSON. */
#include "view/stat-print.h"

#include "lib/jsonw.h"
#include "view/table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Thread T's value of event I: 0 and *V, or -ENODATA when it was not counted. */
static int thread_value(const struct stat_thread *t, size_t i, uint64_t *v)
{
	return t->status[i] ? -ENODATA : count_scale(&t->counts[i], v);
}

/* The events every thread table shows: those the totals counted. */
static int shown(const struct stat_run *run, size_t i)
{
	return run->status[i] == 0;
}

int stat_threads_print_text(const struct stat_result *res, FILE *f)
{
	const struct stat_run *run = &res->runs[0];
	struct table *t;
	size_t col, run_col;
	char a[64];
	int ret = stat_print_text(res, f);

	if (ret || res->nruns == 0)
		return ret;
	t = table_new();
	if (!t)
		return -ENOMEM;
	table_add_column(t, "pid", TABLE_RIGHT);
	table_add_column(t, "tid", TABLE_RIGHT);
	table_add_column(t, "name", TABLE_LEFT);
	col = 3;
	for (size_t i = 0; i < res->nevents; i++)
		if (shown(run, i))
			table_add_column(t, res->events[i].name, TABLE_RIGHT), col++;
	run_col = col;
	table_add_column(t, "running", TABLE_RIGHT);
	for (size_t k = 0; k < run->nthreads; k++) {
		const struct stat_thread *th = &run->threads[k];
		double low = 1.0;
		int counted = 0;
		uint64_t v;

		table_add_row(t);
		table_set(t, 0, "%d", (int)th->pid);
		table_set(t, 1, "%d", (int)th->tid);
		table_set(t, 2, "%s", th->name[0] ? th->name : "?");
		col = 3;
		for (size_t i = 0; i < res->nevents; i++) {
			if (!shown(run, i))
				continue;
			if (thread_value(th, i, &v) == 0) {
				fmt_count(a, sizeof(a), v);
				table_set(t, col, "%s", a);
				counted = 1;
				if (count_running_ratio(&th->counts[i]) < low)
					low = count_running_ratio(&th->counts[i]);
			} else {
				table_set(t, col, "-");
			}
			col++;
		}
		if (counted)
			table_set(t, run_col, "%.1f%%", 100 * low);
		else
			table_set(t, run_col, "-"); /* nothing counted: no ratio to show */
	}
	table_add_separator(t);
	table_add_row(t);
	table_set(t, 2, "total");
	col = 3;
	for (size_t i = 0; i < res->nevents; i++) {
		uint64_t v;

		if (!shown(run, i))
			continue;
		if (count_scale(&run->counts[i], &v) == 0) {
			fmt_count(a, sizeof(a), v);
			table_set(t, col, "%s", a);
		}
		col++;
	}
	table_add_row(t);
	table_set(t, 2, "unattributed");
	col = 3;
	for (size_t i = 0; i < res->nevents; i++) {
		int64_t d;

		if (!shown(run, i))
			continue;
		if (stat_run_unattributed(run, i, &d) == 0) {
			fmt_count(a, sizeof(a), (uint64_t)(d < 0 ? -d : d));
			table_set(t, col, "%s%s", d < 0 ? "-" : "", a);
		}
		col++;
	}
	fprintf(f,
		"\nPer thread (%zu thread%s; total: all threads together, unattributed: total "
		"minus the threads' sum):\n",
		run->nthreads, run->nthreads == 1 ? "" : "s");
	ret = table_print(t, f, "  ");
	table_free(t);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

/* One CSV line; PID and TID 0 leave their fields empty, VALUE NULL leaves value and running
 * empty. */
static void csv_line(FILE *f, const char *row, pid_t pid, pid_t tid, const char *name,
		     const char *event, const char *value, double running, const char *status)
{
	fprintf(f, "%s,", row);
	if (pid)
		fprintf(f, "%d", (int)pid);
	fputc(',', f);
	if (tid)
		fprintf(f, "%d", (int)tid);
	fputc(',', f);
	csv_field(f, name);
	fputc(',', f);
	csv_field(f, event);
	if (value)
		fprintf(f, ",%s,%.2f,", value, 100 * running);
	else
		fprintf(f, ",,,");
	csv_field(f, status);
	fputc('\n', f);
}

int stat_threads_print_csv(const struct stat_result *res, FILE *f)
{
	const struct stat_run *run = &res->runs[0];
	char v[40];

	fprintf(f, "row,pid,tid,name,event,value,running_pct,status\n");
	if (res->nruns == 0)
		return ferror(f) ? -EIO : 0;
	for (size_t k = 0; k < run->nthreads; k++) {
		const struct stat_thread *t = &run->threads[k];

		for (size_t i = 0; i < res->nevents; i++) {
			uint64_t x;

			if (thread_value(t, i, &x) == 0) {
				snprintf(v, sizeof(v), "%" PRIu64, x);
				csv_line(f, "thread", t->pid, t->tid, t->name, res->events[i].name,
					 v, count_running_ratio(&t->counts[i]), "counted");
			} else {
				csv_line(f, "thread", t->pid, t->tid, t->name, res->events[i].name,
					 NULL, 0,
					 t->status[i] ? strerror(-t->status[i]) : "not counted");
			}
		}
	}
	for (size_t i = 0; i < res->nevents; i++) {
		uint64_t x;
		int64_t d;

		if (shown(run, i) && count_scale(&run->counts[i], &x) == 0) {
			snprintf(v, sizeof(v), "%" PRIu64, x);
			csv_line(f, "total", 0, 0, "", res->events[i].name, v,
				 count_running_ratio(&run->counts[i]), "counted");
		} else {
			csv_line(f, "total", 0, 0, "", res->events[i].name, NULL, 0, "not counted");
		}
		if (stat_run_unattributed(run, i, &d) == 0) {
			snprintf(v, sizeof(v), "%" PRId64, d);
			csv_line(f, "unattributed", 0, 0, "", res->events[i].name, v,
				 count_running_ratio(&run->counts[i]), "counted");
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* The "threads" and "unattributed" members, into W's open object. */
static void json_threads(struct jsonw *w, const struct stat_result *res)
{
	const struct stat_run *run = &res->runs[0];

	jsonw_key(w, "threads");
	jsonw_array_begin(w);
	for (size_t k = 0; res->nruns && k < run->nthreads; k++) {
		const struct stat_thread *t = &run->threads[k];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "pid", t->pid);
		jsonw_kv_i64(w, "tid", t->tid);
		jsonw_kv_string(w, "name", t->name);
		jsonw_key(w, "events");
		jsonw_array_begin(w);
		for (size_t i = 0; i < res->nevents; i++) {
			uint64_t x;
			int counted = thread_value(t, i, &x) == 0;

			jsonw_object_begin(w);
			jsonw_kv_string(w, "name", res->events[i].name);
			jsonw_kv_bool(w, "counted", counted);
			jsonw_key(w, "value");
			if (counted)
				jsonw_u64(w, x);
			else
				jsonw_null(w);
			jsonw_key(w, "running_ratio");
			if (counted)
				jsonw_double(w, count_running_ratio(&t->counts[i]));
			else
				jsonw_null(w);
			jsonw_object_end(w);
		}
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "unattributed");
	jsonw_array_begin(w);
	for (size_t i = 0; res->nruns && i < res->nevents; i++) {
		int64_t d;

		if (stat_run_unattributed(run, i, &d))
			continue;
		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", res->events[i].name);
		jsonw_kv_i64(w, "value", d);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

int stat_threads_print_json(const struct stat_result *res, FILE *f)
{
	return stat_print_json_extra(res, f, json_threads);
}
