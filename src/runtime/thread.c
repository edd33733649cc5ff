/* thread.c - per-thread buffers and the stream files they are written to, chunk by chunk. */
#include "runtime/session.h"

#include "format/format.h"
#include "format/layout.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <limits.h>
#include <linux/futex.h>
#include <lz4.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct psc_thread *psc_tls_thread;
__thread int psc_tls_quiet;

/* The name of T's stream file in the experiment directory. */
static void stream_name(const struct psc_thread *t, char *name, size_t len)
{
	struct layout_file f = {.kind = LAYOUT_STREAM,
				.pid = (int)t->pid,
				.tid = (int)t->tid,
				.image = psc_session.image};

	layout_name(&f, name, len);
}

/* Start the chunk in BUF: its header words, then a clock pair so every chunk calibrates. */
static void chunk_begin(struct psc_thread *t)
{
	struct clock_pair p = clock_pair_take(psc_session.clock);
	uint64_t *w = t->buf + 2;

	w[0] = psc_word0(p.ticks, PSC_KIND_EXT);
	w[1] = psc_ext_word1(PSC_REC_CLOCK_SYNC, 3, 0);
	w[2] = p.ns;
	t->end = t->buf + psc_session.chunk_bytes / sizeof(uint64_t);
	__atomic_store_n(&t->pos, w + 3, __ATOMIC_RELEASE);
}

/* Fill in the chunk header of CHUNK, whose records end at UPTO (plus NTAIL words after). */
static void chunk_seal(struct psc_thread *t, uint64_t *chunk, const uint64_t *upto, size_t ntail)
{
	struct psc_chunk_header *ch = (struct psc_chunk_header *)chunk;

	ch->magic = PSC_CHUNK_MAGIC;
	ch->size = (uint32_t)((size_t)(upto - (chunk + 2)) + ntail) * sizeof(uint64_t);
	ch->seq = t->seq++;
}

void thread_stream_header(struct psc_thread *t)
{
	struct psc_stream_header *h = &t->live->stream;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, PSC_STREAM_MAGIC, 8);
	h->version = PSC_STREAM_VERSION_TRACE;
	h->header_size = sizeof(*h);
	h->features = PSC_FEAT_REGIONS | (psc_session.nevents ? PSC_FEAT_COUNTERS : 0) |
		      (t->functions ? PSC_FEAT_FUNCTIONS : 0);
	h->pid = (uint32_t)t->pid;
	h->tid = (uint32_t)t->tid;
	h->rank = __atomic_load_n(&psc_session.rank, __ATOMIC_RELAXED);
	h->clock_source = psc_session.clock;
	h->start_ticks = psc_session.start_pair.ticks;
	h->start_ns = psc_session.start_pair.ns;
	h->nevents = (uint32_t)psc_session.nevents;
	h->image = psc_session.image;
}

/*
 * Append LEN bytes of DATA and NTAIL words of TAIL to the stream file (its header first, the
 * first time): open, write, close, so that no descriptor stays open in the program.
 * Async-signal-safe.
 */
