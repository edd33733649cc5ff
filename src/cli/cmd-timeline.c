/* cmd-timeline.c - `perfscope timeline`: counters and function shares over time from samples. */
#include "cli/cli.h"

#include "view/caveats.h"
#include "view/timeline-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CMD "timeline"

/* The timeline of DIR, written to OUTPUT in FMT with the experiment's caveats (stderr with CSV,
 * JSON and long CSV). Prints the cause of a failure. An exit status. */
static int timeline_write(const char *dir, const struct session_options *so, const char *output,
			  int force, enum out_format fmt)
{
	struct session s;
	struct experiment *e;
	struct timeline *t;
	char err[512] = "";
	FILE *out = NULL;
	int ret;

	session_init(&s, dir, SESSION_DIR, so);
	if ((ret = session_get(&s, SESSION_EXPERIMENT, (void **)&e, err, sizeof(err)))) {
		cli_error(CMD, "%s", err);
		ret = cli_status(ret);
		goto out;
	}
	ret = EXIT_USAGE;
	if (!e->nsamples || !e->has_sampling) {
		cli_error(CMD,
			  "%s has no samples: record with perfscope record --sample -o %s -- CMD",
			  dir, dir);
		goto out;
	}
	if ((ret = session_get(&s, SESSION_TIMELINE, (void **)&t, err, sizeof(err)))) {
		cli_error(CMD, "%s", err);
		ret = cli_status(ret);
		goto out;
	}
	ret = EXIT_USAGE;
	if (cli_output_open(CMD, output, force, &out))
		goto out;
	ret = timeline_print(e, t, fmt, out) ? 1 : 0;
	if (fmt != OUT_TEXT) {
		experiment_caveats(e, 1, caveat_warning, stderr);
	} else if (!ret) {
		struct caveat_block cb = {out, 0};

		experiment_caveats(e, 1, caveat_block, &cb);
	}
	ret = cli_output_close(CMD, out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}

int cmd_timeline(int argc, char **argv)
{
	const char *output = NULL, *interval = NULL, *dir = "perfscope.out", *format = NULL;
	long top = 10;
	int csv = 0, json = 0, force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "interval", OPT_STRING, &interval, "T",
	     "interval length (10ms, 1s...; default: a hundredth of the run)", 0, NULL},
	    {0, "top", OPT_INT, &top, "N",
	     "functions named in the shares; the rest is 'other' (10)", 0, NULL},
	    {0, "csv", OPT_FLAG, &csv, NULL, "CSV output (rates, a blank line, function shares)", 0,
	     NULL},
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	enum out_format fmt = OUT_TEXT;
	uint64_t interval_ns = 0;
	char why[128];

	ret = cli_parse(CMD, specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand(CMD, argc - 1 - first, argv + 1 + first, &dir))
		return EXIT_USAGE;
	if (interval && (parse_duration_ns(interval, &interval_ns) || interval_ns < 1000)) {
		cli_error(CMD, "--interval %s: expected a duration of 1us or more, e.g. 10ms",
			  interval);
		return EXIT_USAGE;
	}
	if (top < 1 || (csv && json)) {
		cli_error(CMD, top < 1 ? "--top N: N must be 1 or more"
				       : "--csv and --json exclude each other");
		return EXIT_USAGE;
	}
	if (options_out_format(csv, json, format, &fmt, why, sizeof(why))) {
		cli_error(CMD, "%s", why);
		return EXIT_USAGE;
	}
	return timeline_write(
	    dir, &(struct session_options){.timeline_ns = interval_ns, .timeline_top = (size_t)top},
	    output, force, fmt);
}
