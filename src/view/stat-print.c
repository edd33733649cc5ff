/* stat-print.c - rendering of `perfscope stat` results. */
#include "view/stat-print.h"
#include "lib/textesc.h"
#include "view/table.h"

#include "pmu/counters.h"
#include "lib/jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Why event I was not counted, as one line. */
static const char *reason(const struct stat_result *res, size_t i, int status, char *buf,
			  size_t len)
{
	return counter_status_reason(status, &res->events[i], res->paranoid, res->have_core_pmu,
				     buf, len);
}

/* Every metric to show: the group's, then those of groups found for -e. */
static size_t metrics_of(const struct stat_result *res, const struct metric **out, size_t max)
{
	size_t n = 0;

	if (res->group)
		for (size_t i = 0; i < res->group->nmetrics && n < max; i++)
			out[n++] = &res->group->metrics[i];
	for (size_t g = 0; g < res->nfound; g++)
		for (size_t i = 0; i < res->found[g].nmetrics && n < max; i++) {
			size_t k;

			for (k = 0; k < n && strcmp(out[k]->name, res->found[g].metrics[i].name);
			     k++)
				;
			if (k == n)
				out[n++] = &res->found[g].metrics[i];
		}
	return n;
}

static void time_stats(const struct stat_result *res, struct stats *wall, struct stats *user,
		       struct stats *sys)
{
	stats_init(wall);
	stats_init(user);
	stats_init(sys);
	for (size_t r = 0; r < res->nruns; r++) {
		stats_add(wall, res->runs[r].wall_ns);
		stats_add(user, res->runs[r].user_ns);
		stats_add(sys, res->runs[r].sys_ns);
	}
}

static double rel_stddev(const struct stats *s)
{
	return s->mean != 0 ? 100.0 * stats_stddev(s) / fabs(s->mean) : 0.0;
}

