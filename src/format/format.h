/*
 * format.h - the experiment directory's binary stream layout, format v1, streams v2
 * (docs/format.md).
 *
 * A stream file holds one thread's records: a 64-byte header, then chunks. Each chunk is a
 * 16-byte chunk header followed by whole records; a reader trusts a chunk only when all of its
 * bytes are present, which is how the valid end of a stream cut by SIGKILL is found.
 *
 * Every record is a sequence of little-endian 64-bit words. Word 0 holds the timestamp in
 * ticks shifted left by 2 and a 2-bit kind. Function enter/exit records are 16 bytes (word 1 is
 * the function address); extended records carry a type, their length in words and a 32-bit
 * argument in word 1, then a payload.
 */
#ifndef PSC_FORMAT_H
#define PSC_FORMAT_H

#include <stdint.h>

#define PSC_FORMAT_VERSION 1 /* of the experiment: meta.json and proc.<pid>.json */

/*
 * Stream files: version 2 adds compressed chunks, version 3 (samples files only) kernel frames
 * counted in call chains, version 4 (the runtime's streams) unwind records, the "unclosed" end
 * reason and region ids up to 2^20. Readers read versions 1 to PSC_STREAM_VERSION.
 */
#define PSC_STREAM_VERSION	   4
#define PSC_STREAM_VERSION_MIN	   1
#define PSC_STREAM_VERSION_TRACE   4 /* what the runtime writes */
#define PSC_STREAM_VERSION_SAMPLES 3 /* what the launcher writes (samples.<pid>) */

#define PSC_STREAM_MAGIC    "PSCSTRM1"	/* 8 bytes, no NUL */
#define PSC_CHUNK_MAGIC	    0x4b435350u /* "PSCK" little-endian */
#define PSC_CHUNK_MAGIC_LZ4 0x5a435350u /* "PSCZ": an LZ4-compressed chunk (version 2) */

/* Stream file header: fixed 64 bytes. */
struct psc_stream_header {
	char magic[8];
	uint32_t version;     /* PSC_STREAM_VERSION_TRACE or _SAMPLES */
	uint32_t header_size; /* sizeof(struct psc_stream_header) */
	uint64_t features;    /* PSC_FEAT_* */
	uint32_t pid;
	uint32_t tid;
	int32_t rank;	       /* MPI world rank, -1 outside MPI */
	uint32_t clock_source; /* enum clock_source */
	uint64_t start_ticks;  /* the process's start clock pair */
	uint64_t start_ns;
	uint32_t nevents; /* configured events, in the order of the process's event list */
	uint32_t image;	  /* program images of this pid before this one (exec count) */
};

_Static_assert(sizeof(struct psc_stream_header) == 64, "stream header is 64 bytes");

#define PSC_FEAT_REGIONS   0x1u
#define PSC_FEAT_FUNCTIONS 0x2u
#define PSC_FEAT_COUNTERS  0x4u
#define PSC_FEAT_SAMPLES   0x8u /* a samples file written by the launcher (samples.<pid>) */
/* with PSC_FEAT_SAMPLES: the file has every sampled thread's switch records */
#define PSC_FEAT_SWITCHES 0x10u

struct psc_chunk_header {
	uint32_t magic; /* PSC_CHUNK_MAGIC */
	uint32_t size;	/* payload bytes that follow, a multiple of 8 */
	uint64_t seq;	/* 0, 1, 2, ... within the stream */
};

/*
 * A compressed chunk (magic PSC_CHUNK_MAGIC_LZ4, docs/format.md "Compressed chunks"): after
 * the chunk header, the chunk's first record (its clock-sync record, 3 words) as it is, then
 * this word, then an LZ4 block of CSIZE bytes holding the RAW bytes of the other records,
 * zero-padded to 8 bytes. The header's size counts all of it.
 */
#define PSC_ZCHUNK_HEAD_WORDS 3 /* records kept uncompressed at the start */

