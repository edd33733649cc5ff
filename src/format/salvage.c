/* salvage.c - completing the streams of processes that ended without closing them (salvage.h). */
#include "format/salvage.h"
#include "lib/fcopy.h"

#include "format/stream.h"

#include "format/format.h"
#include "format/layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where this machine is: a live file's process can only be looked for here when it shares
 * the kernel (boot id) or, under an earlier boot, the host name. */
struct here {
	char boot_id[40];
	char host[64];
};

/* A live file, mapped, with its thread state's fields read. */
struct live {
	const char *name;
	const struct psc_live_header *h;
	const char *map; /* the whole file */
	uint64_t size;
	uint64_t pos, buf, out, seq, lost_records, lost_bytes; /* offsets in the file for the
								* three addresses */
};

static void note(struct salvage_stats *st, const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Count a failure; the first one's reason is kept. */
static void note(struct salvage_stats *st, const char *dir, const char *name, const char *fmt, ...)
{
	va_list ap;
	int n;

	st->failed++;
	if (st->error[0])
		return;
	n = snprintf(st->error, sizeof(st->error), "%s/%s: ", dir, name);
	if (n < 0 || (size_t)n >= sizeof(st->error))
		return;
	va_start(ap, fmt);
	vsnprintf(st->error + n, sizeof(st->error) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

static void here_read(struct here *me)
{
	read_line("/proc/sys/kernel/random/boot_id", me->boot_id, sizeof(me->boot_id));
	if (gethostname(me->host, sizeof(me->host) - 1) < 0)
		me->host[0] = 0;
	me->host[sizeof(me->host) - 1] = 0;
}

/* The state and start time (field 22) of process PID from its stat: 0, or -1 when it has
 * none here. */
static int pid_stat(uint32_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", pid);
	read_line(path, buf, sizeof(buf));
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1,
			 " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
			 "%*d %llu",
			 state, start) != 2)
		return -1;
	return 0;
}

/* 1 when PID runs the process that started at START and is not a zombie, 0 when not. */
static int pid_runs(uint32_t pid, uint64_t start)
{
	unsigned long long v;
	char state;

	return !pid_stat(pid, &state, &v) && v == start && state != 'Z' && state != 'X';
}

/* 1 when a process PID runs here (whichever it is), 0 when not. */
static int pid_alive(uint32_t pid)
{
	unsigned long long v;
	char state;

	return pid && !pid_stat(pid, &state, &v) && state != 'Z' && state != 'X';
}

/* 1 when the file FD holds nothing but zeros where its header goes: a slot its process made
 * and never started (the runtime fills the header when a thread takes the slot). */
static int header_unwritten(int fd)
{
	unsigned char buf[sizeof(struct psc_live_header)];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n < 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i])
			return 0;
	return 1;
}

enum fate { GONE, ALIVE, FOREIGN };

static enum fate process_fate(const struct psc_live_header *h, const struct here *me)
{
	if (h->boot_id[0] && !strcmp(h->boot_id, me->boot_id))
		return pid_runs(h->pid, h->start_time) ? ALIVE : GONE;
	/* another kernel: this host's before a reboot, or another host */
	return h->host[0] && !strcmp(h->host, me->host) ? GONE : FOREIGN;
}

static uint64_t field_u64(const struct live *l, uint32_t off)
{
	uint64_t v;

	memcpy(&v, l->map + l->h->thread_off + off, sizeof(v));
	return v;
}

/* The address ADDR of the process as an offset in the file when it is the start of one of
 * the two buffers; else 0. */
static uint64_t buf_start(const struct live *l, uint64_t addr)
{
	const struct psc_live_header *h = l->h;

	if (addr == h->base + h->buf_off[0] || addr == h->base + h->buf_off[1])
		return addr - h->base;
	return 0;
}

/* The header's layout makes sense for a file of SIZE bytes. */
static int header_valid(const struct psc_live_header *h, uint64_t size)
{
	const uint32_t offs[] = {h->off_pos,	   h->off_buf,	   h->off_out,
				 h->off_out_state, h->off_seq,	   h->off_header_written,
				 h->off_closed,	   h->off_discard, h->off_lost_records,
				 h->off_lost_bytes};

	if (memcmp(h->magic, PSC_LIVE_MAGIC, 8) || h->version != PSC_LIVE_VERSION ||
	    h->header_size != sizeof(*h) || h->file_bytes != size || h->chunk_bytes < 4096 ||
	    h->chunk_bytes % 8 || h->chunk_bytes > (1ull << 30) || h->thread_off < sizeof(*h))
		return 0;
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (h->thread_off + offs[i] + 8 > h->buf_off[0])
			return 0;
	return h->buf_off[0] % 8 == 0 && h->buf_off[1] >= h->buf_off[0] + h->chunk_bytes &&
	       h->buf_off[1] + h->chunk_bytes <= size && h->buf_off[1] % 8 == 0 &&
	       memchr(h->stream_name, 0, sizeof(h->stream_name)) &&
	       layout_parse(h->stream_name, NULL) == LAYOUT_STREAM &&
	       memchr(h->boot_id, 0, sizeof(h->boot_id)) && memchr(h->host, 0, sizeof(h->host));
}

