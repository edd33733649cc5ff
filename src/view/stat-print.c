/* stat-print.c - rendering of `perfscope stat` results (stat-print.h). */
#include "view/stat-print.h"

#include "lib/jsonw.h"
#include "lib/strbuf.h"
#include "lib/textesc.h"
#include "view/stat-view.h"
#include "view/table.h"

#include <errno.h>
#include <math.h>
#include <string.h>

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

/* Table T of RES as text, indented, into F, after TITLE when it has rows (NULL: none).
 * 0, -ENOMEM or -EIO. */
static int print_text_table(const struct stat_result *res, enum stat_table t, const char *title,
			    FILE *f)
{
	struct view v;
	int ret = stat_view_make(&v, res, t, OUT_TEXT);

	if (ret)
		return ret;
	if (v.nrows && title)
		fputs(title, f);
	if (v.nrows || !title)
		ret = view_print_text(&v, f, "  ");
	stat_view_release(&v);
	return ret;
}

/* Whether an event of RES was scaled in some run. */
static int any_scaled(const struct stat_result *res)
{
	for (size_t i = 0; i < res->nevents; i++) {
		struct stat_event_summary s;

		stat_result_summarize(res, i, &s);
		if (s.value.n && s.min_running < 1.0)
			return 1;
	}
	return 0;
}

/* The title line: the command and the number of runs. */
static void print_title(const struct stat_result *res, FILE *f)
{
	fprintf(f, "\nPerformance counters for '");
	for (size_t i = 0; i < res->ncommand; i++) {
		const char *a = res->command[i];
		int quote = !*a || strpbrk(a, " \t'\"$;&|<>*?") != NULL;

		fprintf(f, quote ? "%s\"%s\"" : "%s%s", i ? " " : "", text_safe(a));
	}
	fprintf(f, "' (%zu run%s):\n\n", res->nruns, res->nruns == 1 ? "" : "s");
}

/* The times and how the command ended. */
static void print_times(const struct stat_result *res, FILE *f)
{
	struct stats wall, user, sys;
	char a[64], b[64], c[64];

	time_stats(res, &wall, &user, &sys);
	fmt_duration(a, sizeof(a), wall.mean);
	fmt_duration(b, sizeof(b), user.mean);
	fmt_duration(c, sizeof(c), sys.mean);
	fprintf(f, "\n  %s wall", a);
	if (res->nruns > 1)
		fprintf(f, " (± %.2f%%)",
			wall.mean != 0 ? 100.0 * stats_stddev(&wall) / fabs(wall.mean) : 0.0);
	fprintf(f, ", %s user, %s system CPU\n", b, c);
	if (res->exit_signal)
		fprintf(f, "  the command was killed by signal %d (status %d)\n", res->exit_signal,
			res->exit_status);
	else if (res->exit_status)
		fprintf(f, "  the command exited with status %d\n", res->exit_status);
}

/* The threads of run 0 after the totals (--per-thread). */
static int print_threads_text(const struct stat_result *res, FILE *f)
{
	const struct stat_run *run = &res->runs[0];
	struct view v;
	int ret = stat_view_make(&v, res, STAT_TABLE_THREADS, OUT_TEXT);

	if (ret)
		return ret;
	fprintf(f,
		"\nPer thread (%zu thread%s; total: all threads together, unattributed: total "
		"minus the threads' sum):\n",
		run->nthreads, run->nthreads == 1 ? "" : "s");
	ret = view_print_text(&v, f, "  ");
	stat_view_release(&v);
	return ret;
}

static int print_text(const struct stat_result *res, FILE *f)
{
	struct strbuf title = STRBUF_INIT;
	int ret;

	print_title(res, f);
	if ((ret = print_text_table(res, STAT_TABLE_EVENTS, NULL, f)))
		return ret;
	if (any_scaled(res))
		fprintf(f, "  (scaled values are estimates: count x enabled / running time)\n");
	strbuf_addf(&title, "\nMetrics%s%s\n", res->group ? " of group " : "",
		    res->group ? text_safe(res->group->name) : "");
	ret = title.err ? -ENOMEM : print_text_table(res, STAT_TABLE_METRICS, title.buf, f);
	strbuf_release(&title);
	if (ret)
		return ret;
	print_times(res, f);
	if (res->per_thread && res->nruns && (ret = print_threads_text(res, f)))
		return ret;
	return ferror(f) ? -EIO : 0;
}

/* "KEY": {"mean", "stddev", "min", "max"} of S, into W. */
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

/* The command, the runs, how it ended and the times, into W's open object. */
static void json_run(struct jsonw *w, const struct stat_result *res)
{
	struct stats wall, user, sys;

	jsonw_key(w, "command");
	jsonw_array_begin(w);
	for (size_t i = 0; i < res->ncommand; i++)
		jsonw_string(w, res->command[i]);
	jsonw_array_end(w);
	jsonw_kv_u64(w, "runs", res->nruns);
	jsonw_kv_i64(w, "exit_status", res->exit_status);
	jsonw_kv_i64(w, "exit_signal", res->exit_signal);
	time_stats(res, &wall, &user, &sys);
	json_stats(w, "wall_ns", &wall);
	json_stats(w, "user_ns", &user);
	json_stats(w, "sys_ns", &sys);
}

/* Table T of RES as the array KEY of W's open object; the events with the counted ones'
 * members (the view's option). 0 or -ENOMEM. */
static int json_table(struct jsonw *w, const struct stat_result *res, enum stat_table t,
		      const char *key)
{
	struct view v;

	if (stat_view_make(&v, res, t, OUT_JSON))
		return -ENOMEM;
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t r = 0; r < v.nrows; r++) {
		if (t == STAT_TABLE_EVENTS)
			v.option = stat_view_counted(&v, v.rows[r]);
		view_json_row(w, &v, v.rows[r]);
	}
	jsonw_array_end(w);
	stat_view_release(&v);
	return 0;
}

static int print_json(const struct stat_result *res, FILE *f)
{
	struct jsonw w;
	int ret;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	json_run(&w, res);
	ret = json_table(&w, res, STAT_TABLE_EVENTS, "events");
	if (!ret)
		ret = json_table(&w, res, STAT_TABLE_METRICS, "metrics");
	if (!ret && res->per_thread)
		ret = json_table(&w, res, STAT_TABLE_THREADS, "threads");
	if (!ret && res->per_thread)
		ret = json_table(&w, res, STAT_TABLE_THREAD_EVENTS, "unattributed");
	jsonw_object_end(&w);
	if (ret) {
		jsonw_release(&w);
		return ret;
	}
	return jsonw_print(&w, f);
}

int stat_print(const struct stat_result *res, enum out_format fmt, FILE *f)
{
	struct view v;
	int ret;

	if (fmt == OUT_TEXT)
		return print_text(res, f);
	if (fmt == OUT_JSON)
		return print_json(res, f);
	ret = stat_view_make(&v, res, res->per_thread ? STAT_TABLE_THREAD_EVENTS : STAT_TABLE_ROWS,
			     fmt);
	if (ret)
		return ret;
	ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
	stat_view_release(&v);
	return ret;
}
