/* energy-print.c - the energy report as text, CSV, JSON and long CSV (energy-print.h), its
 * tables rendered from their views (energy-view.h). */
#include "view/energy-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
#include "view/energy-view.h"
#include "view/table.h"

#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A function whose mean call is shorter than this many power sample periods gets its energy
 * from interpolation rather than from samples taken while it ran. */
#define ENERGY_MIN_PERIODS 4

static size_t shown(const struct energy_report *r)
{
	size_t n = r->ep->merged.nrows;

	return r->top && r->top < n ? r->top : n;
}

static double run_ns(const struct energy_report *r)
{
	return (double)(r->ep->run_end - r->ep->run_start);
}

static int cmp_desc(const void *a, const void *b, void *ctx)
{
	const double *key = ctx;
	double x = key[*(const size_t *)a], y = key[*(const size_t *)b];

	return x < y   ? 1
	       : x > y ? -1
		       : (*(const size_t *)a > *(const size_t *)b) -
			     (*(const size_t *)a < *(const size_t *)b);
}

size_t *energy_order(const struct energy_profile *ep, int inclusive)
{
	size_t n = ep->merged.nrows, *order = malloc((n + 1) * sizeof(*order));
	double *key = malloc((n + 1) * sizeof(*key));

	if (!order || !key) {
		free(order);
		free(key);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		key[i] = inclusive ? ep->merged.rows[i].incl_j : ep->merged.rows[i].excl_j;
	}
	qsort_r(order, n, sizeof(*order), cmp_desc, key);
	free(key);
	return order;
}

void energy_caveats(const struct energy_report *r, void (*fn)(void *ctx, const char *line),
		    void *ctx)
{
	const struct energy_profile *ep = r->ep;
	double uncovered = run_ns(r) - (double)(ep->cover_end - ep->cover_start);
	double period = r->rate_hz > 0 ? 1e9 / r->rate_hz : 0;
	char a[32], b[32], c[32];

	experiment_caveats(r->e, 1, fn, ctx);
	if (uncovered > 0) {
		fmt_duration(a, sizeof(a), uncovered);
		fmt_duration(b, sizeof(b), (double)(ep->cover_start - ep->run_start));
		fmt_duration(c, sizeof(c), (double)(ep->cover_end - ep->run_start));
		caveat_say(
		    fn, ctx,
		    "the power samples cover the run from %s to %s only: %s of it gets no energy "
		    "(not extrapolated)",
		    b, c, a);
	}
	for (size_t i = 0; i < r->nchannels; i++)
		if (!r->channels[i].working)
			caveat_say(
			    fn, ctx,
			    "power channel %s never advanced: it does not work on this machine, "
			    "and "
			    "its energy is not reported",
			    r->channels[i].name);
	if (ep->max_active > 1)
		caveat_say(
		    fn, ctx,
		    "up to %zu threads were inside traced code at once: the power at such times is "
		    "shared equally between them",
		    ep->max_active);
	if (!period)
		return;
	fmt_duration(b, sizeof(b), period * ENERGY_MIN_PERIODS);
	for (size_t i = 0; i < ep->merged.nrows; i++) {
		const struct func_row *row = &ep->merged.rows[r->order[i]];
		double mean = row->calls ? (double)row->sum_ns / (double)row->calls : 0;

		if (!row->calls || mean >= period * ENERGY_MIN_PERIODS)
			continue;
		fmt_duration(a, sizeof(a), mean);
		caveat_say(
		    fn, ctx,
		    "%s: mean call %s is shorter than %d power sample periods (%s): its energy is "
		    "interpolated, not measured (perfscope select %s --min-time %.0fus keeps only "
		    "longer functions)",
		    row->sym.name, a, ENERGY_MIN_PERIODS, b, r->dir,
		    ceil(period * ENERGY_MIN_PERIODS / 1e3));
	}
}

static void heading(const struct energy_report *r, FILE *f)
{
	const struct energy_profile *ep = r->ep;
	char a[32], b[32], w[32], j[32];
	double cover = (double)(ep->cover_end - ep->cover_start);

	fmt_duration(a, sizeof(a), run_ns(r));
	fmt_duration(b, sizeof(b), cover);
	fmt_double(j, sizeof(j), ep->total_j);
	fmt_double(w, sizeof(w), cover > 0 ? ep->total_j / (cover * 1e-9) : 0);
	fprintf(f, "Energy by function (%s), channel %s of %s, %s\n",
		r->inclusive ? "inclusive" : "exclusive", text_safe(r->channel),
		text_safe(r->ps->source),
		ep->integ.ch->kind == POWER_JOULES
		    ? "energy counter interpolated linearly (--method does not apply)"
		: r->simpson			? "trapezoid and Simpson's rules"
		: !strcmp(r->method, "simpson") ? "Simpson's rule"
						: "trapezoid rule");
	fprintf(f, "run %s, power covers %s: %s J", a, b, j);
	if (r->simpson) {
		fmt_double(j, sizeof(j), r->simpson->total_j);
		fprintf(f, " (Simpson %s J)", j);
	}
	fprintf(f, ", mean %s W\n\n", w);
}

