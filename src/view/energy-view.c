/* energy-view.c - the columns and rows of the tables of `perfscope energy` (energy-view.h). */
#include "view/energy-view.h"

#include "lib/jsonw.h"
#include "view/energy-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EV(ctx) ((const struct energy_view *)(ctx))

/* A row of the functions or of the intervals. */
struct erow {
	const char *name;
	const struct func_row *fn; /* a function's row; NULL for the rows that sum others */
	int outside;		   /* the time outside traced functions */
	uint64_t calls;
	int64_t ns;
	double j, power, simpson_j;
	size_t k;	/* an interval */
	double top_pct; /* an interval's top function's share of its energy */
};

#define ER(row) ((const struct erow *)(row))

#define OUTSIDE_NAME "[outside traced functions]"
#define REST_NAME    "[other functions]"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static double run_ns(const struct energy_report *r)
{
	return (double)(r->ep->run_end - r->ep->run_start);
}

/* --- functions */

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, ER(row)->name);
}

/* The time outside traced functions has no calls: blank in text, 0 elsewhere. */
static void get_calls(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	if (!ER(row)->outside || EV(ctx)->fmt != OUT_TEXT)
		view_set_u64(v, ER(row)->calls);
}

static void get_ns(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, ER(row)->ns);
}

/* ARG: 0 the time's % of the run, 1 the energy's % of the covered run's */
static void get_pct(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct energy_report *r = EV(ctx)->r;

	view_set_f64(v,
		     arg ? pct(ER(row)->j, r->ep->total_j) : pct((double)ER(row)->ns, run_ns(r)));
}

/* ARG: 0 the energy, 1 Simpson's */
static void get_j(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx;
	view_set_f64(v, arg ? ER(row)->simpson_j : ER(row)->j);
}

static void get_power(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_f64(v, ER(row)->power);
}

/* ARG: 0 the function's source file, 1 its line; none for the rows that sum others */
static void get_where(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct func_row *fn = ER(row)->fn;

	(void)ctx;
	if (fn && arg)
		view_set_i64(v, fn->sym.line);
	else if (fn)
		view_set_str(v, fn->sym.file);
}

static void json_slices(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct energy_profile *ep = EV(ctx)->r->ep;

	(void)arg;
	jsonw_array_begin(w);
	for (size_t k = 0; k < ep->nintervals; k++)
		jsonw_double(w, ER(row)->fn->slices[k].j);
	jsonw_array_end(w);
}

#define ENT  (VIEW_IN_ALL | VIEW_ENTITY)
#define CSVJ (VIEW_IN_CSV | VIEW_IN_JSON)
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

/* The text shows the shares after the time and the energy, CSV and JSON after the power; the
 * energy per interval is last, and only functions have it (energy_view_json). */
static const struct view_col function_cols[] = {
    COL("name", "function", VIEW_STR, TABLE_LEFT, ENT, get_name, 0),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_calls, 0),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_ns, 0),
    COL("pct_time", "time %", VIEW_PCT, TABLE_RIGHT, VIEW_IN_TEXT, get_pct, 0),
    COL("energy_j", "energy J", VIEW_DOUBLE_15, TABLE_RIGHT, VIEW_IN_ALL, get_j, 0),
    COL("pct_energy", "energy %", VIEW_PCT, TABLE_RIGHT, VIEW_IN_TEXT, get_pct, 1),
    COL("power_w", "power W", VIEW_DOUBLE_9, TABLE_RIGHT, VIEW_IN_ALL, get_power, 0),
    COL("pct_energy", "energy %", VIEW_PCT_6, TABLE_RIGHT, CSVJ, get_pct, 1),
    COL("pct_time", "time %", VIEW_PCT_6, TABLE_RIGHT, CSVJ, get_pct, 0),
    COL("energy_simpson_j", "Simpson J", VIEW_DOUBLE_15, TABLE_RIGHT, VIEW_IN_ALL | VIEW_OPTION,
	get_j, 1),
    COL("file", "file", VIEW_STR, TABLE_LEFT, VIEW_IN_JSON | VIEW_JSON_OMIT_NULL, get_where, 0),
    COL("line", "line", VIEW_INT, TABLE_RIGHT, VIEW_IN_JSON | VIEW_JSON_OMIT_NULL, get_where, 1),
    COL("intervals_excl_j", "intervals", VIEW_STR, TABLE_LEFT, VIEW_IN_JSON, get_name, 0,
	.json = json_slices),
};

