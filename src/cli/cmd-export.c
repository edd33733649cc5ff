/* cmd-export.c - `perfscope export`: an experiment in a standard trace format. */
#include "cli.h"

#include "../analysis/experiment.h"
#include "../analysis/symbols.h"
#include "../output/chrome.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_OUTPUT "perfscope.json"

/* The formats export writes, for messages. */
#define FORMATS "chrome (Chrome Trace Event JSON for Perfetto and chrome://tracing)"

/* Caveats of the trace, on stderr: what the viewer shows that was not measured as such. */
static void caveats(const struct chrome_stats *s)
{
	if (s->synthetic_exits)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" calls have no recorded exit (run killed, or frames skipped by longjmp or "
			"an exception); they end at the thread's last record, marked "
			"exit_recorded=false\n",
			s->synthetic_exits);
	if (s->unmatched_exits)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" exits had no recorded enter and are left out\n",
			s->unmatched_exits);
	if (s->lost_records)
		fprintf(stderr,
			"perfscope export: warning: the runtime lost %" PRIu64
			" records; the trace has gaps\n",
			s->lost_records);
}

static int export_chrome(const char *dir, const char *output, int force)
{
	struct experiment e;
	struct symtab st;
	struct chrome_stats stats;
	char err[512];
	int ret, have_st = 0, write_failed, regular, status = EXIT_USAGE;
	struct stat sb;
	FILE *out = NULL;

	ret = experiment_open(&e, dir, err, sizeof(err));
	if (ret) {
		cli_error("export", "%s", err);
		goto done;
	}
	ret = symtab_init(&st, dir);
	if (ret) {
		cli_error("export", "%s: cannot read symbols: %s", dir, strerror(-ret));
		goto done;
	}
	have_st = 1;
	out = cli_open_output("export", output, force);
	if (!out)
		goto done;
	regular = out != stdout && fstat(fileno(out), &sb) == 0 && S_ISREG(sb.st_mode);
	ret = chrome_write(out, &e, &st, &stats, err, sizeof(err));
	write_failed = ferror(out) || ret == -ENOMEM;
	if (out != stdout && fclose(out) != 0 && ret == 0) {
		ret = -errno;
		write_failed = 1;
		snprintf(err, sizeof(err), "write failed: %s", strerror(errno));
	}
	if (ret) {
		cli_error("export", "%s%s%s", out != stdout ? output : "",
			  out != stdout ? ": " : "", err);
		/* a partial trace would open as a broken one: remove it (a regular file only:
		 * never a device or a pipe given as -o) */
		if (regular)
			unlink(output);
		status = write_failed ? 1 : EXIT_USAGE;
		goto done;
	}
	status = 0;
	if (out != stdout)
		fprintf(stderr,
			"perfscope export: wrote %s (%" PRIu64 " bytes): %" PRIu64
			" function calls, %" PRIu64 " regions, %" PRIu64 " counter values, %" PRIu64
			" threads\n",
			output, stats.bytes, stats.calls, stats.regions, stats.counter_values,
			stats.threads);
	caveats(&stats);
done:
	if (have_st)
		symtab_release(&st);
	experiment_release(&e);
	return status;
}

int cmd_export(int argc, char **argv)
{
	const char *output = DEFAULT_OUTPUT, *format = NULL, *dir = "perfscope.out";
	int force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {'f', "format", OPT_STRING, &format, "FORMAT", "the output format: chrome", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE",
	     "the output file (" DEFAULT_OUTPUT "); - for stdout", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite an existing output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};

	ret = cli_parse("export", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (argc - 1 - first > 1) {
		cli_error("export", "one experiment directory at a time");
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	if (!format) {
		cli_error("export", "no --format given; formats: " FORMATS);
		return EXIT_USAGE;
	}
	if (strcmp(format, "chrome") != 0) {
		cli_error("export", "unknown format '%s'; formats: " FORMATS, format);
		return EXIT_USAGE;
	}
	return export_chrome(dir, output, force);
}
