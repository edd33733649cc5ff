/* scope-print.c - time per scope in computation, MPI and MPI waiting (scope-print.h). */
#include "scope-print.h"

#include "../core/jsonw.h"
#include "../core/mpi-routines.h"
#include "caveats.h"
#include "mpi-print.h"
#include "table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

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

/* The scope's caveats: the model's (mpi-print.h), then the ones of this view. */
static void caveats(const struct scope_report *r, void (*fn)(void *, const char *), void *ctx)
{
	struct mpi_report mr = {.m = r->m, .e = r->e};

	mpi_caveats(&mr, fn, ctx);
	if (r->p->misnested)
		caveat_say(fn, ctx,
			   "%" PRIu64 " scopes were still open where an enclosing one ended: "
			   "closed there",
			   r->p->misnested);
	if (r->p->unmatched_calls)
		caveat_say(fn, ctx,
			   "%" PRIu64 " MPI records of the streams do not match the model's calls: "
			   "their waits are left out",
			   r->p->unmatched_calls);
	if (r->rank != MPI_SCOPE_ALL && (r->rank >= r->p->nranks || !r->p->present[r->rank]))
		caveat_say(fn, ctx, "rank %d has no streams in this experiment", r->rank);
}

static void dur(char *buf, size_t len, int64_t ns)
{
	fmt_duration(buf, len, (double)ns);
}

/* "min / mean / max" */
static void spread(char *buf, size_t len, const struct mpi_scope_spread *s)
{
	char a[32], b[32], c[32];

	dur(a, sizeof(a), s->min);
	fmt_duration(b, sizeof(b), s->mean);
	dur(c, sizeof(c), s->max);
	snprintf(buf, len, "%s / %s / %s", a, b, c);
}

static int scope_row(struct table *t, const struct mpi_scope *s, const char *rank,
		     const struct mpi_scope_cell *c, const struct mpi_scope_total *tot)
{
	char buf[6][32], sp[3][112];
	int ret;

	dur(buf[0], sizeof(buf[0]), c->incl_ns);
	dur(buf[1], sizeof(buf[1]), c->excl_ns);
	dur(buf[2], sizeof(buf[2]), mpi_scope_comp(c));
	dur(buf[3], sizeof(buf[3]), mpi_scope_mpi(c));
	dur(buf[4], sizeof(buf[4]), c->wait_excl_ns);
	dur(buf[5], sizeof(buf[5]), c->wait_incl_ns);
	if ((ret = table_add_row(t)))
		return ret;
	ret = table_set(t, 0, "%s", s->name) ||
	      table_set(t, 1, "%s", mpi_scope_kind_name(s->kind)) || table_set(t, 2, "%s", rank) ||
	      table_set(t, 3, "%" PRIu64, c->calls) || table_set(t, 4, "%s", buf[0]) ||
	      table_set(t, 5, "%s", buf[1]) || table_set(t, 6, "%s", buf[2]) ||
	      table_set(t, 7, "%s", buf[3]) || table_set(t, 8, "%s", buf[4]) ||
	      table_set(t, 9, "%s", buf[5]);
	if (ret || !tot)
		return ret ? -ENOMEM : 0;
	spread(sp[0], sizeof(sp[0]), &tot->comp);
	spread(sp[1], sizeof(sp[1]), &tot->mpi);
	spread(sp[2], sizeof(sp[2]), &tot->wait);
	return table_set(t, 10, "%s", sp[0]) || table_set(t, 11, "%s", sp[1]) ||
		       table_set(t, 12, "%s", sp[2])
		   ? -ENOMEM
		   : 0;
}

static int scopes_table(const struct scope_report *r, struct table *t)
{
	static const char *const heads[] = {"scope", "kind", "rank", "calls", "incl",
					    "excl",  "comp", "mpi",  "wait",  "wait incl"};
	const struct mpi_scope_profile *p = r->p;
	char rank[16];
	int ret = 0;

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]) && ret == 0; i++)
		ret = table_add_column(t, heads[i], i < 3 ? TABLE_LEFT : TABLE_RIGHT);
	if (ret == 0 && r->rank == MPI_SCOPE_ALL)
		ret = table_add_column(t, "comp min / mean / max", TABLE_RIGHT) ||
		      table_add_column(t, "mpi min / mean / max", TABLE_RIGHT) ||
		      table_add_column(t, "wait min / mean / max", TABLE_RIGHT);
	for (size_t s = 0; s < nshown(r) && ret == 0; s++) {
		struct mpi_scope_total tot;

		if (r->rank != MPI_SCOPE_ALL) {
			const struct mpi_scope_cell *c;

			if (r->rank >= p->nranks || !ran(c = mpi_scope_cell(p, s, r->rank)))
				continue;
			snprintf(rank, sizeof(rank), "%d", r->rank);
			ret = scope_row(t, &p->scopes[s], rank, c, NULL);
			continue;
		}
		mpi_scope_total(p, s, &tot);
		ret = scope_row(t, &p->scopes[s], "all", &tot.sum, &tot);
		for (int k = 0; r->per_rank && k < p->nranks && ret == 0; k++) {
			if (!p->present[k] || !ran(mpi_scope_cell(p, s, k)))
				continue;
			snprintf(rank, sizeof(rank), "%d", k);
			ret = scope_row(t, &p->scopes[s], rank, mpi_scope_cell(p, s, k), NULL);
		}
	}
	return ret ? -ENOMEM : 0;
}

