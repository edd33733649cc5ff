/* html-energy.c - the report's "energy" data: the energy profile of `perfscope energy` (power
 * charged to the function on top of each thread's stack) over the recorded power samples, per
 * function and per interval, for the Energy view and the Profile's energy columns. */
#include "html/html-int.h"

#include "analysis/energy/energy.h"
#include "analysis/energy/powerfile.h"
#include "format/powerlog.h"
#include "lib/array.h"
#include "view/caveats.h"
#include "view/energy-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The run is split into this many intervals for the stacked charts. */
#define HTML_ENERGY_INTERVALS 40
/* Functions shown one by one in the interval charts; the others are summed. */
#define HTML_ENERGY_TOP 8

#define OUTSIDE_NAME "[outside traced functions]"
#define OTHER_NAME   "[other functions]"

/* The run's start on the experiment's clock, as `perfscope energy` takes it: the launcher's,
 * else the first process's first clock pair. */
static double run_start(const struct experiment *e)
{
	double start = 0;

	if (e->start_ns)
		return (double)e->start_ns;
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].npairs && (start == 0 || (double)e->procs[i].pairs[0].ns < start))
			start = (double)e->procs[i].pairs[0].ns;
	return start;
}

/* The power samples record stored in E's directory, as `perfscope energy` reads them. */
static int power_load(struct power_series *ps, const struct experiment *e, char *err, size_t len)
{
	const struct exp_power *pw = &e->power;
	struct power_file_spec spec;
	char path[4096];

	if (!pw->file || !pw->file[0] || !pw->source) {
		snprintf(err, len, "meta.json's power names no file");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", e->dir, pw->file);
	if (strcmp(pw->source, "file"))
		return power_log_read(ps, path, err, len);
	power_file_spec_init(&spec);
	if (power_file_spec_parse(&spec, pw->format && pw->format[0] ? pw->format : "watts",
				  pw->scale && pw->scale[0] ? pw->scale : NULL, err, len))
		return -EINVAL;
	if (pw->rate_hz > 0)
		spec.rate_hz = pw->rate_hz;
	spec.offset_ns = pw->offset_ns;
	return power_file_read(ps, path, &spec, run_start(e), err, len);
}

/* The first channel that advances, or -1. */
static long channel_pick(const struct power_series *ps)
{
	for (size_t i = 0; i < ps->nch; i++)
		if (ps->ch[i].advancing)
			return (long)i;
	return -1;
}

/* The energy caveats without the experiment's own (the Summary lists those once). */
struct caveat_filter {
	struct html_input *in;
	char **skip;
	size_t nskip, cap;
	int failed;
};

static void filter_collect(void *ctx, const char *line)
{
	struct caveat_filter *cf = ctx;

	if (ARRAY_GROW(cf->skip, cf->nskip + 1, cf->cap)) {
		cf->failed = 1;
		return;
	}
	if (!(cf->skip[cf->nskip] = strdup(line)))
		cf->failed = 1;
	else
		cf->nskip++;
}

static void filter_pass(void *ctx, const char *line)
{
	struct caveat_filter *cf = ctx;

	for (size_t i = 0; i < cf->nskip; i++)
		if (!strcmp(cf->skip[i], line))
			return;
	html_caveat_line(cf->in, line);
}

static void caveats(struct html_input *in, const struct energy_profile *ep,
		    const struct power_series *ps, const size_t *order)
{
	struct caveat_filter cf = {.in = in};
	struct energy_channel *chans = calloc(ps->nch + 1, sizeof(*chans));
	struct energy_report r = {
	    .e = in->e,
	    .ps = ps,
	    .ep = ep,
	    .order = order,
	    .rate_hz = power_series_rate(ps),
	    .channels = chans,
	    .nchannels = chans ? ps->nch : 0,
	    .dir = in->e->dir,
	};

	for (size_t i = 0; chans && i < ps->nch; i++)
		chans[i] = (struct energy_channel){ps->ch[i].name, ps->ch[i].advancing, 0};
	experiment_caveats(in->e, 1, filter_collect, &cf);
	energy_caveats(&r, filter_pass, &cf);
	if (cf.failed || !chans)
		in->failed = 1;
	for (size_t i = 0; i < cf.nskip; i++)
		free(cf.skip[i]);
	free(cf.skip);
	free(chans);
}

static void kv_double_array(struct jsonw *w, const char *key, const double *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_double(w, v[i]);
	jsonw_array_end(w);
}

/* One series of the interval charts: energy and exclusive time per interval. */
static void series(struct jsonw *w, const char *name, const double *j, const double *ns, size_t n)
{
	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", name);
	kv_double_array(w, "j", j, n);
	kv_double_array(w, "ns", ns, n);
	jsonw_object_end(w);
}

/* "intervals": edges, each interval's energy and idle time, and the series of the top
 * functions (by exclusive energy, ORDER), the others summed, and the time outside traced
 * code, which together add up to each interval's energy. */
static int intervals_json(struct jsonw *w, const struct energy_profile *ep, const size_t *order)
{
	size_t n = ep->nintervals, nrows = ep->merged.nrows;
	size_t top = nrows < HTML_ENERGY_TOP ? nrows : HTML_ENERGY_TOP;
	double *j = calloc(4 * n + 1, sizeof(*j)), *ns = j + n, *oj = j + 2 * n, *ons = j + 3 * n;

	if (!j)
		return -ENOMEM;
	jsonw_key(w, "intervals");
	jsonw_object_begin(w);
	jsonw_key(w, "edges_ns");
	jsonw_array_begin(w);
	for (size_t i = 0; i <= n; i++)
		jsonw_i64(w, ep->edges[i] - ep->run_start);
	jsonw_array_end(w);
	kv_double_array(w, "energy_j", ep->interval_j, n);
	jsonw_key(w, "idle_ns");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_i64(w, ep->interval_idle_ns[i]);
	jsonw_array_end(w);
	jsonw_key(w, "series");
	jsonw_array_begin(w);
	/* outside traced code: the interval's energy less every function's */
	for (size_t i = 0; i < n; i++) {
		ons[i] = (double)ep->interval_idle_ns[i];
		oj[i] = ep->interval_j[i];
	}
	for (size_t k = 0; k < nrows; k++) {
		const struct func_row *row = &ep->merged.rows[order[k]];

		for (size_t i = 0; i < n; i++) {
			oj[i] -= row->slices ? row->slices[i].j : 0;
			if (k >= top) {
				j[i] += row->slices ? row->slices[i].j : 0;
				ns[i] += row->slices ? (double)row->slices[i].ns : 0;
			}
		}
	}
	for (size_t k = 0; k < top; k++) {
		const struct func_row *row = &ep->merged.rows[order[k]];
		double *rj = calloc(2 * n + 1, sizeof(*rj));

		if (!rj) {
			free(j);
			return -ENOMEM;
		}
		for (size_t i = 0; row->slices && i < n; i++) {
			rj[i] = row->slices[i].j;
			rj[n + i] = (double)row->slices[i].ns;
		}
		series(w, row->sym.name, rj, rj + n, n);
		free(rj);
	}
	if (nrows > top)
		series(w, OTHER_NAME, j, ns, n);
	for (size_t i = 0; i < n; i++)
		if (oj[i] < 0 && oj[i] > -1e-9 * ep->interval_j[i])
			oj[i] = 0; /* rounding of the subtraction */
	series(w, OUTSIDE_NAME, oj, ons, n);
	jsonw_array_end(w);
	jsonw_object_end(w);
	free(j);
	return 0;
}

static void functions_json(struct jsonw *w, const struct energy_profile *ep, const size_t *order)
{
	jsonw_key(w, "functions");
	jsonw_array_begin(w);
	for (size_t k = 0; k < ep->merged.nrows; k++) {
		const struct func_row *row = &ep->merged.rows[order[k]];

		jsonw_object_begin(w);
		jsonw_kv_string(w, "name", row->sym.name);
		jsonw_kv_string(w, "module", row->sym.module);
		jsonw_kv_u64(w, "calls", row->calls);
		jsonw_kv_i64(w, "excl_ns", row->excl_ns);
		jsonw_kv_i64(w, "incl_ns", row->incl_ns);
		jsonw_kv_double(w, "excl_j", row->excl_j);
		jsonw_kv_double(w, "incl_j", row->incl_j);
		jsonw_kv_double(w, "power_w",
				row->covered_ns > 0 ? row->excl_j / ((double)row->covered_ns * 1e-9)
						    : 0);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

/* Build IN's energy profile into HE: 0, 1 when there is none (a caveat says why), or
 * -ENOMEM. */
static int energy_build(struct html_input *in, struct html_energy *he)
{
	struct energy_options eo = {.nintervals = HTML_ENERGY_INTERVALS};
	char err[512] = "";
	long ch;
	int ret;

	ret = power_load(&he->ps, in->e, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		html_caveat(in, "Energy view left out: %s", err);
		return 1;
	}
	ch = channel_pick(&he->ps);
	if (ch < 0) {
		html_caveat(in, "Energy view left out: %s: no power channel ever advanced",
			    he->ps.source ? he->ps.source : in->e->power.file);
		return 1;
	}
	he->channel = eo.channel = (size_t)ch;
	ret = energy_profile_build(&he->ep, in->e, in->syms, &he->ps, &eo, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		html_caveat(in, "Energy view left out: %s",
			    ret == -ENODATA ? "power was recorded but no function calls (record "
					      "--functions, or -finstrument-functions)"
					    : err);
		return 1;
	}
	he->order = energy_order(&he->ep, 0);
	if (!he->order)
		return -ENOMEM;
	caveats(in, &he->ep, &he->ps, he->order);
	return 0;
}

const struct html_energy *html_energy(struct html_input *in)
{
	int ret;

	if (in->energy_state)
		return in->energy_state > 0 ? in->energy : NULL;
	in->energy_state = -1;
	if (!in->e->has_power)
		return NULL;
	in->energy = calloc(1, sizeof(*in->energy));
	if (!in->energy) {
		in->failed = 1;
		return NULL;
	}
	ret = energy_build(in, in->energy);
	if (ret < 0)
		in->failed = 1;
	if (ret)
		return NULL;
	in->energy_state = 1;
	return in->energy;
}

void html_energy_release(struct html_input *in)
{
	if (in->energy) {
		free(in->energy->order);
		energy_profile_release(&in->energy->ep);
		power_series_release(&in->energy->ps);
		free(in->energy);
		in->energy = NULL;
	}
	in->energy_state = 0;
}

int html_data_energy(struct jsonw *w, struct html_input *in)
{
	const struct html_energy *he = html_energy(in);
	const struct energy_profile *ep;
	int ret;

	if (!he)
		return in->failed ? -ENOMEM : 0;
	ep = &he->ep;
	jsonw_key(w, "energy");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "channel", he->ps.ch[he->channel].name);
	jsonw_kv_string(w, "source", in->e->power.source);
	jsonw_kv_string(w, "method", "trapezoid");
	jsonw_kv_i64(w, "run_ns", ep->run_end - ep->run_start);
	jsonw_kv_i64(w, "cover_from_ns", ep->cover_start - ep->run_start);
	jsonw_kv_i64(w, "cover_to_ns", ep->cover_end - ep->run_start);
	jsonw_kv_double(w, "total_j", ep->total_j);
	jsonw_kv_double(w, "outside_j", ep->outside_j);
	jsonw_kv_i64(w, "outside_ns", ep->outside_ns);
	functions_json(w, ep, he->order);
	ret = intervals_json(w, ep, he->order);
	jsonw_object_end(w);
	return ret;
}