/* Table T of R in FMT (text, CSV or long CSV) into F. 0, -ENOMEM or -EIO. */
static int print_table(const struct energy_report *r, enum energy_table t, enum out_format fmt,
		       FILE *f)
{
	struct energy_view ev;
	int ret = energy_view_make(&ev, r, t, fmt);

	if (ret)
		return ret;
	ret = energy_view_print(&ev, fmt, f);
	energy_view_release(&ev);
	return ret;
}

static int function_table(const struct energy_report *r, FILE *f)
{
	size_t n = shown(r);
	int ret = print_table(r, ENERGY_TABLE_FUNCTIONS, OUT_TEXT, f);

	if (n < r->ep->merged.nrows)
		fprintf(f, "(%zu more functions: --top 0 shows all)\n", r->ep->merged.nrows - n);
	return ret;
}

static int channel_list(const struct energy_report *r, FILE *f)
{
	char buf[32];

	if (r->nchannels < 2)
		return 0;
	fprintf(f, "\nChannels over the covered run:");
	for (size_t i = 0; i < r->nchannels; i++) {
		fmt_double(buf, sizeof(buf), r->channels[i].energy_j);
		fprintf(f, "%s %s %s", i ? "," : "", text_safe(r->channels[i].name),
			r->channels[i].working ? buf : "not working");
		if (r->channels[i].working)
			fputs(" J", f);
	}
	fputc('\n', f);
	return 0;
}

static int stats_table(const struct energy_report *r, FILE *f)
{
	char buf[64], count[32];

	fmt_double(buf, sizeof(buf), r->rate_hz);
	fmt_count(count, sizeof(count), r->ps->n);
	fprintf(f, "\nPower samples: %s, %s per second achieved\n\n", count, buf);
	return print_table(r, ENERGY_TABLE_STATS, OUT_TEXT, f);
}

static int print_text(const struct energy_report *r, FILE *f)
{
	int ret;

	heading(r, f);
	ret = function_table(r, f);
	if (!ret && r->ep->nintervals) {
		fprintf(f, "\nEnergy by interval (exclusive; CSV/JSON: every function)\n\n");
		ret = print_table(r, ENERGY_TABLE_INTERVALS, OUT_TEXT, f);
	}
	if (!ret)
		ret = channel_list(r, f);
	if (!ret && r->nstats)
		ret = stats_table(r, f);
	fputc('\n', f);
	energy_caveats(r, caveat_text, f);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

/* CSV or long CSV: the functions, then (a blank line before) every function of every interval;
 * or the power statistics alone. */
static int print_csv(const struct energy_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	int ret;

	if (r->stats_only) {
		ret = print_table(r, ENERGY_TABLE_STATS, fmt, f);
	} else {
		ret = print_table(r, ENERGY_TABLE_FUNCTIONS, fmt, f);
		if (!ret && r->ep->nintervals) {
			fputc('\n', f);
			ret = print_table(r, ENERGY_TABLE_SLICES, fmt, f);
		}
	}
	energy_caveats(r, caveat_warning, notes);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

/* Table T of R as the array KEY of W. 0 or -ENOMEM. */
static int json_table(const struct energy_report *r, enum energy_table t, const char *key,
		      struct jsonw *w)
{
	struct energy_view ev;

	if (energy_view_make(&ev, r, t, OUT_JSON))
		return -ENOMEM;
	jsonw_key(w, key);
	energy_view_json(w, &ev);
	energy_view_release(&ev);
	return 0;
}

/* The JSON object's first keys: the source, the method and the run. */
static void json_run(const struct energy_report *r, struct jsonw *w)
{
	const struct energy_profile *ep = r->ep;

	jsonw_kv_string(w, "source", r->ps->source);
	jsonw_kv_string(w, "channel", r->channel);
	jsonw_kv_string(w, "method", r->method);
	jsonw_kv_bool(w, "inclusive", r->inclusive);
	jsonw_kv_i64(w, "run_start_ns", ep->run_start);
	jsonw_kv_i64(w, "run_end_ns", ep->run_end);
	jsonw_kv_i64(w, "covered_start_ns", ep->cover_start);
	jsonw_kv_i64(w, "covered_end_ns", ep->cover_end);
	jsonw_kv_double(w, "energy_j", ep->total_j);
	if (r->simpson)
		jsonw_kv_double(w, "energy_simpson_j", r->simpson->total_j);
}

static int print_json(const struct energy_report *r, FILE *f)
{
	struct jsonw w;
	int ret;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	json_run(r, &w);
	ret = json_table(r, ENERGY_TABLE_FUNCTIONS, "functions", &w);
	if (!ret && r->ep->nintervals)
		ret = json_table(r, ENERGY_TABLE_INTERVALS, "intervals", &w);
	if (!ret)
		ret = json_table(r, ENERGY_TABLE_CHANNELS, "channels", &w);
	jsonw_kv_u64(&w, "samples", r->ps->n);
	jsonw_kv_double(&w, "rate_hz", r->rate_hz);
	if (!ret)
		ret = json_table(r, ENERGY_TABLE_STATS, "statistics", &w);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	energy_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	if (ret) {
		jsonw_release(&w);
		return ret;
	}
	return jsonw_print(&w, f);
}

int energy_print(const struct energy_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	switch (fmt) {
	case OUT_TEXT:
		return print_text(r, f);
	case OUT_JSON:
		return print_json(r, f);
	default:
		return print_csv(r, fmt, f, notes);
	}
}
