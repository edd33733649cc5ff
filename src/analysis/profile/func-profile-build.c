/*
 * func-profile-build.c - the function profile of an experiment in one pass of its source
 * (func_profile_build, func-profile.h), with the region profile riding along.
 */
#include "analysis/profile/func-profile.h"

#include "model/pass.h"
#include "analysis/profile/regions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int func_profile_build(struct func_profile *p, const struct experiment *e, struct symtab *syms,
		       struct region_profile *regions, const struct func_energy *energy, char *err,
		       size_t errlen)
{
	struct ev_consumer c[2] = {{0}, {0}}, *list[2] = {&c[0], &c[1]};
	struct ev_source *src;
	size_t n = 0;
	int ret = ev_source_experiment(&src, e, err, errlen);

	if (ret < 0) {
		memset(p, 0, sizeof(*p));
		return ret;
	}
	ret = func_profile_consumer(&c[n++], p, syms, energy, ev_source_nlocations(src));
	if (ret == 0 && regions)
		ret = region_profile_consumer(&c[n++], regions, e);
	if (ret == 0)
		ret = ev_pass_run(src, list, n, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++)
		ev_consumer_release(&c[i]);
	ev_source_close(src);
	return ret;
}
