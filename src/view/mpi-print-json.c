/* mpi-print-json.c - the MPI analyses as JSON (mpi-print.h). */
#include "view/caveats.h"
#include "view/mpi-print-int.h"

#include "lib/jsonw.h"
#include "view/mpi-view.h"

#include <errno.h>

/* Table T of R (ALL_ONLY: the routines of all ranks) as the array KEY of W. 0 or -ENOMEM. */
static int json_table(const struct mpi_report *r, enum mpi_table t, int all_only, const char *key,
		      struct jsonw *w)
{
	struct view v;

	if (mpi_view_make(&v, r, t, OUT_JSON, all_only))
		return -ENOMEM;
	jsonw_key(w, key);
	view_json_rows(w, &v);
	mpi_view_release(&v);
	return 0;
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

static int json_traffic(const struct mpi_report *r, struct jsonw *w)
{
	const struct mpi_traffic *tr = r->traffic;

	jsonw_kv_u64(w, "messages", tr->messages);
	jsonw_kv_u64(w, "matched", tr->matched);
	jsonw_kv_u64(w, "bytes", tr->bytes);
	if (json_table(r, MPI_TABLE_PAIRS, 0, "pairs", w))
		return -ENOMEM;
	return json_table(r, MPI_TABLE_UNMATCHED, 0, "unmatched", w);
}

int mpi_print_json(const struct mpi_report *r, enum mpi_view view, FILE *f)
{
	static const char *const rel[] = {"none", "exec", "wait"};
	struct jsonw w;
	int ret = 0;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	json_run(r, &w);
	if (view == MPI_VIEW_SUMMARY) {
		jsonw_kv_i64(&w, "mpi_ns", r->routines->mpi_total_ns);
		jsonw_kv_i64(&w, "wait_ns", wait_sum(r->waits));
		ret = json_table(r, MPI_TABLE_ROUTINES, 1, "routines", &w);
	}
	if (!ret && (view == MPI_VIEW_SUMMARY || view == MPI_VIEW_WAITS)) {
		jsonw_kv_string(&w, "relative", rel[r->rel]);
		jsonw_kv_bool(&w, "all", r->all);
		ret = json_table(r, MPI_TABLE_WAITS, 0, "waits", &w);
	}
	if (!ret && view == MPI_VIEW_ROUTINES)
		ret = json_table(r, MPI_TABLE_ROUTINES, 0, "routines", &w);
	if (!ret && view == MPI_VIEW_TRAFFIC)
		ret = json_traffic(r, &w);
	if (!ret && view == MPI_VIEW_PATTERNS)
		ret = json_table(r, MPI_TABLE_PATTERNS, 0, "patterns", &w);
	if (!ret && view == MPI_VIEW_PATTERNS)
		ret = json_table(r, MPI_TABLE_SITES, 0, "sites", &w);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	mpi_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	if (ret) {
		jsonw_release(&w);
		return ret;
	}
	return jsonw_print(&w, f);
}
