/*
 * session.h - the runtime's state inside the measured process: one session, and one
 * psc_thread per thread that records. Only the runtime includes this.
 */
#ifndef PSC_RT_SESSION_H
#define PSC_RT_SESSION_H

#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/clock.h"
#include "lib/compiler.h"
#include "pmu/counters.h"
#include "pmu/events.h"
#include "format/format.h"

enum session_state {
	SESSION_OFF = 0, /* not recording (no PERFSCOPE_OUT, or given up) */
	SESSION_RECORDING = 1,
	SESSION_STOPPED = 2, /* process is exiting: threads flushed */
};

#define REGION_CACHE_SLOTS 64
#define REGION_PAGE_SHIFT  10
#define REGION_PAGES	   1024 /* up to 1 Mi region ids, pages allocated as names come */
#define REGION_MAX	   (REGION_PAGES << REGION_PAGE_SHIFT)
/* The last id: every name past the others' (REGION_MAX - 1 of them) is recorded under it. */
#define REGION_OVERFLOW_ID (REGION_MAX - 1)
_Static_assert(REGION_MAX <= PSC_REGION_ID_MAX, "region ids fit the format's bound");

/* States of a thread's handed-off chunk (psc_thread.out_state). */
enum out_state {
	OUT_NONE = 0,	 /* no chunk out: SPARE is free */
	OUT_QUEUED = 1,	 /* OUT waits for the writer */
	OUT_WRITING = 2, /* someone (the writer, or a closing thread) is writing OUT */
};

/*
 * Per-thread recording state, reached through a thread-local pointer without locks. Two
 * chunk buffers: the thread fills BUF while the writer thread writes the previous one
 * (OUT); the thread waits only when it fills BUF before OUT is written.
 *
 * The state and its buffers live in a slot (slots.c): a live buffer file of the experiment
 * mapped shared, headed by LIVE, so that what the thread committed survives the process
 * (format.h, struct psc_live_header, lists the fields a salvager reads). A slot whose thread
 * ended is taken by the next thread that starts.
 *
 * Layout: what a function hook reads and writes (pos, end, guard) shares the first cache line
 * with nothing that another thread writes; the hand-off fields the writer thread writes (out,
 * spare, out_state) start a line of their own, so that a hand-off or the writer's periodic
 * walk does not take the hot line away from the recording thread's core.
 */
/* An open call of a traced thread: the stack pointer where it called the enter hook (the
 * hook's canonical frame address), and the function. */
struct psc_frame {
	uintptr_t sp, fn;
};

struct psc_thread {
	uint64_t *pos; /* next free word; published with release stores */
	uint64_t *end; /* set to BUF when the stream closes, so every record takes the slow path */
	volatile int guard; /* re-entrancy: set while the runtime works on this thread */
	int closed;	    /* the stream has its end record; nothing more is written */
	uint64_t *buf;	    /* chunk: 2 words of chunk header, then records */
	/* the open calls (functions.c): FRAMES[0] stands below the outermost; FTOP is past the
	 * innermost, FEND past the last place */
	struct psc_frame *ftop, *frames, *fend;
	_Alignas(64) uint64_t *spare; /* the other buffer, NULL while it is out */
	uint64_t *out;		      /* a full chunk handed to the writer */
	int out_state;		      /* enum out_state, changed atomically */
	uint64_t seq;		      /* chunks sealed */
	pid_t pid, tid;
	int flushing; /* set (atomically) by whoever seals or closes this thread's chunk */
	int header_written;
	int discard;	     /* writing failed: chunks are dropped and counted, not written */
	int functions;	     /* function events were recorded (a header feature bit) */
	int counters_state;  /* 0 not opened yet, 1 open, -1 none */
	size_t record_words; /* words of a region record: 2 + the counter snapshot */
	struct counter_set counters;
	uint8_t *defined; /* bitmap: region ids defined in this stream */
	size_t defined_bytes;
	uint64_t lost_records; /* dropped by this thread: no room, or re-entered */
	uint64_t lost_bytes;   /* chunks dropped because writing failed */
	/* what closing the stream for exec wrote, so that a failed exec takes it back */
	int resumable;	   /* set by an exec close that wrote its chunk; changed atomically */
	int exec_closed;   /* this stream was ended by an exec close (resumable or not) */
	int undo_header;   /* header_written before that close */
	uint64_t undo_seq; /* seq before that close */
	off_t undo_size;   /* the stream file's size before that close */
	struct {
		const char *key;  /* the caller's pointer */
		const char *text; /* the interned name, compared with the caller's text */
		int id;
	} cache[REGION_CACHE_SLOTS];
	struct psc_thread *next; /* session's list: pushed under session.lock, read lock-free */
	struct psc_live_header *live;  /* the slot's header, at the start of its mapping */
	size_t map_bytes;	       /* the slot's mapping */
	unsigned slot;		       /* its number: live.<pid>.<image>.<slot> */
	int file_backed;	       /* 0: anonymous memory (no file could be made) */
	int populate;		       /* new: the writer faults its buffers in (slots.c) */
	struct psc_thread *free_next;  /* the session's free slots, under session.lock */
	uint64_t fover;		       /* open calls past FEND, not kept */
	struct psc_frame fdeep;	       /* the last place's call while FOVER (functions.c) */
	struct psc_frame no_frames[2]; /* FRAMES when no memory could be had for them */
};

