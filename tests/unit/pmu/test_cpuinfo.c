/*
 * test_cpuinfo.c - CPU identification and perf state, from the fake trees in
 * PSC_TEST_DATA_DIR (sysfs-*, procfs-*) and, cross-checked against the kernel, from this
 * machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu/cpuinfo.h"
#include "format/env.h"

#ifndef PSC_TEST_DATA_DIR
#error "compile with -DPSC_TEST_DATA_DIR=\"/path/to/tests/data\""
#endif

#define DATA(sub) PSC_TEST_DATA_DIR "/" sub

static void assert_cache(const struct cache_level *c, int level, enum cache_type type,
			 uint64_t size, unsigned line, unsigned ways, unsigned sets,
			 unsigned shared)
{
	assert_int_equal(c->level, level);
	assert_int_equal(c->type, type);
	assert_int_equal(c->size, size);
	assert_int_equal(c->line_size, line);
	assert_int_equal(c->ways, ways);
	assert_int_equal(c->sets, sets);
	assert_int_equal(c->shared_by, shared);
}

/* ---- caches from sysfs ---- */

static void test_caches_vm(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	assert_int_equal(cpu_caches_from_sysfs(&ci, DATA("sysfs-nopmu")), 0);
	assert_string_equal(ci.cache_source, "sysfs");
	assert_int_equal(ci.ncaches, 4);
	assert_cache(&ci.caches[0], 1, CACHE_DATA, 32768, 64, 8, 64, 1);
	assert_cache(&ci.caches[1], 1, CACHE_INSTRUCTION, 32768, 64, 8, 64, 1);
	assert_cache(&ci.caches[2], 2, CACHE_UNIFIED, 1048576, 64, 16, 1024, 1);
	assert_cache(&ci.caches[3], 3, CACHE_UNIFIED, 16777216, 64, 16, 16384, 2);
}

static void test_caches_sorted(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	/* the tree lists L2, L1i, L1d, L3: the result is sorted by level, data first */
	assert_int_equal(cpu_caches_from_sysfs(&ci, DATA("sysfs-pmu")), 0);
	assert_int_equal(ci.ncaches, 4);
	assert_cache(&ci.caches[0], 1, CACHE_DATA, 32768, 64, 8, 64, 2);
	assert_cache(&ci.caches[1], 1, CACHE_INSTRUCTION, 32768, 64, 8, 64, 2);
	assert_cache(&ci.caches[2], 2, CACHE_UNIFIED, 1048576, 64, 16, 1024, 2);
	assert_cache(&ci.caches[3], 3, CACHE_UNIFIED, 23068672, 64, 11, 32768, 16);
}

static void test_caches_sparse(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	/* the L2 of the arm tree has only level, type, size and shared_cpu_list */
	assert_int_equal(cpu_caches_from_sysfs(&ci, DATA("sysfs-arm64")), 0);
	assert_int_equal(ci.ncaches, 3);
	assert_cache(&ci.caches[0], 1, CACHE_DATA, 65536, 64, 4, 256, 1);
	assert_cache(&ci.caches[1], 1, CACHE_INSTRUCTION, 65536, 64, 4, 256, 1);
	assert_cache(&ci.caches[2], 2, CACHE_UNIFIED, 1048576, 0, 0, 0, 1);
}

static void test_caches_missing(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	ci.ncaches = 1;
	ci.cache_source = "cpuid leaf 4";
	assert_int_equal(cpu_caches_from_sysfs(&ci, DATA("procfs-strict")), -ENOENT);
	assert_int_equal(ci.ncaches, 1); /* left alone */
	assert_string_equal(ci.cache_source, "cpuid leaf 4");
}

/* ---- cpuid decoding ---- */

