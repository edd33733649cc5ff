/* cmd-record.c - `perfscope record`: run a command under the runtime into an experiment. */
#include "cli/cli.h"
#include "record/launch.h"
#include "record/record-mpi.h"
#include "record/record-power.h"
#include "record/sampler.h"

#include "format/expdir.h"
#include "format/salvage.h"
#include "format/stream.h"
#include "pmu/clock.h"
#include "pmu/counters.h"
#include "lib/compiler.h"
#include "pmu/cpuinfo.h"
#include "format/env.h"
#include "format/filter.h"
#include "format/format.h"
#include "lib/jsonw.h"
#include "lib/mem.h"
#include "pmu/metrics.h"
#include "format/layout.h"
#include "format/meta.h"
#include "lib/strbuf.h"
#include "view/caveats.h"
#include "lib/textesc.h"

#include "model/objcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The longest NAME=VALUE string execve passes (Linux's MAX_ARG_STRLEN: 32 pages of 4 KiB). */
#define ENV_STRING_MAX (32 * 4096)

/*
 * Make DIR ready: create it (*CREATED set), or with FORCE move the experiment in it aside into
 * OLD (expdir.h): an empty directory, or one whose meta.json is an experiment's; nothing else
 * in it is touched. 0, or a negative errno after saying why, DIR as it was.
 */
