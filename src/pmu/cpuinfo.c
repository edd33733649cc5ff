/*
 * cpuinfo.c - CPU identification (vendor, model, caches, TSC) from cpuid and from the procfs
 * and sysfs roots the caller passes; the perf subsystem's state is in perf-state.c. Runs inside
 * the measured process: no printing, no exit, no heap, stack use bounded by one 4 KiB line
 * buffer.
 */
#include "pmu/cpuinfo.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CPUINFO_X86 1
#endif

#include "lib/compiler.h"
#include "pmu/cpuinfo-int.h"

/* ---- parsing the files' values ---- */

/* Decimal, or hexadecimal with a 0x prefix (never octal). */
static int parse_uint(const char *s, unsigned *out)
{
	int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, base);
	if (end == s || errno || v > UINT_MAX || *ci_skip_space(end))
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* Number of CPUs in a cpulist such as "0-27,56-83"; -EINVAL if malformed. */
static int cpulist_count(const char *s)
{
	long n = 0;

	s = ci_skip_space((char *)s);
	while (*s) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		a = b = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b - a >= (1UL << 20))
			return -EINVAL;
		n += (long)(b - a + 1);
		if (n > (1L << 24))
			return -EINVAL;
		if (*s == ',')
			s++;
		else if (*ci_skip_space((char *)s))
			return -EINVAL;
		else
			break;
	}
	return (int)n;
}

/* Sizes as sysfs prints them: "32K", "1024K", "16M"; a bare number is bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMG";
	unsigned long long v;
	unsigned shift = 0;
	const char *u;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (unsigned)(u - units + 1);
		end++;
	}
	if (*ci_skip_space(end) || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* True when the space-separated list LIST contains WORD. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		int start_ok = p == list || isspace((unsigned char)p[-1]);
		int end_ok = p[n] == '\0' || isspace((unsigned char)p[n]);

		if (start_ok && end_ok)
			return 1;
		p += n;
	}
	return 0;
}

/* ---- identification from procfs ---- */

