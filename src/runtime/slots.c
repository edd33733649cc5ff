/*
 * slots.c - where a recording thread's state and its two chunk buffers live: a slot, the file
 * live.<pid>.<image>.<n> of the experiment mapped shared into the process (format.h, struct
 * psc_live_header). The kernel keeps a shared file mapping's pages whatever becomes of the
 * process, so every record a thread committed is on its way to the disk even if the process
 * is killed: a salvager (src/format/salvage.c) appends it to the thread's stream afterwards.
 *
 * The file's blocks are allocated before it is mapped, so that storing into the mapping never
 * needs a block the disk no longer has (a SIGBUS in the program); on file systems where that
 * is not enough (copy-on-write ones) or where a file cannot be made, the slot is anonymous
 * memory, and only that thread's last chunk is at risk.
 *
 * A slot whose thread ended is kept, its pages in place, for the next thread that starts:
 * memory follows the most threads alive at once, not the threads ever created, and a thread
 * that takes a used slot does not fault its buffers in again.
 */
#include "runtime/session.h"

#include "format/format.h"
#include "format/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

/* The header's room: the thread state starts after it. */
#define LIVE_HEADER_ROOM 512
_Static_assert(sizeof(struct psc_live_header) <= LIVE_HEADER_ROOM, "live header fits its room");

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* Read up to LEN - 1 bytes of PATH into BUF, NUL-terminated; the length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* Field 22 of /proc/self/stat: with the pid, it tells this process from a later one. */
static uint64_t self_start_time(void)
{
	char buf[1024], *p;
	unsigned long long v = 0;

	if (read_small("/proc/self/stat", buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	/* after the command's ')': fields 3 to 22 */
	if (sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu",
		   &v) != 1)
		return 0;
	return v;
}

void slots_init(void)
{
	struct statfs fs;
	ssize_t n;

	psc_session.start_time = self_start_time();
	n = read_small("/proc/sys/kernel/random/boot_id", psc_session.boot_id,
		       sizeof(psc_session.boot_id));
	if (n > 0 && psc_session.boot_id[n - 1] == '\n')
		psc_session.boot_id[n - 1] = 0;
	if (gethostname(psc_session.host, sizeof(psc_session.host) - 1) < 0)
		psc_session.host[0] = 0;
	psc_session.host[sizeof(psc_session.host) - 1] = 0;
	/* where allocated blocks stay allocated under stores through a mapping */
	psc_session.live_files = statfs(psc_session.dir, &fs) == 0 &&
				 (fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC ||
				  fs.f_type == TMPFS_MAGIC) &&
				 psc_session.boot_id[0];
}

static void slot_name(unsigned slot, char *name, size_t len)
{
	struct layout_file f = {.kind = LAYOUT_LIVE,
				.pid = (int)psc_session.pid,
				.image = psc_session.image,
				.slot = slot};

	layout_name(&f, name, len);
}

/* A mapping of BYTES for slot N: a file of the experiment, else anonymous memory. */
static void *slot_map(unsigned n, size_t bytes, int *file_backed)
{
	char name[64];
	void *map = MAP_FAILED;
	int fd = -1;

	*file_backed = 0;
	if (psc_session.live_files) {
		slot_name(n, name, sizeof(name));
		fd = rt_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	}
	if (fd >= 0) {
		/* every block now: a store into the mapping never waits for one the disk lacks */
		if (fallocate(fd, 0, 0, (off_t)bytes) == 0)
			map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			rt_unlink(name);
		else
			*file_backed = 1;
	}
	if (map == MAP_FAILED)
		map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return map == MAP_FAILED ? NULL : map;
}

/* A new slot, number N, free. The lock is held. */
static struct psc_thread *slot_create(unsigned n)
{
	size_t thread_off = LIVE_HEADER_ROOM;
	size_t buf_off = page_round(thread_off + sizeof(struct psc_thread));
	size_t chunk = page_round(psc_session.chunk_bytes);
	size_t bytes = buf_off + 2 * chunk;
	struct psc_live_header *h;
	struct psc_thread *t;
	int file_backed;
	char *map = slot_map(n, bytes, &file_backed);

	if (!map)
		return NULL;
	h = (struct psc_live_header *)map;
	memcpy(h->magic, PSC_LIVE_MAGIC, 8);
	h->version = PSC_LIVE_VERSION;
	h->header_size = sizeof(*h);
	h->pid = (uint32_t)psc_session.pid;
	h->image = psc_session.image;
	h->slot = n;
	h->start_time = psc_session.start_time;
	memcpy(h->boot_id, psc_session.boot_id, sizeof(h->boot_id));
	memcpy(h->host, psc_session.host, sizeof(h->host));
	h->base = (uint64_t)(uintptr_t)map;
	h->file_bytes = bytes;
	h->chunk_bytes = psc_session.chunk_bytes;
	h->buf_off[0] = buf_off;
	h->buf_off[1] = buf_off + chunk;
	h->thread_off = thread_off;
	h->off_pos = offsetof(struct psc_thread, pos);
	h->off_buf = offsetof(struct psc_thread, buf);
	h->off_out = offsetof(struct psc_thread, out);
	h->off_out_state = offsetof(struct psc_thread, out_state);
	h->off_seq = offsetof(struct psc_thread, seq);
	h->off_header_written = offsetof(struct psc_thread, header_written);
	h->off_closed = offsetof(struct psc_thread, closed);
	h->off_discard = offsetof(struct psc_thread, discard);
	h->off_lost_records = offsetof(struct psc_thread, lost_records);
	h->off_lost_bytes = offsetof(struct psc_thread, lost_bytes);
	t = (struct psc_thread *)(map + thread_off);
	t->live = h;
	t->map_bytes = bytes;
	t->slot = n;
	t->file_backed = file_backed;
	t->buf = (uint64_t *)(map + buf_off);
	t->spare = (uint64_t *)(map + buf_off + chunk);
	t->populate = 1;
	t->closed = 1;
	psc_session.nslots++;
	if (!file_backed)
		psc_session.memory_slots++;
	/* the writer and the fatal-signal handler walk the list without the lock */
	t->next = psc_session.threads;
	__atomic_store_n(&psc_session.threads, t, __ATOMIC_RELEASE);
	return t;
}

struct psc_thread *slot_acquire(void)
{
	struct psc_thread *t;

	pthread_mutex_lock(&psc_session.lock);
	t = psc_session.free_slots;
	if (t)
		psc_session.free_slots = t->free_next;
	else
		t = slot_create(psc_session.nslots);
	pthread_mutex_unlock(&psc_session.lock);
	if (t && t->populate)
		writer_kick();
	return t;
}

void slot_release(struct psc_thread *t)
{
	__atomic_store_n(&t->live->state, PSC_LIVE_FREE, __ATOMIC_RELEASE);
	pthread_mutex_lock(&psc_session.lock);
	t->free_next = psc_session.free_slots;
	psc_session.free_slots = t;
	pthread_mutex_unlock(&psc_session.lock);
}

void slot_populate(struct psc_thread *t)
{
	if (!__atomic_exchange_n(&t->populate, 0, __ATOMIC_ACQ_REL))
		return;
	/* faults the pages in without storing into them: the thread may be recording already */
	madvise((char *)t->live + t->live->buf_off[0], t->map_bytes - t->live->buf_off[0],
		MADV_POPULATE_WRITE);
}

void slots_forget(void)
{
	struct psc_thread *t = psc_session.threads, *next;

	/* the parent's slots: the child must not store into them, nor keep them mapped. Their
	 * mappings are made under session.lock, which the fork held, and never change; what the
	 * other threads of the parent map themselves (their stacks of open calls, their region
	 * bitmaps) may be changing in the parent, which shares the slots: only the forking
	 * thread's are sure, and the others stay mapped in the child */
	for (; t; t = next) {
		next = t->next;
		if (t == psc_session.fork_self) {
			if (t->frames && t->frames != t->no_frames &&
			    t->frames != psc_session.fork_frames)
				munmap(t->frames,
				       (size_t)(t->fend - t->frames) * sizeof(*t->frames));
			rt_free(t->defined, t->defined_bytes);
		}
		munmap(t->live, t->map_bytes);
	}
	psc_session.fork_self = NULL;
	psc_session.threads = NULL;
	psc_session.free_slots = NULL;
	psc_session.nslots = 0;
	psc_session.memory_slots = 0;
}

void slots_remove(void)
{
	char name[64];

	for (struct psc_thread *t = psc_session.threads; t; t = t->next) {
		/* a stream whose end could not be written stays for a salvager to finish */
		if (!t->file_backed ||
		    __atomic_load_n(&t->live->state, __ATOMIC_ACQUIRE) == PSC_LIVE_RECORDING)
			continue;
		slot_name(t->slot, name, sizeof(name));
		rt_unlink(name);
	}
}

void slots_remove_image(unsigned image)
{
	char name[96];

	/* a successful exec leaves the former image's slots, their streams all closed */
	for (unsigned n = 0;; n++) {
		struct layout_file f = {
		    .kind = LAYOUT_LIVE, .pid = (int)psc_session.pid, .image = image, .slot = n};
		struct psc_live_header h;
		int fd;

		layout_name(&f, name, sizeof(name));
		fd = rt_open(name, O_RDONLY, 0);
		if (fd < 0)
			break;
		if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		    !memcmp(h.magic, PSC_LIVE_MAGIC, 8) && h.state != PSC_LIVE_RECORDING)
			rt_unlink(name);
		close(fd);
	}
}
