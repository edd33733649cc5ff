/* counters_api.c - psc_counters_*: start a named event set, read values and elapsed time. */
#include "../../include/perfscope.h"
#include "pmu/clock.h"
#include "lib/compiler.h"
#include "pmu/counters.h"
#include "pmu/counts.h"
#include "pmu/cpuinfo.h"
#include "lib/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REASON_MAX 192

struct psc_counters {
	struct counter_set set;
	uint64_t start_ns;
	uint64_t *start; /* snapshot at start */
	uint64_t *now;	 /* scratch snapshot */
	uint32_t *group_of;
	int32_t *status;
	struct count *c0, *c1;
	char (*reason)[REASON_MAX];
};

static void counters_free(struct psc_counters *s)
{
	counter_set_release(&s->set);
	psc_mem_free(s->start);
	psc_mem_free(s->now);
	psc_mem_free(s->group_of);
	psc_mem_free(s->status);
	psc_mem_free(s->c0);
	psc_mem_free(s->c1);
	psc_mem_free(s->reason);
	psc_mem_free(s);
}

PSC_EXPORT int psc_counters_start(const char *events, struct psc_counters **out)
{
	struct event_desc *evs = NULL;
	struct psc_counters *s;
	struct perf_state ps;
	const char *procfs, *sysfs;
	char bad[EVENT_NAME_MAX];
	size_t n = 0;
	int saved_errno = errno, ret;

	if (!events || !out)
		return -EINVAL;
	ret = event_list_resolve(events, &evs, &n, bad, sizeof(bad));
	if (ret)
		goto fail;
	s = psc_mem_calloc(1, sizeof(*s));
	ret = -ENOMEM;
	if (!s)
		goto fail;
	if (counter_set_init(&s->set, evs, n, COUNTER_DISABLED | COUNTER_RDPMC, NULL))
		goto fail_set;
	s->group_of = psc_mem_calloc(n, sizeof(*s->group_of));
	s->status = psc_mem_calloc(n, sizeof(*s->status));
	s->c0 = psc_mem_calloc(n, sizeof(*s->c0));
	s->c1 = psc_mem_calloc(n, sizeof(*s->c1));
	s->reason = psc_mem_calloc(n, sizeof(*s->reason));
	if (!s->group_of || !s->status || !s->c0 || !s->c1 || !s->reason)
		goto fail_set;
	counter_set_open(&s->set, 0);
	s->start = psc_mem_calloc(s->set.snapshot_words + 1, sizeof(uint64_t));
	s->now = psc_mem_calloc(s->set.snapshot_words + 1, sizeof(uint64_t));
	if (!s->start || !s->now)
		goto fail_set;
	counter_set_layout(&s->set, s->group_of, s->status);
	psc_machine_roots(&procfs, &sysfs);
	perf_state_read(&ps, procfs, sysfs);
	for (size_t i = 0; i < n; i++)
		if (s->status[i])
			counter_status_reason(s->status[i], &s->set.ev[i].desc, ps.paranoid,
					      ps.have_core_pmu, s->reason[i], REASON_MAX);
	ret = counter_set_enable(&s->set);
	if (ret == 0)
		ret = counter_set_snapshot(&s->set, s->start);
	if (ret)
		goto fail_set;
	s->start_ns = clock_monotonic_ns();
	psc_mem_free(evs);
	*out = s;
	errno = saved_errno;
	return 0;
fail_set:
	counters_free(s);
fail:
	psc_mem_free(evs);
	errno = saved_errno;
	return ret;
}

PSC_EXPORT int psc_counters_read(struct psc_counters *s, int64_t *values, int n,
				 int64_t *elapsed_ns)
{
	size_t nev;
	int saved_errno = errno, ret;

	if (!s || (n > 0 && !values))
		return -EINVAL;
	nev = s->set.nev;
	ret = counter_set_snapshot(&s->set, s->now);
	if (elapsed_ns)
		*elapsed_ns = (int64_t)(clock_monotonic_ns() - s->start_ns);
	errno = saved_errno;
	if (ret)
		return ret;
	if (count_snapshot_decode(s->start, s->set.snapshot_words, s->group_of, nev, s->c0) ||
	    count_snapshot_decode(s->now, s->set.snapshot_words, s->group_of, nev, s->c1))
		return -EIO;
	for (size_t i = 0; i < nev && i < (size_t)n; i++) {
		struct count d = count_delta(&s->c0[i], &s->c1[i]);
		uint64_t v;

		if (s->status[i] || count_scale(&d, &v) < 0)
			values[i] = PSC_NOT_COUNTED;
		else
			values[i] = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	}
	return (int)nev;
}

PSC_EXPORT int psc_counters_count(const struct psc_counters *s)
{
	return s ? (int)s->set.nev : 0;
}

PSC_EXPORT const char *psc_counters_name(const struct psc_counters *s, int i)
{
	if (!s || i < 0 || (size_t)i >= s->set.nev)
		return NULL;
	return s->set.ev[i].desc.name;
}

PSC_EXPORT const char *psc_counters_error(const struct psc_counters *s, int i)
{
	if (!s || i < 0 || (size_t)i >= s->set.nev || !s->status[i])
		return NULL;
	return s->reason[i];
}

PSC_EXPORT int psc_counters_stop(struct psc_counters *s)
{
	int saved_errno = errno;

	if (!s)
		return -EINVAL;
	counters_free(s);
	errno = saved_errno;
	return 0;
}
