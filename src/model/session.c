/* session.c - the table of analyses and the building of each on demand (session.h). */
#include "model/session.h"

#include "model/experiment-open.h"
#include "model/otf2-calls.h"
#include "model/pass.h"
#include "pmu/metrics.h"
#include "lib/strv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NEED(id) (1u << (id))

/* A row of the table: BUILD makes the analysis into S (0, or a negative errno with the
 * message in ERR) once its NEEDS are built; RELEASE frees what BUILD made, also what a failed
 * BUILD left when PARTIAL is set (the others free their own on failure). */
struct analysis {
	const char *name;
	unsigned needs;
	int (*build)(struct session *s, char *err, size_t errlen);
	void (*release)(struct session *s);
	int partial;
};

static int oom(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Keep LINE (printf format) as a caveat; out of memory drops it. */
static void caveat(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void caveat(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strv_vpushf(&s->caveats, &s->ncaveats, &s->caveats_cap, fmt, ap);
	va_end(ap);
}

static int build_experiment(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_DIR)
		return experiment_open(&s->e, s->source, err, errlen);
	/* an archive: an empty experiment named for its anchor */
	s->e.exit_status = -1;
	s->e.dir = strdup(s->source);
	return s->e.dir ? 0 : oom(err, errlen);
}

static void release_experiment(struct session *s)
{
	experiment_release(&s->e);
}

static int build_symbols(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_DIR)
		return symtab_init(&s->syms, s->source) < 0 ? oom(err, errlen) : 0;
	/* an archive's profile keeps its rows' names in the strings of a symtab of no files */
	s->syms.dir = strdup(s->source);
	return s->syms.dir ? 0 : oom(err, errlen);
}

static void release_symbols(struct session *s)
{
	if (s->syms.dir)
		symtab_release(&s->syms);
}

/* The metrics stored in the experiment (the group given to record); one that does not parse
 * is left out with a caveat. */
static int build_metrics(struct session *s, char *err, size_t errlen)
{
	const struct experiment *e = &s->e;
	struct metric *ms = calloc(e->nmetrics + 1, sizeof(*ms));
	size_t n = 0;
	char why[256];

	if (!ms)
		return oom(err, errlen);
	for (size_t i = 0; i < e->nmetrics; i++) {
		ms[n].name = e->metrics[i].name;
		ms[n].unit = e->metrics[i].unit;
		ms[n].formula = e->metrics[i].formula;
		if (metric_expr_parse(e->metrics[i].formula, &ms[n].expr, why, sizeof(why)) == 0)
			n++;
		else
			caveat(s, "metric '%s' in meta.json: %s", e->metrics[i].name, why);
	}
	s->metrics.v = ms;
	s->metrics.n = n;
	return 0;
}

static void release_metrics(struct session *s)
{
	for (size_t i = 0; i < s->metrics.n; i++)
		metric_expr_free(s->metrics.v[i].expr);
	free(s->metrics.v);
	s->metrics.v = NULL;
	s->metrics.n = 0;
}

/* ID failed: keep RET and its message for the next asking. */
static int failed(struct session *s, enum session_id id, int ret, const char *msg, char *err,
		  size_t errlen)
{
	s->state[id] = -1;
	s->ret[id] = ret;
	s->error[id] = strdup(msg);
	snprintf(err, errlen, "%s", msg);
	return ret;
}

/* What one consumer of the experiment's pass built: 0, or its error with the message. */
struct pass_result {
	int ret;
	char msg[1024];
};

static int build_by_pass(struct session *s, enum session_id id, char *err, size_t errlen);
static int build_archive_pass(struct session *s, enum session_id id, char *err, size_t errlen);

static int build_profiles(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_DIR)
		return build_by_pass(s, SESSION_PROFILES, err, errlen);
	return build_archive_pass(s, SESSION_PROFILES, err, errlen);
}

static void release_profiles(struct session *s)
{
	func_profile_release(&s->prof.funcs);
	region_profile_release(&s->prof.regions);
}

static int build_regions_merged(struct session *s, char *err, size_t errlen)
{
	return region_profile_merge_threads(&s->prof.regions, &s->regions_merged) ? oom(err, errlen)
										  : 0;
}

static void release_regions_merged(struct session *s)
{
	region_profile_release(&s->regions_merged);
}

