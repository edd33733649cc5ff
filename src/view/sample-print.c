/* sample-print.c - rendering of a sampled experiment's profile, lines and accuracy. */
#include "view/sample-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
#include "view/table.h"

#include "lib/jsonw.h"
#include "view/sample-view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

double sample_share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

int sample_report_missing(const struct sample_report *r, uint32_t k)
{
	const struct exp_sampling *sm = &r->e->sampling;

	return k < sm->nevents && !strcmp(sm->states[k], "not supported");
}

static size_t shown(size_t n, size_t top)
{
	return top && top < n ? top : n;
}

int sample_report_has_chains(const struct sample_report *r)
{
	return r->p->chains > 0 || r->e->sampling.callgraph;
}

/* Row I is below --min-share (its share of the samples, as its "share" column shows it). */
static int row_below_share(const struct sample_report *r, size_t i)
{
	return r->min_share > 0 &&
	       sample_share(r->p->rows[i].samples, r->p->samples) < r->min_share;
}

/* Row I is left out by --min-time (its inclusive time is below it) or --min-share. */
static int row_hidden(const struct sample_report *r, size_t i)
{
	return r->p->rows[i].incl_ns < r->min_ns || row_below_share(r, i);
}

size_t sample_report_hidden(const struct sample_report *r)
{
	size_t n = 0;

	if (r->min_share <= 0)
		return 0;
	if (r->tree || r->callers)
		return sample_tree_hidden(r);
	for (size_t i = 0; i < r->p->nrows; i++)
		n += row_below_share(r, i) && r->p->rows[i].incl_ns >= r->min_ns;
	return n;
}

/* The line that says what --min-share hid, to F (text) or the notes (CSV). */
static void say_hidden(const struct sample_report *r, FILE *f, const char *prefix)
{
	size_t n = sample_report_hidden(r);

	if (r->min_share > 0)
		fprintf(f, "%s%zu %s under %g %% of the samples hidden (--min-share)\n", prefix, n,
			r->tree || r->callers ? (n == 1 ? "call-tree node" : "call-tree nodes")
					      : (n == 1 ? "function" : "functions"),
			r->min_share);
}

/* The next row from I on that --min-time keeps, counting what --top lets through in *N. */
static size_t next_row(const struct sample_report *r, size_t i, size_t *n)
{
	while (i < r->p->nrows && row_hidden(r, i))
		i++;
	if (r->top && *n >= r->top)
		return r->p->nrows;
	if (i < r->p->nrows)
		(*n)++;
	return i;
}

static int sort_key(const char *key, enum sprof_key *out)
{
	if (!key || !strcmp(key, "excl"))
		*out = SPROF_SELF;
	else if (!strcmp(key, "incl"))
		*out = SPROF_INCL;
	else if (!strcmp(key, "name"))
		*out = SPROF_NAME;
	else
		return -EINVAL;
	return 0;
}