static const char *arm_implementer_name(unsigned id)
{
	static const struct {
		unsigned id;
		const char *name;
	} names[] = {
	    {0x41, "ARM"},	 {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
	    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
	    {0x53, "Samsung"},	 {0x61, "Apple"},    {0x69, "Intel"},  {0x6d, "Microsoft"},
	    {0xc0, "Ampere"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].id == id)
			return names[i].name;
	return NULL;
}

static void procfs_field(struct cpu_info *ci, const char *key, const char *val)
{
	unsigned u;

	if (!strcmp(key, "vendor_id")) {
		ci_copy_str(ci->vendor, sizeof(ci->vendor), val);
	} else if (!strcmp(key, "cpu family") || !strcmp(key, "CPU architecture")) {
		if (!parse_uint(val, &u))
			ci->family = u;
	} else if (!strcmp(key, "model") || !strcmp(key, "CPU part")) {
		if (!parse_uint(val, &u))
			ci->model = u;
	} else if (!strcmp(key, "stepping") || !strcmp(key, "CPU revision")) {
		if (!parse_uint(val, &u))
			ci->stepping = u;
	} else if (!strcmp(key, "model name")) {
		ci_copy_str(ci->brand, sizeof(ci->brand), val);
	} else if (!strcmp(key, "CPU implementer")) {
		const char *name = NULL;

		if (!parse_uint(val, &u))
			name = arm_implementer_name(u);
		if (name)
			ci_copy_str(ci->vendor, sizeof(ci->vendor), name);
		else
			ci_copy_str(ci->vendor, sizeof(ci->vendor), val);
	} else if (!strcmp(key, "flags")) {
		ci->flags_known = 1;
		ci->constant_tsc = has_word(val, "constant_tsc");
		ci->nonstop_tsc = has_word(val, "nonstop_tsc");
	}
}

int cpu_info_from_procfs(struct cpu_info *ci, const char *procfs_root)
{
	struct ci_line_reader lr = {.fd = -1};
	int seen = 0;
	char *line;

	if (!ci || !procfs_root)
		return -EINVAL;
	lr.fd = ci_open_rel(procfs_root, "cpuinfo");
	if (lr.fd < 0)
		return lr.fd;
	while ((line = ci_line_next(&lr))) {
		char *key, *val;

		if (!*ci_skip_space(line)) {
			if (seen)
				break; /* end of the first processor's block */
			continue;
		}
		key = ci_kv_split(line, &val);
		if (!key)
			continue;
		seen = 1;
		procfs_field(ci, key, val);
	}
	close(lr.fd);
	return seen ? 0 : -ENODATA;
}

/* ---- caches ---- */

static void caches_sort(struct cache_level *c, int n)
{
	int i, j;

	for (i = 1; i < n; i++) {
		struct cache_level key = c[i];

		for (j = i - 1; j >= 0; j--) {
			if (c[j].level < key.level ||
			    (c[j].level == key.level && c[j].type <= key.type))
				break;
			c[j + 1] = c[j];
		}
		c[j + 1] = key;
	}
}

int cpu_cache_decode(struct cache_level *cl, uint32_t eax, uint32_t ebx, uint32_t ecx)
{
	unsigned type = eax & 0x1f;
	uint64_t partitions = ((ebx >> 12) & 0x3ff) + 1;

	if (type == 0)
		return -ENOENT;
	if (type > CACHE_UNIFIED)
		return -EINVAL;
	memset(cl, 0, sizeof(*cl));
	cl->type = (enum cache_type)type;
	cl->level = (int)((eax >> 5) & 0x7);
	cl->ways = (ebx >> 22) + 1;
	cl->line_size = (ebx & 0xfff) + 1;
	cl->sets = ecx + 1;
	cl->shared_by = ((eax >> 14) & 0xfff) + 1;
	cl->size = (uint64_t)cl->ways * partitions * cl->line_size * ((uint64_t)ecx + 1);
	return 0;
}

static int cache_index_read(struct cache_level *cl, const char *sysfs_root, int idx)
{
	static const char dir[] = "devices/system/cpu/cpu0/cache/index";
	static const struct {
		const char *file;
		size_t off;
	} fields[] = {
	    {"coherency_line_size", offsetof(struct cache_level, line_size)},
	    {"ways_of_associativity", offsetof(struct cache_level, ways)},
	    {"number_of_sets", offsetof(struct cache_level, sets)},
	};
	static const char *const types[] = {"", "Data", "Instruction", "Unified"};
	unsigned partitions = 1, u, t;
	char buf[256];
	size_t i;
	int ret;

	memset(cl, 0, sizeof(*cl));
	ret = ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/type", dir, idx);
	if (ret < 0)
		return ret;
	for (t = CACHE_DATA; t <= CACHE_UNIFIED && strcmp(buf, types[t]); t++)
		;
	if (t > CACHE_UNIFIED)
		return -EINVAL; /* not a CPU cache we describe */
	cl->type = (enum cache_type)t;
	if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/level", dir, idx) < 0 ||
	    parse_uint(buf, &u) || u > 7)
		return -EINVAL;
	cl->level = (int)u;
	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/%s", dir, idx,
				fields[i].file) >= 0 &&
		    !parse_uint(buf, &u))
			*(unsigned *)((char *)cl + fields[i].off) = u;
	if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/physical_line_partition", dir, idx) >=
		0 &&
	    !parse_uint(buf, &u) && u)
		partitions = u;
	if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/shared_cpu_list", dir, idx) >= 0) {
		ret = cpulist_count(buf);
		cl->shared_by = ret > 0 ? (unsigned)ret : 0;
	}
	if (ci_read_rel(buf, sizeof(buf), sysfs_root, "%s%d/size", dir, idx) < 0 ||
	    parse_size(buf, &cl->size))
		cl->size = (uint64_t)cl->ways * partitions * cl->line_size * cl->sets;
	return 0;
}

int cpu_caches_from_sysfs(struct cpu_info *ci, const char *sysfs_root)
{
	struct cache_level found[CPU_MAX_CACHES];
	int idx, n = 0;

	if (!ci || !sysfs_root)
		return -EINVAL;
	/* index<N> directories are numbered without gaps; stop at the first missing one */
	for (idx = 0; idx < 64 && n < CPU_MAX_CACHES; idx++) {
		int ret = cache_index_read(&found[n], sysfs_root, idx);

		if (ret == -ENOENT)
			break;
		if (ret == 0)
			n++;
	}
	if (!n)
		return -ENOENT;
	caches_sort(found, n);
	memcpy(ci->caches, found, n * sizeof(found[0]));
	ci->ncaches = n;
	ci->cache_source = "sysfs";
	return 0;
}

/* ---- cpuid ---- */

void cpu_info_decode_signature(struct cpu_info *ci, uint32_t eax)
{
	unsigned base_family = (eax >> 8) & 0xf;
	unsigned model = (eax >> 4) & 0xf;
	int amd = !strcmp(ci->vendor, "AuthenticAMD") || !strcmp(ci->vendor, "HygonGenuine");

	ci->stepping = eax & 0xf;
	ci->family = base_family;
	if (base_family == 0xf)
		ci->family += (eax >> 20) & 0xff;
	if (base_family == 0xf || (!amd && base_family == 0x6))
		model += ((eax >> 16) & 0xf) << 4;
	ci->model = model;
}

