/*
 * otf2-int.h - what the two halves of the OTF2 export share (otf2-export.c writes the
 * events, otf2-defs.c collects and writes the definitions): not for other callers.
 */
#ifndef PSC_OTF2_INT_H
#define PSC_OTF2_INT_H

#include "export/otf2-export.h"

#include "lib/hashmap.h"
#include "lib/array.h"
#include "pmu/counts.h"

#include <stdarg.h>

#include <otf2/otf2.h>

#define EVT_CHUNK (1u << 20)
#define DEF_CHUNK (4u << 20)

enum region_kind { RK_FUNCTION, RK_REGION, RK_MPI, RK_OMP };

struct xregion {
	uint32_t name; /* string id */
	uint8_t kind;
	uint8_t role;
	uint32_t routine; /* RK_MPI; RK_OMP: its OTF2_RegionRole */
};

struct xgroup { /* a location group: a rank or a process */
	uint32_t name;
	uint32_t node;
	int rank;
	pid_t pid;
};

struct xloc {
	uint32_t name;
	uint32_t group;
	uint64_t nevents;
};

/* Where events of one location go, and the last time written there. */
struct track {
	OTF2_EvtWriter *w;
	uint64_t loc;
	uint64_t last;
};

/* A metric class: the metric members a thread counted, in its snapshot order. */
struct xclass {
	uint8_t n;
	uint32_t members[255];
};

/* A call (function or MPI routine) or a region open on a thread's location: its region id. */
struct ox_frame {
	uint32_t id;
	int region; /* a perfscope region (psc_region_begin) */
};

/* A non-blocking collective's start (an I-call with a COLL_REQ item): its rank, request and
 * COLL item, which the completing call's NonBlockingCollectiveComplete event describes. */
struct ox_icoll {
	int32_t rank;
	uint64_t request;
	int64_t t; /* the I-call's enter */
	uint32_t item;
};

/* One thread's counters as metrics (otf2-metrics.c), set up at its first snapshot. */
struct ox_metrics {
	int state; /* 0 not read yet, 1 known, -1 nothing counted */
	uint32_t *group_of;
	struct count *counts;
	size_t nev;
	uint32_t cls;	  /* its metric class */
	uint8_t n;	  /* members */
	uint32_t *event;  /* per member: its event index */
	OTF2_Type *types; /* per member */
	OTF2_MetricValue *values;
};

struct xp {
	OTF2_Archive *ar;
	const char *archive;
	struct experiment *e;
	struct symtab *st;
	const struct mpi_model *m;
	struct otf2_export_stats *stats;
	char *err;
	size_t errlen;
	int failed;
	int code; /* the first failure's negative errno (-EINVAL: a damaged experiment) */
	/* strings: hash -> id, verified against the text */
	char **strings;
	size_t nstrings, strings_cap;
	struct strmap string_ix; /* string -> its id (keys: strings) */
	struct xregion *regions;
	size_t nregions, regions_cap;
	struct u64map region_ix; /* string id << 2 | kind -> region */
	struct u64map addr_ix;	 /* function address -> region, of names_proc */
	const struct exp_process *names_proc;
	struct xgroup *groups;
	size_t ngroups, groups_cap;
	struct u64map group_ix; /* rank, or 1 << 40 | pid -> group */
	uint32_t *nodes;	/* system tree nodes: host string ids */
	size_t nnodes, nodes_cap;
	struct xloc *locs;
	size_t nlocs, locs_cap;
	int32_t *rank_loc;	 /* per world rank: its first location, -1 none */
	uint8_t *model_loc_done; /* per model location: written */
	int32_t **comm_rank;	 /* per model communicator: world rank -> rank in it */
	struct ox_frame *frames; /* the thread location's open calls and regions, innermost last */
	size_t nopen, open_cap;
	uint64_t tmin, tmax;
	uint32_t *members; /* metric members: event name string ids */
	size_t nmembers, members_cap;
	struct xclass *classes;
	size_t nclasses, classes_cap;
	struct ox_icoll *icolls; /* sorted by rank, request and time */
	size_t nicolls;
	struct ox_omp *omp; /* OpenMP (otf2-omp.c), made at the first OpenMP event */
};

/* The first OTF2 error messages of a failure, from ox_error_cb (registered while exporting). */
extern char ox_msg[256];

OTF2_ErrorCode ox_error_cb(void *ud, const char *file, uint64_t line, const char *function,
			   OTF2_ErrorCode code, const char *fmt, va_list va);

/* Keep the first failure in x->err (printf format) and return RET. */
int ox_fail(struct xp *x, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An OTF2 call's result: 0, or the failure with the OTF2 error text (-ENOMEM or -EIO). */
int ox_check(struct xp *x, OTF2_ErrorCode code, const char *what);

/* The id of string S, defined on first use; UINT32_MAX when out of memory. */
uint32_t ox_string_id(struct xp *x, const char *s);

/* The region NAME of KIND (ROUTINE for RK_MPI, the OTF2_RegionRole for RK_OMP), defined on first
 * use; UINT32_MAX when out of memory. */
uint32_t ox_region_id(struct xp *x, const char *name, enum region_kind kind, unsigned routine);

/* The location group of RANK (>= 0), else of process PID running EXE; UINT32_MAX when out of
 * memory. */
uint32_t ox_group_of(struct xp *x, int rank, pid_t pid, const char *exe);

/* The last component of PATH. */
const char *ox_base_name(const char *path);

/* The global definitions of everything the events used. 0 or -1 (x->err says why). */
int ox_write_definitions(struct xp *x);

/* Every location's (empty) local definitions. 0 or -1 (x->err says why). */
int ox_write_local_definitions(struct xp *x);

void ox_release(struct xp *x);

/* A Metric event at TS on W with the counter values of SNAPSHOT (of a region event of stream
 * S), when the thread counted anything. 0, or -1 (x->err says why). */
int ox_metrics_event(struct xp *x, struct ox_metrics *mt, const struct exp_stream *s,
		     OTF2_EvtWriter *w, uint64_t ts, const uint64_t *snapshot, size_t nsnapshot);

void ox_metrics_release(struct ox_metrics *mt);

/* The time of an event at NS on T: never before the location's previous event
 * (otf2-export.c). */
uint64_t ox_stamp(struct xp *x, struct track *t, int64_t ns);

/* Enter region ID at TS on T, open until ox_region_leave (otf2-export.c). 0 or -1. */
int ox_region_enter(struct xp *x, struct track *t, uint32_t id, uint64_t ts);

/* Leave the innermost open region ID at TS on T: what began inside it leaves first (the calls
 * inside it enter again after), as a region of the regions API ends. 0 (also when it is not
 * open) or -1. */
int ox_region_leave(struct xp *x, struct track *t, uint32_t id, uint64_t ts);

/* The starts of the MPI model's non-blocking collectives into x->icolls, sorted (otf2-mpi.c).
 * 0 or -1. */
int ox_find_icolls(struct xp *x);

/* The events of MPI call C at its enter (LEAVE 0) or its leave (LEAVE 1) on T. 0 or -1. */
int ox_mpi_events(struct xp *x, struct track *t, const struct mpi_call *c, int leave);

/* The metric members and classes the events used. 0 or -1 (x->err says why). */
int ox_write_metric_definitions(struct xp *x, OTF2_GlobalDefWriter *gw);

#endif /* PSC_OTF2_INT_H */
