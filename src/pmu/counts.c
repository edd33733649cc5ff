/* counts.c - multiplex scaling, deltas and snapshot decoding. */
#include "pmu/counts.h"
#include "format/format.h"

#include <errno.h>

int count_scale(const struct count *c, uint64_t *out)
{
	unsigned __int128 v;

	if (c->running == 0) {
		if (c->enabled != 0)
			return -ENODATA;
		*out = c->raw; /* never enabled: nothing happened, nothing to scale */
		return 0;
	}
	if (c->running >= c->enabled) {
		*out = c->raw;
		return 0;
	}
	v = (unsigned __int128)c->raw * c->enabled + c->running / 2;
	v /= c->running;
	*out = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	return 0;
}

double count_running_ratio(const struct count *c)
{
	if (c->enabled == 0 || c->running >= c->enabled)
		return 1.0;
	return (double)c->running / (double)c->enabled;
}

int count_is_scaled(const struct count *c)
{
	return c->running < c->enabled;
}

struct count count_delta(const struct count *a, const struct count *b)
{
	struct count d = {b->raw - a->raw, b->enabled - a->enabled, b->running - a->running};

	return d;
}

void count_add(struct count *a, const struct count *b)
{
	a->raw += b->raw;
	a->enabled += b->enabled;
	a->running += b->running;
}

static uint32_t ngroups_of(const uint32_t *group_of, size_t nevents)
{
	uint32_t n = 0;

	for (size_t i = 0; i < nevents; i++)
		if (group_of[i] != PSC_NO_GROUP && group_of[i] + 1 > n)
			n = group_of[i] + 1;
	return n;
}

size_t count_snapshot_words(const uint32_t *group_of, size_t nevents)
{
	size_t words = 3 * (size_t)ngroups_of(group_of, nevents);

	for (size_t i = 0; i < nevents; i++)
		words += group_of[i] != PSC_NO_GROUP;
	return words;
}

int count_snapshot_decode(const uint64_t *words, size_t nwords, const uint32_t *group_of,
			  size_t nevents, struct count *out)
{
	uint32_t ngroups = ngroups_of(group_of, nevents);
	size_t pos = 0;

	for (size_t i = 0; i < nevents; i++)
		out[i] = (struct count){0, 0, 0};
	for (uint32_t g = 0; g < ngroups; g++) {
		uint64_t nr, members = 0, k = 0;

		if (pos + 3 > nwords)
			return -EINVAL;
		nr = words[pos];
		for (size_t i = 0; i < nevents; i++)
			members += group_of[i] == g;
		if (nr != members || pos + 3 + nr > nwords)
			return -EINVAL;
		for (size_t i = 0; i < nevents; i++) {
			if (group_of[i] != g)
				continue;
			out[i].enabled = words[pos + 1];
			out[i].running = words[pos + 2];
			out[i].raw = words[pos + 3 + k++];
		}
		pos += 3 + nr;
	}
	return pos == nwords ? 0 : -EINVAL;
}
