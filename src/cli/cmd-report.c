/* cmd-report.c - `perfscope report`: the regions of an experiment. */
#include "cli/cli.h"

#include "format/experiment.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/mpi/mpi-waits.h"
#include "analysis/profile/regions.h"
#include "pmu/metrics.h"
#include "view/region-print.h"
#include "view/sample-print.h"
#include "view/scope-print.h"
#include "view/func-view.h"
#include "view/region-view.h"
#include "cli/report-otf2.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int report_sort_key_valid(const char *key)
{
	return region_view_sortable(key);
}

int cli_status(int err)
{
	return err == -ENOMEM ? 1 : EXIT_USAGE;
}

/* Analysis ID of REP's session into *OUT; prints the cause on failure. */
static int report_get(struct report *rep, const char *cmd, enum session_id id, void **out)
{
	char err[1024];
	int ret = session_get(rep->s, id, out, err, sizeof(err));

	if (ret < 0)
		cli_error(cmd, "%s", err);
	return ret;
}

/* The function view of REP's session (only shown when it has function events). */
static int report_functions(struct report *rep, const char *cmd, const struct report_options *opt)
{
	const char *key = opt->sort_key ? opt->sort_key : "excl";
	int per_thread = rep->s->opt.per_thread;
	struct func_profile *p = &rep->s->prof.funcs;
	int ret;

	if (!per_thread && (ret = report_get(rep, cmd, SESSION_FUNCTIONS_MERGED, (void **)&p)))
		return ret;
	if (func_view_sort(p, key, per_thread, &rep->fr.sort_label)) {
		cli_error(cmd, "out of memory");
		return -ENOMEM;
	}
	rep->fr.e = rep->e;
	rep->fr.p = p;
	rep->fr.per_thread = per_thread;
	rep->fr.top = opt->top;
	rep->fr.min_ns = opt->min_ns;
	return 0;
}

/* The region view of REP's session, sorted by KEY, with the experiment's metrics. */
static int report_regions(struct report *rep, const char *cmd, const char *key)
{
	struct session_metrics *m;
	struct region_profile *p = &rep->s->prof.regions;
	int ret;

	if (!rep->s->opt.per_thread &&
	    (ret = report_get(rep, cmd, SESSION_REGIONS_MERGED, (void **)&p)))
		return ret;
	if ((ret = report_get(rep, cmd, SESSION_METRICS, (void **)&m)))
		return ret;
	rep->rr.e = rep->e;
	rep->rr.p = p;
	rep->rr.per_thread = rep->s->opt.per_thread;
	rep->rr.metrics = m->v;
	rep->rr.nmetrics = m->n;
	region_view_sort(p, key, rep->rr.per_thread, &rep->rr.sort_label);
	return 0;
}

/* Say a caveat of the session on stderr (a metric of meta.json that does not parse). */
static void say_caveat(void *ctx, const char *line)
{
	cli_error(ctx, "%s", line);
}

