/* omp-view.c - the columns of the OpenMP profile's tables and their rendering (omp-view.h). */
#include "view/omp-view.h"

#include "analysis/openmp/omp-hybrid.h"
#include "analysis/openmp/omp-profile.h"
#include "format/experiment.h"
#include "lib/jsonw.h"
#include "view/caveats.h"
#include "view/table.h"

#include <errno.h>
#include <stdlib.h>

#define R(ctx) ((const struct omp_report *)(ctx))

#define CSVJ (VIEW_IN_CSV | VIEW_IN_JSON)
#define ENT  (VIEW_IN_ALL | VIEW_ENTITY)
#define RANK (VIEW_IN_ALL | VIEW_ENTITY | VIEW_OPTION)
/* A column: key, header, type, alignment, flags, getter, its arg. */
#define COL(k, h, t, a, f, g, n)                                                                   \
	{                                                                                          \
		.key = k, .header = h, .type = t, .align = a, .flags = f, .get = g, .arg = n       \
	}
/* A count the runtime may not tell: "-" in text where it is not counted. */
#define COUNT_NC(k, h, n)                                                                          \
	{                                                                                          \
		.key = k, .header = h, .type = VIEW_COUNT, .align = TABLE_RIGHT,                   \
		.flags = VIEW_IN_ALL, .get = get_row_count, .arg = n, .null_text = "-"             \
	}

/* --- region x thread */

/* ARG: 0 rank, 1 region, 2 thread */
static void get_row_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_row *w = row;
	const struct omp_region *r = &R(ctx)->p->regions[w->region];

	if (arg == 0)
		view_set_i64(v, r->rank);
	else if (arg == 1)
		view_set_str(v, r->name);
	else
		view_set_i64(v, w->thread);
}

/* ARG: 0 calls, 1 chunks, 2 iterations, 3 tasks created, 4 tasks completed; chunks and
 * iterations not counted (null) where the runtime did not tell some of them */
static void get_row_count(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_row *w = row;
	const uint64_t u[] = {w->calls, w->chunks, w->iterations, w->tasks_created,
			      w->tasks_completed};

	(void)ctx;
	if ((arg == 1 && (w->not_counted & OMP_NOT_COUNTED_CHUNKS)) ||
	    (arg == 2 && (w->not_counted & OMP_NOT_COUNTED_ITERATIONS)))
		return;
	view_set_u64(v, u[arg]);
}

/* ARG: 0 time, 1 work, 2 barrier, 3 other barriers, 4 lock, 5 other waits */
static void get_row_ns(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_row *w = row;
	const int64_t ns[] = {w->time_ns, w->work_ns, w->barrier_ns,
			      w->sync_ns, w->lock_ns, w->other_ns};

	(void)ctx;
	view_set_i64(v, ns[arg]);
}

static const struct view_col row_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, RANK, get_row_name, 0),
    COL("region", "region", VIEW_STR, TABLE_LEFT, ENT, get_row_name, 1),
    COL("thread", "thread", VIEW_INT, TABLE_RIGHT, ENT, get_row_name, 2),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_row_count, 0),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 0),
    COL("work_ns", "work", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 1),
    COL("barrier_ns", "barrier", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 2),
    COL("sync_ns", "other barriers", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 3),
    COL("lock_ns", "lock/critical", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 4),
    COL("other_ns", "other waits", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_row_ns, 5),
    COUNT_NC("chunks", "chunks", 1),
    COUNT_NC("iterations", "iterations", 2),
    COL("tasks_created", "tasks created", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_row_count, 3),
    COL("tasks_completed", "tasks run", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_row_count, 4),
};

/* --- regions */

/* ARG: 0 rank, 1 name, 2 level, 3 site, 4 outlined function, 5 threads, 6 team */
static void get_region_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_region *r = row;

	(void)ctx;
	if (arg == 1)
		view_set_str(v, r->name);
	else if (arg == 3 || arg == 4)
		view_set_u64(v, arg == 3 ? r->site : r->fn);
	else
		view_set_i64(v, arg == 0   ? (int64_t)r->rank
				: arg == 2 ? (int64_t)r->level
				: arg == 5 ? (int64_t)r->threads
					   : (int64_t)r->team);
}

