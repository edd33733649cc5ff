/* cmd-energy.c - `perfscope energy`: energy per function and per interval. */
#include "cli/cli.h"

#include "analysis/energy/energy.h"
#include "model/experiment-open.h"
#include "analysis/energy/powerfile.h"
#include "format/powerlog.h"
#include "model/symbols.h"
#include "lib/strbuf.h"
#include "view/energy-print.h"
#include "record/record-power.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CMD "energy"

/* The --power-* options: how to read the meter file given with --power. */
struct meter_options {
	const char *format, *scale, *rate, *offset;
};

/* The run's start on the experiment's clock: the launcher's, else the first process's
 * first clock pair (a program run with PERFSCOPE_OUT alone). */
static double run_start(const struct experiment *e)
{
	double start = 0;

	if (e->start_ns)
		return (double)e->start_ns;
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].npairs && (start == 0 || (double)e->procs[i].pairs[0].ns < start))
			start = (double)e->procs[i].pairs[0].ns;
	return start;
}

/* Load the power samples: FILE if given, else what record stored. Prints the cause. */
static int power_load(struct power_series *ps, const struct experiment *e, const char *dir,
		      const char *file, const struct meter_options *mo)
{
	struct power_file_spec spec;
	char path[4096], err[512];
	int ret;

	if (file) {
		if (meter_spec_parse(CMD, mo->format, mo->scale, mo->rate, mo->offset, &spec))
			return -EINVAL;
		ret = power_file_read(ps, file, &spec, run_start(e), err, sizeof(err));
	} else if (!e->has_power) {
		cli_error(
		    CMD,
		    "%s has no power samples: record with --power rapl|perf|file:PATH, or give "
		    "a meter's file with --power FILE",
		    dir);
		return -ENOENT;
	} else if (!strcmp(e->power.source, "file")) {
		/* as record checked and stored them */
		if (meter_spec_parse(CMD, e->power.format, e->power.scale, NULL, NULL, &spec))
			return -EINVAL;
		if (e->power.rate_hz > 0)
			spec.rate_hz = e->power.rate_hz;
		spec.offset_ns = e->power.offset_ns;
		snprintf(path, sizeof(path), "%s/%s", dir, e->power.file);
		ret = power_file_read(ps, path, &spec, run_start(e), err, sizeof(err));
	} else {
		snprintf(path, sizeof(path), "%s/%s", dir, e->power.file);
		ret = power_log_read(ps, path, err, sizeof(err));
	}
	if (ret < 0)
		cli_error(CMD, "%s", err);
	return ret;
}

/* The channel to attribute: NAME, else the first that works. Prints the cause. */
static int channel_pick(const struct power_series *ps, const char *name, size_t *ch)
{
	struct strbuf names = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < ps->nch; i++) {
		strbuf_addf(&names, "%s%s", i ? ", " : "", ps->ch[i].name);
		if (name ? !strcmp(ps->ch[i].name, name) : ps->ch[i].advancing) {
			strbuf_release(&names);
			*ch = i;
			if (ps->ch[i].advancing)
				return 0;
			cli_error(
			    CMD,
			    "power channel %s never advanced: it does not work on this machine; "
			    "choose another with --channel",
			    name);
			return -EINVAL;
		}
	}
	if (names.err)
		cli_error(CMD, "out of memory");
	else if (name)
		cli_error(CMD, "%s has no power channel %s (it has: %s)", ps->source, name,
			  strbuf_str(&names));
	else
		cli_error(CMD,
			  "%s: no power channel ever advanced (%s): the source does not work on "
			  "this machine",
			  ps->source, strbuf_str(&names));
	ret = names.err ? names.err : -EINVAL;
	strbuf_release(&names);
	return ret;
}

/* Energy of every channel over the covered run (the attributed one, ATTRIBUTED, is known:
 * its integral is not built twice). */
