/* cmd-html.c - `perfscope html`: the self-contained HTML report of an experiment. */
#include "cli.h"

#include "../output/html.h"

#include <limits.h>
#include <string.h>

int cmd_html(int argc, char **argv)
{
	const char *output = NULL, *dir = "perfscope.out";
	int force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'o', "output", OPT_STRING, &output, "FILE", "the report file (DIR/report.html)", 0,
	     NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite an existing report file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	char path[PATH_MAX];
	struct report rep;
	FILE *out;

	memset(&rep, 0, sizeof(rep));
	ret = cli_parse("html", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error("html", "one experiment directory at a time");
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	if (!output) {
		snprintf(path, sizeof(path), "%s/report.html", dir);
		output = path;
	}
	ret = EXIT_USAGE;
	if (report_open(&rep, "html", dir, &(struct report_options){.per_thread = 1}))
		goto out;
	out = cli_open_output("html", output, force);
	if (!out)
		goto out;
	ret = html_write(out, &rep.rr) ? 1 : 0;
	if (out != stdout && fclose(out) != 0)
		ret = 1;
	if (ret == 0 && out != stdout)
		fprintf(stderr, "perfscope html: wrote %s\n", output);
out:
	report_close(&rep);
	return ret;
}