/* ARG: 0 calls, 1 unfinished */
static void get_region_count(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_region *r = row;

	(void)ctx;
	view_set_u64(v, arg ? r->unfinished : r->calls);
}

/* ARG: 0 time, 1 work, 2 barrier, 3 max work, 4 mean work, 5 imbalance, 6 load balance,
 * 7 region efficiency (the last three in %) */
static void get_region_num(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_region *r = row;
	const int64_t ns[] = {r->time_ns, r->work_ns, r->barrier_ns, r->work_max_ns};
	const double d[] = {r->work_mean_ns, 100 * r->imbalance, 100 * r->load_balance,
			    100 * r->region_eff};

	(void)ctx;
	if (arg < 4)
		view_set_i64(v, ns[arg]);
	else
		view_set_f64(v, d[arg - 4]);
}

static const struct view_col region_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, RANK, get_region_name, 0),
    COL("region", "region", VIEW_STR, TABLE_LEFT, ENT, get_region_name, 1),
    COL("site", "site", VIEW_INT, TABLE_RIGHT, VIEW_IN_JSON, get_region_name, 3),
    COL("fn", "outlined function", VIEW_INT, TABLE_RIGHT, VIEW_IN_JSON, get_region_name, 4),
    COL("level", "level", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_region_name, 2),
    COL("calls", "calls", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_region_count, 0),
    COL("unfinished", "unfinished", VIEW_COUNT, TABLE_RIGHT, VIEW_IN_ALL, get_region_count, 1),
    COL("threads", "threads", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_region_name, 5),
    COL("team", "team", VIEW_INT, TABLE_RIGHT, VIEW_IN_ALL, get_region_name, 6),
    COL("time_ns", "time", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 0),
    COL("work_ns", "work", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 1),
    COL("barrier_ns", "barrier", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 2),
    COL("work_max_ns", "max work", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 3),
    COL("work_mean_ns", "mean work", VIEW_NS_1, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 4),
    COL("imbalance_pct", "imbalance %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 5),
    COL("load_balance_pct", "load balance %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_region_num,
	6),
    COL("region_eff_pct", "region eff. %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_region_num, 7),
};

/* --- threads */

/* ARG: 0 rank, 1 pid, 2 tid, 3 role, 4 span, 5 parallel, 6 serial, 7 parallel % of span */
static void get_thread(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_thread *t = row;
	const int64_t i[] = {t->rank, t->pid, t->tid, 0, t->span_ns, t->parallel_ns, t->serial_ns};

	(void)ctx;
	if (arg == 3)
		view_set_str(v, t->initial ? "initial" : "worker");
	else if (arg == 7)
		view_set_f64(v,
			     t->span_ns ? 100.0 * (double)t->parallel_ns / (double)t->span_ns : 0);
	else
		view_set_i64(v, i[arg]);
}

static const struct view_col thread_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, RANK, get_thread, 0),
    COL("pid", "pid", VIEW_INT, TABLE_RIGHT, ENT, get_thread, 1),
    COL("tid", "tid", VIEW_INT, TABLE_RIGHT, ENT, get_thread, 2),
    COL("role", "role", VIEW_STR, TABLE_LEFT, ENT, get_thread, 3),
    COL("span_ns", "span", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_thread, 4),
    COL("parallel_ns", "parallel", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_thread, 5),
    COL("serial_ns", "serial", VIEW_NS, TABLE_RIGHT, VIEW_IN_ALL, get_thread, 6),
    COL("parallel_pct", "parallel %", VIEW_PCT_6, TABLE_RIGHT, VIEW_IN_ALL, get_thread, 7),
};

/* --- hybrid efficiencies */

/* ARG: 0 rank ("all" for the overall row), 1 MPI load balance, 2 MPI communication, 3 OpenMP
 * load balance, 4 OpenMP serialisation, 5 parallel efficiency (fractions) */
