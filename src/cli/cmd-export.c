/* cmd-export.c - `perfscope export`: an experiment in a standard trace format. */
#include "cli/cli.h"

#include "model/session.h"
#include "lib/outfile.h"
#include "export/exporters.h"
#include "view/caveats.h"
#include "lib/textesc.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Caveats of the trace, on stderr: what the viewer shows that was not measured as such, then
 * the experiment's. */
static void caveats(const struct experiment *e, uint64_t synthetic_exits, uint64_t unmatched_exits,
		    uint64_t lost_records)
{
	if (synthetic_exits)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" calls have no recorded exit (run killed, or frames skipped by longjmp or "
			"an exception); they end at the thread's last record, marked "
			"exit_recorded=false\n",
			synthetic_exits);
	if (unmatched_exits)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" exits had no recorded enter and are left out\n",
			unmatched_exits);
	if (lost_records)
		fprintf(stderr,
			"perfscope export: warning: the runtime lost %" PRIu64
			" records; the trace has gaps\n",
			lost_records);
	experiment_caveats(e, 1, caveat_warning, stderr);
}

/* ", N MPI calls, N messages, N samples" of what STATS counted, "" for none, in BUF. */
static const char *model_summary(const struct chrome_stats *stats, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (stats->mpi_calls)
		n += (size_t)snprintf(buf + n, len - n,
				      ", %" PRIu64 " MPI calls (%" PRIu64 " messages as flows)",
				      stats->mpi_calls, stats->messages);
	if (stats->samples && n < len)
		snprintf(buf + n, len - n, ", %" PRIu64 " samples", stats->samples);
	return buf;
}

/* Open session S on the experiment DIR with what exporter X needs into *JOB: the experiment,
 * its symbols, and with EXPORT_NEEDS_MPI its MPI model when it has MPI records. 0, or
 * EXIT_USAGE after saying why not. */
static int job_input(struct session *s, const struct exporter *x, const char *dir,
		     struct export_job *job)
{
	char err[1024];
	void *e = NULL, *st = NULL, *m = NULL;
	int ret;