#define NFUNCTION_COLS (sizeof(function_cols) / sizeof(function_cols[0]))

/* --- intervals */

/* ARG: 0 the interval's start, 1 its end; from the run's start */
static void get_iv_from_run(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct energy_profile *ep = EV(ctx)->r->ep;

	view_set_i64(v, ep->edges[ER(row)->k + arg] - ep->run_start);
}

/* ARG: 0 the interval's start, 1 its end; on the experiment's clock */
static void get_iv_edge(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	view_set_i64(v, EV(ctx)->r->ep->edges[ER(row)->k + arg]);
}

/* ARG: 0 the interval's energy, 1 its mean power, 2 its top function's share, 3 the time no
 * thread was in traced code */
static void get_iv(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct energy_profile *ep = EV(ctx)->r->ep;
	size_t k = ER(row)->k;
	double len = (double)(ep->edges[k + 1] - ep->edges[k]);

	switch (arg) {
	case 0:
		view_set_f64(v, ep->interval_j[k]);
		break;
	case 1:
		view_set_f64(v, len > 0 ? ep->interval_j[k] / (len * 1e-9) : 0);
		break;
	case 2:
		view_set_f64(v, ER(row)->top_pct);
		break;
	default:
		view_set_i64(v, ep->interval_idle_ns[k]);
	}
}

static const struct view_col interval_cols[] = {
    COL("start", "start", VIEW_NS, TABLE_RIGHT, VIEW_IN_TEXT, get_iv_from_run, 0),
    COL("end", "end", VIEW_NS, TABLE_RIGHT, VIEW_IN_TEXT, get_iv_from_run, 1),
    COL("t_start_ns", "start", VIEW_INT, TABLE_RIGHT, CSVJ | VIEW_ENTITY, get_iv_edge, 0),
    COL("t_end_ns", "end", VIEW_INT, TABLE_RIGHT, CSVJ | VIEW_ENTITY, get_iv_edge, 1),
    COL("energy_j", "energy J", VIEW_DOUBLE_15, TABLE_RIGHT, VIEW_IN_ALL, get_iv, 0),
    COL("power_w", "power W", VIEW_DOUBLE, TABLE_RIGHT, VIEW_IN_TEXT, get_iv, 1),
    COL("top_function", "top function", VIEW_STR, TABLE_LEFT, VIEW_IN_TEXT, get_name, 0),
    COL("top_pct", "its energy %", VIEW_PCT, TABLE_RIGHT, VIEW_IN_TEXT, get_iv, 2),
    COL("outside_ns", "outside", VIEW_NS, TABLE_RIGHT, CSVJ, get_iv, 3),
};

/* --- slices: an interval's share of each function */

/* A function's slice of an interval, or (FN NULL) the interval's time outside traced
 * functions: a row per function and interval, so kept small. */
struct srow {
	const struct func_row *fn;
	size_t k;
};

#define SR(row) ((const struct srow *)(row))