static int build_functions_merged(struct session *s, char *err, size_t errlen)
{
	return func_profile_merge(&s->prof.funcs, &s->funcs_merged) ? oom(err, errlen) : 0;
}

static void release_functions_merged(struct session *s)
{
	func_profile_release(&s->funcs_merged);
}

static int build_samples(struct session *s, char *err, size_t errlen)
{
	int ret;

	if (s->kind == SESSION_OTF2 || !s->e.nsamples) {
		snprintf(err, errlen, "%s has no samples: record with perfscope record --sample",
			 s->source);
		return -ENODATA;
	}
	ret = sample_profile_build(&s->samples, &s->e, &s->syms, s->opt.per_thread, s->opt.lines,
				   err, errlen);
	if (ret == 0)
		sample_profile_sort(&s->samples);
	return ret;
}

static void release_samples(struct session *s)
{
	sample_profile_release(&s->samples);
}

static int build_mpi(struct session *s, char *err, size_t errlen)
{
	int ret;

	if (s->kind == SESSION_DIR)
		return build_by_pass(s, SESSION_MPI, err, errlen);
	mpi_model_init(&s->mpi);
	ret = mpi_model_load_otf2(&s->mpi, s->source, s->opt.mpi_flags, err, errlen);
	if (ret < 0) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-ret));
		mpi_model_release(&s->mpi);
	}
	return ret;
}

static void release_mpi(struct session *s)
{
	mpi_model_release(&s->mpi);
}

static int build_waits(struct session *s, char *err, size_t errlen)
{
	return mpi_waits_compute(&s->waits, &s->mpi) < 0 ? oom(err, errlen) : 0;
}

static void release_waits(struct session *s)
{
	mpi_waits_release(&s->waits);
}

static int build_scopes(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_OTF2)
		return build_archive_pass(s, SESSION_SCOPES, err, errlen);
	return mpi_scope_build(&s->scopes, &s->e, &s->syms, &s->mpi, &s->waits, err, errlen);
}

static void release_scopes(struct session *s)
{
	mpi_scope_release(&s->scopes);
}

static int build_timeline(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_OTF2) {
		snprintf(err, errlen,
			 "%s: an OTF2 archive has no samples or counters for a timeline",
			 s->source);
		return -ENODATA;
	}
	return timeline_build(&s->timeline, &s->e, &s->syms, s->opt.timeline_ns,
			      s->opt.timeline_top, err, errlen);
}

static void release_timeline(struct session *s)
{
	timeline_release(&s->timeline);
}

static int build_routines(struct session *s, char *err, size_t errlen)
{
	return mpi_routines_compute(&s->routines, &s->mpi) < 0 ? oom(err, errlen) : 0;
}

static void release_routines(struct session *s)
{
	mpi_routines_release(&s->routines);
}

static int build_traffic(struct session *s, char *err, size_t errlen)
{
	return mpi_traffic_compute(&s->traffic, &s->mpi) < 0 ? oom(err, errlen) : 0;
}

static void release_traffic(struct session *s)
{
	mpi_traffic_release(&s->traffic);
}

/* The OpenMP profile: from the pass over the experiment (with the profiles or the MPI model
 * when they are required too). */
static int build_openmp(struct session *s, char *err, size_t errlen)
{
	if (s->kind == SESSION_DIR)
		return build_by_pass(s, SESSION_OPENMP, err, errlen);
	snprintf(err, errlen, "%s: OpenMP regions are read from experiment directories", s->source);
	return -ENODATA;
}

static void release_openmp(struct session *s)
{
	omp_profile_release(&s->openmp);
}

/* The hybrid efficiencies from the MPI model and the OpenMP profile. */
static int build_hybrid(struct session *s, char *err, size_t errlen)
{
	int ret = omp_hybrid_compute(&s->hybrid, &s->mpi, &s->openmp);

	if (ret == -ENOMEM)
		return oom(err, errlen);
	if (ret < 0)
		snprintf(err, errlen, "%s: no MPI rank with a run time for the hybrid efficiencies",
			 s->source);
	return ret;
}

static void release_hybrid(struct session *s)
{
	omp_hybrid_release(&s->hybrid);
}

/* The consumers of one pass over the experiment, each isolated (ev_consumer_isolate), and the
 * analysis each builds. */
struct pass_consumers {
	struct ev_consumer c[4];
	struct ev_isolated iso[4];
	enum session_id of[4];
	size_t n;
};