#ifdef CPUINFO_X86
static void cpuid_brand(struct cpu_info *ci)
{
	unsigned regs[12];
	char *b = ci->brand;
	unsigned i;

	for (i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, regs[4 * i], regs[4 * i + 1], regs[4 * i + 2],
			regs[4 * i + 3]);
	memcpy(b, regs, 48);
	b[48] = '\0';
	ci_trim_right(b);
	memmove(b, ci_skip_space(b), strlen(ci_skip_space(b)) + 1);
}

static void cpuid_caches(struct cpu_info *ci, unsigned leaf, const char *source)
{
	unsigned a, b, c, d, sub;
	int n = 0;

	for (sub = 0; sub < 32 && n < CPU_MAX_CACHES; sub++) {
		int ret;

		__cpuid_count(leaf, sub, a, b, c, d);
		ret = cpu_cache_decode(&ci->caches[n], a, b, c);
		if (ret == -ENOENT)
			break;
		if (ret == 0 && ci->caches[n].level > 0)
			n++;
	}
	(void)d;
	if (n) {
		caches_sort(ci->caches, n);
		ci->ncaches = n;
		ci->cache_source = source;
	}
}

static void cpuid_identify(struct cpu_info *ci)
{
	unsigned max, max_ext, a, b, c, d;
	int amd;

	max = __get_cpuid_max(0, NULL);
	if (max == 0)
		return;
	__cpuid(0, a, b, c, d);
	memcpy(ci->vendor, &b, 4);
	memcpy(ci->vendor + 4, &d, 4);
	memcpy(ci->vendor + 8, &c, 4);
	ci->vendor[12] = '\0';
	amd = !strcmp(ci->vendor, "AuthenticAMD") || !strcmp(ci->vendor, "HygonGenuine");
	if (max >= 1) {
		__cpuid(1, a, b, c, d);
		cpu_info_decode_signature(ci, a);
		ci->hypervisor = (c >> 31) & 1;
	}
	max_ext = __get_cpuid_max(0x80000000, NULL);
	if (max_ext < 0x80000000)
		max_ext = 0;
	if (max_ext >= 0x80000004)
		cpuid_brand(ci);
	if (max_ext >= 0x80000007) {
		__cpuid(0x80000007, a, b, c, d);
		ci->tsc_invariant = (d >> 8) & 1;
	}
	if (amd) {
		/* leaf 0x8000001d needs TOPOEXT (0x80000001 ecx bit 22) */
		if (max_ext >= 0x8000001d) {
			__cpuid(0x80000001, a, b, c, d);
			if (c & (1u << 22))
				cpuid_caches(ci, 0x8000001d, "cpuid leaf 0x8000001d");
		}
	} else if (max >= 4) {
		cpuid_caches(ci, 4, "cpuid leaf 4");
	}
}
#endif

static void arch_name(struct cpu_info *ci)
{
#if defined(__x86_64__)
	ci_copy_str(ci->arch, sizeof(ci->arch), "x86_64");
#elif defined(__i386__)
	ci_copy_str(ci->arch, sizeof(ci->arch), "i686");
#elif defined(__aarch64__)
	ci_copy_str(ci->arch, sizeof(ci->arch), "aarch64");
#else
	struct utsname u;

	if (!uname(&u))
		ci_copy_str(ci->arch, sizeof(ci->arch), u.machine);
#endif
}

int cpu_info_read(struct cpu_info *ci, const char *procfs_root, const char *sysfs_root)
{
	int saved_errno = errno;
	char buf[64];
	int ret;

	if (!ci || !procfs_root || !sysfs_root)
		return -EINVAL;
	memset(ci, 0, sizeof(*ci));
	ci->cache_source = "none";
	arch_name(ci);
	/* the kernel's view first (flags, and identity on non-x86); cpuid overrides identity */
	cpu_info_from_procfs(ci, procfs_root);
#ifdef CPUINFO_X86
	cpuid_identify(ci);
#endif
	if (ci_read_rel(buf, sizeof(buf), sysfs_root, "devices/system/cpu/online") >= 0) {
		ret = cpulist_count(buf);
		if (ret > 0)
			ci->ncpus = ret;
	}
	if (ci->ncpus == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ci->ncpus = n > 0 ? (int)n : 0;
	}
	if (ci_read_rel(buf, sizeof(buf), sysfs_root,
			"devices/system/clocksource/clocksource0/current_clocksource") >= 0)
		ci_copy_str(ci->clocksource, sizeof(ci->clocksource), buf);
	if (ci->ncaches == 0)
		cpu_caches_from_sysfs(ci, sysfs_root);
	errno = saved_errno;
	return 0;
}

int cpu_info_tsc_usable(const struct cpu_info *ci)
{
	if (!ci)
		return 0;
	if (ci->flags_known)
		return ci->constant_tsc && ci->nonstop_tsc;
	return ci->tsc_invariant != 0;
}
