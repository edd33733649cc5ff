/* load-print.c - load over time and its means per host and rank (load-print.h). */
#include "view/load-print.h"
#include "lib/textesc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/jsonw.h"
#include "view/table.h"

/* A share as text: a percentage of the host (PCT) or CPUs in use; "-" when unknown. */
static void fmt_share(char *buf, size_t len, double v, int pct)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (pct)
		snprintf(buf, len, "%.1f %%", v * 100);
	else
		snprintf(buf, len, "%.3f", v);
}

static void set_share(struct table *t, size_t col, double v, int pct)
{
	char buf[32];

	fmt_share(buf, sizeof(buf), v, pct);
	table_set(t, col, "%s", buf);
}

static void set_stats(struct table *t, size_t col, const struct load_stats *st, int pct)
{
	table_set(t, col, "%zu", st->n);
	set_share(t, col + 1, st->mean, pct);
	set_share(t, col + 2, st->min, pct);
	set_share(t, col + 3, st->max, pct);
}

static int print_table(struct table *t, FILE *out)
{
	int ret = t ? table_print(t, out, NULL) : -ENOMEM;

	table_free(t);
	return ret;
}

static int text_summary(FILE *out, const struct load_set *set)
{
	struct table *t = table_new();
	char period[32];
	size_t nsamples = 0;

	for (size_t l = 0; l < set->nlogs; l++)
		nsamples += set->logs[l].nsamples;
	fmt_duration(period, sizeof(period), (double)set->logs[0].period_ns);
	fprintf(out, "CPU load: %zu host%s, %zu rank%s, %zu samples, every %s\n\n", set->nlogs,
		set->nlogs == 1 ? "" : "s", set->nranks, set->nranks == 1 ? "" : "s", nsamples,
		period);
	if (t) {
		table_add_column(t, "host", TABLE_LEFT);
		table_add_column(t, "CPUs", TABLE_RIGHT);
		table_add_column(t, "samples", TABLE_RIGHT);
		table_add_column(t, "busy mean", TABLE_RIGHT);
		table_add_column(t, "min", TABLE_RIGHT);
		table_add_column(t, "max", TABLE_RIGHT);
		table_add_column(t, "log", TABLE_LEFT);
		for (size_t l = 0; l < set->nlogs; l++) {
			const struct load_log *log = &set->logs[l];
			const char *base = strrchr(log->path, '/');

			table_add_row(t);
			table_set(t, 0, "%s", log->host);
			table_set(t, 1, "%d", log->cpus);
			set_stats(t, 2, &set->busy[l], 1);
			table_set(t, 6, "%s", base ? base + 1 : log->path);
		}
	}
	if (print_table(t, out) < 0)
		return -EIO;
	fputs("\nCPU share of each rank (CPUs in use: 1 = one CPU busy all the time)\n\n", out);
	t = table_new();
	if (t) {
		table_add_column(t, "rank", TABLE_RIGHT);
		table_add_column(t, "host", TABLE_LEFT);
		table_add_column(t, "pid", TABLE_RIGHT);
		table_add_column(t, "samples", TABLE_RIGHT);
		table_add_column(t, "mean", TABLE_RIGHT);
		table_add_column(t, "min", TABLE_RIGHT);
		table_add_column(t, "max", TABLE_RIGHT);
		for (size_t i = 0; i < set->nranks; i++) {
			const struct load_rank *r = &set->ranks[i];

			table_add_row(t);
			table_set(t, 0, "%d", r->rank);
			table_set(t, 1, "%s", set->logs[r->log].host);
			table_set(t, 2, "%d", r->pid);
			set_stats(t, 3, &r->st, 0);
		}
	}
	return print_table(t, out);
}

/* Interval-weighted mean of column VALUES (STRIDE apart) over samples [A, B) of LOG. */
static double group_mean(const struct load_log *log, const double *values, size_t stride, size_t a,
			 size_t b)
{
	double sum = 0, weight = 0;

	for (size_t i = a; i < b; i++) {
		double v = values[i * stride];
		double w = (double)(i ? log->time_ns[i] - log->time_ns[i - 1] : log->period_ns);

		if (!isnan(v)) {
			sum += v * w;
			weight += w;
		}
	}
	return weight > 0 ? sum / weight : NAN;
}

static int text_over_time(FILE *out, const struct load_log *log, int64_t origin_ns)
{
	size_t per = (log->nsamples + LOAD_TEXT_ROWS - 1) / LOAD_TEXT_ROWS;
	uint64_t origin = log->time_ns[0] >= log->period_ns ? log->time_ns[0] - log->period_ns : 0;
	struct table *t = table_new();

	if (origin_ns > 0 && (uint64_t)origin_ns <= log->time_ns[0])
		origin = (uint64_t)origin_ns;
	fprintf(out, "\nLoad over time on %s (host busy in %%, ranks in CPUs",
		text_safe(log->host));
	if (per > 1)
		fprintf(out, "; each row the mean of %zu samples", per);
	fputs(")\n\n", out);
	if (!t)
		return -ENOMEM;
	table_add_column(t, "t (s)", TABLE_RIGHT);
	table_add_column(t, "host", TABLE_RIGHT);
	for (size_t c = 0; c < log->nranks; c++) {
		char name[32];

		snprintf(name, sizeof(name), "rank %d", log->ranks[c]);
		table_add_column(t, name, TABLE_RIGHT);
	}
	for (size_t a = 0; a < log->nsamples; a += per) {
		size_t b = a + per < log->nsamples ? a + per : log->nsamples;

		table_add_row(t);
		table_set(t, 0, "%.3f", (double)(log->time_ns[b - 1] - origin) / 1e9);
		set_share(t, 1, group_mean(log, log->host_busy, 1, a, b), 1);
		for (size_t c = 0; c < log->nranks; c++)
			set_share(t, 2 + c, group_mean(log, log->share + c, log->nranks, a, b), 0);
	}
	return print_table(t, out);
}