int sample_report_setup(struct sample_report *r, struct sample_profile *p,
			const struct sample_view *v, char *err, size_t errlen)
{
	const char *view = v->tree ? "--tree" : "--callers";
	enum sprof_key key;

	if (sort_key(v->sort_key, &key)) {
		snprintf(err, errlen,
			 "--sort %s: the sampled view sorts by excl (self time, the default), incl "
			 "(inclusive time) or name",
			 v->sort_key);
		return -EINVAL;
	}
	if (v->tree || v->callers) {
		if (v->tree && v->callers) {
			snprintf(err, errlen, "--tree and --callers exclude each other");
			return -EINVAL;
		}
		if (!p->chains && !r->e->sampling.callgraph) {
			snprintf(err, errlen,
				 "%s needs call chains: record with perfscope record --sample "
				 "--callgraph",
				 view);
			return -EINVAL;
		}
		const char *drop = p->per_thread ? "--by thread"
				   : r->lines	 ? "--lines"
				   : r->accuracy ? "--accuracy"
				   : r->top	 ? "--top"
				   : v->sort_key ? "--sort"
						 : NULL;

		if (drop) {
			snprintf(err, errlen,
				 "%s of samples: drop %s (the tree merges the threads, orders "
				 "callees by inclusive samples; --min-time prunes it)",
				 view, drop);
			return -EINVAL;
		}
		if (v->callers && scall_find(&p->calls, v->callers) < 0) {
			snprintf(err, errlen,
				 "--callers %s: no sample has that function on its call chain",
				 v->callers);
			return -EINVAL;
		}
	}
	if ((v->min_ns || v->min_share > 0) && (r->lines || r->accuracy)) {
		snprintf(err, errlen,
			 "%s applies to functions and call trees, not to --lines or --accuracy",
			 v->min_ns ? "--min-time" : "--min-share");
		return -EINVAL;
	}
	sample_profile_sort_by(p, key);
	if (scall_sort(&p->calls)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->tree = v->tree;
	r->callers = v->callers;
	r->min_ns = v->min_ns;
	r->min_share = v->min_share;
	return 0;
}

/* Why the experiment has no kallsyms, into BUF: as record said, else as far as it is known. */
static void no_kallsyms(const struct experiment *e, const struct sample_walk *w, char *buf,
			size_t len)
{
	const char *why = e->sampling.kallsyms_error;

	if (why && why[0])
		snprintf(buf, len, "the experiment has no kallsyms (%s)", why);
	else if (!w->ended) /* the copy is made while the command runs */
		snprintf(buf, len,
			 "the experiment has no kallsyms (perfscope record did not finish it)");
	else
		snprintf(buf, len,
			 "the experiment has no kallsyms (kernel.kptr_restrict hid the kernel's "
			 "addresses when it was recorded)");
}

/* Call FN with one line per caveat of the sampling. */
static void caveats(const struct sample_report *r, void (*fn)(void *ctx, const char *line),
		    void *ctx)
{
	const struct exp_sampling *sm = &r->e->sampling;
	char why[600];
	const struct sample_walk *w = &r->p->walk;

	/* records that could not be written, a file cut short: the experiment's caveats say */
	if (w->samples == 0 && !w->unwritten && w->ended)
		fn(ctx, "no samples: the command ran too briefly, or sampling was not possible");
	if (w->unwritten && !(sm->error && sm->error[0]))
		caveat_say(fn, ctx,
			   "%" PRIu64 " records could not be written by perfscope record (a full "
			   "disk?): gaps in the samples",
			   w->unwritten);
	if (w->lost) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " samples were lost (the ring buffer overflowed): sample at a "
			   "lower frequency",
			   w->lost);
	}
	if (w->throttled) {
		caveat_say(
		    fn, ctx,
		    "the kernel throttled sampling %" PRIu64
		    " times (kernel.perf_event_max_sample_rate or perf_cpu_time_max_percent): "
		    "gaps in the time series",
		    w->throttled);
	}
	if (sm->user_only)
		fn(ctx, sm->callgraph
			    ? "kernel code was not sampled (kernel.perf_event_paranoid): user "
			      "space only, call chains without kernel frames"
			    : "kernel code was not sampled (kernel.perf_event_paranoid): user "
			      "space only");
	if (r->p->ksyms.missing)
		no_kallsyms(r->e, w, why, sizeof(why));
	if (r->p->kernel_samples > r->p->kernel_named) {
		caveat_say(fn, ctx, "%" PRIu64 " samples in the kernel show as [kernel]: %s",
			   r->p->kernel_samples - r->p->kernel_named,
			   r->p->ksyms.missing ? why : "no kernel symbol holds their addresses");
	}
	if (r->p->kframes_unnamed) {
		caveat_say(fn, ctx,
			   "%" PRIu64
			   " kernel frames of the call chains are left out of the paths: %s",
			   r->p->kframes_unnamed,
			   r->p->ksyms.missing ? why : "no kernel symbol holds their addresses");
	}
	if (!sm->inherit)
		fn(ctx, "this kernel (before Linux 6.12) sampled only the command's first thread");
	if (sm->late) {
		caveat_say(fn, ctx,
			   "%" PRIu64 " records reached the launcher late and carry a later time "
			   "than they happened (a preempted CPU)",
			   sm->late);
	}
	for (size_t i = 0; i < sm->nevents; i++) {
		/* the experiment's caveats say why record could not open it */
		if (!strcmp(sm->states[i], "group") || experiment_unsupported(r->e, sm->events[i]))
			continue;
		caveat_say(fn, ctx, "%s: %s", sm->events[i],
			   strcmp(sm->states[i], "own group")
			       ? "not supported here, not sampled"
			       : "sampled in a group of its own: its values are not from the "
				 "same instants as the others'");
	}
	/* a samples file cut short or without its end record is among the experiment's */
	experiment_caveats(r->e, 0, fn, ctx);
}