static int prepare_dir(const char *dir, int force, int *created, struct expdir_stash *old)
{
	char err[PATH_MAX + 256];
	int ret;

	*created = 0;
	if (mkdir(dir, 0755) == 0) {
		*created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		ret = -errno;
		cli_error("record", "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	if (!force) {
		cli_error("record", "%s exists; not overwriting it (use --force, or -o NEWDIR)",
			  dir);
		return -EEXIST;
	}
	ret = expdir_stash(old, dir, err, sizeof(err));
	if (ret == -ENOTEMPTY || ret == -EEXIST)
		cli_error("record",
			  "%s; --force replaces only an experiment, and nothing in %s was removed "
			  "(record into a new or empty directory: -o NEWDIR)",
			  err, dir);
	else if (ret)
		cli_error("record",
			  "cannot replace the experiment in %s: %s; it is kept as it was (record "
			  "into a new directory: -o NEWDIR)",
			  dir, err);
	return ret;
}

/* The command never ran: remove a directory this run created, so a retry needs no --force, or
 * put the experiment --force replaces back in place (after saying why when it cannot be). */
static void abandon_dir(const char *dir, int created, struct expdir_stash *old)
{
	char err[PATH_MAX + 256];

	if (created) {
		expdir_clear(dir);
		rmdir(dir);
	} else if (expdir_restore(old, err, sizeof(err))) {
		cli_error("record", "%s", err);
	}
}

/* The command starts: delete the experiment --force replaces (a failure is only a warning). */
static void drop_old(struct expdir_stash *old)
{
	char err[PATH_MAX + 256];

	if (expdir_drop(old, err, sizeof(err)))
		fprintf(stderr, "perfscope record: warning: %s\n", text_safe(err));
}

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

/*
 * Open the events as the runtime will, on this process and disabled, and keep each one's
 * status in STATUS (0 counting, else a negative errno); say on stderr which cannot be counted
 * (the runtime cannot tell). 0 or -ENOMEM.
 */
static int probe_events(const struct event_desc *evs, size_t nev, int *status)
{
	const char *procfs, *sysfs;
	struct counter_set set;
	struct perf_state ps;
	char why[256];

	if (counter_set_init(&set, evs, nev, COUNTER_DISABLED, NULL))
		return -ENOMEM;
	counter_set_open(&set, 0);
	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	for (size_t i = 0; i < nev; i++) {
		status[i] = set.ev[i].status;
		if (status[i])
			fprintf(stderr, "perfscope record: %s: %s; counting goes on without it\n",
				evs[i].name,
				counter_status_reason(status[i], &evs[i], ps.paranoid,
						      ps.have_core_pmu, why, sizeof(why)));
	}
	counter_set_release(&set);
	return 0;
}

static int write_meta(const char *dir, char **cmd, int ncmd, const struct event_desc *evs,
		      size_t nev, const int *status, const struct metric_group *g,
		      const struct sampler *smp, const struct record_power *rp,
		      const struct record_mpi *mpi, int exit_status, int exit_signal,
		      uint64_t start_unix_ns, const int64_t run_ns[2])
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
			 start_unix_ns, "perfscope record");
	jsonw_key(&w, META_COMMAND);
	jsonw_array_begin(&w);
	for (int i = 0; i < ncmd; i++)
		jsonw_string(&w, cmd[i]);
	jsonw_array_end(&w);
	meta_json_events(&w, evs, nev);
	if (status || smp)
		write_unsupported(&w, evs, nev, status, smp);
	if (g) {
		jsonw_key(&w, META_METRIC_GROUP);
		jsonw_object_begin(&w);
		jsonw_kv_string(&w, "name", g->name);
		jsonw_key(&w, "metrics");
		jsonw_array_begin(&w);
		for (size_t i = 0; i < g->nmetrics; i++) {
			jsonw_object_begin(&w);
			jsonw_kv_string(&w, "name", g->metrics[i].name);
			jsonw_kv_string(&w, "unit", g->metrics[i].unit);
			jsonw_kv_string(&w, "formula", g->metrics[i].formula);
			jsonw_object_end(&w);
		}
		jsonw_array_end(&w);
		jsonw_object_end(&w);
	}
	if (smp)
		write_sampling(&w, smp, run_ns != NULL);
	record_power_meta(rp, &w);
	if (mpi->on)
		jsonw_kv_bool(&w, META_MPI, 1);
	/* what the other ranks' records wait for */
	if (mpi->rank >= 0)
		jsonw_kv_string(&w, META_MPI_JOB, mpi->job ? mpi->job : "");
	if (mpi->run)
		jsonw_kv_string(&w, META_MPI_RUN, mpi->run);
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
		cli_error("record", "cannot write %s: out of memory", path);
		ret = -ENOMEM;
	} else if (write_padded(tmp, w.buf, "we") < 0 || rename(tmp, path) < 0) {
		int cause = errno;

		if (write_padded(path, w.buf, "r+e") < 0) {
			cli_error("record",
				  "cannot write %s: %s (record into a directory you can write: -o "
				  "DIR)",
				  path, strerror(cause));
			ret = -EIO;
		}
	}
	unlink(tmp);
	jsonw_release(&w);
	return ret;
}

/* True when some stream of DIR holds function events (its header's feature bit). */
static int has_function_events(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[PATH_MAX + NAME_MAX + 2], err[64];
		struct psc_stream_header h;

		if (layout_parse(de->d_name, NULL) != LAYOUT_STREAM)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		found = !stream_read_header(path, &h, err, sizeof(err)) &&
			(h.features & PSC_FEAT_FUNCTIONS);
	}
	closedir(d);
	return found;
}

/* LD_PRELOAD the runtime (after the ASan runtime in sanitizer builds), with MPI its MPI
 * wrappers too (those of CMD's MPI), keeping the user's. */
