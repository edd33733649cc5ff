/* mpi-print-json.c - the MPI analyses as JSON (mpi-print.h). */
#include "caveats.h"
#include "mpi-print-int.h"

#include "../core/jsonw.h"

static void json_cell(void *ctx, int i, int j, int64_t ns)
{
	struct cell_ctx *c = ctx;

	jsonw_object_begin(c->j);
	jsonw_kv_i64(c->j, "rank", i);
	if (j >= 0)
		jsonw_kv_i64(c->j, "peer", j);
	else
		jsonw_kv_string(c->j, "peer", j == -1 ? "collective" : "total");
	jsonw_kv_i64(c->j, "wait_ns", ns);
	jsonw_kv_double(c->j, "pct_exec", mpi_waits_pct(c->w, i, ns, MPI_REL_EXEC));
	jsonw_kv_double(c->j, "pct_wait", mpi_waits_pct(c->w, i, ns, MPI_REL_WAIT));
	jsonw_object_end(c->j);
}

static void json_run(const struct mpi_report *r, struct jsonw *w)
{
	const struct mpi_model *m = r->m;

	jsonw_kv_string(w, "source", m->source ? m->source : "");
	jsonw_kv_i64(w, "world_size", m->world_size);
	jsonw_kv_i64(w, "run_ns", run_ns(m));
	jsonw_kv_bool(w, "clock_aligned", m->clock_aligned);
	jsonw_kv_bool(w, "corrected", !r->no_correction);
	jsonw_kv_u64(w, "violations_unaligned", m->violations_unaligned);
	jsonw_kv_u64(w, "violations_before", m->violations_before);
	jsonw_kv_u64(w, "violations_after", m->violations_after);
	jsonw_kv_u64(w, "coll_violations_before", m->coll_violations_before);
	jsonw_kv_u64(w, "coll_violations_after", m->coll_violations_after);
	jsonw_kv_i64(w, "max_correction_ns", m->max_correction_ns);
	jsonw_kv_u64(w, "unmatched_sends", m->unmatched_sends);
	jsonw_kv_u64(w, "unmatched_recvs", m->unmatched_recvs);
	jsonw_kv_u64(w, "cancelled_sends", m->cancelled_sends);
	jsonw_key(w, "ranks");
	jsonw_array_begin(w);
	for (int i = 0; i < m->world_size; i++) {
		const struct mpi_rank_info *ri = &m->ranks[i];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "rank", i);
		jsonw_kv_bool(w, "present", ri->present);
		jsonw_kv_string(w, "host", ri->host ? ri->host : "");
		jsonw_kv_i64(w, "pid", ri->pid);
		jsonw_kv_i64(w, "exec_ns", r->waits->exec_ns[i]);
		jsonw_kv_i64(w, "mpi_ns", r->routines->mpi_ns[i]);
		jsonw_kv_i64(w, "wait_ns", r->waits->total[i]);
		jsonw_kv_u64(w, "lost_records", ri->lost_records);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void json_routines(const struct mpi_report *r, struct jsonw *w, int all_only)
{
	const struct mpi_routines *rs = r->routines;

	jsonw_key(w, "routines");
	jsonw_array_begin(w);
	for (int rk = -1; rk < (all_only ? 0 : rs->nranks); rk++)
		for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++) {
			const struct mpi_routine_stat *s =
			    rk < 0 ? &rs->all[k] : mpi_routines_at(rs, rk, k);
			int64_t run = rk < 0 ? rs->run_total_ns : rs->run_ns[rk];
			int64_t mpi = rk < 0 ? rs->mpi_total_ns : rs->mpi_ns[rk];

			if (!s->calls)
				continue;
			jsonw_object_begin(w);
			if (rk < 0)
				jsonw_kv_string(w, "rank", "all");
			else
				jsonw_kv_i64(w, "rank", rk);
			jsonw_kv_string(w, "routine", routine_name(k));
			jsonw_kv_u64(w, "calls", s->calls);
			jsonw_kv_i64(w, "total_ns", s->total_ns);
			jsonw_kv_double(w, "mean_ns", mpi_routine_mean(s));
			jsonw_kv_i64(w, "min_ns", s->min_ns);
			jsonw_kv_i64(w, "max_ns", s->max_ns);
			jsonw_kv_double(w, "pct_run", pct((double)s->total_ns, (double)run));
			jsonw_kv_double(w, "pct_mpi", pct((double)s->total_ns, (double)mpi));
			jsonw_kv_u64(w, "bytes", s->bytes);
			jsonw_object_end(w);
		}
	jsonw_array_end(w);
}

