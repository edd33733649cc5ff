/* mpi-pattern-view.c - the columns of `perfscope mpi --patterns`: the wait-state patterns and
 * their call sites (mpi-view.h). */
#include "view/mpi-view.h"

#include "lib/jsonw.h"
#include "view/mpi-print-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#define R(ctx) ((const struct mpi_report *)(ctx))

/* A pattern, of all ranks (rank -1) or of one. */
struct prow {
	int k;
	int rank;
};

#define PROW(row) ((const struct prow *)(row))
#define SITE(row) ((const struct mpi_wait_site *)(row))

/* The wait of pattern K on rank I. */
static int64_t rank_wait(const struct mpi_waits *w, int i, int k)
{
	return w->pattern[(size_t)i * MPI_PAT_COUNT + (size_t)k];
}

/* ARG: 0 the key, 1 the name */
static void get_pattern(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	enum mpi_pattern k = (enum mpi_pattern)PROW(row)->k;

	(void)ctx;
	v->kind = VIEW_S;
	v->s = arg ? mpi_pattern_name(k) : mpi_pattern_key(k);
}

/* ARG: 0 rank ("all" or the rank), 1 wait, 2 % of the execution time, 3 calls, 4 the rank
 * that waits the most */
static void get_pattern_num(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_waits *w = R(ctx)->waits;
	const struct prow *p = row;
	int64_t ns = p->rank < 0 ? w->pattern_total[p->k] : rank_wait(w, p->rank, p->k);
	int worst = -1;

	switch (arg) {
	case 0:
		if (p->rank < 0) {
			v->kind = VIEW_S;
			v->s = "all";
		} else {
			v->kind = VIEW_I64;
			v->i = p->rank;
		}
		break;
	case 1:
		v->kind = VIEW_I64;
		v->i = ns;
		break;
	case 2:
		v->kind = VIEW_F64;
		v->d = p->rank < 0 ? pct((double)ns, (double)exec_sum(w))
				   : mpi_waits_pct(w, p->rank, ns, MPI_REL_EXEC);
		break;
	case 3:
		if (p->rank < 0) {
			v->kind = VIEW_U64;
			v->u = w->pattern_calls[p->k];
		}
		break;
	default:
		for (int i = 0; i < w->p; i++)
			if (rank_wait(w, i, p->k) > 0 &&
			    (worst < 0 || rank_wait(w, i, p->k) > rank_wait(w, worst, p->k)))
				worst = i;
		if (worst >= 0) {
			v->kind = VIEW_I64;
			v->i = worst;
		}
	}
}

static void json_per_rank(struct jsonw *jw, const void *ctx, const void *row, size_t arg)
{
	const struct mpi_waits *w = R(ctx)->waits;

	(void)arg;
	jsonw_array_begin(jw);
	for (int i = 0; i < w->p; i++)
		jsonw_i64(jw, rank_wait(w, i, PROW(row)->k));
	jsonw_array_end(jw);
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

static const struct view_col pattern_cols[] = {
    COL("pattern", "pattern", VIEW_STR, TABLE_LEFT, CSV | JSN | ENT, get_pattern, 0),
    COL("name", "pattern", VIEW_STR, TABLE_LEFT, TXT | JSN, get_pattern, 1),
    COL("rank", "rank", VIEW_STR, TABLE_RIGHT, CSV | ENT, get_pattern_num, 0),
    COL("wait_ns", "wait", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_pattern_num, 1),
    COL("pct_exec", "%", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_pattern_num, 2),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_pattern_num, 3),
    COL("worst_rank", "worst rank", VIEW_INT, TABLE_RIGHT, TXT, get_pattern_num, 4),
    COL("per_rank_ns", "per rank", VIEW_STR, TABLE_LEFT, JSN, get_pattern, 0,
	.json = json_per_rank),
};

/* --- call sites */

/* The site of S in R's model, NULL when unknown. */
static const struct mpi_site *site_of(const void *ctx, const struct mpi_wait_site *s)
{
	return s->site != MPI_NONE ? &R(ctx)->m->sites[s->site] : NULL;
}

/* ARG: 0 pattern, 1 routine, 2 function ("" unknown), 3 file, 4 the text's function ("?"
 * unknown), 5 the text's place: file:line, the address, or "?" */