static int preload_runtime(int mpi, char *const *cmd)
{
	char lib[PATH_MAX], mpilib[PATH_MAX + 32] = "", value[4 * PATH_MAX + 8];
	const char *old = getenv("LD_PRELOAD");

	if (cli_runtime_library(lib, sizeof(lib)) < 0) {
		cli_error("record",
			  "libperfscope.so.0 not found next to perfscope or in %s "
			  "(reinstall perfscope)",
			  PSC_LIB_INSTALL_DIR);
		return -ENOENT;
	}
	if (mpi && record_mpi_library(lib, cmd, mpilib, sizeof(mpilib)))
		return -ENOENT;
#ifdef PSC_ASAN_RUNTIME
	snprintf(value, sizeof(value), "%s:%s%s%s%s", PSC_ASAN_RUNTIME, lib, mpilib,
		 old && *old ? ":" : "", old && *old ? old : "");
	if (!getenv("ASAN_OPTIONS"))
		setenv("ASAN_OPTIONS", "detect_leaks=0:verify_asan_link_order=0", 1);
#else
	snprintf(value, sizeof(value), "%s%s%s%s", lib, mpilib, old && *old ? ":" : "",
		 old && *old ? old : "");
#endif
	return setenv("LD_PRELOAD", value, 1) ? -errno : 0;
}

/* Check the filter file before anything runs: the runtime cannot say what is wrong with it. */
static int check_filter(const char *path, char *abs, size_t len)
{
	struct psc_filter *f = NULL;
	size_t line = 0;
	int ret = filter_load(path, &f, &line);

	if (ret == -ENOENT || ret == -EACCES) {
		cli_error("record", "cannot read filter %s: %s", path, strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		cli_error("record",
			  "%s:%zu: not a perfscope filter line (write filters with "
			  "perfscope select)",
			  path, line);
		return ret;
	}
	filter_free(f);
	if (!realpath(path, abs))
		snprintf(abs, len, "%s", path);
	return 0;
}

static void record_note(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "perfscope record: %s\n", text_safe(line));
}

/* Complete the streams of the command's processes that ended without closing them (killed,
 * or gone through _exit), and say what was done and what could not be. */
static void salvage_report(const char *dir)
{
	struct salvage_stats st;
	char err[512];

	if (salvage_dir(dir, &st, err, sizeof(err)) < 0)
		cli_error("record", "%s", err);
	else
		salvage_caveats(&st, record_note, NULL);
}

/* Parse --sample=HZ / --period N into CFG, clamping HZ to the kernel's limit. 0 or -EINVAL. */
static int sample_config(const char *hz, uint64_t period, int callgraph, struct sampler_config *cfg)
{
	const char *procfs, *sysfs;
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
		cli_error("record", "--sample=%s: give a frequency in Hz, e.g. --sample=1000", hz);
		return -EINVAL;
	}
	psc_machine_roots(&procfs, &sysfs);
	max = sampler_max_rate(procfs);
	if (max && cfg->freq > max) {
		fprintf(
		    stderr,
		    "perfscope record: warning: %llu Hz is above kernel.perf_event_max_sample_rate="
		    "%llu; sampling at %llu Hz (raise it with: sysctl -w "
		    "kernel.perf_event_max_sample_rate=%llu)\n",
		    (unsigned long long)cfg->freq, (unsigned long long)max, (unsigned long long)max,
		    (unsigned long long)cfg->freq);
		cfg->freq = max;
	}
	return 0;
}