/* The analyses one pass over an experiment builds together. */
#define PASS_ANALYSES (NEED(SESSION_PROFILES) | NEED(SESSION_MPI) | NEED(SESSION_OPENMP))

/* INNER isolated as the next consumer of PC, building OF; SOURCE_ERRORS as for
 * ev_consumer_isolate. */
static void pass_add(struct pass_consumers *pc, const struct ev_consumer *inner, enum session_id of,
		     int source_errors)
{
	ev_consumer_isolate(&pc->c[pc->n], &pc->iso[pc->n], inner, source_errors);
	pc->of[pc->n++] = of;
}

/* The consumers of S's pass for the analyses of WANT (NEED() bits of PASS_ANALYSES) into PC:
 * the profiles and the OpenMP profile fail on a damaged stream, the MPI model reads past it.
 * 0 or -ENOMEM. */
static int pass_consumers(struct session *s, unsigned want, size_t nlocations,
			  struct pass_consumers *pc)
{
	struct ev_consumer inner;
	int ret = 0;

	pc->n = 0;
	if (want & NEED(SESSION_PROFILES)) {
		ret = func_profile_consumer(&inner, &s->prof.funcs, &s->syms, NULL, nlocations);
		pass_add(pc, &inner, SESSION_PROFILES, 1);
		if (ret == 0) {
			ret = region_profile_consumer(&inner, &s->prof.regions, &s->e);
			pass_add(pc, &inner, SESSION_PROFILES, 1);
		}
	}
	if (ret == 0 && (want & NEED(SESSION_MPI))) {
		mpi_model_init(&s->mpi);
		ret = mpi_model_consumer(&inner, &s->mpi, &s->e, s->opt.mpi_flags);
		pass_add(pc, &inner, SESSION_MPI, 0);
	}
	if (ret == 0 && (want & NEED(SESSION_OPENMP))) {
		ret = omp_profile_consumer(&inner, &s->openmp, &s->syms);
		pass_add(pc, &inner, SESSION_OPENMP, 1);
	}
	return ret;
}

/* The other analysis OTHER of the pass ID asked for: built (RES->ret 0), or failed. */
static void pass_settle(struct session *s, enum session_id other, const struct pass_result *res)
{
	char why[1024];

	if (res->ret == 0) {
		s->order[s->nbuilt++] = (unsigned char)other;
		s->state[other] = 1;
		return;
	}
	if (other == SESSION_PROFILES)
		release_profiles(s);
	else if (other == SESSION_OPENMP)
		release_openmp(s);
	else
		mpi_model_release(&s->mpi);
	failed(s, other, res->ret, res->msg[0] ? res->msg : strerror(-res->ret), why, sizeof(why));
}

/* The analyses of PASS_ANALYSES other than ID that S requires (session_require) and has not
 * built yet, whose needs are built, as NEED() bits. */
static unsigned pass_others(struct session *s, enum session_id id)
{
	unsigned want = 0;
	char why[1024];

	for (int o = 0; o < SESSION_NANALYSES; o++)
		if (o != (int)id && (PASS_ANALYSES & NEED(o)) && (s->required & NEED(o)) &&
		    s->state[o] == 0 &&
		    (o == SESSION_MPI ||
		     session_get(s, SESSION_SYMBOLS, NULL, why, sizeof(why)) == 0))
			want |= NEED(o);
	return want;
}

/*
 * ID (the profiles, the MPI model or the OpenMP profile) from one pass over the experiment,
 * with the others of the three in the same pass when they are required (session_require) and
 * not built yet: each stream is read once. Each keeps its own outcome: ID's is returned
 * (message in ERR), the others' are their states, as if they had been asked for.
 */