static int channels_total(struct energy_channel *out, const struct power_series *ps,
			  const struct energy_profile *ep, size_t attributed, enum integ_method m)
{
	for (size_t i = 0; i < ps->nch; i++) {
		struct power_integral pi;
		size_t hint = 0;

		out[i] = (struct energy_channel){ps->ch[i].name, ps->ch[i].advancing, ep->total_j};
		if (i == attributed || !ps->ch[i].advancing)
			continue;
		if (power_integral_init(&pi, ps, i, m) < 0)
			return -ENOMEM;
		out[i].energy_j = power_integral_at(&pi, (double)ep->cover_end, &hint) -
				  power_integral_at(&pi, (double)ep->cover_start, &hint);
		power_integral_release(&pi);
	}
	return 0;
}

/* False for the column of a counter that never advanced: it has no statistics worth showing. */
static int column_works(const struct power_series *ps, const char *name)
{
	for (size_t i = 0; i < ps->nch; i++)
		if (!strcmp(ps->ch[i].name, name))
			return ps->ch[i].advancing;
	return 1;
}

/* Samples I0..I1 of PS: those within [LO, HI]; I1 < I0 when there is none. */
static void sample_range(const struct power_series *ps, int64_t lo, int64_t hi, size_t *i0,
			 size_t *i1)
{
	size_t a = 0, b = ps->n;

	while (a < b) { /* first time >= lo */
		size_t m = a + (b - a) / 2;

		if (power_time(ps, m) < (double)lo)
			a = m + 1;
		else
			b = m;
	}
	*i0 = a;
	b = ps->n;
	while (a < b) { /* first time > hi */
		size_t m = a + (b - a) / 2;

		if (power_time(ps, m) <= (double)hi)
			a = m + 1;
		else
			b = m;
	}
	*i1 = a - 1; /* may wrap below i0: none */
}

/* Statistics of the samples within the covered run: every column and every power channel
 * (last: statistics reorder the values). A column of per-interval values (a counter's power)
 * has the intervals between those samples. */
static struct energy_stat *stats_compute(struct power_series *ps, const struct energy_profile *ep,
					 size_t *n)
{
	struct energy_stat *st = calloc(ps->ncols + ps->nch + 1, sizeof(*st));
	size_t i0, i1, count;

	*n = 0;
	if (!st)
		return NULL;
	sample_range(ps, ep->cover_start, ep->cover_end, &i0, &i1);
	count = i1 + 1 > i0 ? i1 + 1 - i0 : 0;
	for (size_t i = 0; i < ps->ncols; i++) {
		size_t c = ps->cols[i].n == ps->n ? count : count ? count - 1 : 0;

		if (!column_works(ps, ps->cols[i].name))
			continue;
		st[*n].name = ps->cols[i].name;
		st[*n].unit = ps->cols[i].unit;
		power_stats_compute(&st[(*n)++].st, ps->cols[i].v + i0, c);
	}
	for (size_t i = 0; i < ps->nch; i++) {
		if (ps->ch[i].kind != POWER_WATTS || !ps->ch[i].advancing)
			continue;
		st[*n].name = ps->ch[i].name;
		st[*n].unit = "W";
		power_stats_compute(&st[(*n)++].st, ps->ch[i].v + i0, count);
	}
	return st;
}

/* What the command line asks for. */
struct energy_args {
	const char *output, *dir, *power, *channel, *method, *interval, *format;
	struct meter_options mo;
	long top, nintervals;
	int csv, json, stats, inclusive, force;
};

/* A's options into EO, *BOTH (--method both) and *FMT. Prints the cause: EXIT_USAGE or 0. */
static int args_check(const struct energy_args *a, struct energy_options *eo, int *both,
		      enum out_format *fmt)
{
	uint64_t interval_ns = 0;
	char why[128];
	int bad_format = options_out_format(a->csv, a->json, a->format, fmt, why, sizeof(why));
	const char *msg = NULL;