struct psc_filter;

/* Bump allocation of strings that live as long as the process (rtmem.c). */
#define RT_ARENA_BLOCK (64u << 10)
struct rt_arena {
	char *next;
	size_t left;
};

/* Text grown in the runtime's own memory (rtmem.c, rt_text_add). */
struct rt_text {
	char *p;
	size_t len, cap;
};

struct psc_session {
	/* read by every function hook: kept together at the start, in one cache line */
	_Alignas(64) const struct psc_filter *filter; /* functions to record; NULL records all */
	enum clock_source clock;
	int state;
	pid_t pid;
	unsigned image; /* program images of this pid before this one (exec count) */
	char dir[PATH_MAX];
	dev_t dir_dev; /* the directory trusted at start (files.c): every open checks it */
	ino_t dir_ino;
	struct clock_pair start_pair;
	uint64_t start_unix_ns;
	size_t chunk_bytes;
	enum psc_compress { PSC_COMPRESS_AUTO, PSC_COMPRESS_ALWAYS, PSC_COMPRESS_NEVER } compress;
	struct event_desc *events; /* configured for region boundaries */
	size_t nevents;
	int paranoid;
	int have_core_pmu;
	pthread_mutex_t lock; /* region table, thread list, per-process file */
	pthread_key_t key;
	struct psc_thread *threads;
	char **region_pages[REGION_PAGES];
	int nregions;
	uint32_t *region_index; /* open-addressing hash: id + 1, 0 = empty */
	size_t region_index_cap;
	struct psc_filter *filter_spec; /* the filter file's entries */
	char filter_path[PATH_MAX];
	unsigned long long objects_seen[2]; /* dlpi_adds, dlpi_subs when the maps were written */
	unsigned writer_kick;		    /* futex word: bumped at every hand-off */
	pid_t writer_pid;		    /* process whose writer thread runs; 0 none */
	int writer_failed;		    /* no writer thread: threads write their own chunks */
	uint64_t lost_records;		    /* from streams whose last chunk could not be written */
	uint64_t lost_threads;		    /* threads that could not record at all */
	uint64_t regions_folded;	    /* boundaries recorded under REGION_OVERFLOW_ID */
	uint64_t region_names_cut;	    /* names longer than REGION_NAME_MAX, cut */
	uint64_t lost_bytes;		    /* from streams whose last chunk could not be written */
	char error[256];		    /* why recording stopped, "" if it did not */
	int rank;			    /* MPI world rank (psc_rt_set_rank), -1 outside MPI */
	int world_size;			    /* MPI world size, 0 outside MPI */
	struct rt_arena names;		    /* region names, under lock */
	struct psc_thread *free_slots;	    /* slots whose thread ended, under lock */
	unsigned nslots;		    /* slots made in this process image */
	unsigned memory_slots;		    /* of which in anonymous memory (not kill-safe) */
	int live_files;			    /* the directory's file system takes live files */
	uint64_t start_time;		    /* field 22 of /proc/self/stat */
	/* the "# object" lines of the loaded objects, and their dlpi_adds and dlpi_subs
	 * (maps.c, session_objects_render) */
	struct rt_text objects;
	unsigned long long objects_text_counts[2];
	int fork_locked; /* a fork() holds lock (session.c, before_fork) */
	/* taken by before_fork from the thread that forks, for the child: its slot, and its open
	 * calls (a stack of FORK_BYTES bytes, private memory) that frames_after_fork enters */
	struct psc_thread *fork_self;
	struct psc_frame *fork_frames;
	size_t fork_bytes;
	uint32_t fork_open;
	char boot_id[40];
	char host[64];
	char self_path[PATH_MAX]; /* this library's file */
	char **carry;		  /* what a child's environment needs (process.c, env_carry) */
	size_t ncarry;
	/* the C library's longjmp, _longjmp, siglongjmp, __longjmp_chk (functions.c) */
	void (*longjmp_real[4])(struct __jmp_buf_tag *, int);
	int jmpbuf_ok; /* a jmp_buf's stack pointer can be read (functions.c, jmpbuf_sp) */
	/* the C++ personality routine and the unwinder's _Unwind_GetRegionStart, found at the
	 * first exception (functions.c, __gxx_personality_v0) */
	void *personality_real;
	void *unwind_region_start;
};

