/* cmd-html.c - `perfscope html`: the self-contained HTML report of an experiment or of an OTF2
 * archive (its anchor file, *.otf2). */
#include "cli/cli.h"

#include "html/html.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A --grid side at most, and cells at most per rank the experiment names (plus a few for
 * tiny runs): a grid far larger than the ranks only draws empty squares, slowly. */
#define GRID_SIDE_MAX	    4096
#define GRID_CELLS_PER_RANK 4
#define GRID_CELLS_SLACK    16

/* "ROWSxCOLS" into *ROWS and *COLS, both in 1..GRID_SIDE_MAX. 0 or -1. */
static int parse_grid(const char *s, int *rows, int *cols)
{
	char *end;
	long r = strtol(s, &end, 10), c;

	if (end == s || (*end != 'x' && *end != 'X') || r < 1 || r > GRID_SIDE_MAX)
		return -1;
	s = end + 1;
	c = strtol(s, &end, 10);
	if (end == s || *end || c < 1 || c > GRID_SIDE_MAX)
		return -1;
	*rows = (int)r;
	*cols = (int)c;
	return 0;
}

/* The grid IN asks for against the NRANKS ranks of the experiment: 0, or -1 after a one-line
 * message with a grid that fits. */
static int check_grid(const char *grid, const struct html_input *in, int nranks)
{
	long cells = (long)in->grid_rows * in->grid_cols;
	long max = (long)GRID_CELLS_PER_RANK * nranks + GRID_CELLS_SLACK;
	int cols, rows;

	if (!in->grid_rows || cells <= max)
		return 0;
	if (!nranks) {
		cli_error("html",
			  "--grid %s: %ld cells but the experiment has no MPI ranks; at "
			  "most %ld cells (or leave --grid out)",
			  grid, cells, max);
		return -1;
	}
	cols = (int)ceil(sqrt((double)nranks));
	rows = (nranks + cols - 1) / cols;
	cli_error("html",
		  "--grid %s: %ld cells for %d ranks; at most %ld (4 per rank + 16), e.g. "
		  "--grid %dx%d, or leave --grid out",
		  grid, cells, nranks, max, rows, cols);
	return -1;
}

/* Why the profiles of S could not be built (report_views said it already): the message of the
 * analysis that failed, into WHY. */
static void profile_error(struct session *s, char *why, size_t len)
{
	if (session_get(s, SESSION_PROFILES, NULL, why, len) == 0)
		session_get(s, SESSION_SAMPLES, NULL, why, len);
}

/* The views of S into IN: the profiles (report's) and the OpenMP profile of the same pass, and
 * for an experiment whose files name MPI ranks, the MPI model read first so that the profile
 * pass skips the streams it found only MPI records in (one read of them instead of two). 0, or
 * an exit status after a one-line message; profiles that cannot be built leave the Profile
 * view out (said). */
static int open_views(struct session *s, struct report *rep, struct html_input *in, char *why,
		      size_t len)
{
	int ret;

	in->s = s;
	if (s->kind == SESSION_OTF2) {
		if ((ret = report_views(rep, "html", s, &(struct report_options){0})))
			return cli_status(ret);
		in->otf2 = s->source;
		in->fr = &rep->fr;
		return 0;
	}
	/* the model reads no stream without a rank named (html.h) */
	if (session_get(s, SESSION_EXPERIMENT, NULL, why, len) == 0 && html_ranks_named(&s->e))
		session_require(s, SESSION_MPI);
	/* the OpenMP view's profile from the profiles' pass (no second read of the streams) */
	session_require(s, SESSION_OPENMP);
	if ((ret = report_views(rep, "html", s, &(struct report_options){0}))) {
		/* out of memory is said and not the experiment's fault: no view is left out */
		if (ret == -ENOMEM || session_state(s, SESSION_EXPERIMENT) < 0)
			return cli_status(ret);
		/* a stream the profile pass rejects: the other views may still be built */
		profile_error(s, why, len);
		in->profile_error = why;
		fprintf(stderr,
			"perfscope html: the Profile view is left out (the report's Summary "
			"says why)\n");
		return 0;
	}
	in->rr = &rep->rr;
	in->fr = &rep->fr;
	in->sr = rep->e->nsamples ? &rep->sr : NULL;
	return 0;
}

int cmd_html(int argc, char **argv)
{
	const char *output = NULL, *dir = "perfscope.out", *grid = NULL;
	int force = 0, help = 0, first, ret, otf2;
	const struct option_spec specs[] = {
	    {'o', "output", OPT_STRING, &output, "FILE",
	     "the report file (DIR/report.html; for ARCHIVE/traces.otf2, ARCHIVE/traces.html)", 0,
	     NULL},
	    {0, "grid", OPT_STRING, &grid, "ROWSxCOLS",
	     "the rank grid of the animation and load views (near-square by default)", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite an existing report file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct html_input in;
	char path[PATH_MAX], why[1024] = "";
	struct session s;
	struct report rep;
	FILE *out;

	memset(&rep, 0, sizeof(rep));
	memset(&in, 0, sizeof(in));
	session_init(&s, dir, SESSION_DIR, NULL);
	ret = cli_parse("html", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand("html", argc - 1 - first, argv + 1 + first, &dir))
		return EXIT_USAGE;
	if (grid && parse_grid(grid, &in.grid_rows, &in.grid_cols)) {
		cli_error("html", "--grid %s: expected ROWSxCOLS, each 1 to %d, e.g. --grid 4x8",
			  grid, GRID_SIDE_MAX);
		return EXIT_USAGE;
	}
	otf2 = session_path_is_otf2(dir);
	if (!output) {
		/* an archive's report beside its anchor: ARCHIVE/traces.otf2 -> traces.html */
		if (otf2)
			snprintf(path, sizeof(path), "%.*s.html", (int)(strlen(dir) - 5), dir);
		else
			snprintf(path, sizeof(path), "%s/report.html", dir);
		output = path;
	}
	session_init(&s, dir, otf2 ? SESSION_OTF2 : SESSION_DIR,
		     &(struct session_options){
			 .per_thread = 1, .lines = 1, .timeline_top = HTML_COUNTERS_TOP});
	if ((ret = open_views(&s, &rep, &in, why, sizeof(why))))
		goto out;
	in.e = &s.e;
	in.syms = &s.syms;
	ret = EXIT_USAGE; /* a bad --grid, or an output file that exists */
	if (grid && check_grid(grid, &in, html_input_ranks(&in)))
		goto out;
	/* every view's data first: out of memory leaves OUTPUT as it was */
	if (html_build(&in)) {
		cli_error("html",
			  "out of memory building the report (%s not written): free memory, "
			  "or raise the limit (ulimit -v)",
			  output);
		ret = 1;
		goto out;
	}
	if (cli_output_open("html", output, force, &out))
		goto out;
	ret = html_write(out, &in);
	if (ret)
		cli_error("html", "%s: %s", output, strerror(-ret));
	ret = cli_output_close("html", out, ret == 0, ret ? 1 : 0);
	if (ret == 0 && out != stdout)
		fprintf(stderr, "perfscope html: wrote %s\n", output);
out:
	html_input_release(&in);
	session_close(&s);
	return ret;
}