int stat_print_text(const struct stat_result *res, FILE *f)
{
	const struct metric *ms[64];
	size_t nm = metrics_of(res, ms, 64);
	struct stats wall, user, sys;
	struct table *t = table_new();
	char a[64], b[64], c[64], why[256];
	int multi = res->nruns > 1, any_scaled = 0;

	if (!t)
		return -ENOMEM;
	fprintf(f, "\nPerformance counters for '");
	for (size_t i = 0; i < res->ncommand; i++) {
		const char *a = res->command[i];
		int quote = !*a || strpbrk(a, " \t'\"$;&|<>*?") != NULL;

		fprintf(f, quote ? "%s\"%s\"" : "%s%s", i ? " " : "", text_safe(a));
	}
	fprintf(f, "' (%zu run%s):\n\n", res->nruns, res->nruns == 1 ? "" : "s");
	size_t note = multi ? 4 : 2;

	table_add_column(t, "value", TABLE_RIGHT);
	table_add_column(t, "event", TABLE_LEFT);
	if (multi) {
		table_add_column(t, "± stddev", TABLE_RIGHT);
		table_add_column(t, "min .. max", TABLE_LEFT);
	}
	table_add_column(t, "note", TABLE_LEFT);
	for (size_t i = 0; i < res->nevents; i++) {
		struct stat_event_summary s;

		stat_result_summarize(res, i, &s);
		table_add_row(t);
		table_set(t, 1, "%s", res->events[i].name);
		if (s.value.n == 0) {
			table_set(t, 0, "%s", s.status ? "not supported" : "not counted");
			table_set(t, note, "%s",
				  s.status ? reason(res, i, s.status, why, sizeof(why))
					   : "never scheduled on the PMU (group did not fit)");
			continue;
		}
		fmt_count(a, sizeof(a), (uint64_t)llround(s.value.mean));
		table_set(t, 0, "%s", a);
		if (multi) {
			fmt_count(b, sizeof(b), (uint64_t)llround(s.value.min));
			fmt_count(c, sizeof(c), (uint64_t)llround(s.value.max));
			table_set(t, 2, "± %.2f%%", rel_stddev(&s.value));
			table_set(t, 3, "%s .. %s", b, c);
		}
		if (s.min_running < 1.0) {
			any_scaled = 1;
			table_set(t, note, "scaled: counted %.1f%% of the time%s",
				  100 * s.min_running, s.user_only ? ", user space only" : "");
		} else if (s.user_only) {
			table_set(t, note, "user space only (kernel counting not permitted)");
		}
	}
	table_print(t, f, "  ");
	table_free(t);
	if (any_scaled)
		fprintf(f, "  (scaled values are estimates: count x enabled / running time)\n");
	if (nm) {
		t = table_new();
		table_add_column(t, "value", TABLE_RIGHT);
		table_add_column(t, "metric", TABLE_LEFT);
		table_add_column(t, "formula", TABLE_LEFT);
		for (size_t k = 0; k < nm; k++) {
			char missing[256] = "";
			double v;
			int ret = stat_result_metric(res, ms[k], &v, missing, sizeof(missing));

			table_add_row(t);
			if (ret == 0)
				fmt_double(a, sizeof(a), v);
			table_set(t, 0, "%s", ret == 0 ? a : "unavailable");
			table_set(t, 1, "%s%s%s%s", ms[k]->name, ms[k]->unit[0] ? " [" : "",
				  ms[k]->unit, ms[k]->unit[0] ? "]" : "");
			if (ret == -ENODATA)
				table_set(t, 2, "missing: %s", missing);
			else if (ret)
				table_set(t, 2, "undefined (division by zero)");
			else
				table_set(t, 2, "%s", ms[k]->formula);
		}
		fprintf(f, "\nMetrics%s%s\n", res->group ? " of group " : "",
			res->group ? text_safe(res->group->name) : "");
		table_print(t, f, "  ");
		table_free(t);
	}
	time_stats(res, &wall, &user, &sys);
	fmt_duration(a, sizeof(a), wall.mean);
	fmt_duration(b, sizeof(b), user.mean);
	fmt_duration(c, sizeof(c), sys.mean);
	fprintf(f, "\n  %s wall", a);
	if (multi)
		fprintf(f, " (± %.2f%%)", rel_stddev(&wall));
	fprintf(f, ", %s user, %s system CPU\n", b, c);
	if (res->exit_signal)
		fprintf(f, "  the command was killed by signal %d (status %d)\n", res->exit_signal,
			res->exit_status);
	else if (res->exit_status)
		fprintf(f, "  the command exited with status %d\n", res->exit_status);
	return ferror(f) ? -EIO : 0;
}

static void csv_row(FILE *f, const char *kind, const char *name, const char *value,
		    const char *unit, const char *stddev, const char *min, const char *max,
		    size_t runs, const char *running, const char *status)
{
	csv_field(f, kind);
	fputc(',', f);
	csv_field(f, name);
	fprintf(f, ",%s,", value);
	csv_field(f, unit);
	fprintf(f, ",%s,%s,%s,%zu,%s,", stddev, min, max, runs, running);
	csv_field(f, status);
	fputc('\n', f);
}