static inline uint64_t psc_zchunk_word(uint32_t raw, uint32_t csize)
{
	return (uint64_t)raw | ((uint64_t)csize << 32);
}

/* Record kinds, in the low 2 bits of word 0. */
enum psc_kind {
	PSC_KIND_FUNC_ENTER = 0,
	PSC_KIND_FUNC_EXIT = 1,
	PSC_KIND_EXT = 2,
	PSC_KIND_RESERVED = 3,
};

/*
 * Extended record types (word 1 bits 0-15). Word 1 bits 16-31: total length in 64-bit words
 * including the two header words; bits 32-63: a type-specific argument.
 */
enum psc_rec_type {
	/* arg = region id; payload: the name, NUL-terminated, zero-padded to 8 bytes. Written
	 * once per stream before the id's first use in that stream. */
	PSC_REC_REGION_DEF = 1,
	/* arg = region id; payload: a counter snapshot (may be empty). */
	PSC_REC_REGION_ENTER = 2,
	PSC_REC_REGION_LEAVE = 3,
	/* word 0 ticks; payload: u64 CLOCK_MONOTONIC ns read at the same instant. */
	PSC_REC_CLOCK_SYNC = 4,
	/* arg = number of events; payload: per event one u32 group index (or PSC_NO_GROUP) and
	 * one i32 status (0 counting, else a negative errno from perf_event_open), padded to 8.
	 * Written once, when the thread opens its counters; fixes the snapshot layout. */
	PSC_REC_COUNTERS = 5,
	/* arg = 0; payload: u64 records lost, u64 bytes lost (buffer or write failures). In
	 * samples files arg PSC_LOST_UNWRITTEN: payload u64 records the launcher could not write,
	 * u64 0. */
	PSC_REC_LOST = 6,
	/* arg = enum psc_end_reason: the stream ended cleanly. */
	PSC_REC_STREAM_END = 7,
	/* arg = 0; payload: the thread name, NUL-terminated, padded. */
	PSC_REC_THREAD_NAME = 8,
	/*
	 * Samples files only. arg = group index; payload: one word per member, the index of its
	 * event in meta.json's sampling.events (the leader first). Precedes the group's samples.
	 */
	PSC_REC_SAMPLE_GROUP = 9,
	/*
	 * arg = group index; payload: pid | tid << 32; the instruction pointer; cpu (bits 0-15) |
	 * PSC_SAMPLE_* flags (bits 16-31) | call chain length << 32; the group's values as the
	 * kernel counts them for this thread on this cpu since it started (nr, time_enabled,
	 * time_running, nr values); then the call chain's return addresses, innermost first.
	 */
	PSC_REC_SAMPLE = 10,
	/*
	 * arg = enum psc_task_event; payload: pid | tid << 32, then for FORK and EXIT the parent's
	 * ppid | ptid << 32, for COMM and EXEC the thread's new name, NUL-terminated, padded.
	 */
	PSC_REC_TASK = 11,
	/* arg = 1 throttled, 0 unthrottled; payload: pid | tid << 32 of the sampled thread. */
	PSC_REC_THROTTLE = 12,
	/*
	 * arg = number of sampled events; payload: per event its exact count over the whole run
	 * (all threads and processes), time_enabled and time_running; a count of all ones for an
	 * event that was not counted. Written once, after the command ended.
	 */
	PSC_REC_SAMPLE_TOTALS = 13,
	/*
	 * MPI (libperfscope-mpi.so, docs/format.md "MPI records"). MPI_INIT: arg = world rank;
	 * payload: world size, the thread level MPI provided (low 32 bits) | the MPI record
	 * version << 32 (PSC_MPI_RECORD_VERSION; 0 means version 1). Written by the thread that
	 * called MPI_Init(_thread), after it returned.
	 */
	PSC_REC_MPI_INIT = 14,
	/* arg = routine id (src/format/mpi-routines.h); no payload. */
	PSC_REC_MPI_ENTER = 15,
	/* arg = routine id; payload: the call site (return address of the MPI call), then zero
	 * or more 4-word items (PSC_MPI_ITEM_*) for the messages and collectives of the call. */
	PSC_REC_MPI_LEAVE = 16,
	/*
	 * arg = the communicator's index in this process (0 MPI_COMM_WORLD, 1 MPI_COMM_SELF,
	 * then in creation order); payload: its key, the same in every member (seq << 32 | the
	 * lowest member's world rank), its size, then the world rank of each member in
	 * communicator rank order as i32 pairs, padded. Written before the index's first use.
	 */
	PSC_REC_MPI_COMM = 17,
	/*
	 * arg = PSC_MPI_CLOCK_INIT or _FINALIZE; payload: this rank's CLOCK_MONOTONIC ns when
	 * it was measured (i64), the offset to add to it for rank 0's clock (i64), the round
	 * trip of the best ping-pong (ns). Rank 0 has offset 0.
	 */
	PSC_REC_MPI_CLOCK = 18,
	/*
	 * Samples files with PSC_FEAT_SWITCHES. arg = cpu (bits 0-15) | PSC_SWITCH_* (bits
	 * 16-31); payload: pid | tid << 32 of the thread the kernel put on or took off that cpu.
	 */
	PSC_REC_SWITCH = 19,
	/*
	 * arg = N: the N innermost open calls of the thread were left without their exits (a
	 * longjmp, or an exception through code that runs no exit hook): their exit records
	 * follow, innermost first, timed when the runtime saw the jump. No payload.
	 */
	PSC_REC_UNWIND = 20,
	/*
	 * OpenMP (docs/format.md "OpenMP records"), from libgomp's entry points or libomp's OMPT
	 * interface; ids are unique in their process and never 0. PARALLEL_BEGIN, by the thread
	 * that encounters the construct: arg = team size asked for (0 the default); payload: the
	 * parallel id, the call site (return address of the runtime call the compiler made), the
	 * outlined function's address, the encountering thread's nesting level (1 outermost).
	 */
	PSC_REC_OMP_PARALLEL_BEGIN = 21,
	/* by the same thread, when the construct returned: arg = the team's size; payload: the
	 * parallel id */
	PSC_REC_OMP_PARALLEL_END = 22,
	/* a thread's implicit task of a parallel region starts, in that thread's stream: arg =
	 * its thread number in the team; payload: the parallel id, the team's size */
	PSC_REC_OMP_ITASK_BEGIN = 23,
	/* it ends: the thread arrived at the region's closing barrier (libgomp: its outlined
	 * function returned), or, with OMPT, left it (its barrier records come before); arg =
	 * thread number; payload: the parallel id */
	PSC_REC_OMP_ITASK_END = 24,
	/* the thread starts waiting (a barrier, for a lock or critical section, ...): arg = enum
	 * psc_omp_sync; payload: the call site, the object waited for (lock address, critical
	 * name's address; 0 none) */
	PSC_REC_OMP_SYNC_ENTER = 25,
	/* it stops waiting (has the lock, left the barrier): arg = enum psc_omp_sync; no payload */
	PSC_REC_OMP_SYNC_LEAVE = 26,
	/* the thread's part of one worksharing construct, written when it leaves it: arg = enum
	 * psc_omp_work; payload: the call site, ticks when the thread entered it, chunks it got,
	 * iterations (loops; 0 unknown) */
	PSC_REC_OMP_WORK = 27,
	/* an explicit task is created: arg = 0; payload: the task id, the call site */
	PSC_REC_OMP_TASK_CREATE = 28,
	/* a thread starts or resumes it: arg = 0; payload: the task id */
	PSC_REC_OMP_TASK_BEGIN = 29,
	/* it completes (or is suspended, arg 1): payload: the task id */
	PSC_REC_OMP_TASK_END = 30,
};

