/*
 * meta.h - the members of meta.json and of proc.<pid>[.<image>].json (docs/format.md), named
 * once for their writers (record, the runtime) and their readers (experiment-meta.c,
 * experiment-proc.c, expdir.c, record --mpi's wait for rank 0), and the part of meta.json that
 * every writer writes.
 */
#ifndef PSC_META_H
#define PSC_META_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/clock.h"
#include "pmu/cpuinfo.h"
#include "pmu/events.h"
#include "lib/jsonw.h"

/* meta.json */
#define META_FORMAT		"format"
#define META_FORMAT_NAME	"perfscope-experiment" /* the value of "format" */
#define META_VERSION		"version"
#define META_HOST		"host"
#define META_START_UNIX_NS	"start_unix_ns"
#define META_CPU		"cpu"
#define META_CPU_BRAND		"brand"
#define META_CLOCK		"clock"
#define META_CREATED_BY		"created_by"
#define META_COMMAND		"command"
#define META_EVENTS		"events"
#define META_UNSUPPORTED_EVENTS "unsupported_events"
#define META_METRIC_GROUP	"metric_group"
#define META_SAMPLING		"sampling"
#define META_POWER		"power"
#define META_MPI		"mpi"
#define META_MPI_JOB		"mpi_job"
#define META_MPI_RUN		"mpi_run"
#define META_EXIT_STATUS	"exit_status"
#define META_EXIT_SIGNAL	"exit_signal"
#define META_START_NS		"start_ns"
#define META_END_NS		"end_ns"

/* proc.<pid>[.<image>].json */
#define PROC_VERSION	       "version"
#define PROC_PID	       "pid"
#define PROC_IMAGE	       "image"
#define PROC_PPID	       "ppid"
#define PROC_RANK	       "rank"
#define PROC_WORLD_SIZE	       "world_size"
#define PROC_EXE	       "exe"
#define PROC_HOST	       "host"
#define PROC_CMDLINE	       "cmdline"
#define PROC_STATE	       "state"
#define PROC_CLOCK	       "clock"
#define PROC_CALIBRATION       "calibration"
#define PROC_START_UNIX_NS     "start_unix_ns"
#define PROC_CHUNK_BYTES       "chunk_bytes"
#define PROC_EVENTS	       "events"
#define PROC_PARANOID	       "paranoid"
#define PROC_HAVE_CORE_PMU     "have_core_pmu"
#define PROC_LOST_RECORDS      "lost_records"
#define PROC_LOST_THREADS      "lost_threads"
#define PROC_REGIONS_FOLDED    "regions_folded"
#define PROC_REGION_NAMES_CUT  "region_names_cut"
#define PROC_BUFFERS	       "buffers"
#define PROC_BUFFERS_IN_MEMORY "buffers_in_memory"
#define PROC_LOST_BYTES	       "lost_bytes"
#define PROC_FILTER	       "filter"
#define PROC_ERROR	       "error"

/*
 * Write the members every meta.json starts with, as members of the open object W: format,
 * version, host, start time, cpu and clock, and CREATED_BY ("perfscope record", or "runtime"
 * for a program run alone with PERFSCOPE_OUT).
 */
void meta_json_common(struct jsonw *w, const struct cpu_info *ci, enum clock_source clock,
		      uint64_t start_unix_ns, const char *created_by);

/* meta.json's "events": the names of the N events EVS, in the order they were given. */
void meta_json_events(struct jsonw *w, const struct event_desc *evs, size_t n);

#endif /* PSC_META_H */