static void get_hybrid(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	const struct omp_hybrid_row *w = row;
	const double d[] = {0, w->mpi_lb, w->mpi_ce, w->omp_lb, w->omp_ser, w->pe};

	(void)ctx;
	if (arg == 0 && w->rank < 0)
		view_set_str(v, "all");
	else if (arg == 0)
		view_set_i64(v, w->rank);
	else
		view_set_f64(v, d[arg]);
}

static const struct view_col hybrid_cols[] = {
    COL("rank", "rank", VIEW_INT, TABLE_RIGHT, ENT, get_hybrid, 0),
    COL("mpi_load_balance", "MPI load balance", VIEW_FRAC, TABLE_RIGHT, VIEW_IN_ALL, get_hybrid, 1),
    COL("mpi_comm_eff", "MPI comm. eff.", VIEW_FRAC, TABLE_RIGHT, VIEW_IN_ALL, get_hybrid, 2),
    COL("omp_load_balance", "OpenMP load balance", VIEW_FRAC, TABLE_RIGHT, VIEW_IN_ALL, get_hybrid,
	3),
    COL("omp_serial_eff", "OpenMP serial. eff.", VIEW_FRAC, TABLE_RIGHT, VIEW_IN_ALL, get_hybrid,
	4),
    COL("parallel_eff", "parallel eff.", VIEW_FRAC, TABLE_RIGHT, VIEW_IN_ALL, get_hybrid, 5),
};

/* V: the hybrid table of R's H, its ranks then the overall row. 0 or -ENOMEM. */
static int hybrid_view_make(struct view *v, const struct omp_report *r)
{
	const struct omp_hybrid *h = r->h;
	size_t n = h ? h->nranks + 1 : 0;
	const void **rows = malloc((n ? n : 1) * sizeof(*rows));

	*v = (struct view){
	    .ctx = r, .cols = hybrid_cols, .ncols = sizeof(hybrid_cols) / sizeof(hybrid_cols[0])};
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; h && i < h->nranks; i++)
		rows[i] = &h->ranks[i];
	if (h)
		rows[h->nranks] = &h->all;
	v->rows = rows;
	v->nrows = n;
	return 0;
}

/* V: table T (not the hybrid one) of R's profile. 0 or -ENOMEM. */
static int profile_view_make(struct view *v, const struct omp_report *r, enum omp_table t)
{
	const struct omp_profile *p = r->p;
	size_t n = t == OMP_TABLE_ROWS	    ? p->nrows
		   : t == OMP_TABLE_REGIONS ? p->nregions
					    : p->nthreads;
	const void **rows = malloc((n ? n : 1) * sizeof(*rows));

	*v = (struct view){.ctx = r, .option = p->hybrid};
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rows[i] = t == OMP_TABLE_ROWS	   ? (const void *)&p->rows[i]
			  : t == OMP_TABLE_REGIONS ? (const void *)&p->regions[i]
						   : (const void *)&p->threads[i];
	if (t == OMP_TABLE_ROWS)
		v->cols = row_cols, v->ncols = sizeof(row_cols) / sizeof(row_cols[0]);
	else if (t == OMP_TABLE_REGIONS)
		v->cols = region_cols, v->ncols = sizeof(region_cols) / sizeof(region_cols[0]);
	else
		v->cols = thread_cols, v->ncols = sizeof(thread_cols) / sizeof(thread_cols[0]);
	v->rows = rows;
	v->nrows = n;
	return 0;
}

int omp_view_make(struct view *v, const struct omp_report *r, enum omp_table t)
{
	return t == OMP_TABLE_HYBRID ? hybrid_view_make(v, r) : profile_view_make(v, r, t);
}

void omp_view_release(struct view *v)
{
	free((void *)v->rows);
	v->rows = NULL;
}

/* The caveats of R: the experiment's, then the profile's. */
static void omp_caveats(const struct omp_report *r, void (*fn)(void *ctx, const char *line),
			void *ctx)
{
	if (r->e)
		experiment_caveats(r->e, 1, fn, ctx);
	for (size_t i = 0; i < r->p->ncaveats; i++)
		fn(ctx, r->p->caveats[i]);
}