/* What an OpenMP thread waits for (PSC_REC_OMP_SYNC_*). */
enum psc_omp_sync {
	PSC_OMP_SYNC_BARRIER_IMPLICIT = 1, /* the closing barrier of a parallel region */
	PSC_OMP_SYNC_BARRIER_EXPLICIT = 2, /* #pragma omp barrier */
	PSC_OMP_SYNC_BARRIER_WORK = 3,	   /* the closing barrier of a for, sections, single */
	PSC_OMP_SYNC_CRITICAL = 4,	   /* entering a critical section */
	PSC_OMP_SYNC_LOCK = 5,		   /* omp_set_lock, omp_set_nest_lock */
	PSC_OMP_SYNC_ORDERED = 6,
	PSC_OMP_SYNC_ATOMIC = 7, /* an atomic done under a runtime lock */
	PSC_OMP_SYNC_TASKWAIT = 8,
	PSC_OMP_SYNC_TASKGROUP = 9,
	PSC_OMP_SYNC_REDUCTION = 10,
};

/* A worksharing construct (PSC_REC_OMP_WORK). */
enum psc_omp_work {
	PSC_OMP_WORK_LOOP_STATIC = 1,
	PSC_OMP_WORK_LOOP_DYNAMIC = 2,
	PSC_OMP_WORK_LOOP_GUIDED = 3,
	PSC_OMP_WORK_LOOP_RUNTIME = 4, /* schedule(runtime) or auto, as the runtime chose */
	PSC_OMP_WORK_SECTIONS = 5,
	PSC_OMP_WORK_SINGLE = 6, /* chunks: 1 for the thread that ran it, else 0 */
	PSC_OMP_WORK_OTHER = 7,	 /* a loop whose schedule is not known */
};