static void csv_share(FILE *out, double v)
{
	if (!isnan(v))
		fprintf(out, "%.4f", v);
}

static void csv_stats(FILE *out, const struct load_stats *st)
{
	fprintf(out, ",%zu,", st->n);
	csv_share(out, st->mean);
	fputc(',', out);
	csv_share(out, st->min);
	fputc(',', out);
	csv_share(out, st->max);
	fputc('\n', out);
}

static void print_csv(FILE *out, const struct load_set *set)
{
	fputs("host,rank,pid,samples,mean,min,max\n", out);
	for (size_t l = 0; l < set->nlogs; l++) {
		csv_field(out, set->logs[l].host);
		fputs(",host,", out);
		csv_stats(out, &set->busy[l]);
	}
	for (size_t i = 0; i < set->nranks; i++) {
		const struct load_rank *r = &set->ranks[i];

		csv_field(out, set->logs[r->log].host);
		fprintf(out, ",%d,%d", r->rank, r->pid);
		csv_stats(out, &r->st);
	}
	fputs("\nhost,rank,time_ns,share\n", out);
	for (size_t l = 0; l < set->nlogs; l++) {
		const struct load_log *log = &set->logs[l];

		for (size_t i = 0; i < log->nsamples; i++) {
			if (!isnan(log->host_busy[i])) {
				csv_field(out, log->host);
				fprintf(out, ",host,%" PRIu64 ",%.4f\n", log->time_ns[i],
					log->host_busy[i]);
			}
			for (size_t c = 0; c < log->nranks; c++) {
				double v = load_log_share(log, i, c);

				if (isnan(v))
					continue;
				csv_field(out, log->host);
				fprintf(out, ",%d,%" PRIu64 ",%.4f\n", log->ranks[c],
					log->time_ns[i], v);
			}
		}
	}
}

static void json_stats(struct jsonw *w, const struct load_stats *st)
{
	jsonw_kv_u64(w, "samples", st->n);
	jsonw_kv_double(w, "mean", st->mean);
	jsonw_kv_double(w, "min", st->min);
	jsonw_kv_double(w, "max", st->max);
}

static void json_series(struct jsonw *w, const char *key, const double *v, size_t n, size_t stride)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_double(w, v[i * stride]); /* NAN becomes null */
	jsonw_array_end(w);
}

static int print_json(FILE *out, const struct load_set *set)
{
	struct jsonw w;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_key(&w, "hosts");
	jsonw_array_begin(&w);
	for (size_t l = 0; l < set->nlogs; l++) {
		const struct load_log *log = &set->logs[l];
		const char *base = strrchr(log->path, '/');

		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "host", log->host);
		jsonw_kv_string(&w, "file", base ? base + 1 : log->path);
		jsonw_kv_i64(&w, "cpus", log->cpus);
		jsonw_kv_u64(&w, "period_ns", log->period_ns);
		jsonw_key(&w, "busy");
		jsonw_object_begin(&w);
		json_stats(&w, &set->busy[l]);
		jsonw_object_end(&w);
		jsonw_key(&w, "time_ns");
		jsonw_array_begin(&w);
		for (size_t i = 0; i < log->nsamples; i++)
			jsonw_u64(&w, log->time_ns[i]);
		jsonw_array_end(&w);
		json_series(&w, "busy_over_time", log->host_busy, log->nsamples, 1);
		jsonw_key(&w, "ranks");
		jsonw_array_begin(&w);
		for (size_t i = 0; i < set->nranks; i++) {
			const struct load_rank *r = &set->ranks[i];

			if (r->log != l)
				continue;
			jsonw_object_begin(&w);
			jsonw_kv_i64(&w, "rank", r->rank);
			jsonw_kv_i64(&w, "pid", r->pid);
			json_stats(&w, &r->st);
			json_series(&w, "share", log->share + r->col, log->nsamples, log->nranks);
			jsonw_object_end(&w);
		}
		jsonw_array_end(&w);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, out);
}

int load_print_set(FILE *out, const struct load_set *set, int64_t origin_ns,
		   enum load_format format)
{
	int ret = 0;

	if (format == LOAD_FORMAT_JSON)
		return print_json(out, set);
	if (format == LOAD_FORMAT_CSV) {
		print_csv(out, set);
	} else {
		ret = text_summary(out, set);
		for (size_t l = 0; ret == 0 && l < set->nlogs; l++)
			if (set->logs[l].nsamples)
				ret = text_over_time(out, &set->logs[l], origin_ns);
	}
	if (ret == 0 && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}

int load_print(FILE *out, const struct experiment *e, enum load_format format, char *err,
	       size_t errlen)
{
	struct load_set set;
	int ret = load_set_read(&set, e->dir, err, errlen);

	if (ret)
		return ret;
	ret = load_print_set(out, &set, e->start_ns, format);
	if (ret)
		snprintf(err, errlen, "%s", ret == -EIO ? "write error" : strerror(-ret));
	load_set_release(&set);
	return ret;
}
