/* otf2-metrics.c - the counters read at region boundaries as OTF2 metrics: a metric member
 * per counted event name, a metric class per set of members a thread counted, and a Metric
 * event with every member's value (scaled when multiplexed) just before each region Enter and
 * Leave that carries a counter snapshot. */
#include "export/otf2-int.h"

#include "format/stream.h"
#include "pmu/counts.h"
#include "format/format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEMBERS 255 /* a metric class holds at most this many (uint8_t) */

void ox_metrics_release(struct ox_metrics *mt)
{
	free(mt->group_of);
	free(mt->counts);
	free(mt->event);
	free(mt->types);
	free(mt->values);
	memset(mt, 0, sizeof(*mt));
}

/* The metric member of event NAME, defined on first use; UINT32_MAX when out of memory. */
static uint32_t member_of(struct xp *x, const char *name)
{
	uint32_t sid = ox_string_id(x, name);

	for (size_t i = 0; i < x->nmembers; i++)
		if (x->members[i] == sid)
			return (uint32_t)i;
	if (sid == UINT32_MAX || ARRAY_GROW(x->members, x->nmembers + 1, x->members_cap))
		return UINT32_MAX;
	x->members[x->nmembers] = sid;
	return (uint32_t)x->nmembers++;
}

/* The class of the N members M, an existing one when one has the same members. */
static uint32_t class_of(struct xp *x, const uint32_t *m, size_t n)
{
	for (size_t c = 0; c < x->nclasses; c++)
		if (x->classes[c].n == n && !memcmp(x->classes[c].members, m, n * sizeof(*m)))
			return (uint32_t)c;
	if (ARRAY_GROW(x->classes, x->nclasses + 1, x->classes_cap))
		return UINT32_MAX;
	x->classes[x->nclasses].n = (uint8_t)n;
	memcpy(x->classes[x->nclasses].members, m, n * sizeof(*m));
	return (uint32_t)x->nclasses++;
}

/* The counters record of S's stream: which events were counted, in which group. 0 (mt->state
 * 1, or -1 when the thread counted nothing) or -ENOMEM. */
static int layout(struct xp *x, struct ox_metrics *mt, const struct exp_stream *s)
{
	const struct exp_process *proc = s->proc;
	uint32_t members[MAX_MEMBERS];
	int32_t *status;
	size_t n = 0;

	mt->state = -1;
	if (!proc || proc->nevents == 0)
		return 0;
	mt->nev = proc->nevents;
	mt->group_of = calloc(mt->nev, sizeof(*mt->group_of));
	mt->counts = calloc(mt->nev, sizeof(*mt->counts));
	mt->event = calloc(mt->nev, sizeof(*mt->event));
	mt->types = calloc(mt->nev, sizeof(*mt->types));
	mt->values = calloc(mt->nev, sizeof(*mt->values));
	status = calloc(mt->nev, sizeof(*status));
	if (!mt->group_of || !mt->counts || !mt->event || !mt->types || !mt->values || !status) {
		free(status);
		return -ENOMEM;
	}
	if (!stream_counters_layout(s->path, (uint32_t)mt->nev, mt->group_of, status)) {
		free(status);
		return 0;
	}
	for (size_t i = 0; i < mt->nev; i++) {
		/* counted: in a group and opened without error */
		if (mt->group_of[i] == PSC_NO_GROUP || status[i] != 0 || n == MAX_MEMBERS)
			continue;
		members[n] = member_of(x, proc->events[i]);
		if (members[n] == UINT32_MAX) {
			free(status);
			return -ENOMEM;
		}
		mt->event[n] = (uint32_t)i;
		mt->types[n] = OTF2_TYPE_UINT64;
		n++;
	}
	free(status);
	if (n == 0)
		return 0;
	mt->n = (uint8_t)n;
	mt->cls = class_of(x, members, n);
	if (mt->cls == UINT32_MAX)
		return -ENOMEM;
	mt->state = 1;
	return 0;
}

int ox_metrics_event(struct xp *x, struct ox_metrics *mt, const struct exp_stream *s,
		     OTF2_EvtWriter *w, uint64_t ts, const uint64_t *snapshot, size_t nsnapshot)
{
	uint64_t v;

	if (nsnapshot == 0)
		return 0;
	if (mt->state == 0 && layout(x, mt, s) < 0)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (mt->state < 0 ||
	    count_snapshot_decode(snapshot, nsnapshot, mt->group_of, mt->nev, mt->counts))
		return 0;
	for (uint8_t k = 0; k < mt->n; k++) {
		/* a counter that never ran has no value: no metric event at this boundary */
		if (count_scale(&mt->counts[mt->event[k]], &v) < 0) {
			x->stats->metrics_skipped++;
			return 0;
		}
		mt->values[k].unsigned_int = v;
	}
	x->stats->metric_values += mt->n;
	return ox_check(x,
			OTF2_EvtWriter_Metric(w, NULL, ts, mt->cls, mt->n, mt->types, mt->values),
			"writing a metric");
}

int ox_write_metric_definitions(struct xp *x, OTF2_GlobalDefWriter *gw)
{
	OTF2_ErrorCode code = OTF2_SUCCESS;
	uint32_t refs[MAX_MEMBERS];

	for (size_t i = 0; i < x->nmembers && code == OTF2_SUCCESS; i++)
		code = OTF2_GlobalDefWriter_WriteMetricMember(
		    gw, (OTF2_MetricMemberRef)i, x->members[i], ox_string_id(x, ""),
		    OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
		    OTF2_BASE_DECIMAL, 0, ox_string_id(x, "#"));
	for (size_t c = 0; c < x->nclasses && code == OTF2_SUCCESS; c++) {
		for (uint8_t k = 0; k < x->classes[c].n; k++)
			refs[k] = x->classes[c].members[k];
		code = OTF2_GlobalDefWriter_WriteMetricClass(gw, (OTF2_MetricRef)c, x->classes[c].n,
							     refs, OTF2_METRIC_SYNCHRONOUS,
							     OTF2_RECORDER_KIND_CPU);
	}
	return ox_check(x, code, "writing the metrics");
}
