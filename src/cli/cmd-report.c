/* cmd-report.c - `perfscope report`: the regions of an experiment. */
#include "cli/cli.h"
#include "view/caveats.h"

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
#include "view/omp-view.h"
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
	ret = scope_print(r, so->fmt, out, stderr) ? 1 : 0;
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
		       : fmt != OUT_TEXT ? sample_print_csv(&rep->sr, fmt, out, stderr)
					 : sample_print_text(&rep->sr, out);
	if (view == VIEW_REGIONS)
		return region_print(&rep->rr, fmt, out, stderr);
	ret = tree ? func_print_tree(&rep->fr, fmt, out, stderr)
		   : func_print(&rep->fr, fmt, out, stderr);
	/* the text report also shows the regions of a traced run (its caveats are said) */
	if (ret == 0 && fmt == OUT_TEXT && !tree && has_functions && rep->s->prof.regions.nrows) {
		struct region_report rr = rep->rr;

		rr.no_caveats = 1;
		ret = region_print(&rr, OUT_TEXT, out, stderr);
	}
	return ret;
}

/* The options of `report` as given, and what they decide. */
struct report_args {
	struct opt_list by;
	const char *output, *sort_key, *min_time, *rank_arg, *callers, *min_share, *format;
	const char *dir;
	enum out_format fmt;
	enum report_view view;
	double min_pct;
	long top, fold;
	uint64_t min_ns;
	int no_fold, csv, json, force, tree, lines, accuracy, categories, per_rank, per_thread;
	int otf2, openmp, help;
};

/* The options and the operand of `report` into A: 0; negative after a usage error (said);
 * positive when the help was asked for (shown). */
static int report_parse(int argc, char **argv, struct report_args *a)
{
	const struct option_spec specs[] = {
	    {0, "by", OPT_LIST, &a->by, "function|region|sample|scope|thread|rank",
	     "what to show: function (default when traced), sample (default when sampled), "
	     "region, scope (MPI runs: with --categories), and thread to split per thread "
	     "(rank: per rank with scope)",
	     0, NULL},
	    {0, "categories", OPT_FLAG, &a->categories, NULL,
	     "MPI runs: each scope's time in computation, MPI and MPI waiting (--by scope)", 0,
	     NULL},
	    {0, "rank", OPT_STRING, &a->rank_arg, "N", "with --categories: rank N only", 0, NULL},
	    {0, "openmp", OPT_FLAG, &a->openmp, NULL,
	     "OpenMP: time, work and waits per parallel region and thread; each region's "
	     "imbalance and efficiencies; each thread's serial time",
	     0, NULL},
	    {0, "lines", OPT_FLAG, &a->lines, NULL, "sampled: the hottest source lines (file:line)",
	     0, NULL},
	    {0, "accuracy", OPT_FLAG, &a->accuracy, NULL,
	     "sampled: totals estimated from the samples against exact counts", 0, NULL},
	    {0, "tree", OPT_FLAG, &a->tree, NULL, "the call tree with inclusive times and calls", 0,
	     NULL},
	    {0, "fold-recursion", OPT_INT, &a->fold, "N",
	     "--tree: fold each chain of direct recursion deeper than N levels (alone: every one; "
	     "default 16) into one line",
	     OPT_ARG_OPTIONAL, "1"},
	    {0, "no-fold-recursion", OPT_FLAG, &a->no_fold, NULL,
	     "--tree: show every level of recursion", 0, NULL},
	    {0, "callers", OPT_STRING, &a->callers, "FUNC",
	     "sampled with --callgraph: the callers of FUNC, and theirs, as a tree", 0, NULL},
	    {0, "sort", OPT_STRING, &a->sort_key, "KEY",
	     "excl (functions' default), incl (regions' default), calls, mean, max, name", 0, NULL},
	    {0, "top", OPT_INT, &a->top, "N", "show the first N rows", 0, NULL},
	    {0, "min-time", OPT_STRING, &a->min_time, "T",
	     "leave out functions and call paths under T inclusive (10us, 1ms...)", 0, NULL},
	    {0, "min-share", OPT_STRING, &a->min_share, "PCT",
	     "sampled: leave out functions and call-tree nodes (inclusive) under PCT % of the "
	     "samples",
	     0, NULL},
	    {0, "csv", OPT_FLAG, &a->csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &a->json, NULL, "JSON output", 0, NULL},
	    {0, "format", OPT_STRING, &a->format, "FMT",
	     "text, csv, json, or long (CSV: one row per entity and metric)", 0, NULL},
	    {'o', "output", OPT_STRING, &a->output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &a->force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &a->help, NULL, "show this help", 0, NULL},
	    {0},
	};
	int first, ret = cli_parse("report", specs, 0, argc - 1, argv + 1, &first, &a->help);

	if (ret)
		return ret;
	if (cli_operand("report", argc - 1 - first, argv + 1 + first, &a->dir))
		return -1;
	return 0;
}