static void heading(const struct sample_report *r, FILE *f)
{
	const struct exp_sampling *sm = &r->e->sampling;
	const struct sample_profile *p = r->p;
	char t[32], n[32];

	fmt_duration(t, sizeof(t), (double)p->time_ns);
	fmt_count(n, sizeof(n), p->samples);
	fprintf(f, "Sampled with %s ", sm->nevents ? text_safe(sm->events[0]) : "?");
	if (sm->frequency)
		fprintf(f, "at %" PRIu64 " Hz per thread", sm->frequency);
	else
		fprintf(f, "every %" PRIu64 " events", sm->period);
	fprintf(f, "%s: %s samples standing for %s on CPU",
		sm->callgraph ? ", with call chains" : "", n, t);
	if (sm->nevents > 1) {
		fprintf(f, "; each carries ");
		for (size_t i = 1; i < sm->nevents; i++)
			fprintf(f, "%s%s", i > 1 ? ", " : "", text_safe(sm->events[i]));
	}
	fprintf(f, "\n\n");
}

/* The function rows R shows (--top, --min-time, --min-share) as a view, into V; its columns
 * and the row pointers are malloc'd (free V->cols and V->rows). 0 or -ENOMEM. */
static int functions_view(const struct sample_report *r, struct view *v)
{
	const struct sample_profile *p = r->p;
	const void **rows = malloc((p->nrows + 1) * sizeof(*rows));
	struct view_col *cols;
	size_t k = 0;

	*v = (struct view){0};
	if (!rows || sample_view_cols(r, &cols, &v->ncols)) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t n = 0, i = next_row(r, 0, &n); i < p->nrows; i = next_row(r, i + 1, &n))
		rows[k++] = &p->rows[i];
	v->cols = cols;
	v->rows = rows;
	v->nrows = k;
	v->ctx = r;
	v->per_thread = p->per_thread;
	v->option = sample_report_has_chains(r);
	return 0;
}

static void functions_view_release(struct view *v)
{
	free((void *)v->cols);
	free((void *)v->rows);
}

/* The function rows in FMT (text: a table; CSV, long CSV; JSON: rows into W). */
static int print_functions(const struct sample_report *r, enum out_format fmt, FILE *f,
			   struct jsonw *w)
{
	struct view v = {0};
	int ret = functions_view(r, &v);

	if (ret)
		return ret;
	if (fmt == OUT_TEXT)
		ret = view_print_text(&v, f, "  ");
	else if (fmt == OUT_JSON)
		view_json_rows(w, &v);
	else
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
	functions_view_release(&v);
	return ret;
}

/* Lines R shows in FMT: in text --top or 20, else --top or all; in JSON none without LINES. */
static size_t lines_shown(const struct sample_report *r, enum out_format fmt)
{
	if (fmt == OUT_JSON && !r->lines)
		return 0;
	return shown(r->p->nlines, fmt == OUT_TEXT && !r->top ? 20 : r->top);
}

/* The hottest lines in FMT (text: heading and table; CSV, long CSV; JSON: rows into W). */
static int print_lines(const struct sample_report *r, enum out_format fmt, FILE *f, struct jsonw *w)
{
	size_t n = lines_shown(r, fmt);
	const void **rows = malloc((n + 1) * sizeof(*rows));
	struct view v = {.rows = rows, .nrows = n, .ctx = r};
	int ret = 0;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rows[i] = &r->p->lines[i];
	v.cols = sample_lines_view_cols(&v.ncols);
	if (fmt == OUT_TEXT) {
		fprintf(f, "\nHottest source lines\n");
		ret = view_print_text(&v, f, "  ");
	} else if (fmt == OUT_JSON) {
		view_json_rows(w, &v);
	} else {
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
	}
	free(rows);
	return ret;
}

/* The accuracy of every event in FMT (as print_lines). */
static int print_accuracy(const struct sample_report *r, enum out_format fmt, FILE *f,
			  struct jsonw *w)
{
	uint32_t *events = malloc((r->p->nevents + 1) * sizeof(*events));
	const void **rows = malloc((r->p->nevents + 1) * sizeof(*rows));
	struct view v = {.rows = rows, .nrows = r->p->nevents, .ctx = r};
	int ret = 0;

	if (!events || !rows) {
		free(events);
		free(rows);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < r->p->nevents; k++) {
		events[k] = k;
		rows[k] = &events[k];
	}
	v.cols = sample_accuracy_view_cols(&v.ncols);
	if (fmt == OUT_TEXT)
		ret = view_print_text(&v, f, "  ");
	else if (fmt == OUT_JSON)
		view_json_rows(w, &v);
	else
		ret = fmt == OUT_LONG ? view_print_long(&v, f) : view_print_csv(&v, f);
	free(rows);
	free(events);
	return ret;
}

int sample_print_text(const struct sample_report *r, FILE *f)
{
	int ret;

	if (r->accuracy)
		return sample_print_accuracy(r, f, OUT_TEXT, NULL);
	heading(r, f);
	if (r->tree || r->callers)
		ret = sample_print_trees(r, OUT_TEXT, f, NULL);
	else
		ret = print_functions(r, OUT_TEXT, f, NULL);
	if (!ret)
		say_hidden(r, f, "  ");
	if (!ret && r->lines)
		ret = print_lines(r, OUT_TEXT, f, NULL);
	fputc('\n', f);
	caveats(r, caveat_text, f);
	return ret ? ret : (ferror(f) ? -EIO : 0);
}