/* A worksharing record's chunks or iterations that the OpenMP runtime does not tell (LLVM's
 * libomp: the iterations, and the chunks before its dispatch callback). Streams before this
 * value was written have 0 there. */
#define PSC_OMP_NOT_COUNTED UINT64_MAX

/* The 4-word items of PSC_REC_MPI_LEAVE. Word 0: kind (bits 0-7) | PSC_MPI_F_* (bits 8-15) |
 * communicator index (bits 32-63). Words 1-3 by kind below; ranks are world ranks. */
enum psc_mpi_item {
	/* a message sent by this call (blocking send, or the send half of Sendrecv): w1 peer
	 * (i32, low) | tag (i32, high); w2 bytes; w3 0 */
	PSC_MPI_ITEM_SEND = 1,
	/* a message received and completed by this call: w1 source | tag from the status; w2
	 * bytes from the status; w3 the request id of the Irecv it completes, 0 for Recv */
	PSC_MPI_ITEM_RECV = 2,
	/* a non-blocking send started (Isend, Start of a persistent send): w1 peer | tag; w2
	 * bytes; w3 request id (unique in the process, never 0) */
	PSC_MPI_ITEM_ISEND = 3,
	/* a receive posted (Irecv, Start of a persistent receive): w1 source (PSC_MPI_ANY for
	 * MPI_ANY_SOURCE) | tag (PSC_MPI_ANY for MPI_ANY_TAG); w2 bytes of the buffer; w3 id */
	PSC_MPI_ITEM_IRECV = 4,
	/* a send request completed by this call (Wait/Test family): w3 its request id */
	PSC_MPI_ITEM_ISEND_DONE = 5,
	/* a collective operation: w1 root world rank (i32, PSC_MPI_ANY when unrooted); w2 bytes
	 * this rank sent; w3 bytes it received */
	PSC_MPI_ITEM_COLL = 6,
	/* a request whose cancellation MPI confirmed (in the call that completed it), or, with
	 * PSC_MPI_F_FREED, one freed by MPI_Request_free before it completed: w3 its id */
	PSC_MPI_ITEM_CANCEL = 7,
	/* the request of a non-blocking collective (Iallreduce, Ibarrier, ...): in the call that
	 * started it, after its COLL item, and in the call that completed it (Wait/Test family);
	 * w1 PSC_MPI_ANY | 0; w3 its request id */
	PSC_MPI_ITEM_COLL_REQ = 8,
};