static int build_by_pass(struct session *s, enum session_id id, char *err, size_t errlen)
{
	struct pass_result res[SESSION_NANALYSES];
	struct ev_consumer *list[4];
	struct pass_consumers pc;
	struct ev_source *src;
	unsigned others = pass_others(s, id), want = NEED(id) | others;
	int ret;

	if ((ret = ev_source_experiment(&src, &s->e, err, errlen)) < 0)
		return ret;
	ret = pass_consumers(s, want, ev_source_nlocations(src), &pc);
	for (size_t i = 0; i < pc.n; i++)
		list[i] = &pc.c[i];
	if (ret == 0)
		ret = ev_pass_run_flags(src, list, pc.n,
					(want & NEED(SESSION_MPI)) ? EV_PASS_KEEP_GOING : 0, err,
					errlen);
	else
		snprintf(err, errlen, "out of memory");
	for (int o = 0; o < SESSION_NANALYSES; o++) {
		res[o].ret = ret;
		snprintf(res[o].msg, sizeof(res[o].msg), "%s", ret ? err : "");
	}
	for (size_t i = 0; i < pc.n; i++) {
		struct pass_result *r = &res[pc.of[i]];

		if (pc.iso[i].ret && !r->ret) {
			r->ret = pc.iso[i].ret;
			snprintf(r->msg, sizeof(r->msg), "%s", pc.iso[i].msg);
		}
		ev_consumer_release(&pc.c[i]);
	}
	ev_source_close(src);
	for (int o = 0; o < SESSION_NANALYSES; o++)
		if (others & NEED(o))
			pass_settle(s, (enum session_id)o, &res[o]);
	if (ret == 0 && res[id].ret) {
		ret = res[id].ret;
		snprintf(err, errlen, "%s", res[id].msg);
	}
	if (ret < 0 && id == SESSION_MPI)
		mpi_model_release(&s->mpi);
	return ret;
}

/* The consumers of an archive's pass for the analyses of WANT (NEED() bits of
 * SESSION_PROFILES and SESSION_SCOPES) into PC. 0 or -ENOMEM. */
static int archive_consumers(struct session *s, unsigned want, const struct ev_source *src,
			     struct pass_consumers *pc)
{
	struct ev_consumer inner;
	int ret = 0;

	pc->n = 0;
	if (want & NEED(SESSION_PROFILES)) {
		ret = func_profile_consumer(&inner, &s->prof.funcs, NULL, NULL,
					    ev_source_nlocations(src));
		pass_add(pc, &inner, SESSION_PROFILES, 1);
	}
	if (ret == 0 && (want & NEED(SESSION_SCOPES))) {
		ret = otf2_scope_consumer(&inner, &s->scopes, src, &s->mpi, &s->waits);
		pass_add(pc, &inner, SESSION_SCOPES, 1);
	}
	return ret;
}

/* The outcome RES of analysis OF of an archive's pass over SRC: the profile's rows named. */
static void archive_result(struct session *s, enum session_id of, const struct ev_source *src,
			   struct pass_result *res)
{
	if (of != SESSION_PROFILES)
		return;
	if (res->ret == 0 && otf2_func_profile_name(&s->prof.funcs, &s->syms.strings, src)) {
		res->ret = -ENOMEM;
		snprintf(res->msg, sizeof(res->msg), "%s: out of memory", s->source);
	}
	s->prof.funcs.syms = &s->syms;
}

/*
 * ID (the profiles or the scope profile of an archive) from one pass of its source, with the
 * other of the two in the same pass when it is required (session_require) and not built yet
 * (for the scopes, once the MPI model and its waits are: the import reads them). Each keeps
 * its own outcome, as build_by_pass's.
 */
static int build_archive_pass(struct session *s, enum session_id id, char *err, size_t errlen)
{
	enum session_id other = id == SESSION_SCOPES ? SESSION_PROFILES : SESSION_SCOPES;
	struct pass_result res[SESSION_NANALYSES];
	struct ev_consumer *list[3];
	struct pass_consumers pc;
	struct ev_source *src;
	unsigned want = NEED(id);
	char why[1024];
	int ret;

	if ((s->required & NEED(other)) && s->state[other] == 0 &&
	    (other != SESSION_SCOPES || session_get(s, SESSION_WAITS, NULL, why, sizeof(why)) == 0))
		want |= NEED(other);
	if ((ret = ev_source_otf2(&src, s->source, err, errlen)) < 0)
		return ret;
	ret = archive_consumers(s, want, src, &pc);
	for (size_t i = 0; i < pc.n; i++)
		list[i] = &pc.c[i];
	if (ret == 0)
		ret = ev_pass_run(src, list, pc.n, err, errlen);
	else
		snprintf(err, errlen, "%s: out of memory", s->source);
	res[id] = res[other] = (struct pass_result){0};
	for (size_t i = 0; i < pc.n; i++) {
		struct pass_result *r = &res[pc.of[i]];

		if (pc.iso[i].ret && !r->ret) {
			r->ret = pc.iso[i].ret;
			snprintf(r->msg, sizeof(r->msg), "%s", pc.iso[i].msg);
		}
		ev_consumer_release(&pc.c[i]);
		if (ret == 0)
			archive_result(s, pc.of[i], src, r);
	}
	ev_source_close(src);
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s", strerror(-ret));
	if (want & NEED(other)) {
		struct pass_result *r = ret == 0 ? &res[other] : &(struct pass_result){ret, ""};

		if (ret < 0)
			snprintf(r->msg, sizeof(r->msg), "%s", err);
		if (r->ret == 0) {
			s->order[s->nbuilt++] = (unsigned char)other;
			s->state[other] = 1;
		} else {
			if (other == SESSION_PROFILES)
				release_profiles(s);
			failed(s, other, r->ret, r->msg[0] ? r->msg : strerror(-r->ret), why,
			       sizeof(why));
		}
	}
	if (ret == 0 && res[id].ret) {
		ret = res[id].ret;
		snprintf(err, errlen, "%s", res[id].msg);
	}
	return ret;
}