int sample_print_csv(const struct sample_report *r, enum out_format fmt, FILE *f, FILE *notes)
{
	int ret;

	if (r->accuracy)
		return sample_print_accuracy(r, f, fmt, notes);
	caveats(r, caveat_warning, notes);
	say_hidden(r, notes, "perfscope report: ");
	if (r->tree || r->callers)
		ret = sample_print_trees(r, fmt, f, NULL);
	else if (r->lines)
		ret = print_lines(r, fmt, f, NULL);
	else
		ret = print_functions(r, fmt, f, NULL);
	return ret ? ret : (ferror(f) ? -EIO : 0);
}

/* The "sampling" object of the JSON: settings, counts, and what --min-share hid. */
static void json_sampling(const struct sample_report *r, struct jsonw *w)
{
	const struct sample_profile *p = r->p;
	const struct exp_sampling *sm = &r->e->sampling;

	jsonw_key(w, "sampling");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "leader", sm->nevents ? sm->events[0] : "");
	jsonw_kv_u64(w, "frequency", sm->frequency);
	jsonw_kv_u64(w, "period", sm->period);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	for (size_t i = 0; i < sm->nevents; i++)
		jsonw_string(w, sm->events[i]);
	jsonw_array_end(w);
	jsonw_kv_u64(w, "samples", p->samples);
	jsonw_kv_u64(w, "time_ns", p->time_ns);
	jsonw_kv_u64(w, "lost", p->walk.lost);
	jsonw_kv_u64(w, "throttled", p->walk.throttled);
	jsonw_kv_u64(w, "call_chains", p->chains);
	if (r->min_share > 0) {
		jsonw_kv_double(w, "min_share", r->min_share);
		jsonw_kv_u64(w, "hidden", sample_report_hidden(r));
	}
	jsonw_object_end(w);
}

/* The JSON's "threads": each sampled thread's samples and their time. */
static void json_threads(const struct sample_report *r, struct jsonw *w)
{
	jsonw_key(w, "threads");
	jsonw_array_begin(w);
	for (size_t i = 0; i < r->p->walk.nthreads; i++) {
		const struct sample_thread *t = &r->p->walk.threads[i];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "pid", t->pid);
		jsonw_kv_i64(w, "tid", t->tid);
		jsonw_kv_string(w, "name", t->name);
		jsonw_kv_u64(w, "samples", t->samples);
		jsonw_kv_u64(w, "time_ns", t->weight_ns);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

/* The views of the JSON after "sampling", into W. 0 or -ENOMEM. */
static int json_views(const struct sample_report *r, struct jsonw *w)
{
	int ret = 0;

	if (r->tree || r->callers) {
		jsonw_key(w, r->callers ? "callers" : "tree");
		ret = sample_print_trees(r, OUT_JSON, NULL, w);
	}
	if (!ret) {
		jsonw_key(w, "functions");
		ret = print_functions(r, OUT_JSON, NULL, w);
	}
	if (!ret) {
		jsonw_key(w, "lines");
		ret = print_lines(r, OUT_JSON, NULL, w);
	}
	if (!ret) {
		jsonw_key(w, "accuracy");
		ret = print_accuracy(r, OUT_JSON, NULL, w);
	}
	return ret;
}

int sample_print_json(const struct sample_report *r, FILE *f)
{
	struct jsonw w;
	int ret;

	jsonw_init(&w, 1);
	jsonw_object_begin(&w);
	json_sampling(r, &w);
	if ((ret = json_views(r, &w))) {
		jsonw_release(&w);
		return ret;
	}
	json_threads(r, &w);
	jsonw_key(&w, "caveats");
	jsonw_array_begin(&w);
	caveats(r, caveat_json, &w);
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	return jsonw_print(&w, f);
}

int sample_print_accuracy(const struct sample_report *r, FILE *f, enum out_format fmt, FILE *notes)
{
	int ret;

	if (fmt != OUT_TEXT) {
		caveats(r, caveat_warning, notes);
		return print_accuracy(r, fmt, f, NULL);
	}
	fprintf(f, "Totals estimated from the samples (sum of their deltas) against the "
		   "exact counts of the same events over the run\n\n");
	ret = print_accuracy(r, OUT_TEXT, f, NULL);
	fputc('\n', f);
	caveats(r, caveat_text, f);
	return ret;
}
