/* energy-print.c - rendering of the energy profile as text, CSV and JSON. */
#include "view/energy-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
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

#define OUTSIDE_NAME "[outside traced functions]"

static const struct func_row *row_at(const struct energy_report *r, size_t i)
{
	return &r->ep->merged.rows[r->order[i]];
}

static int64_t row_ns(const struct energy_report *r, const struct func_row *row)
{
	return r->inclusive ? row->incl_ns : row->excl_ns;
}

static double row_j(const struct energy_report *r, const struct func_row *row)
{
	return r->inclusive ? row->incl_j : row->excl_j;
}

/* The same row in the Simpson profile (built from the same streams in the same order). */
static double row_simpson_j(const struct energy_report *r, size_t i)
{
	const struct func_row *row = &r->simpson->merged.rows[r->order[i]];

	return r->inclusive ? row->incl_j : row->excl_j;
}

/* Mean power of a row: its energy over its time within the power samples. */
static double row_power(const struct energy_report *r, const struct func_row *row)
{
	int64_t ns = r->inclusive ? row->incl_covered_ns : row->covered_ns;

	return ns > 0 ? row_j(r, row) / ((double)ns * 1e-9) : 0;
}

static size_t shown(const struct energy_report *r)
{
	size_t n = r->ep->merged.nrows;

	return r->top && r->top < n ? r->top : n;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
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

static void add_energy_cells(const struct energy_report *r, struct table *t, size_t col, int64_t ns,
			     double j, double power, double simpson_j)
{
	char buf[64];

	fmt_duration(buf, sizeof(buf), (double)ns);
	table_set(t, col, "%s", buf);
	table_set(t, col + 1, "%.1f", pct((double)ns, run_ns(r)));
	fmt_double(buf, sizeof(buf), j);
	table_set(t, col + 2, "%s", buf);
	table_set(t, col + 3, "%.1f", pct(j, r->ep->total_j));
	fmt_double(buf, sizeof(buf), power);
	table_set(t, col + 4, "%s", buf);
	if (r->simpson) {
		fmt_double(buf, sizeof(buf), simpson_j);
		table_set(t, col + 5, "%s", buf);
	}
}

static double outside_power(const struct energy_profile *ep)
{
	return ep->outside_ns > 0 ? ep->outside_j / ((double)ep->outside_ns * 1e-9) : 0;
}

static int function_table(const struct energy_report *r, FILE *f)
{
	struct table *t = table_new();
	size_t n = shown(r);
	char buf[64];
	int ret;

	if (!t)
		return -ENOMEM;
	table_add_column(t, "function", TABLE_LEFT);
	table_add_column(t, "calls", TABLE_RIGHT);
	table_add_column(t, "time", TABLE_RIGHT);
	table_add_column(t, "time %", TABLE_RIGHT);
	table_add_column(t, "energy J", TABLE_RIGHT);
	table_add_column(t, "energy %", TABLE_RIGHT);
	table_add_column(t, "power W", TABLE_RIGHT);
	if (r->simpson)
		table_add_column(t, "Simpson J", TABLE_RIGHT);
	for (size_t i = 0; i < n; i++) {
		const struct func_row *row = row_at(r, i);

		table_add_row(t);
		table_set(t, 0, "%s", row->sym.name);
		fmt_count(buf, sizeof(buf), row->calls);
		table_set(t, 1, "%s", buf);
		add_energy_cells(r, t, 2, row_ns(r, row), row_j(r, row), row_power(r, row),
				 r->simpson ? row_simpson_j(r, i) : 0);
	}
	if (!r->inclusive) {
		table_add_row(t);
		table_set(t, 0, "%s", OUTSIDE_NAME);
		add_energy_cells(r, t, 2, r->ep->outside_ns, r->ep->outside_j, outside_power(r->ep),
				 r->simpson ? r->simpson->outside_j : 0);
	}
	ret = table_print(t, f, NULL);
	table_free(t);
	if (n < r->ep->merged.nrows)
		fprintf(f, "(%zu more functions: --top 0 shows all)\n", r->ep->merged.nrows - n);
	return ret;
}

/* Per interval: its energy, mean power and the function that took the most of it. */
static int interval_table(const struct energy_report *r, FILE *f)
{
	const struct energy_profile *ep = r->ep;
	struct table *t = table_new();
	char buf[64];
	int ret;

	if (!t)
		return -ENOMEM;
	fprintf(f, "\nEnergy by interval (exclusive; CSV/JSON: every function)\n\n");
	table_add_column(t, "start", TABLE_RIGHT);
	table_add_column(t, "end", TABLE_RIGHT);
	table_add_column(t, "energy J", TABLE_RIGHT);
	table_add_column(t, "power W", TABLE_RIGHT);
	table_add_column(t, "top function", TABLE_LEFT);
	table_add_column(t, "its energy %", TABLE_RIGHT);
	for (size_t k = 0; k < ep->nintervals; k++) {
		double len = (double)(ep->edges[k + 1] - ep->edges[k]), best = ep->interval_j[k];
		const char *name = OUTSIDE_NAME;

		for (size_t i = 0; i < ep->merged.nrows; i++)
			if (ep->merged.rows[i].slices)
				best -= ep->merged.rows[i].slices[k].j;
		for (size_t i = 0; i < ep->merged.nrows; i++) {
			const struct func_row *row = &ep->merged.rows[i];

			if (row->slices && row->slices[k].j > best) {
				best = row->slices[k].j;
				name = row->sym.name;
			}
		}
		table_add_row(t);
		fmt_duration(buf, sizeof(buf), (double)(ep->edges[k] - ep->run_start));
		table_set(t, 0, "%s", buf);
		fmt_duration(buf, sizeof(buf), (double)(ep->edges[k + 1] - ep->run_start));
		table_set(t, 1, "%s", buf);
		fmt_double(buf, sizeof(buf), ep->interval_j[k]);
		table_set(t, 2, "%s", buf);
		fmt_double(buf, sizeof(buf), len > 0 ? ep->interval_j[k] / (len * 1e-9) : 0);
		table_set(t, 3, "%s", buf);
		table_set(t, 4, "%s", name);
		table_set(t, 5, "%.1f", pct(best, ep->interval_j[k]));
	}
	ret = table_print(t, f, NULL);
	table_free(t);
	return ret;
}

static int stats_table(const struct energy_report *r, FILE *f)
{
	struct table *t = table_new();
	static const char *const heads[] = {"mean",   "sd", "cv",  "min", "q1",
					    "median", "q3", "iqr", "max"};
	char buf[64], count[32];
	int ret;

	if (!t)
		return -ENOMEM;
	fmt_double(buf, sizeof(buf), r->rate_hz);
	fmt_count(count, sizeof(count), r->ps->n);
	fprintf(f, "\nPower samples: %s, %s per second achieved\n\n", count, buf);
	table_add_column(t, "column", TABLE_LEFT);
	table_add_column(t, "unit", TABLE_LEFT);
	table_add_column(t, "n", TABLE_RIGHT);
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		table_add_column(t, heads[i], TABLE_RIGHT);
	for (size_t i = 0; i < r->nstats; i++) {
		const struct power_stats *s = &r->stats[i].st;
		const double v[] = {s->mean,   s->sd, s->cv,  s->min, s->q1,
				    s->median, s->q3, s->iqr, s->max};

		table_add_row(t);
		table_set(t, 0, "%s", r->stats[i].name);
		table_set(t, 1, "%s", r->stats[i].unit);
		fmt_count(buf, sizeof(buf), s->n);
		table_set(t, 2, "%s", buf);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			fmt_double(buf, sizeof(buf), v[k]);
			table_set(t, 3 + k, "%s", buf);
		}
	}
	ret = table_print(t, f, NULL);
	table_free(t);
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

int energy_print_text(const struct energy_report *r, FILE *f)
{
	int ret;

	heading(r, f);
	ret = function_table(r, f);
	if (!ret && r->ep->nintervals)
		ret = interval_table(r, f);
	if (!ret)
		ret = channel_list(r, f);
	if (!ret && r->nstats)
		ret = stats_table(r, f);
	fputc('\n', f);
	energy_caveats(r, caveat_text, f);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

static void csv_energy_row(const struct energy_report *r, FILE *f, const char *name, uint64_t calls,
			   int64_t ns, double j, double power, double simpson_j)
{
	csv_field(f, name);
	fprintf(f, ",%" PRIu64 ",%" PRId64 ",%.15g,%.9g,%.6f,%.6f", calls, ns, j, power,
		pct(j, r->ep->total_j), pct((double)ns, run_ns(r)));
	if (r->simpson)
		fprintf(f, ",%.15g", simpson_j);
	fputc('\n', f);
}

/* The rows --top leaves out, summed: calls, time, energy, covered time, Simpson's energy. */
struct rest {
	size_t n;
	uint64_t calls;
	int64_t ns, covered_ns;
	double j, simpson_j;
};

static void rest_sum(const struct energy_report *r, struct rest *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = shown(r); i < r->ep->merged.nrows; i++) {
		const struct func_row *row = row_at(r, i);

		o->n++;
		o->calls += row->calls;
		o->ns += row_ns(r, row);
		o->covered_ns += r->inclusive ? row->incl_covered_ns : row->covered_ns;
		o->j += row_j(r, row);
		o->simpson_j += r->simpson ? row_simpson_j(r, i) : 0;
	}
}

static double rest_power(const struct rest *o)
{
	return o->covered_ns > 0 ? o->j / ((double)o->covered_ns * 1e-9) : 0;
}

#define REST_NAME "[other functions]"

int energy_print_csv(const struct energy_report *r, FILE *f)
{
	struct rest rest;
	const struct energy_profile *ep = r->ep;

	fputs("name,calls,time_ns,energy_j,power_w,pct_energy,pct_time", f);
	fputs(r->simpson ? ",energy_simpson_j\n" : "\n", f);
	for (size_t i = 0; i < shown(r); i++) {
		const struct func_row *row = row_at(r, i);

		csv_energy_row(r, f, row->sym.name, row->calls, row_ns(r, row), row_j(r, row),
			       row_power(r, row), r->simpson ? row_simpson_j(r, i) : 0);
	}
	rest_sum(r, &rest);
	if (rest.n)
		csv_energy_row(r, f, REST_NAME, rest.calls, rest.ns, rest.j, rest_power(&rest),
			       rest.simpson_j);
	if (!r->inclusive)
		csv_energy_row(r, f, OUTSIDE_NAME, 0, ep->outside_ns, ep->outside_j,
			       outside_power(ep), r->simpson ? r->simpson->outside_j : 0);
	if (ep->nintervals) {
		fputs("\ninterval,t_start_ns,t_end_ns,name,time_ns,energy_j\n", f);
		for (size_t k = 0; k < ep->nintervals; k++) {
			double rest = ep->interval_j[k];

			for (size_t i = 0; i < ep->merged.nrows; i++) {
				const struct func_row *row = row_at(r, i);

				if (!row->slices || (!row->slices[k].ns && !row->slices[k].j))
					continue;
				rest -= row->slices[k].j;
				fprintf(f, "%zu,%" PRId64 ",%" PRId64 ",", k, ep->edges[k],
					ep->edges[k + 1]);
				csv_field(f, row->sym.name);
				fprintf(f, ",%" PRId64 ",%.15g\n", row->slices[k].ns,
					row->slices[k].j);
			}
			fprintf(f, "%zu,%" PRId64 ",%" PRId64 ",%s,%" PRId64 ",%.15g\n", k,
				ep->edges[k], ep->edges[k + 1], OUTSIDE_NAME,
				ep->interval_idle_ns[k], rest);
		}
	}
	energy_caveats(r, caveat_warning, stderr);
	return ferror(f) ? -EIO : 0;
}

int energy_print_stats_csv(const struct energy_report *r, FILE *f)
{
	fputs("column,unit,n,mean,sd,cv,min,q1,median,q3,iqr,max,rate_hz\n", f);
	for (size_t i = 0; i < r->nstats; i++) {
		const struct power_stats *s = &r->stats[i].st;

		csv_field(f, r->stats[i].name);
		fputc(',', f);
		csv_field(f, r->stats[i].unit);
		fprintf(f, ",%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", s->n,
			s->mean, s->sd, s->cv, s->min, s->q1, s->median, s->q3, s->iqr, s->max,
			r->rate_hz);
	}
	energy_caveats(r, caveat_warning, stderr);
	return ferror(f) ? -EIO : 0;
}

static void json_row(struct jsonw *w, const struct energy_report *r, const char *name,
		     uint64_t calls, int64_t ns, double j, double power, double simpson_j)
{
	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", name);
	jsonw_kv_u64(w, "calls", calls);
	jsonw_kv_i64(w, "time_ns", ns);
	jsonw_kv_double(w, "energy_j", j);
	jsonw_kv_double(w, "power_w", power);
	jsonw_kv_double(w, "pct_energy", pct(j, r->ep->total_j));
	jsonw_kv_double(w, "pct_time", pct((double)ns, run_ns(r)));
	if (r->simpson)
		jsonw_kv_double(w, "energy_simpson_j", simpson_j);
}

int energy_print_json(const struct energy_report *r, FILE *f)
{
	const struct energy_profile *ep = r->ep;
	struct rest rest;
	struct jsonw w;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_string(&w, "source", r->ps->source);
	jsonw_kv_string(&w, "channel", r->channel);
	jsonw_kv_string(&w, "method", r->method);
	jsonw_kv_bool(&w, "inclusive", r->inclusive);
	jsonw_kv_i64(&w, "run_start_ns", ep->run_start);
	jsonw_kv_i64(&w, "run_end_ns", ep->run_end);
	jsonw_kv_i64(&w, "covered_start_ns", ep->cover_start);
	jsonw_kv_i64(&w, "covered_end_ns", ep->cover_end);
	jsonw_kv_double(&w, "energy_j", ep->total_j);
	if (r->simpson)
		jsonw_kv_double(&w, "energy_simpson_j", r->simpson->total_j);
	jsonw_key(&w, "functions");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < shown(r); i++) {
		const struct func_row *row = row_at(r, i);

		json_row(&w, r, row->sym.name, row->calls, row_ns(r, row), row_j(r, row),
			 row_power(r, row), r->simpson ? row_simpson_j(r, i) : 0);
		jsonw_kv_string(&w, "file", row->sym.file);
		jsonw_kv_i64(&w, "line", row->sym.line);
		if (row->slices) {
			jsonw_key(&w, "intervals_excl_j");
			jsonw_array_begin(&w);
			for (size_t k = 0; k < ep->nintervals; k++)
				jsonw_double(&w, row->slices[k].j);
			jsonw_array_end(&w);
		}
		jsonw_object_end(&w);
	}
	rest_sum(r, &rest);
	if (rest.n) {
		json_row(&w, r, REST_NAME, rest.calls, rest.ns, rest.j, rest_power(&rest),
			 rest.simpson_j);
		jsonw_object_end(&w);
	}
	if (!r->inclusive) {
		json_row(&w, r, OUTSIDE_NAME, 0, ep->outside_ns, ep->outside_j, outside_power(ep),
			 r->simpson ? r->simpson->outside_j : 0);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	if (ep->nintervals) {
		jsonw_key(&w, "intervals");
		jsonw_array_begin(&w);
		for (size_t k = 0; k < ep->nintervals; k++) {
			jsonw_object_begin(&w);
			jsonw_kv_i64(&w, "t_start_ns", ep->edges[k]);
			jsonw_kv_i64(&w, "t_end_ns", ep->edges[k + 1]);
			jsonw_kv_double(&w, "energy_j", ep->interval_j[k]);
			jsonw_kv_i64(&w, "outside_ns", ep->interval_idle_ns[k]);
			jsonw_object_end(&w);
		}
		jsonw_array_end(&w);
	}
	jsonw_key(&w, "channels");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < r->nchannels; i++) {
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "name", r->channels[i].name);
		jsonw_kv_bool(&w, "working", r->channels[i].working);
		if (r->channels[i].working)
			jsonw_kv_double(&w, "energy_j", r->channels[i].energy_j);
		else {
			jsonw_key(&w, "energy_j");
			jsonw_null(&w);
		}
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_kv_u64(&w, "samples", r->ps->n);
	jsonw_kv_double(&w, "rate_hz", r->rate_hz);
	jsonw_key(&w, "statistics");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < r->nstats; i++) {
		const struct power_stats *s = &r->stats[i].st;

		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "column", r->stats[i].name);
		jsonw_kv_string(&w, "unit", r->stats[i].unit);
		jsonw_kv_u64(&w, "n", s->n);
		jsonw_kv_double(&w, "mean", s->mean);
		jsonw_kv_double(&w, "sd", s->sd);
		jsonw_kv_double(&w, "cv", s->cv);
		jsonw_kv_double(&w, "min", s->min);
		jsonw_kv_double(&w, "q1", s->q1);
		jsonw_kv_double(&w, "median", s->median);
		jsonw_kv_double(&w, "q3", s->q3);
		jsonw_kv_double(&w, "iqr", s->iqr);
		jsonw_kv_double(&w, "max", s->max);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	energy_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}