static void test_cache_decode(void **state)
{
	struct cache_level c;

	(void)state;
	/* this VM's L3: leaf 4 subleaf 3, with cores-per-package bits set in eax[31:26] */
	assert_int_equal(cpu_cache_decode(&c, 0x04004163, 0x04c0003f, 0x33fff), 0);
	assert_cache(&c, 3, CACHE_UNIFIED, 272629760, 64, 20, 212992, 2);
	/* L1d, 12-way 48K */
	assert_int_equal(cpu_cache_decode(&c, 0x00000121, 0x02c0003f, 63), 0);
	assert_cache(&c, 1, CACHE_DATA, 49152, 64, 12, 64, 1);
	/* two physical line partitions double the size */
	assert_int_equal(cpu_cache_decode(&c, 0x00000142, 0x01c0103f, 63), 0);
	assert_cache(&c, 2, CACHE_INSTRUCTION, 65536, 64, 8, 64, 1);
	assert_int_equal(cpu_cache_decode(&c, 0, 0, 0), -ENOENT);
	assert_int_equal(cpu_cache_decode(&c, 0x64, 0, 0), -EINVAL);
}

static void test_decode_signature(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	strcpy(ci.vendor, "GenuineIntel");
	cpu_info_decode_signature(&ci, 0x000c06f2); /* Sapphire Rapids, this VM */
	assert_int_equal(ci.family, 6);
	assert_int_equal(ci.model, 207);
	assert_int_equal(ci.stepping, 2);
	cpu_info_decode_signature(&ci, 0x00050654); /* Skylake-SP */
	assert_int_equal(ci.family, 6);
	assert_int_equal(ci.model, 85);
	assert_int_equal(ci.stepping, 4);
	cpu_info_decode_signature(&ci, 0x00010681);
	assert_int_equal(ci.model, 0x18); /* Intel folds extended model at family 6 */
	strcpy(ci.vendor, "AuthenticAMD");
	cpu_info_decode_signature(&ci, 0x00010681);
	assert_int_equal(ci.family, 6);
	assert_int_equal(ci.model, 8);		    /* AMD does not below family 15 */
	cpu_info_decode_signature(&ci, 0x00830f10); /* Zen 2 */
	assert_int_equal(ci.family, 23);
	assert_int_equal(ci.model, 49);
	assert_int_equal(ci.stepping, 0);
	cpu_info_decode_signature(&ci, 0x00060fb1); /* QEMU's qemu64 */
	assert_int_equal(ci.family, 15);
	assert_int_equal(ci.model, 107);
	assert_int_equal(ci.stepping, 1);
}

/* ---- /proc/cpuinfo ---- */

