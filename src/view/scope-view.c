/* scope-view.c - the columns of the scope report (scope-view.h). */
#include "view/scope-view.h"

#include "format/mpi-routines.h"
#include "view/scope-print.h"

#include <errno.h>
#include <stdlib.h>

/* A scope on a rank, or summed over the ranks (TOT set). */
struct srow {
	const struct mpi_scope *s;
	int rank; /* MPI_SCOPE_ALL: summed */
	const struct mpi_scope_cell *c;
	struct mpi_scope_total tot;
	int has_tot;
};

#define SROW(row) ((const struct srow *)(row))
#define OP(row)	  ((const struct mpi_scope_op *)(row))
#define P(ctx)	  (((const struct scope_report *)(ctx))->p)

static void set_rank(struct view_value *v, int rank)
{
	if (rank == MPI_SCOPE_ALL) {
		v->kind = VIEW_S;
		v->s = "all";
	} else {
		v->kind = VIEW_I64;
		v->i = rank;
	}
}

/* ARG: 0 name, 1 kind, 2 rank */
static void get_scope(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx;
	v->kind = VIEW_S;
	if (arg == 0)
		v->s = SROW(row)->s->name;
	else if (arg == 1)
		v->s = mpi_scope_kind_name(SROW(row)->s->kind);
	else
		set_rank(v, SROW(row)->rank);
}

/* ARG: 0 calls, 1 incl, 2 excl, 3 comp, 4 mpi, 5 wait, 6 comp incl, 7 mpi incl, 8 wait incl,
 * 9 MPI calls */
static void get_cell(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_scope_cell *c = SROW(row)->c;
	const int64_t ns[] = {0,
			      c->incl_ns,
			      c->excl_ns,
			      mpi_scope_comp(c),
			      mpi_scope_mpi(c),
			      c->wait_excl_ns,
			      mpi_scope_comp_incl(c),
			      mpi_scope_mpi_incl(c),
			      c->wait_incl_ns};

	(void)ctx;
	if (arg == 0 || arg == 9) {
		v->kind = VIEW_U64;
		v->u = arg ? c->mpi_calls : c->calls;
	} else {
		v->kind = VIEW_I64;
		v->i = ns[arg];
	}
}

static const struct mpi_scope_spread *spread_of(const struct srow *r, size_t which)
{
	return which == 0 ? &r->tot.comp : which == 1 ? &r->tot.mpi : &r->tot.wait;
}

/* "min / mean / max" of spread ARG (0 comp, 1 mpi, 2 wait); rows summed over ranks only */
static void get_spread_text(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_scope_spread *s = spread_of(SROW(row), arg);
	char a[32], b[32], c[32];

	(void)ctx;
	if (!SROW(row)->has_tot)
		return;
	fmt_duration(a, sizeof(a), (double)s->min);
	fmt_duration(b, sizeof(b), s->mean);
	fmt_duration(c, sizeof(c), (double)s->max);
	snprintf(v->buf, sizeof(v->buf), "%s / %s / %s", a, b, c);
	v->kind = VIEW_S;
	v->s = v->buf;
}

/* ARG: 3 x spread (0 comp, 1 mpi, 2 wait) + 0 min, 1 mean, 2 max */
static void get_spread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_scope_spread *s = spread_of(SROW(row), arg / 3);

	(void)ctx;
	if (!SROW(row)->has_tot)
		return;
	if (arg % 3 == 1) {
		v->kind = VIEW_F64;
		v->d = s->mean;
	} else {
		v->kind = VIEW_I64;
		v->i = arg % 3 ? s->max : s->min;
	}
}

#define ENT  (VIEW_IN_ALL | VIEW_ENTITY)
#define CSVJ (VIEW_IN_CSV | VIEW_IN_JSON)
#define SPR  (CSVJ | VIEW_JSON_OMIT_NULL)
/* A column: key, header, type, alignment, flags, getter, its arg. */
#define COL(k, h, t, a, f, g, n)                                                                   \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n       \
	}

static const struct view_col scope_cols[] = {
    COL("scope", "scope", VIEW_STR, TABLE_LEFT, ENT, get_scope, 0),
    COL("kind", "kind", VIEW_STR, TABLE_LEFT, ENT, get_scope, 1),
    COL("rank", "rank", VIEW_STR, TABLE_LEFT, ENT, get_scope, 2),
    COL("calls", "calls", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 0),
    COL("incl_ns", "incl", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 1),
    COL("excl_ns", "excl", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 2),
    COL("comp_ns", "comp", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 3),
    COL("mpi_ns", "mpi", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 4),
    COL("wait_ns", "wait", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 5),
    COL("comp_incl_ns", "comp incl", VIEW_NS, TABLE_RIGHT, CSVJ, get_cell, 6),
    COL("mpi_incl_ns", "mpi incl", VIEW_NS, TABLE_RIGHT, CSVJ, get_cell, 7),
    COL("wait_incl_ns", "wait incl", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_cell, 8),
    COL("mpi_calls", "MPI calls", VIEW_COUNT, TABLE_RIGHT, CSVJ, get_cell, 9),
    COL("comp", "comp min / mean / max", VIEW_STR, TABLE_RIGHT, VIEW_IN_TEXT | VIEW_OPTION,
	get_spread_text, 0),
    COL("mpi", "mpi min / mean / max", VIEW_STR, TABLE_RIGHT, VIEW_IN_TEXT | VIEW_OPTION,
	get_spread_text, 1),
    COL("wait", "wait min / mean / max", VIEW_STR, TABLE_RIGHT, VIEW_IN_TEXT | VIEW_OPTION,
	get_spread_text, 2),
    COL("comp_min_ns", "comp min", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 0),
    COL("comp_mean_ns", "comp mean", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 1),
    COL("comp_max_ns", "comp max", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 2),
    COL("mpi_min_ns", "mpi min", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 3),
    COL("mpi_mean_ns", "mpi mean", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 4),
    COL("mpi_max_ns", "mpi max", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 5),
    COL("wait_min_ns", "wait min", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 6),
    COL("wait_mean_ns", "wait mean", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 7),
    COL("wait_max_ns", "wait max", VIEW_NS, TABLE_RIGHT, SPR, get_spread, 8),
};

