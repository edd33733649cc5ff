/*
 * exp-inventory.h - what an experiment holds, as `perfscope info` shows it: each stream read
 * whole by a consumer of the pass (model/pass.h: its size, chunks, records by kind, time span,
 * losses and how it ended), its processes in order and how each one ended. A defect stops the
 * pass with the file and byte offset. Computes only: the CLI prints.
 */
#ifndef PSC_MODEL_EXP_INVENTORY_H
#define PSC_MODEL_EXP_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "format/format.h"
#include "format/stream.h"

/*
 * Record kinds in display order: the 2 function kinds, then every extended type by its number
 * (PSC_REC_REGION_DEF .. PSC_REC_SWITCH), named by inventory_kind_name(). The samples-only
 * types never occur in a stream (the reader rejects them there): their counts stay 0.
 */
#define INVENTORY_NKINDS (PSC_REC_SWITCH + 2)

/* What one stream holds. */
struct stream_info {
	const struct exp_stream *s;
	struct psc_stream_header hdr;
	char thread[64];
	uint64_t bytes, chunks, records;
	uint64_t by_kind[INVENTORY_NKINDS];
	uint64_t first_ticks, last_ticks;
	int64_t first_ns, last_ns; /* since the process's start pair */
	int64_t last_at;	   /* the last record's CLOCK_MONOTONIC ns */
	int ended;
	unsigned end_arg;
	uint64_t cut_at;
	uint64_t lost_records, lost_bytes;
};

/* What experiment E holds: its streams (E's order) and its processes (pid, then image order). */
struct exp_inventory {
	const struct experiment *e;
	struct stream_info *streams;	  /* e->nstreams */
	const struct exp_process **procs; /* e->nprocs, pointing into E */
};

struct ev_consumer;

/* C: the consumer of a pass over E's source (ev_source_experiment()) that fills INV with what
 * E's streams hold (INV released with exp_inventory_release, also on failure). It fails the
 * pass at a stream whose header does not match its file name. 0, or -ENOMEM. */
int exp_inventory_consumer(struct ev_consumer *c, struct exp_inventory *inv,
			   const struct experiment *e);

/* Read every stream of E into INV: a pass of its consumer alone. 0, or a negative errno with
 * one line in ERR: -ENOMEM, or the first stream's defect ("PATH: byte N: what"). */
int exp_inventory_read(struct exp_inventory *inv, const struct experiment *e, char *err,
		       size_t errlen);

void exp_inventory_release(struct exp_inventory *inv);

/* The name of record kind K (< INVENTORY_NKINDS), as stream_record_name() gives it. */
const char *inventory_kind_name(size_t k);

/* True for a kind only a samples file holds (format.h), never a stream's. */
int inventory_kind_samples_only(size_t k);

/* How stream SI ended: "exit", "thread exit", "exec", "signal 9 (KILL)", "cut at byte N", "no
 * end record", into BUF. */
void stream_info_end_text(const struct stream_info *si, char *buf, size_t len);

/*
 * How process P of E ended, from its proc file and its N streams SI's end records, into BUF.
 * A process whose proc file still says "running" wrote no end: it was killed, or it outlived
 * the command (record waits for the command alone, not for its background processes). A
 * record later than the command's end (meta.json's end_ns, on the same host's clock) shows it
 * outlived it; the command itself, which a signal ended (meta.json's exit_signal), was killed;
 * else the two cannot be told apart (a process still running keeps its last records in its
 * buffer), and the text says so.
 */
void inventory_process_state(const struct experiment *e, const struct exp_process *p,
			     const struct stream_info *si, size_t n, char *buf, size_t len);

/* The span from the first to the last record of the N streams SI, in CLOCK_MONOTONIC ns, into
 * *OUT; 0 when no stream holds a record of a known process. */
int inventory_span_ns(const struct stream_info *si, size_t n, double *out);

/* How many of the N streams SI are process P's. */
size_t inventory_streams_of(const struct exp_process *p, const struct stream_info *si, size_t n);

#endif /* PSC_MODEL_EXP_INVENTORY_H */