/* Open the sampler on the held child PID and say what became of each event. 0 or -errno. */
static int sample_open(struct sampler *smp, const struct sampler_config *cfg,
		       const struct event_desc *evs, size_t nev, pid_t pid, const char *dir)
{
	const char *procfs, *sysfs;
	struct perf_state ps;
	char why[256];
	int ret = sampler_open(smp, cfg, evs, nev, pid);

	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	if (ret == -EACCES || ret == -EPERM) {
		const char *fix = perf_state_fix(&ps, PERF_NEED_USER, why, sizeof(why));

		cli_error("record", "sampling not permitted (kernel.perf_event_paranoid=%d): %s",
			  ps.paranoid,
			  fix ? fix
			      : "run as root or grant CAP_PERFMON (a seccomp or LSM policy "
				"forbids perf_event_open)");
		return ret;
	}
	if (ret < 0) {
		cli_error("record", "cannot open the sampling events: %s", strerror(-ret));
		return ret;
	}
	if (smp->cfg.exclude_kernel)
		fprintf(stderr,
			"perfscope record: kernel code is not sampled "
			"(kernel.perf_event_paranoid=%d): user space only\n",
			ps.paranoid);
	if (!smp->inherit)
		fprintf(stderr,
			"perfscope record: warning: this kernel cannot sample the values of "
			"events inherited by new threads and processes (Linux 6.12 can): only "
			"the command's first thread is sampled\n");
	for (size_t i = 1; i < smp->nev; i++) {
		const struct sampler_event *e = &smp->ev[i];

		if (e->state == SAMPLER_FAILED)
			fprintf(stderr, "perfscope record: %s: %s; sampling goes on without it\n",
				e->desc.name,
				counter_status_reason(e->status, &e->desc, ps.paranoid,
						      ps.have_core_pmu, why, sizeof(why)));
		else if (e->state == SAMPLER_OWN_GROUP)
			fprintf(stderr,
				"perfscope record: %s cannot join the sampling group (%s): sampled "
				"in a group of its own\n",
				e->desc.name,
				counter_status_reason(e->join_error, &e->desc, ps.paranoid,
						      ps.have_core_pmu, why, sizeof(why)));
	}
	ret = sampler_start(smp, dir);
	if (ret)
		cli_error("record", "cannot start sampling into %s: %s", dir, strerror(-ret));
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct opt_list events = {0};
	const char *dir = "perfscope.out", *group = NULL, *filter = NULL, *bufsize = NULL;
	const char *sample = NULL, *load = NULL;
	uint64_t period = UINT64_MAX; /* not given */
	struct record_mpi mpi = {.rank = record_mpi_env_rank()};
	char **forward = NULL; /* the command run when record --mpi amends it for remote ranks */
	unsigned long load_ms = 100;
	int force = 0, help = 0, functions = 0, callgraph = 0, first, ret, status = 0, created = 0;
	struct record_power rp = {0};
	struct expdir_stash old = {0}; /* with --force, the experiment DIR held until CMD starts */
	const struct option_spec specs[] = {
	    {'o', "output", OPT_STRING, &dir, "DIR", "experiment directory (perfscope.out)", 0,
	     NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "replace an existing experiment in DIR", 0, NULL},
	    {'e', "event", OPT_LIST, &events, "EV,..",
	     "events read at every region boundary; with --sample, carried by every sample", 0,
	     NULL},
	    {'g', "group", OPT_STRING, &group, "GROUP",
	     "metric group: its events, and its formulas in the report", 0, NULL},
	    {0, "functions", OPT_FLAG, &functions, NULL,
	     "trace every function of a program built with -finstrument-functions", 0, NULL},
	    {0, "filter", OPT_STRING, &filter, "FILE",
	     "trace only the functions in FILE (from perfscope select); implies --functions", 0,
	     NULL},
	    {0, "sample", OPT_STRING, &sample, "HZ",
	     "sample the command HZ times a second per thread (1000), with all events",
	     OPT_ARG_OPTIONAL, "1000"},
	    {0, "period", OPT_UINT64, &period, "N",
	     "sample every N events of the leader instead of a frequency (implies --sample)", 0,
	     NULL},
	    {0, "callgraph", OPT_FLAG, &callgraph, NULL,
	     "with --sample: record call chains (frame pointers)", 0, NULL},
	    {0, "power", OPT_STRING, &rp.arg, "SRC",
	     "read energy during the run: rapl, perf (the power PMU) or file:PATH (a meter's file)",
	     0, NULL},
	    {0, "power-period", OPT_STRING, &rp.period, "T",
	     "with --power rapl|perf: read every T (10ms; at least 1ms)", 0, NULL},
	    {0, "power-format", OPT_STRING, &rp.format, "SPEC",
	     "with --power file: the meter's columns, e.g. time,watts (watts)", 0, NULL},
	    {0, "power-scale", OPT_STRING, &rp.scale, "S,..",
	     "with --power file: factors of the value columns", 0, NULL},
	    {0, "power-rate", OPT_STRING, &rp.rate, "HZ",
	     "with --power file: samples per second without a time column (20000)", 0, NULL},
	    {0, "power-offset", OPT_STRING, &rp.offset, "T",
	     "with --power file: added to the meter's times (may be negative)", 0, NULL},
	    {0, "mpi", OPT_FLAG, &mpi.on, NULL,
	     "trace MPI calls (libperfscope-mpi.so): perfscope record --mpi -- mpirun ..., or "
	     "mpirun ... perfscope record --mpi -- APP",
	     0, NULL},
	    {0, "load", OPT_STRING, &load, "MS",
	     "with --mpi: sample each host's and rank's CPU load every MS ms (100; 0 = off)",
	     OPT_ARG_OPTIONAL, "100"},
	    {0, "buffer-size", OPT_STRING, &bufsize, "SIZE",
	     "chunk of the per-thread buffer: 64k..1G (1M; each thread holds two)", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct metric_group mg = {0};
	struct sampler_config scfg;
	struct sampler smp = {.stop_fd = -1};
	int sampling;
	struct event_desc *evs = NULL;
	int *probed = NULL; /* per event: its status when record opened it (not sampling) */
	size_t nev = 0;
	struct strbuf list = STRBUF_INIT; /* PERFSCOPE_EVENTS: the events, comma-separated */
	char absdir[PATH_MAX], absfilter[PATH_MAX];
	struct timespec now;
	int64_t run_ns[2];
	struct launch l;
	uint64_t bufbytes;

	ret = cli_parse("record", specs, OPT_STOP_AT_OPERAND, argc - 1, argv + 1, &first, &help);
	if (ret) {
		opt_list_release(&events);
		return ret < 0 ? EXIT_USAGE : 0;
	}
	char **cmd = argv + 1 + first;
	int ncmd = argc - 1 - first;

	ret = EXIT_USAGE;
	if (ncmd <= 0) {
		cli_error("record", "no command given (usage: perfscope record [OPTIONS] -- CMD)");
		goto out;
	}
	if (bufsize &&
	    (parse_size(bufsize, &bufbytes) || bufbytes < (64u << 10) || bufbytes > (1u << 30))) {
		cli_error("record", "--buffer-size %s: give 64k to 1G, e.g. 4M", bufsize);
		goto out;
	}
	if (filter && check_filter(filter, absfilter, sizeof(absfilter)))
		goto out;
	if (load && !mpi.on) {
		cli_error("record", "--load needs --mpi");
		goto out;
	}
	if (load) {
		char *end;

		errno = 0;
		load_ms = strtoul(load, &end, 10);
		if (errno || *end || !*load || *load == '-' || load_ms > 3600000) {
			cli_error("record",
				  "--load=%s: give the period in ms, 1 to 3600000 (0 turns it off)",
				  load);
			goto out;
		}
	}
	/* ranks share DIR only with --mpi: without it each rank records where it is told */
	if (!mpi.on)
		mpi.rank = -1;
	if (mpi.rank >= 0)
		mpi.job = record_mpi_env_job();
	if (mpi.on && record_mpi_run_id(&mpi))
		goto out;

	if (period == 0) {
		cli_error("record", "--period 0: give the number of leader events between samples, "
				    "e.g. --period 1000000");
		goto out;
	}
	if (period == UINT64_MAX)
		period = 0;
	sampling = sample || period;
	if (callgraph && !sampling) {
		cli_error("record", "--callgraph needs --sample or --period");
		goto out;
	}
	if (sampling && sample_config(sample ? sample : "1000", period, callgraph, &scfg))
		goto out;
	functions |= filter != NULL;
	if (group && cli_load_group("record", group, &mg))
		goto out;
	if (cli_resolve_event_options("record", &events, group ? &mg : NULL, &evs, &nev))
		goto out;
	for (size_t i = 0; i < nev; i++)
		strbuf_addf(&list, "%s%s", i ? "," : "", evs[i].name);
	if (list.err) {
		cli_error("record", "out of memory");
		goto out;
	}
	if (sizeof(PSC_ENV_EVENTS "=") + list.len > ENV_STRING_MAX) {
		cli_error("record", "-e: %zu events take %zu bytes, the environment passes %d", nev,
			  list.len, ENV_STRING_MAX - (int)sizeof(PSC_ENV_EVENTS "="));
		goto out;
	}
	if (record_power_prepare(&rp))
		goto out;
	if (mpi.rank > 0) {
		/* every rank's record shares the directory: one power log, rank 0's */
		record_power_release(&rp);
		memset(&rp, 0, sizeof(rp));
	}
	/* before the directory exists: nothing is left behind when the runtime is missing */
	if ((functions || mpi.on) && preload_runtime(mpi.on, cmd))
		goto out;
	if (mpi.rank > 0) {
		/* rank 0 makes the directory; never touch it from here */
		if (record_mpi_wait_dir(dir, &mpi))
			goto out;
	} else if (prepare_dir(dir, force, &created, &old)) {
		goto out;
	}
	if (!realpath(dir, absdir)) {
		cli_error("record", "%s: %s", dir, strerror(errno));
		abandon_dir(dir, created, &old);
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t start = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

	if (mpi.rank <= 0 && !sampling && nev) {
		probed = calloc(nev, sizeof(*probed));
		if (!probed || probe_events(evs, nev, probed)) {
			cli_error("record", "out of memory");
			abandon_dir(absdir, created, &old);
			goto out;
		}
	}
	if (mpi.rank <= 0 && write_meta(absdir, cmd, ncmd, evs, nev, probed, group ? &mg : NULL,
					NULL, &rp, &mpi, -1, 0, start, NULL)) {
		abandon_dir(absdir, created, &old);
		goto out;
	}
	/* the environment reaches the command and every process it starts */

	if (setenv(PSC_ENV_OUT, absdir, 1) || setenv(PSC_ENV_LAUNCHER, "1", 1) ||
	    /* sampled events are counted by the sampler, not again at every region */
	    (nev && !sampling ? setenv(PSC_ENV_EVENTS, list.buf, 1) : unsetenv(PSC_ENV_EVENTS)) ||
	    (filter ? setenv(PSC_ENV_FILTER, absfilter, 1) : unsetenv(PSC_ENV_FILTER)) ||
	    (bufsize ? setenv(PSC_ENV_BUFSIZE, bufsize, 1) : 0) ||
	    (mpi.on ? setenv(PSC_ENV_MPI_LOAD, load ? load : "100", 1) : 0) ||
	    (mpi.run ? setenv(PSC_ENV_MPI_RUN, mpi.run, 1) : 0)) {
		cli_error("record", "cannot set the environment: %s", strerror(errno));
		abandon_dir(absdir, created, &old);
		goto out;
	}
	/* ranks on other hosts get the environment only through the launcher; the command
	 * run may carry inserted arguments, meta.json keeps the one typed (cmd) */
	if (mpi.on && mpi.rank < 0 && (errno = -record_mpi_forward_env(cmd, &forward))) {
		if (errno == E2BIG)
			cli_error(
			    "record",
			    "--mpi: too many variables for mpirun to forward to the ranks "
			    "(PERFSCOPE_*, LD_PRELOAD and OMPI_MCA_mca_base_env_list's: at most "
			    "64 names, 4 KiB): shorten OMPI_MCA_mca_base_env_list");
		else
			cli_error("record", "cannot set the environment: %s", strerror(errno));
		abandon_dir(absdir, created, &old);
		goto out;
	}

	ret = launch_prepare(&l, forward ? forward : cmd);
	if (ret) {
		cli_error("record", "cannot start %s: %s", cmd[0], strerror(-ret));
		abandon_dir(absdir, created, &old);
		ret = 1;
		goto out;
	}
	if (sampling && sample_open(&smp, &scfg, evs, nev, l.pid, absdir)) {
		launch_abort(&l);
		sampler_release(&smp);
		abandon_dir(absdir, created, &old);
		ret = EXIT_USAGE;
		goto out;
	}
	/* the sampled events' names, for the samples file of a run whose launcher is killed */
	if (sampling && mpi.rank <= 0)
		write_meta(absdir, cmd, ncmd, evs, nev, probed, group ? &mg : NULL, &smp, &rp, &mpi,
			   -1, 0, start, NULL);
	/* the first power reading, right before the command is released */
	if (record_power_start(&rp, absdir)) {
		launch_abort(&l);
		sampler_release(&smp);
		record_power_release(&rp);
		abandon_dir(absdir, created, &old);
		ret = EXIT_USAGE;
		goto out;
	}
	drop_old(&old);
	run_ns[0] = (int64_t)clock_monotonic_ns();
	ret = launch_go(&l);
	launch_wait(&l, &status, NULL);
	run_ns[1] = (int64_t)clock_monotonic_ns();
	salvage_report(absdir);
	record_power_stop(&rp);
	if (sampling) {
		int err = sampler_finish(&smp);

		if (err || smp.why[0])
			cli_error("record", "samples could not all be written: %s",
				  smp.why[0] ? smp.why : strerror(-err));
		fprintf(stderr, "perfscope record: %llu samples", (unsigned long long)smp.samples);
		if (smp.lost || smp.throttled)
			fprintf(stderr,
				", %llu lost, throttled %llu time%s (a lower --sample frequency "
				"avoids it)",
				(unsigned long long)smp.lost, (unsigned long long)smp.throttled,
				smp.throttled == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	if (ret < 0) {
		cli_error("record", "%s: %s", cmd[0],
			  ret == -EACCES ? "permission denied" : "command not found");
		ret = launch_exec_status(-ret);
		if (created)
			abandon_dir(absdir, created, &old);
		else if (mpi.rank <= 0)
			write_meta(absdir, cmd, ncmd, evs, nev, probed, group ? &mg : NULL, NULL,
				   &rp, &mpi, ret, 0, start, NULL);
		goto out;
	}
	record_power_report(&rp, absdir);
	if (mpi.rank <= 0)
		write_meta(absdir, cmd, ncmd, evs, nev, probed, group ? &mg : NULL,
			   sampling ? &smp : NULL, &rp, &mpi, status, l.signal, start, run_ns);
	if (functions && !has_function_events(absdir)) {
		if (l.signal && sigabbrev_np(l.signal))
			fprintf(stderr,
				"perfscope record: no function events were recorded: %s was killed "
				"by SIG%s before any was written\n",
				cmd[0], sigabbrev_np(l.signal));
		else
			fprintf(stderr,
				"perfscope record: no function events were recorded: build %s with "
				"-finstrument-functions (gcc, g++, gfortran, clang)\n",
				cmd[0]);
	}
	{
		char why[1024];

		/* the objects that ran, kept for reading the experiment after a rebuild */
		if (objects_cache_fill(absdir, why, sizeof(why)))
			fprintf(stderr, "perfscope record: warning: %s\n", text_safe(why));
	}
	if (mpi.rank <= 0)
		fprintf(stderr, "perfscope record: experiment in %s (see: perfscope %s %s)\n", dir,
			mpi.on ? "mpi" : "report", dir);
	ret = status;
out:
	expdir_stash_release(&old);
	strbuf_release(&list);
	free(forward);
	free(probed);
	sampler_release(&smp);
	record_power_release(&rp);
	psc_mem_free(evs);
	metric_group_release(&mg);
	opt_list_release(&events);
	return ret;
}
