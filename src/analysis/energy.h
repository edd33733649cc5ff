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

#include "experiment.h"
#include "fprofile.h"
#include "integrate.h"
#include "power.h"
#include "symbols.h"

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
	 * charge of each is w[i] + (S(t) - s[i]) / max(k[i], 1) */
	int64_t *bp;
	unsigned *k;
	double *s, *w;
	size_t nbp;
	struct power_integral integ;
};

/*
 * Charge the power of channel OPT->channel of PS over E's run to the functions of E's
 * streams, naming them through SYMS. 0; -ERANGE when the power samples do not overlap the
 * run; -EINVAL when the channel has fewer than two samples; or a negative errno with
 * "file: byte N: ..." in ERR. PS must stay alive until energy_profile_release.
 */
int energy_profile_build(struct energy_profile *ep, const struct experiment *e, struct symtab *syms,
			 const struct power_series *ps, const struct energy_options *opt, char *err,
			 size_t errlen);

void energy_profile_release(struct energy_profile *ep);

#endif /* PSC_AN_ENERGY_H */
