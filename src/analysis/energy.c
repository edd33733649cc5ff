/* energy.c - charging power to functions (energy.h). */
#include "energy.h"

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
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct activity *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct activity){ns, delta};
	return 0;
}

/* One read of every stream: when each thread is inside traced code, and the records' span. */
static int activity_collect(struct activity_list *l, const struct experiment *e, char *err,
			    size_t errlen)
{
	l->first_ns = INT64_MAX;
	l->last_ns = INT64_MIN;
	for (size_t i = 0; i < e->nstreams; i++) {
		struct call_walker w;
		struct call_event ev;
		int ret = call_walker_open(&w, &e->streams[i], err, errlen);

		if (ret < 0)
			return ret;
		while ((ret = call_walker_next(&w, &ev, err, errlen)) > 0) {
			if (ev.depth != 0 || (ev.type != CALL_ENTER && ev.type != CALL_EXIT))
				continue;
			ret = activity_add(l, ev.ns, ev.type == CALL_ENTER ? 1 : -1);
			if (ret < 0) {
				snprintf(err, errlen, "%s: out of memory", e->streams[i].path);
				break;
			}
		}
		if (ret == 0 && w.th.first_ns <= w.th.last_ns) {
			if (w.th.first_ns < l->first_ns)
				l->first_ns = w.th.first_ns;
			if (w.th.last_ns > l->last_ns)
				l->last_ns = w.th.last_ns;
		}
		call_walker_close(&w);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int activity_cmp(const void *a, const void *b)
{
	const struct activity *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->delta - y->delta; /* a leave before an enter at the same instant */
}

/* The sharing breakpoints from the activity changes, S sampled at each. */
static int sharing_build(struct energy_profile *ep, struct activity_list *l)
{
	size_t hint = 0, n = 0;
	long k = 0;

	qsort(l->v, l->n, sizeof(*l->v), activity_cmp);
	ep->bp = malloc((l->n + 1) * sizeof(*ep->bp));
	ep->k = malloc((l->n + 1) * sizeof(*ep->k));
	ep->s = malloc((l->n + 1) * sizeof(*ep->s));
	ep->w = malloc((l->n + 1) * sizeof(*ep->w));
	if (!ep->bp || !ep->k || !ep->s || !ep->w)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		int64_t t = l->v[i].ns;
		double s = power_integral_at(&ep->integ, (double)t, &hint);

		k += l->v[i].delta;
		if (k < 0) /* a leave without its enter: a stream cut short; keep counting from 0 */
			k = 0;
		if (n && ep->bp[n - 1] == t) {
			ep->k[n - 1] = (unsigned)k;
		} else {
			ep->w[n] = n ? ep->w[n - 1] +
					   (s - ep->s[n - 1]) / (ep->k[n - 1] ? ep->k[n - 1] : 1)
				     : s;
			ep->bp[n] = t;
			ep->s[n] = s;
			ep->k[n] = (unsigned)k;
			n++;
		}
		if ((size_t)k > ep->max_active)
			ep->max_active = (size_t)k;
	}
	ep->nbp = n;
	return 0;
}

static int64_t overlap(int64_t a, int64_t b, int64_t lo, int64_t hi)
{
	a = a > lo ? a : lo;
	b = b < hi ? b : hi;
	return b > a ? b - a : 0;
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
	double s = power_integral_at(&ep->integ, (double)ns, hint);
	size_t j = breakpoint_find(ep, ns);

	if (j == SIZE_MAX)
		return s;
	return ep->w[j] + (s - ep->s[j]) / (ep->k[j] ? ep->k[j] : 1);
}

/* Covered time in [LO, HI) during which no thread was inside traced code. */
static int64_t idle_time(const struct energy_profile *ep, int64_t lo, int64_t hi)
{
	int64_t idle = 0;

	lo = lo > ep->cover_start ? lo : ep->cover_start;
	hi = hi < ep->cover_end ? hi : ep->cover_end;

	for (size_t i = 0; i <= ep->nbp; i++) {
		int64_t a = i ? ep->bp[i - 1] : INT64_MIN, b = i < ep->nbp ? ep->bp[i] : INT64_MAX;

		if (i == 0 || ep->k[i - 1] == 0)
			idle += overlap(a, b, lo, hi);
	}
	return idle;
}

static int edges_build(struct energy_profile *ep, const struct energy_options *opt)
{
	int64_t span = ep->run_end - ep->run_start;
	size_t n = opt->nintervals;

	if (!n && opt->interval_ns > 0)
		n = (size_t)((span + opt->interval_ns - 1) / opt->interval_ns);
	if (!n)
		return 0;
	ep->edges = malloc((n + 1) * sizeof(*ep->edges));
	ep->interval_j = calloc(n, sizeof(*ep->interval_j));
	ep->interval_idle_ns = calloc(n, sizeof(*ep->interval_idle_ns));
	if (!ep->edges || !ep->interval_j || !ep->interval_idle_ns)
		return -ENOMEM;
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

/* S at T, T clamped to the covered span. */
static double covered_at(const struct energy_profile *ep, int64_t t, size_t *hint)
{
	if (t < ep->cover_start)
		t = ep->cover_start;
	if (t > ep->cover_end)
		t = ep->cover_end;
	return power_integral_at(&ep->integ, (double)t, hint);
}

int energy_profile_build(struct energy_profile *ep, const struct experiment *e, struct symtab *syms,
			 const struct power_series *ps, const struct energy_options *opt, char *err,
			 size_t errlen)
{
	struct activity_list act = {0};
	struct func_energy fe;
	size_t hint = 0;
	double charged = 0;
	int ret;

	memset(ep, 0, sizeof(*ep));
	if (opt->channel >= ps->nch) {
		snprintf(err, errlen, "%s: no power channel %zu", ps->source, opt->channel);
		return -EINVAL;
	}
	ret = power_integral_init(&ep->integ, ps, opt->channel, opt->method);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", ps->source,
			 ret == -EINVAL ? "fewer than two power samples" : "out of memory");
		return ret;
	}
	ret = activity_collect(&act, e, err, errlen);
	if (ret < 0)
		goto out;
	if (e->start_ns && e->end_ns > e->start_ns) {
		ep->run_start = e->start_ns;
		ep->run_end = e->end_ns;
	} else if (act.first_ns <= act.last_ns) {
		ep->run_start = act.first_ns;
		ep->run_end = act.last_ns;
	}
	ep->cover_start = ep->run_start;
	ep->cover_end = ep->run_end;
	if ((double)ep->cover_start < ep->integ.t_first)
		ep->cover_start = (int64_t)(ep->integ.t_first + 0.5);
	if ((double)ep->cover_end > ep->integ.t_last)
		ep->cover_end = (int64_t)ep->integ.t_last;
	if (ep->cover_end <= ep->cover_start) {
		snprintf(err, errlen,
			 "%s: the power samples (%.3f to %.3f s on the experiment's clock) do not "
			 "overlap the run (%.3f to %.3f s)",
			 ps->source, ep->integ.t_first * 1e-9, ep->integ.t_last * 1e-9,
			 (double)ep->run_start * 1e-9, (double)ep->run_end * 1e-9);
		ret = -ERANGE;
		goto out;
	}
	ret = sharing_build(ep, &act);
	if (ret == 0)
		ret = edges_build(ep, opt);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	fe = (struct func_energy){
	    .at = energy_at,
	    .ctx = ep,
	    .cover_start = ep->cover_start,
	    .cover_end = ep->cover_end,
	    .edges = ep->edges,
	    .nintervals = ep->nintervals,
	};
	ret = func_profile_build(&ep->prof, e, syms, NULL, &fe, err, errlen);
	if (ret == 0 && func_profile_merge(&ep->prof, &ep->merged)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	if (ret < 0)
		goto out;
	ep->total_j = covered_at(ep, ep->cover_end, &hint) - covered_at(ep, ep->cover_start, &hint);
	for (size_t i = 0; i < ep->merged.nrows; i++)
		charged += ep->merged.rows[i].excl_j;
	ep->outside_j = ep->total_j - charged;
	ep->outside_ns = idle_time(ep, ep->cover_start, ep->cover_end);
	hint = 0;
	for (size_t i = 0; i < ep->nintervals; i++) {
		ep->interval_j[i] =
		    covered_at(ep, ep->edges[i + 1], &hint) - covered_at(ep, ep->edges[i], &hint);
		ep->interval_idle_ns[i] = idle_time(ep, ep->edges[i], ep->edges[i + 1]);
	}
out:
	free(act.v);
	return ret;
}

void energy_profile_release(struct energy_profile *ep)
{
	func_profile_release(&ep->prof);
	func_profile_release(&ep->merged);
	power_integral_release(&ep->integ);
	free(ep->edges);
	free(ep->interval_j);
	free(ep->interval_idle_ns);
	free(ep->bp);
	free(ep->k);
	free(ep->s);
	free(ep->w);
	memset(ep, 0, sizeof(*ep));
}