/* Words of the record at W (of at most LEFT words), 0 when it is not a record. */
static size_t record_words(const uint64_t *w, size_t left)
{
	size_t n;

	if (left < 2)
		return 0;
	switch (psc_rec_kind(w[0])) {
	case PSC_KIND_FUNC_ENTER:
	case PSC_KIND_FUNC_EXIT:
		return 2;
	case PSC_KIND_EXT:
		n = psc_rec_nwords(w[1]);
		return n >= 2 && n <= left ? n : 0;
	default:
		return 0;
	}
}

/* What the stream file holds, as the reader finds it: where its complete chunks end, the
 * next chunk's seq, whether it ended, the time of its last record. */
struct stream_state {
	int exists; /* it has a valid header */
	uint64_t valid_end, next_seq, last_ticks;
	int ended;
};

static int stream_state_read(const char *path, struct stream_state *s, char *err, size_t errlen)
{
	struct stream_reader r;
	struct stream_record rec;
	int ret;

	struct stat st;

	memset(s, 0, sizeof(*s));
	/* none yet, or cut inside its header: it is written anew */
	if (stat(path, &st) < 0 || (uint64_t)st.st_size < sizeof(struct psc_stream_header))
		return 0;
	ret = stream_open(&r, path, err, errlen);
	if (ret < 0)
		return ret;
	stream_set_prefetch(&r, STREAM_PREFETCH_OFF);
	while ((ret = stream_next(&r, &rec, err, errlen)) > 0)
		;
	if (ret == 0) {
		s->exists = 1;
		s->valid_end = r.truncated_at ? r.truncated_at : r.file_size;
		s->next_seq = r.next_seq;
		s->last_ticks = r.last_ticks;
		s->ended = r.ended;
	}
	stream_close(&r);
	return ret;
}

/* Append a chunk of sequence SEQ holding the records of BODY (WORDS words) and then TAIL. */
static int append_chunk(int fd, uint64_t seq, const uint64_t *body, size_t words,
			const uint64_t *tail, size_t ntail)
{
	struct psc_chunk_header ch = {
	    .magic = PSC_CHUNK_MAGIC,
	    .size = (uint32_t)((words + ntail) * sizeof(uint64_t)),
	    .seq = seq,
	};

	int ret = fd_write_all(fd, &ch, sizeof(ch));

	if (ret == 0 && words)
		ret = fd_write_all(fd, body, words * 8);
	if (ret == 0 && ntail)
		ret = fd_write_all(fd, tail, ntail * 8);
	return ret;
}

/* Append L's unwritten chunks and an end record to its stream in DIR (DFD). 0, or a negative
 * errno (the reader's message in ERR when the stream is damaged). */
