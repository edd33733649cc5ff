/* main.c - the command table, help, and helpers shared by the subcommands. */
#include "cli/cli.h"
#include "cli/stack-guard.h"

#include "lib/compiler.h"
#include "format/env.h"
#include "pmu/cpuinfo.h"
#include "pmu/metrics.h"
#include "lib/outfile.h"
#include "lib/strdist.h"
#include "lib/strbuf.h"
#include "lib/textesc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cmd commands[] = {
    {"list", cmd_list, "CPU, caches, perf state, events and metric groups of this machine", ""},
    {"stat", cmd_stat, "count events over a whole run, with derived metrics", "-- CMD [ARGS..]"},
    {"record", cmd_record, "run a command under the runtime and fill an experiment directory",
     "-- CMD [ARGS..]"},
    {"html", cmd_html, "the self-contained HTML report of an experiment or an OTF2 archive",
     "[DIR|ARCHIVE/traces.otf2]"},
    {"report", cmd_report, "functions and regions of an experiment: calls, time, counters",
     "[DIR|ARCHIVE/traces.otf2]"},
    {"timeline", cmd_timeline, "counters and function shares over time, from samples", "[DIR]"},
    {"energy", cmd_energy, "energy per function and per interval, from power samples", "[DIR]"},
    {"mpi", cmd_mpi, "MPI runs: who waits for whom, traffic, routines, load",
     "[DIR|ARCHIVE/traces.otf2]"},
    {"export", cmd_export, "an experiment as a trace: Perfetto/chrome://tracing JSON, or OTF2",
     "--format FORMAT [DIR]"},
    {"select", cmd_select, "keep long-running functions: a runtime filter and gcc options",
     "(--min-time T | --top N) [DIR]"},
    {"info", cmd_info, "what an experiment holds: processes, streams, records, how each ended",
     "[DIR]"},
    {"dump", cmd_dump, "the raw records of an experiment's streams, one per line",
     "[DIR|STREAM-FILE]"},
};

void cli_error(const char *cmd, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* names, paths and error texts from an experiment: one line, nothing the terminal obeys */
	fprintf(stderr, "perfscope %s: %s\n", cmd, n < 0 ? "(out of memory)" : text_safe(msg));
	if (n >= 0)
		free(msg);
}

int cli_operand(const char *cmd, int n, char *const *ops, const char **dir)
{
	if (n > 1) {
		cli_error(cmd, "one experiment directory at a time (got '%s' and '%s')", ops[0],
			  ops[1]);
		return -1;
	}
	if (n == 1)
		*dir = ops[0];
	return 0;
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void cli_usage(FILE *f, const char *cmd, const struct option_spec *specs)
{
	const struct cmd *c = find_cmd(cmd);
	char usage[256];

	if (c)
		fprintf(f, "%s\n\n", c->summary);
	/* the options themselves are listed from SPECS below: the line never names one */
	snprintf(usage, sizeof(usage), "perfscope %s [OPTIONS]%s%s", cmd,
		 c && c->operands[0] ? " " : "", c ? c->operands : "");
	options_usage(f, usage, specs);
}

int cli_parse(const char *cmd, const struct option_spec *specs, unsigned flags, int argc,
	      char **argv, int *optind_out, const int *help)
{
	char err[256];

	if (options_parse(specs, flags, argc, argv, optind_out, err, sizeof(err)) < 0) {
		cli_error(cmd, "%s (see: perfscope help %s)", err, cmd);
		return -1;
	}
	if (help && *help) {
		cli_usage(stdout, cmd, specs);
		return 1;
	}
	return 0;
}

/* Directory of the running executable, or "" when unknown. */
static const char *exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0)
		return "";
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
	return buf;
}

size_t cli_metric_dirs(const char **dirs, size_t max)
{
	static char env_copy[PATH_MAX], rel[PATH_MAX + 32];
	const char *env = getenv(PSC_ENV_METRICS_PATH);
	char exe[PATH_MAX];
	size_t n = 0;

	if (env && *env) {
		snprintf(env_copy, sizeof(env_copy), "%s", env);
		for (char *save, *p = strtok_r(env_copy, ":", &save); p && n + 3 < max;
		     p = strtok_r(NULL, ":", &save))
			dirs[n++] = p;
	}
	snprintf(rel, sizeof(rel), "%s/../share/perfscope/metrics", exe_dir(exe, sizeof(exe)));
	if (n < max)
		dirs[n++] = rel;
	if (n < max)
		dirs[n++] = PSC_METRICS_INSTALL_DIR;
	if (n < max)
		dirs[n++] = PSC_METRICS_BUILD_DIR;
	return n;
}

