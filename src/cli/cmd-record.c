/*
 * cmd-record.c - `perfscope record`: run a command under the runtime into an experiment. The
 * options are checked here and every message is printed here; the recording's parts are in
 * src/record/: the directory (record-dir.h), meta.json (record-meta.h), the command's
 * environment (record-env.h), sampling (record-sample.h), power (record-power.h), MPI
 * (record-mpi.h) and the launch (launch.h).
 */
#include "cli/cli.h"
#include "record/launch.h"
#include "record/record-dir.h"
#include "record/record-env.h"
#include "record/record-meta.h"
#include "record/record-mpi.h"
#include "record/record-omp.h"
#include "record/record-power.h"
#include "record/record-sample.h"
#include "record/sampler.h"

#include "format/env.h"
#include "format/expdir.h"
#include "format/experiment.h"
#include "format/salvage.h"
#include "lib/mem.h"
#include "lib/strbuf.h"
#include "lib/textesc.h"
#include "model/objcache.h"
#include "pmu/clock.h"
#include "pmu/metrics.h"
#include "view/caveats.h"
#include "view/table.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The longest NAME=VALUE string execve passes (Linux's MAX_ARG_STRLEN: 32 pages of 4 KiB). */
#define ENV_STRING_MAX (32 * 4096)

/* Room for a message of the recording's parts: two paths and their causes. */
#define MSG_MAX (2 * PATH_MAX + 512)

/* One `perfscope record`: its options, what was made of them, and the run. */
struct recording {
	/* the options */
	struct opt_list events;
	const char *dir, *group, *filter, *bufsize, *sample, *load;
	uint64_t period; /* UINT64_MAX: not given */
	int force, functions, callgraph, no_openmp;
	struct record_power rp;
	struct record_mpi mpi;
	char **cmd; /* the command as typed, NCMD words */
	int ncmd;
	/* made of them */
	int sampling;
	int openmp; /* the program uses OpenMP and --no-openmp was not given */
	struct sampler_config scfg;
	struct metric_group mg;
	struct event_desc *evs;
	size_t nev;
	int *probed;	    /* per event: its status when record opened it (not sampling) */
	struct strbuf list; /* PERFSCOPE_EVENTS: the events, comma-separated */
	char absdir[PATH_MAX], absfilter[PATH_MAX];
	char **forward; /* the command run when record --mpi amends it for remote ranks */
	struct record_meta meta;
	/* the run */
	int created;		 /* DIR was made by this run */
	struct expdir_stash old; /* with --force, the experiment DIR held until CMD starts */
	struct sampler smp;
	struct launch l;
	int64_t run_ns[2];
};

/* A line of the recording's parts, as they word it. */
static void note_plain(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "perfscope record: %s\n", line);
}

/* A line about the experiment's files, whose names may hold anything. */
static void record_note(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "perfscope record: %s\n", text_safe(line));
}

/* The command never ran: give DIR (as named here) up, saying what could not be put back. */
static void abandon(struct recording *r, const char *dir)
{
	char err[MSG_MAX];

	if (record_dir_abandon(dir, r->created, &r->old, err, sizeof(err)))
		cli_error("record", "%s", err);
}

