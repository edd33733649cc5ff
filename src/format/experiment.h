/*
 * experiment.h - an experiment directory as the analyses see it: meta.json, one
 * proc.<pid>.json per process, one stream file per thread, and each process's clock fit.
 */
#ifndef PSC_EXPERIMENT_H
#define PSC_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/clock.h"
#include "format/salvage.h"

struct exp_metric {
	char *name, *unit, *formula;
};

struct exp_process {
	pid_t pid, ppid;
	unsigned image; /* 0, or N for the image after the Nth exec of PID */
	int rank;
	char *exe;
	char *host;  /* where it ran ("" in experiments older than the field) */
	char *state; /* "exited", "exec" (replaced by exec) or "running" (did not finish: killed,
		      * or a fatal signal, which its streams' end records tell) */
	char *error; /* why recording stopped or events were dropped, "" if none */
	enum clock_source clock;
	struct clock_pair *pairs;
	size_t npairs;
	struct clock_fit fit;
	char clock_note[384]; /* why the fit is not that of all pairs, or is not plausible
			       * (clock_fit_checked()); "" when it is */
	char **events;	      /* configured event names, in snapshot order */
	size_t nevents;
	int paranoid;
	int have_core_pmu;
	uint64_t lost_records;
	uint64_t lost_bytes;	   /* chunks that could not be written */
	uint64_t lost_threads;	   /* threads the runtime could not record at all (0 when absent) */
	uint64_t regions_folded;   /* region boundaries recorded under the overflow region */
	uint64_t region_names_cut; /* region names longer than the runtime keeps, cut */
};

struct exp_stream {
	char *path;
	pid_t pid, tid;
	unsigned image;
	struct exp_process *proc;
};

/* A samples file written by the launcher (`samples.<pid>`, pid of the command it started). */
struct exp_samples {
	char *path;
	pid_t pid;
};

/* meta.json's "sampling": how `record --sample` sampled, in the samples files' event order. */
struct exp_sampling {
	char **events; /* leader first */
	size_t nevents;
	char **states;		    /* per event: "group", "own group" or "not supported" */
	uint64_t frequency, period; /* one of them is 0 */
	int callgraph, user_only;
	int inherit; /* 0: a kernel before 6.12 sampled the first thread alone, on any CPU */
	uint64_t samples, lost, throttled, late;
	char *error;	      /* the first error writing the samples or pmaps files, "" none */
	char *kallsyms_error; /* why the experiment has no kallsyms, "" when unknown */
	/*
	 * meta.json has no "sampling" (perfscope record was killed before the command ended, in
	 * a version that wrote it only then): the events are named "event0", "event1"... after
	 * the first samples file's header
	 */
	int guessed;
};

/* How a file of the experiment is damaged (struct exp_damage). */
enum exp_damage_kind {
	EXP_DAMAGE_EMPTY,    /* 0 bytes: a stream, samples, maps, pmaps or proc file */
	EXP_DAMAGE_HEADER,   /* a stream or samples file cut inside its header: left out */
	EXP_DAMAGE_CUT,	     /* a stream or samples file whose chunks stop at byte `at`, cut
			      * short there or with no chunk after its header: read up to there */
	EXP_DAMAGE_UNENDED,  /* a samples file of whole chunks without its end record */
	EXP_DAMAGE_JSON_CUT, /* a proc file whose JSON text stops short: left out */
	EXP_DAMAGE_MISSING,  /* no pmaps (nor maps) file for a samples file's command */
};

/*
 * A file that is cut short or empty: what a killed run or a full disk leaves. The experiment
 * stays readable without it or up to its cut, and the caveats name it once (caveats.h). A
 * stream or samples file left out is not in the experiment's lists; a process whose proc file
 * is left out takes its streams with it.
 */
struct exp_damage {
	char *name; /* the file's name in the directory */
	enum exp_damage_kind kind;
	uint64_t size; /* bytes in the file */
	uint64_t at;   /* CUT: where the readable data ends; JSON_CUT: where the text stops */
	pid_t pid;     /* the process the file belongs to, 0 unknown */
	unsigned image;
	int launcher;	    /* written by perfscope record (samples, pmaps), not the runtime */
	int maps_cover;	    /* empty pmaps file: the runtime's maps file of that image has data */
	size_t streams_out; /* proc files: the process's streams left out with it */
};

