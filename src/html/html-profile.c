/* html-profile.c - the report's "profile" data: the regions (with counters, running ratios
 * and derived metrics), the traced functions (merged over threads, and per thread) and the
 * sampled functions, as `perfscope report` has them. The energy columns come from "energy"
 * (html-energy.c). */
#include "html/html-int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* "events" and "regions": the rows of R (per thread). A counter is {value, running_ratio,
 * scaled} or null where it was not counted. */
static void regions_json(struct jsonw *w, const struct region_report *r)
{
	const struct region_profile *p = r->p;

	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->nevents; i++)
		jsonw_string(w, p->events[i]);
	jsonw_array_end(w);
	jsonw_key(w, "metrics");
	jsonw_array_begin(w);
	for (size_t m = 0; m < r->nmetrics; m++)
		jsonw_string(w, r->metrics[m].name);
	jsonw_array_end(w);
	jsonw_key(w, "regions");
	jsonw_array_begin(w);
	for (size_t k = 0; k < p->nrows; k++)
		region_row_json(w, r, &p->rows[k]);
	jsonw_array_end(w);
}

/* One function row: THREAD is its tid, or -1 for a row merged over threads ("all"). */
static void func_json(struct jsonw *w, const struct func_row *row, const struct func_profile *p,
		      int merged)
{
	const char *file = sym_info_def_file(&row->sym);
	unsigned line = sym_info_def_line(&row->sym);

	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", row->sym.name);
	if (merged) {
		jsonw_kv_string(w, "thread", "all");
	} else {
		jsonw_kv_i64(w, "pid", row->pid);
		jsonw_kv_i64(w, "thread", row->tid);
	}
	jsonw_kv_u64(w, "calls", row->calls);
	jsonw_kv_i64(w, "incl_ns", row->incl_ns);
	jsonw_kv_i64(w, "excl_ns", row->excl_ns);
	jsonw_kv_double(w, "mean_ns", row->calls ? (double)row->sum_ns / (double)row->calls : 0);
	jsonw_kv_i64(w, "min_ns", row->min_ns);
	jsonw_kv_i64(w, "max_ns", row->max_ns);
	jsonw_kv_double(w, "excl_pct",
			p->total_ns > 0 ? 100.0 * (double)row->excl_ns / (double)p->total_ns : 0);
	jsonw_kv_string(w, "file", file);
	jsonw_kv_u64(w, "line", line);
	jsonw_kv_string(w, "module", row->sym.module);
	jsonw_kv_u64(w, "unclosed", row->synthetic);
	if (merged && !isnan(func_profile_imbalance(p, row)))
		jsonw_kv_double(w, "imbalance_pct", func_profile_imbalance(p, row));
	jsonw_object_end(w);
}

/* "functions" (merged over threads and processes) and "functions_by_thread". */
static int functions_json(struct jsonw *w, const struct func_profile *p)
{
	struct func_profile merged;

	memset(&merged, 0, sizeof(merged));
	if (func_profile_merge(p, &merged))
		return -ENOMEM;
	jsonw_kv_i64(w, "traced_ns", p->total_ns);
	jsonw_key(w, "functions");
	jsonw_array_begin(w);
	for (size_t k = 0; k < merged.nrows; k++)
		func_json(w, &merged.rows[k], &merged, 1);
	jsonw_array_end(w);
	jsonw_key(w, "functions_by_thread");
	jsonw_array_begin(w);
	for (size_t k = 0; k < p->nrows; k++)
		func_json(w, &p->rows[k], p, 0);
	jsonw_array_end(w);
	func_profile_release(&merged);
	return 0;
}

/* "samples": the sampled functions per thread with their share of the leader's samples, the
 * on-CPU time they stand for and each sampled event's count (null: not supported here); with
 * call chains also the inclusive samples and share. */
static void samples_json(struct jsonw *w, const struct sample_report *r)
{
	const struct sample_profile *p = r->p;
	const struct exp_sampling *sm = &r->e->sampling;
	/* with call chains, functions seen only as callers are rows too: their inclusive share
	 * ("children", as report prints it) is what says something about them */
	int chains = sample_report_has_chains(r);

	jsonw_key(w, "samples");
	jsonw_object_begin(w);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (uint32_t k = 0; k < p->nevents && k < sm->nevents; k++)
		jsonw_string(w, sm->events[k]);
	jsonw_array_end(w);
	jsonw_kv_u64(w, "samples", p->samples);
	jsonw_kv_u64(w, "time_ns", p->time_ns);
	jsonw_kv_bool(w, "call_chains", chains);
	jsonw_key(w, "functions");
	jsonw_array_begin(w);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct sprof_row *row = &p->rows[i];
		const uint64_t *c = sprof_counts(p, row);

		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", row->sym.name);
		jsonw_kv_string(w, "module", row->sym.module);
		if (p->per_thread) {
			jsonw_kv_i64(w, "pid", row->pid);
			jsonw_kv_i64(w, "thread", row->tid);
		} else {
			jsonw_kv_string(w, "thread", "all");
		}
		jsonw_kv_u64(w, "samples", row->samples);
		jsonw_kv_double(w, "share",
				p->samples ? 100.0 * (double)row->samples / (double)p->samples : 0);
		jsonw_kv_u64(w, "time_ns", row->time_ns);
		if (chains) {
			jsonw_kv_u64(w, "incl_samples", row->incl_samples);
			jsonw_kv_double(w, "incl_share",
					p->samples
					    ? 100.0 * (double)row->incl_samples / (double)p->samples
					    : 0);
		}
		jsonw_key(w, "counts");
		jsonw_array_begin(w);
		for (uint32_t k = 0; k < p->nevents; k++) {
			if (k < sm->nevents && !strcmp(sm->states[k], "not supported"))
				jsonw_null(w);
			else
				jsonw_u64(w, c[k]);
		}
		jsonw_array_end(w);
		jsonw_kv_string(w, "file", sym_info_def_file(&row->sym));
		jsonw_kv_u64(w, "line", sym_info_def_line(&row->sym));
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int html_data_profile(struct jsonw *w, struct html_input *in)
{
	int ret = 0;

	if (in->profile_error) {
		html_caveat(in, "Profile view left out: %s", in->profile_error);
		return 0;
	}
	jsonw_key(w, "profile");
	jsonw_object_begin(w);
	if (in->rr && in->rr->p)
		regions_json(w, in->rr);
	if (in->fr && in->fr->p && in->fr->p->nrows)
		ret = functions_json(w, in->fr->p);
	if (in->sr && in->sr->p && in->sr->p->nrows)
		samples_json(w, in->sr);
	jsonw_object_end(w);
	return ret;
}