extern struct psc_session psc_session;

/* Zeroed memory of SIZE bytes from mmap (rtmem.c), never the program's allocator; NULL. */
void *rt_alloc(size_t size);
/* Free what rt_alloc returned, with the SIZE asked for (NULL is fine). */
void rt_free(void *p, size_t size);
/* A copy of the LEN bytes at S and a NUL, kept for the life of the process (region names);
 * NULL. The caller holds session.lock. */
char *rt_strndup(const char *s, size_t len);
/* Append the LEN bytes at S to T, growing it in rt_alloc memory: 0, or -ENOMEM (T unchanged). */
int rt_text_add(struct rt_text *t, const char *s, size_t len);

/* Slots (slots.c): where each recording thread's state and buffers live. */
/* At session start: what slots are made of here (the file system), and this process's
 * identity for a salvager (start time, boot id, host). */
void slots_init(void);
/* A slot for the calling thread, free or new (its state not started yet); NULL when neither
 * a file nor memory could be had. */
struct psc_thread *slot_acquire(void);
/* T's thread ended and its stream is closed: T is free for the next thread. */
void slot_release(struct psc_thread *t);
/* The writer thread: fault a new slot's buffers in, so that its thread takes fewer faults. */
void slot_populate(struct psc_thread *t);
/* In a forked child: unmap the parent's slots (never storing into them). */
void slots_forget(void);
/* At exit, streams closed: remove the live files of slots with nothing left to salvage. */
void slots_remove(void);
/* At start of image N > 0 of a pid: remove the live files image IMAGE left behind when it
 * exec'd (their streams closed). */
void slots_remove_image(unsigned image);

/* Look up the C library's longjmp functions and check that a jmp_buf's stack pointer can be
 * read (functions.c): at load, recording or not, since the wrappers always run. */
void jumps_init(void);

/* Give T's thread its stack of open calls, empty (functions.c): a new slot's is reserved. */
void frames_init(struct psc_thread *t);

/* In a forked child, on the thread that forked: start its stream now and enter in it the calls
 * it had open at the fork (fork_frames), as the child returns from them too (functions.c). */
void frames_after_fork(void);

/* Fill T's live header's copy of its stream header from the session and T: what the stream
 * file begins with (a salvager writes it when the thread never wrote a chunk). */
void thread_stream_header(struct psc_thread *t);