	session_init(s, dir, SESSION_DIR,
		     &(struct session_options){.mpi_flags = MPI_BUILD_KEEP_UNCORRECTED});
	memset(job, 0, sizeof(*job));
	if ((ret = session_get(s, SESSION_EXPERIMENT, &e, err, sizeof(err))) == 0)
		ret = session_get(s, SESSION_SYMBOLS, &st, err, sizeof(err));
	if (ret == 0 && (x->needs & EXPORT_NEEDS_MPI) &&
	    (ret = session_get(s, SESSION_MPI, &m, err, sizeof(err))) == -ENODATA)
		ret = 0; /* no MPI records */
	job->e = e;
	job->st = st;
	job->mpi = m;
	if (ret < 0) {
		cli_error("export", "%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* Format X, written to one file OUTPUT. */
static int export_file(const struct exporter *x, const char *dir, const char *output, int force)
{
	struct session s;
	struct export_job job;
	struct chrome_stats *stats = &job.stats.chrome;
	char err[512], more[128];
	int ret, status = EXIT_USAGE;
	FILE *out = NULL;

	if (job_input(&s, x, dir, &job) || cli_output_open("export", output, force, &out))
		goto done;
	job.out = out;
	ret = x->write(&job, err, sizeof(err));
	if (ret) {
		cli_error("export", "%s%s%s", out != stdout ? output : "",
			  out != stdout ? ": " : "", err);
		status = ferror(out) || ret == -ENOMEM ? 1 : EXIT_USAGE;
		/* a partial trace would open as a broken one: the old file stays instead */
		cli_output_close("export", out, 0, status);
		goto done;
	}
	status = cli_output_close("export", out, 1, 0);
	if (status)
		goto done;
	if (out != stdout)
		fprintf(stderr,
			"perfscope export: wrote %s (%" PRIu64 " bytes): %" PRIu64
			" function calls, %" PRIu64 " regions, %" PRIu64 " counter values, %" PRIu64
			" threads%s\n",
			output, stats->bytes, stats->calls, stats->regions, stats->counter_values,
			stats->threads, model_summary(stats, more, sizeof(more)));
	caveats(job.e, stats->synthetic_exits, stats->unmatched_exits, stats->lost_records);
done:
	session_close(&s);
	return status;
}

/* Whether ARCHIVE may be written: it does not exist, or with FORCE it is an empty directory or
 * holds an archive export wrote (which the new one replaces once complete). 0, or EXIT_USAGE
 * after saying why not. */
static int otf2_output_ok(const char *archive, int force)
{
	char anchor[4096];
	struct stat sb;

	if (!strcmp(archive, "-")) {
		cli_error("export", "an OTF2 archive is a directory; give its path with -o");
		return EXIT_USAGE;
	}
	if (lstat(archive, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		cli_error("export", "cannot write %s: %s", archive, strerror(errno));
		return EXIT_USAGE;
	}
	if (!force) {
		cli_error("export", "%s exists; not overwriting it (use --force)", archive);
		return EXIT_USAGE;
	}
	snprintf(anchor, sizeof(anchor), "%s/" OTF2_EXPORT_NAME ".otf2", archive);
	if (!S_ISDIR(sb.st_mode) || (access(anchor, F_OK) < 0 && !dir_empty(archive))) {
		/* never replace anything but an archive of ours or an empty directory */
		cli_error("export",
			  "%s exists and is not an OTF2 archive (no %s) or an empty directory; not "
			  "replacing it",
			  archive, anchor);
		return EXIT_USAGE;
	}
	return 0;
}

/* Format X, written as a directory ARCHIVE (the OTF2 archive). */
static int export_directory(const struct exporter *x, const char *dir, const char *archive,
			    int force)
{
	struct session s;
	struct export_job job;
	struct otf2_export_stats stats;
	char err[512];
	int ret, status = EXIT_USAGE;

	if (job_input(&s, x, dir, &job) || otf2_output_ok(archive, force))
		goto done;
	job.path = archive;
	ret = x->write(&job, err, sizeof(err));
	stats = job.stats.otf2;
	if (ret < 0) {
		/* ARCHIVE is as it was; a writing failure is 1, as chrome's */
		cli_error("export", "%s", err);
		status = ret == -ENOMEM || ret == -EIO ? 1 : EXIT_USAGE;
		goto done;
	}
	if (ret == 1)
		fprintf(stderr, "perfscope export: note: %s\n", text_safe(err));
	status = 0;
	for (size_t i = 0; job.mpi && i < job.mpi->nwarnings; i++)
		fprintf(stderr, "perfscope export: warning: %s\n", text_safe(job.mpi->warnings[i]));
	fprintf(stderr,
		"perfscope export: wrote %s/" OTF2_EXPORT_NAME ".otf2: %" PRIu64 " events, %" PRIu64
		" function calls, %" PRIu64 " regions, %" PRIu64 " counter values, %" PRIu64
		" MPI calls (%" PRIu64 " messages sent, %" PRIu64 " collectives), %" PRIu64
		" locations in %" PRIu64 " processes\n",
		archive, stats.events, stats.calls, stats.regions, stats.metric_values,
		stats.mpi_calls, stats.messages, stats.collectives, stats.locations,
		stats.processes);
	if (stats.metrics_skipped)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" region boundaries have no Metric event: a counter had not run yet\n",
			stats.metrics_skipped);
	if (stats.moved_events)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" events moved later (by at most %" PRIu64
			" ns) so that no location's times go back\n",
			stats.moved_events, stats.moved_max_ns);
	if (stats.mpi_unplaced)
		fprintf(stderr,
			"perfscope export: note: %" PRIu64
			" MPI calls of threads without a stream are on their own locations\n",
			stats.mpi_unplaced);
	caveats(job.e, stats.synthetic_exits, stats.unmatched_exits, stats.lost_records);
done:
	session_close(&s);
	return status;
}

int cmd_export(int argc, char **argv)
{
	const char *output = NULL, *format = NULL, *dir = "perfscope.out";
	int force = 0, help = 0, first, ret;
	const struct exporter *x;
	char formats[512];
	const struct option_spec specs[] = {
	    {'f', "format", OPT_STRING, &format, "FORMAT", "the output format: chrome or otf2", 0,
	     NULL},
	    {'o', "output", OPT_STRING, &output, "FILE",
	     "the output file (chrome: perfscope.json, - for stdout; otf2: the archive "
	     "directory, perfscope-otf2)",
	     0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite an existing output file or archive", 0,
	     NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};

	ret = cli_parse("export", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand("export", argc - 1 - first, argv + 1 + first, &dir))
		return EXIT_USAGE;
	x = format ? exporter_find(format) : NULL;
	if (!x) {
		exporter_list(formats, sizeof(formats));
		if (!format)
			cli_error("export", "no --format given; formats: %s", formats);
		else
			cli_error("export", "unknown format '%s'; formats: %s", format, formats);
		return EXIT_USAGE;
	}
	if (!output)
		output = x->default_output;
	if (x->target == EXPORT_DIRECTORY)
		return export_directory(x, dir, output, force);
	return export_file(x, dir, output, force);
}
