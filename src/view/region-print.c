/* region-print.c - rendering of the region profile and its caveats. */
#include "view/region-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
#include "view/table.h"

#include "view/region-view.h"

#include "pmu/counters.h"
#include "lib/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t nshown(const struct region_report *r)
{
	return r->top && r->top < r->p->nrows ? r->top : r->p->nrows;
}

/* Why event I is not counted somewhere, for the caveats. */
static void event_reason(const struct region_report *r, size_t i, int status, char *buf, size_t len)
{
	const struct exp_process *pr = r->e->nprocs ? &r->e->procs[0] : NULL;
	struct event_desc ev;

	if (event_resolve(r->p->events[i], &ev))
		snprintf(ev.name, sizeof(ev.name), "%s", r->p->events[i]);
	counter_status_reason(status, &ev, pr ? pr->paranoid : 2, pr ? pr->have_core_pmu : 0, buf,
			      len);
}

void region_report_caveats(const struct region_report *r, void (*fn)(void *ctx, const char *line),
			   void *ctx)
{
	const struct region_profile *p = r->p;

	experiment_caveats(r->e, 1, fn, ctx);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct thread_summary *t = &p->threads[i];

		if (!t->ended && !t->truncated_at && t->records) {
			caveat_say(
			    fn, ctx,
			    "thread %d: no end record: the records after its last written chunk "
			    "are missing (killed, or the end could not be written)",
			    (int)t->tid);
		}
		if (t->lost_records) {
			caveat_say(fn, ctx, "thread %d: %" PRIu64 " records lost", (int)t->tid,
				   t->lost_records);
		}
		if (t->unmatched_ends) {
			caveat_say(fn, ctx,
				   "thread %d: %" PRIu64
				   " psc_region_end without a matching begin (ignored)",
				   (int)t->tid, t->unmatched_ends);
		}
	}
	if (p->unclosed) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " regions were still open at a mismatched end or at the end of "
			   "the run; closed there",
			   p->unclosed);
	}
	for (size_t i = 0; i < p->nevents; i++) {
		int status = 0;
		double low = 1;

		for (size_t k = 0; k < p->nrows && !status; k++)
			status = p->rows[k].status[i];
		/* record said it already, in the words of the machine it ran on */
		if (status && !experiment_unsupported(r->e, p->events[i])) {
			char why[256];

			event_reason(r, i, status, why, sizeof(why));
			caveat_say(fn, ctx, "%s: %s", p->events[i], why);
		}
		for (size_t k = 0; k < p->nrows; k++)
			if (count_is_scaled(&p->rows[k].counts[i]) &&
			    count_running_ratio(&p->rows[k].counts[i]) < low)
				low = count_running_ratio(&p->rows[k].counts[i]);
		if (low < 1) {
			caveat_say(fn, ctx,
				   "%s: multiplexed (counted %.1f %% of the time at least): its "
				   "values are estimates, scaled by enabled / running time",
				   p->events[i], 100 * low);
		}
	}
}

/* The view of the rows R shows (at most R->top) into V, their columns malloc'd into V->cols
 * and the row pointers into *ROWS. 0 or -ENOMEM. */
static int region_view_of(struct view *v, const struct region_report *r, const void ***rows)
{
	size_t n = nshown(r);
	struct view_col *cols;

	*v = (struct view){0};
	*rows = malloc((n + 1) * sizeof(**rows));
	if (!*rows || region_view_cols(r, &cols, &v->ncols)) {
		free(*rows);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		(*rows)[k] = &r->p->rows[k];
	v->cols = cols;
	v->rows = *rows;
	v->nrows = n;
	v->ctx = r;
	v->per_thread = r->per_thread;
	/* the threads' OpenMP numbers, per thread when some thread ran a team's tasks */
	for (size_t i = 0; r->per_thread && i < r->p->nthreads && !v->openmp; i++)
		v->openmp = r->p->threads[i].omp_tasks > 0;
	return 0;
}

static int print_text(const struct region_report *r, const struct view *v, FILE *f)
{
	const struct region_profile *p = r->p;
	int ret;

	if (p->nrows == 0) {
		/* lost (a full disk) is not "not recorded": the build is not to blame */
		if (experiment_lost_data(r->e))
			fprintf(f,
				"%s: no region and no function call could be read (the caveats "
				"below say what was lost)\n",
				text_safe(r->e->dir));
		else
			fprintf(f,
				"%s: no regions and no function calls were recorded (regions: does "
				"the program call psc_region_begin/end, built with -DPERFSCOPE and "
				"linked with -lperfscope? functions: build it with "
				"-finstrument-functions and record with --functions)\n",
				text_safe(r->e->dir));
		region_report_caveats(r, caveat_text, f);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "\nRegions%s, by %s", r->per_thread ? " per thread" : "",
		r->sort_label ? r->sort_label : "inclusive time");
	if (v->nrows < p->nrows)
		fprintf(f, " (top %zu of %zu)", v->nrows, p->nrows);
	fprintf(f, ":\n");
	ret = view_print_text(v, f, "  ");
	for (size_t i = 0; i < p->nrows; i++) {
		int scaled = 0;

		for (size_t k = 0; k < p->nevents; k++)
			scaled |= count_is_scaled(&p->rows[i].counts[k]);
		if (scaled) {
			fprintf(
			    f, "  * scaled: the event was multiplexed; the value is an estimate\n");
			break;
		}
	}
	if (!r->no_caveats)
		region_report_caveats(r, caveat_text, f);
	if (ret)
		return ret;
	return ferror(f) ? -EIO : 0;
}

void region_json(struct jsonw *w, const struct region_report *r)
{
	const struct region_profile *p = r->p;
	const void **rows;
	struct view v;

	jsonw_object_begin(w);
	jsonw_kv_string(w, "experiment", r->e->dir);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->nevents; i++)
		jsonw_string(w, p->events[i]);
	jsonw_array_end(w);
	jsonw_key(w, "regions");
	if (region_view_of(&v, r, &rows) == 0) {
		view_json_rows(w, &v);
		free((void *)v.cols);
		free(rows);
	} else {
		w->failed = 1;
	}
	jsonw_key(w, "caveats");
	jsonw_array_begin(w);
	region_report_caveats(r, caveat_json, w);
	jsonw_array_end(w);
	jsonw_object_end(w);
}

void region_row_json(struct jsonw *w, const struct region_report *r, const struct region_row *row)
{
	struct view v = {.ctx = r, .per_thread = r->per_thread};
	struct view_col *cols;

	if (region_view_cols(r, &cols, &v.ncols)) {
		w->failed = 1;
		return;
	}
	v.cols = cols;
	view_json_row(w, &v, row);
	free(cols);
}

int region_print(const struct region_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	const void **rows;
	struct jsonw w;
	struct view v;
	int ret;

	if (fmt == OUT_JSON) {
		jsonw_init(&w, 1);
		region_json(&w, r);
		return jsonw_print(&w, f);
	}
	if ((ret = region_view_of(&v, r, &rows)))
		return ret;
	if (fmt == OUT_TEXT) {
		ret = print_text(r, &v, f);
	} else {
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
		region_report_caveats(r, caveat_warning, notes);
	}
	free((void *)v.cols);
	free(rows);
	return ret;
}