/* meta.json as record_meta_write writes it, saying why it could not be. 0 or negative errno. */
static int write_meta(struct recording *r, const struct sampler *smp, int exit_status,
		      int exit_signal, const int64_t run_ns[2])
{
	char err[MSG_MAX];
	int ret = record_meta_write(r->absdir, &r->meta, smp, exit_status, exit_signal, run_ns, err,
				    sizeof(err));

	if (ret)
		cli_error("record", "%s", err);
	return ret;
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

/* Parse the options and find the command in ARGV. 0, 1 after --help, -1 on a usage error. */
static int parse_options(struct recording *r, int argc, char **argv)
{
	int help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'o', "output", OPT_STRING, &r->dir, "DIR", "experiment directory (perfscope.out)", 0,
	     NULL},
	    {0, "force", OPT_FLAG, &r->force, NULL, "replace an existing experiment in DIR", 0,
	     NULL},
	    {'e', "event", OPT_LIST, &r->events, "EV,..",
	     "events read at every region boundary; with --sample, carried by every sample", 0,
	     NULL},
	    {'g', "group", OPT_STRING, &r->group, "GROUP",
	     "metric group: its events, and its formulas in the report", 0, NULL},
	    {0, "functions", OPT_FLAG, &r->functions, NULL,
	     "trace every function of a program built with -finstrument-functions", 0, NULL},
	    {0, "filter", OPT_STRING, &r->filter, "FILE",
	     "trace only the functions in FILE (from perfscope select); implies --functions", 0,
	     NULL},
	    {0, "sample", OPT_STRING, &r->sample, "HZ",
	     "sample the command HZ times a second per thread (1000), with all events",
	     OPT_ARG_OPTIONAL, "1000"},
	    {0, "period", OPT_UINT64, &r->period, "N",
	     "sample every N events of the leader instead of a frequency (implies --sample)", 0,
	     NULL},
	    {0, "callgraph", OPT_FLAG, &r->callgraph, NULL,
	     "with --sample: record call chains (frame pointers)", 0, NULL},
	    {0, "power", OPT_STRING, &r->rp.arg, "SRC",
	     "read energy during the run: rapl, perf (the power PMU) or file:PATH (a meter's file)",
	     0, NULL},
	    {0, "power-period", OPT_STRING, &r->rp.period, "T",
	     "with --power rapl|perf: read every T (10ms; at least 1ms)", 0, NULL},
	    {0, "power-format", OPT_STRING, &r->rp.format, "SPEC",
	     "with --power file: the meter's columns, e.g. time,watts (watts)", 0, NULL},
	    {0, "power-scale", OPT_STRING, &r->rp.scale, "S,..",
	     "with --power file: factors of the value columns", 0, NULL},
	    {0, "power-rate", OPT_STRING, &r->rp.rate, "HZ",
	     "with --power file: samples per second without a time column (20000)", 0, NULL},
	    {0, "power-offset", OPT_STRING, &r->rp.offset, "T",
	     "with --power file: added to the meter's times (may be negative)", 0, NULL},
	    {0, "mpi", OPT_FLAG, &r->mpi.on, NULL,
	     "trace MPI calls (libperfscope-mpi.so): perfscope record --mpi -- mpirun ..., or "
	     "mpirun ... perfscope record --mpi -- APP",
	     0, NULL},
	    {0, "load", OPT_STRING, &r->load, "MS",
	     "with --mpi: sample each host's and rank's CPU load every MS ms (100; 0 = off)",
	     OPT_ARG_OPTIONAL, "100"},
	    {0, "no-openmp", OPT_FLAG, &r->no_openmp, NULL,
	     "do not record OpenMP regions, waits and worksharing (recorded when the program uses "
	     "OpenMP)",
	     0, NULL},
	    {0, "buffer-size", OPT_STRING, &r->bufsize, "SIZE",
	     "chunk of the per-thread buffer: 64k..1G (1M; each thread holds two)", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	ret = cli_parse("record", specs, OPT_STOP_AT_OPERAND, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret;
	r->cmd = argv + 1 + first;
	r->ncmd = argc - 1 - first;
	return 0;
}

/* --load=MS with --mpi: 0, or -1 after saying what it takes. */
static int check_load(const struct recording *r)
{
	unsigned long load_ms;
	char *end;

	if (!r->load)
		return 0;
	if (!r->mpi.on) {
		cli_error("record", "--load needs --mpi");
		return -1;
	}
	errno = 0;
	load_ms = strtoul(r->load, &end, 10);
	if (errno || *end || !*r->load || *r->load == '-' || load_ms > 3600000) {
		cli_error("record",
			  "--load=%s: give the period in ms, 1 to 3600000 (0 turns it off)",
			  r->load);
		return -1;
	}
	return 0;
}

/* Check the options that need nothing resolved, in the order their errors are said. 0, or -1
 * after saying why. */
static int check_options(struct recording *r)
{
	char err[MSG_MAX];
	uint64_t bufbytes;

	if (r->ncmd <= 0) {
		cli_error("record", "no command given (usage: perfscope record [OPTIONS] -- CMD)");
		return -1;
	}
	if (r->bufsize && (parse_size(r->bufsize, &bufbytes) || bufbytes < (64u << 10) ||
			   bufbytes > (1u << 30))) {
		cli_error("record", "--buffer-size %s: give 64k to 1G, e.g. 4M", r->bufsize);
		return -1;
	}
	if (r->filter &&
	    record_filter_check(r->filter, r->absfilter, sizeof(r->absfilter), err, sizeof(err))) {
		cli_error("record", "%s", err);
		return -1;
	}
	if (check_load(r))
		return -1;
	/* ranks share DIR only with --mpi: without it each rank records where it is told */
	if (!r->mpi.on)
		r->mpi.rank = -1;
	if (r->mpi.rank >= 0)
		r->mpi.job = record_mpi_env_job();
	if (r->mpi.on && record_mpi_run_id(&r->mpi))
		return -1;
	if (r->period == 0) {
		cli_error("record", "--period 0: give the number of leader events between samples, "
				    "e.g. --period 1000000");
		return -1;
	}
	if (r->period == UINT64_MAX)
		r->period = 0;
	r->sampling = r->sample || r->period;
	if (r->callgraph && !r->sampling) {
		cli_error("record", "--callgraph needs --sample or --period");
		return -1;
	}
	if (r->sampling &&
	    record_sample_config(r->sample ? r->sample : "1000", r->period, r->callgraph, &r->scfg,
				 note_plain, NULL, err, sizeof(err))) {
		cli_error("record", "%s", err);
		return -1;
	}
	r->functions |= r->filter != NULL;
	return 0;
}

/* The -e and -g events, and their list for the runtime. 0, or -1 after saying why. */
static int resolve_events(struct recording *r)
{
	if (r->group && cli_load_group("record", r->group, &r->mg))
		return -1;
	if (cli_resolve_event_options("record", &r->events, r->group ? &r->mg : NULL, &r->evs,
				      &r->nev))
		return -1;
	for (size_t i = 0; i < r->nev; i++)
		strbuf_addf(&r->list, "%s%s", i ? "," : "", r->evs[i].name);
	if (r->list.err) {
		cli_error("record", "out of memory");
		return -1;
	}
	if (sizeof(PSC_ENV_EVENTS "=") + r->list.len > ENV_STRING_MAX) {
		cli_error("record", "-e: %zu events take %zu bytes, the environment passes %d",
			  r->nev, r->list.len, ENV_STRING_MAX - (int)sizeof(PSC_ENV_EVENTS "="));
		return -1;
	}
	return 0;
}

/* The power source opened, the runtime preloaded, DIR made ready (rank 0) or waited for (the
 * other ranks), before anything else is written. 0, or -1 after saying why. */
static int prepare_dir(struct recording *r)
{
	char err[MSG_MAX], lib[PATH_MAX];

	if (record_power_prepare(&r->rp))
		return -1;
	if (r->mpi.rank > 0) {
		/* every rank's record shares the directory: one power log, rank 0's */
		record_power_release(&r->rp);
		memset(&r->rp, 0, sizeof(r->rp));
	}
	/* the runtime records OpenMP: preloaded for it alone when the program uses it */
	r->openmp = !r->no_openmp && record_omp_cmd(r->cmd);
	/* before the directory exists: nothing is left behind when the runtime is missing */
	if (r->functions || r->mpi.on || r->openmp) {
		if (cli_runtime_library(lib, sizeof(lib)) < 0) {
			cli_error("record",
				  "libperfscope.so.0 not found next to perfscope or in %s "
				  "(reinstall perfscope)",
				  PSC_LIB_INSTALL_DIR);
			return -1;
		}
		if (record_preload(lib, r->mpi.on, r->cmd))
			return -1;
	}
	if (r->mpi.rank > 0) {
		/* rank 0 makes the directory; never touch it from here */
		if (record_mpi_wait_dir(r->dir, &r->mpi))
			return -1;
	} else if (record_dir_prepare(r->dir, r->force, &r->created, &r->old, err, sizeof(err))) {
		cli_error("record", "%s", err);
		return -1;
	}
	if (!realpath(r->dir, r->absdir)) {
		cli_error("record", "%s: %s", r->dir, strerror(errno));
		abandon(r, r->dir);
		return -1;
	}
	return 0;
}

/* The events probed (counting at region boundaries) and the first meta.json (rank 0), the
 * environment set for the command. 0, or -1 after saying why and giving DIR up. */
static int prepare_run(struct recording *r)
{
	struct record_env env = {
	    .dir = r->absdir,
	    /* sampled events are counted by the sampler, not again at every region */
	    .events = r->nev && !r->sampling ? r->list.buf : NULL,
	    .filter = r->filter ? r->absfilter : NULL,
	    .bufsize = r->bufsize,
	    .mpi_load = r->mpi.on ? (r->load ? r->load : "100") : NULL,
	    .mpi_run = r->mpi.run,
	    .openmp_off = r->no_openmp,
	};
	int ret;

	if (r->mpi.rank <= 0 && !r->sampling && r->nev) {
		r->probed = calloc(r->nev, sizeof(*r->probed));
		if (!r->probed ||
		    record_probe_events(r->evs, r->nev, r->probed, note_plain, NULL)) {
			cli_error("record", "out of memory");
			goto fail;
		}
	}
	r->meta.status = r->probed;
	if (r->mpi.rank <= 0 && write_meta(r, NULL, -1, 0, NULL))
		goto fail;
	/* the environment reaches the command and every process it starts */
	if ((ret = record_env_set(&env))) {
		cli_error("record", "cannot set the environment: %s", strerror(-ret));
		goto fail;
	}
	/* ranks on other hosts get the environment only through the launcher; the command
	 * run may carry inserted arguments, meta.json keeps the one typed (cmd) */
	if (r->mpi.on && r->mpi.rank < 0 && (ret = record_mpi_forward_env(r->cmd, &r->forward))) {
		if (ret == -E2BIG)
			cli_error(
			    "record",
			    "--mpi: too many variables for mpirun to forward to the ranks "
			    "(PERFSCOPE_*, LD_PRELOAD and OMPI_MCA_mca_base_env_list's: at most "
			    "64 names, 4 KiB): shorten OMPI_MCA_mca_base_env_list");
		else
			cli_error("record", "cannot set the environment: %s", strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	abandon(r, r->absdir);
	return -1;
}

/* The command started held, the sampler and the power readings started on it, the old
 * experiment dropped. 0, or the exit status after saying why and giving DIR up. */
static int start_command(struct recording *r)
{
	char err[MSG_MAX];
	int ret = launch_prepare(&r->l, r->forward ? r->forward : r->cmd);

	if (ret) {
		cli_error("record", "cannot start %s: %s", r->cmd[0], strerror(-ret));
		abandon(r, r->absdir);
		return 1;
	}
	if (r->sampling && record_sample_open(&r->smp, &r->scfg, r->evs, r->nev, r->l.pid,
					      r->absdir, note_plain, NULL, err, sizeof(err))) {
		cli_error("record", "%s", err);
		launch_abort(&r->l);
		sampler_release(&r->smp);
		abandon(r, r->absdir);
		return EXIT_USAGE;
	}
	/* the sampled events' names, for the samples file of a run whose launcher is killed */
	if (r->sampling && r->mpi.rank <= 0)
		write_meta(r, &r->smp, -1, 0, NULL);
	/* the first power reading, right before the command is released */
	if (record_power_start(&r->rp, r->absdir)) {
		launch_abort(&r->l);
		sampler_release(&r->smp);
		record_power_release(&r->rp);
		abandon(r, r->absdir);
		return EXIT_USAGE;
	}
	if (record_dir_drop_old(&r->old, err, sizeof(err)))
		fprintf(stderr, "perfscope record: warning: %s\n", text_safe(err));
	return 0;
}

/* The sampler stopped: what it wrote and lost. */
static void finish_sampling(struct recording *r)
{
	struct sampler *smp = &r->smp;
	int err = sampler_finish(smp);

	if (err || smp->why[0])
		cli_error("record", "samples could not all be written: %s",
			  smp->why[0] ? smp->why : strerror(-err));
	fprintf(stderr, "perfscope record: %llu samples", (unsigned long long)smp->samples);
	if (smp->lost || smp->throttled)
		fprintf(stderr,
			", %llu lost, throttled %llu time%s (a lower --sample frequency "
			"avoids it)",
			(unsigned long long)smp->lost, (unsigned long long)smp->throttled,
			smp->throttled == 1 ? "" : "s");
	fputc('\n', stderr);
}

/* What the runtime could not write (a full disk, a directory gone): said when the run ends,
 * not only by the reports, whose numbers miss it. An experiment that cannot be read is left
 * to them to say why. */
static void loss_report(const char *dir)
{
	struct experiment e;
	char err[MSG_MAX];

	if (experiment_read(&e, dir, err, sizeof(err)) < 0)
		return;
	for (size_t i = 0; i < e.nprocs; i++) {
		const struct exp_process *pr = &e.procs[i];
		char bytes[32];

		fmt_count(bytes, sizeof(bytes), pr->lost_bytes);
		if (pr->error[0])
			fprintf(stderr, "perfscope record: warning: process %d: %s\n", (int)pr->pid,
				text_safe(pr->error));
		if (pr->lost_bytes || pr->lost_records)
			fprintf(stderr,
				"perfscope record: warning: process %d: %s bytes of trace lost "
				"(%" PRIu64 " record%s); the experiment holds what was written "
				"before\n",
				(int)pr->pid, bytes, pr->lost_records,
				pr->lost_records == 1 ? "" : "s");
	}
	experiment_clear(&e);
}

/* After a run that happened: the last meta.json, what the user should know, the objects
 * kept. */
static void report_run(struct recording *r, int status)
{
	char why[1024];

	record_power_report(&r->rp, r->absdir);
	if (r->mpi.rank <= 0)
		write_meta(r, r->sampling ? &r->smp : NULL, status, r->l.signal, r->run_ns);
	if (r->functions && !record_dir_has_functions(r->absdir)) {
		if (r->l.signal && sigabbrev_np(r->l.signal))
			fprintf(stderr,
				"perfscope record: no function events were recorded: %s was killed "
				"by SIG%s before any was written\n",
				r->cmd[0], sigabbrev_np(r->l.signal));
		else
			fprintf(stderr,
				"perfscope record: no function events were recorded: build %s with "
				"-finstrument-functions (gcc, g++, gfortran, clang)\n",
				r->cmd[0]);
	}
	/* not by each rank of `mpirun ... perfscope record --mpi`: every rank would read every
	 * rank's files, some still being written; `perfscope mpi` and the reports say it */
	if (r->mpi.rank < 0)
		loss_report(r->absdir);
	/* the objects that ran, kept for reading the experiment after a rebuild */
	if (objects_cache_fill(r->absdir, why, sizeof(why)))
		fprintf(stderr, "perfscope record: warning: %s\n", text_safe(why));
	if (r->mpi.rank <= 0)
		fprintf(stderr, "perfscope record: experiment in %s (see: perfscope %s %s)\n",
			r->dir, r->mpi.on ? "mpi" : "report", r->dir);
}

/* Release the command, wait for it, and complete the experiment. The exit status. */
static int run_command(struct recording *r)
{
	int ret, status = 0;

	r->run_ns[0] = (int64_t)clock_monotonic_ns();
	ret = launch_go(&r->l);
	launch_wait(&r->l, &status, NULL);
	r->run_ns[1] = (int64_t)clock_monotonic_ns();
	salvage_report(r->absdir);
	record_power_stop(&r->rp);
	if (r->sampling)
		finish_sampling(r);
	if (ret < 0) {
		cli_error("record", "%s: %s", r->cmd[0],
			  ret == -EACCES ? "permission denied" : "command not found");
		ret = launch_exec_status(-ret);
		if (r->created)
			abandon(r, r->absdir);
		else if (r->mpi.rank <= 0)
			write_meta(r, NULL, ret, 0, NULL);
		return ret;
	}
	report_run(r, status);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct recording r = {
	    .dir = "perfscope.out",
	    .period = UINT64_MAX,
	    .mpi = {.rank = record_mpi_env_rank()},
	    .list = STRBUF_INIT,
	    .smp = {.stop_fd = -1},
	};
	struct timespec now;
	int ret;

	ret = parse_options(&r, argc, argv);
	if (ret) {
		ret = ret < 0 ? EXIT_USAGE : 0;
		goto out;
	}
	ret = EXIT_USAGE;
	if (check_options(&r) || resolve_events(&r) || prepare_dir(&r))
		goto out;
	clock_gettime(CLOCK_REALTIME, &now);
	r.meta = (struct record_meta){
	    .cmd = r.cmd,
	    .ncmd = r.ncmd,
	    .evs = r.evs,
	    .nev = r.nev,
	    .group = r.group ? &r.mg : NULL,
	    .rp = &r.rp,
	    .mpi = &r.mpi,
	    .start_unix_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
	};
	if (prepare_run(&r))
		goto out;
	ret = start_command(&r);
	if (!ret)
		ret = run_command(&r);
out:
	expdir_stash_release(&r.old);
	strbuf_release(&r.list);
	free(r.forward);
	free(r.probed);
	sampler_release(&r.smp);
	record_power_release(&r.rp);
	psc_mem_free(r.evs);
	metric_group_release(&r.mg);
	opt_list_release(&r.events);
	return ret;
}
