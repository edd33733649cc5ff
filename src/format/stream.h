/*
 * stream.h - streaming, validating reader of one stream file (format.h, docs/format.md).
 *
 * Reads chunk by chunk with memory bounded by the largest chunk. Every defect (bad magic,
 * unknown version or record type, a length that overruns its chunk, time going backwards, a
 * payload that does not fit its record type, a region used before its definition, a counter
 * snapshot that does not match the counters record) is reported with the file name and byte
 * offset. A last chunk cut short (a run killed with SIGKILL) is not an error: the stream ends
 * there and `truncated_at` says where. The reader never trusts a length it has not checked
 * against the file: fuzzed by tests/fuzz/fuzz_stream.c. Compressed chunks (stream version 2)
 * are decompressed as they are loaded; defects of their records are reported at the chunk's
 * offset. A stream of more than one chunk is read ahead: a second thread loads (reads and
 * decompresses) chunk N + 1 while the caller walks chunk N (stream_set_prefetch()); the
 * records, errors and offsets are the same either way.
 */
#ifndef PSC_STREAM_H
#define PSC_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "format/mpi-routines.h"

struct stream_record {
	enum psc_kind kind;
	uint64_t ticks;
	uint64_t offset;	/* byte offset of the record in the file */
	uint64_t addr;		/* function records */
	enum psc_rec_type type; /* extended records */
	uint32_t arg;
	const uint64_t *payload; /* valid until the next stream_next() */
	size_t npayload;	 /* words */
};

/* Who loads the chunks after the current one (stream_set_prefetch()). */
enum stream_prefetch_mode {
	STREAM_PREFETCH_AUTO = 0, /* a second thread when the process may run on 2 CPUs or more
				   * (its affinity), else the calling thread */
	STREAM_PREFETCH_OFF,	  /* the calling thread, in stream_next() */
	STREAM_PREFETCH_ON,	  /* a second thread, whatever the CPUs (tests) */
};

struct stream_prefetch;

struct stream_reader {
	char *path;
	int fd;
	struct psc_stream_header hdr;
	uint64_t file_size;
	uint64_t offset; /* file offset of the current chunk's payload */
	uint64_t *chunk;
	size_t chunk_words, chunk_cap, pos;
	uint64_t next_seq;
	uint64_t first_ticks, last_ticks; /* of the records read so far */
	uint64_t nrecords;		  /* records read so far */
	uint64_t truncated_at; /* offset where a cut-short chunk starts; 0 when complete */
	int ended;	       /* a PSC_REC_STREAM_END record was read */
	unsigned end_reason;
	uint64_t chunk_offset; /* file offset of the current chunk's header */
	uint64_t rec_base;     /* a record's offset is rec_base + pos * pos_scale: */
	unsigned pos_scale;    /* 8 in a plain chunk, 0 in a compressed one (the chunk's) */
	char *zbuf;	       /* a compressed chunk's bytes */
	size_t zcap;
	enum stream_prefetch_mode prefetch;
	struct stream_prefetch *pf; /* the prefetch thread and its buffers; NULL none */
	/* validation state */
	uint32_t *region_ids; /* region ids defined so far, sorted */
	size_t nregion_ids, region_ids_cap;
	uint32_t *group_nr; /* members per counter group, from the counters record */
	size_t ngroups;
	int have_layout;	  /* a counters record was read */
	uint64_t last_sync_ns;	  /* CLOCK_MONOTONIC ns of the last clock-sync record */
	uint32_t *sample_group_n; /* samples files: members per sample group, 0 undefined */
};

/* Open PATH and check its header. 0, or a negative errno with "PATH: ..." in ERR. */
int stream_open(struct stream_reader *r, const char *path, char *err, size_t errlen);

/* Read and check the header of the stream or samples file at PATH into *H, as stream_open
 * does, without reading further: for a look at a stream's pid, rank or features. 0, or a
 * negative errno with "PATH: ..." in ERR. */
