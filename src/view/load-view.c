/* load-view.c - the columns of `perfscope mpi --load`'s tables (load-view.h). */
#include "view/load-view.h"

#include "lib/jsonw.h"
#include "view/load-print.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CTX(ctx) ((const struct load_view_ctx *)(ctx))
#define SET(ctx) (CTX(ctx)->set)

/* A host (its log L), a rank (I), a sample (I of log L, rank column C or the host's when C
 * is -1), or the samples [A, B) of a row of the load over time. */
struct lrow {
	size_t l, i, a, b;
	long c;
};

#define LROW(row) ((const struct lrow *)(row))

/* A share: none when not known. */
static void set_share(struct view_value *v, double d)
{
	if (isnan(d))
		return;
	v->kind = VIEW_F64;
	v->d = d;
}

/* A share in CPUs as the text shows it ("%.3f"): none when not known. */
static void set_cpus(struct view_value *v, double d)
{
	if (isnan(d))
		return;
	snprintf(v->buf, sizeof(v->buf), "%.3f", d);
	view_set_str(v, v->buf);
}

/* The statistic ARG (0 samples, 1 mean, 2 min, 3 max) of ST; PCT: a share in % (text). */
static void set_stat(struct view_value *v, const struct load_stats *st, size_t arg, int pct)
{
	const double d[] = {0, st->mean, st->min, st->max};

	if (arg == 0) {
		v->kind = VIEW_U64;
		v->u = st->n;
	} else {
		set_share(v, pct ? d[arg] * 100 : d[arg]);
	}
}

/* --- hosts */

static const char *base_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

/* ARG: 0 host, 1 file, 2 CPUs, 3 period */
static void get_host(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct load_log *log = &SET(ctx)->logs[LROW(row)->l];

	if (arg == 0)
		view_set_str(v, log->host);
	else if (arg == 1)
		view_set_str(v, base_name(log->path));
	else if (arg == 2)
		view_set_i64(v, log->cpus);
	else
		v->kind = VIEW_U64, v->u = log->period_ns;
}

/* ARG: 0 samples, 1 mean, 2 min, 3 max of the host's busy share in % */
static void get_busy(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	set_stat(v, &SET(ctx)->busy[LROW(row)->l], arg, 1);
}

static void json_stats(struct jsonw *w, const struct load_stats *st)
{
	jsonw_kv_u64(w, "samples", st->n);
	jsonw_kv_double(w, "mean", st->mean);
	jsonw_kv_double(w, "min", st->min);
	jsonw_kv_double(w, "max", st->max);
}

static void json_series(struct jsonw *w, const double *v, size_t n, size_t stride)
{
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_double(w, v[i * stride]); /* NAN becomes null */
	jsonw_array_end(w);
}

#define TXT VIEW_IN_TEXT
#define CSV VIEW_IN_CSV
#define JSN VIEW_IN_JSON
#define ENT VIEW_ENTITY
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

/* --- ranks */

/* ARG: 0 rank, 1 host, 2 pid, 3 samples, 4-6 mean, min, max (text), 7-9 the same (JSON) */
static void get_rank(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct load_rank *r = &SET(ctx)->ranks[LROW(row)->i];
	const double d[] = {r->st.mean, r->st.min, r->st.max};

	if (arg == 0)
		view_set_i64(v, r->rank);
	else if (arg == 1)
		view_set_str(v, SET(ctx)->logs[r->log].host);
	else if (arg == 2)
		view_set_i64(v, r->pid);
	else if (arg == 3)
		set_stat(v, &r->st, 0, 0);
	else if (arg < 7)
		set_cpus(v, d[arg - 4]);
	else
		v->kind = VIEW_F64, v->d = d[arg - 7]; /* NAN becomes null */
}

static void json_share(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct load_rank *r = &SET(ctx)->ranks[LROW(row)->i];
	const struct load_log *log = &SET(ctx)->logs[r->log];

	(void)arg;
	json_series(w, log->share + r->col, log->nsamples, log->nranks);
}

