/* record-meta.c - meta.json of a recording, and the probe of the events it names. */
#include "record/record-meta.h"

#include "format/env.h"
#include "format/layout.h"
#include "format/meta.h"
#include "lib/jsonw.h"
#include "pmu/clock.h"
#include "pmu/cpuinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META_ROOM 4096

/* TEXT and a newline into PATH opened with MODE, blank-padded to META_ROOM. 0 or -1 (errno). */
static int write_padded(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	size_t len = strlen(text) + 1;
	int ok, err = 0;

	if (!f)
		return -1;
	ok = fprintf(f, "%s\n", text) >= 0;
	for (; ok && len < META_ROOM - 1; len++)
		ok = fputc(' ', f) != EOF;
	if (ok && len < META_ROOM)
		ok = fputc('\n', f) != EOF;
	if (!ok)
		err = errno;
	if (fclose(f) != 0 && ok) {
		ok = 0;
		err = errno;
	}
	errno = err;
	return ok ? 0 : -1;
}

/* meta.json's "sampling" object: the sampled events in samples-file order and their fate;
 * once the run ENDED, also what the sampler counted and its errors. */
static void write_sampling(struct jsonw *w, const struct sampler *smp, int ended)
{
	jsonw_key(w, META_SAMPLING);
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "frequency", smp->cfg.freq);
	jsonw_kv_u64(w, "period", smp->cfg.period);
	jsonw_kv_bool(w, "callgraph", smp->cfg.callgraph);
	jsonw_kv_bool(w, "user_only", smp->cfg.exclude_kernel);
	jsonw_kv_bool(w, "inherit", smp->inherit);
	jsonw_kv_i64(w, "cpus", smp->ncpus);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < smp->nev; i++) {
		static const char *const states[] = {"group", "own group", "not supported"};

		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", smp->ev[i].desc.name);
		jsonw_kv_string(w, "state", states[smp->ev[i].state]);
		jsonw_kv_i64(w, "status", smp->ev[i].status);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	if (!ended) {
		jsonw_object_end(w);
		return;
	}
	jsonw_kv_u64(w, "samples", smp->samples);
	jsonw_kv_u64(w, "lost", smp->lost);
	jsonw_kv_u64(w, "throttled", smp->throttled);
	jsonw_kv_u64(w, "late", smp->late);
	if (smp->why[0])
		jsonw_kv_string(w, "error", smp->why);
	if (smp->ksyms_why[0])
		jsonw_kv_string(w, "kallsyms_error", smp->ksyms_why);
	jsonw_object_end(w);
}

/* One entry of meta.json's "unsupported_events": EV could not be opened with STATUS. */
static void write_unsupported_one(struct jsonw *w, const struct event_desc *ev, int status,
				  const struct perf_state *ps)
{
	char why[256];

	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", ev->name);
	jsonw_kv_i64(w, "status", status);
	jsonw_kv_string(
	    w, "reason",
	    counter_status_reason(status, ev, ps->paranoid, ps->have_core_pmu, why, sizeof(why)));
	jsonw_object_end(w);
}

/* meta.json's "unsupported_events": the -e/-g events that could not be opened and why, from
 * the sampler's opens (SMP) or, counting at region boundaries, from the probe's STATUS. */
static void write_unsupported(struct jsonw *w, const struct event_desc *evs, size_t nev,
			      const int *status, const struct sampler *smp)
{
	const char *procfs, *sysfs;
	struct perf_state ps;

	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	jsonw_key(w, META_UNSUPPORTED_EVENTS);
	jsonw_array_begin(w);
	if (smp) {
		/* ev[0] is the sampling leader: its failure fails the recording */
		for (size_t i = 1; i < smp->nev; i++)
			if (smp->ev[i].state == SAMPLER_FAILED)
				write_unsupported_one(w, &smp->ev[i].desc, smp->ev[i].status, &ps);
	} else {
		for (size_t i = 0; status && i < nev; i++)
			if (status[i])
				write_unsupported_one(w, &evs[i], status[i], &ps);
	}
	jsonw_array_end(w);
}