/*
 * Files of the experiment directory (files.c). The directory must be a directory of the
 * effective user that nobody else can write to (or sticky), and stay the same inode; files
 * are opened relative to it, never through a symbolic link, and an existing file must be a
 * plain file of ours with one link. Negative errnos; -EPERM when a check fails.
 */
/* Trust DIR (an absolute path without symbolic links) as the session's directory. */
int rt_dir_trust(const char *dir);
/* openat() of NAME in the session's directory with FLAGS | O_NOFOLLOW | O_CLOEXEC: a
 * descriptor, or a negative errno. Create files with O_CREAT | O_EXCL. */
int rt_open(const char *name, int flags, mode_t mode);
int rt_unlink(const char *name);
/* Rename FROM to TO in the session's directory; EXCLUSIVE: link instead, failing with
 * -EEXIST when TO exists (FROM stays: the caller unlinks it). */
int rt_rename(const char *from, const char *to, int exclusive);
/* write() all of DATA, again after EINTR and short writes. 0 or a negative errno. */
int rt_write_all(int fd, const void *data, size_t len);

/* Called by the library constructor: reads the environment and starts recording. */
void session_start(void);

/* Flush every thread and write the per-process file; called at exit. */
void session_finish(void);

/* Record that recording failed and stop (the program goes on). Takes the lock. */
void session_fail(const char *what, int err);

/* Interned name of region ID (stable pointer), or NULL. */
const char *session_region_name(int id);

/* Rewrite proc.<pid>.json with STATE ("running", "exec", "exited"). */
void session_write_proc(const char *state);

/* Append the memory map when objects were loaded since the last look (dlopen), and place the
 * filter's functions in them. Called by the writer thread and at exit. */
void session_check_objects(void);

/* Append the memory map after a dlclose that unloaded objects (process.c's dlclose). */
void session_after_dlclose(void);

/* Objects loaded and unloaded so far (maps.c): the dlpi_adds and dlpi_subs of the first object,
 * into COUNTS. */
void session_objects_loaded(unsigned long long counts[2]);

/*
 * The "# object" lines of the objects loaded now, into psc_session.objects, rendered again
 * only when objects were loaded or unloaded since. The caller holds session.lock, or runs
 * alone. Never in a forked child: another thread of the parent may have held the loader's
 * lock, which dl_iterate_phdr takes, when it forked; before_fork renders them for the child.
 */
void session_objects_render(void);

/*
 * maps.<pid>[.<image>]: the memory map, so addresses can be symbolised afterwards, and the
 * loaded objects' identities (session_objects_render, done by the caller). The first snapshot
 * creates the file; later ones (HEADER: after a dlopen, after a dlclose) are appended after a
 * line "# HEADER TICKS" taken before the map is read (docs/format.md "Memory maps").
 */
void session_maps_write(const char *header);

/* Keep what a child's environment needs to be recorded too (this process's PERFSCOPE_*
 * variables, the LD_PRELOAD that loaded this runtime): the exec and posix_spawn wrappers add
 * it to an environment that lacks it. */
void exec_env_save(void);

/* Install the handlers of fatal signals that write every stream before the default action. */
void process_signals_init(void);

/* Intern NAME of LEN bytes: its id, or a negative errno. Takes the lock. */
int session_region_intern(const char *name, size_t len);

/* The calling thread's state; NULL until it first records. Hidden, initial-exec TLS: one
 * load from the thread pointer. */
extern __thread struct psc_thread *psc_tls_thread
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/*
 * Why the calling thread records nothing although it has no state yet (0: it may record):
 * RT_QUIET_RUNTIME while the runtime works for it before it has state, and in the runtime's
 * own threads, so that a hook entered from a function the runtime calls (a program may define
 * and instrument malloc, write, open ...) returns at once; RT_QUIET_ENDED once its exit
 * destructor has given its slot away.
 */
extern __thread int psc_tls_quiet __attribute__((tls_model("initial-exec"), visibility("hidden")));
enum { RT_QUIET_RUNTIME = 1, RT_QUIET_ENDED = 2 };

/* Slow path of thread_get: create the calling thread's state. NULL when not recording. */
struct psc_thread *thread_get_slow(void);

