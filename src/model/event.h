/*
 * event.h - the one event model of perfscope's analysis side: what a source (an experiment
 * directory, an OTF2 archive) delivers, location by location, to every consumer of a pass
 * (pass.h). Every analysis and every exporter is a consumer of these events; none reads a
 * file itself. A new kind of measurement (OpenMP, off-CPU time, GPU) becomes a new event kind
 * here and reaches every consumer.
 *
 * Times are ns on the location's process clock base (CLOCK_MONOTONIC as the runtime fitted
 * it; an OTF2 archive's ticks since its global offset), after the source's clock fit. Strings
 * and arrays an event points to are valid until the consumer's callback returns.
 */
#ifndef PSC_MODEL_EVENT_H
#define PSC_MODEL_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/format.h"

struct exp_stream;
struct exp_process;
struct psc_stream_header;
struct stream_reader;
struct stream_record;

enum ev_kind {
	EV_CALL_ENTER,	 /* a function call begins: ev.call */
	EV_CALL_EXIT,	 /* it ends: ev.call with its inclusive and exclusive time */
	EV_REGION_ENTER, /* a user region begins: ev.region, with its counter snapshot */
	EV_REGION_EXIT,
	EV_COUNTERS,	/* the location's counter layout (groups, statuses): ev.counters */
	EV_MPI_INIT,	/* MPI_Init returned: ev.mpi_init */
	EV_MPI_COMM,	/* a communicator's members: ev.mpi_comm */
	EV_MPI_ENTER,	/* an MPI routine is entered: ev.mpi */
	EV_MPI_LEAVE,	/* it returns, with its messages and collectives: ev.mpi */
	EV_MPI_CLOCK,	/* a clock offset to rank 0 measured: ev.mpi_clock */
	EV_SAMPLE,	/* a sample: ev.sample */
	EV_SWITCH,	/* a sampled thread left or took a CPU: ev.sw */
	EV_TASK,	/* a thread or process began, ended, was renamed or exec'd: ev.task */
	EV_THREAD_NAME, /* the location's thread named itself: ev.text */
	EV_LOST,	/* records the recording lost: ev.lost */
	EV_OMP_PARALLEL_BEGIN, /* an OpenMP parallel region starts: ev.omp */
	EV_OMP_PARALLEL_END,
	EV_OMP_ITASK_BEGIN, /* a thread's implicit task of a region starts: ev.omp */
	EV_OMP_ITASK_END,
	EV_OMP_SYNC_ENTER, /* a thread starts waiting (barrier, lock, ...): ev.omp */
	EV_OMP_SYNC_LEAVE,
	EV_OMP_WORK,	    /* a thread's part of a worksharing construct, at its end: ev.omp */
	EV_OMP_TASK_CREATE, /* explicit tasks: ev.omp */
	EV_OMP_TASK_BEGIN,
	EV_OMP_TASK_END,
	EV_MARKER, /* any other record (region definitions, clock syncs, end records, unwinds,
		    * sample groups, throttling, sample totals, the exit of a call entered before
		    * the recording began): ev.raw alone */
	EV_NKINDS
};

#define EV_BIT(kind) (UINT64_C(1) << (kind))
#define EV_ALL	     ((UINT64_C(1) << EV_NKINDS) - 1)

/* One location: a thread of a process image (an experiment's stream or a samples file), or
 * an OTF2 location. Indexes are dense, 0 .. pass_nlocations() - 1. */
struct ev_location {
	size_t index;
	pid_t pid, tid; /* OTF2: pid is the rank, tid the location id */
	unsigned image;
	int rank; /* MPI world rank, -1 none */
	const char *name;
	const struct exp_stream *stream; /* an experiment's stream; NULL otherwise */
	const struct exp_process *proc;	 /* its process; NULL from OTF2 */
	int samples;			 /* a samples file: its events carry their own pid/tid */
	/* the file's header while the location is walked (location_begin to location_end);
	 * NULL from OTF2, and when the file could not be opened (EV_PASS_KEEP_GOING) */
	const struct psc_stream_header *hdr;
	/* its reader then (same times and cases as hdr), for a consumer that shows the file as
	 * stored: its size, its chunks (the one of the record of the event at hand), its end */
	const struct stream_reader *reader;
	/* the names of its regions while it is walked: ev_location_region_name() */
	const char *(*region_name)(const void *ctx, uint32_t id);
	const void *region_ctx;
};

