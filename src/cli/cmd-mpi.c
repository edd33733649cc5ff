/* cmd-mpi.c - `perfscope mpi`: wait states, traffic, routines and load of an MPI run. */
#include "cli/cli.h"

#include "model/experiment-open.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "view/load-print.h"
#include "view/mpi-print.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define CMD "mpi"

/* Start S on PATH (an experiment directory or an OTF2 anchor file) and have it load the MPI
 * model with FLAGS. Prints the cause and returns a negative errno on failure. */
static int model_open(struct session *s, const char *path, unsigned flags)
{
	char err[1024] = "";
	struct stat st;
	int dir, ret;

	session_init(s, path, SESSION_DIR, NULL);
	if (stat(path, &st) < 0) {
		cli_error(CMD, "%s: %s", path, strerror(errno));
		return -errno;
	}
	dir = S_ISDIR(st.st_mode);
	session_init(
	    s, path, dir ? SESSION_DIR : SESSION_OTF2,
	    &(struct session_options){.mpi_flags = dir ? flags : flags | MPI_BUILD_ALIGNED});
	ret = session_get(s, SESSION_MPI, NULL, err, sizeof(err));
	if (ret < 0)
		cli_error(CMD, "%s", err);
	return ret;
}

/* --load: the load logs of the experiment directory PATH. */
static int print_load(const char *path, FILE *out, enum load_format fmt)
{
	struct experiment e = {0};
	char err[1024] = "";
	struct stat st;
	int ret;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		cli_error(CMD, "%s: --load reads an experiment directory's load logs, not a trace",
			  path);
		return EXIT_USAGE;
	}
	if (experiment_open(&e, path, err, sizeof(err))) {
		cli_error(CMD, "%s", err);
		experiment_release(&e);
		return EXIT_USAGE;
	}
	ret = load_print(out, &e, fmt, err, sizeof(err));
	experiment_release(&e);
	if (ret == -EIO)
		return 1;
	if (ret < 0) {
		cli_error(CMD, "%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_mpi(int argc, char **argv)
{
	const char *path = "perfscope.out", *relative = NULL, *output = NULL, *format = NULL;
	int waits = 0, traffic = 0, routines = 0, patterns = 0, load = 0, all = 0, csv = 0;
	int json = 0, no_correction = 0, force = 0, help = 0, first, ret;
	long top = 5;
	const struct option_spec specs[] = {
	    {0, "waits", OPT_FLAG, &waits, NULL, "the wait matrix: who waits for whom", 0, NULL},
	    {0, "traffic", OPT_FLAG, &traffic, NULL,
	     "messages, bytes and rates per sender and receiver; unmatched messages", 0, NULL},
	    {0, "routines", OPT_FLAG, &routines, NULL,
	     "calls and time per MPI routine, all ranks and each rank", 0, NULL},
	    {0, "patterns", OPT_FLAG, &patterns, NULL,
	     "wait-state patterns and their worst call sites", 0, NULL},
	    {0, "load", OPT_FLAG, &load, NULL, "CPU load per host and rank over time", 0, NULL},
	    {0, "relative", OPT_STRING, &relative, "exec|wait",
	     "waits as % of the rank's execution time or of its total wait", 0, NULL},
	    {0, "all", OPT_FLAG, &all, NULL, "also the wait cells under 0.1 %", 0, NULL},
	    {0, "top", OPT_INT, &top, "N", "--patterns: the N worst call sites per pattern (5)", 0,
	     NULL},
	    {0, "no-correction", OPT_FLAG, &no_correction, NULL,
	     "count messages received before they were sent, do not correct them", 0, NULL},
	    {0, "csv", OPT_FLAG, &csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct session s;
	void *rs, *tr, *w;
	struct mpi_report r;
	enum mpi_view view = MPI_VIEW_SUMMARY;
	enum mpi_relative rel = MPI_REL_NONE;
	enum out_format fmt = OUT_TEXT;
	char why[128];
	FILE *out = NULL;
	char err[256];

	ret = cli_parse(CMD, specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error(CMD, "one experiment or trace at a time (got '%s' and '%s')",
			  argv[1 + first], argv[2 + first]);
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		path = argv[1 + first];
	if (waits + traffic + routines + patterns + load > 1) {
		cli_error(CMD, "--waits, --traffic, --routines, --patterns and --load exclude each "
			       "other");
		return EXIT_USAGE;
	}
	if (csv && json) {
		cli_error(CMD, "--csv and --json exclude each other");
		return EXIT_USAGE;
	}
	if (options_out_format(csv, json, format, &fmt, why, sizeof(why))) {
		cli_error(CMD, "%s", why);
		return EXIT_USAGE;
	}
	if (fmt == OUT_LONG && (patterns || load)) {
		cli_error(CMD, "--format long: the waits, the traffic and the routines");
		return EXIT_USAGE;
	}
	if (relative && !strcmp(relative, "exec")) {
		rel = MPI_REL_EXEC;
	} else if (relative && !strcmp(relative, "wait")) {
		rel = MPI_REL_WAIT;
	} else if (relative) {
		cli_error(CMD, "--relative %s: give exec or wait", relative);
		return EXIT_USAGE;
	}
	if (top < 1) {
		cli_error(CMD, "--top N: N must be 1 or more");
		return EXIT_USAGE;
	}
	view = waits	  ? MPI_VIEW_WAITS
	       : traffic  ? MPI_VIEW_TRAFFIC
	       : routines ? MPI_VIEW_ROUTINES
	       : patterns ? MPI_VIEW_PATTERNS
			  : MPI_VIEW_SUMMARY;
	if (load) {
		if (cli_output_open(CMD, output, force, &out))
			return EXIT_USAGE;
		ret = print_load(path, out,
				 fmt == OUT_CSV	   ? LOAD_FORMAT_CSV
				 : fmt == OUT_JSON ? LOAD_FORMAT_JSON
						   : LOAD_FORMAT_TEXT);
		return cli_output_close(CMD, out, ret == 0, ret);
	}
	if ((ret = model_open(&s, path, no_correction ? MPI_BUILD_NO_CORRECTION : 0)) < 0) {
		ret = cli_status(ret);
		goto out;
	}
	if (session_get(&s, SESSION_ROUTINES, &rs, err, sizeof(err)) < 0 ||
	    session_get(&s, SESSION_TRAFFIC, &tr, err, sizeof(err)) < 0 ||
	    session_get(&s, SESSION_WAITS, &w, err, sizeof(err)) < 0) {
		cli_error(CMD, "out of memory");
		ret = 1;
		goto out;
	}
	r = (struct mpi_report){
	    .m = &s.mpi,
	    .e = s.kind == SESSION_DIR ? &s.e : NULL,
	    .routines = rs,
	    .traffic = tr,
	    .waits = w,
	    .rel = rel,
	    .all = all,
	    .no_correction = no_correction,
	    .top_sites = (size_t)top,
	};
	if ((ret = cli_output_open(CMD, output, force, &out)))
		goto out;
	ret = mpi_print(&r, view, fmt, out) ? 1 : 0;
	ret = cli_output_close(CMD, out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}