/* ARG: 0 the interval, 1 its start, 2 its end, 3 the function, 4 its time, 5 its energy */
static void get_slice(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct energy_profile *ep = EV(ctx)->r->ep;
	const struct func_row *fn = SR(row)->fn;
	size_t k = SR(row)->k;

	switch (arg) {
	case 0:
		view_set_i64(v, (int64_t)k);
		break;
	case 1:
	case 2:
		view_set_i64(v, ep->edges[k + arg - 1]);
		break;
	case 3:
		view_set_str(v, fn ? fn->sym.name : OUTSIDE_NAME);
		break;
	case 4:
		view_set_i64(v, fn ? fn->slices[k].ns : ep->interval_idle_ns[k]);
		break;
	default:
		view_set_f64(v, fn ? fn->slices[k].j : EV(ctx)->outside_j[k]);
	}
}

static const struct view_col slice_cols[] = {
    COL("interval", "interval", VIEW_INT, TABLE_RIGHT, ENT, get_slice, 0),
    COL("t_start_ns", "start", VIEW_INT, TABLE_RIGHT, ENT, get_slice, 1),
    COL("t_end_ns", "end", VIEW_INT, TABLE_RIGHT, ENT, get_slice, 2),
    COL("name", "function", VIEW_STR, TABLE_LEFT, ENT, get_slice, 3),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_slice, 4),
    COL("energy_j", "energy J", VIEW_DOUBLE_15, TABLE_RIGHT, VIEW_IN_ALL, get_slice, 5),
};

/* --- channels: rows struct energy_channel */

#define CH(row) ((const struct energy_channel *)(row))

static void get_ch_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, CH(row)->name);
}

static void get_ch_working(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, CH(row)->working);
}

static void json_ch_working(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	(void)ctx, (void)arg;
	jsonw_bool(w, CH(row)->working);
}

/* Not counted for a channel that does not work. */
static void get_ch_j(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	if (CH(row)->working)
		view_set_f64(v, CH(row)->energy_j);
}

static const struct view_col channel_cols[] = {
    COL("name", "channel", VIEW_STR, TABLE_LEFT, ENT, get_ch_name, 0),
    COL("working", "working", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_ch_working, 0,
	.json = json_ch_working),
    COL("energy_j", "energy J", VIEW_DOUBLE_15, TABLE_RIGHT, VIEW_IN_ALL, get_ch_j, 0,
	.null_text = "not working"),
};

/* --- power statistics: rows struct energy_stat */

#define ST(row) ((const struct energy_stat *)(row))

/* ARG: 0 the column's name, 1 its unit */
static void get_st_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx;
	view_set_str(v, arg ? ST(row)->unit : ST(row)->name);
}

static void get_st_n(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, ST(row)->st.n);
}

/* ARG: 0 mean, 1 sd, 2 cv, 3 min, 4 q1, 5 median, 6 q3, 7 iqr, 8 max, 9 the samples' rate */
static void get_st(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct power_stats *s = &ST(row)->st;
	const double d[] = {s->mean,   s->sd, s->cv,  s->min, s->q1,
			    s->median, s->q3, s->iqr, s->max, EV(ctx)->r->rate_hz};

	view_set_f64(v, d[arg]);
}

#define STAT(k, n) COL(k, k, VIEW_DOUBLE_9, TABLE_RIGHT, VIEW_IN_ALL, get_st, n)

static const struct view_col stat_cols[] = {
    COL("column", "column", VIEW_STR, TABLE_LEFT, ENT, get_st_name, 0),
    COL("unit", "unit", VIEW_STR, TABLE_LEFT, ENT, get_st_name, 1),
    COL("n", "n", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_st_n, 0),
    STAT("mean", 0),
    STAT("sd", 1),
    STAT("cv", 2),
    STAT("min", 3),
    STAT("q1", 4),
    STAT("median", 5),
    STAT("q3", 6),
    STAT("iqr", 7),
    STAT("max", 8),
    COL("rate_hz", "rate Hz", VIEW_DOUBLE_9, TABLE_RIGHT, VIEW_IN_CSV, get_st, 9),
};

/* --- rows */

static double row_j(const struct energy_report *r, const struct func_row *row)
{
	return r->inclusive ? row->incl_j : row->excl_j;
}

