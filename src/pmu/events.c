/* events.c - event resolution, suggestions and enumeration through libpfm4. */
#include "pmu/events.h"
#include "lib/array.h"
#include "lib/mem.h"
#include "lib/strdist.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

/* perf's generic names, listed and suggested even where libpfm4 has other spellings. */
static const struct event_info generic_events[] = {
    {"cycles", "CPU cycles", "", EVENT_CAT_HARDWARE},
    {"instructions", "instructions retired", "", EVENT_CAT_HARDWARE},
    {"cache-references", "last-level cache accesses", "", EVENT_CAT_HARDWARE},
    {"cache-misses", "last-level cache misses", "", EVENT_CAT_HARDWARE},
    {"branches", "branch instructions retired", "", EVENT_CAT_HARDWARE},
    {"branch-misses", "mispredicted branches", "", EVENT_CAT_HARDWARE},
    {"bus-cycles", "bus cycles", "", EVENT_CAT_HARDWARE},
    {"ref-cycles", "reference cycles (not scaled by frequency)", "", EVENT_CAT_HARDWARE},
    {"stalled-cycles-frontend", "cycles stalled in the front end", "", EVENT_CAT_HARDWARE},
    {"stalled-cycles-backend", "cycles stalled in the back end", "", EVENT_CAT_HARDWARE},
    {"L1-dcache-loads", "L1 data cache loads", "", EVENT_CAT_CACHE},
    {"L1-dcache-load-misses", "L1 data cache load misses", "", EVENT_CAT_CACHE},
    {"L1-dcache-stores", "L1 data cache stores", "", EVENT_CAT_CACHE},
    {"L1-dcache-store-misses", "L1 data cache store misses", "", EVENT_CAT_CACHE},
    {"L1-icache-loads", "L1 instruction cache loads", "", EVENT_CAT_CACHE},
    {"L1-icache-load-misses", "L1 instruction cache misses", "", EVENT_CAT_CACHE},
    {"LLC-loads", "last-level cache loads", "", EVENT_CAT_CACHE},
    {"LLC-load-misses", "last-level cache load misses", "", EVENT_CAT_CACHE},
    {"LLC-stores", "last-level cache stores", "", EVENT_CAT_CACHE},
    {"LLC-store-misses", "last-level cache store misses", "", EVENT_CAT_CACHE},
    {"dTLB-loads", "data TLB loads", "", EVENT_CAT_CACHE},
    {"dTLB-load-misses", "data TLB load misses", "", EVENT_CAT_CACHE},
    {"dTLB-stores", "data TLB stores", "", EVENT_CAT_CACHE},
    {"dTLB-store-misses", "data TLB store misses", "", EVENT_CAT_CACHE},
    {"iTLB-loads", "instruction TLB loads", "", EVENT_CAT_CACHE},
    {"iTLB-load-misses", "instruction TLB misses", "", EVENT_CAT_CACHE},
    {"branch-loads", "branch predictor lookups", "", EVENT_CAT_CACHE},
    {"branch-load-misses", "branch predictor misses", "", EVENT_CAT_CACHE},
    {"cpu-clock", "CPU clock (timer-based)", "", EVENT_CAT_SOFTWARE},
    {"task-clock", "time the task ran on a CPU, ns", "", EVENT_CAT_SOFTWARE},
    {"page-faults", "page faults", "", EVENT_CAT_SOFTWARE},
    {"minor-faults", "page faults served without I/O", "", EVENT_CAT_SOFTWARE},
    {"major-faults", "page faults that needed I/O", "", EVENT_CAT_SOFTWARE},
    {"context-switches", "context switches", "", EVENT_CAT_SOFTWARE},
    {"cpu-migrations", "moves to another CPU", "", EVENT_CAT_SOFTWARE},
};

/* Names libpfm4 does not spell like perf, with the kernel's encodings (stable ABI). */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} builtin_events[] = {
    {"alignment-faults", 1 /* PERF_TYPE_SOFTWARE */, 7 /* PERF_COUNT_SW_ALIGNMENT_FAULTS */},
    {"emulation-faults", 1, 8 /* PERF_COUNT_SW_EMULATION_FAULTS */},
};

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_start(void)
{
	pfm_status = pfm_initialize();
}

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_start);
	return pfm_status == PFM_SUCCESS ? 0 : -EIO;
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, EVENT_NAME_MAX, "%s", src);
}

