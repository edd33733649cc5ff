/*
 * stream-chunk.c - loading a stream's chunks (plain, or LZ4 compressed: docs/format.md
 * "Compressed chunks"), and the prefetch thread that loads chunk N + 1 while the caller walks
 * chunk N, so that reading and decompressing overlap with the analysis.
 *
 * A load is a pure function of the file, the chunk's offset and its expected sequence number:
 * its result (the chunk, or the end of the data, or an error with its message) is the same in
 * either thread, and the caller takes a prefetched result only when it reaches that chunk, so
 * that records, errors and their offsets do not depend on the prefetch.
 */
#include "format/stream-int.h"

#include "lib/array.h"
#include "lib/qthread.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <lz4.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Chunks above this size are treated as corruption, not allocated. */
#define CHUNK_MAX_BYTES (1u << 30)

int stream_fail(char *err, size_t errlen, int code, const char *path, uint64_t offset,
		const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: byte %" PRIu64 ": %s", path, offset, msg);
	return code;
}

int stream_read_at(int fd, void *buf, size_t len, uint64_t offset)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int)(done == len);
}

/* The file a load reads: fixed once the stream is open. */
struct chunk_src {
	int fd;
	const char *path;
	uint32_t version;
	uint64_t file_size;
};

/* Buffers a chunk is loaded into: its records, and a compressed chunk's bytes. */
struct chunk_buf {
	uint64_t *chunk;
	size_t cap; /* words */
	char *zbuf;
	size_t zcap;
};

/* What loading the chunk at AT gave. */
struct chunk_load {
	int ret;	       /* 1 loaded, 0 end of the valid data, or a negative errno */
	uint64_t at;	       /* the chunk header's offset */
	uint64_t next;	       /* offset after the chunk */
	uint64_t truncated_at; /* ret 0: AT when the chunk there is cut short, else 0 */
	size_t words;	       /* of records in b->chunk */
	uint64_t rec_base;     /* see stream_reader */
	unsigned pos_scale;
};

/* Room for WORDS words in B's chunk buffer. */
static int chunk_room(struct chunk_buf *b, size_t words)
{
	return ARRAY_GROW(b->chunk, words, b->cap);
}

/*
 * The payload of the compressed chunk at AT (header CH, all bytes present) into b->chunk: its
 * first records as they are, then the LZ4 block decompressed. Words in *WORDS; 0 or an error
 * at the offending field.
 */
static int load_zchunk(const struct chunk_src *s, struct chunk_buf *b,
		       const struct psc_chunk_header *ch, uint64_t at, size_t *words, char *err,
		       size_t errlen)
{
	const size_t head = PSC_ZCHUNK_HEAD_WORDS * 8;
	uint64_t zw;
	uint32_t raw, csize;
	int ret, n;

	if (s->version < 2)
		return stream_fail(err, errlen, -EINVAL, s->path, at,
				   "compressed chunk in a version %u stream", s->version);
	if (ch->size < head + 8)
		return stream_fail(err, errlen, -EINVAL, s->path, at + 4,
				   "compressed chunk of %u bytes, its head needs %zu", ch->size,
				   head + 8);
	ret = stream_read_at(s->fd, &zw, 8, at + sizeof(*ch) + head);
	if (ret <= 0)
		return stream_fail(err, errlen, ret < 0 ? ret : -EIO, s->path, at, "read error");
	raw = (uint32_t)zw;
	csize = (uint32_t)(zw >> 32);
	if (raw == 0 || raw % 8 || raw > CHUNK_MAX_BYTES || csize == 0 ||
	    csize > (uint64_t)raw + raw / 255 + 16 || raw > (uint64_t)csize * 255 + 16 ||
	    ch->size - head - 8 < csize || ch->size - head - 8 - csize >= 8)
		return stream_fail(err, errlen, -EINVAL, s->path, at + sizeof(*ch) + head,
				   "compressed chunk: %u bytes that hold %u in a chunk of %u",
				   csize, raw, ch->size);
	if (ARRAY_GROW(b->zbuf, csize, b->zcap))
		return stream_fail(err, errlen, -ENOMEM, s->path, at, "out of memory");
	if (chunk_room(b, (head + raw) / 8))
		return stream_fail(err, errlen, -ENOMEM, s->path, at, "out of memory");
	ret = stream_read_at(s->fd, b->chunk, head, at + sizeof(*ch));
	if (ret > 0)
		ret = stream_read_at(s->fd, b->zbuf, csize, at + sizeof(*ch) + head + 8);
	if (ret <= 0)
		return stream_fail(err, errlen, ret < 0 ? ret : -EIO, s->path, at, "read error");
	n = LZ4_decompress_safe(b->zbuf, (char *)(b->chunk + PSC_ZCHUNK_HEAD_WORDS), (int)csize,
				(int)raw);
	if (n != (int)raw)
		return stream_fail(err, errlen, -EINVAL, s->path, at + sizeof(*ch) + head + 8,
				   "compressed chunk does not decompress to its %u bytes", raw);
	*words = (head + raw) / 8;
	return 0;
}