/* Table T of R in FMT (text, CSV or long CSV) into F. 0, -ENOMEM or -EIO. */
static int print_table(const struct omp_report *r, enum omp_table t, enum out_format fmt, FILE *f)
{
	struct view v;
	int ret = omp_view_make(&v, r, t);

	if (ret)
		return ret;
	ret = fmt == OUT_TEXT	? view_print_text(&v, f, "  ")
	      : fmt == OUT_LONG ? view_print_long(&v, f)
				: view_print_csv(&v, f);
	omp_view_release(&v);
	return ret;
}

static int print_text(const struct omp_report *r, FILE *f)
{
	const struct omp_profile *p = r->p;
	int ret;

	if (!p->events) {
		/* the command says there are no records; the caveats say why (a full disk) */
		omp_caveats(r, caveat_text, f);
		return 0;
	}
	fprintf(f,
		"OpenMP: %zu parallel region%s, %zu thread%s (work = time - waits; barrier: the "
		"wait in the region's closing barrier)\n\n",
		p->nregions, p->nregions == 1 ? "" : "s", p->nthreads, p->nthreads == 1 ? "" : "s");
	if ((ret = print_table(r, OMP_TABLE_ROWS, OUT_TEXT, f)))
		return ret;
	fputs("\nParallel regions: imbalance = (max - mean) / max of the threads' work; load "
	      "balance = mean / max;\nregion eff. = work / (team x elapsed time)\n\n",
	      f);
	if ((ret = print_table(r, OMP_TABLE_REGIONS, OUT_TEXT, f)))
		return ret;
	fputs("\nThreads: serial = span - parallel; the initial thread's parallel % is the "
	      "serialisation efficiency\n\n",
	      f);
	if ((ret = print_table(r, OMP_TABLE_THREADS, OUT_TEXT, f)))
		return ret;
	if (r->h) {
		char rt[64];

		fmt_duration(rt, sizeof(rt), (double)r->h->runtime_ns);
		fprintf(
		    f,
		    "\nHybrid efficiency (POP): MPI load balance = out / max out, MPI comm. eff. "
		    "= max out / runtime\n(out: a rank's initial thread outside MPI, runtime %s "
		    "from MPI_Init to MPI_Finalize);\nOpenMP load balance = mean / max work of "
		    "the rank's regions, serial. eff. = parallel / out;\nparallel eff. = their "
		    "product\n\n",
		    rt);
		if ((ret = print_table(r, OMP_TABLE_HYBRID, OUT_TEXT, f)))
			return ret;
	}
	omp_caveats(r, caveat_text, f);
	return 0;
}

static int print_csv(const struct omp_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	int ret = print_table(r, OMP_TABLE_ROWS, fmt, f);

	if (!ret) {
		fputc('\n', f);
		ret = print_table(r, OMP_TABLE_REGIONS, fmt, f);
	}
	if (!ret) {
		fputc('\n', f);
		ret = print_table(r, OMP_TABLE_THREADS, fmt, f);
	}
	if (!ret && r->h) {
		fputc('\n', f);
		ret = print_table(r, OMP_TABLE_HYBRID, fmt, f);
	}
	omp_caveats(r, caveat_warning, notes);
	return ret;
}

static int print_json(const struct omp_report *r, FILE *f)
{
	static const char *const keys[] = {"rows", "regions", "threads", "hybrid_efficiency"};
	struct jsonw w;
	struct view v;
	int ret = 0;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	for (int t = OMP_TABLE_ROWS; t <= (r->h ? OMP_TABLE_HYBRID : OMP_TABLE_THREADS) && !ret;
	     t++) {
		if ((ret = omp_view_make(&v, r, (enum omp_table)t)))
			break;
		jsonw_key(&w, keys[t]);
		view_json_rows(&w, &v);
		omp_view_release(&v);
	}
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	omp_caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	if (!ret)
		return jsonw_print(&w, f);
	jsonw_release(&w);
	return ret;
}

int omp_print(const struct omp_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	int ret = fmt == OUT_TEXT   ? print_text(r, f)
		  : fmt == OUT_JSON ? print_json(r, f)
				    : print_csv(r, fmt, f, notes);

	return ret ? ret : ferror(f) ? -EIO : 0;
}