static const struct analysis analyses[SESSION_NANALYSES] = {
    [SESSION_EXPERIMENT] = {"experiment", 0, build_experiment, release_experiment, 1},
    [SESSION_SYMBOLS] = {"symbols", NEED(SESSION_EXPERIMENT), build_symbols, release_symbols, 1},
    [SESSION_METRICS] = {"metrics", NEED(SESSION_EXPERIMENT), build_metrics, release_metrics},
    [SESSION_PROFILES] = {"profiles", NEED(SESSION_SYMBOLS), build_profiles, release_profiles, 1},
    [SESSION_REGIONS_MERGED] = {"regions-merged", NEED(SESSION_PROFILES), build_regions_merged,
				release_regions_merged, 1},
    [SESSION_FUNCTIONS_MERGED] = {"functions-merged", NEED(SESSION_PROFILES),
				  build_functions_merged, release_functions_merged, 1},
    [SESSION_SAMPLES] = {"samples", NEED(SESSION_SYMBOLS), build_samples, release_samples, 1},
    [SESSION_MPI] = {"mpi", NEED(SESSION_EXPERIMENT), build_mpi, release_mpi},
    [SESSION_WAITS] = {"waits", NEED(SESSION_MPI), build_waits, release_waits},
    [SESSION_SCOPES] = {"scopes", NEED(SESSION_SYMBOLS) | NEED(SESSION_WAITS), build_scopes,
			release_scopes},
    [SESSION_TIMELINE] = {"timeline", NEED(SESSION_SYMBOLS), build_timeline, release_timeline, 1},
    [SESSION_ROUTINES] = {"routines", NEED(SESSION_MPI), build_routines, release_routines, 1},
    [SESSION_TRAFFIC] = {"traffic", NEED(SESSION_MPI), build_traffic, release_traffic, 1},
    [SESSION_OPENMP] = {"openmp", NEED(SESSION_SYMBOLS), build_openmp, release_openmp, 1},
    [SESSION_HYBRID] = {"hybrid", NEED(SESSION_MPI) | NEED(SESSION_OPENMP), build_hybrid,
			release_hybrid, 1},
};

/* Where analysis ID lives in S, and its size in *SIZE. */
static void *analysis_data(struct session *s, enum session_id id, size_t *size)
{
	const size_t sizes[SESSION_NANALYSES] = {
	    [SESSION_EXPERIMENT] = sizeof(s->e),
	    [SESSION_SYMBOLS] = sizeof(s->syms),
	    [SESSION_METRICS] = sizeof(s->metrics),
	    [SESSION_PROFILES] = sizeof(s->prof),
	    [SESSION_REGIONS_MERGED] = sizeof(s->regions_merged),
	    [SESSION_FUNCTIONS_MERGED] = sizeof(s->funcs_merged),
	    [SESSION_SAMPLES] = sizeof(s->samples),
	    [SESSION_MPI] = sizeof(s->mpi),
	    [SESSION_WAITS] = sizeof(s->waits),
	    [SESSION_SCOPES] = sizeof(s->scopes),
	    [SESSION_TIMELINE] = sizeof(s->timeline),
	    [SESSION_ROUTINES] = sizeof(s->routines),
	    [SESSION_TRAFFIC] = sizeof(s->traffic),
	    [SESSION_OPENMP] = sizeof(s->openmp),
	    [SESSION_HYBRID] = sizeof(s->hybrid),
	};
	void *const where[SESSION_NANALYSES] = {
	    [SESSION_EXPERIMENT] = &s->e,
	    [SESSION_SYMBOLS] = &s->syms,
	    [SESSION_METRICS] = &s->metrics,
	    [SESSION_PROFILES] = &s->prof,
	    [SESSION_REGIONS_MERGED] = &s->regions_merged,
	    [SESSION_FUNCTIONS_MERGED] = &s->funcs_merged,
	    [SESSION_SAMPLES] = &s->samples,
	    [SESSION_MPI] = &s->mpi,
	    [SESSION_WAITS] = &s->waits,
	    [SESSION_SCOPES] = &s->scopes,
	    [SESSION_TIMELINE] = &s->timeline,
	    [SESSION_ROUTINES] = &s->routines,
	    [SESSION_TRAFFIC] = &s->traffic,
	    [SESSION_OPENMP] = &s->openmp,
	    [SESSION_HYBRID] = &s->hybrid,
	};

	if (size)
		*size = sizes[id];
	return where[id];
}