static int stream_append(struct psc_thread *t, const void *data, size_t len, const uint64_t *tail,
			 size_t ntail)
{
	char name[64];
	int fd, ret = 0;

	stream_name(t, name, sizeof(name));
	/* created by the first write: a file of that name already there is not ours */
	fd = t->header_written ? rt_open(name, O_WRONLY | O_APPEND, 0)
			       : rt_open(name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fd;
	if (!t->header_written) {
		thread_stream_header(t);
		ret = rt_write_all(fd, &t->live->stream, sizeof(t->live->stream));
		if (ret == 0)
			t->header_written = 1;
	}
	if (ret == 0)
		ret = rt_write_all(fd, data, len);
	if (ret == 0 && ntail)
		ret = rt_write_all(fd, tail, ntail * sizeof(uint64_t));
	close(fd);
	return ret;
}

/* Append the sealed CHUNK (its header says how long) and NTAIL words of TAIL. */
static int chunk_write(struct psc_thread *t, const uint64_t *chunk, const uint64_t *tail,
		       size_t ntail)
{
	const struct psc_chunk_header *ch = (const struct psc_chunk_header *)chunk;
	size_t body = ch->size - ntail * sizeof(uint64_t);

	if (t->discard) {
		t->lost_bytes += sizeof(*ch) + ch->size;
		return 0;
	}
	return stream_append(t, chunk, sizeof(*ch) + body, tail, ntail);
}

static void pages_touch(void *p, size_t len);

/* Chunks with fewer records than this are written as they are. */
#define ZCHUNK_MIN_WORDS 256

/*
 * Whether compressing RAW bytes of CHUNK now is expected to end before T fills the buffer it is
 * recording into (it would wait for this writer otherwise). T's pace is the sealed chunk's:
 * its words over the time from its clock-sync record to the one that began T's current buffer
 * (written just after CHUNK was sealed; now, when T has not begun it yet). The cost is what
 * compressing a KiB has cost so far; every chunk left plain lowers that estimate a little, so
 * that one inflated measurement (a preempted writer) does not stop compression for good.
 */
static int compress_in_time(struct psc_zwriter *z, const struct psc_thread *t,
			    const uint64_t *chunk, size_t raw)
{
	const uint64_t *buf = t->buf, *pos = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);
	const uint64_t *end = buf + psc_session.chunk_bytes / sizeof(uint64_t);
	const struct psc_chunk_header *ch = (const struct psc_chunk_header *)chunk;
	uint64_t t0 = psc_rec_ticks(chunk[2]), t1;
	double pace, left;
	int in_time;

	if (psc_session.compress == PSC_COMPRESS_ALWAYS || z->ticks_per_kib == 0)
		return 1; /* asked for, or not measured yet */
	if (pos < buf + 5 || pos > end) {
		/* T is handing CHUNK over: all of its next buffer is ahead */
		t1 = clock_ticks(psc_session.clock);
		left = (double)(end - buf);
	} else {
		t1 = psc_rec_ticks(buf[2]);
		left = (double)(end - pos);
	}
	if (t1 <= t0)
		return 0;
	pace = (double)(t1 - t0) / (double)(ch->size / sizeof(uint64_t)); /* ticks per word */
	in_time = z->ticks_per_kib * (double)raw / 1024 * 1.25 < left * pace;
	if (!in_time)
		z->ticks_per_kib *= 0.98;
	return in_time;
}

/*
 * CHUNK compressed (docs/format.md "Compressed chunks") into Z's buffer, its length in *LEN;
 * NULL when it is small, does not start with its clock-sync record, would not be ready in
 * time, or does not shrink: then it is written as it is.
 */
