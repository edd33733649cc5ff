/* record-sample.c - `perfscope record --sample`: the sampler's configuration and its start. */
#include "record/record-sample.h"

#include "pmu/counters.h"
#include "pmu/cpuinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int record_sample_config(const char *hz, uint64_t period, int callgraph, struct sampler_config *cfg,
			 void (*note)(void *ctx, const char *line), void *ctx, char *err,
			 size_t errlen)
{
	const char *procfs, *sysfs;
	char line[512];
	uint64_t max;
	char *end;

	memset(cfg, 0, sizeof(*cfg));
	cfg->callgraph = callgraph;
	if (period) {
		cfg->period = period;
		return 0;
	}
	errno = 0;
	cfg->freq = strtoull(hz, &end, 10);
	if (errno || *end || !cfg->freq || *hz == '-') {
		snprintf(err, errlen, "--sample=%s: give a frequency in Hz, e.g. --sample=1000",
			 hz);
		return -EINVAL;
	}
	psc_machine_roots(&procfs, &sysfs);
	max = sampler_max_rate(procfs);
	if (max && cfg->freq > max) {
		snprintf(
		    line, sizeof(line),
		    "warning: %llu Hz is above kernel.perf_event_max_sample_rate=%llu; sampling "
		    "at %llu Hz (raise it with: sysctl -w kernel.perf_event_max_sample_rate=%llu)",
		    (unsigned long long)cfg->freq, (unsigned long long)max, (unsigned long long)max,
		    (unsigned long long)cfg->freq);
		note(ctx, line);
		cfg->freq = max;
	}
	return 0;
}

/* What became of sampled event E, when it is not in the leader's group, to NOTE. */
static void note_event(const struct sampler_event *e, const struct perf_state *ps,
		       void (*note)(void *ctx, const char *line), void *ctx)
{
	char why[256], line[EVENT_NAME_MAX + 400];

	if (e->state == SAMPLER_FAILED)
		snprintf(line, sizeof(line), "%s: %s; sampling goes on without it", e->desc.name,
			 counter_status_reason(e->status, &e->desc, ps->paranoid, ps->have_core_pmu,
					       why, sizeof(why)));
	else if (e->state == SAMPLER_OWN_GROUP)
		snprintf(line, sizeof(line),
			 "%s cannot join the sampling group (%s): sampled in a group of its own",
			 e->desc.name,
			 counter_status_reason(e->join_error, &e->desc, ps->paranoid,
					       ps->have_core_pmu, why, sizeof(why)));
	else
		return;
	note(ctx, line);
}

int record_sample_open(struct sampler *smp, const struct sampler_config *cfg,
		       const struct event_desc *evs, size_t nev, pid_t pid, const char *dir,
		       void (*note)(void *ctx, const char *line), void *ctx, char *err,
		       size_t errlen)
{
	const char *procfs, *sysfs;
	struct perf_state ps;
	char why[256], line[128];
	int ret = sampler_open(smp, cfg, evs, nev, pid);

	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	if (ret == -EACCES || ret == -EPERM) {
		const char *fix = perf_state_fix(&ps, PERF_NEED_USER, why, sizeof(why));

		snprintf(err, errlen, "sampling not permitted (kernel.perf_event_paranoid=%d): %s",
			 ps.paranoid,
			 fix ? fix
			     : "run as root or grant CAP_PERFMON (a seccomp or LSM policy "
			       "forbids perf_event_open)");
		return ret;
	}
	if (ret < 0) {
		snprintf(err, errlen, "cannot open the sampling events: %s", strerror(-ret));
		return ret;
	}
	if (smp->cfg.exclude_kernel) {
		snprintf(
		    line, sizeof(line),
		    "kernel code is not sampled (kernel.perf_event_paranoid=%d): user space only",
		    ps.paranoid);
		note(ctx, line);
	}
	if (!smp->inherit)
		note(ctx,
		     "warning: this kernel cannot sample the values of events inherited by new "
		     "threads and processes (Linux 6.12 can): only the command's first thread "
		     "is sampled");
	for (size_t i = 1; i < smp->nev; i++)
		note_event(&smp->ev[i], &ps, note, ctx);
	ret = sampler_start(smp, dir);
	if (ret)
		snprintf(err, errlen, "cannot start sampling into %s: %s", dir, strerror(-ret));
	return ret;
}
