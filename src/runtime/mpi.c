/*
 * mpi.c - libperfscope.so's side of libperfscope-mpi.so (rt-mpi.h): MPI records in the calling
 * thread's stream. The enter and leave records take the same path as region boundaries: the
 * thread's state from a thread-local pointer, room checked against the chunk's end, one clock
 * read, the record published with a release store; no lock, no system call, errno untouched.
 */
#include "runtime/session.h"

#include "format/format.h"
#include "lib/hash.h"
#include "runtime/rt-mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The calling thread, ready to record and not already inside the runtime; else NULL (a
 * re-entered call, from a signal handler, is counted as lost). */
static inline struct psc_thread *mpi_thread(void)
{
	struct psc_thread *t = thread_get();

	if (unlikely(!t)) {
		thread_count_closed_drop();
		return NULL;
	}
	if (unlikely(t->guard)) {
		t->lost_records++;
		return NULL;
	}
	return t;
}

/* Chunk full: write it and reserve again (errno kept). */
__attribute__((noinline, cold)) static uint64_t *mpi_reserve_slow(struct psc_thread *t,
								  size_t words)
{
	int saved_errno = errno;
	uint64_t *r = thread_reserve(t, words);

	errno = saved_errno;
	return r;
}

static inline uint64_t *mpi_reserve(struct psc_thread *t, size_t words)
{
	uint64_t *r = t->pos;

	if (unlikely(r + words > t->end))
		r = mpi_reserve_slow(t, words);
	return r;
}

PSC_EXPORT int psc_rt_active(void)
{
	return psc_session.state == SESSION_RECORDING;
}

PSC_EXPORT void psc_rt_mpi_enter(unsigned routine)
{
	struct psc_thread *t = mpi_thread();
	uint64_t *r;

	if (unlikely(!t))
		return;
	thread_guard_enter(t);
	r = mpi_reserve(t, 2);
	if (likely(r != NULL)) {
		r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
		r[1] = psc_ext_word1(PSC_REC_MPI_ENTER, 2, routine);
		thread_commit(t, 2);
	}
	thread_guard_leave(t);
}

/* Items of one leave record at most: the record's length field and the chunk both bound it
 * (a chunk also holds its header and its clock-sync record). */
static size_t leave_max_items(void)
{
	size_t words = psc_session.chunk_bytes / sizeof(uint64_t) - 2 - 3;

	if (words > PSC_REC_MAX_WORDS)
		words = PSC_REC_MAX_WORDS;
	return (words - 3) / PSC_MPI_ITEM_WORDS;
}

PSC_EXPORT void psc_rt_mpi_leave(unsigned routine, uint64_t site, const uint64_t *items,
				 size_t nitems)
{
	struct psc_thread *t = mpi_thread();
	size_t words, nitem_words;
	uint64_t ticks, *r;

	if (unlikely(!t))
		return;
	thread_guard_enter(t);
	if (unlikely(nitems > 16) && nitems > leave_max_items()) {
		t->lost_records += nitems - leave_max_items();
		nitems = leave_max_items();
	}
	nitem_words = nitems * PSC_MPI_ITEM_WORDS;
	words = 3 + nitem_words;
	r = mpi_reserve(t, words);
	if (likely(r != NULL)) {
		/* read after the reserve: a reserve that sealed the chunk opened the next one with
		 * a clock-sync record, and timestamps never go back within a stream */
		ticks = clock_ticks(psc_session.clock);
		r[0] = psc_word0(ticks, PSC_KIND_EXT);
		r[1] = psc_ext_word1(PSC_REC_MPI_LEAVE, (uint32_t)words, routine);
		r[2] = site;
		for (size_t i = 0; i < nitem_words; i++)
			r[3 + i] = items[i];
		thread_commit(t, words);
	}
	thread_guard_leave(t);
}

PSC_EXPORT void psc_rt_record(unsigned type, uint32_t arg, const uint64_t *payload, size_t nwords)
{
	struct psc_thread *t;
	uint64_t *r;

	if (nwords + 2 > PSC_REC_MAX_WORDS)
		return;
	t = mpi_thread();
	if (!t)
		return;
	thread_guard_enter(t);
	r = mpi_reserve(t, 2 + nwords);
	if (r) {
		r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
		r[1] = psc_ext_word1((enum psc_rec_type)type, (uint32_t)(2 + nwords), arg);
		if (nwords)
			memcpy(r + 2, payload, nwords * sizeof(uint64_t));
		thread_commit(t, 2 + nwords);
	}
	thread_guard_leave(t);
}

PSC_EXPORT void psc_rt_set_rank(int rank, int size)
{
	int saved_errno = errno;

	__atomic_store_n(&psc_session.world_size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&psc_session.rank, rank, __ATOMIC_RELAXED);
	/* the stream headers a salvager would write */
	for (struct psc_thread *t = __atomic_load_n(&psc_session.threads, __ATOMIC_ACQUIRE); t;
	     t = t->next)
		__atomic_store_n(&t->live->stream.rank, rank, __ATOMIC_RELAXED);
	if (psc_session.state == SESSION_RECORDING)
		session_write_proc("running");
	errno = saved_errno;
}

PSC_EXPORT uint64_t psc_rt_now_ns(void)
{
	return clock_monotonic_ns_call();
}

PSC_EXPORT uint64_t psc_rt_clock_id(void)
{
	char id[64];
	uint64_t h;
	int saved_errno = errno, fd;
	ssize_t n;

	if (clock_test_skew_active())
		return 0;
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved_errno;
		return 0;
	}
	n = read(fd, id, sizeof(id));
	close(fd);
	errno = saved_errno;
	if (n < 16)
		return 0;
	h = hash_bytes(HASH_INIT, id, (size_t)n);
	return h ? h : 1;
}

PSC_EXPORT const char *psc_rt_dir(void)
{
	return psc_session.state == SESSION_RECORDING ? psc_session.dir : NULL;
}

PSC_EXPORT int psc_rt_create(const char *name)
{
	int saved_errno = errno, fd;

	fd = psc_session.state == SESSION_RECORDING
		 ? rt_open(name, O_WRONLY | O_CREAT | O_EXCL, 0644)
		 : -EPERM;
	errno = saved_errno;
	return fd;
}
