/* sample-out.c - samples file writer with time ordering, and the pmaps files. */
#include "record/sample-out.h"
#include "lib/fcopy.h"

#include "pmu/clock.h"
#include "format/format.h"
#include "format/layout.h"
#include "lib/array.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK_WORDS (128u << 10) /* 1 MiB chunks */
/* words a chunk starts with: its clock-sync record, and the lost record of unwritten ones */
#define CLOCK_WORDS 3u
#define LOST_WORDS  4u

/* A queued record: its words live in the arena at `at`. */
struct pending {
	uint64_t ns;
	uint64_t seq; /* arrival order, for a stable sort */
	size_t at, n;
	int is_mmap; /* words: pid, start, len, pgoff, prot | flags << 32, the file's identity
		      * (MMAP_ID_WORDS: struct sample_mmap_id), path */
};

/* Program images seen per process: exec records advance them. */
struct proc_image {
	pid_t pid;
	unsigned image;
};

struct sample_out {
	int fd;
	char dir[PATH_MAX];
	pid_t root;
	uint64_t *chunk;
	size_t nchunk;
	size_t head;		/* words of the open chunk before its first record */
	uint64_t chunk_records; /* records in the open chunk */
	uint64_t open_since;	/* sample_out_sync's time when it first saw the chunk open, or 0 */
	uint64_t seq;
	uint64_t end; /* file offset after the last chunk written whole */
	int error;    /* the first write error (samples file or pmaps), negative errno */
	char why[PATH_MAX + 160];
	uint64_t unwritten; /* records of chunks that could not be written */
	uint64_t dropped;   /* of those, not yet told by a lost record in a written chunk */
	/*
	 * The sample group definitions emitted so far (their records' words), which every later
	 * sample refers to: those of a chunk that was cut off (after the first defs_done words)
	 * begin each chunk again until one is written
	 */
	uint64_t *defs;
	size_t ndefs, defscap, defs_done;
	uint64_t chunk_defs; /* definitions emitted into the open chunk (not its head) */
	uint64_t written, late;
	uint64_t last_ns; /* time of the last record written */
	struct pending *pend;
	size_t npend, pendcap;
	uint64_t *arena, *spare;
	size_t narena, arenacap, sparecap;
	uint64_t arrivals;
	struct proc_image *images;
	size_t nimages, imagecap;
};

/* Keep the first error, worded "WHAT: strerror" (with the directory's file name). */
static void note_error(struct sample_out *o, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note_error(struct sample_out *o, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->error)
		return;
	o->error = err;
	va_start(ap, fmt);
	n = vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(o->why))
		snprintf(o->why + n, sizeof(o->why) - (size_t)n, ": %s", strerror(-err));
}

/*
 * Open a chunk at time NS: its clock-sync record, then, when records of earlier chunks could
 * not be written, a lost record (PSC_LOST_UNWRITTEN) that says how many, and the sample group
 * definitions when the chunk that held them was cut off (at time NS, as the chunk's first
 * records).
 */
static void chunk_begin(struct sample_out *o, uint64_t ns)
{
	o->chunk[0] = psc_word0(ns, PSC_KIND_EXT);
	o->chunk[1] = psc_ext_word1(PSC_REC_CLOCK_SYNC, CLOCK_WORDS, 0);
	o->chunk[2] = ns;
	o->nchunk = CLOCK_WORDS;
	if (o->dropped) {
		o->chunk[3] = psc_word0(ns, PSC_KIND_EXT);
		o->chunk[4] = psc_ext_word1(PSC_REC_LOST, LOST_WORDS, PSC_LOST_UNWRITTEN);
		o->chunk[5] = o->dropped;
		o->chunk[6] = 0;
		o->nchunk += LOST_WORDS;
	}
	o->chunk_defs = 0;
	if (o->ndefs > o->defs_done && o->ndefs - o->defs_done <= CHUNK_WORDS / 2) {
		size_t n = o->ndefs - o->defs_done;

		memcpy(o->chunk + o->nchunk, o->defs + o->defs_done, n * sizeof(uint64_t));
		for (size_t i = 0; i < n; i += psc_rec_nwords(o->chunk[o->nchunk + i + 1]))
			o->chunk[o->nchunk + i] = psc_word0(ns, PSC_KIND_EXT);
		o->nchunk += n;
	}
	o->head = o->nchunk;
	o->chunk_records = 0;
}