static const void *chunk_compress(struct psc_zwriter *z, struct psc_thread *t,
				  const uint64_t *chunk, size_t *len)
{
	const struct psc_chunk_header *ch = (const struct psc_chunk_header *)chunk;
	const size_t head = PSC_ZCHUNK_HEAD_WORDS, words = ch->size / sizeof(uint64_t);
	struct psc_chunk_header *zh;
	size_t raw, cap;
	uint64_t t0, t1;
	int csize;

	if (psc_session.compress == PSC_COMPRESS_NEVER || words < head + ZCHUNK_MIN_WORDS ||
	    psc_rec_kind(chunk[2]) != PSC_KIND_EXT ||
	    psc_rec_type(chunk[3]) != PSC_REC_CLOCK_SYNC || psc_rec_nwords(chunk[3]) != head)
		return NULL;
	if (z->buf_words < words + 8) {
		rt_free(z->buf, z->buf_words * sizeof(uint64_t));
		z->buf = rt_alloc((words + 8) * sizeof(uint64_t));
		z->buf_words = z->buf ? words + 8 : 0;
		if (z->buf) /* its page faults now, not in the first measured compression */
			pages_touch(z->buf, z->buf_words * sizeof(uint64_t));
	}
	if (!z->lz4)
		z->lz4 = rt_alloc((size_t)LZ4_sizeofState());
	raw = (words - head) * sizeof(uint64_t);
	if (!z->buf || !z->lz4 || !compress_in_time(z, t, chunk, raw))
		return NULL;
	/* room for less than the raw records: a chunk that does not shrink fails fast */
	cap = raw - 64;
	t0 = clock_ticks(psc_session.clock);
	csize = LZ4_compress_fast_extState(z->lz4, (const char *)(chunk + 2 + head),
					   (char *)(z->buf + 3 + head), (int)raw, (int)cap, 1);
	t1 = clock_ticks(psc_session.clock);
	if (t1 > t0) {
		double cost = (double)(t1 - t0) * 1024 / (double)raw;

		z->ticks_per_kib =
		    z->ticks_per_kib == 0 ? cost : 0.75 * z->ticks_per_kib + 0.25 * cost;
	}
	if (csize <= 0)
		return NULL;
	memset((char *)(z->buf + 3 + head) + csize, 0, (8 - (size_t)csize % 8) % 8);
	memcpy(z->buf + 2, chunk + 2, head * sizeof(uint64_t));
	z->buf[2 + head] = psc_zchunk_word((uint32_t)raw, (uint32_t)csize);
	zh = (struct psc_chunk_header *)z->buf;
	zh->magic = PSC_CHUNK_MAGIC_LZ4;
	zh->size = (uint32_t)((head + 1) * sizeof(uint64_t) + ((size_t)csize + 7) / 8 * 8);
	zh->seq = ch->seq;
	*len = sizeof(*zh) + zh->size;
	return z->buf;
}

/* Writing failed (full disk, removed directory): the program goes on, this thread's records
 * are counted as lost from now on, and the experiment says why. */
static void chunk_write_failed(struct psc_thread *t, const uint64_t *chunk, int err)
{
	const struct psc_chunk_header *ch = (const struct psc_chunk_header *)chunk;

	t->discard = 1;
	t->lost_bytes += sizeof(*ch) + ch->size;
	session_fail("writing a stream chunk", -err);
}

