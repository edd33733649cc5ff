/*
 * cpuinfo.h - CPU identification (cpuid, caches, TSC invariance) and the state of the perf
 * subsystem (perf_event_paranoid, capabilities, PMUs). Reads only the procfs and sysfs roots
 * it is given, so tests can substitute fake trees; safe to call inside the measured process
 * (no printing, no allocation except opendir's in perf_state_read, a few KiB of stack).
 */
#ifndef PSC_CPUINFO_H
#define PSC_CPUINFO_H

#include <stddef.h>
#include <stdint.h>

#define CPU_MAX_CACHES 8

enum cache_type { CACHE_DATA = 1, CACHE_INSTRUCTION = 2, CACHE_UNIFIED = 3 };

struct cache_level {
	int level;
	enum cache_type type;
	uint64_t size;	    /* bytes */
	unsigned line_size; /* bytes; 0 if unknown */
	unsigned ways;	    /* 0 if unknown */
	unsigned sets;	    /* 0 if unknown */
	/* logical CPUs sharing it (from cpuid: the most the package allows); 0 if unknown */
	unsigned shared_by;
};

struct cpu_info {
	char arch[16]; /* "x86_64", "aarch64" */
	/* "GenuineIntel", "AuthenticAMD"; on arm the maker named by the MIDR implementer code
	 * that /proc/cpuinfo shows as "CPU implementer" ("ARM", "Ampere", ... or "0x..") */
	char vendor[16];
	/* x86: display family/model (extended fields folded in); arm: architecture/part/rev */
	unsigned family, model, stepping;
	char brand[64];		       /* brand string, trimmed; "" if unknown */
	int hypervisor;		       /* cpuid leaf 1 ecx bit 31 */
	int flags_known;	       /* the kernel's flags line was read from PROCFS/cpuinfo */
	int constant_tsc, nonstop_tsc; /* from the kernel's flags in PROCFS/cpuinfo */
	int tsc_invariant;	       /* cpuid 0x80000007 edx bit 8 */
	int ncpus;		       /* online CPUs */
	/* SYSFS/devices/system/clocksource/clocksource0/current_clocksource, "" if unknown */
	char clocksource[32];
	struct cache_level caches[CPU_MAX_CACHES]; /* sorted by level, data before instruction */
	int ncaches;
	const char *cache_source; /* "cpuid leaf 4", "cpuid leaf 0x8000001d", "sysfs", "none" */
};

/*
 * Identify the CPU: cpuid on x86 (vendor, family/model/stepping, brand, hypervisor bit,
 * invariant TSC, caches from leaf 4 on Intel or 0x8000001d on AMD), kernel flags, online CPUs
 * and clocksource from the given roots; caches from sysfs when cpuid gives none (or on
 * non-x86). Missing files leave fields unknown. Returns 0, or -EINVAL for NULL arguments.
 */
int cpu_info_read(struct cpu_info *ci, const char *procfs_root, const char *sysfs_root);

/*
 * Fill vendor, family/model/stepping, brand and the TSC flags from PROCFS/cpuinfo (first
 * processor; x86 keys, or "CPU implementer"/"CPU part"/... on arm). Returns 0 or -errno.
 */
int cpu_info_from_procfs(struct cpu_info *ci, const char *procfs_root);

/*
 * Caches from SYSFS/devices/system/cpu/cpu0/cache/index<N>/{level,type,size,...}; replaces
 * ci->caches and sets cache_source to "sysfs". Returns 0, or -ENOENT when none were found.
 */
int cpu_caches_from_sysfs(struct cpu_info *ci, const char *sysfs_root);

/*
 * True when the TSC can be used as the clock: kernel flags constant_tsc and nonstop_tsc both
 * set (falls back to the cpuid invariant bit when the flags could not be read).
 */
int cpu_info_tsc_usable(const struct cpu_info *ci);

/* Decode cpuid leaf 1 EAX into display family/model/stepping as ci->vendor's maker defines
 * them (extended model folded in for Intel family 6/15, for AMD/Hygon family 15 only). */
void cpu_info_decode_signature(struct cpu_info *ci, uint32_t eax);

/* Decode one subleaf of cpuid leaf 4 (or AMD 0x8000001d, same layout) into CL. Returns 0,
 * -ENOENT for the null type that ends the list, -EINVAL for a type that is not a cache. */
int cpu_cache_decode(struct cache_level *cl, uint32_t eax, uint32_t ebx, uint32_t ecx);

#define PERF_PARANOID_UNKNOWN (-1000)

struct perf_state {
	int paranoid;	     /* PROCFS/sys/kernel/perf_event_paranoid; PERF_PARANOID_UNKNOWN if
				unreadable (then the kernel has no perf_event_open) */
	int max_sample_rate; /* PROCFS/sys/kernel/perf_event_max_sample_rate, -1 if unknown */
	int privileged;	     /* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in CapEff of
				PROCFS/self/status; euid 0 when that is unreadable */
	int have_core_pmu;   /* a PMU whose `type` is 4 (PERF_TYPE_RAW), else one with a `cpus`
				file (arm core PMUs have dynamic types) */
	char core_pmu[32];   /* its name, "" if none */
	int rdpmc;	     /* SYSFS/bus/event_source/devices/<core_pmu>/rdpmc; -1 if no file */
	int npmus;	     /* number of PMUs present (may exceed the names that fit in pmus) */
	char pmus[512];	     /* comma-separated names of the PMUs present, sorted */
};

/*
 * Read the perf subsystem state from the given roots. Missing files leave fields unknown.
 * Returns 0, or -EINVAL for NULL arguments.
 */
int perf_state_read(struct perf_state *ps, const char *procfs_root, const char *sysfs_root);

enum perf_need {
	PERF_NEED_USER = 2,   /* own process, user space: allowed at paranoid <= 2 */
	PERF_NEED_KERNEL = 1, /* own process, kernel counted too: paranoid <= 1 */
	PERF_NEED_CPU = 0,    /* system-wide, per CPU: paranoid <= 0 */
};

/*
 * One line telling how to allow what perf_event_paranoid forbids for NEED, e.g. "run as
 * root, grant CAP_PERFMON, or: sysctl -w kernel.perf_event_paranoid=1". Returns NULL when
 * allowed. Never allocates: returns a static string, or BUF (when BUF and LEN are non-zero).
 */
const char *perf_state_fix(const struct perf_state *ps, int need, char *buf, size_t len);

/* Which roots to use: PSC_ENV_PROCFS_ROOT / PSC_ENV_SYSFS_ROOT from the environment, else
 * "/proc" and "/sys". */
void psc_machine_roots(const char **procfs_root, const char **sysfs_root);

#endif /* PSC_CPUINFO_H */