	if (!strcmp(a->method, "simpson")) {
		eo->method = INTEG_SIMPSON;
	} else if (!strcmp(a->method, "both")) {
		*both = 1;
	} else if (strcmp(a->method, "trapezoid")) {
		cli_error(CMD, "--method %s: give trapezoid, simpson or both", a->method);
		return EXIT_USAGE;
	}
	if (a->interval && (parse_duration_ns(a->interval, &interval_ns) || interval_ns < 1000)) {
		cli_error(CMD, "--interval %s: expected a duration of 1us or more, e.g. 10ms",
			  a->interval);
		return EXIT_USAGE;
	}
	if (a->nintervals == 0 || a->nintervals > ENERGY_MAX_INTERVALS)
		msg = "--intervals N: N from 1 to 100000";
	else if (a->nintervals > 0 && a->interval)
		msg = "--intervals and --interval exclude each other";
	else if (a->top < 0)
		msg = "--top N: N must be 0 or more";
	else if (a->csv && a->json)
		msg = "--csv and --json exclude each other";
	else if (bad_format)
		msg = why;
	else if (a->stats && *fmt != OUT_CSV && *fmt != OUT_LONG)
		msg = a->format ? "--stats goes with --csv or --format long"
				: "--stats goes with --csv";
	if (msg) {
		cli_error(CMD, "%s", msg);
		return EXIT_USAGE;
	}
	if (!a->power && (a->mo.format || a->mo.scale || a->mo.rate || a->mo.offset)) {
		cli_error(CMD,
			  "--power-format, --power-scale, --power-rate and --power-offset "
			  "describe a file given with --power FILE (for the recorded meter: "
			  "--power %s/power.meter with them)",
			  a->dir);
		return EXIT_USAGE;
	}
	eo->nintervals = a->nintervals > 0 ? (size_t)a->nintervals : 0;
	eo->interval_ns = (int64_t)interval_ns;
	return 0;
}

/* Everything a report is made of, and what owns it. */
struct energy_data {
	struct energy_profile ep, simpson;
	struct energy_channel *chans;
	struct energy_stat *st;
	struct power_series ps;
	struct experiment e;
	struct symtab syms;
	size_t *order, nst;
};

/* The energy profiles (SIMPSON too with BOTH) and what the report shows besides, into D.
 * Prints the cause: EXIT_USAGE or 0. */
static int data_build(struct energy_data *d, const struct energy_args *a, struct energy_options *eo,
		      int both)
{
	char err[512] = "";
	int ret;

	if (experiment_open(&d->e, a->dir, err, sizeof(err))) {
		cli_error(CMD, "%s", err);
		return EXIT_USAGE;
	}
	if (power_load(&d->ps, &d->e, a->dir, a->power, &a->mo) < 0 ||
	    channel_pick(&d->ps, a->channel, &eo->channel))
		return EXIT_USAGE;
	if (symtab_init(&d->syms, a->dir) < 0) {
		cli_error(CMD, "out of memory");
		return EXIT_USAGE;
	}
	ret = energy_profile_build(&d->ep, &d->e, &d->syms, &d->ps, eo, err, sizeof(err));
	if (ret == 0 && both) {
		eo->method = INTEG_SIMPSON;
		ret = energy_profile_build(&d->simpson, &d->e, &d->syms, &d->ps, eo, err,
					   sizeof(err));
		eo->method = INTEG_TRAPEZOID;
	}
	if (ret < 0) {
		cli_error(CMD, "%s", err);
		return EXIT_USAGE;
	}
	d->order = energy_order(&d->ep, a->inclusive);
	d->chans = calloc(d->ps.nch + 1, sizeof(*d->chans));
	if (!d->order || !d->chans ||
	    channels_total(d->chans, &d->ps, &d->ep, eo->channel, eo->method) < 0 ||
	    !(d->st = stats_compute(&d->ps, &d->ep, &d->nst))) {
		cli_error(CMD, "out of memory");
		return EXIT_USAGE;
	}
	return 0;
}