static void futex_wait(int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void thread_write_out(struct psc_thread *t, struct psc_zwriter *z)
{
	const void *zchunk = NULL;
	size_t zlen = 0;
	int ret;

	if (z && !t->discard)
		zchunk = chunk_compress(z, t, t->out, &zlen);
	ret = zchunk ? stream_append(t, zchunk, zlen, NULL, 0) : chunk_write(t, t->out, NULL, 0);

	if (ret < 0)
		chunk_write_failed(t, t->out, ret);
	t->spare = t->out;
	t->out = NULL;
	__atomic_store_n(&t->out_state, OUT_NONE, __ATOMIC_RELEASE);
	futex_wake(&t->out_state);
}

void thread_drain(struct psc_thread *t)
{
	int state = OUT_QUEUED;

	if (__atomic_compare_exchange_n(&t->out_state, &state, OUT_WRITING, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		thread_write_out(t, NULL);
		return;
	}
	while ((state = __atomic_load_n(&t->out_state, __ATOMIC_ACQUIRE)) == OUT_WRITING)
		futex_wait(&t->out_state, OUT_WRITING);
}

/*
 * Signals that end the process and that a thread may receive while it seals a chunk. They wait
 * until the chunk is handed over, so that the handler that writes every stream (process.c)
 * never finds this thread's buffers half swapped.
 */
static void async_signals_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int thread_flush(struct psc_thread *t, int wait)
{
	uint64_t *full;
	sigset_t old;

	if (__atomic_exchange_n(&t->flushing, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	if (t->closed) {
		__atomic_store_n(&t->flushing, 0, __ATOMIC_RELEASE);
		return -EPIPE;
	}
	async_signals_block(&old);
	/* chunks reach the file in order: the previous one first */
	if (__atomic_load_n(&t->out_state, __ATOMIC_ACQUIRE) != OUT_NONE)
		thread_drain(t);
	full = t->buf;
	chunk_seal(t, full, t->pos, 0);
	t->out = full;
	t->buf = t->spare;
	t->spare = NULL;
	__atomic_store_n(&t->out_state, OUT_QUEUED, __ATOMIC_RELEASE);
	if (wait || writer_kick() < 0)
		thread_drain(t);
	chunk_begin(t);
	__atomic_store_n(&t->flushing, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/*
 * The time of the last record of CHUNK before UPTO. A stream closed by another thread ends
 * no earlier: that thread's CPU may read the TSC a little behind the owner's.
 */
static uint64_t chunk_last_ticks(const uint64_t *chunk, const uint64_t *upto)
{
	uint64_t last = 0;
	size_t n;

	for (const uint64_t *w = chunk + 2; w + 2 <= upto; w += n) {
		n = psc_rec_kind(w[0]) == PSC_KIND_EXT ? psc_rec_nwords(w[1]) : 2;
		last = psc_rec_ticks(w[0]);
		if (n < 2)
			break;
	}
	return last;
}

/* Before the last chunk of an exec close: what thread_resume() needs to take it back. The
 * file's size (0 when it does not exist yet); -1 when it cannot be known. Async-signal-safe. */
static void exec_undo_save(struct psc_thread *t)
{
	char name[64];
	struct stat st;
	int fd;

	stream_name(t, name, sizeof(name));
	t->undo_seq = t->seq;
	t->undo_header = t->header_written;
	fd = t->header_written ? rt_open(name, O_RDONLY, 0) : -ENOENT;
	if (fd >= 0 && fstat(fd, &st) == 0)
		t->undo_size = st.st_size;
	else
		t->undo_size = fd == -ENOENT ? 0 : -1;
	if (fd >= 0)
		close(fd);
}

int thread_close(struct psc_thread *t, unsigned reason)
{
	uint64_t tail[6], now, last;
	size_t n = 0;

	if (__atomic_exchange_n(&t->flushing, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	if (!t->closed) {
		/* the tail is built aside: T may still be writing past its committed records */
		uint64_t *upto = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);

		t->closed = 1;
		t->end = t->buf;
		if (__atomic_load_n(&t->out_state, __ATOMIC_ACQUIRE) != OUT_NONE)
			thread_drain(t);
		last = chunk_last_ticks(t->buf, upto);
		now = clock_ticks(psc_session.clock);
		if (now < last)
			now = last;
		if (t->lost_records || t->lost_bytes) {
			tail[n++] = psc_word0(now, PSC_KIND_EXT);
			tail[n++] = psc_ext_word1(PSC_REC_LOST, 4, 0);
			tail[n++] = t->lost_records;
			tail[n++] = t->lost_bytes;
		}
		tail[n++] = psc_word0(now, PSC_KIND_EXT);
		tail[n++] = psc_ext_word1(PSC_REC_STREAM_END, 2, reason);
		if ((reason & 0xffu) == PSC_END_EXEC) {
			exec_undo_save(t);
			__atomic_store_n(&t->exec_closed, 1, __ATOMIC_RELEASE);
		}
		chunk_seal(t, t->buf, upto, n);
		if (chunk_write(t, t->buf, tail, n) < 0 || t->discard) {
			__atomic_add_fetch(&psc_session.lost_records, t->lost_records + 1,
					   __ATOMIC_RELAXED);
			__atomic_add_fetch(&psc_session.lost_bytes, t->lost_bytes,
					   __ATOMIC_RELAXED);
		} else {
			/* all of it is in the stream: nothing left for a salvager */
			__atomic_store_n(&t->live->state, PSC_LIVE_CLOSED, __ATOMIC_RELEASE);
			if ((reason & 0xffu) == PSC_END_EXEC && t->undo_size >= 0)
				__atomic_store_n(&t->resumable, 1, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&t->flushing, 0, __ATOMIC_RELEASE);
	return 0;
}

void thread_close_wait(struct psc_thread *t, unsigned reason)
{
	const struct timespec pause = {0, 50 * 1000};

	/* another thread sealing its chunk finishes within a disk write: wait up to a second */
	for (int tries = 0;
	     thread_close(t, reason) == -EBUSY && t != psc_tls_thread && tries < 20000; tries++)
		nanosleep(&pause, NULL);
}

int thread_resume(struct psc_thread *t)
{
	const struct timespec pause = {0, 50 * 1000};
	char name[64];
	int fd, ret = 0, tries = 0;

	if (!__atomic_exchange_n(&t->resumable, 0, __ATOMIC_ACQ_REL))
		return __atomic_exchange_n(&t->exec_closed, 0, __ATOMIC_ACQ_REL) ? -EIO : 0;
	__atomic_store_n(&t->exec_closed, 0, __ATOMIC_RELEASE);
	/* the owner may be finding out that its stream is closed (thread_flush) */
	while (__atomic_exchange_n(&t->flushing, 1, __ATOMIC_ACQUIRE)) {
		if (++tries > 20000)
			return -EBUSY;
		nanosleep(&pause, NULL);
	}
	stream_name(t, name, sizeof(name));
	if (t->undo_size == 0) {
		/* the exec close created it: its next chunk creates it again */
		ret = rt_unlink(name);
		if (ret == -ENOENT)
			ret = 0;
	} else if ((fd = rt_open(name, O_WRONLY, 0)) < 0) {
		ret = fd;
	} else {
		if (ftruncate(fd, t->undo_size) < 0)
			ret = -errno;
		close(fd);
	}
	if (ret == 0) {
		/* the records of the chunk cut off are still in BUF, from its start: they and
		 * whatever the owner committed since are written with its next chunk */
		t->seq = t->undo_seq;
		t->header_written = t->undo_header;
		t->end = t->buf + psc_session.chunk_bytes / sizeof(uint64_t);
		__atomic_store_n(&t->live->state, PSC_LIVE_RECORDING, __ATOMIC_RELEASE);
		__atomic_store_n(&t->closed, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&t->flushing, 0, __ATOMIC_RELEASE);
	return ret;
}

/* pthread key destructor: the thread is exiting. */
static void thread_exit_hook(void *arg)
{
	const struct timespec pause = {0, 50 * 1000};
	struct psc_thread *t = arg;

	/* whatever the thread runs from here on (later destructors) is not recorded: its slot
	 * goes to the next thread */
	psc_tls_quiet = RT_QUIET_ENDED;
	/* a stream closed for an exec that then failed stays closed: its thread is gone */
	__atomic_store_n(&t->resumable, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->exec_closed, 0, __ATOMIC_RELEASE);
	thread_guard_enter(t);
	/* a resume that took the stream before it was cleared holds it for a moment */
	for (int tries = 0; thread_close(t, PSC_END_THREAD_EXIT) == -EBUSY && tries < 20000;
	     tries++)
		nanosleep(&pause, NULL);
	if (t->counters_state == 1)
		counter_set_release(&t->counters);
	t->counters_state = -1;
	psc_tls_thread = NULL;
	/* a stream whose end could not be written keeps its slot, for a salvager */
	if (__atomic_load_n(&t->live->state, __ATOMIC_ACQUIRE) != PSC_LIVE_RECORDING)
		slot_release(t);
}

/* Write every page of P (LEN bytes): through a volatile pointer, so that the compiler cannot
 * turn an allocation and a memset into one whose pages fault on their first use. */
static void pages_touch(void *p, size_t len)
{
	volatile char *c = p;

	for (size_t i = 0; i < len; i += 4096)
		c[i] = 0;
	if (len)
		c[len - 1] = 0;
}

/* Make the slot T (free, or new) the calling thread's: a fresh stream, nothing of the thread
 * that had it before. */
static void thread_start(struct psc_thread *t)
{
	char name[17] = "";
	const struct timespec pause = {0, 50 * 1000};

	/* closers (a fatal signal on another thread) leave it alone until it is ready; one
	 * looking at it now, closed, lets go at once */
	while (__atomic_exchange_n(&t->flushing, 1, __ATOMIC_ACQUIRE))
		nanosleep(&pause, NULL);
	t->pid = psc_session.pid;
	t->tid = (pid_t)syscall(SYS_gettid);
	t->guard = 0;
	t->seq = 0;
	t->header_written = 0;
	t->discard = 0;
	t->functions = 0;
	frames_init(t);
	t->counters_state = 0;
	t->record_words = 0;
	t->lost_records = 0;
	t->lost_bytes = 0;
	t->resumable = 0;
	t->exec_closed = 0;
	memset(t->cache, 0, sizeof(t->cache));
	if (t->defined)
		memset(t->defined, 0, t->defined_bytes);
	thread_stream_header(t);
	stream_name(t, t->live->stream_name, sizeof(t->live->stream_name));
	__atomic_store_n(&t->live->state, PSC_LIVE_RECORDING, __ATOMIC_RELEASE);
	chunk_begin(t);
	if (prctl(PR_GET_NAME, name) == 0 && name[0]) {
		size_t len = strnlen(name, 16), nwords = 2 + (len + 8) / 8;

		memset(t->pos, 0, nwords * sizeof(uint64_t));
		t->pos[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
		t->pos[1] = psc_ext_word1(PSC_REC_THREAD_NAME, (uint32_t)nwords, 0);
		memcpy(t->pos + 2, name, len);
		t->pos += nwords;
	}
	__atomic_store_n(&t->closed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->flushing, 0, __ATOMIC_RELEASE);
}

__attribute__((noinline, cold)) struct psc_thread *thread_get_slow(void)
{
	struct psc_thread *t;
	int saved_errno = errno;

	/* the runtime's own work, a thread that has ended, a thread of the runtime's */
	if (psc_tls_quiet || psc_session.state != SESSION_RECORDING)
		return NULL;
	psc_tls_quiet = RT_QUIET_RUNTIME;
	t = slot_acquire();
	if (!t) {
		__atomic_add_fetch(&psc_session.lost_threads, 1, __ATOMIC_RELAXED);
		psc_tls_quiet = 0;
		errno = saved_errno;
		return NULL;
	}
	thread_start(t);
	pthread_setspecific(psc_session.key, t);
	psc_tls_thread = t;
	psc_tls_quiet = 0;
	errno = saved_errno;
	return t;
}

/* After fork, in the child: the forking thread's state belongs to the parent's stream. */
void thread_after_fork(void)
{
	psc_tls_thread = NULL;
	/* the parent writes its own buffers; the child makes slots of its own */
	slots_forget();
}

void thread_destructor_init(void)
{
	pthread_key_create(&psc_session.key, thread_exit_hook);
}

int thread_define_region(struct psc_thread *t, int id)
{
	size_t byte = (size_t)id / 8;
	const char *name;
	size_t len, nwords;
	uint64_t *r;

	if (byte < t->defined_bytes && (t->defined[byte] & (1u << (id % 8))))
		return 0;
	if (byte >= t->defined_bytes) {
		size_t nb = (byte + 4096) & ~(size_t)4095;
		uint8_t *p = rt_alloc(nb);

		if (!p)
			return -ENOMEM;
		if (t->defined)
			memcpy(p, t->defined, t->defined_bytes);
		rt_free(t->defined, t->defined_bytes);
		t->defined = p;
		t->defined_bytes = nb;
	}
	name = session_region_name(id);
	if (!name)
		return -EINVAL;
	len = strlen(name);
	nwords = 2 + (len + 8) / 8;
	r = thread_reserve(t, nwords);
	if (!r)
		return -ENOSPC;
	memset(r, 0, nwords * sizeof(uint64_t));
	r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
	r[1] = psc_ext_word1(PSC_REC_REGION_DEF, (uint32_t)nwords, (uint32_t)id);
	memcpy(r + 2, name, len);
	thread_commit(t, nwords);
	t->defined[byte] |= (uint8_t)(1u << (id % 8));
	return 0;
}