/* Mean power over NS of covered time. */
static double power(double j, int64_t ns)
{
	return ns > 0 ? j / ((double)ns * 1e-9) : 0;
}

static size_t shown(const struct energy_report *r)
{
	size_t n = r->ep->merged.nrows;

	return r->top && r->top < n ? r->top : n;
}

/* Row I of the functions in display order, into E; its covered time into *COVERED. */
static void function_row(const struct energy_report *r, size_t i, struct erow *e, int64_t *covered)
{
	const struct func_row *fn = &r->ep->merged.rows[r->order[i]];
	const struct func_row *sf = r->simpson ? &r->simpson->merged.rows[r->order[i]] : NULL;

	*covered = r->inclusive ? fn->incl_covered_ns : fn->covered_ns;
	*e = (struct erow){
	    .name = fn->sym.name,
	    .fn = fn,
	    .calls = fn->calls,
	    .ns = r->inclusive ? fn->incl_ns : fn->excl_ns,
	    .j = row_j(r, fn),
	    .power = power(row_j(r, fn), *covered),
	    .simpson_j = sf ? row_j(r, sf) : 0,
	};
}

/* The functions shown; in CSV, JSON and long CSV the others summed; the time outside. */
static size_t function_rows(const struct energy_report *r, enum out_format fmt, struct erow *e)
{
	const struct energy_profile *ep = r->ep;
	struct erow rest = {.name = REST_NAME};
	size_t n = shown(r), nrest = 0;
	int64_t covered, rest_covered = 0;

	for (size_t i = 0; i < n; i++)
		function_row(r, i, &e[i], &covered);
	for (size_t i = n; fmt != OUT_TEXT && i < ep->merged.nrows; i++, nrest++) {
		struct erow x;

		function_row(r, i, &x, &covered);
		rest.calls += x.calls;
		rest.ns += x.ns;
		rest_covered += covered;
		rest.j += x.j;
		rest.simpson_j += x.simpson_j;
	}
	rest.power = power(rest.j, rest_covered);
	if (nrest)
		e[n++] = rest;
	if (!r->inclusive)
		e[n++] = (struct erow){
		    .name = OUTSIDE_NAME,
		    .outside = 1,
		    .ns = ep->outside_ns,
		    .j = ep->outside_j,
		    .power = power(ep->outside_j, ep->outside_ns),
		    .simpson_j = r->simpson ? r->simpson->outside_j : 0,
		};
	return n;
}

/* Per interval: the function that took the most of its energy (or the time outside). */
static size_t interval_rows(const struct energy_profile *ep, struct erow *e)
{
	for (size_t k = 0; k < ep->nintervals; k++) {
		double best = ep->interval_j[k];
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
		e[k] = (struct erow){.name = name, .k = k, .top_pct = pct(best, ep->interval_j[k])};
	}
	return ep->nintervals;
}

/* Per interval, the functions (in display order) with time or energy in it, then the time
 * outside, whose energy (what the functions left) goes to OUTSIDE_J. */
static size_t slice_rows(const struct energy_report *r, struct srow *sr, double *outside_j)
{
	const struct energy_profile *ep = r->ep;
	size_t n = 0;

	for (size_t k = 0; k < ep->nintervals; k++) {
		outside_j[k] = ep->interval_j[k];
		for (size_t i = 0; i < ep->merged.nrows; i++) {
			const struct func_row *row = &ep->merged.rows[r->order[i]];

			if (!row->slices || (!row->slices[k].ns && !row->slices[k].j))
				continue;
			outside_j[k] -= row->slices[k].j;
			sr[n++] = (struct srow){row, k};
		}
		sr[n++] = (struct srow){NULL, k};
	}
	return n;
}