static void data_release(struct energy_data *d)
{
	free(d->order);
	free(d->chans);
	free(d->st);
	energy_profile_release(&d->ep);
	energy_profile_release(&d->simpson);
	power_series_release(&d->ps);
	if (d->syms.dir)
		symtab_release(&d->syms);
	experiment_release(&d->e);
}

/* The report of D as A asks for it, written to its output. An exit status. */
static int report_write(const struct energy_data *d, const struct energy_args *a,
			const struct energy_options *eo, int both, enum out_format fmt)
{
	const struct energy_report r = {
	    .e = &d->e,
	    .ps = &d->ps,
	    .channel = d->ps.ch[eo->channel].name,
	    .ep = &d->ep,
	    .simpson = both ? &d->simpson : NULL,
	    .method = a->method,
	    .inclusive = a->inclusive,
	    .top = (size_t)a->top,
	    .order = d->order,
	    .stats = d->st,
	    .nstats = d->nst,
	    .rate_hz = power_series_rate(&d->ps),
	    .channels = d->chans,
	    .nchannels = d->ps.nch,
	    .dir = a->dir,
	    .stats_only = a->stats,
	};
	FILE *out = NULL;
	int ret;

	if ((ret = cli_output_open(CMD, a->output, a->force, &out)))
		return ret;
	ret = energy_print(&r, fmt, out, stderr) ? 1 : 0;
	return cli_output_close(CMD, out, ret == 0, ret);
}

int cmd_energy(int argc, char **argv)
{
	struct energy_args a = {.dir = "perfscope.out", .method = "trapezoid", .nintervals = -1};
	int help = 0, both = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "power", OPT_STRING, &a.power, "FILE",
	     "an external power meter's samples (docs/power-files.md), instead of the recorded "
	     "ones",
	     0, NULL},
	    {0, "power-format", OPT_STRING, &a.mo.format, "SPEC",
	     "columns of FILE: watts (default), time,watts, volts,amps, skip...", 0, NULL},
	    {0, "power-scale", OPT_STRING, &a.mo.scale, "S,..",
	     "factor per value column, e.g. 2,1 for volts through a divider", 0, NULL},
	    {0, "power-rate", OPT_STRING, &a.mo.rate, "HZ",
	     "samples per second of FILE without a time column (20000)", 0, NULL},
	    {0, "power-offset", OPT_STRING, &a.mo.offset, "T",
	     "FILE's first sample this long after the run's start (may be negative)", 0, NULL},
	    {0, "channel", OPT_STRING, &a.channel, "NAME",
	     "power channel to attribute (default: the first that works)", 0, NULL},
	    {0, "method", OPT_STRING, &a.method, "M",
	     "integration: trapezoid (default), simpson or both", 0, NULL},
	    {0, "inclusive", OPT_FLAG, &a.inclusive, NULL,
	     "charge every function on the stack, not only the one on top", 0, NULL},
	    {0, "intervals", OPT_INT, &a.nintervals, "N", "also split the run into N intervals", 0,
	     NULL},
	    {0, "interval", OPT_STRING, &a.interval, "T",
	     "also split the run into intervals of T (10ms, 1s...)", 0, NULL},
	    {0, "top", OPT_INT, &a.top, "N", "show the first N functions (0: all)", 0, NULL},
	    {0, "stats", OPT_FLAG, &a.stats, NULL,
	     "with --csv or --format long: the power statistics instead", 0, NULL},
	    {0, "csv", OPT_FLAG, &a.csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &a.json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &a.format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &a.output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &a.force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct energy_options eo = {0};
	struct energy_data d = {0};
	enum out_format fmt = OUT_TEXT;

	ret = cli_parse(CMD, specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand(CMD, argc - 1 - first, argv + 1 + first, &a.dir))
		return EXIT_USAGE;
	if ((ret = args_check(&a, &eo, &both, &fmt)))
		return ret;
	ret = data_build(&d, &a, &eo, both);
	if (ret == 0)
		ret = report_write(&d, &a, &eo, both, fmt);
	data_release(&d);
	return ret;
}