/* Version of the MPI records' meaning (docs/format.md "MPI records", versions). 3: COLL_REQ
 * items tie non-blocking collectives to their completion (a reader of version 2 stops at the
 * init record instead of taking kind 8 for damage); 2: a CANCEL item without PSC_MPI_F_FREED
 * is a cancellation MPI confirmed; 1: MPI_Cancel's own CANCEL item only asked for one. */
#define PSC_MPI_RECORD_VERSION 3
#define PSC_MPI_ITEM_WORDS     4
#define PSC_MPI_ANY	       (-1) /* MPI_ANY_SOURCE, MPI_ANY_TAG, no root */
#define PSC_MPI_F_SYNC	       0x1u /* synchronous send (Ssend, Issend): completes only when matched */
#define PSC_MPI_F_FREED	       0x2u /* CANCEL: freed, not cancelled (a send's message still goes) */

enum psc_mpi_clock_phase {
	PSC_MPI_CLOCK_INIT = 0,
	PSC_MPI_CLOCK_FINALIZE = 1,
};

static inline uint64_t psc_mpi_item_word0(enum psc_mpi_item kind, unsigned flags, uint32_t comm)
{
	return (uint64_t)kind | ((uint64_t)(flags & 0xffu) << 8) | ((uint64_t)comm << 32);
}

static inline uint64_t psc_mpi_pack2(int32_t lo, int32_t hi)
{
	return (uint64_t)(uint32_t)lo | ((uint64_t)(uint32_t)hi << 32);
}

#define PSC_SAMPLE_KERNEL 0x1u /* the sample's IP is in the kernel */
/* word 2 of a sample, bits 24-31: how many of the call chain's first entries are kernel frames */
#define PSC_SAMPLE_KFRAMES_SHIFT 24
#define PSC_SAMPLE_KFRAMES_MAX	 255u

/* PSC_REC_SWITCH flags: switched out (else in); switched out while still runnable */
#define PSC_SWITCH_OUT	   0x1u
#define PSC_SWITCH_PREEMPT 0x2u

enum psc_task_event {
	PSC_TASK_FORK = 1, /* a new thread (tid != pid) or process (tid == pid) */
	PSC_TASK_EXIT = 2,
	PSC_TASK_COMM = 3, /* the thread renamed itself */
	PSC_TASK_EXEC = 4, /* the process replaced its image; later samples of pid are image + 1 */
};

/* PSC_REC_LOST arg in a samples file: the records were drained but could not be written (a
 * full disk); arg 0: the kernel lost them (a ring buffer was full) */
#define PSC_LOST_UNWRITTEN 1u

#define PSC_NO_GROUP 0xffffffffu

/* Region ids are below this (the runtime interns at most this many names, the last one
 * standing for every name past the others); a reader rejects larger ones, so that a corrupt
 * id cannot make it size tables by it. */
#define PSC_REGION_ID_MAX (1u << 20)

enum psc_end_reason {
	PSC_END_EXIT = 1,	 /* process exit (atexit / destructor) */
	PSC_END_THREAD_EXIT = 2, /* pthread exit */
	PSC_END_EXEC = 3,	 /* the process called exec */
	PSC_END_SIGNAL = 4,	 /* a fatal signal; arg high bits hold the signal number */
	/* written by a salvager (src/format/salvage.c), not the runtime: the process ended
	 * without closing the stream (SIGKILL, _exit, a crash the runtime could not see), and its
	 * last records were taken from its live buffer file */
	PSC_END_UNCLOSED = 5,
};

