/* cmd-report.c - `perfscope report`: the regions of an experiment. */
#include "cli.h"

#include "../analysis/experiment.h"
#include "../analysis/regions.h"
#include "../core/metrics.h"
#include "../output/region-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static double row_key(const struct region_row *r, const char *sort_key)
{
	if (!strcmp(sort_key, "excl"))
		return r->excl_ns;
	if (!strcmp(sort_key, "calls"))
		return (double)r->calls;
	if (!strcmp(sort_key, "mean"))
		return r->calls ? r->incl_ns / (double)r->calls : 0;
	if (!strcmp(sort_key, "max"))
		return r->max_ns;
	return r->incl_ns;
}

static int row_cmp(const void *a, const void *b, void *key)
{
	const struct region_row *x = a, *y = b;
	const char *sort_key = key;
	double kx, ky;

	if (!strcmp(sort_key, "name")) {
		int c = strcmp(x->name, y->name);

		return c ? c : (x->tid > y->tid) - (x->tid < y->tid);
	}
	kx = row_key(x, sort_key);
	ky = row_key(y, sort_key);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->name, y->name);
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

int cmd_report(int argc, char **argv)
{
	struct opt_list by = {0};
	const char *output = NULL, *sort_key = "incl";
	long top = 0;
	int csv = 0, json = 0, force = 0, help = 0, first, ret, per_thread = 0;
	const struct option_spec specs[] = {
	    {0, "by", OPT_LIST, &by, "region|thread",
	     "what to show: region (merged over threads), thread (split per thread)", 0, NULL},
	    {0, "sort", OPT_STRING, &sort_key, "KEY",
	     "incl (default), excl, calls, mean, max, name", 0, NULL},
	    {0, "top", OPT_INT, &top, "N", "show the first N rows", 0, NULL},
	    {0, "csv", OPT_FLAG, &csv, NULL, "CSV output", 0, NULL},
	    {0, "json", OPT_FLAG, &json, NULL, "JSON output", 0, NULL},
	    {'o', "output", OPT_STRING, &output, "FILE", "write to FILE", 0, NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite the output file", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct region_profile prof = {0}, merged = {0};
	struct experiment e = {0};
	struct metric *metrics = NULL;
	size_t nmetrics = 0;
	struct region_report rr;
	const char *dir = "perfscope.out";
	char err[512];
	FILE *out = NULL;

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
	for (size_t i = 0; i < by.n; i++) {
		if (!strcmp(by.items[i], "thread")) {
			per_thread = 1;
		} else if (strcmp(by.items[i], "region")) {
			cli_error("report", "--by %s: expected region or thread", by.items[i]);
			goto out;
		}
	}
	if (strcmp(sort_key, "incl") && strcmp(sort_key, "excl") && strcmp(sort_key, "calls") &&
	    strcmp(sort_key, "mean") && strcmp(sort_key, "max") && strcmp(sort_key, "name")) {
		cli_error("report", "--sort %s: expected incl, excl, calls, mean, max or name",
			  sort_key);
		goto out;
	}
	if (top < 0 || (csv && json)) {
		cli_error("report", top < 0 ? "--top must be positive"
					    : "--csv and --json exclude "
					      "each other");
		goto out;
	}
	if (experiment_open(&e, dir, err, sizeof(err))) {
		cli_error("report", "%s", err);
		goto out;
	}
	if (region_profile_build(&prof, &e, err, sizeof(err))) {
		cli_error("report", "%s", err);
		goto out;
	}
	if (!per_thread && region_profile_merge_threads(&prof, &merged)) {
		cli_error("report", "out of memory");
		goto out;
	}
	if (load_metrics(&e, &metrics, &nmetrics)) {
		ret = 1;
		goto out;
	}
	rr.e = &e;
	rr.p = per_thread ? &prof : &merged;
	rr.per_thread = per_thread;
	rr.metrics = metrics;
	rr.nmetrics = nmetrics;
	rr.top = (size_t)top;
	qsort_r(rr.p->rows, rr.p->nrows, sizeof(*rr.p->rows), row_cmp, (void *)sort_key);
	out = cli_open_output("report", output, force);
	if (!out)
		goto out;
	if (rr.p->nrows == 0 && !csv && !json)
		fprintf(out,
			"%s: no regions were recorded (does the program call psc_region_begin/end, "
			"built with -DPERFSCOPE and linked with -lperfscope?)\n",
			dir);
	ret = csv	    ? region_print_csv(&rr, out)
	      : json	    ? region_print_json(&rr, out)
	      : rr.p->nrows ? region_print_text(&rr, out)
			    : 0;
	ret = ret ? 1 : 0;
	if (out != stdout && fclose(out) != 0)
		ret = 1;
out:
	for (size_t i = 0; i < nmetrics; i++)
		metric_expr_free(metrics[i].expr);
	free(metrics);
	region_profile_release(&prof);
	region_profile_release(&merged);
	experiment_release(&e);
	opt_list_release(&by);
	return ret;
}