/* What a location's walk found, complete at location_end(). */
struct ev_location_facts {
	char name[17]; /* the thread's name, "" unknown */
	int ended;     /* the stream has its end record */
	unsigned end_reason;
	uint64_t truncated_at; /* cut short (a killed run): byte offset, else 0 */
	uint64_t lost_records, lost_bytes;
	uint64_t unmatched_exits; /* exits without a recorded enter (dropped) */
	uint64_t synthetic_exits; /* exits made up: a killed run, or skipped frames */
	uint64_t unwound;	  /* calls the runtime closed at a longjmp or exception */
	uint64_t function_records;
	uint64_t records;		     /* every record read */
	int64_t first_ns, last_ns;	     /* span of its records; first > last when empty */
	int64_t first_call_ns, last_call_ns; /* span of its function records; first > last
						when none */
	uint64_t first_ticks, last_ticks;    /* that span as recorded (ticks; samples files: ns) */
	/* OpenMP: implicit tasks the thread ran outside any other, 0 when it is no OpenMP
	 * thread, and the lowest and highest thread numbers they had (the same for a thread
	 * that kept its number: thread_label() in model/thread-label.h names it) */
	uint64_t omp_tasks;
	uint32_t omp_thread_min, omp_thread_max;
	/* with EV_PASS_KEEP_GOING: the negative errno of the error that ended the location's
	 * reading early (the facts above are those of what was read), 0 none; its message */
	int error;
	int unopened; /* that error was the file's opening: nothing of it was read */
	char errmsg[512];
};

struct ev_call {
	uint64_t addr;	  /* function address in its process image; OTF2: the region index */
	const char *name; /* OTF2: the region's name; NULL when the address names it */
	unsigned depth;	  /* calls open around it (of the caller at enter, after exit) */
	int synthetic;	  /* an exit the source lacks, made up at the stream's end (offset 0)
			   * or at a jump (offset: the exit record that skipped it) */
	int64_t incl_ns, excl_ns; /* EV_CALL_EXIT */
};

struct ev_region {
	uint32_t id;
	const char *name;	  /* NULL for an id the stream never defined */
	const uint64_t *snapshot; /* counter snapshot words (format.h), nsnapshot of them */
	size_t nsnapshot;
};

struct ev_counters {
	uint32_t nevents;
	const uint32_t *group_of; /* per event: its group, PSC_NO_GROUP when not counted */
	const int32_t *status;	  /* per event: 0 counting, else a negative errno */
};

/* A message or collective part of an MPI call: format.h PSC_MPI_ITEM_*, ranks in the world. */
struct ev_mpi_item {
	uint8_t kind;  /* enum psc_mpi_item */
	uint8_t flags; /* PSC_MPI_F_* */
	uint32_t comm; /* the communicator's index in its process */
	int32_t peer;  /* SEND/ISEND: destination; RECV/IRECV: source; COLL: root (-1 none) */
	int32_t tag;
	uint64_t bytes; /* COLL: bytes sent */
	uint64_t word3; /* COLL: bytes received; the other kinds: the request id, 0 none */
};

struct ev_mpi {
	int routine;   /* enum mpi_routine (src/format/mpi-routines.h) */
	uint64_t site; /* EV_MPI_LEAVE: return address of the call, 0 unknown */
	/* EV_MPI_LEAVE: NITEMS items of PSC_MPI_ITEM_WORDS words each, as recorded (format.h),
	 * read with ev_mpi_item(): decoded where they are used, not copied per event */
	const uint64_t *item_words;
	size_t nitems;
};

