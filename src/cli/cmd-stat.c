/* cmd-stat.c - `perfscope stat`: count events over whole runs of a command. */
#include "cli.h"
#include "launch.h"

#include "../analysis/stat-result.h"
#include "../core/compiler.h"
#include "../core/counters.h"
#include "../core/counts.h"
#include "../core/cpuinfo.h"
#include "../core/metrics.h"
#include "../core/ring.h"
#include "../output/stat-print.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Ring buffer for per-thread counts: one small record per exiting thread. */
#define PER_THREAD_RING_PAGES 256

struct thread_collect {
	struct stat_thread *threads;
	size_t n, cap;
	const struct counter_set *set;
	uint64_t lost;
};

static struct stat_thread *thread_slot(struct thread_collect *tc, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < tc->n; i++)
		if (tc->threads[i].tid == tid)
			return &tc->threads[i];
	if (tc->n == tc->cap) {
		size_t cap = tc->cap ? tc->cap * 2 : 16;
		struct stat_thread *p = realloc(tc->threads, cap * sizeof(*p));

		if (!p)
			return NULL;
		tc->threads = p;
		tc->cap = cap;
	}
	memset(&tc->threads[tc->n], 0, sizeof(tc->threads[0]));
	tc->threads[tc->n].pid = pid;
	tc->threads[tc->n].tid = tid;
	tc->threads[tc->n].counts = calloc(tc->set->nev + 1, sizeof(struct count));
	if (!tc->threads[tc->n].counts)
		return NULL;
	return &tc->threads[tc->n++];
}

