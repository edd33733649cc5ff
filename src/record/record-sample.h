/*
 * record-sample.h - `perfscope record --sample/--period`: the sampler's configuration from the
 * options, and the sampler opened on the held command and started. Nothing here prints:
 * errors come back with one line in the caller's buffer, warnings and what became of each
 * event as lines handed to a callback.
 */
#ifndef PSC_RECORD_SAMPLE_H
#define PSC_RECORD_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/events.h"
#include "record/sampler.h"

/*
 * --sample=HZ or --period N (not 0: HZ is ignored) into CFG, with CALLGRAPH. A frequency
 * above the kernel's limit (kernel.perf_event_max_sample_rate) is lowered to it, with a
 * warning line to NOTE (with CTX). 0, or -EINVAL with ERR saying what HZ should be.
 */
int record_sample_config(const char *hz, uint64_t period, int callgraph, struct sampler_config *cfg,
			 void (*note)(void *ctx, const char *line), void *ctx, char *err,
			 size_t errlen);

/*
 * Open SMP with CFG on the NEV events EVS on the held child PID, and start it writing into
 * DIR. Lines to NOTE (with CTX): the kernel not sampled, events not inherited by this kernel,
 * each event left out or sampled in a group of its own, and why. 0, or a negative errno with
 * the cause (and for a refusal, the fix) in ERR; SMP is for sampler_release either way.
 */
int record_sample_open(struct sampler *smp, const struct sampler_config *cfg,
		       const struct event_desc *evs, size_t nev, pid_t pid, const char *dir,
		       void (*note)(void *ctx, const char *line), void *ctx, char *err,
		       size_t errlen);

#endif /* PSC_RECORD_SAMPLE_H */