/* Item I of the MPI call M leaves. */
static inline struct ev_mpi_item ev_mpi_item(const struct ev_mpi *m, size_t i)
{
	const uint64_t *w = m->item_words + i * PSC_MPI_ITEM_WORDS;

	return (struct ev_mpi_item){
	    .kind = (uint8_t)(w[0] & 0xffu),
	    .flags = (uint8_t)((w[0] >> 8) & 0xffu),
	    .comm = (uint32_t)(w[0] >> 32),
	    .peer = (int32_t)(uint32_t)w[1],
	    .tag = (int32_t)(uint32_t)(w[1] >> 32),
	    .bytes = w[2],
	    .word3 = w[3],
	};
}

struct ev_mpi_init {
	int rank, size;
	unsigned thread_level, version;
};

struct ev_mpi_comm {
	uint32_t index; /* in its process: 0 world, 1 self, then in creation order */
	uint64_t key;	/* the same in every member */
	uint32_t size;
	const int32_t *members; /* world ranks, in communicator rank order */
};

struct ev_mpi_clock {
	unsigned phase;	   /* enum psc_mpi_clock_phase */
	int64_t at_ns;	   /* this rank's clock when measured */
	int64_t offset_ns; /* add to it for rank 0's clock */
	int64_t rtt_ns;
};

struct ev_sample {
	pid_t pid, tid;
	uint32_t group; /* its sample group (samples files) */
	uint64_t ip;
	unsigned cpu, flags;	/* PSC_SAMPLE_* */
	unsigned kernel_frames; /* how many of chain's first entries are kernel frames */
	const uint64_t *values; /* the group's read: nr, time_enabled, time_running, values */
	size_t nvalues;
	const uint64_t *chain; /* return addresses, innermost first */
	size_t nchain;
};

struct ev_switch {
	pid_t pid, tid;
	unsigned cpu, flags; /* PSC_SWITCH_* */
};

struct ev_task {
	unsigned what; /* enum psc_task_event */
	pid_t pid, tid, ppid, ptid;
	const char *comm; /* COMM, EXEC: the new name */
};

struct ev_lost {
	uint64_t records, bytes;
	unsigned arg; /* PSC_LOST_UNWRITTEN in a samples file */
};

/* An OpenMP event (format.h PSC_REC_OMP_*); fields a kind does not have are 0. */
struct ev_omp {
	uint64_t parallel; /* the parallel region's id in its process (ITASK, PARALLEL) */
	uint64_t site;	   /* the call site: of the construct (PARALLEL_BEGIN, WORK, TASK_CREATE),
			      of the wait (SYNC_ENTER) */
	uint64_t fn;	   /* PARALLEL_BEGIN: the outlined function */
	uint64_t object;   /* SYNC_ENTER: what is waited for (a lock's address); TASK_*: task id */
	unsigned kind;	   /* SYNC_*: enum psc_omp_sync; WORK: enum psc_omp_work; TASK_END: 1
			      suspended */
	uint32_t thread;   /* ITASK: the thread's number in the team */
	uint32_t team;	   /* PARALLEL_BEGIN: asked for (0 default); PARALLEL_END, ITASK_BEGIN:
			      the team's size */
	uint32_t level;	   /* PARALLEL_BEGIN: the nesting level of the encountering thread */
	int64_t begin_ns;  /* WORK: when the thread entered the construct */
	uint64_t chunks, iterations; /* WORK */
};

struct event {
	enum ev_kind kind;
	int64_t ns;
	uint64_t offset; /* byte offset in its file (errors, dump); 0 when none */
	const struct ev_location *loc;
	/* the record as read, for consumers that show records (dump): every record of a file
	 * comes as one event with it. NULL from OTF2, for the exits a source makes up, and for
	 * calls handed in batches (ev_consumer.events) */
	const struct stream_record *raw;
	union {
		struct ev_call call;
		struct ev_region region;
		struct ev_counters counters;
		struct ev_mpi mpi;
		struct ev_mpi_init mpi_init;
		struct ev_mpi_comm mpi_comm;
		struct ev_mpi_clock mpi_clock;
		struct ev_sample sample;
		struct ev_switch sw;
		struct ev_task task;
		struct ev_lost lost;
		struct ev_omp omp;
		const char *text;
	};
};

#endif /* PSC_MODEL_EVENT_H */