/*
 * Append the open chunk (header and records in one write) after the last chunk written whole.
 * A chunk that cannot be written whole (a full disk) is cut off the file again and its records
 * counted as unwritten: the file stays a sequence of whole chunks, and the next chunk that can
 * be written says how many records are missing before it. 0 or the negative errno.
 */
static int chunk_write(struct sample_out *o)
{
	struct psc_chunk_header h = {PSC_CHUNK_MAGIC, (uint32_t)(o->nchunk * 8), o->seq};
	struct iovec iov[2] = {{&h, sizeof(h)}, {o->chunk, o->nchunk * 8}};
	size_t left = sizeof(h) + o->nchunk * 8;
	uint64_t at = o->end;
	int ret = 0, i = 0;

	o->open_since = 0;
	if (o->nchunk <= o->head) {
		o->nchunk = 0;
		return 0;
	}
	while (left) {
		ssize_t w = pwritev(o->fd, iov + i, 2 - i, (off_t)at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		at += (uint64_t)w;
		left -= (size_t)w;
		while (i < 2 && (size_t)w >= iov[i].iov_len)
			w -= (ssize_t)iov[i++].iov_len;
		if (i < 2) {
			iov[i].iov_base = (char *)iov[i].iov_base + w;
			iov[i].iov_len -= (size_t)w;
		}
	}
	if (ret) {
		/* what was written of it would read as a chunk cut short, and hide the next ones */
		if (ftruncate(o->fd, (off_t)o->end) < 0 && !o->error)
			note_error(o, -errno, "cutting samples.%d back to byte %llu", (int)o->root,
				   (unsigned long long)o->end);
		note_error(o, ret, "writing samples.%d at byte %llu", (int)o->root,
			   (unsigned long long)o->end);
		/* definitions are not lost: the next chunk repeats them */
		o->unwritten += o->chunk_records - o->chunk_defs;
		o->dropped += o->chunk_records - o->chunk_defs;
	} else {
		o->end = at;
		o->seq++;
		o->dropped = 0;
		o->defs_done = o->ndefs;
	}
	o->nchunk = 0;
	return ret;
}

static unsigned *image_of(struct sample_out *o, pid_t pid);

int sample_out_open(struct sample_out **out, const char *dir, pid_t pid, uint32_t nevents,
		    uint64_t features)
{
	struct psc_stream_header h;
	struct sample_out *o = calloc(1, sizeof(*o));
	char path[PATH_MAX + 32];
	uint64_t now = clock_monotonic_ns();
	int ret;

	if (!o)
		return -ENOMEM;
	o->chunk = malloc(CHUNK_WORDS * sizeof(uint64_t));
	if (!o->chunk) {
		free(o);
		return -ENOMEM;
	}
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
	o->root = pid;
	layout_path(dir, &(struct layout_file){.kind = LAYOUT_SAMPLES, .pid = (int)pid}, path,
		    sizeof(path));
	o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		ret = -errno;
		free(o->chunk);
		free(o);
		return ret;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PSC_STREAM_MAGIC, sizeof(h.magic));
	h.version = PSC_STREAM_VERSION_SAMPLES; /* 2: switch records (type 19); 3: kernel frames */
	h.header_size = sizeof(h);
	h.features = PSC_FEAT_SAMPLES | features;
	h.pid = (uint32_t)pid;
	h.rank = -1;
	h.clock_source = CLOCK_SOURCE_MONOTONIC;
	h.start_ticks = now;
	h.start_ns = now;
	h.nevents = nevents;
	ret = fd_write_all(o->fd, &h, sizeof(h));
	if (ret) {
		close(o->fd);
		unlink(path); /* a header cut short would be all there is */
		free(o->chunk);
		free(o);
		return ret;
	}
	o->end = sizeof(h);
	/* the exec that starts the command is the root's first record: it begins image 0 */
	if (!image_of(o, pid)) {
		sample_out_close(o);
		return -ENOMEM;
	}
	o->images[0].image = UINT_MAX;
	*out = o;
	return 0;
}

