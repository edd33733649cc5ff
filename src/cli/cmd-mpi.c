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
static int print_load(const char *path, FILE *out, enum out_format fmt)
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
	ret = load_print(out, &e,
			 fmt == OUT_CSV	   ? LOAD_FORMAT_CSV
			 : fmt == OUT_JSON ? LOAD_FORMAT_JSON
			 : fmt == OUT_LONG ? LOAD_FORMAT_LONG
					   : LOAD_FORMAT_TEXT,
			 err, sizeof(err));
	experiment_release(&e);
	if (ret == -EIO)
		return 1;
	if (ret < 0) {
		cli_error(CMD, "%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* The options of one `perfscope mpi`. */
struct mpi_opts {
	const char *path, *relative, *output, *format;
	int waits, traffic, routines, patterns, load, all, csv, json, no_correction, force;
	long top;
	enum mpi_view view;
	enum mpi_relative rel;
	enum out_format fmt;
};

/* Refuse options that do not go together; the view, the cells and the format into O.
 * 0 or EXIT_USAGE after saying why. */
static int check_options(struct mpi_opts *o)
{
	char why[128];

	if (o->waits + o->traffic + o->routines + o->patterns + o->load > 1) {
		cli_error(CMD, "--waits, --traffic, --routines, --patterns and --load exclude each "
			       "other");
		return EXIT_USAGE;
	}
	if (o->csv && o->json) {
		cli_error(CMD, "--csv and --json exclude each other");
		return EXIT_USAGE;
	}
	if (options_out_format(o->csv, o->json, o->format, &o->fmt, why, sizeof(why))) {
		cli_error(CMD, "%s", why);
		return EXIT_USAGE;
	}
	if (o->relative && !strcmp(o->relative, "exec")) {
		o->rel = MPI_REL_EXEC;
	} else if (o->relative && !strcmp(o->relative, "wait")) {
		o->rel = MPI_REL_WAIT;
	} else if (o->relative) {
		cli_error(CMD, "--relative %s: give exec or wait", o->relative);
		return EXIT_USAGE;
	}
	if (o->top < 1) {
		cli_error(CMD, "--top N: N must be 1 or more");
		return EXIT_USAGE;
	}
	o->view = o->waits	? MPI_VIEW_WAITS
		  : o->traffic	? MPI_VIEW_TRAFFIC
		  : o->routines ? MPI_VIEW_ROUTINES
		  : o->patterns ? MPI_VIEW_PATTERNS
				: MPI_VIEW_SUMMARY;
	return 0;
}

/* The MPI analyses of O->path in O's view and format. The exit status. */
static int print_mpi(const struct mpi_opts *o)
{
	struct session s;
	void *rs, *tr, *w;
	struct mpi_report r;
	FILE *out = NULL;
	char err[256];
	int ret;

	if ((ret = model_open(&s, o->path, o->no_correction ? MPI_BUILD_NO_CORRECTION : 0)) < 0) {
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
	    .rel = o->rel,
	    .all = o->all,
	    .no_correction = o->no_correction,
	    .top_sites = (size_t)o->top,
	};
	if ((ret = cli_output_open(CMD, o->output, o->force, &out)))
		goto out;
	ret = mpi_print(&r, o->view, o->fmt, out, stderr) ? 1 : 0;
	ret = cli_output_close(CMD, out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}

int cmd_mpi(int argc, char **argv)
{
	struct mpi_opts o = {.path = "perfscope.out", .top = 5};
	int help = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "waits", OPT_FLAG, &o.waits, NULL, "the wait matrix: who waits for whom", 0, NULL},
	    {0, "traffic", OPT_FLAG, &o.traffic, NULL,
	     "messages, bytes and rates per sender and receiver; unmatched messages", 0, NULL},
	    {0, "routines", OPT_FLAG, &o.routines, NULL,
	     "calls and time per MPI routine, all ranks and each rank", 0, NULL},
	    {0, "patterns", OPT_FLAG, &o.patterns, NULL,
	     "wait-state patterns and their worst call sites", 0, NULL},
	    {0, "load", OPT_FLAG, &o.load, NULL, "CPU load per host and rank over time", 0, NULL},
	    {0, "relative", OPT_STRING, &o.relative, "exec|wait",
	     "waits as % of the rank's execution time or of its total wait", 0, NULL},
	    {0, "all", OPT_FLAG, &o.all, NULL, "also the wait cells under 0.1 %", 0, NULL},
	    {0, "top", OPT_INT, &o.top, "N", "--patterns: the N worst call sites per pattern (5)",
	     0, NULL},
	    {0, "no-correction", OPT_FLAG, &o.no_correction, NULL,
	     "count messages received before they were sent, do not correct them", 0, NULL},
	    {0, "csv", OPT_FLAG, &o.csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &o.json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &o.format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &o.output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &o.force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	FILE *out = NULL;

	ret = cli_parse(CMD, specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error(CMD, "one experiment or trace at a time (got '%s' and '%s')",
			  argv[1 + first], argv[2 + first]);
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		o.path = argv[1 + first];
	if ((ret = check_options(&o)))
		return ret;
	if (!o.load)
		return print_mpi(&o);
	if (cli_output_open(CMD, o.output, o.force, &out))
		return EXIT_USAGE;
	ret = print_load(o.path, out, o.fmt);
	return cli_output_close(CMD, out, ret == 0, ret);
}
