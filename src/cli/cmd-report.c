/* cmd-report.c - `perfscope report`: the regions of an experiment. */
#include "cli.h"

#include "../analysis/experiment.h"
#include "../analysis/mpi-scope.h"
#include "../analysis/mpi-waits.h"
#include "../analysis/regions.h"
#include "../core/metrics.h"
#include "../output/region-print.h"
#include "../output/sample-print.h"
#include "../output/scope-print.h"
#include "../view/func-view.h"
#include "../view/region-view.h"
#include "report-otf2.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int report_sort_key_valid(const char *key)
{
	return region_view_sortable(key);
}

/* Parse the metrics stored in the experiment (the group given to record). */
static int load_metrics(const struct experiment *e, struct metric **out, size_t *n)
{
	struct metric *ms = calloc(e->nmetrics + 1, sizeof(*ms));
	char err[256];

	if (!ms)
		return -ENOMEM;
	for (size_t i = 0; i < e->nmetrics; i++) {
		ms[*n].name = e->metrics[i].name;
		ms[*n].unit = e->metrics[i].unit;
		ms[*n].formula = e->metrics[i].formula;
		if (metric_expr_parse(e->metrics[i].formula, &ms[*n].expr, err, sizeof(err)) == 0)
			(*n)++;
		else
			cli_error("report", "metric '%s' in meta.json: %s", e->metrics[i].name,
				  err);
	}
	*out = ms;
	return 0;
}

/* The function profile of REP's experiment (only when it has function events). */
static int report_functions(struct report *rep, const char *cmd, const struct report_options *opt)
{
	const char *key = opt->sort_key ? opt->sort_key : "excl";
	struct func_profile *p;

	if (!opt->per_thread && func_profile_merge(&rep->fprof, &rep->fmerged)) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	p = opt->per_thread ? &rep->fprof : &rep->fmerged;
	if (func_view_sort(p, key, opt->per_thread, &rep->fr.sort_label)) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	rep->fr.e = &rep->e;
	rep->fr.p = p;
	rep->fr.per_thread = opt->per_thread;
	rep->fr.top = opt->top;
	rep->fr.min_ns = opt->min_ns;
	return 0;
}