/* --format and --by of A: its output format and view. 0, or -1 after a usage error (said). */
static int report_format_and_view(struct report_args *a)
{
	static const struct {
		const char *word;
		enum report_view view;
	} views[] = {{"region", VIEW_REGIONS},
		     {"function", VIEW_FUNCTIONS},
		     {"sample", VIEW_SAMPLES},
		     {"scope", VIEW_SCOPES}};
	char why[128];

	if (a->format) {
		if (options_out_format(a->csv, a->json, a->format, &a->fmt, why, sizeof(why))) {
			cli_error("report", "%s", why);
			return -1;
		}
		a->csv = a->fmt == OUT_CSV;
		a->json = a->fmt == OUT_JSON;
	} else {
		a->fmt = a->csv ? OUT_CSV : a->json ? OUT_JSON : OUT_TEXT;
	}
	for (size_t i = 0; i < a->by.n; i++) {
		const char *w = a->by.items[i];
		size_t k = 0;

		while (k < sizeof(views) / sizeof(views[0]) && strcmp(w, views[k].word))
			k++;
		if (k < sizeof(views) / sizeof(views[0])) {
			a->view = views[k].view;
		} else if (!strcmp(w, "thread")) {
			a->per_thread = 1;
		} else if (!strcmp(w, "rank")) {
			a->per_rank = 1;
		} else {
			cli_error(
			    "report",
			    "--by %s: expected function, region, sample, scope, thread or rank", w);
			return -1;
		}
	}
	return 0;
}

/* A's --categories (or --by scope, rank) asks for the scope view. */
static int report_wants_scopes(const struct report_args *a)
{
	return a->categories || a->view == VIEW_SCOPES || a->per_rank || a->rank_arg;
}

/* --min-share of A: a share of the samples, in a view of samples. 0, or -1 (said). */
static int report_min_share(struct report_args *a)
{
	char *end = NULL;

	if (!a->min_share)
		return 0;
	a->min_pct = strtod(a->min_share, &end);
	if (end == a->min_share || (*end && strcmp(end, "%")) ||
	    !(a->min_pct > 0 && a->min_pct <= 100)) {
		cli_error(
		    "report",
		    "--min-share %s: expected a share of the samples in %%, more than 0 and at "
		    "most 100 (e.g. 1 or 0.5)",
		    a->min_share);
		return -1;
	}
	if (report_wants_scopes(a) || a->view == VIEW_FUNCTIONS || a->view == VIEW_REGIONS) {
		cli_error("report", "--min-share prunes reports of samples: drop it, or "
				    "--by sample without --categories/--rank");
		return -1;
	}
	return 0;
}

/* `report --categories` (--by scope[,rank], --rank N) as A asks: an exit status. */
static int report_scope_view(const struct report_args *a)
{
	struct scope_options so = {MPI_SCOPE_ALL, a->per_rank, 0,	 a->csv,
				   a->json,	  a->output,   a->force, a->fmt};
	struct session s;
	char *end = NULL;
	long v = 0;
	int ret;

	if (a->rank_arg)
		v = strtol(a->rank_arg, &end, 10);
	if ((a->view != VIEW_AUTO && a->view != VIEW_SCOPES) || a->per_thread || a->tree ||
	    a->lines || a->accuracy || a->sort_key || a->min_time || a->callers) {
		cli_error("report", "--categories is the view --by scope[,rank] [--rank N]: "
				    "drop the other --by, --tree, --lines, --accuracy, --sort "
				    "and --min-time");
		return EXIT_USAGE;
	}
	if (a->rank_arg && (!*a->rank_arg || *end || v < 0 || v > INT32_MAX)) {
		cli_error("report", "--rank %s: expected a rank (0 or more)", a->rank_arg);
		return EXIT_USAGE;
	}
	if (a->top < 0 || (a->csv && a->json) || (a->rank_arg && a->per_rank)) {
		cli_error("report", a->top < 0 ? "--top N: N must be 0 (all rows) or more"
				    : a->csv && a->json
					? "--csv and --json exclude each other"
					: "--rank N and --by rank exclude each other");
		return EXIT_USAGE;
	}
	so.rank = a->rank_arg ? (int)v : MPI_SCOPE_ALL;
	so.top = (size_t)a->top;
	session_init(&s, a->dir, a->otf2 ? SESSION_OTF2 : SESSION_DIR, NULL);
	ret = report_scopes(&s, &so);
	session_close(&s);
	return ret;
}

