/* mpi-view.c - the columns of the tables of `perfscope mpi` (mpi-view.h). */
#include "view/mpi-view.h"

#include "format/mpi-routines.h"
#include "view/mpi-print-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define R(ctx) ((const struct mpi_report *)(ctx))

/* A row of the routines, the wait cells and the matrix. */
struct mrow {
	int rank; /* -1: all ranks */
	int peer; /* a rank, -1 collective, -2 total */
	unsigned k;
	const struct mpi_routine_stat *s;
	int64_t ns, run, mpi;
};

#define MROW(row) ((const struct mrow *)(row))
#define PAIR(row) ((const struct mpi_pair *)(row))
#define UNM(row)  ((const struct mpi_unmatched *)(row))

/* The separator line of the routines' text. */
static const char separator[1];

/* --- routines */

static void get_rank(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	if (MROW(row)->rank < 0)
		view_set_str(v, "all");
	else
		view_set_i64(v, MROW(row)->rank);
}

static void get_routine(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_str(v, routine_name(MROW(row)->k));
}

/* ARG: 0 calls, 1 total, 2 mean, 3 min, 4 max, 5 % of the run, 6 % of MPI, 7 bytes */
static void get_stat(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mrow *m = row;

	(void)ctx;
	switch (arg) {
	case 0:
		view_set_u64(v, m->s->calls);
		break;
	case 1:
		view_set_i64(v, m->s->total_ns);
		break;
	case 2:
		view_set_f64(v, mpi_routine_mean(m->s));
		break;
	case 3:
		view_set_i64(v, m->s->min_ns);
		break;
	case 4:
		view_set_i64(v, m->s->max_ns);
		break;
	case 5:
		view_set_f64(v, pct((double)m->s->total_ns, (double)m->run));
		break;
	case 6:
		view_set_f64(v, pct((double)m->s->total_ns, (double)m->mpi));
		break;
	default:
		view_set_u64(v, m->s->bytes);
	}
}

#define ENT (VIEW_IN_ALL | VIEW_ENTITY)
/* A column: key, header, type, alignment, flags, getter, its arg, then any other field. */
#define COL(k, h, t, a, f, g, n, ...)                                                              \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n,      \
		__VA_ARGS__                                                                        \
	}

static const struct view_col routine_cols[] = {
    COL("rank", "rank", VIEW_STR, TABLE_LEFT, ENT, get_rank, 0),
    COL("routine", "routine", VIEW_STR, TABLE_LEFT, ENT, get_routine, 0),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 0),
    COL("total_ns", "total", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 1),
    COL("mean_ns", "mean", VIEW_NS_1, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 2),
    COL("min_ns", "min", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 3),
    COL("max_ns", "max", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 4),
    COL("pct_run", "run %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 5),
    COL("pct_mpi", "MPI %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 6),
    COL("bytes", "bytes", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_stat, 7),
};

/* --- message pairs */

/* ARG: 0 sender, 1 receiver, 2 messages, 3 matched, 4 unmatched sends, 5 unmatched receives,
 * 6 both unmatched, 7 bytes */
static void get_pair(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_pair *p = row;
	const uint64_t n[] = {0,
			      0,
			      p->messages,
			      p->matched,
			      p->unmatched_sends,
			      p->unmatched_recvs,
			      p->unmatched_sends + p->unmatched_recvs,
			      p->bytes};

	(void)ctx;
	if (arg < 2)
		view_set_i64(v, arg ? p->dst : p->src);
	else
		view_set_u64(v, n[arg]);
}

/* ARG: 0 mean, 1 min, 2 max; not counted when the pair has no rate */
static void get_rate(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_pair *p = row;
	const double r[] = {p->rate_mean, p->rate_min, p->rate_max};

	(void)ctx;
	if (p->nrates)
		view_set_f64(v, r[arg]);
}

#define CSVJ (VIEW_IN_CSV | VIEW_IN_JSON)

static const struct view_col pair_cols[] = {
    COL("sender", "sender", VIEW_INT, TABLE_RIGHT, ENT, get_pair, 0),
    COL("receiver", "receiver", VIEW_INT, TABLE_RIGHT, ENT, get_pair, 1),
    COL("messages", "messages", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_pair, 2),
    COL("matched", "matched", VIEW_COUNT, TABLE_RIGHT, CSVJ, get_pair, 3),
    COL("unmatched_sends", "unmatched sends", VIEW_COUNT, TABLE_RIGHT, CSVJ, get_pair, 4),
    COL("unmatched_recvs", "unmatched receives", VIEW_COUNT, TABLE_RIGHT, CSVJ, get_pair, 5),
    COL("unmatched", "unmatched", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_TEXT, get_pair, 6),
    COL("bytes", "bytes", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_pair, 7),
    COL("rate_mean_bps", "rate mean", VIEW_RATE, TABLE_RIGHT, VIEW_IN_ALL, get_rate, 0,
	.null_text = "n/a"),
    COL("rate_min_bps", "min", VIEW_RATE, TABLE_RIGHT, VIEW_IN_ALL, get_rate, 1,
	.null_text = "n/a"),
    COL("rate_max_bps", "max", VIEW_RATE, TABLE_RIGHT, VIEW_IN_ALL, get_rate, 2,
	.null_text = "n/a"),
};

/* --- unmatched message ends */

/* ARG: 0 kind, 1 rank, 2 routine, 3 peer, 4 tag, 5 bytes, 6 time from the run's start */
static void get_unmatched(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_unmatched *u = row;

	switch (arg) {
	case 0:
		view_set_str(v, u->kind == MPI_UNMATCHED_SEND ? "send" : "receive");
		break;
	case 1:
		view_set_i64(v, u->rank);
		break;
	case 2:
		view_set_str(v, routine_name(u->routine));
		break;
	case 3:
		view_set_i64(v, u->peer);
		break;
	case 4:
		view_set_i64(v, u->tag);
		break;
	case 5:
		view_set_u64(v, u->bytes);
		break;
	default:
		view_set_i64(v, u->enter_ns - R(ctx)->m->start_ns);
	}
}

static const struct view_col unmatched_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, VIEW_IN_TEXT, get_unmatched, 1),
    COL("kind", "end", VIEW_STR, TABLE_LEFT, ENT, get_unmatched, 0),
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, CSVJ | VIEW_ENTITY, get_unmatched, 1),
    COL("routine", "routine", VIEW_STR, TABLE_LEFT, ENT, get_unmatched, 2),
    COL("peer", "peer", VIEW_INT, TABLE_RIGHT, ENT, get_unmatched, 3),
    COL("tag", "tag", VIEW_INT, TABLE_RIGHT, ENT, get_unmatched, 4),
    COL("bytes", "bytes", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_unmatched, 5),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_unmatched, 6),
};

