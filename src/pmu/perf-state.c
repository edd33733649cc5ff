/*
 * perf-state.c - the state of the perf subsystem (perf_event_paranoid, capabilities, PMUs) from
 * the procfs and sysfs roots the caller passes, and which roots to use. Runs inside the
 * measured process: no printing, no exit, no heap.
 */
#include "pmu/cpuinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu/cpuinfo-int.h"
#include "lib/direach.h"
#include "format/env.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38
#define PERF_TYPE_RAW_ID  4

/* how to lift perf_event_paranoid; the needed value follows */
#define FIX_HOW "run as root, grant CAP_PERFMON, or: sysctl -w kernel.perf_event_paranoid="

/* 1 when CapEff in PROCFS/self/status has CAP_PERFMON or CAP_SYS_ADMIN, 0 when not, -errno
 * when it could not be read. */
static int caps_privileged(const char *procfs_root)
{
	struct ci_line_reader lr = {.fd = -1};
	int ret = -ENODATA;
	char *line;

	lr.fd = ci_open_rel(procfs_root, "self/status");
	if (lr.fd < 0)
		return lr.fd;
	while ((line = ci_line_next(&lr))) {
		unsigned long long caps;
		char *key, *val, *end;

		key = ci_kv_split(line, &val);
		if (!key || strcmp(key, "CapEff"))
			continue;
		errno = 0;
		caps = strtoull(val, &end, 16);
		if (end == val || errno || *end) {
			ret = -EINVAL;
			break;
		}
		ret = !!(caps & ((1ULL << CAP_PERFMON_BIT) | (1ULL << CAP_SYS_ADMIN_BIT)));
		break;
	}
	close(lr.fd);
	return ret;
}

/* One selection pass over the PMU names: the least name after LAST. */
struct pmu_pass {
	const char *last;
	char best[256];
};

static int pmu_least_cb(const char *name, void *arg)
{
	struct pmu_pass *p = arg;

	if (name[0] == '.' || (p->last[0] && strcmp(name, p->last) <= 0))
		return 0;
	if (!p->best[0] || strcmp(name, p->best) < 0)
		ci_copy_str(p->best, sizeof(p->best), name);
	return 0;
}

/* Fill pmus with the names in sorted order: one selection pass per name (a few dozen PMUs at
 * most), so no name storage is needed and truncation keeps the first names. */
static void pmus_sorted(struct perf_state *ps, const char *path)
{
	char last[256] = "";
	size_t used = 0;

	for (;;) {
		struct pmu_pass p = {.last = last};
		size_t n;

		if (dir_each(path, pmu_least_cb, &p) < 0)
			break;
		n = strlen(p.best);
		if (!n || used + n + 2 > sizeof(ps->pmus))
			break;
		if (used)
			ps->pmus[used++] = ',';
		memcpy(ps->pmus + used, p.best, n + 1);
		used += n;
		memcpy(last, p.best, n + 1);
	}
}

static const char pmu_devs[] = "bus/event_source/devices";

struct pmu_scan {
	struct perf_state *ps;
	const char *sysfs_root;
	char cpus_pmu[32];
};

static int pmu_seen_cb(const char *name, void *arg)
{
	struct pmu_scan *s = arg;
	char buf[32];
	int type;

	if (name[0] == '.')
		return 0;
	s->ps->npmus++;
	if (strlen(name) >= sizeof(s->ps->core_pmu))
		return 0;
	if (!ci_read_int_rel(&type, s->sysfs_root, "%s/%s/type", pmu_devs, name) &&
	    type == PERF_TYPE_RAW_ID) {
		ci_copy_str(s->ps->core_pmu, sizeof(s->ps->core_pmu), name);
		return 0;
	}
	/* arm core PMUs get dynamic types; like perf, recognise them by a `cpus` file */
	if (ci_read_rel(buf, sizeof(buf), s->sysfs_root, "%s/%s/cpus", pmu_devs, name) >= 0 &&
	    (!s->cpus_pmu[0] || strcmp(name, s->cpus_pmu) < 0))
		ci_copy_str(s->cpus_pmu, sizeof(s->cpus_pmu), name);
	return 0;
}