static void json_traffic(const struct mpi_report *r, struct jsonw *w)
{
	const struct mpi_traffic *tr = r->traffic;

	jsonw_kv_u64(w, "messages", tr->messages);
	jsonw_kv_u64(w, "matched", tr->matched);
	jsonw_kv_u64(w, "bytes", tr->bytes);
	jsonw_key(w, "pairs");
	jsonw_array_begin(w);
	for (size_t i = 0; i < tr->npairs; i++) {
		const struct mpi_pair *p = &tr->pairs[i];
		const char *keys[] = {"rate_mean_bps", "rate_min_bps", "rate_max_bps"};
		const double v[] = {p->rate_mean, p->rate_min, p->rate_max};

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "sender", p->src);
		jsonw_kv_i64(w, "receiver", p->dst);
		jsonw_kv_u64(w, "messages", p->messages);
		jsonw_kv_u64(w, "matched", p->matched);
		jsonw_kv_u64(w, "unmatched_sends", p->unmatched_sends);
		jsonw_kv_u64(w, "unmatched_recvs", p->unmatched_recvs);
		jsonw_kv_u64(w, "bytes", p->bytes);
		for (size_t k = 0; k < 3; k++) {
			jsonw_key(w, keys[k]);
			if (p->nrates)
				jsonw_double(w, v[k]);
			else
				jsonw_null(w);
		}
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "unmatched");
	jsonw_array_begin(w);
	for (size_t i = 0; i < tr->nunmatched; i++) {
		const struct mpi_unmatched *u = &tr->unmatched[i];

		jsonw_object_begin(w);
		jsonw_kv_string(w, "kind", u->kind == MPI_UNMATCHED_SEND ? "send" : "receive");
		jsonw_kv_i64(w, "rank", u->rank);
		jsonw_kv_string(w, "routine", routine_name(u->routine));
		jsonw_kv_i64(w, "peer", u->peer);
		jsonw_kv_i64(w, "tag", u->tag);
		jsonw_kv_u64(w, "bytes", u->bytes);
		jsonw_kv_i64(w, "time_ns", u->enter_ns - r->m->start_ns);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void json_patterns(const struct mpi_report *r, struct jsonw *w)
{
	const struct mpi_waits *wt = r->waits;

	jsonw_key(w, "patterns");
	jsonw_array_begin(w);
	for (int k = 0; k < MPI_PAT_COUNT; k++) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "pattern", mpi_pattern_key((enum mpi_pattern)k));
		jsonw_kv_string(w, "name", mpi_pattern_name((enum mpi_pattern)k));
		jsonw_kv_i64(w, "wait_ns", wt->pattern_total[k]);
		jsonw_kv_double(w, "pct_exec",
				pct((double)wt->pattern_total[k], (double)exec_sum(wt)));
		jsonw_kv_u64(w, "calls", wt->pattern_calls[k]);
		jsonw_key(w, "per_rank_ns");
		jsonw_array_begin(w);
		for (int i = 0; i < wt->p; i++)
			jsonw_i64(w, wt->pattern[(size_t)i * MPI_PAT_COUNT + (size_t)k]);
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "sites");
	jsonw_array_begin(w);
	for (size_t i = 0; i < wt->nsites; i++) {
		const struct mpi_wait_site *s = &wt->sites[i];
		const struct mpi_site *site = s->site != MPI_NONE ? &r->m->sites[s->site] : NULL;

		jsonw_object_begin(w);
		jsonw_kv_string(w, "pattern", mpi_pattern_key(s->pattern));
		jsonw_kv_i64(w, "rank", s->rank);
		jsonw_kv_string(w, "function", site ? site->function : "");
		jsonw_kv_string(w, "file", site ? site->file : "");
		jsonw_kv_u64(w, "line", site ? site->line : 0);
		jsonw_kv_u64(w, "addr", site ? site->addr : 0);
		jsonw_kv_string(w, "routine", routine_name(s->routine));
		jsonw_kv_i64(w, "wait_ns", s->wait_ns);
		jsonw_kv_u64(w, "calls", s->calls);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

int mpi_print_json(const struct mpi_report *r, enum mpi_view view, FILE *f)
{
	static const char *const rel[] = {"none", "exec", "wait"};
	struct jsonw w;
	struct cell_ctx c = {r->waits, NULL, &w};

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	json_run(r, &w);
	if (view == MPI_VIEW_SUMMARY) {
		jsonw_kv_i64(&w, "mpi_ns", r->routines->mpi_total_ns);
		jsonw_kv_i64(&w, "wait_ns", wait_sum(r->waits));
		json_routines(r, &w, 1);
	}
	if (view == MPI_VIEW_SUMMARY || view == MPI_VIEW_WAITS) {
		jsonw_kv_string(&w, "relative", rel[r->rel]);
		jsonw_kv_bool(&w, "all", r->all);
		jsonw_key(&w, "waits");
		jsonw_array_begin(&w);
		waits_cells(r, json_cell, &c);
		jsonw_array_end(&w);
	}
	if (view == MPI_VIEW_ROUTINES)
		json_routines(r, &w, 0);
	if (view == MPI_VIEW_TRAFFIC)
		json_traffic(r, &w);
	if (view == MPI_VIEW_PATTERNS)
		json_patterns(r, &w);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	mpi_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}