/* meta.json's "power": where `record --power` put the power samples (docs/format.md). */
struct exp_power {
	char *source;	   /* "rapl", "perf" or "file" */
	char *file;	   /* the file in the directory, e.g. "power.rapl" */
	int64_t period_ns; /* rapl and perf */
	char *path;	   /* file: the meter file given to record */
	char *format;	   /* file: --power-format, "" for the default */
	char *scale;	   /* file: --power-scale, "" for none */
	double rate_hz;	   /* file: --power-rate, 0 for the default */
	double offset_ns;  /* file: --power-offset */
};

/* meta.json's "unsupported_events": an event of -e/-g that record could not open. */
struct exp_unsupported {
	char *name;
	char *reason; /* one line, as counter_status_reason gave it where it was recorded */
	int status;   /* the negative errno of perf_event_open */
};

struct exp_object;

struct experiment {
	char *dir;
	int has_meta;
	char *created_by;
	char **command;
	size_t ncommand;
	char *host;
	char *cpu_brand; /* "" when unknown */
	char *clock;	 /* clock source name */
	uint64_t start_unix_ns;
	int exit_status;	  /* of the recorded command; -1 unknown */
	int exit_signal;	  /* the signal that ended it, 0 none; -1 unknown (older record) */
	int64_t start_ns, end_ns; /* the run on CLOCK_MONOTONIC (launcher's view); 0 unknown */
	char *metric_group;	  /* name of the metric group given to record, "" if none */
	struct exp_metric *metrics;
	size_t nmetrics;
	struct exp_process *procs;
	size_t nprocs;
	struct exp_stream *streams;
	size_t nstreams;
	struct exp_samples *samples;
	size_t nsamples;
	int has_sampling; /* meta.json has a "sampling" object */
	struct exp_sampling sampling;
	int mpi;       /* meta.json's "mpi": recorded with record --mpi */
	int has_power; /* meta.json has a "power" object */
	struct exp_power power;
	struct exp_unsupported *unsupported; /* events record could not open */
	size_t nunsupported;
	struct salvage_stats salvage; /* what opening it completed from live buffer files */
	struct exp_damage *damaged;   /* files cut short or empty, in name order */
	size_t ndamaged;
	/* the programs and libraries the maps name, checked against their files now and kept in
	 * the build-id cache: filled by experiment_open() (model/experiment-open.h), from
	 * model/objcache.h's objects_survey; empty after experiment_read() */
	struct exp_object *objects;
	size_t nobjects;
};

/*
 * Read DIR: meta.json (optional: a program run with PERFSCOPE_OUT alone may write it), every
 * proc.<pid>.json and the list of streams, then fit each process's clock from its recorded
 * pairs and the clock record that opens every chunk. Streams that processes left unclosed
 * (killed, or gone through _exit) are first completed from their live buffer files
 * (salvage.h; what that did, or could not do, in E->salvage). Files cut short or empty (a
 * killed run, a full disk) do not make the experiment unreadable: they go into e->damaged, and
 * those that cannot be read at all are left out. The objects are not surveyed (E->objects
 * stays empty): experiment_open() (model/experiment-open.h) reads and surveys them. 0, or a
 * negative errno with a one-line message naming the file in ERR; then E holds nothing to
 * release (experiment_clear() on it does nothing).
 */
int experiment_read(struct experiment *e, const char *dir, char *err, size_t errlen);

/* Release what experiment_read() put in E, and empty it. E's objects, which it does not fill,
 * are not released: experiment_release() (model/experiment-open.h) does both. */
void experiment_clear(struct experiment *e);

/* The events record could not open: meta.json's entry for event NAME, or NULL. */
const struct exp_unsupported *experiment_unsupported(const struct experiment *e, const char *name);

/* The process image IMAGE of PID, or NULL. */
struct exp_process *experiment_process(const struct experiment *e, pid_t pid, unsigned image);

#endif /* PSC_EXPERIMENT_H */
