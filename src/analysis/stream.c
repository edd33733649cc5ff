/* stream.c - validating stream reader. */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Chunks above this size are treated as corruption, not allocated. */
#define CHUNK_MAX_BYTES (1u << 30)

static int fail(char *err, size_t errlen, int code, const char *path, uint64_t offset,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail(char *err, size_t errlen, int code, const char *path, uint64_t offset,
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

static int read_at(int fd, void *buf, size_t len, uint64_t offset)
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

int stream_open(struct stream_reader *r, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	r->path = strdup(path);
	if (!r->path || fstat(r->fd, &st) < 0) {
		stream_close(r);
		snprintf(err, errlen, "%s: cannot read", path);
		return -EIO;
	}
	r->file_size = (uint64_t)st.st_size;
	ret = read_at(r->fd, &r->hdr, sizeof(r->hdr), 0);
	if (ret <= 0) {
		stream_close(r);
		return fail(err, errlen, -EINVAL, path, 0, "file shorter than the %zu-byte header",
			    sizeof(r->hdr));
	}
	if (memcmp(r->hdr.magic, PSC_STREAM_MAGIC, 8)) {
		stream_close(r);
		return fail(err, errlen, -EINVAL, path, 0, "not a perfscope stream (bad magic)");
	}
	if (r->hdr.version != PSC_FORMAT_VERSION) {
		uint32_t version = r->hdr.version;

		stream_close(r);
		return fail(err, errlen, -EINVAL, path, 8,
			    "format version %u, this perfscope reads %d", version,
			    PSC_FORMAT_VERSION);
	}
	if (r->hdr.header_size < sizeof(r->hdr) || r->hdr.header_size % 8 ||
	    r->hdr.header_size > r->file_size) {
		uint32_t size = r->hdr.header_size;

		stream_close(r);
		return fail(err, errlen, -EINVAL, path, 12, "bad header size %u", size);
	}
	r->offset = r->hdr.header_size;
	r->last_ticks = 0;
	return 0;
}

/* Load the chunk starting at r->offset. 1 loaded, 0 end of data, negative on corruption. */
static int load_chunk(struct stream_reader *r, char *err, size_t errlen)
{
	struct psc_chunk_header ch;
	uint64_t at = r->offset;
	int ret;

	if (at == r->file_size)
		return 0;
	ret = read_at(r->fd, &ch, sizeof(ch), at);
	if (ret < 0)
		return fail(err, errlen, ret, r->path, at, "read error: %s", strerror(-ret));
	if (ret == 0) { /* a chunk header cut short: the run was killed while writing */
		r->truncated_at = at;
		return 0;
	}
	if (ch.magic != PSC_CHUNK_MAGIC)
		return fail(err, errlen, -EINVAL, r->path, at, "bad chunk magic 0x%08x", ch.magic);
	if (ch.size % 8 || ch.size > CHUNK_MAX_BYTES)
		return fail(err, errlen, -EINVAL, r->path, at + 4, "bad chunk size %u", ch.size);
	if (ch.seq != r->next_seq)
		return fail(err, errlen, -EINVAL, r->path, at + 8,
			    "chunk sequence %" PRIu64 ", expected %" PRIu64, ch.seq, r->next_seq);
	if (at + sizeof(ch) + ch.size > r->file_size) {
		r->truncated_at = at;
		return 0;
	}
	if (ch.size / 8 > r->chunk_cap) {
		uint64_t *p = realloc(r->chunk, ch.size);

		if (!p)
			return fail(err, errlen, -ENOMEM, r->path, at, "out of memory");
		r->chunk = p;
		r->chunk_cap = ch.size / 8;
	}
	ret = read_at(r->fd, r->chunk, ch.size, at + sizeof(ch));
	if (ret <= 0)
		return fail(err, errlen, ret < 0 ? ret : -EIO, r->path, at, "read error");
	r->chunk_words = ch.size / 8;
	r->pos = 0;
	r->offset = at + sizeof(ch) + ch.size;
	r->next_seq++;
	return 1;
}

static int known_type(enum psc_rec_type t)
{
	return t >= PSC_REC_REGION_DEF && t <= PSC_REC_THREAD_NAME;
}

int stream_next(struct stream_reader *r, struct stream_record *rec, char *err, size_t errlen)
{
	uint64_t w0, w1, at;
	size_t nwords;
	int ret;

	while (r->pos >= r->chunk_words) {
		if (r->ended && r->offset < r->file_size)
			return fail(err, errlen, -EINVAL, r->path, r->offset,
				    "data after the end record");
		if (r->ended)
			return 0;
		ret = load_chunk(r, err, errlen);
		if (ret <= 0)
			return ret;
	}
	at = r->offset - (r->chunk_words - r->pos) * 8;
	if (r->ended)
		return fail(err, errlen, -EINVAL, r->path, at, "records after the end record");
	if (r->pos + 2 > r->chunk_words)
		return fail(err, errlen, -EINVAL, r->path, at, "record overruns its chunk");
	w0 = r->chunk[r->pos];
	w1 = r->chunk[r->pos + 1];
	memset(rec, 0, sizeof(*rec));
	rec->kind = psc_rec_kind(w0);
	rec->ticks = psc_rec_ticks(w0);
	rec->offset = at;
	nwords = 2;
	switch (rec->kind) {
	case PSC_KIND_FUNC_ENTER:
	case PSC_KIND_FUNC_EXIT:
		rec->addr = w1;
		break;
	case PSC_KIND_EXT:
		rec->type = psc_rec_type(w1);
		rec->arg = psc_rec_arg(w1);
		nwords = psc_rec_nwords(w1);
		if (!known_type(rec->type))
			return fail(err, errlen, -EINVAL, r->path, at + 8, "unknown record type %u",
				    rec->type);
		if (nwords < 2 || r->pos + nwords > r->chunk_words)
			return fail(err, errlen, -EINVAL, r->path, at + 8,
				    "record length %zu words overruns its chunk", nwords);
		rec->payload = r->chunk + r->pos + 2;
		rec->npayload = nwords - 2;
		break;
	default:
		return fail(err, errlen, -EINVAL, r->path, at, "reserved record kind 3");
	}
	if (rec->ticks < r->last_ticks)
		return fail(err, errlen, -EINVAL, r->path, at, "time goes backwards");
	r->last_ticks = rec->ticks;
	if (rec->kind == PSC_KIND_EXT && rec->type == PSC_REC_STREAM_END) {
		r->ended = 1;
		r->end_reason = rec->arg;
	}
	r->pos += nwords;
	return 1;
}

int stream_scan_clock(const char *path, void (*fn)(void *ctx, uint64_t ticks, uint64_t ns),
		      void *ctx, char *err, size_t errlen)
{
	struct stream_reader r;
	int ret = stream_open(&r, path, err, errlen);

	if (ret)
		return ret;
	for (uint64_t at = r.offset; at + sizeof(struct psc_chunk_header) <= r.file_size;) {
		struct psc_chunk_header ch;
		uint64_t rec[3];

		if (read_at(r.fd, &ch, sizeof(ch), at) <= 0 || ch.magic != PSC_CHUNK_MAGIC ||
		    ch.size % 8 || at + sizeof(ch) + ch.size > r.file_size)
			break; /* the full pass reports defects precisely */
		if (ch.size >= sizeof(rec) &&
		    read_at(r.fd, rec, sizeof(rec), at + sizeof(ch)) > 0 &&
		    psc_rec_kind(rec[0]) == PSC_KIND_EXT &&
		    psc_rec_type(rec[1]) == PSC_REC_CLOCK_SYNC && psc_rec_nwords(rec[1]) == 3)
			fn(ctx, psc_rec_ticks(rec[0]), rec[2]);
		at += sizeof(ch) + ch.size;
	}
	stream_close(&r);
	return 0;
}

void stream_close(struct stream_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->chunk);
	free(r->path);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
