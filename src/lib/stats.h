/* stats.h - running mean, standard deviation, min and max (Welford), for repeated runs. */
#ifndef PSC_STATS_H
#define PSC_STATS_H

#include <stddef.h>

struct stats {
	size_t n;
	double mean, m2, min, max;
};

void stats_init(struct stats *s);

/* Add one observation. */
void stats_add(struct stats *s, double x);

/* Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values. */
double stats_stddev(const struct stats *s);

#endif /* PSC_STATS_H */