/* Load the chunk at AT, expected to be number SEQ, into B: the result in *L (l->ret also
 * returned; an error's message in ERR). */
static int chunk_load(const struct chunk_src *s, struct chunk_buf *b, uint64_t at, uint64_t seq,
		      struct chunk_load *l, char *err, size_t errlen)
{
	struct psc_chunk_header ch;
	int ret;

	memset(l, 0, sizeof(*l));
	l->at = at;
	if (at == s->file_size)
		return l->ret = 0;
	ret = stream_read_at(s->fd, &ch, sizeof(ch), at);
	if (ret < 0)
		return l->ret = stream_fail(err, errlen, ret, s->path, at, "read error: %s",
					    strerror(-ret));
	if (ret == 0) { /* a chunk header cut short: the run was killed while writing */
		l->truncated_at = at;
		return l->ret = 0;
	}
	if (ch.magic != PSC_CHUNK_MAGIC && ch.magic != PSC_CHUNK_MAGIC_LZ4)
		return l->ret = stream_fail(err, errlen, -EINVAL, s->path, at,
					    "bad chunk magic 0x%08x", ch.magic);
	if (ch.size % 8 || ch.size > CHUNK_MAX_BYTES)
		return l->ret = stream_fail(err, errlen, -EINVAL, s->path, at + 4,
					    "bad chunk size %u", ch.size);
	if (ch.seq != seq)
		return l->ret = stream_fail(err, errlen, -EINVAL, s->path, at + 8,
					    "chunk sequence %" PRIu64 ", expected %" PRIu64, ch.seq,
					    seq);
	if (at + sizeof(ch) + ch.size > s->file_size) {
		l->truncated_at = at;
		return l->ret = 0;
	}
	if (ch.magic == PSC_CHUNK_MAGIC_LZ4) {
		ret = load_zchunk(s, b, &ch, at, &l->words, err, errlen);
		if (ret)
			return l->ret = ret;
		/* records of a compressed chunk are reported at the chunk's offset */
		l->rec_base = at;
		l->pos_scale = 0;
	} else {
		if (chunk_room(b, ch.size / 8))
			return l->ret =
				   stream_fail(err, errlen, -ENOMEM, s->path, at, "out of memory");
		ret = stream_read_at(s->fd, b->chunk, ch.size, at + sizeof(ch));
		if (ret <= 0)
			return l->ret = stream_fail(err, errlen, ret < 0 ? ret : -EIO, s->path, at,
						    "read error");
		l->words = ch.size / 8;
		l->rec_base = at + sizeof(ch);
		l->pos_scale = 8;
	}
	l->next = at + sizeof(ch) + ch.size;
	return l->ret = 1;
}

/* States of the prefetch slot (stream_prefetch.state). */
enum { PF_IDLE, PF_ASKED, PF_DONE };

/*
 * The prefetch thread and the one chunk it loads ahead: the caller asks for the chunk after
 * its current one (PF_ASKED), the thread loads it into BUF (PF_DONE), the caller swaps BUF
 * with its own buffers when it reaches that chunk (PF_IDLE) and asks for the next one.
 */
struct stream_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* state or quit changed */
	int state;
	int quit;
	struct chunk_src src;
	uint64_t at, seq;      /* the chunk asked for */
	struct chunk_buf buf;  /* owned by the thread while PF_ASKED */
	struct chunk_load res; /* PF_DONE: what the load gave */
	char err[PATH_MAX + 256];
};

static void *prefetch_main(void *arg)
{
	struct stream_prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (pf->state != PF_ASKED && !pf->quit)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->quit)
			break;
		pthread_mutex_unlock(&pf->lock);
		chunk_load(&pf->src, &pf->buf, pf->at, pf->seq, &pf->res, pf->err, sizeof(pf->err));
		pthread_mutex_lock(&pf->lock);
		pf->state = PF_DONE;
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

/* Start R's prefetch thread: 0, or a negative errno (R then reads in the calling thread). The
 * thread blocks every signal: they stay the caller's. */