static const struct view_col rank_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, TXT | JSN | ENT, get_rank, 0),
    COL("host", "host", VIEW_STR, TABLE_LEFT, TXT, get_rank, 1),
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, TXT | JSN, get_rank, 2),
    COL("samples", "samples", VIEW_INT, TABLE_RIGHT, TXT | JSN, get_rank, 3),
    COL("mean", "mean", VIEW_STR, TABLE_RIGHT, TXT, get_rank, 4, .null_text = "-"),
    COL("min", "min", VIEW_STR, TABLE_RIGHT, TXT, get_rank, 5, .null_text = "-"),
    COL("max", "max", VIEW_STR, TABLE_RIGHT, TXT, get_rank, 6, .null_text = "-"),
    COL("mean", "mean", VIEW_DOUBLE, TABLE_RIGHT, JSN, get_rank, 7),
    COL("min", "min", VIEW_DOUBLE, TABLE_RIGHT, JSN, get_rank, 8),
    COL("max", "max", VIEW_DOUBLE, TABLE_RIGHT, JSN, get_rank, 9),
    COL("share", "share", VIEW_STR, TABLE_LEFT, JSN, get_rank, 0, .json = json_share),
};
static const size_t nrank_cols = sizeof(rank_cols) / sizeof(rank_cols[0]);

/* --- hosts: the ranks in their JSON, and their columns */

/* The ranks of log L of CTX's set as JSON objects of rank_cols, into W. */
static void json_ranks(struct jsonw *w, const void *ctx, size_t l)
{
	const struct view v = {.cols = rank_cols, .ncols = nrank_cols, .ctx = ctx};

	jsonw_array_begin(w);
	for (size_t i = 0; i < SET(ctx)->nranks; i++) {
		const struct lrow row = {.i = i};

		if (SET(ctx)->ranks[i].log == l)
			view_json_row(w, &v, &row);
	}
	jsonw_array_end(w);
}

/* ARG: 0 busy statistics, 1 times, 2 busy over time, 3 ranks */
static void json_host(struct jsonw *w, const void *ctx, const void *row, size_t arg)
{
	const struct load_log *log = &SET(ctx)->logs[LROW(row)->l];

	if (arg == 0) {
		jsonw_object_begin(w);
		json_stats(w, &SET(ctx)->busy[LROW(row)->l]);
		jsonw_object_end(w);
	} else if (arg == 1) {
		jsonw_array_begin(w);
		for (size_t i = 0; i < log->nsamples; i++)
			jsonw_u64(w, log->time_ns[i]);
		jsonw_array_end(w);
	} else if (arg == 2) {
		json_series(w, log->host_busy, log->nsamples, 1);
	} else {
		json_ranks(w, ctx, LROW(row)->l);
	}
}

static const struct view_col host_cols[] = {
    COL("host", "host", VIEW_STR, TABLE_LEFT, TXT | JSN | ENT, get_host, 0),
    COL("file", "log", VIEW_STR, TABLE_LEFT, JSN, get_host, 1),
    COL("cpus", "CPUs", VIEW_INT, TABLE_RIGHT, TXT | JSN, get_host, 2),
    COL("period_ns", "period", VIEW_INT, TABLE_RIGHT, JSN, get_host, 3),
    COL("busy", "busy", VIEW_STR, TABLE_LEFT, JSN, get_host, 0, .json = json_host),
    COL("time_ns", "time", VIEW_STR, TABLE_LEFT, JSN, get_host, 1, .json = json_host),
    COL("busy_over_time", "busy", VIEW_STR, TABLE_LEFT, JSN, get_host, 2, .json = json_host),
    COL("ranks", "ranks", VIEW_STR, TABLE_LEFT, JSN, get_host, 3, .json = json_host),
    COL("samples", "samples", VIEW_INT, TABLE_RIGHT, TXT, get_busy, 0),
    COL("mean", "busy mean", VIEW_SHARE, TABLE_RIGHT, TXT, get_busy, 1, .null_text = "-"),
    COL("min", "min", VIEW_SHARE, TABLE_RIGHT, TXT, get_busy, 2, .null_text = "-"),
    COL("max", "max", VIEW_SHARE, TABLE_RIGHT, TXT, get_busy, 3, .null_text = "-"),
    COL("log", "log", VIEW_STR, TABLE_LEFT, TXT, get_host, 1),
};