/* Room for a record of N words at time NS at the end of the queue: where to write it, or NULL
 * when out of memory. */
static uint64_t *queue(struct sample_out *o, uint64_t ns, size_t n, int is_mmap)
{
	uint64_t *w;

	if (ARRAY_GROW(o->pend, o->npend + 1, o->pendcap) ||
	    ARRAY_GROW(o->arena, o->narena + n, o->arenacap))
		return NULL;
	w = o->arena + o->narena;
	o->pend[o->npend++] = (struct pending){ns, o->arrivals++, o->narena, n, is_mmap};
	o->narena += n;
	return w;
}

int sample_out_add(struct sample_out *o, uint64_t ns, uint32_t type, uint32_t arg,
		   const uint64_t *payload, size_t n)
{
	uint64_t *w;

	if (n > SAMPLE_OUT_MAX_PAYLOAD)
		return -E2BIG;
	w = queue(o, ns, n + 2, 0);
	if (!w)
		return -ENOMEM;
	/* samples carry CLOCK_MONOTONIC ns, which fits the 62 bits of word 0 for 146 years */
	w[0] = psc_word0(ns, PSC_KIND_EXT);
	w[1] = psc_ext_word1((enum psc_rec_type)type, (uint32_t)(n + 2), arg);
	if (n)
		memcpy(w + 2, payload, n * sizeof(*payload));
	return 0;
}

#define MMAP_ID_WORDS ((sizeof(struct sample_mmap_id) + 7) / 8)

int sample_out_add_mmap_id(struct sample_out *o, uint64_t ns, pid_t pid, uint64_t start,
			   uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags,
			   const struct sample_mmap_id *id, const char *path)
{
	size_t plen = strnlen(path, PATH_MAX - 1), n = 5 + MMAP_ID_WORDS + plen / 8 + 1;
	uint64_t *w = queue(o, ns, n, 1);

	if (!w)
		return -ENOMEM;
	memset(w, 0, n * sizeof(*w));
	w[0] = (uint64_t)(uint32_t)pid;
	w[1] = start;
	w[2] = len;
	w[3] = pgoff;
	w[4] = prot | (uint64_t)flags << 32;
	if (id)
		memcpy(w + 5, id, sizeof(*id));
	memcpy(w + 5 + MMAP_ID_WORDS, path, plen);
	return 0;
}

int sample_out_add_mmap(struct sample_out *o, uint64_t ns, pid_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, uint32_t prot, uint32_t flags, const char *path)
{
	return sample_out_add_mmap_id(o, ns, pid, start, len, pgoff, prot, flags, NULL, path);
}

static unsigned *image_of(struct sample_out *o, pid_t pid)
{
	for (size_t i = 0; i < o->nimages; i++)
		if (o->images[i].pid == pid)
			return &o->images[i].image;
	if (ARRAY_GROW(o->images, o->nimages + 1, o->imagecap))
		return NULL;
	o->images[o->nimages] = (struct proc_image){pid, 0};
	return &o->images[o->nimages++].image;
}

static void pmaps_path(const struct sample_out *o, pid_t pid, unsigned image, char *path,
		       size_t len)
{
	struct layout_file f = {.kind = LAYOUT_PMAPS, .pid = (int)pid, .image = image};

	layout_path(o->dir, &f, path, len);
}

/* NAME with each newline written as \012, as /proc/<pid>/maps writes it. */
static void put_name(FILE *f, const char *name)
{
	for (; *name; name++)
		if (*name == '\n')
			fputs("\\012", f);
		else
			fputc(*name, f);
}

/* The "# object" line of a mapping's file: what the kernel gave (a build-id), and the size and
 * mtime of the file now, which tell without one only when it is the mapped inode. */