/* The options of the other views: --sort, --min-time, --top, --tree, --fold-recursion,
 * --lines and --accuracy (which choose the view of samples). 0, or -1 (said). */
static int report_check(struct report_args *a)
{
	const char *why = NULL;
	char words[128];

	if (a->sort_key && !report_sort_key_valid(a->sort_key)) {
		report_sort_words(words, sizeof(words));
		cli_error("report", "--sort %s: expected %s", a->sort_key, words);
		return -1;
	}
	if (a->min_time && (parse_duration_ns(a->min_time, &a->min_ns) || a->min_ns > INT64_MAX)) {
		cli_error("report", "--min-time %s: expected a duration such as 10us, 1ms or 2s",
			  a->min_time);
		return -1;
	}
	if (a->top < 0 || (a->csv && a->json) || (a->tree && a->view == VIEW_REGIONS))
		why = a->top < 0	  ? "--top N: N must be 0 (all rows) or more"
		      : a->csv && a->json ? "--csv and --json exclude each other"
					  : "--tree is a view of functions: drop --by region";
	else if ((a->fold != -1 || a->no_fold) &&
		 (!a->tree || (a->fold != -1 && a->no_fold) || (a->fold != -1 && a->fold < 1)))
		why = !a->tree	   ? "--fold-recursion and --no-fold-recursion shape --tree: add it"
		      : a->no_fold ? "--fold-recursion and --no-fold-recursion exclude each other"
				   : "--fold-recursion=N: N must be 1 or more";
	else if ((a->lines || a->accuracy) && a->view != VIEW_AUTO && a->view != VIEW_SAMPLES)
		why = "--lines and --accuracy are views of samples: drop --by";
	if (why) {
		cli_error("report", "%s", why);
		return -1;
	}
	if (a->lines || a->accuracy)
		a->view = VIEW_SAMPLES;
	return 0;
}

/* The view of samples of REP (its options checked against the profile), or why another view
 * does not take A's options of samples. 0, or -1 (said). */
static int report_choose_samples(const struct report_args *a, struct report *rep,
				 enum report_view *view)
{
	const char *dir = a->dir;

	if (*view == VIEW_SAMPLES && !rep->e->nsamples) {
		cli_error("report",
			  "%s has no samples: record with perfscope record --sample -o %s -- CMD",
			  dir, dir);
		return -1;
	}
	/* the sampled view checks its own options (call trees from samples) */
	if (*view == VIEW_SAMPLES ||
	    (*view == VIEW_AUTO && !rep->s->prof.funcs.function_records && rep->e->nsamples)) {
		struct sample_view sv = {a->tree, a->callers, a->sort_key, a->min_ns, a->min_pct};
		char why[512];

		if (sample_report_setup(&rep->sr, &rep->s->samples, &sv, why, sizeof(why))) {
			cli_error("report", "%s", why);
			return -1;
		}
		*view = VIEW_SAMPLES;
	} else if (a->min_share) {
		cli_error("report", "%s",
			  rep->e->nsamples
			      ? "--min-share prunes reports of samples: add --by sample "
				"(functions by time: --min-time)"
			      : "--min-share prunes reports of samples and this experiment "
				"has none: use --min-time");
		return -1;
	} else if (a->callers) {
		cli_error("report", "%s",
			  rep->e->nsamples
			      ? "--callers FUNC is a view of samples: add --by sample"
			      : "--callers FUNC is a view of samples: record with perfscope "
				"record --sample --callgraph");
		return -1;
	}
	return 0;
}