/* --- statistics and samples: CSV */

/* The rows of the statistics: a host has c -1, a rank c 0. ARG: 0 host, 1 rank, 2 pid,
 * 3-6 samples, mean, min, max */
static void get_stat(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct lrow *r = row;
	const struct load_set *set = SET(ctx);
	const struct load_rank *rk = r->c < 0 ? NULL : &set->ranks[r->i];

	if (arg == 0)
		view_set_str(v, set->logs[rk ? rk->log : r->l].host);
	else if (arg == 1 && !rk)
		view_set_str(v, "host");
	else if ((arg == 1 || arg == 2) && rk)
		view_set_i64(v, arg == 1 ? rk->rank : rk->pid);
	else if (arg > 2)
		set_stat(v, rk ? &rk->st : &set->busy[r->l], arg - 3, 0);
}

/* ARG: 0 host, 1 rank (`host` for the host's busy share), 2 time, 3 share */
static void get_sample(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct lrow *r = row;
	const struct load_log *log = &SET(ctx)->logs[r->l];

	if (arg == 0)
		view_set_str(v, log->host);
	else if (arg == 1 && r->c < 0)
		view_set_str(v, "host");
	else if (arg == 1)
		view_set_i64(v, log->ranks[r->c]);
	else if (arg == 2)
		v->kind = VIEW_U64, v->u = log->time_ns[r->i];
	else
		set_share(v, r->c < 0 ? log->host_busy[r->i]
				      : load_log_share(log, r->i, (size_t)r->c));
}

static const struct view_col stat_cols[] = {
    COL("host", "host", VIEW_STR, TABLE_LEFT, CSV | ENT, get_stat, 0),
    COL("rank", "rank", VIEW_STR, TABLE_RIGHT, CSV | ENT, get_stat, 1),
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_stat, 2),
    COL("samples", "samples", VIEW_INT, TABLE_RIGHT, CSV, get_stat, 3),
    COL("mean", "mean", VIEW_SHARE, TABLE_RIGHT, CSV, get_stat, 4),
    COL("min", "min", VIEW_SHARE, TABLE_RIGHT, CSV, get_stat, 5),
    COL("max", "max", VIEW_SHARE, TABLE_RIGHT, CSV, get_stat, 6),
};

static const struct view_col sample_cols[] = {
    COL("host", "host", VIEW_STR, TABLE_LEFT, CSV | ENT, get_sample, 0),
    COL("rank", "rank", VIEW_STR, TABLE_RIGHT, CSV | ENT, get_sample, 1),
    COL("time_ns", "time", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_sample, 2),
    COL("share", "share", VIEW_SHARE, TABLE_RIGHT, CSV, get_sample, 3),
};

/* --- the load over time (text) */

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

/* ARG: 0 the time of the row's last sample in s, 1 the host's busy share in %, 2 + C rank
 * column C's share in CPUs */
static void get_over_time(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct lrow *r = row;
	const struct load_log *log = &SET(ctx)->logs[CTX(ctx)->log];

	if (arg == 0) {
		snprintf(v->buf, sizeof(v->buf), "%.3f",
			 (double)(log->time_ns[r->b - 1] - CTX(ctx)->origin) / 1e9);
		view_set_str(v, v->buf);
	} else if (arg == 1) {
		set_share(v, group_mean(log, log->host_busy, 1, r->a, r->b) * 100);
	} else {
		set_cpus(v, group_mean(log, log->share + (arg - 2), log->nranks, r->a, r->b));
	}
}

/* The over-time columns of LOG into COLS, their headers into HEADS (32 bytes a rank). */
static size_t over_time_cols(const struct load_log *log, struct view_col *cols, char *heads)
{
	cols[0] =
	    (struct view_col)COL("t_s", "t (s)", VIEW_STR, TABLE_RIGHT, TXT, get_over_time, 0);
	cols[1] = (struct view_col)COL("host", "host", VIEW_SHARE, TABLE_RIGHT, TXT, get_over_time,
				       1, .null_text = "-");
	for (size_t c = 0; c < log->nranks; c++) {
		char *h = heads + c * 32;

		snprintf(h, 32, "rank %d", log->ranks[c]);
		cols[2 + c] = (struct view_col)COL(h, h, VIEW_STR, TABLE_RIGHT, TXT, get_over_time,
						   2 + c, .null_text = "-");
	}
	return 2 + log->nranks;
}