static void test_procfs_intel(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	assert_int_equal(cpu_info_from_procfs(&ci, DATA("procfs-paranoid2")), 0);
	assert_string_equal(ci.vendor, "GenuineIntel");
	assert_int_equal(ci.family, 6);
	assert_int_equal(ci.model, 85);
	assert_int_equal(ci.stepping, 4);
	assert_string_equal(ci.brand, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
	assert_int_equal(ci.flags_known, 1);
	assert_int_equal(ci.constant_tsc, 1);
	assert_int_equal(ci.nonstop_tsc, 1);
	assert_true(cpu_info_tsc_usable(&ci));
}

static void test_procfs_strict(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	ci.tsc_invariant = 1; /* ignored: the kernel's flags were read */
	assert_int_equal(cpu_info_from_procfs(&ci, DATA("procfs-strict")), 0);
	assert_string_equal(ci.vendor, "AuthenticAMD");
	assert_int_equal(ci.family, 15);
	assert_int_equal(ci.model, 107);
	assert_string_equal(ci.brand, "QEMU Virtual CPU version 2.5+");
	assert_int_equal(ci.flags_known, 1);
	assert_int_equal(ci.constant_tsc, 0);
	assert_int_equal(ci.nonstop_tsc, 0); /* "nonstop_tsc_s3" is another flag */
	assert_false(cpu_info_tsc_usable(&ci));
}

static void test_procfs_arm64(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	assert_int_equal(cpu_info_from_procfs(&ci, DATA("procfs-arm64")), 0);
	assert_string_equal(ci.vendor, "ARM");
	assert_int_equal(ci.family, 8);
	assert_int_equal(ci.model, 0xd0c);
	assert_int_equal(ci.stepping, 1);
	assert_string_equal(ci.brand, "");
	assert_int_equal(ci.flags_known, 0);
	assert_false(cpu_info_tsc_usable(&ci));
}

static void test_procfs_missing(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	assert_int_equal(cpu_info_from_procfs(&ci, DATA("sysfs-pmu")), -ENOENT);
	assert_int_equal(cpu_info_from_procfs(NULL, DATA("procfs-strict")), -EINVAL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A line longer than the reader's buffer is cut, and the last line may lack its newline. */
static void test_procfs_long_lines(void **state)
{
	char dir[] = "/tmp/test_cpuinfo.XXXXXX", path[64];
	size_t n = 10000, off;
	struct cpu_info ci = {0};
	char *text = malloc(n + 200);

	(void)state;
	assert_non_null(text);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cpuinfo", dir);
	off = (size_t)sprintf(text, "vendor_id\t: GenuineIntel\nbugs\t\t: ");
	memset(text + off, 'x', n);
	off += n;
	sprintf(text + off,
		" constant_tsc\nmodel\t\t: 85\nflags\t\t: fpu nonstop_tsc constant_tsc");
	write_file(path, text);
	assert_int_equal(cpu_info_from_procfs(&ci, dir), 0);
	assert_string_equal(ci.vendor, "GenuineIntel");
	assert_int_equal(ci.model, 85);
	assert_int_equal(ci.flags_known, 1);
	assert_true(cpu_info_tsc_usable(&ci));
	unlink(path);
	rmdir(dir);
	free(text);
}

/* ---- TSC decision ---- */

static void test_tsc_usable(void **state)
{
	struct cpu_info ci = {0};

	(void)state;
	ci.flags_known = 1;
	ci.constant_tsc = 1;
	ci.nonstop_tsc = 1;
	assert_true(cpu_info_tsc_usable(&ci));
	ci.nonstop_tsc = 0;
	ci.tsc_invariant = 1;
	assert_false(cpu_info_tsc_usable(&ci));
	ci.nonstop_tsc = 1;
	ci.constant_tsc = 0;
	assert_false(cpu_info_tsc_usable(&ci));
	ci.flags_known = 0; /* no flags: cpuid decides */
	assert_true(cpu_info_tsc_usable(&ci));
	ci.tsc_invariant = 0;
	assert_false(cpu_info_tsc_usable(&ci));
	assert_false(cpu_info_tsc_usable(NULL));
}

/* ---- cpu_info_read ---- */

static void test_read_fake_roots(void **state)
{
	struct cpu_info ci;

	(void)state;
	assert_int_equal(cpu_info_read(&ci, DATA("procfs-paranoid2"), DATA("sysfs-nopmu")), 0);
	assert_int_equal(ci.ncpus, 2);
	assert_string_equal(ci.clocksource, "tsc");
	assert_int_equal(ci.flags_known, 1);
	assert_true(cpu_info_tsc_usable(&ci));
	assert_true(ci.ncaches > 0);
	assert_non_null(ci.cache_source);
#if defined(__x86_64__) || defined(__i386__)
	assert_true(strncmp(ci.cache_source, "cpuid", 5) == 0 ||
		    strcmp(ci.cache_source, "sysfs") == 0);
#else
	assert_string_equal(ci.cache_source, "sysfs");
	assert_int_equal(ci.ncaches, 4);
#endif

	assert_int_equal(cpu_info_read(&ci, DATA("procfs-strict"), DATA("sysfs-pmu")), 0);
	assert_int_equal(ci.ncpus, 32);
	assert_string_equal(ci.clocksource, "");
	assert_false(cpu_info_tsc_usable(&ci));

	assert_int_equal(cpu_info_read(&ci, DATA("procfs-arm64"), DATA("sysfs-arm64")), 0);
	assert_int_equal(ci.ncpus, 4);
	assert_string_equal(ci.clocksource, "arch_sys_counter");
	assert_int_equal(cpu_info_read(NULL, "/proc", "/sys"), -EINVAL);
	assert_int_equal(cpu_info_read(&ci, NULL, "/sys"), -EINVAL);
}

/* The real machine, cross-checked against what the kernel derived from the same cpuid. */
static void test_read_this_machine(void **state)
{
	struct cpu_info ci, kernel = {0};
	int saved;

	(void)state;
	errno = 1234;
	assert_int_equal(cpu_info_read(&ci, "/proc", "/sys"), 0);
	saved = errno;
	assert_int_equal(saved, 1234);
	assert_true(ci.vendor[0] != '\0');
	assert_true(ci.arch[0] != '\0');
	assert_true(ci.ncpus >= 1);
	assert_int_equal(ci.ncpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(ci.ncaches > 0);
	assert_true(ci.ncaches <= CPU_MAX_CACHES);
	for (int i = 1; i < ci.ncaches; i++)
		assert_true(ci.caches[i - 1].level < ci.caches[i].level ||
			    (ci.caches[i - 1].level == ci.caches[i].level &&
			     ci.caches[i - 1].type <= ci.caches[i].type));
	if (cpu_info_from_procfs(&kernel, "/proc") != 0)
		return;
	assert_string_equal(ci.vendor, kernel.vendor);
#if defined(__x86_64__) || defined(__i386__)
	assert_string_equal(ci.arch, sizeof(void *) == 8 ? "x86_64" : "i686");
	assert_int_equal(ci.family, kernel.family);
	assert_int_equal(ci.model, kernel.model);
	assert_int_equal(ci.stepping, kernel.stepping);
	assert_string_equal(ci.brand, kernel.brand);
	{
		/* the kernel sets its "hypervisor" flag from the same cpuid bit */
		struct cpu_info sys = {0};
		char line[8192];
		FILE *f = fopen("/proc/cpuinfo", "r");
		int hv = -1;

		assert_non_null(f);
		while (hv < 0 && fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5))
				hv = strstr(line, " hypervisor") != NULL;
		fclose(f);
		assert_int_equal(ci.hypervisor, hv);
		/* sysfs caches come from the same cpuid leaf on Intel and AMD */
		if (strncmp(ci.cache_source, "cpuid", 5) == 0 &&
		    cpu_caches_from_sysfs(&sys, "/sys") == 0) {
			assert_int_equal(ci.ncaches, sys.ncaches);
			for (int i = 0; i < ci.ncaches; i++) {
				assert_int_equal(ci.caches[i].level, sys.caches[i].level);
				assert_int_equal(ci.caches[i].type, sys.caches[i].type);
				assert_int_equal(ci.caches[i].size, sys.caches[i].size);
				assert_int_equal(ci.caches[i].line_size, sys.caches[i].line_size);
				assert_int_equal(ci.caches[i].ways, sys.caches[i].ways);
				assert_int_equal(ci.caches[i].sets, sys.caches[i].sets);
			}
		}
	}
#endif
}

/* ---- perf state ---- */

static void test_perf_nopmu_paranoid2(void **state)
{
	struct perf_state ps;

	(void)state;
	assert_int_equal(perf_state_read(&ps, DATA("procfs-paranoid2"), DATA("sysfs-nopmu")), 0);
	assert_int_equal(ps.paranoid, 2);
	assert_int_equal(ps.max_sample_rate, 100000);
	assert_int_equal(ps.privileged, 0);
	assert_int_equal(ps.have_core_pmu, 0);
	assert_string_equal(ps.core_pmu, "");
	assert_int_equal(ps.rdpmc, -1);
	assert_int_equal(ps.npmus, 6);
	assert_string_equal(ps.pmus, "breakpoint,msr,power,software,tracepoint,uprobe");
}

static void test_perf_pmu_strict(void **state)
{
	struct perf_state ps;

	(void)state;
	assert_int_equal(perf_state_read(&ps, DATA("procfs-strict"), DATA("sysfs-pmu")), 0);
	assert_int_equal(ps.paranoid, 3);
	assert_int_equal(ps.max_sample_rate, -1);
	assert_int_equal(ps.privileged, 1); /* CAP_PERFMON alone */
	assert_int_equal(ps.have_core_pmu, 1);
	assert_string_equal(ps.core_pmu, "cpu");
	assert_int_equal(ps.rdpmc, 1);
	assert_int_equal(ps.npmus, 3);
	assert_string_equal(ps.pmus, "cpu,software,uncore_imc_0");
}

static void test_perf_arm64(void **state)
{
	struct perf_state ps;

	(void)state;
	assert_int_equal(perf_state_read(&ps, DATA("procfs-paranoid2"), DATA("sysfs-arm64")), 0);
	assert_int_equal(ps.have_core_pmu, 1);
	assert_string_equal(ps.core_pmu, "armv8_pmuv3_0"); /* dynamic type, has `cpus` */
	assert_int_equal(ps.rdpmc, -1);
	assert_int_equal(ps.npmus, 5);
	assert_string_equal(ps.pmus, "arm_dsu_0,armv8_pmuv3_0,breakpoint,software,tracepoint");
}

static void test_perf_missing(void **state)
{
	struct perf_state ps;
	char buf[256];

	(void)state;
	/* no perf_event_paranoid, no event_source: a kernel without perf events */
	assert_int_equal(perf_state_read(&ps, DATA("procfs-arm64"), DATA("procfs-arm64")), 0);
	assert_int_equal(ps.paranoid, PERF_PARANOID_UNKNOWN);
	assert_int_equal(ps.max_sample_rate, -1);
	assert_int_equal(ps.privileged, geteuid() == 0); /* no self/status: euid decides */
	assert_int_equal(ps.have_core_pmu, 0);
	assert_int_equal(ps.npmus, 0);
	assert_string_equal(ps.pmus, "");
	assert_non_null(perf_state_fix(&ps, PERF_NEED_USER, buf, sizeof(buf)));
	assert_non_null(strstr(perf_state_fix(&ps, PERF_NEED_USER, buf, sizeof(buf)),
			       "perf_event_open is not available"));
	ps.privileged = 1;
	assert_non_null(perf_state_fix(&ps, PERF_NEED_USER, NULL, 0));
	assert_int_equal(perf_state_read(NULL, "/proc", "/sys"), -EINVAL);
}

static void test_perf_fix_matrix(void **state)
{
	static const int needs[] = {PERF_NEED_USER, PERF_NEED_KERNEL, PERF_NEED_CPU};
	struct perf_state ps = {0};
	char buf[256], want[64];

	(void)state;
	for (int paranoid = -1; paranoid <= 4; paranoid++) {
		for (int priv = 0; priv <= 1; priv++) {
			for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
				int need = needs[i];
				const char *fix, *fix_static;

				ps.paranoid = paranoid;
				ps.privileged = priv;
				memset(buf, 0, sizeof(buf));
				fix = perf_state_fix(&ps, need, buf, sizeof(buf));
				fix_static = perf_state_fix(&ps, need, NULL, 0);
				if (priv || paranoid <= need) {
					assert_null(fix);
					assert_null(fix_static);
					continue;
				}
				assert_ptr_equal(fix, buf);
				snprintf(want, sizeof(want), "kernel.perf_event_paranoid=%d", need);
				assert_non_null(strstr(fix, want));
				assert_non_null(strstr(fix, "CAP_PERFMON"));
				assert_non_null(strstr(fix, "root"));
				assert_non_null(strstr(fix_static, want));
				assert_non_null(strstr(fix_static, "CAP_PERFMON"));
			}
		}
	}
	ps.paranoid = 2;
	ps.privileged = 0;
	assert_string_equal(perf_state_fix(&ps, PERF_NEED_KERNEL, buf, sizeof(buf)),
			    "kernel.perf_event_paranoid is 2, counting kernel code needs <= 1: "
			    "run as root, grant CAP_PERFMON, or: "
			    "sysctl -w kernel.perf_event_paranoid=1");
	ps.paranoid = 3;
	assert_string_equal(perf_state_fix(&ps, PERF_NEED_USER, NULL, 0),
			    "counting this process needs paranoid <= 2: "
			    "run as root, grant CAP_PERFMON, or: "
			    "sysctl -w kernel.perf_event_paranoid=2");
	/* a buffer too small falls back to the static text, never a cut one */
	assert_string_equal(perf_state_fix(&ps, PERF_NEED_USER, buf, 10),
			    perf_state_fix(&ps, PERF_NEED_USER, NULL, 0));
	assert_non_null(perf_state_fix(&ps, 7, buf, sizeof(buf)));
}

static void test_perf_from_trees(void **state)
{
	struct perf_state ps;
	char buf[256];

	(void)state;
	assert_int_equal(perf_state_read(&ps, DATA("procfs-paranoid2"), DATA("sysfs-nopmu")), 0);
	assert_null(perf_state_fix(&ps, PERF_NEED_USER, buf, sizeof(buf)));
	assert_non_null(strstr(perf_state_fix(&ps, PERF_NEED_KERNEL, buf, sizeof(buf)),
			       "kernel.perf_event_paranoid=1"));
	assert_non_null(strstr(perf_state_fix(&ps, PERF_NEED_CPU, buf, sizeof(buf)),
			       "kernel.perf_event_paranoid=0"));
	/* paranoid 3, but CAP_PERFMON: everything allowed */
	assert_int_equal(perf_state_read(&ps, DATA("procfs-strict"), DATA("sysfs-pmu")), 0);
	assert_null(perf_state_fix(&ps, PERF_NEED_USER, buf, sizeof(buf)));
	assert_null(perf_state_fix(&ps, PERF_NEED_CPU, buf, sizeof(buf)));
}

/* ---- roots ---- */

static void test_machine_roots(void **state)
{
	const char *proc, *sys;

	(void)state;
	unsetenv(PSC_ENV_PROCFS_ROOT);
	unsetenv(PSC_ENV_SYSFS_ROOT);
	psc_machine_roots(&proc, &sys);
	assert_string_equal(proc, "/proc");
	assert_string_equal(sys, "/sys");
	setenv(PSC_ENV_PROCFS_ROOT, DATA("procfs-strict"), 1);
	setenv(PSC_ENV_SYSFS_ROOT, "", 1); /* empty means unset */
	psc_machine_roots(&proc, &sys);
	assert_string_equal(proc, DATA("procfs-strict"));
	assert_string_equal(sys, "/sys");
	unsetenv(PSC_ENV_PROCFS_ROOT);
	unsetenv(PSC_ENV_SYSFS_ROOT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_caches_vm),
	    cmocka_unit_test(test_caches_sorted),
	    cmocka_unit_test(test_caches_sparse),
	    cmocka_unit_test(test_caches_missing),
	    cmocka_unit_test(test_cache_decode),
	    cmocka_unit_test(test_decode_signature),
	    cmocka_unit_test(test_procfs_intel),
	    cmocka_unit_test(test_procfs_strict),
	    cmocka_unit_test(test_procfs_arm64),
	    cmocka_unit_test(test_procfs_missing),
	    cmocka_unit_test(test_procfs_long_lines),
	    cmocka_unit_test(test_tsc_usable),
	    cmocka_unit_test(test_read_fake_roots),
	    cmocka_unit_test(test_read_this_machine),
	    cmocka_unit_test(test_perf_nopmu_paranoid2),
	    cmocka_unit_test(test_perf_pmu_strict),
	    cmocka_unit_test(test_perf_arm64),
	    cmocka_unit_test(test_perf_missing),
	    cmocka_unit_test(test_perf_fix_matrix),
	    cmocka_unit_test(test_perf_from_trees),
	    cmocka_unit_test(test_machine_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