int stream_read_header(const char *path, struct psc_stream_header *h, char *err, size_t errlen);

/* Choose who loads R's chunks (STREAM_PREFETCH_AUTO after stream_open()); before the first
 * stream_next(). */
static inline void stream_set_prefetch(struct stream_reader *r, enum stream_prefetch_mode mode)
{
	r->prefetch = mode;
}

/* Next record: 1 and *REC, 0 at the end of the valid data, or a negative errno with
 * "PATH: byte N: ..." in ERR. */
int stream_next(struct stream_reader *r, struct stream_record *rec, char *err, size_t errlen);

/* File offset of the next record: in a compressed chunk, the chunk's. */
static inline uint64_t stream_record_offset(const struct stream_reader *r)
{
	return r->rec_base + r->pos * r->pos_scale;
}

/*
 * stream_next() for the common case, inline: when the next record is a function record of the
 * chunk in memory that passes the checks, 1 with rec->kind, ticks, addr and offset set (the
 * other fields are left as they were); else 0 and nothing consumed: call stream_next().
 */
static inline int stream_next_func(struct stream_reader *r, struct stream_record *rec)
{
	uint64_t w0, ticks;

	if (r->pos + 2 > r->chunk_words || r->ended || !r->nrecords)
		return 0;
	w0 = r->chunk[r->pos];
	ticks = psc_rec_ticks(w0);
	if (psc_rec_kind(w0) > PSC_KIND_FUNC_EXIT || ticks < r->last_ticks)
		return 0;
	rec->kind = psc_rec_kind(w0);
	rec->ticks = ticks;
	rec->addr = r->chunk[r->pos + 1];
	rec->offset = stream_record_offset(r);
	r->nrecords++;
	r->last_ticks = ticks;
	r->pos += 2;
	return 1;
}

/* What is wrong with an MPI enter or leave record of TYPE, routine ARG and NPAYLOAD words at
 * P (docs/format.md "MPI records"): MPI_CALL_OK, or the first defect; for MPI_CALL_BAD_ITEM,
 * *AT is the word of the item kind in the payload. stream_next() and stream_next_mpi_call()
 * both check through it. */
enum mpi_call_defect { MPI_CALL_OK, MPI_CALL_BAD_ROUTINE, MPI_CALL_BAD_LENGTH, MPI_CALL_BAD_ITEM };

static inline enum mpi_call_defect mpi_call_check(enum psc_rec_type type, uint32_t arg,
						  const uint64_t *p, size_t npayload, size_t *at)
{
	if (arg >= MPI_ROUTINE_COUNT)
		return MPI_CALL_BAD_ROUTINE;
	if (type == PSC_REC_MPI_ENTER ? npayload != 0
				      : npayload < 1 || (npayload - 1) % PSC_MPI_ITEM_WORDS)
		return MPI_CALL_BAD_LENGTH;
	for (size_t i = 1; i < npayload; i += PSC_MPI_ITEM_WORDS) {
		unsigned kind = (unsigned)(p[i] & 0xffu);

		if (kind < PSC_MPI_ITEM_SEND || kind > PSC_MPI_ITEM_COLL_REQ) {
			*at = i;
			return MPI_CALL_BAD_ITEM;
		}
	}
	return MPI_CALL_OK;
}

/*
 * stream_next_func() for MPI enter and leave records, the bulk of an MPI trace: when the next
 * record is one of the chunk in memory that passes stream_next()'s checks, 1 with *REC set as
 * stream_next() sets it; else 0 and nothing consumed: call stream_next().
 */
