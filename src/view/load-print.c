/* load-print.c - load over time and its means per host and rank (load-print.h). */
#include "view/load-print.h"
#include "lib/textesc.h"

#include <errno.h>
#include <string.h>

#include "lib/jsonw.h"
#include "view/load-view.h"
#include "view/table.h"

/* Table T of CTX in FMT into OUT. 0, -ENOMEM or -EIO. */
static int print_view(FILE *out, const struct load_view_ctx *ctx, enum load_table t,
		      enum load_format fmt)
{
	struct view v;
	int ret = load_view_make(&v, ctx, t);

	if (ret)
		return ret;
	ret = fmt == LOAD_FORMAT_TEXT	? view_print_text(&v, out, NULL)
	      : fmt == LOAD_FORMAT_LONG ? view_print_long(&v, out)
					: view_print_csv(&v, out);
	load_view_release(&v);
	return ret;
}

static int text_summary(FILE *out, const struct load_set *set)
{
	const struct load_view_ctx ctx = {.set = set};
	char period[32];
	size_t nsamples = 0;
	int ret;

	for (size_t l = 0; l < set->nlogs; l++)
		nsamples += set->logs[l].nsamples;
	fmt_duration(period, sizeof(period), (double)set->logs[0].period_ns);
	fprintf(out, "CPU load: %zu host%s, %zu rank%s, %zu samples, every %s\n\n", set->nlogs,
		set->nlogs == 1 ? "" : "s", set->nranks, set->nranks == 1 ? "" : "s", nsamples,
		period);
	if ((ret = print_view(out, &ctx, LOAD_TABLE_HOSTS, LOAD_FORMAT_TEXT)))
		return ret;
	fputs("\nCPU share of each rank (CPUs in use: 1 = one CPU busy all the time)\n\n", out);
	return print_view(out, &ctx, LOAD_TABLE_RANKS, LOAD_FORMAT_TEXT);
}

/* The load over time of log L of SET; ORIGIN_NS as load_print_set's. */
static int text_over_time(FILE *out, const struct load_set *set, size_t l, int64_t origin_ns)
{
	const struct load_log *log = &set->logs[l];
	size_t per = (log->nsamples + LOAD_TEXT_ROWS - 1) / LOAD_TEXT_ROWS;
	struct load_view_ctx ctx = {.set = set, .log = l};

	ctx.origin = log->time_ns[0] >= log->period_ns ? log->time_ns[0] - log->period_ns : 0;
	if (origin_ns > 0 && (uint64_t)origin_ns <= log->time_ns[0])
		ctx.origin = (uint64_t)origin_ns;
	fprintf(out, "\nLoad over time on %s (host busy in %%, ranks in CPUs",
		text_safe(log->host));
	if (per > 1)
		fprintf(out, "; each row the mean of %zu samples", per);
	fputs(")\n\n", out);
	return print_view(out, &ctx, LOAD_TABLE_OVER_TIME, LOAD_FORMAT_TEXT);
}

/* The statistics, a blank line, the samples: CSV or long CSV (FMT). */
static int print_csv(FILE *out, const struct load_set *set, enum load_format fmt)
{
	const struct load_view_ctx ctx = {.set = set};
	int ret = print_view(out, &ctx, LOAD_TABLE_STATS, fmt);

	if (ret)
		return ret;
	fputc('\n', out);
	return print_view(out, &ctx, LOAD_TABLE_SAMPLES, fmt);
}

static int print_json(FILE *out, const struct load_set *set)
{
	const struct load_view_ctx ctx = {.set = set};
	struct jsonw w;
	struct view v;

	if (load_view_make(&v, &ctx, LOAD_TABLE_HOSTS))
		return -ENOMEM;
	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_key(&w, "hosts");
	view_json_rows(&w, &v);
	jsonw_object_end(&w);
	load_view_release(&v);
	return jsonw_print(&w, out);
}

int load_print_set(FILE *out, const struct load_set *set, int64_t origin_ns,
		   enum load_format format)
{
	int ret = 0;

	if (format == LOAD_FORMAT_JSON)
		return print_json(out, set);
	if (format != LOAD_FORMAT_TEXT) {
		ret = print_csv(out, set, format);
	} else {
		ret = text_summary(out, set);
		for (size_t l = 0; ret == 0 && l < set->nlogs; l++)
			if (set->logs[l].nsamples)
				ret = text_over_time(out, set, l, origin_ns);
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
