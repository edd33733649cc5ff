/* cmd-timeline.c - `perfscope timeline`: counters and function shares over time from samples. */
#include "cli/cli.h"

#include "view/caveats.h"
#include "view/timeline-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cmd_timeline(int argc, char **argv)
{
	const char *output = NULL, *interval = NULL, *dir = "perfscope.out";
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
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct session s;
	struct experiment *e;
	struct timeline *t;
	uint64_t interval_ns = 0;
	char err[512] = "";
	FILE *out = NULL;

	ret = cli_parse("timeline", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	ret = EXIT_USAGE;
	if (argc - 1 - first > 1) {
		cli_error("timeline", "one experiment directory at a time (got '%s' and '%s')",
			  argv[1 + first], argv[2 + first]);
		return ret;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	if (interval && (parse_duration_ns(interval, &interval_ns) || interval_ns < 1000)) {
		cli_error("timeline",
			  "--interval %s: expected a duration of 1us or more, e.g. 10ms", interval);
		return ret;
	}
	if (top < 1 || (csv && json)) {
		cli_error("timeline", top < 1 ? "--top N: N must be 1 or more"
					      : "--csv and --json exclude each other");
		return ret;
	}
	session_init(
	    &s, dir, SESSION_DIR,
	    &(struct session_options){.timeline_ns = interval_ns, .timeline_top = (size_t)top});
	if ((ret = session_get(&s, SESSION_EXPERIMENT, (void **)&e, err, sizeof(err)))) {
		cli_error("timeline", "%s", err);
		ret = cli_status(ret);
		goto out;
	}
	ret = EXIT_USAGE;
	if (!e->nsamples || !e->has_sampling) {
		cli_error("timeline",
			  "%s has no samples: record with perfscope record --sample -o %s -- CMD",
			  dir, dir);
		goto out;
	}
	if ((ret = session_get(&s, SESSION_TIMELINE, (void **)&t, err, sizeof(err)))) {
		cli_error("timeline", "%s", err);
		ret = cli_status(ret);
		goto out;
	}
	ret = EXIT_USAGE;
	if (cli_output_open("timeline", output, force, &out))
		goto out;
	ret = (csv    ? timeline_print_csv(e, t, out)
	       : json ? timeline_print_json(e, t, out)
		      : timeline_print_text(e, t, out))
		  ? 1
		  : 0;
	if (csv || json) {
		experiment_caveats(e, 1, caveat_warning, stderr);
	} else if (!ret) {
		struct caveat_block cb = {out, 0};

		experiment_caveats(e, 1, caveat_block, &cb);
	}
	ret = cli_output_close("timeline", out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}