int cli_runtime_library(char *path, size_t len)
{
	char exe[PATH_MAX];
	const char *dir = exe_dir(exe, sizeof(exe));
	const char *candidates[] = {"%s/libperfscope.so.0", "%s/../lib/libperfscope.so.0",
				    "%s/../" PSC_INSTALL_LIBDIR "/libperfscope.so.0"};

	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		snprintf(path, len, candidates[i], dir);
		if (access(path, R_OK) == 0)
			return 0;
	}
	snprintf(path, len, "%s/libperfscope.so.0", PSC_LIB_INSTALL_DIR);
	return access(path, R_OK) == 0 ? 0 : -ENOENT;
}

const char *cli_default_group(const struct perf_state *ps)
{
	return ps->have_core_pmu ? "default" : "sw";
}

int cli_load_group(const char *cmd, const char *name, struct metric_group *g)
{
	const char *dirs[8];
	size_t ndirs = cli_metric_dirs(dirs, ARRAY_SIZE(dirs));
	char path[PATH_MAX], err[512];
	int ret = metric_group_find(name, dirs, ndirs, path, sizeof(path));

	if (ret) {
		cli_error(cmd, "no metric group '%s' (see: perfscope list)", name);
		return ret;
	}
	ret = metric_group_load(g, path, err, sizeof(err));
	if (ret)
		cli_error(cmd, "%s", err);
	return ret;
}

int cli_resolve_events(const char *cmd, const char *list, struct event_desc **evs, size_t *n)
{
	char bad[EVENT_NAME_MAX], near[3][EVENT_NAME_MAX];
	int ret = event_list_resolve(list, evs, n, bad, sizeof(bad));
	size_t k;

	if (ret == 0)
		return 0;
	if (ret != -ENOENT) {
		cli_error(cmd, "invalid event '%s' in '%s'", bad, list);
		return ret;
	}
	k = event_suggest(bad, near, 3);
	if (k == 0) {
		cli_error(cmd, "unknown event '%s' (see: perfscope list)", bad);
		return ret;
	}
	fprintf(stderr, "perfscope %s: unknown event '%s'; did you mean ", cmd, bad);
	for (size_t i = 0; i < k; i++)
		fprintf(stderr, "%s'%s'", i ? (i + 1 == k ? " or " : ", ") : "", near[i]);
	fprintf(stderr, "?\n");
	return ret;
}

int cli_resolve_event_options(const char *cmd, const struct opt_list *events,
			      const struct metric_group *g, struct event_desc **evs, size_t *n)
{
	size_t ng = g ? g->nevents : 0;
	struct strbuf list = STRBUF_INIT;
	int ret = 0;

	*evs = NULL;
	*n = 0;
	for (size_t i = 0; i < events->n + ng; i++)
		strbuf_addf(&list, "%s%s", list.len ? "," : "",
			    i < events->n ? events->items[i] : g->events[i - events->n]);
	if (list.err) {
		cli_error(cmd, "out of memory");
		ret = list.err;
	} else if (list.len) {
		ret = cli_resolve_events(cmd, list.buf, evs, n);
	}
	strbuf_release(&list);
	return ret;
}

/* The files cli_output_open opened and cli_output_close has not closed yet. */
static struct {
	FILE *f;
	struct outfile o;
} outputs[4];

/* At exit, an output never closed (a path that returned early) is removed: its destination
 * stays as it was. */
static void outputs_discard(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(outputs); i++)
		if (outputs[i].f) {
			fclose(outputs[i].f);
			outputs[i].o.fd = -1;
			outfile_discard(&outputs[i].o);
			outputs[i].f = NULL;
		}
}

/* The temporary files of the outputs still open removed, from a signal handler: their
 * destinations stay as they were. */
