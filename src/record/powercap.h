/*
 * powercap.h - the energy counters `perfscope record --power` reads: RAPL zones of the
 * powercap tree (/sys/class/powercap/intel-rapl:*, Intel and AMD alike) and the events of the
 * perf power PMU (/sys/bus/event_source/devices/power: energy-pkg, energy-cores, ...).
 *
 * Discovery opens every counter once; a reading is then one pread (RAPL) or read (perf) per
 * counter. The roots are parameters so that tests read fake trees. Nothing here prints:
 * errors are negative errno values with one line (cause and fix) in the caller's buffer.
 */
#ifndef PSC_POWERCAP_H
#define PSC_POWERCAP_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/counters.h"

#define POWERCAP_DEFAULT_ROOT "/sys/class/powercap"
#define POWER_NAME_MAX	      64

enum power_source_kind {
	POWER_SOURCE_RAPL = 1, /* powercap zones: energy_uj files */
	POWER_SOURCE_PERF = 2, /* perf power PMU events, system-wide on one CPU per package */
};

/* One energy counter, described as a power log's "# column" line (docs/format.md). */
struct power_counter {
	char name[POWER_NAME_MAX]; /* "package-0", "package-0/core", "psys", "energy-pkg" */
	char unit[16];		   /* raw unit: "uJ", or the perf event's .unit ("Joules") */
	double scale;		   /* raw value -> joules */
	uint64_t wrap; /* value at which it wraps to 0 (max_energy_range_uj); 0: never */
	int fd;
	int cpu;	 /* perf: the CPU the event was opened on */
	uint32_t type;	 /* perf: the PMU's type */
	uint64_t config; /* perf: the event's encoding */
};

struct power_source {
	enum power_source_kind kind;
	struct power_counter *c;
	size_t n;
	const struct counter_sys *sys; /* perf: opens and closes the events */
	char skipped[512];	       /* counters left out, "NAME (why), ...", or "" */
};

/*
 * Open the RAPL zones under ROOT (a powercap class directory): every "intel-rapl:N" and
 * "intel-rapl:N:M" entry with an energy_uj file ("intel-rapl-mmio:*" only when there is no
 * other: it duplicates package zones), in id order. Zones are named by their `name` file,
 * sub-zones "PARENT/NAME" ("package-0/core"); WRAP is max_energy_range_uj. A zone whose
 * energy_uj cannot be read for another reason than permission is left out (see skipped).
 * 0; -ENOENT when there is no zone, -EACCES when energy_uj is root-only, with the fix in ERR.
 */
int powercap_open(struct power_source *src, const char *root, char *err, size_t errlen);

/*
 * Open the energy-* events of the perf power PMU under SYSFS_ROOT (bus/event_source/devices/
 * power: type, cpumask, events/energy-*{,.scale,.unit}) through SYS (NULL: the real system
 * calls), system-wide (pid -1) on each CPU of cpumask (one per package). Names are the
 * events' ("energy-pkg"), "energy-pkg@cpuN" when cpumask lists several CPUs. An event that
 * does not open (other than for permission) is left out. 0; -ENOENT without the PMU,
 * -EACCES when perf_event_paranoid forbids it (the fix, read under PROCFS_ROOT, in ERR), or
 * the first open error when no event opened.
 */
int power_pmu_open(struct power_source *src, const char *sysfs_root, const char *procfs_root,
		   const struct counter_sys *sys, char *err, size_t errlen);

/*
 * The perf encoding of event text SPEC ("event=0x02", "event=0x1,umask=0x3") of the PMU at
 * PMU_DIR: each term's value placed at the bits its PMU_DIR/format/<term> file gives
 * ("config:0-7"); "event" without a format file is config:0-7. 0 or -EINVAL.
 */
int power_pmu_event_config(const char *pmu_dir, const char *spec, uint64_t *config);

/* Read every counter's raw value into VALUES (SRC->n of them). 0, or a negative errno. */
int power_source_read(struct power_source *src, uint64_t *values);

/* "rapl" or "perf": the log's name suffix and `# source`. */
const char *power_source_name(const struct power_source *src);

/* Close every counter and free SRC's memory. */
void power_source_close(struct power_source *src);

#endif /* PSC_POWERCAP_H */
