/*
 * sampler.h - the launcher's sampler: one perf_event sampling group per CPU on the measured
 * command, inherited by all its threads and child processes. Every sample carries the time
 * (CLOCK_MONOTONIC), the IP, pid/tid, cpu and the values of every event in the group
 * (PERF_SAMPLE_READ), so counters become time series. A drain thread empties the ring buffers
 * while the command runs and writes `samples.<pid>` (docs/format.md) in time order, plus
 * `pmaps.<pid>[.<image>]`, the executable mappings the kernel reported, for symbols.
 *
 * Nothing here prints: errors come back as negative errno values and the per-event status.
 */
#ifndef PSC_SAMPLER_H
#define PSC_SAMPLER_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/counters.h"
#include "pmu/events.h"

struct sampler_config {
	uint64_t freq;	 /* samples per second per thread, or 0 with period */
	uint64_t period; /* events of the leader between samples, or 0 with freq */
	int callgraph;	 /* frame-pointer call chains */
	int exclude_kernel;
	size_t ring_pages; /* data pages per CPU ring buffer, a power of two (0: default) */
	const struct counter_sys *sys; /* NULL: the real system calls */
};

/* What happened to one requested event. */
enum sampler_event_state {
	SAMPLER_IN_GROUP = 0, /* a member of the leader's group */
	SAMPLER_OWN_GROUP,    /* could not join the group: sampled in a group of its own */
	SAMPLER_FAILED,	      /* could not be opened at all: status says why */
};

struct sampler_event {
	struct event_desc desc;
	enum sampler_event_state state;
	int status;	/* 0 or the negative errno of the last failed open */
	int join_error; /* for SAMPLER_OWN_GROUP: why joining the group failed */
	uint32_t group;
};

struct sampler_group {
	uint32_t *members; /* indices in sampler.ev, leader first */
	uint32_t n;
};

struct sampler_cpu;
struct sample_out;

struct sampler {
	struct sampler_config cfg;
	struct sampler_event *ev; /* ev[0] is the leader (cycles or cpu-clock) */
	size_t nev;
	struct sampler_group *groups;
	uint32_t ngroups;
	struct sampler_cpu *cpus;
	int ncpus;
	pid_t pid;
	int inherit;	 /* 0: the kernel (before 6.12) samples only the command's first thread */
	int no_build_id; /* the kernel gives no build-ids in MMAP2 records (before 5.12) */
	struct sample_out *out;
	pthread_t thread;
	int thread_started;
	int stop_fd;
	int error; /* first write error of the drain thread, negative errno */
	/* the copy of the kernel's symbols, made beside the run by a thread of idle priority */
	pthread_t ksyms_thread;
	int ksyms_started;
	const char *dir;
	char ksyms_why[512]; /* why the copy failed, "" when it did not */
	uint64_t samples, lost, throttled;
	uint64_t late; /* records published after later ones were written: given their time */
	/* after sampler_finish: records that could not be written (a full disk), and the first
	 * error writing the samples or pmaps files ("" none), as sample_out_error words it */
	uint64_t unwritten;
	char why[PATH_MAX + 192];
};

/*
 * Choose the leader (cycles where it opens, else cpu-clock), resolve the group of the N events
 * EVS and open everything on task PID (held before its exec: the events start at exec) on
 * every online CPU. Returns the number of events sampled, or a negative errno when the
 * leader cannot be opened (-EACCES/-EPERM: not permitted; see sampler_permission_hint).
 */
int sampler_open(struct sampler *s, const struct sampler_config *cfg, const struct event_desc *evs,
		 size_t n, pid_t pid);

/* Create DIR/samples.<pid> and start the drain thread. 0 or a negative errno. */
int sampler_start(struct sampler *s, const char *dir);

/*
 * After the command ended: drain what is left, write the exact totals and the end record,
 * stop the thread and close the file. 0, or the first error (negative errno), said in
 * s->why. The drain thread writes the records as it goes (sample_out_sync): a chunk at least
 * every SAMPLE_OUT_SYNC_NS plus a drain period, and whenever 1 MiB of records is ready.
 */
int sampler_finish(struct sampler *s);

void sampler_release(struct sampler *s);

/* kernel.perf_event_max_sample_rate under procfs root PROCFS, or 0 when it cannot be read. */
uint64_t sampler_max_rate(const char *procfs);

/*
 * The call chain of a sample as the samples file keeps it (docs/format.md): from the kernel's
 * N entries CHAIN (PERF_SAMPLE_CALLCHAIN, innermost first, with PERF_CONTEXT_* markers) of a
 * sample at IP, the kernel frames, then the user frames, at most CAP of them into OUT. Markers,
 * hypervisor and guest frames, and each context's first entry when it equals IP are left
 * out; kernel frames after a user frame or past PSC_SAMPLE_KFRAMES_MAX too. Returns the
 * number of frames written; *NKERNEL gets how many of them (the first ones) are the kernel's.
 */
size_t sampler_chain(const uint64_t *chain, size_t n, uint64_t ip, uint64_t *out, size_t cap,
		     unsigned *nkernel);

#endif /* PSC_SAMPLER_H */