int report_open(struct report *rep, const char *cmd, const char *dir,
		const struct report_options *opt)
{
	const char *key = opt->sort_key ? opt->sort_key : "incl";
	const struct stream_facts *facts = NULL;
	char err[512];
	int ret;

	memset(rep, 0, sizeof(*rep));
	if ((ret = experiment_open(&rep->e, dir, err, sizeof(err)))) {
		cli_error(cmd, "%s", err);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	/* one read of every stream builds both profiles */
	if (symtab_init(&rep->syms, dir) < 0) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	if (opt->before_profiles && (ret = opt->before_profiles(rep, opt->ctx, &facts)) < 0)
		return ret;
	if ((ret = func_profile_build_known(&rep->fprof, &rep->e, &rep->syms, &rep->prof, NULL,
					    facts, err, sizeof(err)))) {
		cli_error(cmd, "%s", err);
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	if (!opt->per_thread && region_profile_merge_threads(&rep->prof, &rep->merged)) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	if (load_metrics(&rep->e, &rep->metrics, &rep->nmetrics)) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	rep->rr.e = &rep->e;
	rep->rr.p = opt->per_thread ? &rep->prof : &rep->merged;
	rep->rr.per_thread = opt->per_thread;
	rep->rr.metrics = rep->metrics;
	rep->rr.nmetrics = rep->nmetrics;
	rep->rr.top = opt->top;
	region_view_sort(opt->per_thread ? &rep->prof : &rep->merged, key, opt->per_thread,
			 &rep->rr.sort_label);
	if (rep->e.nsamples) {
		if ((ret = sample_profile_build(&rep->sprof, &rep->e, &rep->syms, opt->per_thread,
						opt->lines, err, sizeof(err)))) {
			cli_error(cmd, "%s", err);
			return ret == -ENOMEM ? ret : -EINVAL;
		}
		sample_profile_sort(&rep->sprof);
		rep->sr.e = &rep->e;
		rep->sr.p = &rep->sprof;
		rep->sr.top = opt->top;
		rep->sr.lines = opt->lines;
		rep->sr.accuracy = opt->accuracy;
	}
	return report_functions(rep, cmd, opt);
}

void report_close(struct report *rep)
{
	for (size_t i = 0; i < rep->nmetrics; i++)
		metric_expr_free(rep->metrics[i].expr);
	free(rep->metrics);
	region_profile_release(&rep->prof);
	region_profile_release(&rep->merged);
	func_profile_release(&rep->fprof);
	func_profile_release(&rep->fmerged);
	sample_profile_release(&rep->sprof);
	if (rep->syms.dir)
		symtab_release(&rep->syms);
	experiment_release(&rep->e);
}

/* What the report shows. */
enum report_view { VIEW_AUTO, VIEW_FUNCTIONS, VIEW_REGIONS, VIEW_SAMPLES, VIEW_SCOPES };

int report_scopes_write(struct scope_report *r, const struct scope_options *so)
{
	FILE *out;
	int ret;

	if (cli_output_open("report", so->output, so->force, &out))
		return EXIT_USAGE;
	r->rank = so->rank;
	r->per_rank = so->per_rank;
	r->top = so->top;
	ret = scope_print(r, so->fmt, out) ? 1 : 0;
	return cli_output_close("report", out, ret == 0, ret);
}

/* `report --by scope --categories`: the MPI model of DIR, its waits and the scope profile. An
 * exit status. */
static int report_scopes(const char *dir, const struct scope_options *so)
{
	struct experiment e;
	struct symtab syms;
	struct mpi_model m;
	struct mpi_waits w;
	struct mpi_scope_profile p;
	struct scope_report r;
	int have_e = 0, have_syms = 0, have_w = 0, have_p = 0, ret = EXIT_USAGE, lret;
	char err[512];

	mpi_model_init(&m);
	if (experiment_open(&e, dir, err, sizeof(err))) {
		cli_error("report", "%s", err);
		goto out;
	}
	have_e = 1;
	if ((lret = mpi_model_load(&m, &e, 0, err, sizeof(err)))) {
		cli_error("report", "%s: --categories splits the time of MPI calls", err);
		ret = lret == -ENOMEM ? 1 : EXIT_USAGE; /* the experiment's fault, or ours */
		goto out;
	}
	if (symtab_init(&syms, dir) < 0 || mpi_waits_compute(&w, &m)) {
		cli_error("report", "out of memory");
		ret = 1;
		goto out;
	}
	have_syms = have_w = 1;
	if ((lret = mpi_scope_build(&p, &e, &syms, &m, &w, err, sizeof(err)))) {
		cli_error("report", "%s", err);
		ret = lret == -ENOMEM ? 1 : EXIT_USAGE;
		goto out;
	}
	have_p = 1;
	r = (struct scope_report){.p = &p, .m = &m, .e = &e};
	ret = report_scopes_write(&r, so);
out:
	if (have_p)
		mpi_scope_release(&p);
	if (have_w)
		mpi_waits_release(&w);
	if (have_syms)
		symtab_release(&syms);
	mpi_model_release(&m);
	if (have_e)
		experiment_release(&e);
	return ret;
}

static int report_print(const struct report *rep, enum report_view view, int tree,
			enum out_format fmt, FILE *out)
{
	int has_functions = rep->fprof.function_records > 0;
	int ret;

	if (view == VIEW_AUTO)
		view = has_functions	 ? VIEW_FUNCTIONS
		       : rep->e.nsamples ? VIEW_SAMPLES
					 : VIEW_REGIONS;
	if (view == VIEW_SAMPLES)
		return fmt == OUT_JSON	 ? sample_print_json(&rep->sr, out)
		       : fmt != OUT_TEXT ? sample_print_csv(&rep->sr, fmt, out)
					 : sample_print_text(&rep->sr, out);
	if (view == VIEW_REGIONS)
		return region_print(&rep->rr, fmt, out);
	ret = tree ? func_print_tree(&rep->fr, fmt, out) : func_print(&rep->fr, fmt, out);
	/* the text report also shows the regions of a traced run (its caveats are said) */
	if (ret == 0 && fmt == OUT_TEXT && !tree && has_functions && rep->prof.nrows) {
		struct region_report rr = rep->rr;

		rr.no_caveats = 1;
		ret = region_print(&rr, OUT_TEXT, out);
	}
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct opt_list by = {0};
	const char *output = NULL, *sort_key = NULL, *min_time = NULL, *rank_arg = NULL;
	const char *callers = NULL, *min_share = NULL, *format = NULL;
	enum out_format fmt = OUT_TEXT;
	double min_pct = 0;
	long top = 0, fold = -1;
	int no_fold = 0, csv = 0, json = 0, force = 0, help = 0, tree = 0, lines = 0, accuracy = 0,
	    first, ret;
	int categories = 0, per_rank = 0, otf2;
	const struct option_spec specs[] = {
	    {0, "by", OPT_LIST, &by, "function|region|sample|scope|thread|rank",
	     "what to show: function (default when traced), sample (default when sampled), "
	     "region, scope (MPI runs: with --categories), and thread to split per thread "
	     "(rank: per rank with scope)",
	     0, NULL},
	    {0, "categories", OPT_FLAG, &categories, NULL,
	     "MPI runs: each scope's time in computation, MPI and MPI waiting (--by scope)", 0,
	     NULL},
	    {0, "rank", OPT_STRING, &rank_arg, "N", "with --categories: rank N only", 0, NULL},
	    {0, "lines", OPT_FLAG, &lines, NULL, "sampled: the hottest source lines (file:line)", 0,
	     NULL},
	    {0, "accuracy", OPT_FLAG, &accuracy, NULL,
	     "sampled: totals estimated from the samples against exact counts", 0, NULL},
	    {0, "tree", OPT_FLAG, &tree, NULL, "the call tree with inclusive times and calls", 0,
	     NULL},
	    {0, "fold-recursion", OPT_INT, &fold, "N",
	     "--tree: fold each chain of direct recursion deeper than N levels (alone: every one; "
	     "default 16) into one line",
	     OPT_ARG_OPTIONAL, "1"},
	    {0, "no-fold-recursion", OPT_FLAG, &no_fold, NULL,
	     "--tree: show every level of recursion", 0, NULL},
	    {0, "callers", OPT_STRING, &callers, "FUNC",
	     "sampled with --callgraph: the callers of FUNC, and theirs, as a tree", 0, NULL},
	    {0, "sort", OPT_STRING, &sort_key, "KEY",
	     "excl (functions' default), incl (regions' default), calls, mean, max, name", 0, NULL},
	    {0, "top", OPT_INT, &top, "N", "show the first N rows", 0, NULL},
	    {0, "min-time", OPT_STRING, &min_time, "T",
	     "leave out functions and call paths under T inclusive (10us, 1ms...)", 0, NULL},
	    {0, "min-share", OPT_STRING, &min_share, "PCT",
	     "sampled: leave out functions and call-tree nodes (inclusive) under PCT % of the "
	     "samples",
	     0, NULL},
	    {0, "csv", OPT_FLAG, &csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct report_options opt = {0};
	enum report_view view = VIEW_AUTO;
	struct report rep;
	const char *dir = "perfscope.out";
	FILE *out = NULL;
	uint64_t min_ns = 0;

	memset(&rep, 0, sizeof(rep));
	ret = cli_parse("report", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret) {
		opt_list_release(&by);
		return ret < 0 ? EXIT_USAGE : 0;
	}
	ret = EXIT_USAGE;
	if (argc - 1 - first > 1) {
		cli_error("report", "one experiment directory at a time (got '%s' and '%s')",
			  argv[1 + first], argv[2 + first]);
		goto out;
	}
	if (argc - 1 - first == 1)
		dir = argv[1 + first];
	if (format) {
		char why[128];

		if (options_out_format(csv, json, format, &fmt, why, sizeof(why))) {
			cli_error("report", "%s", why);
			goto out;
		}
		csv = fmt == OUT_CSV;
		json = fmt == OUT_JSON;
	} else {
		fmt = csv ? OUT_CSV : json ? OUT_JSON : OUT_TEXT;
	}
	otf2 = report_otf2_is_anchor(dir);
	for (size_t i = 0; i < by.n; i++) {
		if (!strcmp(by.items[i], "thread")) {
			opt.per_thread = 1;
		} else if (!strcmp(by.items[i], "region")) {
			view = VIEW_REGIONS;
		} else if (!strcmp(by.items[i], "function")) {
			view = VIEW_FUNCTIONS;
		} else if (!strcmp(by.items[i], "sample")) {
			view = VIEW_SAMPLES;
		} else if (!strcmp(by.items[i], "scope")) {
			view = VIEW_SCOPES;
		} else if (!strcmp(by.items[i], "rank")) {
			per_rank = 1;
		} else {
			cli_error(
			    "report",
			    "--by %s: expected function, region, sample, scope, thread or rank",
			    by.items[i]);
			goto out;
		}
	}
	if (min_share) {
		char *end = NULL;

		min_pct = strtod(min_share, &end);
		if (end == min_share || (*end && strcmp(end, "%")) ||
		    !(min_pct > 0 && min_pct <= 100)) {
			cli_error("report",
				  "--min-share %s: expected a share of the samples in %%, "
				  "more than 0 and at most 100 (e.g. 1 or 0.5)",
				  min_share);
			goto out;
		}
		if (categories || view == VIEW_SCOPES || per_rank || rank_arg ||
		    view == VIEW_FUNCTIONS || view == VIEW_REGIONS) {
			cli_error("report", "--min-share prunes reports of samples: drop it, or "
					    "--by sample without --categories/--rank");
			goto out;
		}
	}
	if (categories || view == VIEW_SCOPES || per_rank || rank_arg) {
		struct scope_options so = {MPI_SCOPE_ALL, per_rank, 0,	   csv,
					   json,	  output,   force, fmt};
		char *end = NULL;
		long v = 0;

		if (rank_arg)
			v = strtol(rank_arg, &end, 10);
		if ((view != VIEW_AUTO && view != VIEW_SCOPES) || opt.per_thread || tree || lines ||
		    accuracy || sort_key || min_time || callers) {
			cli_error("report",
				  "--categories is the view --by scope[,rank] [--rank N]: "
				  "drop the other --by, --tree, --lines, --accuracy, --sort "
				  "and --min-time");
			goto out;
		}
		if (rank_arg && (!*rank_arg || *end || v < 0 || v > INT32_MAX)) {
			cli_error("report", "--rank %s: expected a rank (0 or more)", rank_arg);
			goto out;
		}
		if (top < 0 || (csv && json) || (rank_arg && per_rank)) {
			cli_error("report", top < 0 ? "--top N: N must be 0 (all rows) or more"
					    : csv && json
						? "--csv and --json exclude each other"
						: "--rank N and --by rank exclude each other");
			goto out;
		}
		so.rank = rank_arg ? (int)v : MPI_SCOPE_ALL;
		so.top = (size_t)top;
		ret = otf2 ? report_otf2_scopes(dir, &so) : report_scopes(dir, &so);
		goto out;
	}
	if (sort_key && !report_sort_key_valid(sort_key)) {
		char words[128];

		report_sort_words(words, sizeof(words));
		cli_error("report", "--sort %s: expected %s", sort_key, words);
		goto out;
	}
	if (min_time && (parse_duration_ns(min_time, &min_ns) || min_ns > INT64_MAX)) {
		cli_error("report", "--min-time %s: expected a duration such as 10us, 1ms or 2s",
			  min_time);
		goto out;
	}
	if (top < 0 || (csv && json) || (tree && view == VIEW_REGIONS)) {
		cli_error("report", top < 0 ? "--top N: N must be 0 (all rows) or more"
				    : csv && json
					? "--csv and --json exclude each other"
					: "--tree is a view of functions: drop --by region");
		goto out;
	}
	if ((fold != -1 || no_fold) &&
	    (!tree || (fold != -1 && no_fold) || (fold != -1 && fold < 1))) {
		cli_error("report",
			  !tree ? "--fold-recursion and --no-fold-recursion shape --tree: add it"
			  : no_fold ? "--fold-recursion and --no-fold-recursion exclude each other"
				    : "--fold-recursion=N: N must be 1 or more");
		goto out;
	}
	if (lines || accuracy) {
		if (view != VIEW_AUTO && view != VIEW_SAMPLES) {
			cli_error("report",
				  "--lines and --accuracy are views of samples: drop --by");
			goto out;
		}
		view = VIEW_SAMPLES;
	}
	opt.lines = lines;
	opt.accuracy = accuracy;
	opt.sort_key = sort_key;
	opt.top = (size_t)top;
	opt.min_ns = (int64_t)min_ns;
	if (otf2 && (view == VIEW_REGIONS || view == VIEW_SAMPLES)) {
		report_otf2_refuse(dir, lines		       ? "--lines"
					: accuracy	       ? "--accuracy"
					: view == VIEW_REGIONS ? "--by region"
							       : "--by sample");
		goto out;
	}
	if (otf2 ? report_otf2_open(&rep, "report", dir) || report_functions(&rep, "report", &opt)
		 : report_open(&rep, "report", dir, &opt))
		goto out;
	if (otf2)
		view = VIEW_FUNCTIONS;
	rep.fr.fold_recursion = no_fold ? FUNC_FOLD_NONE : fold > 0 ? (uint64_t)fold : 0;
	if (view == VIEW_SAMPLES && !rep.e.nsamples) {
		cli_error("report",
			  "%s has no samples: record with perfscope record --sample -o %s -- CMD",
			  dir, dir);
		goto out;
	}
	/* the sampled view checks its own options (call trees from samples) */
	if (view == VIEW_SAMPLES ||
	    (view == VIEW_AUTO && !rep.fprof.function_records && rep.e.nsamples)) {
		struct sample_view sv = {tree, callers, sort_key, min_ns, csv, json, min_pct};
		char why[512];

		if (fmt == OUT_LONG && (tree || callers || lines || accuracy)) {
			cli_error("report", "--format long: the sampled view's functions only, "
					    "without --tree, --callers, --lines and --accuracy");
			goto out;
		}
		if (sample_report_setup(&rep.sr, &rep.sprof, &sv, why, sizeof(why))) {
			cli_error("report", "%s", why);
			goto out;
		}
		view = VIEW_SAMPLES;
	} else if (min_share) {
		cli_error("report", "%s",
			  rep.e.nsamples
			      ? "--min-share prunes reports of samples: add --by sample "
				"(functions by time: --min-time)"
			      : "--min-share prunes reports of samples and this experiment "
				"has none: use --min-time");
		goto out;
	} else if (callers) {
		cli_error("report", "%s",
			  rep.e.nsamples
			      ? "--callers FUNC is a view of samples: add --by sample"
			      : "--callers FUNC is a view of samples: record with perfscope "
				"record --sample --callgraph");
		goto out;
	}
	if (cli_output_open("report", output, force, &out))
		goto out;
	ret = report_print(&rep, view, tree, fmt, out) ? 1 : 0;
	ret = cli_output_close("report", out, ret == 0, ret);
out:
	report_close(&rep);
	opt_list_release(&by);
	return ret;
}
