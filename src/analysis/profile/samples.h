/*
 * samples.h - reading the samples files of an experiment (`record --sample`) as a sequence of
 * samples with counter deltas.
 *
 * The kernel gives each sample the values its thread counted on that CPU since the thread
 * started (inherited per-CPU events), so the walker keeps the previous sample's values per
 * thread, CPU and group and hands out differences: what the thread counted since its previous
 * sample there. The on-CPU time a sample stands for is the difference of the group's
 * time_running. Task records give thread names and exec boundaries (program images). Where the
 * file has switch records (PSC_FEAT_SWITCHES), each sample also comes with the spans of time
 * its thread was on that CPU since its previous sample there: its deltas were counted in them.
 * The spans are kept once per (thread, cpu), whatever the number of groups.
 */
#ifndef PSC_AN_SAMPLES_H
#define PSC_AN_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/experiment.h"

struct sample {
	uint64_t ns; /* CLOCK_MONOTONIC */
	pid_t pid, tid;
	unsigned image; /* program image of pid at the sample (exec count) */
	size_t thread;	/* index in sample_walk.threads */
	uint64_t ip;
	unsigned cpu;
	int kernel;	/* the IP is in the kernel */
	uint32_t group; /* sample group; 0 is the leader's */
	/*
	 * Per event of the file (sample_walk.nevents): what the thread counted on this CPU since
	 * its previous sample of this group there; 0 for events of other groups.
	 */
	const uint64_t *delta;
	uint64_t from_ns;   /* start of the span the deltas cover (estimated, >= previous sample) */
	uint64_t weight_ns; /* on-CPU time the sample stands for: its group's time_running delta */
	/*
	 * The times the deltas were counted in: NSPANS [from, to] pairs of ns, in time order,
	 * from from_ns to ns. With switch records, the thread's on-CPU spans on this CPU since its
	 * previous sample there; without, the one span [from_ns, ns].
	 */
	const uint64_t *spans;
	size_t nspans;
	/*
	 * Caller return addresses, innermost first: the first NKCHAIN are kernel frames (the
	 * kernel functions below the IP, when the IP is in the kernel and call chains kept them),
	 * the others user frames (for a sample in the kernel the first of them is where the
	 * thread entered the kernel).
	 */
	const uint64_t *chain;
	size_t nchain, nkchain;
};

struct sample_thread {
	pid_t pid, tid;
	char name[24]; /* from the last comm/exec record, "" unknown */
	uint64_t samples;
	uint64_t first_ns, last_ns;
	uint64_t weight_ns;
};

/* A point of interest on the time axis, for timelines. */
struct sample_marker {
	uint64_t ns;
	pid_t pid, tid;
	enum { MARK_EXEC, MARK_EXIT, MARK_THROTTLE, MARK_UNTHROTTLE } kind;
};

struct sample_walk {
	uint32_t nevents;	   /* sampled events (meta.json sampling.events) */
	int per_cpu;		   /* values count per CPU (inherited per-CPU events) */
	uint64_t start_ns, end_ns; /* launch and last record of the files */
	struct sample_thread *threads;
	size_t nthreads, threadcap;
	struct sample_marker *markers;
	size_t nmarkers, markercap;
	uint64_t *totals; /* 3 per event: exact count, time_enabled, time_running; or NULL */
	uint64_t samples, lost, throttled;
	/* records perfscope record drained but could not write (a full disk): the lost records
	 * with arg PSC_LOST_UNWRITTEN; lost counts those the kernel lost */
	uint64_t unwritten;
	int ended; /* every file ended with its end record */
	/* internal */
	struct u64map *prev; /* (tid, cpu, group) -> index in prev_vals */
	uint64_t *prev_vals; /* per state: ns, time_running, then nevents values */
	size_t nprev, prevcap;
	uint64_t *delta;
	struct u64map *images; /* pid -> image + 1 (0: the root's launch exec not seen yet) */
	int switches;	       /* the file being read has switch records */
	uint32_t ngroups;      /* groups defined in the file being read */
	/* per (tid, cpu), shared by the groups: on-CPU spans not yet handed to every group */
	struct u64map *cpus; /* (tid, cpu) -> index in oncpu */
	struct sample_oncpu *oncpu;
	size_t noncpu, oncpucap;
	uint64_t *spans; /* the spans handed out with a sample */
	size_t spancap;
};

struct ev_consumer;

/*
 * C: a consumer (model/pass.h) of E's samples files, calling FN (may be NULL) for each sample
 * (a negative return stops the pass and is returned) and filling W (emptied here) with
 * threads, markers and totals. 0 or -ENOMEM; C is to be released (ev_consumer_release())
 * either way, W with sample_walk_release().
 */
int samples_consumer(struct ev_consumer *c, const struct experiment *e, struct sample_walk *w,
		     int (*fn)(void *ctx, const struct sample *s), void *ctx);

/*
 * Read every samples file of E in time order (one pass with samples_consumer()), calling FN
 * for each sample (a negative return stops the walk and is returned). 0, the return of FN, or
 * a negative errno with "file: byte N: ..." in ERR.
 */
int samples_walk(const struct experiment *e, struct sample_walk *w,
		 int (*fn)(void *ctx, const struct sample *s), void *ctx, char *err, size_t errlen);

void sample_walk_release(struct sample_walk *w);

struct sym_info;

/*
 * The name samples of SYM count under: the function's name; for addresses without a symbol,
 * their module as a whole: "[vdso]" as recorded, else "<file name> (no symbols)" formatted
 * into BUF.
 */
const char *sample_function_name(const struct sym_info *sym, char *buf, size_t len);

#endif /* PSC_AN_SAMPLES_H */