/* PERF_RECORD_READ of an exiting thread (group format), COMM for names, LOST. */
static int on_ring_record(void *ctx, const struct perf_event_header *h)
{
	struct thread_collect *tc = ctx;
	const uint32_t *ids = (const void *)(h + 1);
	struct stat_thread *t;

	if (h->type == PERF_RECORD_LOST) {
		tc->lost += ((const uint64_t *)(h + 1))[1];
		return 0;
	}
	if (h->type != PERF_RECORD_READ && h->type != PERF_RECORD_COMM)
		return 0;
	t = thread_slot(tc, ids[0], ids[1]);
	if (!t)
		return -ENOMEM;
	if (h->type == PERF_RECORD_COMM) {
		snprintf(t->comm, sizeof(t->comm), "%s", (const char *)(ids + 2));
		return 0;
	}
	/* each group leader reports its group once: {nr, enabled, running, values} */
	const uint64_t *v = (const uint64_t *)(ids + 2);
	size_t words = (h->size - sizeof(*h) - 8) / 8;
	const struct counter_set *set = tc->set;

	for (uint32_t g = 0; g < set->ngroups; g++) {
		const struct counter_group *grp = &set->groups[g];

		if (words < 3 + grp->nmembers || v[0] != grp->nmembers)
			continue;
		/* a thread's records arrive in group order (the kernel walks its events in
		 * creation order): each fills the next group not yet seen */
		if (g >= 32 || (t->groups_seen & (1u << g)))
			continue;
		t->groups_seen |= 1u << g;
		for (uint32_t k = 0; k < grp->nmembers; k++) {
			struct count *c = &t->counts[set->order[grp->first + k]];

			c->raw = v[3 + k];
			c->enabled = v[1];
			c->running = v[2];
		}
		t->exited = 1;
		break;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One run of CMD: counts into OUT (event order). Returns CMD's status, or -errno. */
static int run_once(const char *cmdname, char **cmd, const struct event_desc *evs, size_t nev,
		    int per_thread, struct stat_run *out)
{
	unsigned flags = COUNTER_INHERIT | COUNTER_ENABLE_ON_EXEC |
			 (per_thread ? COUNTER_PER_TASK : 0);
	struct thread_collect tc;
	struct counter_set set;
	struct launch l;
	struct ring ring;
	struct rusage ru;
	uint64_t *words = NULL, t0, t1;
	uint32_t *group_of = NULL;
	int32_t *status = NULL;
	int ret, exit_status = 0, have_ring = 0;

	memset(&tc, 0, sizeof(tc));
	ret = counter_set_init(&set, evs, nev, flags, NULL);
	if (ret)
		return ret;
	ret = launch_prepare(&l, cmd);
	if (ret) {
		cli_error(cmdname, "cannot start %s: %s", cmd[0], strerror(-ret));
		counter_set_release(&set);
		return ret;
	}
	counter_set_open(&set, l.pid);
	if (per_thread && set.ngroups && counter_set_redirect_output(&set) == 0 &&
	    ring_map(&ring, set.groups[0].leader_fd, PER_THREAD_RING_PAGES) == 0)
		have_ring = 1;
	t0 = now_ns();
	ret = launch_go(&l);
	if (ret == 0)
		ret = launch_wait(&l, &exit_status, &ru);
	else
		launch_wait(&l, &exit_status, &ru);
	t1 = now_ns();
	if (ret < 0) {
		if (ret != -ENOENT && ret != -EACCES && ret != -ENOTDIR)
			cli_error(cmdname, "cannot run %s: %s", cmd[0], strerror(-ret));
		else
			cli_error(cmdname, "%s: %s", cmd[0],
				  ret == -EACCES ? "permission denied" : "command not found");
		exit_status = -ret == EACCES ? 126 : 127;
		ret = -ECHILD;
		goto out;
	}
	words = calloc(set.snapshot_words + 1, sizeof(*words));
	group_of = calloc(nev + 1, sizeof(*group_of));
	status = calloc(nev + 1, sizeof(*status));
	ret = -ENOMEM;
	if (!words || !group_of || !status)
		goto out;
	counter_set_layout(&set, group_of, status);
	ret = counter_set_snapshot(&set, words);
	if (ret == 0)
		ret = count_snapshot_decode(words, set.snapshot_words, group_of, nev, out->counts);
	if (ret)
		goto out;
	for (size_t i = 0; i < nev; i++) {
		out->status[i] = status[i];
		out->user_only[i] = set.ev[i].user_only;
	}
	out->wall_ns = (double)(t1 - t0);
	out->user_ns = (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3;
	out->sys_ns = (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
	if (have_ring) {
		tc.set = &set;
		ret = ring_drain(&ring, on_ring_record, &tc);
		if (ret)
			goto out;
		out->threads = tc.threads;
		out->nthreads = tc.n;
		out->lost_threads = tc.lost;
		tc.threads = NULL;
		out->main_pid = l.pid;
	}
	ret = exit_status;
out:
	if (ret < 0 && ret != -ECHILD)
		cli_error(cmdname, "reading the counters failed: %s", strerror(-ret));
	if (ret == -ECHILD)
		ret = -exit_status;
	if (have_ring)
		ring_unmap(&ring);
	for (size_t i = 0; i < tc.n; i++)
		free(tc.threads[i].counts);
	free(tc.threads);
	free(words);
	free(group_of);
	free(status);
	counter_set_release(&set);
	return ret;
}

/* Add the events of group G not already in the list. */
static int add_group_events(const char *cmd, const struct metric_group *g,
			    struct event_desc **evs, size_t *n)
{
	for (size_t i = 0; i < g->nevents; i++) {
		struct event_desc *one;
		size_t k, dup = 0;

		for (k = 0; k < *n; k++)
			dup |= !strcmp((*evs)[k].name, g->events[i]);
		if (dup)
			continue;
		if (cli_resolve_events(cmd, g->events[i], &one, &k))
			return -ENOENT;
		struct event_desc *p = realloc(*evs, (*n + 1) * sizeof(*p));

		if (!p) {
			free(one);
			return -ENOMEM;
		}
		*evs = p;
		(*evs)[(*n)++] = one[0];
		free(one);
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct opt_list events = {0};
	const char *group = NULL, *output = NULL, *procfs, *sysfs;
	long repeat = 1;
	int per_thread = 0, csv = 0, json = 0, force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'e', "event", OPT_LIST, &events, "EV,..", "events to count (repeatable)", 0, NULL},
	    {'g', "group", OPT_STRING, &group, "GROUP", "metric group: its events and formulas",
	     0, NULL},
	    {'r', "repeat", OPT_INT, &repeat, "N", "run N times: mean, stddev, min, max", 0,
	     NULL},
	    {0, "per-thread", OPT_FLAG, &per_thread, NULL, "also show counts per thread", 0,
	     NULL},
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
	for (size_t i = 0; i < events.n; i++) {
		struct event_desc *evs;
		size_t n;

		if (cli_resolve_events("stat", events.items[i], &evs, &n))
			goto out;
		for (size_t k = 0; k < n; k++) {
			struct metric_group one = {0};
			char *names[1] = {evs[k].name};

			one.events = names;
			one.nevents = 1;
			if (add_group_events("stat", &one, &res.events, &res.nevents)) {
				free(evs);
				goto out;
			}
		}
		free(evs);
	}
	if (group || events.n == 0) {
		if (cli_load_group("stat", group ? group : cli_default_group(&ps), &mg))
			goto out;
		if (add_group_events("stat", &mg, &res.events, &res.nevents))
			goto out;
		res.group = &mg;
	}
	if (stat_result_alloc(&res, (size_t)repeat))
		goto out;
	if (!group && events.n) {
		const char *dirs[8];
		size_t ndirs = cli_metric_dirs(dirs, ARRAY_SIZE(dirs));

		stat_result_find_metrics(&res, dirs, ndirs);
	}
	out = cli_open_output("stat", output, force);
	if (!out)
		goto out;
	for (long r = 0; r < repeat; r++) {
		int st = run_once("stat", cmd, res.events, res.nevents, per_thread, &res.runs[r]);

		if (st < 0 && -st >= 126) { /* the command could not be run at all */
			ret = -st;
			goto close;
		}
		if (st < 0) {
			ret = 1;
			goto close;
		}
		res.nruns++;
		res.exit_status = st ? st : res.exit_status;
	}
	res.command = cmd;
	res.ncommand = (size_t)ncmd;
	res.paranoid = ps.paranoid;
	res.have_core_pmu = ps.have_core_pmu;
	ret = csv ? stat_print_csv(&res, out) : json ? stat_print_json(&res, out)
						     : stat_print_text(&res, out);
	ret = ret ? 1 : res.exit_status;
close:
	if (out != stdout && fclose(out) != 0) {
		cli_error("stat", "writing %s failed", output);
		ret = ret ? ret : 1;
	}
out:
	stat_result_release(&res);
	metric_group_release(&mg);
	opt_list_release(&events);
	return ret;
}
