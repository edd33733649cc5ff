/* energy.c - charging power to functions (energy.h). */
#include "analysis/energy/energy.h"

#include "lib/array.h"
#include "model/pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A thread entering (+1) or leaving (-1) traced code: its stack becoming non-empty or empty. */
struct activity {
	int64_t ns;
	int delta;
};

struct activity_list {
	struct activity *v;
	size_t n, cap;
	int64_t first_ns, last_ns; /* span of the streams' records */
};

static int activity_add(struct activity_list *l, int64_t ns, int delta)
{
	if (ARRAY_GROW(l->v, l->n + 1, l->cap))
		return -ENOMEM;
	l->v[l->n++] = (struct activity){ns, delta};
	return 0;
}

static int activity_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	int ret;

	if (ev->call.depth != 0)
		return 0;
	ret = activity_add(ctx, ev->ns, ev->kind == EV_CALL_ENTER ? 1 : -1);
	if (ret < 0)
		snprintf(err, errlen, "%s: out of memory", ev->loc->name);
	return ret;
}

static int activity_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
			char *err, size_t errlen)
{
	struct activity_list *l = ctx;

	(void)loc, (void)err, (void)errlen;
	if (f->first_ns <= f->last_ns) {
		if (f->first_ns < l->first_ns)
			l->first_ns = f->first_ns;
		if (f->last_ns > l->last_ns)
			l->last_ns = f->last_ns;
	}
	return 0;
}

/* A consumer of the pass (pass.h) collecting into L when each thread is inside traced code
 * (its outermost calls), and the span of the streams' records. */
static struct ev_consumer activity_consumer(struct activity_list *l)
{
	l->first_ns = INT64_MAX;
	l->last_ns = INT64_MIN;
	return (struct ev_consumer){.name = "activity",
				    .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT),
				    .locations = EV_LOC_STREAMS,
				    .ctx = l,
				    .event = activity_event,
				    .location_end = activity_end};
}

/* One pass over E's streams with the activity consumer. */
static int activity_collect(struct activity_list *l, const struct experiment *e, char *err,
			    size_t errlen)
{
	struct ev_consumer c = activity_consumer(l), *list[] = {&c};

	return ev_pass_experiment(e, list, 1, 0, err, errlen);
}

