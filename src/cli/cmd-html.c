/* cmd-html.c - `perfscope html`: the self-contained HTML report of an experiment. */
#include "cli.h"

#include "../output/html.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* "ROWSxCOLS" into *ROWS and *COLS, both ≥ 1. 0 or -1. */
static int parse_grid(const char *s, int *rows, int *cols)
{
	char *end;
	long r = strtol(s, &end, 10), c;

	if (end == s || (*end != 'x' && *end != 'X') || r < 1 || r > 100000)
		return -1;
	s = end + 1;
	c = strtol(s, &end, 10);
	if (end == s || *end || c < 1 || c > 100000)
		return -1;
	*rows = (int)r;
	*cols = (int)c;
	return 0;
}

int cmd_html(int argc, char **argv)
{
	const char *output = NULL, *dir = "perfscope.out", *grid = NULL;
	int force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'o', "output", OPT_STRING, &output, "FILE", "the report file (DIR/report.html)", 0,
	     NULL},
	    {0, "grid", OPT_STRING, &grid, "ROWSxCOLS",
	     "the rank grid of the animation and load views (near-square by default)", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite an existing report file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct html_input in;
	char path[PATH_MAX];
	struct report rep;
	FILE *out;

	memset(&rep, 0, sizeof(rep));
	memset(&in, 0, sizeof(in));
	ret = cli_parse("html", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error("html", "one experiment directory at a time");
		return EXIT_USAGE;
	}
	if (grid && parse_grid(grid, &in.grid_rows, &in.grid_cols)) {
		cli_error("html", "--grid %s: expected ROWSxCOLS, e.g. --grid 4x8", grid);
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	if (!output) {
		snprintf(path, sizeof(path), "%s/report.html", dir);
		output = path;
	}
	ret = EXIT_USAGE;
	if (report_open(&rep, "html", dir, &(struct report_options){.per_thread = 1, .lines = 1}))
		goto out;
	out = cli_open_output("html", output, force);
	if (!out)
		goto out;
	in.e = &rep.e;
	in.syms = &rep.syms;
	in.rr = &rep.rr;
	in.fr = &rep.fr;
	in.sr = rep.e.nsamples ? &rep.sr : NULL;
	ret = html_write(out, &in);
	if (ret)
		cli_error("html", "%s: %s", output, strerror(-ret));
	ret = ret ? 1 : 0;
	if (out != stdout && fclose(out) != 0)
		ret = 1;
	if (ret == 0 && out != stdout)
		fprintf(stderr, "perfscope html: wrote %s\n", output);
out:
	html_input_release(&in);
	report_close(&rep);
	return ret;
}