static void outputs_unlink(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(outputs); i++)
		if (outputs[i].f && outputs[i].o.tmp[0])
			unlink(outputs[i].o.tmp);
}

int cli_output_open(const char *cmd, const char *path, int force, FILE **out)
{
	static int registered;
	char err[PATH_MAX + 128];
	size_t i;
	int ret;

	*out = stdout;
	if (!path || !strcmp(path, "-"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(outputs) && outputs[i].f; i++)
		;
	if (i == ARRAY_SIZE(outputs)) {
		cli_error(cmd, "cannot write %s: too many output files", path);
		return EXIT_USAGE;
	}
	if (!registered)
		registered = atexit(outputs_discard) == 0;
	ret = outfile_open(&outputs[i].o, path, force, err, sizeof(err));
	if (ret == -EEXIST)
		cli_error(cmd, "%s exists; not overwriting it (use --force)", path);
	else if (ret)
		cli_error(cmd, "%s", err);
	if (ret)
		return EXIT_USAGE;
	outputs[i].f = fdopen(outputs[i].o.fd, "w");
	if (!outputs[i].f) {
		cli_error(cmd, "cannot write %s: %s", path, strerror(errno));
		outfile_discard(&outputs[i].o);
		return EXIT_USAGE;
	}
	*out = outputs[i].f;
	return 0;
}

int cli_output_close(const char *cmd, FILE *f, int keep, int status)
{
	char err[PATH_MAX + 128];
	struct outfile *o = NULL;
	int failed, e = 0;

	if (!f || f == stdout)
		return status;
	for (size_t i = 0; i < ARRAY_SIZE(outputs); i++)
		if (outputs[i].f == f) {
			o = &outputs[i].o;
			outputs[i].f = NULL;
		}
	failed = ferror(f);
	if (fclose(f) != 0) {
		failed = 1;
		e = errno;
	}
	if (!o)
		return status;
	o->fd = -1;
	if (!keep) {
		outfile_discard(o);
		return status;
	}
	if (failed) {
		outfile_discard(o);
		cli_error(cmd, "cannot write %s: %s (it is left as it was)", o->path,
			  e ? strerror(e) : "a write failed");
		return 1;
	}
	e = outfile_commit(o, err, sizeof(err));
	if (e == -EEXIST) {
		cli_error(cmd, "%s appeared while it was written; not overwriting it (use --force)",
			  o->path);
		return EXIT_USAGE;
	}
	if (e) {
		cli_error(cmd, "%s", err);
		return 1;
	}
	return status;
}

/*
 * Run command C, then see that what it wrote on standard output got there (git's
 * run_builtin()): a full disk or a failed write behind a redirection is said once, for every
 * command alike, and the run exits 1 if it had succeeded. A pipe is left alone: a reader that
 * went away ends perfscope with SIGPIPE, as it ends any filter. Before the command runs, the
 * stack is reserved (stack-guard.h), so that running out of memory is said, not a crash.
 */
static int run_builtin(const struct cmd *c, int argc, char **argv)
{
	struct stat st;
	int status;

	stack_guard_install(c->name, outputs_unlink);
	status = c->fn(argc, argv);

	if (fstat(STDOUT_FILENO, &st) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return status;
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	cli_error(c->name, "cannot write standard output: %s",
		  errno ? strerror(errno) : "a write failed");
	return status ? status : 1;
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: perfscope COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'perfscope help COMMAND' or 'perfscope COMMAND --help' shows a command's "
		   "options.\n");
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *name;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("perfscope %s\n", PSC_VERSION);
		return 0;
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		c = find_cmd(argv[2]);
		if (c) {
			char *help_argv[] = {(char *)c->name, "--help", NULL};

			return run_builtin(c, 2, help_argv);
		}
		name = argv[2];
	} else {
		c = find_cmd(name);
		if (c)
			return run_builtin(c, argc - 1, argv + 1);
	}
	fprintf(stderr, "perfscope: unknown command '%s'", name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		size_t score;

		if (strdist_close(name, commands[i].name, &score)) {
			fprintf(stderr, "; did you mean '%s'?", commands[i].name);
			break;
		}
	}
	fprintf(stderr, " (see: perfscope --help)\n");
	return EXIT_USAGE;
}
