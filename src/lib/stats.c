/* stats.c - Welford's running mean and variance. */
#include "lib/stats.h"

#include <math.h>

void stats_init(struct stats *s)
{
	s->n = 0;
	s->mean = s->m2 = s->min = s->max = 0;
}

void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
	if (s->n == 1 || x < s->min)
		s->min = x;
	if (s->n == 1 || x > s->max)
		s->max = x;
}

double stats_stddev(const struct stats *s)
{
	return s->n < 2 ? 0.0 : sqrt(s->m2 / (double)(s->n - 1));
}
