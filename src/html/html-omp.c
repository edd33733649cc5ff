/*
 * html-omp.c - the report's "openmp" data, for the OpenMP view: the session's OpenMP profile
 * (analysis/openmp/omp-profile.h) as `perfscope report --openmp --json` gives its three tables
 * (the columns of view/omp-view.c), plus each row's region as an index into "regions", so the
 * view joins rows to regions without comparing names, and for a hybrid MPI+OpenMP run the
 * hybrid efficiency table ("hybrid_efficiency", analysis/openmp/omp-hybrid.h). Nothing is
 * written for an experiment without OpenMP records (docs/html.md, "OpenMP").
 */
#include "html/html-int.h"

#include "analysis/openmp/omp-profile.h"
#include "model/session.h"
#include "view/omp-view.h"

#include <errno.h>

/* Table T of R as "KEY": [rows...] into W. 0 or -ENOMEM. */
static int put_table(struct jsonw *w, const struct omp_report *r, enum omp_table t, const char *key)
{
	struct view v;
	int ret = omp_view_make(&v, r, t);

	if (ret)
		return ret;
	jsonw_key(w, key);
	view_json_rows(w, &v);
	omp_view_release(&v);
	return 0;
}

int html_data_openmp(struct jsonw *w, struct html_input *in)
{
	struct omp_report r = {.e = in->e};
	char err[1024] = "";
	void *p;
	int ret;

	if (in->otf2)
		return 0; /* an archive's OpenMP events are not read (session.h) */
	ret = session_get(in->s, SESSION_OPENMP, &p, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		/* a stream the pass rejects: the Summary says so already when the profiles
		 * failed on it too */
		if (ret != -ENODATA && !in->profile_error)
			html_caveat(in, "OpenMP view left out: %s", err[0] ? err : "unreadable");
		return 0;
	}
	r.p = p;
	if (!r.p->events)
		return 0;
	if (r.p->hybrid) {
		ret = session_get(in->s, SESSION_HYBRID, &p, err, sizeof(err));
		if (ret == -ENOMEM)
			return ret;
		if (ret < 0)
			html_caveat(in, "hybrid efficiency table left out: %s", err);
		else
			r.h = p;
	}
	for (size_t i = 0; i < r.p->ncaveats; i++)
		html_caveat_line(in, r.p->caveats[i]);
	jsonw_key(w, "openmp");
	jsonw_object_begin(w);
	jsonw_kv_bool(w, "hybrid", r.p->hybrid);
	if ((ret = put_table(w, &r, OMP_TABLE_REGIONS, "regions")) ||
	    (ret = put_table(w, &r, OMP_TABLE_ROWS, "rows")) ||
	    (ret = put_table(w, &r, OMP_TABLE_THREADS, "threads")) ||
	    (r.h && (ret = put_table(w, &r, OMP_TABLE_HYBRID, "hybrid_efficiency"))))
		return ret;
	jsonw_key(w, "row_region");
	jsonw_array_begin(w);
	for (size_t i = 0; i < r.p->nrows; i++)
		jsonw_u64(w, r.p->rows[i].region);
	jsonw_array_end(w);
	jsonw_object_end(w);
	return 0;
}