/* ARG: 0 scope, 1 kind, 2 rank, 3 routine, 4 calls, 5 time, 6 wait */
static void get_op(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct mpi_scope_op *op = row;
	const struct mpi_scope *s = &P(ctx)->scopes[op->scope];

	v->kind = VIEW_S;
	switch (arg) {
	case 0:
		v->s = s->name;
		break;
	case 1:
		v->s = mpi_scope_kind_name(s->kind);
		break;
	case 2:
		set_rank(v, op->rank);
		break;
	case 3:
		v->s = mpi_routine_name(op->routine);
		break;
	case 4:
		v->kind = VIEW_U64;
		v->u = op->calls;
		break;
	default:
		v->kind = VIEW_I64;
		v->i = arg == 5 ? op->time_ns : op->wait_ns;
	}
}

static const struct view_col op_cols[] = {
    COL("scope", "scope", VIEW_STR, TABLE_LEFT, ENT, get_op, 0),
    COL("kind", "kind", VIEW_STR, TABLE_LEFT, CSVJ | VIEW_ENTITY, get_op, 1),
    COL("rank", "rank", VIEW_STR, TABLE_LEFT, ENT, get_op, 2),
    COL("routine", "routine", VIEW_STR, TABLE_LEFT, ENT, get_op, 3),
    COL("calls", "calls", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_op, 4),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_op, 5),
    COL("wait_ns", "wait", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_op, 6),
};

/* Scopes shown: the first TOP. */
static size_t nshown(const struct scope_report *r)
{
	return r->top && r->top < r->p->nscopes ? r->top : r->p->nscopes;
}

/* A rank's row of a scope is shown when the scope ran or called MPI there. */
static int ran(const struct mpi_scope_cell *c)
{
	return c->calls || c->mpi_calls;
}

static int op_shown(const struct scope_report *r, const struct mpi_scope_op *op)
{
	if (op->scope >= nshown(r))
		return 0;
	if (r->rank != MPI_SCOPE_ALL)
		return op->rank == r->rank;
	return op->rank == MPI_SCOPE_ALL || r->per_rank;
}

/* The scope rows of R into ROWS and M; their number. */
static size_t scope_rows(const struct scope_report *r, const void **rows, struct srow *m)
{
	const struct mpi_scope_profile *p = r->p;
	size_t n = 0;

	for (size_t s = 0; s < nshown(r); s++) {
		if (r->rank != MPI_SCOPE_ALL) {
			if (r->rank < p->nranks && ran(mpi_scope_cell(p, s, r->rank))) {
				m[n] = (struct srow){.s = &p->scopes[s],
						     .rank = r->rank,
						     .c = mpi_scope_cell(p, s, r->rank)};
				rows[n] = &m[n];
				n++;
			}
			continue;
		}
		m[n] = (struct srow){.s = &p->scopes[s], .rank = MPI_SCOPE_ALL};
		mpi_scope_total(p, s, &m[n].tot);
		m[n].c = &m[n].tot.sum;
		m[n].has_tot = 1;
		rows[n] = &m[n];
		n++;
		for (int k = 0; r->per_rank && k < p->nranks; k++)
			if (p->present[k] && ran(mpi_scope_cell(p, s, k))) {
				m[n] = (struct srow){
				    .s = &p->scopes[s], .rank = k, .c = mpi_scope_cell(p, s, k)};
				rows[n] = &m[n];
				n++;
			}
	}
	return n;
}

int scope_view_make(struct view *v, const struct scope_report *r, int ops)
{
	size_t max = ops ? r->p->nops : nshown(r) * ((size_t)r->p->nranks + 1);
	char *block = malloc((max + 1) * (sizeof(void *) + (ops ? 0 : sizeof(struct srow))));
	const void **rows = (const void **)block;

	*v = (struct view){.rows = rows, .ctx = r, .option = r->rank == MPI_SCOPE_ALL};
	if (!block)
		return -ENOMEM;
	if (ops) {
		v->cols = op_cols;
		v->ncols = sizeof(op_cols) / sizeof(op_cols[0]);
		for (size_t i = 0; i < r->p->nops; i++)
			if (op_shown(r, &r->p->ops[i]))
				rows[v->nrows++] = &r->p->ops[i];
		return 0;
	}
	v->cols = scope_cols;
	v->ncols = sizeof(scope_cols) / sizeof(scope_cols[0]);
	v->nrows = scope_rows(r, rows, (struct srow *)(rows + max + 1));
	return 0;
}

void scope_view_release(struct view *v)
{
	free((void *)v->rows);
	*v = (struct view){0};
}