static int ops_table(const struct scope_report *r, struct table *t)
{
	static const char *const heads[] = {"scope", "rank", "routine", "calls", "time", "wait"};
	int ret = 0;

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]) && ret == 0; i++)
		ret = table_add_column(t, heads[i], i < 3 ? TABLE_LEFT : TABLE_RIGHT);
	for (size_t i = 0; i < r->p->nops && ret == 0; i++) {
		const struct mpi_scope_op *op = &r->p->ops[i];
		char a[32], b[32];

		if (!op_shown(r, op))
			continue;
		dur(a, sizeof(a), op->time_ns);
		dur(b, sizeof(b), op->wait_ns);
		ret = table_add_row(t) || table_set(t, 0, "%s", r->p->scopes[op->scope].name) ||
		      (op->rank == MPI_SCOPE_ALL ? table_set(t, 1, "all")
						 : table_set(t, 1, "%d", op->rank)) ||
		      table_set(t, 2, "%s", mpi_routine_name(op->routine)) ||
		      table_set(t, 3, "%" PRIu64, op->calls) || table_set(t, 4, "%s", a) ||
		      table_set(t, 5, "%s", b);
	}
	return ret ? -ENOMEM : 0;
}

int scope_print_text(const struct scope_report *r, FILE *f)
{
	struct table *t = table_new(), *o = table_new();
	int ret = -ENOMEM;

	if (!t || !o || scopes_table(r, t) || ops_table(r, o))
		goto out;
	if (r->rank == MPI_SCOPE_ALL)
		fprintf(f,
			"Time per scope: computation, MPI and MPI waiting (exclusive), summed over "
			"%d ranks; min / mean / max over the ranks\n\n",
			r->p->nranks);
	else
		fprintf(f,
			"Time per scope: computation, MPI and MPI waiting (exclusive), rank %d\n\n",
			r->rank);
	ret = table_print(t, f, "  ");
	fprintf(f, "\nMPI calls made directly in each scope, per routine\n\n");
	if (ret == 0)
		ret = table_print(o, f, "  ");
	caveats(r, caveat_text, f);
	if (ret == 0 && ferror(f))
		ret = -EIO;
out:
	table_free(t);
	table_free(o);
	return ret;
}

static void csv_spread(FILE *f, const struct mpi_scope_spread *s)
{
	fprintf(f, ",%" PRId64 ",%.0f,%" PRId64, s->min, s->mean, s->max);
}

static void csv_scope(FILE *f, const struct mpi_scope *s, int rank, const struct mpi_scope_cell *c,
		      const struct mpi_scope_total *tot)
{
	csv_field(f, s->name);
	fprintf(f, ",%s,", mpi_scope_kind_name(s->kind));
	if (rank == MPI_SCOPE_ALL)
		fputs("all", f);
	else
		fprintf(f, "%d", rank);
	fprintf(f,
		",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		",%" PRId64 ",%" PRId64 ",%" PRIu64,
		c->calls, c->incl_ns, c->excl_ns, mpi_scope_comp(c), mpi_scope_mpi(c),
		c->wait_excl_ns, mpi_scope_comp_incl(c), mpi_scope_mpi_incl(c), c->wait_incl_ns,
		c->mpi_calls);
	if (tot) {
		csv_spread(f, &tot->comp);
		csv_spread(f, &tot->mpi);
		csv_spread(f, &tot->wait);
	} else {
		fputs(",,,,,,,,,", f);
	}
	fputc('\n', f);
}

int scope_print_csv(const struct scope_report *r, FILE *f)
{
	const struct mpi_scope_profile *p = r->p;

	fputs("scope,kind,rank,calls,incl_ns,excl_ns,comp_ns,mpi_ns,wait_ns,comp_incl_ns,"
	      "mpi_incl_ns,wait_incl_ns,mpi_calls,comp_min_ns,comp_mean_ns,comp_max_ns,mpi_min_ns,"
	      "mpi_mean_ns,mpi_max_ns,wait_min_ns,wait_mean_ns,wait_max_ns\n",
	      f);
	for (size_t s = 0; s < nshown(r); s++) {
		struct mpi_scope_total tot;

		if (r->rank != MPI_SCOPE_ALL) {
			if (r->rank < p->nranks && ran(mpi_scope_cell(p, s, r->rank)))
				csv_scope(f, &p->scopes[s], r->rank, mpi_scope_cell(p, s, r->rank),
					  NULL);
			continue;
		}
		mpi_scope_total(p, s, &tot);
		csv_scope(f, &p->scopes[s], MPI_SCOPE_ALL, &tot.sum, &tot);
		for (int k = 0; r->per_rank && k < p->nranks; k++)
			if (p->present[k] && ran(mpi_scope_cell(p, s, k)))
				csv_scope(f, &p->scopes[s], k, mpi_scope_cell(p, s, k), NULL);
	}
	fputs("\nscope,kind,rank,routine,calls,time_ns,wait_ns\n", f);
	for (size_t i = 0; i < p->nops; i++) {
		const struct mpi_scope_op *op = &p->ops[i];

		if (!op_shown(r, op))
			continue;
		csv_field(f, p->scopes[op->scope].name);
		fprintf(f, ",%s,", mpi_scope_kind_name(p->scopes[op->scope].kind));
		if (op->rank == MPI_SCOPE_ALL)
			fputs("all", f);
		else
			fprintf(f, "%d", op->rank);
		fprintf(f, ",%s,%" PRIu64 ",%" PRId64 ",%" PRId64 "\n",
			mpi_routine_name(op->routine), op->calls, op->time_ns, op->wait_ns);
	}
	caveats(r, caveat_warning, stderr);
	return ferror(f) ? -EIO : 0;
}