static int prefetch_start(struct stream_reader *r)
{
	struct stream_prefetch *pf = calloc(1, sizeof(*pf));
	int ret;

	if (!pf)
		return -ENOMEM;
	pf->src = (struct chunk_src){r->fd, r->path, r->hdr.version, r->file_size};
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	ret = qthread_start(&pf->thread, prefetch_main, pf);
	if (ret) {
		pthread_cond_destroy(&pf->cond);
		pthread_mutex_destroy(&pf->lock);
		free(pf);
		return ret;
	}
	r->pf = pf;
	return 0;
}

void stream_prefetch_stop(struct stream_reader *r)
{
	struct stream_prefetch *pf = r->pf;

	if (!pf)
		return;
	/* a load under way ends first (one chunk at most) */
	pthread_mutex_lock(&pf->lock);
	pf->quit = 1;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pthread_cond_destroy(&pf->cond);
	pthread_mutex_destroy(&pf->lock);
	free(pf->buf.chunk);
	free(pf->buf.zbuf);
	free(pf);
	r->pf = NULL;
}

/*
 * Whether the chunks after the one just loaded are to be prefetched: in STREAM_PREFETCH_AUTO
 * when this process may use two CPUs, in STREAM_PREFETCH_ON whatever the CPUs. Plain chunks
 * gain too: their copy out of the page cache moves off the caller's path (report of a plain
 * fib(34) trace: 0.43 s -> 0.36 s; compressed: 0.51 s -> 0.37 s; bench/README.md).
 */
static int want_prefetch(struct stream_reader *r)
{
	if (r->pf)
		return 1;
	if (r->prefetch == STREAM_PREFETCH_OFF)
		return 0;
	/* decided once: the CPUs are looked up, or the thread started, at the first chunk */
	if ((r->prefetch == STREAM_PREFETCH_AUTO && qthread_cpus() < 2) || prefetch_start(r) < 0) {
		r->prefetch = STREAM_PREFETCH_OFF;
		return 0;
	}
	return 1;
}

/*
 * Wait for the chunk R asked for. When it is the one at r->offset (always: r->offset moves
 * only here), 1: it becomes R's current buffer (R's buffer goes to the thread) and its result
 * goes into *L; else 0, the result dropped.
 */
static int prefetch_take(struct stream_reader *r, struct chunk_load *l, char *err, size_t errlen)
{
	struct stream_prefetch *pf = r->pf;
	uint64_t *chunk = r->chunk;
	size_t cap = r->chunk_cap;
	int took = 0;

	pthread_mutex_lock(&pf->lock);
	while (pf->state == PF_ASKED)
		pthread_cond_wait(&pf->cond, &pf->lock);
	if (pf->state == PF_DONE && pf->at == r->offset) {
		*l = pf->res;
		if (l->ret < 0)
			snprintf(err, errlen, "%s", pf->err);
		r->chunk = pf->buf.chunk;
		r->chunk_cap = pf->buf.cap;
		pf->buf.chunk = chunk;
		pf->buf.cap = cap;
		took = 1;
	}
	pf->state = PF_IDLE;
	pthread_mutex_unlock(&pf->lock);
	return took;
}

int stream_load_chunk(struct stream_reader *r, char *err, size_t errlen)
{
	struct chunk_load l;

	if (!r->pf || !prefetch_take(r, &l, err, errlen)) {
		const struct chunk_src src = {r->fd, r->path, r->hdr.version, r->file_size};
		struct chunk_buf b = {r->chunk, r->chunk_cap, r->zbuf, r->zcap};

		chunk_load(&src, &b, r->offset, r->next_seq, &l, err, errlen);
		r->chunk = b.chunk;
		r->chunk_cap = b.cap;
		r->zbuf = b.zbuf;
		r->zcap = b.zcap;
	}
	if (l.ret <= 0) {
		if (l.ret == 0 && l.truncated_at)
			r->truncated_at = l.truncated_at;
		return l.ret;
	}
	r->chunk_offset = l.at;
	r->chunk_words = l.words;
	r->rec_base = l.rec_base;
	r->pos_scale = l.pos_scale;
	r->pos = 0;
	r->offset = l.next;
	r->next_seq++;
	if (r->offset < r->file_size && want_prefetch(r)) {
		struct stream_prefetch *pf = r->pf;

		pthread_mutex_lock(&pf->lock);
		pf->at = r->offset;
		pf->seq = r->next_seq;
		pf->state = PF_ASKED;
		pthread_cond_broadcast(&pf->cond);
		pthread_mutex_unlock(&pf->lock);
	}
	return 1;
}
