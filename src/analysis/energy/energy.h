/*
 * energy.h - energy per function: power samples (power.h) aligned with the function
 * timeline and charged to the function on top of the stack of each thread inside traced code
 * (several at once share the power equally: without scheduling records, that is the fair
 * split), overall and per time interval.
 */
#ifndef PSC_AN_ENERGY_H
#define PSC_AN_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "analysis/profile/func-profile.h"
#include "analysis/energy/integrate.h"
#include "format/power.h"
#include "model/symbols.h"

/* --intervals and --interval give at most this many: each function of each thread keeps a
 * slice per interval while the profile is built. */
#define ENERGY_MAX_INTERVALS 100000

struct energy_options {
	enum integ_method method;
	size_t channel;	     /* of the power series */
	size_t nintervals;   /* split the run into this many intervals, or */
	int64_t interval_ns; /* into intervals this long (the last one shorter); 0: neither */
};

struct energy_profile {
	struct func_profile prof;	/* per thread, with energy */
	struct func_profile merged;	/* over threads and processes */
	int64_t run_start, run_end;	/* the run, ns on the experiment's clock */
	int64_t cover_start, cover_end; /* the part of the run the power samples cover */
	double total_j;			/* energy over the covered run */
	double outside_j;		/* while no thread was inside a traced function */
	int64_t outside_ns;		/* covered time with no thread inside a traced function */
	size_t max_active;		/* most threads inside traced code at once */
	int64_t *edges;			/* nintervals + 1 interval edges */
	size_t nintervals;
	double *interval_j;	   /* energy of each interval */
	int64_t *interval_idle_ns; /* covered time of each with no thread in traced code */
	/* the sharing of the power: from bp[i] on, k[i] threads are inside traced code and the
	 * charge of each is w[i] + (S(t) - s[i]) / max(k[i], 1); idle[i] is the covered time
	 * without any up to bp[i] */
	int64_t *bp;
	unsigned *k;
	double *s, *w;
	int64_t *idle;
	size_t nbp;
	struct power_integral integ;
};

/*
 * Charge the power of channel OPT->channel of PS over E's run to the functions of E's
 * streams, naming them through SYMS. 0, or a negative errno with a one-line message in ERR:
 * -ENODATA without function calls, -ERANGE when the power samples do not overlap the run,
 * -E2BIG for more than ENERGY_MAX_INTERVALS intervals, -EINVAL for a channel without two
 * increasing sample times, "file: byte N: ..." for a bad stream. PS must stay alive until
 * energy_profile_release, which EP needs after a failure too.
 */
int energy_profile_build(struct energy_profile *ep, const struct experiment *e, struct symtab *syms,
			 const struct power_series *ps, const struct energy_options *opt, char *err,
			 size_t errlen);

/* Free what EP holds (built, partly built or zeroed) and zero it. */
void energy_profile_release(struct energy_profile *ep);

#endif /* PSC_AN_ENERGY_H */