/*
 * Live buffer files, live.<pid>.<image>.<slot> (docs/format.md "Live buffers"): the runtime
 * maps each one shared into the process. It holds this header, the runtime's state of one
 * recording thread (at THREAD_OFF) and that thread's two chunk buffers (at BUF_OFF), so that
 * what a thread recorded outlives the process, however the process ends. A process that ends
 * normally closes its streams and removes its live files; what a killed one leaves is appended
 * to its streams by a salvager, which reads the thread state's fields at the offsets below
 * (pointers are the process's addresses: BASE is where the file was mapped).
 */
#define PSC_LIVE_MAGIC	 "PSCLIVE1" /* 8 bytes, no NUL */
#define PSC_LIVE_VERSION 1

enum psc_live_state {
	PSC_LIVE_FREE = 0,	/* no thread records into it (kept for the next thread) */
	PSC_LIVE_RECORDING = 1, /* a thread records into it: its stream is not closed yet */
	PSC_LIVE_CLOSED = 2,	/* its thread's stream was closed: nothing to salvage */
};

struct psc_live_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size; /* sizeof(struct psc_live_header) */
	uint32_t state;	      /* enum psc_live_state */
	uint32_t pid;
	uint32_t image;
	uint32_t slot;
	uint64_t start_time; /* the process's start time, field 22 of /proc/<pid>/stat */
	char boot_id[40];    /* /proc/sys/kernel/random/boot_id of its kernel, NUL-terminated */
	char host[64];	     /* its host name, NUL-terminated (cut) */
	uint64_t base;	     /* the file's address in the process */
	uint64_t file_bytes;
	uint64_t chunk_bytes;
	uint64_t buf_off[2];
	uint64_t thread_off;
	/*
	 * Fields of the thread state, as offsets from THREAD_OFF: the next free word of the chunk
	 * being filled (u64 address); that chunk (address of its chunk header); a chunk sealed and
	 * handed to the writer thread (address, 0 none); whether it is still to be written (i32:
	 * 0 no, else yes); the next chunk's seq (u64); whether the stream file has its header
	 * (i32); whether the stream was closed (i32); whether writing had failed (i32, then
	 * chunks were dropped); records and bytes lost so far (u64 each).
	 */
	uint32_t off_pos, off_buf, off_out, off_out_state, off_seq, off_header_written;
	uint32_t off_closed, off_discard, off_lost_records, off_lost_bytes;
	struct psc_stream_header stream; /* the stream file's header, as the runtime writes it */
	char stream_name[64];		 /* the stream file's name in the directory */
};

/*
 * A counter snapshot is, for each counter group in order, the group's PERF_FORMAT_GROUP read
 * buffer: u64 nr, u64 time_enabled, u64 time_running, then nr u64 values (one per member in
 * the group's event order). perfscope reads the kernel's buffer directly into the record.
 */

#define PSC_REC_MAX_WORDS 0xffffu

static inline uint64_t psc_word0(uint64_t ticks, enum psc_kind kind)
{
	return (ticks << 2) | (uint64_t)kind;
}

static inline uint64_t psc_ext_word1(enum psc_rec_type type, uint32_t nwords, uint32_t arg)
{
	return (uint64_t)type | ((uint64_t)nwords << 16) | ((uint64_t)arg << 32);
}

static inline enum psc_kind psc_rec_kind(uint64_t w0)
{
	return (enum psc_kind)(w0 & 3u);
}

static inline uint64_t psc_rec_ticks(uint64_t w0)
{
	return w0 >> 2;
}

static inline enum psc_rec_type psc_rec_type(uint64_t w1)
{
	return (enum psc_rec_type)(w1 & 0xffffu);
}

static inline uint32_t psc_rec_nwords(uint64_t w1)
{
	return (uint32_t)((w1 >> 16) & 0xffffu);
}

static inline uint32_t psc_rec_arg(uint64_t w1)
{
	return (uint32_t)(w1 >> 32);
}

#endif /* PSC_FORMAT_H */