static size_t rows_max(const struct energy_report *r, enum energy_table t)
{
	switch (t) {
	case ENERGY_TABLE_FUNCTIONS:
		return r->ep->merged.nrows + 2;
	case ENERGY_TABLE_INTERVALS:
		return r->ep->nintervals;
	case ENERGY_TABLE_SLICES:
		return r->ep->nintervals * (r->ep->merged.nrows + 1);
	case ENERGY_TABLE_CHANNELS:
		return r->nchannels;
	default:
		return r->nstats;
	}
}

int energy_view_make(struct energy_view *ev, const struct energy_report *r, enum energy_table t,
		     enum out_format fmt)
{
	static const struct {
		const struct view_col *cols;
		size_t n;
	} tables[] = {
	    {function_cols, NFUNCTION_COLS},
	    {interval_cols, sizeof(interval_cols) / sizeof(interval_cols[0])},
	    {slice_cols, sizeof(slice_cols) / sizeof(slice_cols[0])},
	    {channel_cols, sizeof(channel_cols) / sizeof(channel_cols[0])},
	    {stat_cols, sizeof(stat_cols) / sizeof(stat_cols[0])},
	};
	size_t max = rows_max(r, t), n = 0;
	size_t size = t == ENERGY_TABLE_SLICES	    ? sizeof(struct srow)
		      : t <= ENERGY_TABLE_INTERVALS ? sizeof(struct erow)
						    : 0;
	const void **rows =
	    malloc((max + 1) * (sizeof(*rows) + size) +
		   (t == ENERGY_TABLE_SLICES ? r->ep->nintervals * sizeof(double) : 0));
	struct erow *e = (struct erow *)(rows + max + 1);
	struct srow *sr = (struct srow *)(rows + max + 1);

	*ev = (struct energy_view){.r = r, .fmt = fmt, .block = rows};
	ev->v =
	    (struct view){.cols = tables[t].cols, .ncols = tables[t].n, .rows = rows, .ctx = ev};
	if (!rows)
		return -ENOMEM;
	switch (t) {
	case ENERGY_TABLE_FUNCTIONS:
	case ENERGY_TABLE_INTERVALS:
		n = t == ENERGY_TABLE_INTERVALS ? interval_rows(r->ep, e)
						: function_rows(r, fmt, e);
		ev->v.option = r->simpson != NULL;
		for (size_t i = 0; i < n; i++)
			rows[i] = &e[i];
		break;
	case ENERGY_TABLE_SLICES:
		ev->outside_j = (double *)(sr + max + 1);
		n = slice_rows(r, sr, ev->outside_j);
		for (size_t i = 0; i < n; i++)
			rows[i] = &sr[i];
		break;
	case ENERGY_TABLE_CHANNELS:
		for (; n < max; n++)
			rows[n] = &r->channels[n];
		break;
	default:
		for (; n < max; n++)
			rows[n] = &r->stats[n];
	}
	ev->v.nrows = n;
	return 0;
}

void energy_view_json(struct jsonw *w, const struct energy_view *ev)
{
	struct view plain = ev->v;

	/* the functions' columns without their energy per interval, for the rows without one */
	if (ev->v.cols == function_cols)
		plain.ncols = NFUNCTION_COLS - 1;
	jsonw_array_begin(w);
	for (size_t i = 0; i < ev->v.nrows; i++) {
		const struct erow *e = ev->v.cols == function_cols ? ev->v.rows[i] : NULL;

		view_json_row(w, e && e->fn && e->fn->slices ? &ev->v : &plain, ev->v.rows[i]);
	}
	jsonw_array_end(w);
}

int energy_view_print(const struct energy_view *ev, enum out_format fmt, FILE *f)
{
	switch (fmt) {
	case OUT_TEXT:
		return view_print_text(&ev->v, f, NULL);
	case OUT_LONG:
		return view_print_long(&ev->v, f);
	default:
		return view_print_csv(&ev->v, f);
	}
}

void energy_view_release(struct energy_view *ev)
{
	free(ev->block);
	*ev = (struct energy_view){0};
}