static inline int stream_next_mpi_call(struct stream_reader *r, struct stream_record *rec)
{
	uint64_t w0, w1, ticks;
	size_t nwords, at;
	enum psc_rec_type type;

	if (r->pos + 2 > r->chunk_words || r->ended || !r->nrecords)
		return 0;
	w0 = r->chunk[r->pos];
	w1 = r->chunk[r->pos + 1];
	ticks = psc_rec_ticks(w0);
	type = psc_rec_type(w1);
	nwords = psc_rec_nwords(w1);
	if (psc_rec_kind(w0) != PSC_KIND_EXT ||
	    (type != PSC_REC_MPI_ENTER && type != PSC_REC_MPI_LEAVE) || ticks < r->last_ticks ||
	    nwords < 2 || nwords > r->chunk_words - r->pos ||
	    mpi_call_check(type, psc_rec_arg(w1), r->chunk + r->pos + 2, nwords - 2, &at))
		return 0;
	*rec = (struct stream_record){.kind = PSC_KIND_EXT,
				      .ticks = ticks,
				      .offset = stream_record_offset(r),
				      .type = type,
				      .arg = psc_rec_arg(w1),
				      .payload = r->chunk + r->pos + 2,
				      .npayload = nwords - 2};
	r->nrecords++;
	r->last_ticks = ticks;
	r->pos += nwords;
	return 1;
}

/* Read only the clock-sync record that opens every chunk, skipping the rest: cheap
 * calibration before a full pass. Calls FN for each (ticks, ns). 0 or negative errno. */
int stream_scan_clock(const char *path, void (*fn)(void *ctx, uint64_t ticks, uint64_t ns),
		      void *ctx, char *err, size_t errlen);

/* How far a stream holds whole chunks, from their headers alone (stream_scan()). */
struct stream_extent {
	int want_end;	 /* in: also look whether the last chunk ends with an end record */
	uint64_t size;	 /* bytes in the file */
	uint64_t chunks; /* whole chunks from the start */
	/* offset of the chunk (or chunk header) cut short at the end of the file, as
	 * stream_reader.truncated_at will say; 0 when the file ends after a whole chunk */
	uint64_t cut_at;
	/* the walk met something that is neither a whole chunk nor a cut: a defect that the full
	 * pass reports with its offset (the chunks after it are not counted) */
	int defect;
	/* with want_end: 1 when the last whole chunk ends with an end record, 0 when it does not,
	 * -1 when not known (no chunk, a compressed last chunk, records that do not walk) */
	int ended;
};

/*
 * stream_scan_clock(), FN may be NULL, and what it found about the file's chunks into *X (may
 * be NULL; x->want_end is read). Only the last chunk is read whole, and only with want_end and
 * a plain last chunk. 0, or a negative errno when stream_open() fails (message in ERR).
 */
int stream_scan(const char *path, void (*fn)(void *ctx, uint64_t ticks, uint64_t ns), void *ctx,
		struct stream_extent *x, char *err, size_t errlen);

/* The counters record of the stream at PATH (it precedes every snapshot), read up to there:
 * each of its NEVENTS events' group index (PSC_NO_GROUP: not opened) into GROUP_OF and its
 * open status (0 or a negative errno) into STATUS (may be NULL). 1 when found, 0 when the
 * stream cannot be read, has none, or has one for another number of events. */
int stream_counters_layout(const char *path, uint32_t nevents, uint32_t *group_of, int32_t *status);

void stream_close(struct stream_reader *r);

/* Short name of REC's kind or type, as `perfscope dump` and `info` print it: "func-enter",
 * "func-exit", "region-def", "region-enter", "region-leave", "clock-sync", "counters",
 * "lost", "end", "thread-name", and in samples files "sample-group", "sample", "task",
 * "throttle", "totals"; MPI: "mpi-init", "mpi-enter", "mpi-leave", "mpi-comm", "mpi-clock". */
const char *stream_record_name(const struct stream_record *rec);

/* Name of an end record's reason (its argument's low 8 bits): "exit", "thread exit", "exec",
 * "signal", or "unknown". */
const char *stream_end_reason_name(unsigned arg);

#endif /* PSC_STREAM_H */