/* The calling thread's state, created on first use; NULL when not recording. */
static inline struct psc_thread *thread_get(void)
{
	struct psc_thread *t = psc_tls_thread;

	if (likely(t != NULL))
		return likely(!t->closed) ? t : NULL;
	return thread_get_slow();
}

/* A record of the calling thread dropped because its stream is closed (an exec under way on
 * another thread): counted, so that the stream's next end says so. */
static inline void thread_count_closed_drop(void)
{
	struct psc_thread *t = psc_tls_thread;

	if (t && __atomic_load_n(&t->closed, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&t->lost_records, 1, __ATOMIC_RELAXED);
}

/* Seal the current chunk and hand it to the writer (or write it when there is no writer);
 * with WAIT, return only once it is written (or, T->discard set, dropped and counted). 0, or
 * -EBUSY / -EPIPE when T is being closed or is closed. */
int thread_flush(struct psc_thread *t, int wait);

/* Write T's pending records and an end record (reason); T writes nothing afterwards. Safe
 * from another thread and from a signal handler. 0, or -EBUSY when someone is sealing or
 * closing T's chunk right now. */
int thread_close(struct psc_thread *t, unsigned reason);

/* thread_close(), waiting (up to a second) while another thread seals T's chunk. */
void thread_close_wait(struct psc_thread *t, unsigned reason);

/* After a failed exec: take back what thread_close(T, PSC_END_EXEC) wrote (the file is cut
 * back to its size before it) and let T record on into the same stream, so that nothing
 * recorded before or after the exec attempt is lost. 0 (also when T was not closed for exec,
 * or exited since), or a negative errno: T stays closed (-EIO: the exec close could not write
 * T's last chunk or learn its file's size). */
int thread_resume(struct psc_thread *t);

/* Write T's queued chunk now if nobody is writing it, else wait until it is written. */
void thread_drain(struct psc_thread *t);

/*
 * The writer thread's compression state (thread.c, chunk_compress), on its stack: its output
 * buffer, LZ4's state, and what compressing a KiB has cost it so far (ticks, a running
 * average; 0 not known yet). All zero to begin with; nobody else reads it.
 */
struct psc_zwriter {
	uint64_t *buf;
	size_t buf_words;
	void *lz4;
	double ticks_per_kib;
};

/* Write the chunk OUT of T that the caller claimed (OUT_WRITING), then free the slot. With Z
 * (the writer thread's), compressed when that is expected to end before T fills its buffer;
 * NULL: as it is. */
void thread_write_out(struct psc_thread *t, struct psc_zwriter *z);

/* Wake the writer thread, starting it on first use in this process. 0, or -1 when there is
 * no writer (the caller writes its chunk itself). */
int writer_kick(void);

/* Mark the start and end of runtime work on T, so a signal handler that lands in between and
 * runs instrumented code drops its records instead of tearing this one. */
static inline void thread_guard_enter(struct psc_thread *t)
{
	t->guard = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void thread_guard_leave(struct psc_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = 0;
}

/* In a forked child: forget the parent's thread state (the parent writes its buffer). */
void thread_after_fork(void);

/* Register the destructor that closes a thread's stream when the thread exits. */
void thread_destructor_init(void);

/* Make sure region ID is defined in T's stream. 0 or negative errno. */
int thread_define_region(struct psc_thread *t, int id);

/* Room for WORDS words in T's chunk, or NULL (record lost and counted). */
static inline uint64_t *thread_reserve(struct psc_thread *t, size_t words)
{
	if (unlikely(t->pos + words > t->end)) {
		if (thread_flush(t, 0) < 0 || t->pos + words > t->end) {
			t->lost_records++;
			return NULL;
		}
	}
	return t->pos;
}

/* Publish the record of WORDS words written at the reserved place. */
static inline void thread_commit(struct psc_thread *t, size_t words)
{
	__atomic_store_n(&t->pos, t->pos + words, __ATOMIC_RELEASE);
}

#endif /* PSC_RT_SESSION_H */
