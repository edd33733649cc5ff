/*
 * perf-state.c - the state of the perf subsystem (perf_event_paranoid, capabilities, PMUs) from
 * the procfs and sysfs roots the caller passes, and which roots to use. Runs inside the
 * measured process: no printing, no exit, no heap except opendir's.
 */
#include "cpuinfo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuinfo-int.h"
#include "env.h"

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

/* Fill pmus with the names in sorted order: one selection pass per name (a few dozen PMUs at
 * most), so no name storage is needed and truncation keeps the first names. */
static void pmus_sorted(struct perf_state *ps, DIR *dir)
{
	char last[256] = "", best[256];
	size_t used = 0;

	for (;;) {
		struct dirent *de;
		size_t n;

		best[0] = '\0';
		rewinddir(dir);
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.' || (used && strcmp(de->d_name, last) <= 0))
				continue;
			if (!best[0] || strcmp(de->d_name, best) < 0)
				ci_copy_str(best, sizeof(best), de->d_name);
		}
		n = strlen(best);
		if (!n || used + n + 2 > sizeof(ps->pmus))
			break;
		if (used)
			ps->pmus[used++] = ',';
		memcpy(ps->pmus + used, best, n + 1);
		used += n;
		memcpy(last, best, n + 1);
	}
}

static void pmus_scan(struct perf_state *ps, const char *sysfs_root)
{
	static const char devs[] = "bus/event_source/devices";
	char path[CI_PATH_LEN], buf[32], cpus_pmu[32] = "";
	struct dirent *de;
	DIR *dir;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", sysfs_root, devs);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		int type;

		if (name[0] == '.')
			continue;
		ps->npmus++;
		if (strlen(name) >= sizeof(ps->core_pmu))
			continue;
		if (!ci_read_int_rel(&type, sysfs_root, "bus/event_source/devices/%s/type", name) &&
		    type == PERF_TYPE_RAW_ID) {
			ci_copy_str(ps->core_pmu, sizeof(ps->core_pmu), name);
			continue;
		}
		/* arm core PMUs get dynamic types; like perf, recognise them by a `cpus` file */
		if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s/%s/cpus", devs, name) >= 0 &&
		    (!cpus_pmu[0] || strcmp(name, cpus_pmu) < 0))
			ci_copy_str(cpus_pmu, sizeof(cpus_pmu), name);
	}
	if (!ps->core_pmu[0] && cpus_pmu[0])
		ci_copy_str(ps->core_pmu, sizeof(ps->core_pmu), cpus_pmu);
	if (ps->core_pmu[0]) {
		int rdpmc;

		ps->have_core_pmu = 1;
		if (!ci_read_int_rel(&rdpmc, sysfs_root, "%s/%s/rdpmc", devs, ps->core_pmu))
			ps->rdpmc = rdpmc;
	}
	pmus_sorted(ps, dir);
	closedir(dir);
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