/* meta.json's "metric_group": G's name and its metrics' names, units and formulas. */
static void write_metric_group(struct jsonw *w, const struct metric_group *g)
{
	jsonw_key(w, META_METRIC_GROUP);
	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", g->name);
	jsonw_key(w, "metrics");
	jsonw_array_begin(w);
	for (size_t i = 0; i < g->nmetrics; i++) {
		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", g->metrics[i].name);
		jsonw_kv_string(w, "unit", g->metrics[i].unit);
		jsonw_kv_string(w, "formula", g->metrics[i].formula);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int record_probe_events(const struct event_desc *evs, size_t nev, int *status,
			void (*note)(void *ctx, const char *line), void *ctx)
{
	const char *procfs, *sysfs;
	struct counter_set set;
	struct perf_state ps;
	char why[256], line[EVENT_NAME_MAX + 300];

	if (counter_set_init(&set, evs, nev, COUNTER_DISABLED, NULL))
		return -ENOMEM;
	counter_set_open(&set, 0);
	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	for (size_t i = 0; i < nev; i++) {
		status[i] = set.ev[i].status;
		if (!status[i])
			continue;
		snprintf(line, sizeof(line), "%s: %s; counting goes on without it", evs[i].name,
			 counter_status_reason(status[i], &evs[i], ps.paranoid, ps.have_core_pmu,
					       why, sizeof(why)));
		note(ctx, line);
	}
	counter_set_release(&set);
	return 0;
}

int record_meta_write(const char *dir, const struct record_meta *m, const struct sampler *smp,
		      int exit_status, int exit_signal, const int64_t run_ns[2], char *err,
		      size_t errlen)
{
	const char *procfs, *sysfs;
	struct layout_file meta = {.kind = LAYOUT_META};
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	struct cpu_info ci;
	struct jsonw w;
	int ret = 0;

	psc_machine_roots(&procfs, &sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	meta_json_common(&w, &ci,
			 clock_source_choose(cpu_info_tsc_usable(&ci), getenv(PSC_ENV_CLOCK)),
			 m->start_unix_ns, "perfscope record");
	jsonw_key(&w, META_COMMAND);
	jsonw_array_begin(&w);
	for (int i = 0; i < m->ncmd; i++)
		jsonw_string(&w, m->cmd[i]);
	jsonw_array_end(&w);
	meta_json_events(&w, m->evs, m->nev);
	if (m->status || smp)
		write_unsupported(&w, m->evs, m->nev, m->status, smp);
	if (m->group)
		write_metric_group(&w, m->group);
	if (smp)
		write_sampling(&w, smp, run_ns != NULL);
	record_power_meta(m->rp, &w);
	if (m->mpi->on)
		jsonw_kv_bool(&w, META_MPI, 1);
	/* what the other ranks' records wait for */
	if (m->mpi->rank >= 0)
		jsonw_kv_string(&w, META_MPI_JOB, m->mpi->job ? m->mpi->job : "");
	if (m->mpi->run)
		jsonw_kv_string(&w, META_MPI_RUN, m->mpi->run);
	if (exit_status >= 0) {
		jsonw_kv_i64(&w, META_EXIT_STATUS, exit_status);
		jsonw_kv_i64(&w, META_EXIT_SIGNAL, exit_signal);
	}
	if (run_ns && run_ns[0]) {
		jsonw_kv_i64(&w, META_START_NS, run_ns[0]);
		jsonw_kv_i64(&w, META_END_NS, run_ns[1]);
	}
	jsonw_object_end(&w);
	layout_path(dir, &meta, path, sizeof(path));
	layout_path(dir, &(struct layout_file){.kind = LAYOUT_META_TMP}, tmp, sizeof(tmp));
	/* padded to a block, so that a full disk still lets it be rewritten in place; the first
	 * failure is the cause (the one in place fails with ENOENT when there is no file yet) */
	if (!jsonw_text(&w)) {
		snprintf(err, errlen, "cannot write %s: out of memory", path);
		ret = -ENOMEM;
	} else if (write_padded(tmp, w.buf, "we") < 0 || rename(tmp, path) < 0) {
		int cause = errno;

		if (write_padded(path, w.buf, "r+e") < 0) {
			snprintf(
			    err, errlen,
			    "cannot write %s: %s (record into a directory you can write: -o DIR)",
			    path, strerror(cause));
			ret = -EIO;
		}
	}
	unlink(tmp);
	jsonw_release(&w);
	return ret;
}