static void json_rank(struct jsonw *w, int rank)
{
	if (rank == MPI_SCOPE_ALL)
		jsonw_kv_string(w, "rank", "all");
	else
		jsonw_kv_i64(w, "rank", rank);
}

static void json_spread(struct jsonw *w, const char *name, const struct mpi_scope_spread *s)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_min_ns", name);
	jsonw_kv_i64(w, key, s->min);
	snprintf(key, sizeof(key), "%s_mean_ns", name);
	jsonw_kv_double(w, key, s->mean);
	snprintf(key, sizeof(key), "%s_max_ns", name);
	jsonw_kv_i64(w, key, s->max);
}

static void json_scope(struct jsonw *w, const struct mpi_scope *s, int rank,
		       const struct mpi_scope_cell *c, const struct mpi_scope_total *tot)
{
	jsonw_object_begin(w);
	jsonw_kv_string(w, "scope", s->name);
	jsonw_kv_string(w, "kind", mpi_scope_kind_name(s->kind));
	json_rank(w, rank);
	jsonw_kv_u64(w, "calls", c->calls);
	jsonw_kv_i64(w, "incl_ns", c->incl_ns);
	jsonw_kv_i64(w, "excl_ns", c->excl_ns);
	jsonw_kv_i64(w, "comp_ns", mpi_scope_comp(c));
	jsonw_kv_i64(w, "mpi_ns", mpi_scope_mpi(c));
	jsonw_kv_i64(w, "wait_ns", c->wait_excl_ns);
	jsonw_kv_i64(w, "comp_incl_ns", mpi_scope_comp_incl(c));
	jsonw_kv_i64(w, "mpi_incl_ns", mpi_scope_mpi_incl(c));
	jsonw_kv_i64(w, "wait_incl_ns", c->wait_incl_ns);
	jsonw_kv_u64(w, "mpi_calls", c->mpi_calls);
	if (tot) {
		json_spread(w, "comp", &tot->comp);
		json_spread(w, "mpi", &tot->mpi);
		json_spread(w, "wait", &tot->wait);
	}
	jsonw_object_end(w);
}

int scope_print_json(const struct scope_report *r, FILE *f)
{
	const struct mpi_scope_profile *p = r->p;
	struct jsonw w;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_i64(&w, "ranks", p->nranks);
	json_rank(&w, r->rank);
	jsonw_key(&w, "scopes");
	jsonw_array_begin(&w);
	for (size_t s = 0; s < nshown(r); s++) {
		struct mpi_scope_total tot;

		if (r->rank != MPI_SCOPE_ALL) {
			if (r->rank < p->nranks && ran(mpi_scope_cell(p, s, r->rank)))
				json_scope(&w, &p->scopes[s], r->rank,
					   mpi_scope_cell(p, s, r->rank), NULL);
			continue;
		}
		mpi_scope_total(p, s, &tot);
		json_scope(&w, &p->scopes[s], MPI_SCOPE_ALL, &tot.sum, &tot);
		for (int k = 0; r->per_rank && k < p->nranks; k++)
			if (p->present[k] && ran(mpi_scope_cell(p, s, k)))
				json_scope(&w, &p->scopes[s], k, mpi_scope_cell(p, s, k), NULL);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "operations");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < p->nops; i++) {
		const struct mpi_scope_op *op = &p->ops[i];

		if (!op_shown(r, op))
			continue;
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "scope", p->scopes[op->scope].name);
		jsonw_kv_string(&w, "kind", mpi_scope_kind_name(p->scopes[op->scope].kind));
		json_rank(&w, op->rank);
		jsonw_kv_string(&w, "routine", mpi_routine_name(op->routine));
		jsonw_kv_u64(&w, "calls", op->calls);
		jsonw_kv_i64(&w, "time_ns", op->time_ns);
		jsonw_kv_i64(&w, "wait_ns", op->wait_ns);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_kv_u64(&w, "misnested", p->misnested);
	jsonw_kv_u64(&w, "unmatched_mpi_calls", p->unmatched_calls);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}