/* The views of A's experiment or archive, built, chosen and written: an exit status. */
static int report_run(const struct report_args *a)
{
	struct session_options sopt = {.per_thread = a->per_thread, .lines = a->lines};
	struct report_options opt = {a->sort_key, (size_t)a->top, (int64_t)a->min_ns, a->accuracy};
	enum report_view view = a->otf2 ? VIEW_FUNCTIONS : a->view;
	struct report rep;
	struct session s;
	FILE *out;
	int ret;

	if (a->otf2 && (a->view == VIEW_REGIONS || a->view == VIEW_SAMPLES)) {
		report_otf2_refuse(a->dir, a->lines		     ? "--lines"
					   : a->accuracy	     ? "--accuracy"
					   : a->view == VIEW_REGIONS ? "--by region"
								     : "--by sample");
		return EXIT_USAGE;
	}
	session_init(&s, a->dir, a->otf2 ? SESSION_OTF2 : SESSION_DIR, &sopt);
	if ((ret = report_views(&rep, "report", &s, &opt))) {
		ret = cli_status(ret);
		goto out;
	}
	rep.fr.fold_recursion = a->no_fold ? FUNC_FOLD_NONE : a->fold > 0 ? (uint64_t)a->fold : 0;
	ret = EXIT_USAGE;
	if (report_choose_samples(a, &rep, &view) ||
	    cli_output_open("report", a->output, a->force, &out))
		goto out;
	ret = report_print(&rep, view, a->tree, a->fmt, out) ? 1 : 0;
	ret = cli_output_close("report", out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}

/* Say that DIR holds no OpenMP record: lost with what its caveats list, when it has any (a
 * full disk), else not recorded. */
static void no_omp_records(const char *dir, const struct experiment *e)
{
	if (experiment_lost_data(e))
		cli_error("report",
			  "%s: no OpenMP record could be read (the experiment's caveats below say "
			  "what was lost)",
			  dir);
	else
		cli_error("report",
			  "%s: no OpenMP records (was the program built with -fopenmp and recorded "
			  "with perfscope >= %s?)",
			  dir, PSC_VERSION);
}

/* `report --openmp`: the OpenMP profile of A's experiment, as A's format says. An exit
 * status; an experiment without OpenMP records is said on stderr, its report empty. */
static int report_openmp(const struct report_args *a)
{
	struct omp_report r = {0};
	struct session s;
	char err[1024];
	FILE *out;
	int ret;

	if (a->by.n || a->categories || a->rank_arg || a->tree || a->lines || a->accuracy ||
	    a->callers || a->sort_key || a->min_time || a->min_share || a->top || a->fold != -1 ||
	    a->no_fold) {
		cli_error("report",
			  "--openmp is a view of its own: drop --by, --categories, --rank, "
			  "--tree, --lines, --accuracy, --callers, --sort, --top and the "
			  "other options of profiles");
		return EXIT_USAGE;
	}
	if (a->csv && a->json) {
		cli_error("report", "--csv and --json exclude each other");
		return EXIT_USAGE;
	}
	session_init(&s, a->dir, a->otf2 ? SESSION_OTF2 : SESSION_DIR, NULL);
	if ((ret = session_get(&s, SESSION_OPENMP, (void **)&r.p, err, sizeof(err))) ||
	    (ret = session_get(&s, SESSION_EXPERIMENT, (void **)&r.e, err, sizeof(err)))) {
		cli_error("report", "%s", err);
		ret = cli_status(ret);
		goto out;
	}
	if (!r.p->events)
		no_omp_records(a->dir, r.e);
	if (r.p->hybrid &&
	    (ret = session_get(&s, SESSION_HYBRID, (void **)&r.h, err, sizeof(err)))) {
		if (ret == -ENOMEM) {
			cli_error("report", "%s", err);
			ret = cli_status(ret);
			goto out;
		}
		cli_error("report", "hybrid efficiency table left out: %s", err);
	}
	ret = EXIT_USAGE;
	if (cli_output_open("report", a->output, a->force, &out))
		goto out;
	ret = omp_print(&r, a->fmt, out, stderr) ? 1 : 0;
	ret = cli_output_close("report", out, ret == 0, ret);
out:
	session_close(&s);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = {.dir = "perfscope.out", .fold = -1};
	int ret = report_parse(argc, argv, &a);

	if (ret) {
		opt_list_release(&a.by);
		return ret < 0 ? EXIT_USAGE : 0;
	}
	a.otf2 = session_path_is_otf2(a.dir);
	if (report_format_and_view(&a) || report_min_share(&a))
		ret = EXIT_USAGE;
	else if (a.openmp)
		ret = report_openmp(&a);
	else if (report_wants_scopes(&a))
		ret = report_scope_view(&a);
	else
		ret = report_check(&a) ? EXIT_USAGE : report_run(&a);
	opt_list_release(&a.by);
	return ret;
}
