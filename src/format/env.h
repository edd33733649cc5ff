/*
 * env.h - every environment variable the CLI passes to the runtime, the few that tests use to
 * substitute fakes, and the CLI's cache directory. Nothing else of perfscope's own is read by
 * name; the cache directory's defaults come from the standard HOME and XDG_CACHE_HOME.
 */
#ifndef PSC_ENV_H
#define PSC_ENV_H

/* Experiment directory the runtime writes to; recording is off when unset. */
#define PSC_ENV_OUT "PERFSCOPE_OUT"
/* Comma-separated events read at every region boundary. */
#define PSC_ENV_EVENTS "PERFSCOPE_EVENTS"
/* Per-thread buffer chunk size in bytes (suffixes k, M accepted). */
#define PSC_ENV_BUFSIZE "PERFSCOPE_BUFFER_SIZE"
/* Set by `perfscope record`: the experiment's meta.json already exists. */
#define PSC_ENV_LAUNCHER "PERFSCOPE_LAUNCHER"
/* Directories searched for metric group files, colon-separated, before the built-in ones. */
#define PSC_ENV_METRICS_PATH "PERFSCOPE_METRICS_PATH"
/* Filter file of function tracing (written by `perfscope select`): record only its functions. */
#define PSC_ENV_FILTER "PERFSCOPE_FILTER"
/* MPI (record --mpi): the load sampler's period in ms, 0 for none (default 100). */
#define PSC_ENV_MPI_LOAD "PERFSCOPE_MPI_LOAD"
/* MPI (record --mpi): this run's nonce, the same in every rank (letters, digits, '.', '_',
 * '-'; at most 64). `perfscope record --mpi -- LAUNCHER` sets a fresh one for the launcher; a
 * launcher passing it to `perfscope record --mpi` ranks makes them share DIR only with rank 0's
 * record of the same run ("mpi_run" in meta.json), whatever the MPI job id. */
#define PSC_ENV_MPI_RUN "PERFSCOPE_MPI_RUN"
/* MPI (record --mpi, read by the CLI only): which MPI's wrappers to preload, "openmpi"
 * (libperfscope-mpi.so) or "mpich" (libperfscope-mpich.so), when record cannot tell from the
 * command or should not. */
#define PSC_ENV_MPI_IMPL "PERFSCOPE_MPI_IMPL"
/* Chunk compression by the writer thread: "auto" (the default: a full chunk is compressed when
 * the writer expects to finish before its thread fills its other buffer), "always" (every
 * full chunk: the smallest traces, and a recording thread may wait for the writer) or
 * "never". */
#define PSC_ENV_COMPRESS "PERFSCOPE_COMPRESS"
/* Force the clock source: "tsc" or "monotonic" (testing and odd hardware). */
#define PSC_ENV_CLOCK "PERFSCOPE_CLOCK"
/* "0" turns the runtime's OpenMP records off (record --no-openmp): the libgomp wrappers pass
 * through and the OMPT tool declines to start. */
#define PSC_ENV_OPENMP "PERFSCOPE_OPENMP"

/* CLI only: where `record --sample` keeps its per-boot copy of /proc/kallsyms and every
 * command its build-id cache of the recorded objects; set and empty: no cache (unset:
 * $XDG_CACHE_HOME/perfscope, else ~/.cache/perfscope). */
#define PSC_ENV_CACHE_DIR "PERFSCOPE_CACHE_DIR"
/* CLI only: the largest object (bytes, k/M/G suffixes) the build-id cache in the cache
 * directory keeps a copy of (unset: 256M; 0: none). */
#define PSC_ENV_CACHE_MAX_OBJECT "PERFSCOPE_CACHE_MAX_OBJECT"

/* Testing only: "OFFSET_NS:DRIFT_PPM" added to every CLOCK_MONOTONIC reading of the runtime in
 * this process, so that MPI clock alignment can be checked against a known skew. */
#define PSC_ENV_TEST_CLOCK_SKEW "PERFSCOPE_TEST_CLOCK_SKEW"

/* Testing only: roots substituted for /sys and /proc when reading machine state. */
#define PSC_ENV_SYSFS_ROOT  "PERFSCOPE_SYSFS_ROOT"
#define PSC_ENV_PROCFS_ROOT "PERFSCOPE_PROCFS_ROOT"
/* Testing only: the powercap tree read by `record --power rapl` (/sys/class/powercap). */
#define PSC_ENV_POWERCAP_ROOT "PERFSCOPE_POWERCAP_ROOT"

#endif /* PSC_ENV_H */