static void write_object(FILE *f, const struct sample_mmap_id *id, const char *name)
{
	struct stat st;
	int have = name[0] == '/' && !stat(name, &st);

	if (!id->build_id_len && !(have && id->has_ino && st.st_ino == id->ino &&
				   major(st.st_dev) == id->maj && minor(st.st_dev) == id->min))
		return;
	fputs("# object ", f);
	for (unsigned k = 0; k < id->build_id_len && k < sizeof(id->build_id); k++)
		fprintf(f, "%02x", id->build_id[k]);
	if (have)
		fprintf(f, "%s %lld %lld ", id->build_id_len ? "" : "-", (long long)st.st_size,
			(long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
	else
		fprintf(f, "%s - - ", id->build_id_len ? "" : "-");
	put_name(f, name);
	fputc('\n', f);
}

/* Append the mapping made at NS to pmaps.<pid>[.<image>] in /proc/<pid>/maps syntax, after a
 * "# mmap NS" line and before the "# object" line of its file (docs/format.md). */
static void write_mmap(struct sample_out *o, const uint64_t *w, uint64_t ns)
{
	pid_t pid = (pid_t)w[0];
	unsigned *image = image_of(o, pid);
	uint32_t prot = (uint32_t)w[4], flags = (uint32_t)(w[4] >> 32);
	const char *name = (const char *)(w + 5 + MMAP_ID_WORDS);
	struct sample_mmap_id id;
	char path[PATH_MAX + 64];
	FILE *f;

	if (!image)
		return;
	memcpy(&id, w + 5, sizeof(id));
	pmaps_path(o, pid, *image, path, sizeof(path));
	f = fopen(path, "ae");
	if (!f) {
		note_error(o, -errno, "writing %s", path + strlen(o->dir) + 1);
		return;
	}
	fprintf(f, "# mmap %llu\n%llx-%llx %c%c%c%c %08llx 00:00 0 ", (unsigned long long)ns,
		(unsigned long long)w[1], (unsigned long long)(w[1] + w[2]),
		prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
		prot & PROT_EXEC ? 'x' : '-', flags & MAP_SHARED ? 's' : 'p',
		(unsigned long long)w[3]);
	put_name(f, name);
	fputc('\n', f);
	write_object(f, &id, name);
	if (fclose(f) != 0)
		note_error(o, -errno, "writing %s", path + strlen(o->dir) + 1);
}

/*
 * A process forked by PARENT starts with its parent's mappings, which the kernel does not
 * report again: copy the parent's current pmaps file as the child's first.
 */
static void copy_maps(struct sample_out *o, pid_t parent, pid_t child)
{
	unsigned *pimage = image_of(o, parent), *cimage;
	char from[PATH_MAX + 64], to[PATH_MAX + 64], buf[65536];
	FILE *in, *out;
	size_t n;

	if (!pimage || *pimage == UINT_MAX)
		return;
	pmaps_path(o, parent, *pimage, from, sizeof(from));
	cimage = image_of(o, child);
	if (!cimage)
		return;
	pmaps_path(o, child, *cimage, to, sizeof(to));
	in = fopen(from, "re");
	if (!in)
		return;
	out = fopen(to, "ae");
	while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (!out || fclose(out) != 0)
		note_error(o, -errno, "writing %s", to + strlen(o->dir) + 1);
	fclose(in);
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Keep a copy of the sample group definition W (N words): 1, or 0 when out of memory (then a
 * chunk cut off loses it like any record). */
static int keep_def(struct sample_out *o, const uint64_t *w, size_t n)
{
	if (ARRAY_GROW(o->defs, o->ndefs + n, o->defscap))
		return 0;
	memcpy(o->defs + o->ndefs, w, n * sizeof(*w));
	o->ndefs += n;
	return 1;
}

static void emit(struct sample_out *o, const struct pending *p)
{
	uint64_t *w = o->arena + p->at;
	uint64_t ns = p->ns;

	if (p->is_mmap) {
		write_mmap(o, w, ns);
		return;
	}
	/*
	 * A record published later than the watermark allowed for (a preempted CPU) would put
	 * time backwards in the file: it keeps its place but takes the last time written.
	 */
	if (ns < o->last_ns) {
		ns = o->last_ns;
		w[0] = psc_word0(ns, PSC_KIND_EXT);
		o->late++;
	}
	o->last_ns = ns;
	if (psc_rec_type(w[1]) == PSC_REC_TASK && psc_rec_arg(w[1]) == PSC_TASK_EXEC) {
		unsigned *image = image_of(o, (pid_t)(uint32_t)w[2]);

		if (image)
			++*image;
	}
	if (psc_rec_type(w[1]) == PSC_REC_TASK && psc_rec_arg(w[1]) == PSC_TASK_FORK &&
	    (uint32_t)w[2] == (uint32_t)(w[2] >> 32) && (uint32_t)w[3] != (uint32_t)w[2])
		copy_maps(o, (pid_t)(uint32_t)w[3], (pid_t)(uint32_t)w[2]);
	if (o->nchunk && o->nchunk + p->n > CHUNK_WORDS)
		chunk_write(o);
	if (!o->nchunk)
		chunk_begin(o, ns);
	if (psc_rec_type(w[1]) == PSC_REC_SAMPLE_GROUP && keep_def(o, w, p->n))
		o->chunk_defs++;
	memcpy(o->chunk + o->nchunk, w, p->n * sizeof(*w));
	o->nchunk += p->n;
	o->chunk_records++;
	o->written++;
}

int sample_out_flush(struct sample_out *o, uint64_t watermark)
{
	size_t i, keep = 0, narena = 0;

	if (o->npend)
		qsort(o->pend, o->npend, sizeof(*o->pend), pending_cmp);
	for (i = 0; i < o->npend && o->pend[i].ns <= watermark; i++)
		emit(o, &o->pend[i]);
	if (i == o->npend) {
		o->npend = o->narena = 0;
		return 0;
	}
	/*
	 * What waits for a later flush moves to the spare arena in its new order (sorting broke
	 * the arena order, so compacting in place could overwrite a record not yet moved).
	 */
	if (ARRAY_GROW(o->spare, o->narena, o->sparecap))
		return -ENOMEM;
	for (; i < o->npend; i++) {
		struct pending p = o->pend[i];

		memcpy(o->spare + narena, o->arena + p.at, p.n * sizeof(uint64_t));
		p.at = narena;
		narena += p.n;
		o->pend[keep++] = p;
	}
	uint64_t *a = o->arena;
	size_t cap = o->arenacap;

	o->arena = o->spare;
	o->arenacap = o->sparecap;
	o->spare = a;
	o->sparecap = cap;
	o->npend = keep;
	o->narena = narena;
	return 0;
}

int sample_out_sync(struct sample_out *o, uint64_t now)
{
	if (o->nchunk <= o->head)
		return 0;
	if (now != UINT64_MAX && (!o->open_since || now - o->open_since < SAMPLE_OUT_SYNC_NS)) {
		if (!o->open_since)
			o->open_since = now ? now : 1;
		return 0;
	}
	return chunk_write(o);
}

int sample_out_error(const struct sample_out *o, char *why, size_t len)
{
	if (o->error && len)
		snprintf(why, len, "%s", o->why);
	else if (len)
		why[0] = 0;
	return o->error;
}

uint64_t sample_out_unwritten(const struct sample_out *o)
{
	return o->unwritten;
}

int sample_out_close(struct sample_out *o)
{
	int ret;

	sample_out_flush(o, UINT64_MAX);
	chunk_write(o);
	if (close(o->fd) < 0)
		note_error(o, -errno, "closing samples.%d", (int)o->root);
	ret = o->error;
	free(o->chunk);
	free(o->pend);
	free(o->arena);
	free(o->spare);
	free(o->images);
	free(o->defs);
	free(o);
	return ret;
}

uint64_t sample_out_written(const struct sample_out *o)
{
	return o->written;
}

uint64_t sample_out_late(const struct sample_out *o)
{
	return o->late;
}