int stat_print_csv(const struct stat_result *res, FILE *f)
{
	const struct metric *ms[64];
	size_t nm = metrics_of(res, ms, 64);
	struct stats wall, user, sys;
	char v[40], sd[40], mn[40], mx[40], run[40], why[300];

	fprintf(f, "kind,name,value,unit,stddev,min,max,runs,running_pct,status\n");
	for (size_t i = 0; i < res->nevents; i++) {
		struct stat_event_summary s;

		stat_result_summarize(res, i, &s);
		if (s.value.n == 0) {
			csv_row(f, "event", res->events[i].name, "", "", "", "", "", res->nruns, "",
				s.status ? reason(res, i, s.status, why, sizeof(why))
					 : "not counted");
			continue;
		}
		snprintf(v, sizeof(v), "%.0f", s.value.mean);
		snprintf(sd, sizeof(sd), "%.3f", stats_stddev(&s.value));
		snprintf(mn, sizeof(mn), "%.0f", s.value.min);
		snprintf(mx, sizeof(mx), "%.0f", s.value.max);
		snprintf(run, sizeof(run), "%.2f", 100 * s.min_running);
		csv_row(f, "event", res->events[i].name, v, "", sd, mn, mx, s.value.n, run,
			s.user_only ? "counted (user space only)" : "counted");
	}
	for (size_t k = 0; k < nm; k++) {
		double d;
		char missing[256] = "";
		int ret = stat_result_metric(res, ms[k], &d, missing, sizeof(missing));

		snprintf(v, sizeof(v), "%.6g", d);
		snprintf(why, sizeof(why), "unavailable (missing: %s)", missing);
		csv_row(f, "metric", ms[k]->name, ret ? "" : v, ms[k]->unit, "", "", "", res->nruns,
			"",
			ret == 0	  ? "ok"
			: ret == -ENODATA ? why
					  : "undefined");
	}
	time_stats(res, &wall, &user, &sys);
	struct stats *ts[] = {&wall, &user, &sys};
	const char *tn[] = {"wall", "user", "system"};

	for (size_t k = 0; k < 3; k++) {
		snprintf(v, sizeof(v), "%.0f", ts[k]->mean);
		snprintf(sd, sizeof(sd), "%.0f", stats_stddev(ts[k]));
		snprintf(mn, sizeof(mn), "%.0f", ts[k]->min);
		snprintf(mx, sizeof(mx), "%.0f", ts[k]->max);
		csv_row(f, "time", tn[k], v, "ns", sd, mn, mx, res->nruns, "", "ok");
	}
	return ferror(f) ? -EIO : 0;
}

static void json_stats(struct jsonw *w, const char *key, const struct stats *s)
{
	jsonw_key(w, key);
	jsonw_object_begin(w);
	jsonw_kv_double(w, "mean", s->mean);
	jsonw_kv_double(w, "stddev", stats_stddev(s));
	jsonw_kv_double(w, "min", s->min);
	jsonw_kv_double(w, "max", s->max);
	jsonw_object_end(w);
}

int stat_print_json(const struct stat_result *res, FILE *f)
{
	return stat_print_json_extra(res, f, NULL);
}

int stat_print_json_extra(const struct stat_result *res, FILE *f,
			  void (*extra)(struct jsonw *w, const struct stat_result *res))
{
	const struct metric *ms[64];
	size_t nm = metrics_of(res, ms, 64);
	struct stats wall, user, sys;
	struct jsonw w;
	char why[256];

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_key(&w, "command");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < res->ncommand; i++)
		jsonw_string(&w, res->command[i]);
	jsonw_array_end(&w);
	jsonw_kv_u64(&w, "runs", res->nruns);
	jsonw_kv_i64(&w, "exit_status", res->exit_status);
	jsonw_kv_i64(&w, "exit_signal", res->exit_signal);
	time_stats(res, &wall, &user, &sys);
	json_stats(&w, "wall_ns", &wall);
	json_stats(&w, "user_ns", &user);
	json_stats(&w, "sys_ns", &sys);
	jsonw_key(&w, "events");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < res->nevents; i++) {
		struct stat_event_summary s;

		stat_result_summarize(res, i, &s);
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "name", res->events[i].name);
		jsonw_kv_string(&w, "canonical", res->events[i].canonical);
		jsonw_key(&w, "counted");
		jsonw_bool(&w, s.value.n > 0);
		if (s.value.n) {
			json_stats(&w, "value", &s.value);
			jsonw_kv_double(&w, "running_ratio", s.min_running);
			jsonw_key(&w, "user_only");
			jsonw_bool(&w, s.user_only);
		} else {
			jsonw_kv_string(&w, "reason",
					s.status ? reason(res, i, s.status, why, sizeof(why))
						 : "not counted");
		}
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "metrics");
	jsonw_array_begin(&w);
	for (size_t k = 0; k < nm; k++) {
		char missing[256] = "";
		double v;
		int r = stat_result_metric(res, ms[k], &v, missing, sizeof(missing));

		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "name", ms[k]->name);
		jsonw_kv_string(&w, "unit", ms[k]->unit);
		jsonw_kv_string(&w, "formula", ms[k]->formula);
		jsonw_key(&w, "value");
		if (r == 0)
			jsonw_double(&w, v);
		else
			jsonw_null(&w);
		if (r == -ENODATA)
			jsonw_kv_string(&w, "missing", missing);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	if (extra)
		extra(&w, res);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}
