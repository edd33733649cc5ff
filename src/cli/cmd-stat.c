/* cmd-stat.c - `perfscope stat`: count events over whole runs of a command. */
#include "cli/cli.h"
#include "record/launch.h"
#include "record/stat-thread.h"

#include "format/stat-result.h"
#include "lib/compiler.h"
#include "pmu/counters.h"
#include "pmu/counts.h"
#include "pmu/cpuinfo.h"
#include "pmu/metrics.h"
#include "view/stat-print.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What one run of a command needs: its counters, its launch, its threads (--per-thread). */
struct run_ctx {
	const char *cmdname;
	char **cmd;
	int per_thread;
	struct counter_set set;
	struct launch l;
	struct stat_threads th;
	struct rusage ru;
	int exit_status;
};

/* Prepare the launch of C->cmd with its counters (and its threads followed). 0, or a negative
 * errno after saying why. */
static int run_start(struct run_ctx *c, const struct event_desc *evs, size_t nev)
{
	int ret = launch_prepare(&c->l, c->cmd);

	if (ret) {
		cli_error(c->cmdname, "cannot start %s: %s", c->cmd[0], strerror(-ret));
		return ret;
	}
	counter_set_open(&c->set, c->l.pid);
	if (!c->per_thread)
		return 0;
	ret = stat_threads_attach(&c->th, c->l.pid, evs, nev);
	if (ret) {
		cli_error(c->cmdname, "--per-thread: cannot trace %s: %s%s", c->cmd[0],
			  strerror(-ret),
			  ret == -EPERM ? " (ptrace refused: is it run under a debugger, or "
					  "does a seccomp policy or yama forbid ptrace?)"
					: "");
		launch_abort(&c->l);
	}
	return ret;
}

/* Let the command run to its end; its exit status and times into C, its signal into OUT.
 * 0, or a negative errno after saying why. */
static int run_wait(struct run_ctx *c, struct stat_run *out)
{
	int ret, wret;

	if (!c->per_thread) {
		ret = launch_go(&c->l);
		launch_wait(&c->l, &c->exit_status, &c->ru);
		out->exit_signal = c->l.signal;
	} else {
		/* the traced child stops at any signal until served, even before its exec: read
		 * the exec's outcome only once the tracer loop has run */
		launch_release(&c->l);
		wret = stat_threads_wait(&c->th, &c->exit_status, &c->ru);
		out->exit_signal = c->th.signal;
		ret = launch_exec_result(&c->l);
		if (wret && ret == 0) {
			cli_error(c->cmdname, "--per-thread: following the threads failed: %s",
				  strerror(-wret));
			return wret;
		}
	}
	if (ret < 0) {
		cli_error(c->cmdname, "%s: %s", c->cmd[0],
			  ret == -EACCES ? "permission denied" : "command not found");
		return -launch_exec_status(-ret);
	}
	return 0;
}

/* The counts of the ended run into OUT (NEV events). 0, or a negative errno after saying
 * why. */
static int run_read(struct run_ctx *c, size_t nev, struct stat_run *out)
{
	uint32_t *group_of = calloc(nev + 1, sizeof(*group_of));
	int32_t *status = calloc(nev + 1, sizeof(*status));
	uint64_t *words = calloc(c->set.snapshot_words + 1, sizeof(*words));
	int ret = words && group_of && status ? counter_set_snapshot(&c->set, words) : -ENOMEM;

	if (group_of && status)
		counter_set_layout(&c->set, group_of, status);
	if (ret == 0)
		ret =
		    count_snapshot_decode(words, c->set.snapshot_words, group_of, nev, out->counts);
	if (ret == 0 && c->per_thread)
		ret = stat_threads_take(&c->th, out);
	if (ret)
		cli_error(c->cmdname, "reading the counters failed: %s", strerror(-ret));
	for (size_t i = 0; ret == 0 && i < nev; i++) {
		out->status[i] = status[i];
		out->user_only[i] = c->set.ev[i].user_only;
	}
	free(words);
	free(group_of);
	free(status);
	return ret;
}

/* One run of CMD: counts into OUT (event order), with PER_THREAD every thread's own counts
 * too. Returns CMD's status, or -errno. */
static int run_once(const char *cmdname, char **cmd, const struct event_desc *evs, size_t nev,
		    int per_thread, struct stat_run *out)
{
	struct run_ctx c = {.cmdname = cmdname, .cmd = cmd, .per_thread = per_thread};
	uint64_t t0, t1;
	int ret;

	ret = counter_set_init(&c.set, evs, nev, COUNTER_INHERIT | COUNTER_ENABLE_ON_EXEC, NULL);
	if (ret)
		return ret;
	ret = run_start(&c, evs, nev);
	t0 = now_ns();
	if (ret == 0)
		ret = run_wait(&c, out);
	t1 = now_ns();
	if (ret == 0)
		ret = run_read(&c, nev, out);
	if (ret == 0) {
		out->wall_ns = (double)(t1 - t0);
		out->user_ns =
		    (double)c.ru.ru_utime.tv_sec * 1e9 + (double)c.ru.ru_utime.tv_usec * 1e3;
		out->sys_ns =
		    (double)c.ru.ru_stime.tv_sec * 1e9 + (double)c.ru.ru_stime.tv_usec * 1e3;
		ret = c.exit_status;
	}
	stat_threads_release(&c.th);
	counter_set_release(&c.set);
	return ret;
}

