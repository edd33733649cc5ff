/*
 * sample-out.h - writing a samples file (docs/format.md) from records that arrive out of
 * order: the per-CPU ring buffers are drained one after the other, so a thread that migrated
 * can have a later sample read before an earlier one. Records wait in a pending list and are
 * written in time order once the drain has passed their time (the watermark).
 */
#ifndef PSC_SAMPLE_OUT_H
#define PSC_SAMPLE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sample_out;

/*
 * Create DIR/samples.<PID> (never replacing a file) with NEVENTS sampled events and the header
 * feature bits PSC_FEAT_SAMPLES | FEATURES (PSC_FEAT_SWITCHES when switch records will follow).
 * 0 or -errno.
 */
int sample_out_open(struct sample_out **out, const char *dir, pid_t pid, uint32_t nevents,
		    uint64_t features);

/* Payload words of the largest record sample_out_add takes (a sample of 64 values and a long
 * call chain fits). */
#define SAMPLE_OUT_MAX_PAYLOAD 512

/*
 * Queue the extended record of TYPE and ARG at time NS (CLOCK_MONOTONIC) with N payload words.
 * 0, -E2BIG above SAMPLE_OUT_MAX_PAYLOAD, or -ENOMEM.
 */
int sample_out_add(struct sample_out *o, uint64_t ns, uint32_t type, uint32_t arg,
		   const uint64_t *payload, size_t n);

/*
 * Queue an executable mapping of PID: when its turn comes it is appended, as a
 * /proc/PID/maps line, to DIR/pmaps.<PID>[.<image>] of the image PID runs then (an exec record
 * of PID queued before it starts the next image). 0 or -ENOMEM.
 */
int sample_out_add_mmap(struct sample_out *o, uint64_t ns, pid_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, uint32_t prot, uint32_t flags, const char *path);

/* What the kernel says of a mapping's file (PERF_RECORD_MMAP2): its build-id, or its device
 * and inode. */
struct sample_mmap_id {
	uint8_t build_id[20];
	uint8_t build_id_len; /* 0: none given */
	int has_ino;	      /* maj, min and ino are given */
	uint32_t maj, min;
	uint64_t ino;
};

/*
 * sample_out_add_mmap with the file's identity ID (NULL: unknown): the pmaps line is preceded
 * by "# mmap NS" and followed by "# object BUILDID SIZE MTIME PATH" (docs/format.md), the size
 * and mtime from the file as it is when the line is written (only when its inode is the
 * mapped one, without a build-id).
 */
int sample_out_add_mmap_id(struct sample_out *o, uint64_t ns, pid_t pid, uint64_t start,
			   uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags,
			   const struct sample_mmap_id *id, const char *path);

/*
 * Put, in time order, every queued record not later than WATERMARK into the open chunk (a full
 * chunk is written as it fills). 0, or -ENOMEM: the records could not be kept in order. Write
 * errors do not stop it: see sample_out_error().
 */
int sample_out_flush(struct sample_out *o, uint64_t watermark);

/*
 * How long records may wait in the open chunk: sample_out_sync writes it once it has seen it
 * open for this long, so that records reach the file soon after they were drained and a
 * launcher killed with SIGKILL loses only the last moments of the run.
 */
#define SAMPLE_OUT_SYNC_NS 100000000ull

/*
 * Called after each sample_out_flush with the time NOW (CLOCK_MONOTONIC ns): write the open
 * chunk when it holds records and this function saw it open SAMPLE_OUT_SYNC_NS before NOW (or
 * NOW is UINT64_MAX: at once). 0 or the negative errno of a failed write.
 */
int sample_out_sync(struct sample_out *o, uint64_t now);

/*
 * A chunk that cannot be written (a full disk) is cut off the file again, so that the file
 * stays readable, and its records are counted as unwritten; the next chunk written starts
 * with a lost record (PSC_LOST_UNWRITTEN) saying how many are missing before it. Writing goes
 * on. A pmaps line that cannot be written is an error too. The first error: its negative
 * errno (0 none) and, in WHY (LEN bytes), "writing samples.<pid> at byte N: <strerror>" or
 * "writing pmaps.<pid>: <strerror>".
 */
int sample_out_error(const struct sample_out *o, char *why, size_t len);

/* Records that were put into chunks that could not be written. */
uint64_t sample_out_unwritten(const struct sample_out *o);

/* Flush everything, write the last chunk and close. 0 or the first error. */
int sample_out_close(struct sample_out *o);

/* Records put into chunks so far (for tests and statistics). */
uint64_t sample_out_written(const struct sample_out *o);

/*
 * Records that arrived after later ones had been written (published long after their time):
 * written in place with the last time written, so that time never goes backwards.
 */
uint64_t sample_out_late(const struct sample_out *o);

#endif /* PSC_SAMPLE_OUT_H */
