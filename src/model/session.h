/*
 * session.h - an experiment (or an OTF2 archive) and the analyses built from it, each built
 * once, on demand, with what it needs built first.
 *
 * The analyses are rows of one table (session.c: {name, needs, build, release}): a command or
 * a view asks session_get() for one by id (or session_find() for its name) and never builds an
 * analysis itself nor keeps a flag saying whether it did. A failed build is kept too: asking
 * again gives the same error and message without reading anything again. session_close()
 * releases what was built, in the reverse order of building.
 *
 * Nothing here prints: errors are a negative errno with "PATH: ..." in the caller's buffer,
 * and what a build wants said without failing (a metric of meta.json that does not parse) is
 * kept as a caveat line, for the command to say (session_caveats).
 */
#ifndef PSC_SESSION_H
#define PSC_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "analysis/profile/func-profile.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "analysis/openmp/omp-hybrid.h"
#include "analysis/openmp/omp-profile.h"
#include "analysis/profile/regions.h"
#include "analysis/profile/sample-profile.h"
#include "model/symbols.h"
#include "analysis/timeline/timeline.h"

/* The analyses, in the order of the table (session.c). */
enum session_id {
	SESSION_EXPERIMENT,	  /* struct experiment: meta, processes, streams */
	SESSION_SYMBOLS,	  /* struct symtab */
	SESSION_METRICS,	  /* struct session_metrics: meta.json's metrics, parsed */
	SESSION_PROFILES,	  /* struct session_profiles: functions and regions per thread */
	SESSION_REGIONS_MERGED,	  /* struct region_profile: the regions, threads merged */
	SESSION_FUNCTIONS_MERGED, /* struct func_profile: the functions, threads merged */
	SESSION_SAMPLES,	  /* struct sample_profile, sorted (experiments with samples) */
	SESSION_MPI,		  /* struct mpi_model */
	SESSION_WAITS,		  /* struct mpi_waits of the MPI model */
	SESSION_SCOPES,		  /* struct mpi_scope_profile: scopes' computation, MPI, waits */
	SESSION_TIMELINE,	  /* struct timeline: counter and sample time series */
	SESSION_ROUTINES,	  /* struct mpi_routines: calls and time per MPI routine */
	SESSION_TRAFFIC,	  /* struct mpi_traffic: messages per sender and receiver */
	SESSION_OPENMP,		  /* struct omp_profile: parallel regions x threads (empty without
				     OpenMP records) */
	SESSION_HYBRID,		  /* struct omp_hybrid: the hybrid MPI+OpenMP efficiencies */
	SESSION_NANALYSES
};

/* The choices that change what an analysis computes; fixed for the session's life. */
struct session_options {
	int per_thread;	      /* samples: one profile per thread */
	int lines;	      /* samples: the source lines too */
	unsigned mpi_flags;   /* MPI_BUILD_* for the MPI model */
	uint64_t timeline_ns; /* timeline: the interval (0: chosen from the run's length) */
	size_t timeline_top;  /* timeline: the hottest functions kept per interval */
};

/* What the source is: an experiment directory or an OTF2 archive's anchor file (*.otf2). An
 * archive has symbols only as the names of its profile's rows, a function profile from its
 * events, an MPI model and scopes; no regions, samples, metrics or timeline. */
enum session_source { SESSION_DIR, SESSION_OTF2 };

struct session_metrics {
	struct metric *v;
	size_t n;
};

/* The one pass over the streams builds both. */
struct session_profiles {
	struct func_profile funcs;
	struct region_profile regions; /* empty for an archive */
};

struct session {
	const char *source; /* the caller's string, kept for the session's life */
	enum session_source kind;
	struct session_options opt;
	/* the analyses; each valid once session_get() built it */
	struct experiment e; /* for an archive: dir is the anchor, nothing else */
	struct symtab syms;
	struct session_metrics metrics;
	struct session_profiles prof;
	struct region_profile regions_merged;
	struct func_profile funcs_merged;
	struct sample_profile samples;
	struct mpi_model mpi;
	struct mpi_waits waits;
	struct mpi_scope_profile scopes;
	struct timeline timeline;
	struct mpi_routines routines;
	struct mpi_traffic traffic;
	struct omp_profile openmp;
	struct omp_hybrid hybrid;
	/* private: what became of each analysis, the order of building, the caveats */
	unsigned required;
	signed char state[SESSION_NANALYSES]; /* 0 not asked, 1 built, -1 failed */
	int ret[SESSION_NANALYSES];
	char *error[SESSION_NANALYSES];
	unsigned char order[SESSION_NANALYSES];
	size_t nbuilt;
	char **caveats;
	size_t ncaveats, caveats_cap;
};

/* PATH names a regular file *.otf2: an OTF2 archive's anchor, read instead of an experiment
 * directory. */
int session_path_is_otf2(const char *path);

/* Start S on SOURCE (a directory or an anchor file, as KIND says; kept, not copied) with OPT
 * (NULL: all zero). Nothing is read yet. */
void session_init(struct session *s, const char *source, enum session_source kind,
		  const struct session_options *opt);

/* The id of the analysis called NAME ("experiment", "profiles", "mpi", "waits"...), or
 * -ENOENT. */
int session_find(const char *name);

/* The name of analysis ID. */
const char *session_name(enum session_id id);

/*
 * Say before the first session_get() which analyses the command will ask for, so that those
 * that can share a read of the streams share it: of SESSION_PROFILES, SESSION_MPI and
 * SESSION_OPENMP, the one asked for is built in one pass with those of the others required
 * and not built yet; an archive's SESSION_PROFILES and SESSION_SCOPES, one required when the
 * other is asked for, come from one pass of its source. Asking for an analysis not required
 * is always allowed.
 */
void session_require(struct session *s, enum session_id id);

/*
 * Analysis ID of S into *OUT (may be NULL), built with what it needs unless built already.
 * 0, or the negative errno of its build (or of a need's) with its message in ERR, the same
 * each time it is asked. From two threads at once only for analyses whose needs are built.
 */
int session_get(struct session *s, enum session_id id, void **out, char *err, size_t errlen);

/* Give S analysis ID built elsewhere (a test's hand-made MPI model): *DATA is copied in, as
 * if built (its needs are not), and released with S. 0, or -EEXIST when ID was asked for. */
int session_put(struct session *s, enum session_id id, const void *data);

/* Whether ID was built (1), failed (-1) or was not asked for (0). */
int session_state(const struct session *s, enum session_id id);

/* Call FN(CTX, LINE) for each caveat the builds collected, in the order found. */
void session_caveats(const struct session *s, void (*fn)(void *ctx, const char *line), void *ctx);

/* Release every analysis built, in the reverse order of building. */
void session_close(struct session *s);

#endif /* PSC_SESSION_H */