static int activity_cmp(const void *a, const void *b)
{
	const struct activity *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

static int64_t clamp(int64_t t, int64_t lo, int64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

/* S at T, T clamped to the covered span: no energy before or after it. */
static double covered_at(const struct energy_profile *ep, int64_t t, size_t *hint)
{
	return power_integral_at(&ep->integ, (double)clamp(t, ep->cover_start, ep->cover_end),
				 hint);
}

/* Threads the power is divided between after breakpoint J (at least 1, so that the charge
 * keeps growing while nobody takes it). */
static double sharers(const struct energy_profile *ep, size_t j)
{
	return ep->k[j] ? (double)ep->k[j] : 1.0;
}

/* The sharing breakpoints from the activity changes (all changes at one instant taken
 * together, so a call of length 0 changes nothing), with S and the idle time at each. */
static int sharing_build(struct energy_profile *ep, struct activity_list *l)
{
	size_t hint = 0, n = 0;
	long k = 0;

	qsort(l->v, l->n, sizeof(*l->v), activity_cmp);
	ep->bp = malloc((l->n + 1) * sizeof(*ep->bp));
	ep->k = malloc((l->n + 1) * sizeof(*ep->k));
	ep->s = malloc((l->n + 1) * sizeof(*ep->s));
	ep->w = malloc((l->n + 1) * sizeof(*ep->w));
	ep->idle = malloc((l->n + 1) * sizeof(*ep->idle));
	if (!ep->bp || !ep->k || !ep->s || !ep->w || !ep->idle)
		return -ENOMEM;
	for (size_t i = 0; i < l->n;) {
		int64_t t = l->v[i].ns, c = clamp(t, ep->cover_start, ep->cover_end);
		double s = covered_at(ep, t, &hint);

		for (; i < l->n && l->v[i].ns == t; i++)
			k += l->v[i].delta;
		/* a leave without its enter cannot come from the call walker; count from 0 */
		if (k < 0)
			k = 0;
		if (n) {
			int64_t prev = clamp(ep->bp[n - 1], ep->cover_start, ep->cover_end);

			ep->w[n] = ep->w[n - 1] + (s - ep->s[n - 1]) / sharers(ep, n - 1);
			ep->idle[n] = ep->idle[n - 1] + (ep->k[n - 1] ? 0 : c - prev);
		} else {
			ep->w[n] = s;
			ep->idle[n] = c - ep->cover_start;
		}
		ep->bp[n] = t;
		ep->s[n] = s;
		ep->k[n] = (unsigned)k;
		n++;
		if ((size_t)k > ep->max_active)
			ep->max_active = (size_t)k;
	}
	ep->nbp = n;
	return 0;
}

/* Index of the last breakpoint at or before NS, or SIZE_MAX before the first. */
static size_t breakpoint_find(const struct energy_profile *ep, int64_t ns)
{
	size_t lo = 0, hi = ep->nbp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ep->bp[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}

/* struct func_energy's at(): the charge of one thread inside traced code up to NS. */
static double energy_at(const void *ctx, int64_t ns, size_t *hint)
{
	const struct energy_profile *ep = ctx;
	double s = covered_at(ep, ns, hint);
	size_t j = breakpoint_find(ep, ns);

	if (j == SIZE_MAX)
		return s;
	return ep->w[j] + (s - ep->s[j]) / sharers(ep, j);
}

/* Covered time up to T during which no thread was inside traced code. */
static int64_t idle_until(const struct energy_profile *ep, int64_t t)
{
	int64_t c = clamp(t, ep->cover_start, ep->cover_end);
	size_t j = breakpoint_find(ep, t);

	if (j == SIZE_MAX)
		return c - ep->cover_start;
	return ep->idle[j] + (ep->k[j] ? 0 : c - clamp(ep->bp[j], ep->cover_start, ep->cover_end));
}

static int edges_build(struct energy_profile *ep, const struct energy_options *opt, char *err,
		       size_t errlen)
{
	int64_t span = ep->run_end - ep->run_start;
	size_t n = opt->nintervals;
	char a[32];

	if (!n && opt->interval_ns > 0)
		n = (size_t)((span + opt->interval_ns - 1) / opt->interval_ns);
	if (!n)
		return 0;
	if (n > ENERGY_MAX_INTERVALS) {
		snprintf(a, sizeof(a), "%.3g s", (double)span * 1e-9);
		snprintf(err, errlen,
			 "%zu intervals in the %s run, at most %d: give a longer --interval (%.3g "
			 "ms or more)",
			 n, a, ENERGY_MAX_INTERVALS,
			 (double)span / ENERGY_MAX_INTERVALS / 1e6 * 1.001);
		return -E2BIG;
	}
	ep->edges = malloc((n + 1) * sizeof(*ep->edges));
	ep->interval_j = calloc(n, sizeof(*ep->interval_j));
	ep->interval_idle_ns = calloc(n, sizeof(*ep->interval_idle_ns));
	if (!ep->edges || !ep->interval_j || !ep->interval_idle_ns) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i <= n; i++) {
		if (opt->nintervals)
			ep->edges[i] =
			    ep->run_start + (int64_t)((double)span * (double)i / (double)n);
		else
			ep->edges[i] = ep->run_start + (int64_t)i * opt->interval_ns;
	}
	ep->edges[n] = ep->run_end;
	ep->nintervals = n;
	return 0;
}

/* The integral of channel OPT->channel of PS into EP->integ. 0 or a negative errno (ERR). */
static int integral_open(struct energy_profile *ep, const struct power_series *ps,
			 const struct energy_options *opt, char *err, size_t errlen)
{
	int ret;

	if (opt->channel >= ps->nch) {
		snprintf(err, errlen, "%s: no power channel %zu", ps->source, opt->channel);
		return -EINVAL;
	}
	ret = power_integral_init(&ep->integ, ps, opt->channel, opt->method);
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", ps->source,
			 ret == -ENOMEM ? "out of memory"
			 : ps->n < 2	? "fewer than two power samples"
				     : "sample times not increasing or not finite (check the rate "
				       "and the time column)");
	return ret;
}

/* The run (the launcher's times, else the first and last activity) and the part of it the
 * power samples cover. 0, or -ERANGE (ERR) when they do not overlap. */
static int run_cover(struct energy_profile *ep, const struct experiment *e,
		     const struct activity_list *act, const struct power_series *ps, char *err,
		     size_t errlen)
{
	if (e->start_ns && e->end_ns > e->start_ns) {
		ep->run_start = e->start_ns;
		ep->run_end = e->end_ns;
	} else if (act->first_ns <= act->last_ns) {
		ep->run_start = act->first_ns;
		ep->run_end = act->last_ns;
	}
	ep->cover_start = ep->run_start;
	ep->cover_end = ep->run_end;
	if ((double)ep->cover_start < ep->integ.t_first)
		ep->cover_start = (int64_t)(ep->integ.t_first + 0.5);
	if ((double)ep->cover_end > ep->integ.t_last)
		ep->cover_end = (int64_t)ep->integ.t_last;
	if (ep->cover_end > ep->cover_start)
		return 0;
	snprintf(err, errlen,
		 "%s: the power samples (%.3f to %.3f s on the experiment's clock) do not "
		 "overlap the run (%.3f to %.3f s)",
		 ps->source, ep->integ.t_first * 1e-9, ep->integ.t_last * 1e-9,
		 (double)ep->run_start * 1e-9, (double)ep->run_end * 1e-9);
	return -ERANGE;
}

/* The functions of E's streams with their energy, merged over threads into EP->merged. */
static int functions_charge(struct energy_profile *ep, const struct experiment *e,
			    struct symtab *syms, char *err, size_t errlen)
{
	struct func_profile prof;
	struct func_energy fe = {
	    .at = energy_at,
	    .ctx = ep,
	    .cover_start = ep->cover_start,
	    .cover_end = ep->cover_end,
	    .edges = ep->edges,
	    .nintervals = ep->nintervals,
	};
	int ret;

	/* per thread only until merged: slices take rows x intervals */
	ret = func_profile_build(&prof, e, syms, NULL, &fe, err, errlen);
	if (ret == 0 && func_profile_merge(&prof, &ep->merged)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	func_profile_release(&prof);
	return ret;
}

/* The covered run's energy, what no function took, and each interval's energy and idle time. */
static void totals_compute(struct energy_profile *ep)
{
	size_t hint = 0;
	double charged = 0;

	ep->total_j = covered_at(ep, ep->cover_end, &hint) - covered_at(ep, ep->cover_start, &hint);
	for (size_t i = 0; i < ep->merged.nrows; i++)
		charged += ep->merged.rows[i].excl_j;
	ep->outside_j = ep->total_j - charged;
	ep->outside_ns = idle_until(ep, ep->cover_end);
	hint = 0;
	for (size_t i = 0; i < ep->nintervals; i++) {
		ep->interval_j[i] =
		    covered_at(ep, ep->edges[i + 1], &hint) - covered_at(ep, ep->edges[i], &hint);
		ep->interval_idle_ns[i] =
		    idle_until(ep, ep->edges[i + 1]) - idle_until(ep, ep->edges[i]);
	}
}

int energy_profile_build(struct energy_profile *ep, const struct experiment *e, struct symtab *syms,
			 const struct power_series *ps, const struct energy_options *opt, char *err,
			 size_t errlen)
{
	struct activity_list act = {0};
	int ret;

	memset(ep, 0, sizeof(*ep));
	ret = integral_open(ep, ps, opt, err, errlen);
	if (ret < 0)
		return ret;
	ret = activity_collect(&act, e, err, errlen);
	if (ret < 0)
		goto out;
	if (!act.n) {
		snprintf(err, errlen,
			 "%s has no function calls: record a program built with "
			 "-finstrument-functions with perfscope record --functions",
			 e->dir);
		ret = -ENODATA;
		goto out;
	}
	ret = run_cover(ep, e, &act, ps, err, errlen);
	if (ret < 0)
		goto out;
	ret = sharing_build(ep, &act);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = edges_build(ep, opt, err, errlen);
	if (ret == 0)
		ret = functions_charge(ep, e, syms, err, errlen);
	if (ret >= 0)
		totals_compute(ep);
out:
	free(act.v);
	return ret;
}

void energy_profile_release(struct energy_profile *ep)
{
	func_profile_release(&ep->merged);
	power_integral_release(&ep->integ);
	free(ep->edges);
	free(ep->interval_j);
	free(ep->interval_idle_ns);
	free(ep->bp);
	free(ep->k);
	free(ep->s);
	free(ep->w);
	free(ep->idle);
	memset(ep, 0, sizeof(*ep));
}