/* The rows of table T into ROWS and R; their number. */
static size_t make_rows(const struct load_view_ctx *ctx, enum load_table t, const void **rows,
			struct lrow *r)
{
	const struct load_set *set = ctx->set;
	const struct load_log *log = set->nlogs ? &set->logs[ctx->log] : NULL;
	size_t n = 0, per = log ? (log->nsamples + LOAD_TEXT_ROWS - 1) / LOAD_TEXT_ROWS : 1;

	if (t == LOAD_TABLE_HOSTS || t == LOAD_TABLE_STATS)
		for (size_t l = 0; l < set->nlogs; l++)
			r[n++] = (struct lrow){.l = l, .c = -1};
	if (t == LOAD_TABLE_RANKS || t == LOAD_TABLE_STATS)
		for (size_t i = 0; i < set->nranks; i++)
			r[n++] = (struct lrow){.i = i};
	for (size_t l = 0; t == LOAD_TABLE_SAMPLES && l < set->nlogs; l++)
		for (size_t i = 0; i < set->logs[l].nsamples; i++)
			for (long c = -1; c < (long)set->logs[l].nranks; c++) {
				double d = c < 0 ? set->logs[l].host_busy[i]
						 : load_log_share(&set->logs[l], i, (size_t)c);

				if (!isnan(d))
					r[n++] = (struct lrow){.l = l, .i = i, .c = c};
			}
	for (size_t a = 0; t == LOAD_TABLE_OVER_TIME && log && a < log->nsamples; a += per)
		r[n++] =
		    (struct lrow){.a = a, .b = a + per < log->nsamples ? a + per : log->nsamples};
	for (size_t i = 0; i < n; i++)
		rows[i] = &r[i];
	return n;
}

/* The most rows table T can have. */
static size_t rows_max(const struct load_set *set, enum load_table t)
{
	size_t n = set->nlogs + set->nranks;

	for (size_t l = 0; t == LOAD_TABLE_SAMPLES && l < set->nlogs; l++)
		n += set->logs[l].nsamples * (set->logs[l].nranks + 1);
	for (size_t l = 0; t == LOAD_TABLE_OVER_TIME && l < set->nlogs; l++)
		n += set->logs[l].nsamples;
	return n;
}

int load_view_make(struct view *v, const struct load_view_ctx *ctx, enum load_table t)
{
	static const struct {
		const struct view_col *cols;
		size_t n;
	} tables[] = {
	    {host_cols, sizeof(host_cols) / sizeof(host_cols[0])},
	    {rank_cols, sizeof(rank_cols) / sizeof(rank_cols[0])},
	    {stat_cols, sizeof(stat_cols) / sizeof(stat_cols[0])},
	    {sample_cols, sizeof(sample_cols) / sizeof(sample_cols[0])},
	};
	const struct load_log *log = ctx->set->nlogs ? &ctx->set->logs[ctx->log] : NULL;
	size_t max = rows_max(ctx->set, t) + 1, nranks = log ? log->nranks : 0;
	size_t head = max * (sizeof(void *) + sizeof(struct lrow));
	char *block = malloc(head + (nranks + 2) * (sizeof(struct view_col) + 32));
	const void **rows = (const void **)block;
	struct view_col *cols = (struct view_col *)(block + head);

	*v = (struct view){.rows = rows, .ctx = ctx};
	if (!block)
		return -ENOMEM;
	v->nrows = make_rows(ctx, t, rows, (struct lrow *)(rows + max));
	if (t == LOAD_TABLE_OVER_TIME) {
		v->cols = cols;
		v->ncols = over_time_cols(log, cols, (char *)(cols + nranks + 2));
	} else {
		v->cols = tables[t].cols;
		v->ncols = tables[t].n;
	}
	return 0;
}

void load_view_release(struct view *v)
{
	free((void *)v->rows);
	*v = (struct view){0};
}