int event_resolve(const char *name, struct event_desc *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	memset(ev, 0, sizeof(*ev));
	copy_name(ev->name, name);
	for (size_t i = 0; i < sizeof(builtin_events) / sizeof(builtin_events[0]); i++) {
		if (!strcmp(name, builtin_events[i].name)) {
			copy_name(ev->canonical, name);
			ev->type = builtin_events[i].type;
			ev->config = builtin_events[i].config;
			return 0;
		}
	}
	if (!*name || strchr(name, ','))
		return -EINVAL;
	ret = pfm_ready();
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		free(fstr);
		return ret == PFM_ERR_NOTFOUND ? -ENOENT : -EINVAL;
	}
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->exclude_hv = attr.exclude_hv;
	ev->precise_ip = attr.precise_ip;
	copy_name(ev->canonical, fstr ? fstr : name);
	free(fstr);
	return 0;
}

int event_is_hardware(const struct event_desc *ev)
{
	/* software 1, tracepoint 2, breakpoint 5; dynamic PMU types are hardware (uncore...) */
	return ev->type != 1 && ev->type != 2 && ev->type != 5;
}

int event_list_resolve(const char *list, struct event_desc **evs, size_t *n, char *bad,
		       size_t badlen)
{
	struct event_desc *out = NULL;
	size_t count = 0, cap = 0;
	const char *p = list;
	int ret = 0;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[EVENT_NAME_MAX];
		struct event_desc ev;
		int dup = 0;

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0 || len >= sizeof(name)) {
			snprintf(bad, badlen, "%.*s", (int)(len < 64 ? len : 64), p);
			ret = -EINVAL;
			break;
		}
		memcpy(name, p, len);
		name[len] = 0;
		ret = event_resolve(name, &ev);
		if (ret) {
			snprintf(bad, badlen, "%s", name);
			break;
		}
		for (size_t i = 0; i < count; i++)
			dup |= !strcmp(out[i].name, ev.name);
		if (!dup) {
			if (ARRAY_GROW(out, count + 1, cap)) {
				ret = -ENOMEM;
				break;
			}
			out[count++] = ev;
		}
		if (!end)
			break;
		p = end + 1;
		if (!*p) {
			snprintf(bad, badlen, "%s", "(empty name after ',')");
			ret = -EINVAL;
			break;
		}
	}
	if (ret == 0 && count == 0) {
		snprintf(bad, badlen, "%s", "(empty list)");
		ret = -EINVAL;
	}
	if (ret) {
		psc_mem_free(out);
		return ret;
	}
	*evs = out;
	*n = count;
	return 0;
}

struct suggest_ctx {
	const char *typed;
	char (*out)[EVENT_NAME_MAX];
	size_t *score;
	size_t max, n;
};

static void suggest_add(struct suggest_ctx *s, const char *name)
{
	size_t score, pos;

	if (!strdist_close(s->typed, name, &score))
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->out[i], name))
			return;
	for (pos = s->n; pos > 0 && s->score[pos - 1] > score; pos--)
		;
	if (pos >= s->max)
		return;
	if (s->n < s->max)
		s->n++;
	memmove(s->out + pos + 1, s->out + pos, (s->n - 1 - pos) * sizeof(*s->out));
	memmove(s->score + pos + 1, s->score + pos, (s->n - 1 - pos) * sizeof(*s->score));
	copy_name(s->out[pos], name);
	s->score[pos] = score;
}

static int suggest_one(void *ctx, const struct event_info *info)
{
	struct suggest_ctx *s = ctx;

	suggest_add(s, info->name);
	/* a bare typed name is also compared with the bare part of qualified names */
	if (*info->pmu && !strchr(s->typed, ':'))
		suggest_add(s, info->name + strlen(info->pmu) + 2);
	return 0;
}

size_t event_suggest(const char *name, char (*out)[EVENT_NAME_MAX], size_t max)
{
	size_t score[16];
	struct suggest_ctx s = {name, out, score, max < 16 ? max : 16, 0};

	event_foreach(suggest_one, &s);
	return s.n;
}

int event_foreach(int (*fn)(void *ctx, const struct event_info *info), void *ctx)
{
	int ret, pmu;

	for (size_t i = 0; i < sizeof(generic_events) / sizeof(generic_events[0]); i++) {
		ret = fn(ctx, &generic_events[i]);
		if (ret)
			return ret;
	}
	if (pfm_ready())
		return 0;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* perf's generic events are listed above under their perf names */
		if (!strcmp(pinfo.name, "perf") || !strcmp(pinfo.name, "perf_raw"))
			continue;
		for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t einfo;
			char full[EVENT_NAME_MAX];
			struct event_info info;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name);
			info.name = full;
			info.desc = einfo.desc ? einfo.desc : "";
			info.pmu = pinfo.name;
			info.category = EVENT_CAT_NATIVE;
			ret = fn(ctx, &info);
			if (ret)
				return ret;
		}
	}
	return 0;
}

const char *event_library_version(char *buf, size_t len)
{
	int v = pfm_get_version();

	snprintf(buf, len, "%d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
	return buf;
}