int session_path_is_otf2(const char *path)
{
	size_t n = strlen(path);
	struct stat st;

	return n > 5 && !strcmp(path + n - 5, ".otf2") && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

void session_init(struct session *s, const char *source, enum session_source kind,
		  const struct session_options *opt)
{
	memset(s, 0, sizeof(*s));
	s->source = source;
	s->kind = kind;
	if (opt)
		s->opt = *opt;
}

int session_find(const char *name)
{
	for (int i = 0; i < SESSION_NANALYSES; i++)
		if (!strcmp(analyses[i].name, name))
			return i;
	return -ENOENT;
}

const char *session_name(enum session_id id)
{
	return id < SESSION_NANALYSES ? analyses[id].name : "?";
}

void session_require(struct session *s, enum session_id id)
{
	if (id < SESSION_NANALYSES)
		s->required |= NEED(id);
}

int session_state(const struct session *s, enum session_id id)
{
	return id < SESSION_NANALYSES ? s->state[id] : 0;
}

int session_get(struct session *s, enum session_id id, void **out, char *err, size_t errlen)
{
	char why[1024] = "";
	int ret;

	if (out)
		*out = NULL;
	if (id >= SESSION_NANALYSES) {
		snprintf(err, errlen, "no analysis %d", (int)id);
		return -ENOENT;
	}
	if (s->state[id] < 0) {
		snprintf(err, errlen, "%s", s->error[id] ? s->error[id] : "out of memory");
		return s->ret[id];
	}
	if (s->state[id] == 0) {
		for (int n = 0; n < SESSION_NANALYSES; n++)
			if ((analyses[id].needs & NEED(n)) &&
			    (ret = session_get(s, (enum session_id)n, NULL, why, sizeof(why))))
				return failed(s, id, ret, why, err, errlen);
		ret = analyses[id].build(s, why, sizeof(why));
		if (ret < 0) {
			if (analyses[id].partial)
				analyses[id].release(s);
			return failed(s, id, ret, why[0] ? why : strerror(-ret), err, errlen);
		}
		s->order[s->nbuilt++] = (unsigned char)id;
		s->state[id] = 1;
	}
	if (out)
		*out = analysis_data(s, id, NULL);
	return 0;
}

int session_put(struct session *s, enum session_id id, const void *data)
{
	size_t size;
	void *to;

	if (id >= SESSION_NANALYSES || s->state[id])
		return -EEXIST;
	to = analysis_data(s, id, &size);
	memcpy(to, data, size);
	s->order[s->nbuilt++] = (unsigned char)id;
	s->state[id] = 1;
	return 0;
}

void session_caveats(const struct session *s, void (*fn)(void *ctx, const char *line), void *ctx)
{
	for (size_t i = 0; i < s->ncaveats; i++)
		fn(ctx, s->caveats[i]);
}

void session_close(struct session *s)
{
	while (s->nbuilt)
		analyses[s->order[--s->nbuilt]].release(s);
	for (int i = 0; i < SESSION_NANALYSES; i++)
		free(s->error[i]);
	for (size_t i = 0; i < s->ncaveats; i++)
		free(s->caveats[i]);
	free(s->caveats);
	memset(s, 0, sizeof(*s));
}