static void pmus_scan(struct perf_state *ps, const char *sysfs_root)
{
	struct pmu_scan s = {.ps = ps, .sysfs_root = sysfs_root};
	char path[CI_PATH_LEN];
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", sysfs_root, pmu_devs);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	if (dir_each(path, pmu_seen_cb, &s) < 0)
		return;
	if (!ps->core_pmu[0] && s.cpus_pmu[0])
		ci_copy_str(ps->core_pmu, sizeof(ps->core_pmu), s.cpus_pmu);
	if (ps->core_pmu[0]) {
		int rdpmc;

		ps->have_core_pmu = 1;
		if (!ci_read_int_rel(&rdpmc, sysfs_root, "%s/%s/rdpmc", pmu_devs, ps->core_pmu))
			ps->rdpmc = rdpmc;
	}
	pmus_sorted(ps, path);
}

int perf_state_read(struct perf_state *ps, const char *procfs_root, const char *sysfs_root)
{
	int saved_errno = errno;
	int ret;

	if (!ps || !procfs_root || !sysfs_root)
		return -EINVAL;
	memset(ps, 0, sizeof(*ps));
	ps->rdpmc = -1;
	if (ci_read_int_rel(&ps->paranoid, procfs_root, "sys/kernel/perf_event_paranoid"))
		ps->paranoid = PERF_PARANOID_UNKNOWN;
	if (ci_read_int_rel(&ps->max_sample_rate, procfs_root,
			    "sys/kernel/perf_event_max_sample_rate"))
		ps->max_sample_rate = -1;
	ret = caps_privileged(procfs_root);
	ps->privileged = ret >= 0 ? ret : geteuid() == 0;
	pmus_scan(ps, sysfs_root);
	errno = saved_errno;
	return 0;
}

const char *perf_state_fix(const struct perf_state *ps, int need, char *buf, size_t len)
{
	static const char *const fixed[] = {
	    [PERF_NEED_CPU] = "system-wide measurement needs paranoid <= 0: " FIX_HOW "0",
	    [PERF_NEED_KERNEL] = "counting kernel code needs paranoid <= 1: " FIX_HOW "1",
	    [PERF_NEED_USER] = "counting this process needs paranoid <= 2: " FIX_HOW "2",
	};
	static const char *const what[] = {
	    [PERF_NEED_CPU] = "system-wide measurement",
	    [PERF_NEED_KERNEL] = "counting kernel code",
	    [PERF_NEED_USER] = "counting this process",
	};
	int n;

	if (!ps)
		return "perf state unknown";
	if (need < PERF_NEED_CPU || need > PERF_NEED_USER)
		return "unknown perf need (internal error)";
	if (ps->paranoid == PERF_PARANOID_UNKNOWN)
		return "perf_event_open is not available: no /proc/sys/kernel/perf_event_paranoid "
		       "(kernel built without CONFIG_PERF_EVENTS?)";
	if (ps->privileged || ps->paranoid <= need)
		return NULL;
	if (!buf || !len)
		return fixed[need];
	n = snprintf(buf, len, "kernel.perf_event_paranoid is %d, %s needs <= %d: " FIX_HOW "%d",
		     ps->paranoid, what[need], need, need);
	if (n < 0 || (size_t)n >= len)
		return fixed[need];
	return buf;
}

void psc_machine_roots(const char **procfs_root, const char **sysfs_root)
{
	const char *p = secure_getenv(PSC_ENV_PROCFS_ROOT);
	const char *s = secure_getenv(PSC_ENV_SYSFS_ROOT);

	if (procfs_root)
		*procfs_root = p && *p ? p : "/proc";
	if (sysfs_root)
		*sysfs_root = s && *s ? s : "/sys";
}
