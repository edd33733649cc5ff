/* cmd-html.c - `perfscope html`: the self-contained HTML report of an experiment or of an OTF2
 * archive (its anchor file, *.otf2). */
#include "cli.h"

#include "../output/html.h"
#include "report-otf2.h"

#include "../analysis/fprofile.h"
#include "../analysis/mpi-model.h"
#include "../analysis/regions.h"
#include "../analysis/sprofile.h"

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

/* After report_open failed: open DIR again without the profiles, with why they could not be
 * built in WHY (report_open printed it already). 0, or -1 when the experiment itself cannot be
 * opened (report_open said why). */
static int open_without_profiles(struct report *rep, const char *dir, char *why, size_t len)
{
	struct region_profile rp;
	struct func_profile fp;
	struct sample_profile sp;
	char err[512] = "";

	memset(rep, 0, sizeof(*rep));
	if (experiment_open(&rep->e, dir, err, sizeof(err)) || symtab_init(&rep->syms, dir) < 0)
		return -1;
	/* the pass that failed, again, for its message */
	snprintf(why, len, "out of memory");
	memset(&rp, 0, sizeof(rp));
	memset(&fp, 0, sizeof(fp));
	memset(&sp, 0, sizeof(sp));
	if (func_profile_build(&fp, &rep->e, &rep->syms, &rp, NULL, err, sizeof(err)) ||
	    (rep->e.nsamples &&
	     sample_profile_build(&sp, &rep->e, &rep->syms, 1, 1, err, sizeof(err))))
		snprintf(why, len, "%s", err[0] ? err : "out of memory");
	func_profile_release(&fp);
	region_profile_release(&rp);
	sample_profile_release(&sp);
	return 0;
}

/* Rows by exclusive time, largest first (report's default order of functions). */
static int func_excl_cmp(const void *a, const void *b, void *ctx)
{
	const struct func_row *x = a, *y = b;

	(void)ctx;
	if (x->excl_ns != y->excl_ns)
		return x->excl_ns < y->excl_ns ? 1 : -1;
	return strcmp(x->sym.name, y->sym.name);
}

/* REP with the function profile of the archive ANCHOR (per thread: a location per thread) as
 * IN's profile. 0, or an exit status after a one-line message naming the archive. */
static int open_archive(struct report *rep, struct html_input *in, const char *anchor)
{
	int ret = report_otf2_open(rep, "html", anchor);

	if (ret == 0 && func_profile_sort(&rep->fprof, func_excl_cmp, NULL) < 0) {
		cli_error("html", "out of memory");
		ret = -ENOMEM;
	}
	if (ret < 0)
		return ret == -ENOMEM ? 1 : EXIT_USAGE;
	rep->fr.e = &rep->e;
	rep->fr.p = &rep->fprof;
	rep->fr.per_thread = 1;
	rep->fr.sort_label = "exclusive time";
	in->otf2 = anchor;
	in->fr = &rep->fr;
	return 0;
}

/* The MPI model loaded before the profile pass (load_mpi_first), and the facts of its read. */
struct mpi_first {
	struct html_input *in;
	struct stream_facts *facts;
};

/*
 * report_open's hook: load the MPI model first, so that the profile pass skips the streams it
 * found only MPI records in (one read of them instead of two). The model goes to html_mpi()
 * as loaded, which states its warnings in their place among the caveats; one that failed is
 * dropped for html_mpi() to load again and say why.
 */
static int load_mpi_first(struct report *rep, void *ctx, const struct stream_facts **facts)
{
	struct mpi_first *mf = ctx;
	struct html_input *in = mf->in;
	char err[1024];
	int ret;

	/* html_mpi() reads no stream without a rank named (html.h) */
	if (!html_ranks_named(&rep->e))
		return 0;
	mf->facts = calloc(rep->e.nstreams + 1, sizeof(*mf->facts));
	in->mpi = malloc(sizeof(*in->mpi));
	if (!mf->facts || !in->mpi) {
		free(in->mpi);
		in->mpi = NULL;
		return 0; /* html_mpi() tries again, and says what fails */
	}
	mpi_model_init(in->mpi);
	ret = mpi_model_load_facts(in->mpi, &rep->e, 0, mf->facts, err, sizeof(err));
	*facts = mf->facts; /* each stream's, whatever became of the model */
	if (ret == 0) {
		in->mpi_state = in->mpi->nwarnings ? 2 : 1;
		return 0;
	}
	mpi_model_release(in->mpi);
	free(in->mpi);
	in->mpi = NULL;
	in->mpi_state = ret == -ENODATA ? -1 : 0; /* -ENODATA: html_mpi() says nothing either */
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
	struct mpi_first mf = {&in, NULL};
	char path[PATH_MAX], why[512] = "";
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
		cli_error("html", "--grid %s: expected ROWSxCOLS, each 1 to %d, e.g. --grid 4x8",
			  grid, GRID_SIDE_MAX);
		return EXIT_USAGE;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	otf2 = report_otf2_is_anchor(dir);
	if (!output) {
		/* an archive's report beside its anchor: ARCHIVE/traces.otf2 -> traces.html */
		if (otf2)
			snprintf(path, sizeof(path), "%.*s.html", (int)(strlen(dir) - 5), dir);
		else
			snprintf(path, sizeof(path), "%s/report.html", dir);
		output = path;
	}
	ret = EXIT_USAGE;
	if (otf2) {
		if ((ret = open_archive(&rep, &in, dir)))
			goto out;
		ret = EXIT_USAGE;
	} else if ((ret = report_open(&rep, "html", dir,
				      &(struct report_options){.per_thread = 1,
							       .lines = 1,
							       .before_profiles = load_mpi_first,
							       .ctx = &mf}))) {
		if (ret == -ENOMEM) { /* said; not the experiment's fault: no view is left out */
			ret = 1;
			goto out;
		}
		ret = EXIT_USAGE;
		/* a stream the profile pass rejects: the other views may still be built (the
		 * MPI model by html_mpi(), from the experiment opened again) */
		html_input_release(&in);
		report_close(&rep);
		if (open_without_profiles(&rep, dir, why, sizeof(why)))
			goto out;
		in.profile_error = why;
		fprintf(stderr,
			"perfscope html: the Profile view is left out (the report's Summary "
			"says why)\n");
	} else {
		in.rr = &rep.rr;
		in.fr = &rep.fr;
		in.sr = rep.e.nsamples ? &rep.sr : NULL;
	}
	in.e = &rep.e;
	in.syms = &rep.syms;
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
	free(mf.facts);
	html_input_release(&in);
	report_close(&rep);
	return ret;
}