/* --- wait cells */

static void get_peer(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	if (MROW(row)->peer >= 0)
		view_set_i64(v, MROW(row)->peer);
	else
		view_set_str(v, MROW(row)->peer == -1 ? "collective" : "total");
}

/* ARG: 0 the wait, 1 % of the rank's execution time, 2 % of its total wait */
static void get_wait(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mrow *m = row;

	if (!arg)
		view_set_i64(v, m->ns);
	else
		view_set_f64(v, mpi_waits_pct(R(ctx)->waits, m->rank, m->ns,
					      arg == 1 ? MPI_REL_EXEC : MPI_REL_WAIT));
}

static const struct view_col wait_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, ENT, get_rank, 0),
    COL("peer", "peer", VIEW_STR, TABLE_RIGHT, ENT, get_peer, 0),
    COL("wait_ns", "wait", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_wait, 0),
    COL("pct_exec", "exec %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_wait, 1),
    COL("pct_wait", "wait %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_wait, 2),
};

/* --- the wait matrix's text: ARG the peer, its count the collective, then the total */

static void get_matrix(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_report *r = ctx;
	const struct mpi_waits *w = r->waits;
	int i = MROW(row)->rank, j = (int)arg;
	int64_t ns = j < w->p	 ? w->p2p[(size_t)i * (size_t)w->p + (size_t)j]
		     : j == w->p ? w->coll[i]
				 : w->total[i];

	if (j <= w->p && !r->all && mpi_waits_hidden(w, i, ns, r->rel))
		return;
	if (r->rel == MPI_REL_NONE)
		fmt_duration(v->buf, sizeof(v->buf), (double)ns);
	else
		snprintf(v->buf, sizeof(v->buf), "%.1f", mpi_waits_pct(w, i, ns, r->rel));
	view_set_str(v, v->buf);
}

static void get_matrix_rank(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_i64(v, MROW(row)->rank);
}

/* --- rows */

int mpi_view_routines_by_time(const struct mpi_routines *rs, unsigned *order)
{
	int n = 0;

	for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++)
		if (rs->all[k].calls)
			order[n++] = k;
	for (int i = 1; i < n; i++) /* insertion sort: at most MPI_ROUTINE_COUNT */
		for (int j = i;
		     j > 0 && rs->all[order[j]].total_ns > rs->all[order[j - 1]].total_ns; j--) {
			unsigned tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	return n;
}

/* The routines' rows into ROWS (room for (nranks + 1) x (MPI_ROUTINE_COUNT + 1)) and M. */
static size_t routine_rows(const struct mpi_report *r, enum out_format fmt, int all_only,
			   const void **rows, struct mrow *m)
{
	const struct mpi_routines *rs = r->routines;
	unsigned order[MPI_ROUTINE_COUNT];
	int text = fmt == OUT_TEXT, n = text ? mpi_view_routines_by_time(rs, order) : 0;
	size_t nr = 0, nm = 0;

	for (int rk = -1; rk < (all_only ? 0 : rs->nranks); rk++) {
		if (text && rk >= 0)
			rows[nr++] = separator;
		for (int i = 0; i < (text ? n : (int)MPI_ROUTINE_COUNT); i++) {
			unsigned k = text ? order[i] : (unsigned)i;
			const struct mpi_routine_stat *s =
			    rk < 0 ? &rs->all[k] : mpi_routines_at(rs, rk, k);

			if (!s->calls)
				continue;
			m[nm] = (struct mrow){.rank = rk, .k = k, .s = s};
			m[nm].run = rk < 0 ? rs->run_total_ns : rs->run_ns[rk];
			m[nm].mpi = rk < 0 ? rs->mpi_total_ns : rs->mpi_ns[rk];
			rows[nr++] = &m[nm++];
		}
	}
	return nr;
}

/* Where the wait cells go. */
struct cells {
	const void **rows;
	struct mrow *m;
	size_t n;
};

static void wait_cell(void *ctx, int i, int j, int64_t ns)
{
	struct cells *c = ctx;

	c->m[c->n] = (struct mrow){.rank = i, .peer = j, .ns = ns};
	c->rows[c->n] = &c->m[c->n];
	c->n++;
}

static size_t rows_max(const struct mpi_report *r, enum mpi_table t)
{
	switch (t) {
	case MPI_TABLE_ROUTINES:
		return ((size_t)r->routines->nranks + 1) * (MPI_ROUTINE_COUNT + 1);
	case MPI_TABLE_PAIRS:
		return r->traffic->npairs;
	case MPI_TABLE_UNMATCHED:
		return r->traffic->nunmatched;
	case MPI_TABLE_WAITS:
		return (size_t)r->waits->p * ((size_t)r->waits->p + 2);
	default:
		return (size_t)r->waits->p;
	}
}

/* The matrix's columns into COLS, their headers into HEADS (12 bytes a peer). */
static size_t matrix_cols(const struct mpi_report *r, struct view_col *cols, char *heads)
{
	int p = r->waits->p;

	cols[0] = (struct view_col)COL("rank", "rank", VIEW_INT, TABLE_RIGHT, VIEW_IN_TEXT,
				       get_matrix_rank, 0);
	for (int j = 0; j <= p + 1; j++) {
		char *h = heads + (size_t)j * 12;

		snprintf(h, 12, "%d", j);
		cols[1 + j] = (struct view_col)COL(h,
						   j < p    ? h
						   : j == p ? "collective"
							    : "total",
						   VIEW_STR, TABLE_RIGHT, VIEW_IN_TEXT, get_matrix,
						   (size_t)j);
	}
	return (size_t)p + 3;
}

/* mpi_view_make of the tables of mpi-view.c. */
static int make_table(struct view *v, const struct mpi_report *r, enum mpi_table t,
		      enum out_format fmt, int all_only)
{
	static const struct {
		const struct view_col *cols;
		size_t n;
	} tables[] = {
	    {routine_cols, sizeof(routine_cols) / sizeof(routine_cols[0])},
	    {pair_cols, sizeof(pair_cols) / sizeof(pair_cols[0])},
	    {unmatched_cols, sizeof(unmatched_cols) / sizeof(unmatched_cols[0])},
	    {wait_cols, sizeof(wait_cols) / sizeof(wait_cols[0])},
	};
	size_t max = rows_max(r, t),
	       ncols = t == MPI_TABLE_MATRIX ? (size_t)r->waits->p + 3 : tables[t].n;
	size_t head = (max + 1) * sizeof(void *) + (max + 1) * sizeof(struct mrow);
	char *block = malloc(head + ncols * sizeof(struct view_col) + ncols * 12);
	const void **rows = (const void **)block;
	struct mrow *m = (struct mrow *)(rows + max + 1);
	struct view_col *cols = (struct view_col *)(block + head);

	*v = (struct view){.rows = rows, .ctx = r, .separator = separator};
	if (!block)
		return -ENOMEM;
	if (t == MPI_TABLE_MATRIX)
		v->ncols = matrix_cols(r, cols, (char *)(cols + ncols));
	else
		v->ncols = tables[t].n;
	if (t != MPI_TABLE_MATRIX)
		memcpy(cols, tables[t].cols, ncols * sizeof(*cols));
	v->cols = cols;
	switch (t) {
	case MPI_TABLE_ROUTINES:
		v->nrows = routine_rows(r, fmt, all_only, rows, m);
		break;
	case MPI_TABLE_PAIRS:
		for (size_t i = 0; i < max; i++)
			rows[v->nrows++] = &r->traffic->pairs[i];
		break;
	case MPI_TABLE_UNMATCHED:
		for (size_t i = 0; i < max; i++)
			rows[v->nrows++] = &r->traffic->unmatched[i];
		break;
	case MPI_TABLE_WAITS: {
		struct cells c = {rows, m, 0};

		waits_cells(r, wait_cell, &c);
		v->nrows = c.n;
		break;
	}
	default:
		for (size_t i = 0; i < max; i++) {
			m[i] = (struct mrow){.rank = (int)i};
			rows[v->nrows++] = &m[i];
		}
	}
	return 0;
}

int mpi_view_make(struct view *v, const struct mpi_report *r, enum mpi_table t, enum out_format fmt,
		  int all_only)
{
	if (t == MPI_TABLE_PATTERNS || t == MPI_TABLE_SITES)
		return mpi_pattern_view_make(v, r, t, fmt, -1);
	return make_table(v, r, t, fmt, all_only);
}

void mpi_view_release(struct view *v)
{
	free((void *)v->rows);
	*v = (struct view){0};
}