static void get_site_str(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_wait_site *s = row;
	const struct mpi_model *m = R(ctx)->m;
	const struct mpi_site *site = site_of(ctx, s);
	const struct mpi_site *known = s->site != MPI_NONE && s->site < m->nsites ? site : NULL;

	v->kind = VIEW_S;
	if (arg == 0)
		v->s = mpi_pattern_key(s->pattern);
	else if (arg == 1)
		v->s = routine_name(s->routine);
	else if (arg == 2)
		v->s = site ? site->function : "";
	else if (arg == 3)
		v->s = site ? site->file : "";
	else if (arg == 4)
		v->s = known && known->function[0] ? known->function : "?";
	else if (known && known->file[0])
		snprintf(v->buf, sizeof(v->buf), "%s:%u", known->file, known->line), v->s = v->buf;
	else if (known && known->addr)
		snprintf(v->buf, sizeof(v->buf), "0x%" PRIx64, known->addr), v->s = v->buf;
	else
		v->s = "?";
}

/* ARG: 0 rank, 1 line, 2 address, 3 wait, 4 calls */
static void get_site_num(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_wait_site *s = row;
	const struct mpi_site *site = site_of(ctx, s);

	v->kind = arg == 0 || arg == 3 ? VIEW_I64 : VIEW_U64;
	if (arg == 0)
		v->i = s->rank;
	else if (arg == 1)
		v->u = site ? site->line : 0;
	else if (arg == 2)
		v->u = site ? site->addr : 0;
	else if (arg == 3)
		v->i = s->wait_ns;
	else
		v->u = s->calls;
}

static const struct view_col site_cols[] = {
    COL("pattern", "pattern", VIEW_STR, TABLE_LEFT, CSV | JSN | ENT, get_site_str, 0),
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL | ENT, get_site_num, 0),
    COL("function", "function", VIEW_STR, TABLE_LEFT, TXT, get_site_str, 4),
    COL("where", "where", VIEW_STR, TABLE_LEFT, TXT, get_site_str, 5),
    COL("function", "function", VIEW_STR, TABLE_LEFT, CSV | JSN | ENT, get_site_str, 2),
    COL("file", "file", VIEW_STR, TABLE_LEFT, CSV | JSN | ENT, get_site_str, 3),
    COL("line", "line", VIEW_INT, TABLE_RIGHT, CSV | JSN | ENT, get_site_num, 1),
    COL("addr", "address", VIEW_INT, TABLE_RIGHT, JSN, get_site_num, 2),
    COL("routine", "routine", VIEW_STR, TABLE_LEFT, VIEW_IN_ALL | ENT, get_site_str, 1),
    COL("wait_ns", "wait", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_site_num, 3),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_site_num, 4),
};

int mpi_pattern_view_make(struct view *v, const struct mpi_report *r, enum mpi_table t,
			  enum out_format fmt, int pattern)
{
	const struct mpi_waits *w = r->waits;
	size_t top = r->top_sites ? r->top_sites : MPI_TOP_SITES;
	size_t max = t == MPI_TABLE_SITES ? w->nsites : MPI_PAT_COUNT * ((size_t)w->p + 1);
	const void **rows = malloc((max + 1) * (sizeof(*rows) + sizeof(struct prow)));
	struct prow *p = (struct prow *)(rows + max + 1);
	int per_rank = fmt == OUT_CSV || fmt == OUT_LONG;

	*v = (struct view){.rows = rows, .ctx = r};
	if (!rows)
		return -ENOMEM;
	if (t == MPI_TABLE_SITES) {
		v->cols = site_cols;
		v->ncols = sizeof(site_cols) / sizeof(site_cols[0]);
		for (size_t i = 0; i < w->nsites && (pattern < 0 || v->nrows < top); i++)
			if (pattern < 0 || (int)w->sites[i].pattern == pattern)
				rows[v->nrows++] = &w->sites[i];
		return 0;
	}
	v->cols = pattern_cols;
	v->ncols = sizeof(pattern_cols) / sizeof(pattern_cols[0]);
	for (int k = 0; k < MPI_PAT_COUNT; k++) {
		p[v->nrows] = (struct prow){k, -1};
		rows[v->nrows] = &p[v->nrows];
		v->nrows++;
	}
	for (int i = 0; per_rank && i < w->p; i++)
		for (int k = 0; k < MPI_PAT_COUNT; k++) {
			if (!rank_wait(w, i, k))
				continue;
			p[v->nrows] = (struct prow){k, i};
			rows[v->nrows] = &p[v->nrows];
			v->nrows++;
		}
	return 0;
}
