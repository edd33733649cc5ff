/* scope-print.c - time per scope in computation, MPI and MPI waiting (scope-print.h). */
#include "view/scope-print.h"

#include "lib/jsonw.h"
#include "view/caveats.h"
#include "view/mpi-print.h"
#include "view/table.h"

#include "view/scope-view.h"

#include <errno.h>
#include <inttypes.h>

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

/* The scopes (OPS: their MPI calls) of R in FMT (text: INDENT before each line), into F. */
static int print_table(const struct scope_report *r, int ops, enum out_format fmt, FILE *f)
{
	struct view v;
	int ret = scope_view_make(&v, r, ops);

	if (ret)
		return ret;
	ret = fmt == OUT_TEXT	? view_print_text(&v, f, "  ")
	      : fmt == OUT_LONG ? view_print_long(&v, f)
				: view_print_csv(&v, f);
	scope_view_release(&v);
	return ret;
}

int scope_print_text(const struct scope_report *r, FILE *f)
{
	int ret;

	if (r->rank == MPI_SCOPE_ALL)
		fprintf(f,
			"Time per scope: computation, MPI and MPI waiting (exclusive), summed over "
			"%d ranks; min / mean / max over the ranks\n\n",
			r->p->nranks);
	else
		fprintf(f,
			"Time per scope: computation, MPI and MPI waiting (exclusive), rank %d\n\n",
			r->rank);
	ret = print_table(r, 0, OUT_TEXT, f);
	fprintf(f, "\nMPI calls made directly in each scope, per routine\n\n");
	if (ret == 0)
		ret = print_table(r, 1, OUT_TEXT, f);
	caveats(r, caveat_text, f);
	if (ret == 0 && ferror(f))
		ret = -EIO;
	return ret;
}

/* The CSV or long CSV (FMT) of R. */
static int print_csv(const struct scope_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	int ret = print_table(r, 0, fmt, f);

	fputc('\n', f);
	if (ret == 0)
		ret = print_table(r, 1, fmt, f);
	caveats(r, caveat_warning, notes);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

int scope_print_csv(const struct scope_report *r, FILE *f, FILE *notes)
{
	return print_csv(r, OUT_CSV, f, notes);
}

/* The rows of the scopes (OPS: their MPI calls) of R as the array KEY of W. 0 or -ENOMEM. */
static int json_table(const struct scope_report *r, int ops, const char *key, struct jsonw *w)
{
	struct view v;

	if (scope_view_make(&v, r, ops))
		return -ENOMEM;
	jsonw_key(w, key);
	view_json_rows(w, &v);
	scope_view_release(&v);
	return 0;
}

int scope_print_json(const struct scope_report *r, FILE *f)
{
	const struct mpi_scope_profile *p = r->p;
	struct jsonw w;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	jsonw_kv_i64(&w, "ranks", p->nranks);
	if (r->rank == MPI_SCOPE_ALL)
		jsonw_kv_string(&w, "rank", "all");
	else
		jsonw_kv_i64(&w, "rank", r->rank);
	if (json_table(r, 0, "scopes", &w) || json_table(r, 1, "operations", &w)) {
		jsonw_release(&w);
		return -ENOMEM;
	}
	jsonw_kv_u64(&w, "misnested", p->misnested);
	jsonw_kv_u64(&w, "unmatched_mpi_calls", p->unmatched_calls);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}

int scope_print(const struct scope_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	return fmt == OUT_TEXT	 ? scope_print_text(r, f)
	       : fmt == OUT_JSON ? scope_print_json(r, f)
				 : print_csv(r, fmt, f, notes);
}