static int salvage_one(int dfd, const char *dir, const struct live *l, uint64_t *records, char *err,
		       size_t errlen)
{
	const struct psc_live_header *h = l->h;
	char path[PATH_MAX + 80];
	struct stream_state s;
	uint64_t tail[6], last = 0;
	size_t n = 0, words = 0;
	const uint64_t *body = NULL;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, h->stream_name);
	ret = stream_state_read(path, &s, err, errlen);
	if (ret < 0)
		return ret;
	if (s.ended)
		return 0;
	fd = openat(dfd, h->stream_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = openat(dfd, h->stream_name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
	if (fd < 0)
		return -errno;
	/* a chunk the process was writing when it went is cut off: it is in the buffers */
	if (ftruncate(fd, (off_t)s.valid_end) < 0 || lseek(fd, 0, SEEK_END) < 0) {
		ret = -errno;
		goto out;
	}
	if (!s.exists) {
		ret = fd_write_all(fd, &h->stream, sizeof(h->stream));
		if (ret < 0)
			goto out;
	}
	last = s.last_ticks;
	/* a chunk sealed and handed to the writer thread (or being handed over), unless the
	 * writer wrote all of it: then the file's chunks reach its sequence number */
	if (l->out && l->out != l->buf) {
		const struct psc_chunk_header *ch = (const void *)(l->map + l->out);

		if (ch->magic == PSC_CHUNK_MAGIC && ch->size % 8 == 0 &&
		    ch->size <= h->chunk_bytes - sizeof(*ch) && ch->seq + 1 == l->seq &&
		    ch->seq >= s.next_seq) {
			const uint64_t *w = (const void *)(ch + 1);
			size_t nw = ch->size / 8, i, kw;

			for (i = 0; i < nw && (kw = record_words(w + i, nw - i)); i += kw) {
				last = psc_rec_ticks(w[i]);
				(*records)++;
			}
			ret = append_chunk(fd, s.next_seq++, w, i, NULL, 0);
			if (ret)
				goto out;
		}
	}
	/* the chunk being filled: every record up to the last one committed */
	if (l->pos) {
		const uint64_t *w =
		    (const void *)(l->map + l->buf + sizeof(struct psc_chunk_header));
		size_t nw = (l->pos - l->buf - sizeof(struct psc_chunk_header)) / 8, kw;

		for (words = 0; words < nw && (kw = record_words(w + words, nw - words));
		     words += kw) {
			last = psc_rec_ticks(w[words]);
			(*records)++;
		}
		body = w;
	}
	if (l->lost_records || l->lost_bytes) {
		tail[n++] = psc_word0(last, PSC_KIND_EXT);
		tail[n++] = psc_ext_word1(PSC_REC_LOST, 4, 0);
		tail[n++] = l->lost_records;
		tail[n++] = l->lost_bytes;
	}
	tail[n++] = psc_word0(last, PSC_KIND_EXT);
	tail[n++] = psc_ext_word1(PSC_REC_STREAM_END, 2, PSC_END_UNCLOSED);
	ret = append_chunk(fd, s.next_seq, body, words, tail, n);
out:
	close(fd);
	return ret;
}

/* Map NAME (FD), check it, and read its thread state into L. 0 or -EINVAL. */
static int live_read(int fd, const char *name, struct live *l)
{
	struct stat st;
	uint64_t pos;
	void *map;

	memset(l, 0, sizeof(*l));
	l->name = name;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(struct psc_live_header))
		return -EINVAL;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	l->map = map;
	l->size = (uint64_t)st.st_size;
	l->h = map;
	if (!header_valid(l->h, l->size))
		return -EINVAL;
	l->seq = field_u64(l, l->h->off_seq);
	l->lost_records = field_u64(l, l->h->off_lost_records);
	l->lost_bytes = field_u64(l, l->h->off_lost_bytes);
	/* the chunks start a buffer; the position lies within the chunk being filled (0 when
	 * the process went while it moved from one buffer to the other) */
	l->buf = buf_start(l, field_u64(l, l->h->off_buf));
	l->out = buf_start(l, field_u64(l, l->h->off_out));
	pos = field_u64(l, l->h->off_pos) - l->h->base;
	if (l->buf && pos >= l->buf + sizeof(struct psc_chunk_header) &&
	    pos <= l->buf + l->h->chunk_bytes)
		l->pos = pos;
	return 0;
}

static void live_release(struct live *l)
{
	if (l->map)
		munmap((void *)l->map, l->size);
}

/* Salvage or remove one live file NAME of DIR (DFD). */
static void salvage_file(int dfd, const char *dir, const char *name, const struct here *me,
			 struct salvage_stats *st)
{
	struct live l;
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0) {
		note(st, dir, name, "%s", strerror(errno));
		return;
	}
	/* another salvager has it */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		st->alive++;
		close(fd);
		return;
	}
	ret = live_read(fd, name, &l);
	if (ret < 0) {
		struct layout_file f;

		/* its process may be making it: a slot's header is written after its file */
		if (layout_parse(name, &f) == LAYOUT_LIVE && pid_alive((uint32_t)f.pid)) {
			st->alive++;
			goto out;
		}
		if (ret == -EINVAL && header_unwritten(fd)) {
			if (unlinkat(dfd, name, 0) < 0)
				note(st, dir, name, "cannot remove it: %s", strerror(errno));
			else
				st->removed++;
			goto out;
		}
		note(st, dir, name, "not a live buffer file of this perfscope (%s)",
		     ret == -EINVAL ? "damaged, or of another version" : strerror(-ret));
		goto out;
	}
	switch (process_fate(l.h, me)) {
	case ALIVE:
		st->alive++;
		goto out;
	case FOREIGN:
		st->foreign++;
		goto out;
	case GONE:
		break;
	}
	if (l.h->state == PSC_LIVE_RECORDING) {
		uint64_t records = 0;

		char why[512] = "";

		ret = salvage_one(dfd, dir, &l, &records, why, sizeof(why));
		if (ret < 0) {
			note(st, dir, name, "cannot complete %s: %s", l.h->stream_name,
			     why[0] ? why : strerror(-ret));
			goto out;
		}
		st->streams++;
		st->records += records;
	} else {
		st->removed++;
	}
	if (unlinkat(dfd, name, 0) < 0)
		note(st, dir, name, "cannot remove it: %s", strerror(errno));
out:
	live_release(&l);
	close(fd);
}

int salvage_dir(const char *dir, struct salvage_stats *st, char *err, size_t errlen)
{
	struct here me;
	struct dirent *de;
	DIR *d;

	memset(st, 0, sizeof(*st));
	d = opendir(dir);
	if (!d) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	here_read(&me);
	while ((de = readdir(d)))
		if (layout_parse(de->d_name, NULL) == LAYOUT_LIVE)
			salvage_file(dirfd(d), dir, de->d_name, &me, st);
	closedir(d);
	return 0;
}