/* The options of one `perfscope stat`. */
struct stat_opts {
	struct opt_list events;
	const char *group, *output, *format;
	long repeat;
	int csv, json, force, per_thread;
	enum out_format fmt;
};

/* Refuse options that do not go together. 0 or EXIT_USAGE after saying why. */
static int check_options(struct stat_opts *o, int ncmd)
{
	char why[128];

	if (ncmd <= 0) {
		cli_error("stat", "no command given (usage: perfscope stat [OPTIONS] -- CMD)");
		return EXIT_USAGE;
	}
	if (o->repeat < 1 || o->repeat > 100000) {
		cli_error("stat", "--repeat %ld: must be between 1 and 100000", o->repeat);
		return EXIT_USAGE;
	}
	if (o->per_thread && o->repeat > 1) {
		cli_error("stat", "--per-thread shows the threads of one run: drop -r/--repeat");
		return EXIT_USAGE;
	}
	if (o->csv && o->json) {
		cli_error("stat", "--csv and --json exclude each other");
		return EXIT_USAGE;
	}
	if (options_out_format(o->csv, o->json, o->format, &o->fmt, why, sizeof(why))) {
		cli_error("stat", "%s", why);
		return EXIT_USAGE;
	}
	return 0;
}

/* The events to count and the metrics to show into RES (MG: the group's), the machine's
 * permissions into PS. 0 or EXIT_USAGE after saying why. */
static int prepare(struct stat_opts *o, struct stat_result *res, struct metric_group *mg,
		   struct perf_state *ps)
{
	const char *procfs, *sysfs;
	struct cpu_info ci;

	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(ps, procfs, sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	if (ps->paranoid == PERF_PARANOID_UNKNOWN) {
		cli_error("stat", "this kernel has no perf_event_open (no "
				  "/proc/sys/kernel/perf_event_paranoid): build it with "
				  "CONFIG_PERF_EVENTS");
		return EXIT_USAGE;
	}
	if ((o->group || o->events.n == 0) &&
	    cli_load_group("stat", o->group ? o->group : cli_default_group(ps), mg))
		return EXIT_USAGE;
	if (o->group || o->events.n == 0)
		res->group = mg;
	if (cli_resolve_event_options("stat", &o->events, res->group, &res->events, &res->nevents))
		return EXIT_USAGE;
	if (stat_result_alloc(res, (size_t)o->repeat))
		return EXIT_USAGE;
	if (!o->group && o->events.n) {
		const char *dirs[8];
		size_t ndirs = cli_metric_dirs(dirs, ARRAY_SIZE(dirs));

		stat_result_find_metrics(res, dirs, ndirs);
	}
	/* refuse an existing file before running, create it only once there are results */
	if (o->output && strcmp(o->output, "-") && !o->force && access(o->output, F_OK) == 0) {
		cli_error("stat", "%s exists; not overwriting it (use --force)", o->output);
		return EXIT_USAGE;
	}
	return 0;
}

/* Run CMD o->repeat times into RES. 0, or the exit status after saying why not. */
static int run_all(const struct stat_opts *o, char **cmd, struct stat_result *res)
{
	for (long r = 0; r < o->repeat; r++) {
		int st =
		    run_once("stat", cmd, res->events, res->nevents, o->per_thread, &res->runs[r]);

		if (st < 0) /* the command could not be run, or not be counted */
			return -st >= 126 && -st <= 127 ? -st : 1;
		res->nruns++;
		if (st) {
			res->exit_status = st;
			res->exit_signal = res->runs[r].exit_signal;
		}
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {.repeat = 1};
	int help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'e', "event", OPT_LIST, &o.events, "EV,..", "events to count (repeatable)", 0, NULL},
	    {'g', "group", OPT_STRING, &o.group, "GROUP", "metric group: its events and formulas",
	     0, NULL},
	    {'r', "repeat", OPT_INT, &o.repeat, "N", "run N times: mean, stddev, min, max", 0,
	     NULL},
	    {0, "per-thread", OPT_FLAG, &o.per_thread, NULL,
	     "each thread's own counts too, child processes' threads included", 0, NULL},
	    {0, "csv", OPT_FLAG, &o.csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &o.json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &o.format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &o.output, "FILE", "write the results to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &o.force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct stat_result res;
	struct metric_group mg = {0};
	struct perf_state ps;
	FILE *out;

	memset(&res, 0, sizeof(res));
	ret = cli_parse("stat", specs, OPT_STOP_AT_OPERAND, argc - 1, argv + 1, &first, &help);
	if (ret) {
		opt_list_release(&o.events);
		return ret < 0 ? EXIT_USAGE : 0;
	}
	char **cmd = argv + 1 + first;
	int ncmd = argc - 1 - first;

	if ((ret = check_options(&o, ncmd)) || (ret = prepare(&o, &res, &mg, &ps)) ||
	    (ret = run_all(&o, cmd, &res)))
		goto out;
	if ((ret = cli_output_open("stat", o.output, o.force, &out)))
		goto out;
	res.command = cmd;
	res.ncommand = (size_t)ncmd;
	res.paranoid = ps.paranoid;
	res.have_core_pmu = ps.have_core_pmu;
	res.per_thread = o.per_thread;
	ret = stat_print(&res, o.fmt, out);
	ret = cli_output_close("stat", out, ret == 0, ret ? 1 : res.exit_status);
out:
	stat_result_release(&res);
	metric_group_release(&mg);
	opt_list_release(&o.events);
	return ret;
}