int report_views(struct report *rep, const char *cmd, struct session *s,
		 const struct report_options *opt)
{
	int ret;

	memset(rep, 0, sizeof(*rep));
	rep->s = s;
	if ((ret = report_get(rep, cmd, SESSION_EXPERIMENT, (void **)&rep->e)))
		return ret == -ENOMEM ? ret : -EINVAL;
	/* one read of every stream builds both profiles */
	if ((ret = report_get(rep, cmd, SESSION_PROFILES, NULL)))
		return ret == -ENOMEM ? ret : -EINVAL;
	if (s->kind == SESSION_OTF2)
		return report_functions(rep, cmd, opt);
	ret = report_regions(rep, cmd, opt->sort_key ? opt->sort_key : "incl");
	session_caveats(s, say_caveat, (void *)cmd);
	if (ret)
		return ret;
	rep->rr.top = opt->top;
	if (rep->e->nsamples) {
		if ((ret = report_get(rep, cmd, SESSION_SAMPLES, NULL)))
			return ret == -ENOMEM ? ret : -EINVAL;
		rep->sr.e = rep->e;
		rep->sr.p = &s->samples;
		rep->sr.top = opt->top;
		rep->sr.lines = s->opt.lines;
		rep->sr.accuracy = opt->accuracy;
	}
	return report_functions(rep, cmd, opt);
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

/* `report --by scope --categories`: the scope profile of S (with its MPI model and waits). An
 * exit status. */
static int report_scopes(struct session *s, const struct scope_options *so)
{
	struct mpi_scope_profile *p;
	struct scope_report r;
	char err[1024];
	int ret = session_get(s, SESSION_SCOPES, (void **)&p, err, sizeof(err));

	if (ret < 0) {
		/* an experiment whose MPI model cannot be loaded: what --categories needs */
		if (s->kind == SESSION_DIR && session_state(s, SESSION_EXPERIMENT) > 0 &&
		    session_state(s, SESSION_MPI) < 0)
			cli_error("report", "%s: --categories splits the time of MPI calls", err);
		else
			cli_error("report", "%s", err);
		return cli_status(ret);
	}
	r = (struct scope_report){.p = p, .m = &s->mpi, .e = s->kind == SESSION_DIR ? &s->e : NULL};
	return report_scopes_write(&r, so);
}

static int report_print(const struct report *rep, enum report_view view, int tree,
			enum out_format fmt, FILE *out)
{
	int has_functions = rep->s->prof.funcs.function_records > 0;
	int ret;

	if (view == VIEW_AUTO)
		view = has_functions	  ? VIEW_FUNCTIONS
		       : rep->e->nsamples ? VIEW_SAMPLES
					  : VIEW_REGIONS;
	if (view == VIEW_SAMPLES)
		return fmt == OUT_JSON	 ? sample_print_json(&rep->sr, out)
		       : fmt != OUT_TEXT ? sample_print_csv(&rep->sr, fmt, out)
					 : sample_print_text(&rep->sr, out);
	if (view == VIEW_REGIONS)
		return region_print(&rep->rr, fmt, out);
	ret = tree ? func_print_tree(&rep->fr, fmt, out) : func_print(&rep->fr, fmt, out);
	/* the text report also shows the regions of a traced run (its caveats are said) */
	if (ret == 0 && fmt == OUT_TEXT && !tree && has_functions && rep->s->prof.regions.nrows) {
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
	struct session_options sopt = {0};
	enum report_view view = VIEW_AUTO;
	struct session s;
	struct report rep;
	const char *dir = "perfscope.out";
	FILE *out = NULL;
	uint64_t min_ns = 0;

	memset(&rep, 0, sizeof(rep));
	session_init(&s, dir, SESSION_DIR, NULL);
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
	otf2 = session_path_is_otf2(dir);
	for (size_t i = 0; i < by.n; i++) {
		if (!strcmp(by.items[i], "thread")) {
			sopt.per_thread = 1;
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
		if ((view != VIEW_AUTO && view != VIEW_SCOPES) || sopt.per_thread || tree ||
		    lines || accuracy || sort_key || min_time || callers) {
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
		session_init(&s, dir, otf2 ? SESSION_OTF2 : SESSION_DIR, NULL);
		ret = report_scopes(&s, &so);
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
	sopt.lines = lines;
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
	session_init(&s, dir, otf2 ? SESSION_OTF2 : SESSION_DIR, &sopt);
	if ((ret = report_views(&rep, "report", &s, &opt))) {
		ret = cli_status(ret);
		goto out;
	}
	ret = EXIT_USAGE;
	if (otf2)
		view = VIEW_FUNCTIONS;
	rep.fr.fold_recursion = no_fold ? FUNC_FOLD_NONE : fold > 0 ? (uint64_t)fold : 0;
	if (view == VIEW_SAMPLES && !rep.e->nsamples) {
		cli_error("report",
			  "%s has no samples: record with perfscope record --sample -o %s -- CMD",
			  dir, dir);
		goto out;
	}
	/* the sampled view checks its own options (call trees from samples) */
	if (view == VIEW_SAMPLES ||
	    (view == VIEW_AUTO && !s.prof.funcs.function_records && rep.e->nsamples)) {
		struct sample_view sv = {tree, callers, sort_key, min_ns, csv, json, min_pct};
		char why[512];

		if (fmt == OUT_LONG && (tree || callers || lines || accuracy)) {
			cli_error("report", "--format long: the sampled view's functions only, "
					    "without --tree, --callers, --lines and --accuracy");
			goto out;
		}
		if (sample_report_setup(&rep.sr, &s.samples, &sv, why, sizeof(why))) {
			cli_error("report", "%s", why);
			goto out;
		}
		view = VIEW_SAMPLES;
	} else if (min_share) {
		cli_error("report", "%s",
			  rep.e->nsamples
			      ? "--min-share prunes reports of samples: add --by sample "
				"(functions by time: --min-time)"
			      : "--min-share prunes reports of samples and this experiment "
				"has none: use --min-time");
		goto out;
	} else if (callers) {
		cli_error("report", "%s",
			  rep.e->nsamples
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
	session_close(&s);
	opt_list_release(&by);
	return ret;
}
