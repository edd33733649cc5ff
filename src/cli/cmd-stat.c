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

/* One run of CMD: counts into OUT (event order), with PER_THREAD every thread's own counts
 * too. Returns CMD's status, or -errno. */
static int run_once(const char *cmdname, char **cmd, const struct event_desc *evs, size_t nev,
		    int per_thread, struct stat_run *out)
{
	struct stat_threads th = {0};
	uint32_t *group_of = calloc(nev + 1, sizeof(*group_of));
	int32_t *status = calloc(nev + 1, sizeof(*status));
	uint64_t *words = NULL, t0, t1;
	struct counter_set set;
	struct launch l;
	struct rusage ru;
	int ret, exit_status = 0;

	ret = counter_set_init(&set, evs, nev, COUNTER_INHERIT | COUNTER_ENABLE_ON_EXEC, NULL);
	if (ret || !group_of || !status) {
		free(group_of);
		free(status);
		return ret ? ret : -ENOMEM;
	}
	ret = launch_prepare(&l, cmd);
	if (ret) {
		cli_error(cmdname, "cannot start %s: %s", cmd[0], strerror(-ret));
		goto out;
	}
	counter_set_open(&set, l.pid);
	if (per_thread) {
		ret = stat_threads_attach(&th, l.pid, evs, nev);
		if (ret) {
			cli_error(
			    cmdname, "--per-thread: cannot trace %s: %s%s", cmd[0], strerror(-ret),
			    ret == -EPERM ? " (ptrace refused: is it run under a debugger, or "
					    "does a seccomp policy or yama forbid ptrace?)"
					  : "");
			launch_abort(&l);
			goto out;
		}
	}
	t0 = now_ns();
	if (per_thread) {
		int wret;

		/* the traced child stops at any signal until served, even before its exec: read
		 * the exec's outcome only once the tracer loop has run */
		launch_release(&l);
		wret = stat_threads_wait(&th, &exit_status, &ru);
		out->exit_signal = th.signal;
		ret = launch_exec_result(&l);
		if (wret && ret == 0) {
			cli_error(cmdname, "--per-thread: following the threads failed: %s",
				  strerror(-wret));
			ret = wret;
			goto out;
		}
	} else {
		ret = launch_go(&l);
		launch_wait(&l, &exit_status, &ru);
		out->exit_signal = l.signal;
	}
	t1 = now_ns();
	if (ret < 0) {
		cli_error(cmdname, "%s: %s", cmd[0],
			  ret == -EACCES ? "permission denied" : "command not found");
		ret = -launch_exec_status(-ret);
		goto out;
	}
	words = calloc(set.snapshot_words + 1, sizeof(*words));
	ret = words ? counter_set_snapshot(&set, words) : -ENOMEM;
	counter_set_layout(&set, group_of, status);
	if (ret == 0)
		ret = count_snapshot_decode(words, set.snapshot_words, group_of, nev, out->counts);
	if (ret == 0 && per_thread)
		ret = stat_threads_take(&th, out);
	if (ret) {
		cli_error(cmdname, "reading the counters failed: %s", strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < nev; i++) {
		out->status[i] = status[i];
		out->user_only[i] = set.ev[i].user_only;
	}
	out->wall_ns = (double)(t1 - t0);
	out->user_ns = (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3;
	out->sys_ns = (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
	ret = exit_status;
out:
	free(words);
	free(group_of);
	free(status);
	stat_threads_release(&th);
	counter_set_release(&set);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct opt_list events = {0};
	const char *group = NULL, *output = NULL, *procfs, *sysfs;
	long repeat = 1;
	int csv = 0, json = 0, force = 0, help = 0, per_thread = 0, first, ret;
	const struct option_spec specs[] = {
	    {'e', "event", OPT_LIST, &events, "EV,..", "events to count (repeatable)", 0, NULL},
	    {'g', "group", OPT_STRING, &group, "GROUP", "metric group: its events and formulas", 0,
	     NULL},
	    {'r', "repeat", OPT_INT, &repeat, "N", "run N times: mean, stddev, min, max", 0, NULL},
	    {0, "per-thread", OPT_FLAG, &per_thread, NULL,
	     "each thread's own counts too, child processes' threads included", 0, NULL},
	    {0, "csv", OPT_FLAG, &csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write the results to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct stat_result res;
	struct metric_group mg = {0};
	struct perf_state ps;
	struct cpu_info ci;
	FILE *out;

	memset(&res, 0, sizeof(res));
	ret = cli_parse("stat", specs, OPT_STOP_AT_OPERAND, argc - 1, argv + 1, &first, &help);
	if (ret) {
		opt_list_release(&events);
		return ret < 0 ? EXIT_USAGE : 0;
	}
	char **cmd = argv + 1 + first;
	int ncmd = argc - 1 - first;

	ret = EXIT_USAGE;
	if (ncmd <= 0) {
		cli_error("stat", "no command given (usage: perfscope stat [OPTIONS] -- CMD)");
		goto out;
	}
	if (repeat < 1 || repeat > 100000) {
		cli_error("stat", "--repeat %ld: must be between 1 and 100000", repeat);
		goto out;
	}
	if (per_thread && repeat > 1) {
		cli_error("stat", "--per-thread shows the threads of one run: drop -r/--repeat");
		goto out;
	}
	if (csv && json) {
		cli_error("stat", "--csv and --json exclude each other");
		goto out;
	}
	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	if (ps.paranoid == PERF_PARANOID_UNKNOWN) {
		cli_error("stat", "this kernel has no perf_event_open (no "
				  "/proc/sys/kernel/perf_event_paranoid): build it with "
				  "CONFIG_PERF_EVENTS");
		goto out;
	}
	if ((group || events.n == 0) &&
	    cli_load_group("stat", group ? group : cli_default_group(&ps), &mg))
		goto out;
	if (group || events.n == 0)
		res.group = &mg;
	if (cli_resolve_event_options("stat", &events, res.group, &res.events, &res.nevents))
		goto out;
	if (stat_result_alloc(&res, (size_t)repeat))
		goto out;
	if (!group && events.n) {
		const char *dirs[8];
		size_t ndirs = cli_metric_dirs(dirs, ARRAY_SIZE(dirs));

		stat_result_find_metrics(&res, dirs, ndirs);
	}
	/* refuse an existing file before running, create it only once there are results */
	if (output && strcmp(output, "-") && !force && access(output, F_OK) == 0) {
		cli_error("stat", "%s exists; not overwriting it (use --force)", output);
		goto out;
	}
	for (long r = 0; r < repeat; r++) {
		int st = run_once("stat", cmd, res.events, res.nevents, per_thread, &res.runs[r]);

		if (st < 0) { /* the command could not be run, or not be counted */
			ret = -st >= 126 && -st <= 127 ? -st : 1;
			goto out;
		}
		res.nruns++;
		if (st) {
			res.exit_status = st;
			res.exit_signal = res.runs[r].exit_signal;
		}
	}
	if ((ret = cli_output_open("stat", output, force, &out)))
		goto out;
	res.command = cmd;
	res.ncommand = (size_t)ncmd;
	res.paranoid = ps.paranoid;
	res.have_core_pmu = ps.have_core_pmu;
	res.per_thread = per_thread;
	if (per_thread)
		ret = csv    ? stat_threads_print_csv(&res, out)
		      : json ? stat_threads_print_json(&res, out)
			     : stat_threads_print_text(&res, out);
	else
		ret = csv    ? stat_print_csv(&res, out)
		      : json ? stat_print_json(&res, out)
			     : stat_print_text(&res, out);
	ret = cli_output_close("stat", out, ret == 0, ret ? 1 : res.exit_status);
out:
	stat_result_release(&res);
	metric_group_release(&mg);
	opt_list_release(&events);
	return ret;
}
