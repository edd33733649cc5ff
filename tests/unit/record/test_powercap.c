/*
 * test_powercap.c - energy counters (src/record/powercap.h) on fake trees: RAPL zones of the
 * powercap trees in PSC_TEST_DATA_DIR/powercap-* (the layout real machines show: zone links
 * with name, energy_uj and max_energy_range_uj, sub-zones, the intel-rapl-mmio duplicate), and
 * the perf power PMU of PSC_TEST_DATA_DIR/sysfs-power opened through a fake struct counter_sys
 * whose events are pipes filled with counts that go up. Trees a test changes are made in a
 * temporary directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/powercap.h"

#ifndef PSC_TEST_DATA_DIR
#error "compile with -DPSC_TEST_DATA_DIR=\"/path/to/tests/data\""
#endif

#define DATA(sub) PSC_TEST_DATA_DIR "/" sub

/* ---- helpers: files in a temporary tree ---- */

static char tmproot[256];

static void make_tmp(void)
{
	assert_int_equal(tmpdir_make(tmproot, sizeof(tmproot), "powercap"), 0);
	assert_int_equal(chmod(tmproot, 0755), 0);
}

static void remove_tmp(void)
{
	assert_int_equal(tmpdir_remove(tmproot), 0);
}

/* Write TEXT into ROOT/REL, making the directories on the way. */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmproot, rel);
	for (char *p = path + strlen(tmproot) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void zone(const char *dir, const char *name, const char *energy, const char *max)
{
	char rel[256], text[64];

	snprintf(rel, sizeof(rel), "%s/name", dir);
	snprintf(text, sizeof(text), "%s\n", name);
	put(rel, text);
	snprintf(rel, sizeof(rel), "%s/energy_uj", dir);
	snprintf(text, sizeof(text), "%s\n", energy);
	put(rel, text);
	snprintf(rel, sizeof(rel), "%s/max_energy_range_uj", dir);
	snprintf(text, sizeof(text), "%s\n", max);
	put(rel, text);
}

static void expect_counter(const struct power_source *src, size_t i, const char *name,
			   uint64_t wrap)
{
	assert_true(i < src->n);
	assert_string_equal(src->c[i].name, name);
	assert_string_equal(src->c[i].unit, "uJ");
	assert_true(src->c[i].scale == 1e-6);
	assert_int_equal(src->c[i].wrap, wrap);
	assert_true(src->c[i].fd >= 0);
}

/* ---- RAPL zones ---- */

static void test_rapl_intel(void **state)
{
	struct power_source src;
	uint64_t v[8];
	char err[512];

	(void)state;
	assert_int_equal(powercap_open(&src, DATA("powercap-intel"), err, sizeof(err)), 0);
	assert_int_equal(src.kind, POWER_SOURCE_RAPL);
	assert_string_equal(power_source_name(&src), "rapl");
	/* the MMIO duplicate of package-0 and the control types are not zones */
	assert_int_equal(src.n, 5);
	expect_counter(&src, 0, "package-0", 262143328850u);
	expect_counter(&src, 1, "package-0/core", 262143328850u);
	expect_counter(&src, 2, "package-0/uncore", 262143328850u);
	expect_counter(&src, 3, "package-0/dram", 65712999613u);
	expect_counter(&src, 4, "psys", 262143328850u);
	assert_string_equal(src.skipped, "");
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(v[0], 198127736281u);
	assert_int_equal(v[1], 43512221108u);
	assert_int_equal(v[2], 1234567u);
	assert_int_equal(v[3], 9112334400u);
	assert_int_equal(v[4], 0);
	power_source_close(&src);
	assert_int_equal(src.n, 0);
	assert_null(src.c);
}

static void test_rapl_two_packages_sorted(void **state)
{
	struct power_source src;
	uint64_t v[4];
	char err[512];

	(void)state;
	assert_int_equal(powercap_open(&src, DATA("powercap-amd"), err, sizeof(err)), 0);
	assert_int_equal(src.n, 4);
	expect_counter(&src, 0, "package-0", 65532610987u);
	expect_counter(&src, 1, "package-0/core", 65532610987u);
	expect_counter(&src, 2, "package-1", 65532610987u);
	expect_counter(&src, 3, "package-1/core", 65532610987u);
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 200);
	assert_int_equal(v[2], 300);
	assert_int_equal(v[3], 400);
	power_source_close(&src);
}

static void test_rapl_mmio_only(void **state)
{
	struct power_source src;
	uint64_t v;
	char err[512];

	(void)state;
	assert_int_equal(powercap_open(&src, DATA("powercap-mmio"), err, sizeof(err)), 0);
	assert_int_equal(src.n, 1);
	expect_counter(&src, 0, "package-0", 262143328850u);
	assert_int_equal(power_source_read(&src, &v), 0);
	assert_int_equal(v, 5000);
	power_source_close(&src);
}

static void test_rapl_none(void **state)
{
	static const char *const roots[] = {DATA("powercap-empty"), DATA("no-such-powercap")};
	struct power_source src;
	char err[512], want[512];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(powercap_open(&src, roots[i], err, sizeof(err)), -ENOENT);
		snprintf(want, sizeof(want),
			 "no RAPL zones under %s (a VM or a CPU without RAPL): use --power perf or "
			 "--power file:PATH",
			 roots[i]);
		assert_string_equal(err, want);
		assert_int_equal(src.n, 0);
		assert_null(src.c);
	}
}

/* A zone the driver lists but that cannot be read is left out and said. */
static void test_rapl_unreadable_zone(void **state)
{
	struct power_source src;
	uint64_t v;
	char err[512];

	(void)state;
	assert_int_equal(powercap_open(&src, DATA("powercap-broken"), err, sizeof(err)), 0);
	assert_int_equal(src.n, 1);
	expect_counter(&src, 0, "package-0", 262143328850u);
	assert_string_equal(src.skipped, "psys (Is a directory)");
	assert_int_equal(power_source_read(&src, &v), 0);
	assert_int_equal(v, 77);
	power_source_close(&src);
}

/* Each energy_uj is opened once: a value written after opening is what the next read sees. */
static void test_rapl_reads_again(void **state)
{
	struct power_source src;
	uint64_t v[2];
	char err[512];

	(void)state;
	make_tmp();
	zone("intel-rapl:0", "package-0", "1000", "262143328850");
	zone("intel-rapl:0:0", "core", "20", "262143328850");
	assert_int_equal(powercap_open(&src, tmproot, err, sizeof(err)), 0);
	assert_int_equal(src.n, 2);
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(v[0], 1000);
	assert_int_equal(v[1], 20);
	put("intel-rapl:0/energy_uj", "262143328001\n");
	put("intel-rapl:0:0/energy_uj", "7\n");
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(v[0], 262143328001u);
	assert_int_equal(v[1], 7);
	/* an empty file (a writer that truncated it) is an error, not 0 */
	put("intel-rapl:0:0/energy_uj", "");
	assert_int_equal(power_source_read(&src, v), -EIO);
	power_source_close(&src);
	remove_tmp();
}

/* Names are unique and hold no blank, comma or slash of their own; a missing max range means
 * the counter is not known to wrap. */
static void test_rapl_names(void **state)
{
	struct power_source src;
	char err[512];

	(void)state;
	make_tmp();
	zone("intel-rapl:0", "package-0", "1", "100");
	zone("intel-rapl:1", "package-0", "2", "100");
	zone("intel-rapl:2", "odd name,x/y", "3", "100");
	put("intel-rapl:3/energy_uj", "4\n");
	put("intel-rapl:3:0/energy_uj", "5\n");
	put("intel-rapl:3:0/name", "core\n");
	put("intel-rapl:x/energy_uj", "6\n");
	put("intel-rapl:1:/energy_uj", "6\n");
	assert_int_equal(powercap_open(&src, tmproot, err, sizeof(err)), 0);
	assert_int_equal(src.n, 5);
	assert_string_equal(src.c[0].name, "package-0");
	assert_string_equal(src.c[1].name, "package-0-2");
	assert_string_equal(src.c[2].name, "odd_name_x_y");
	assert_string_equal(src.c[3].name, "intel-rapl:3");
	assert_int_equal(src.c[3].wrap, 0);
	assert_string_equal(src.c[4].name, "intel-rapl:3/core");
	power_source_close(&src);
	remove_tmp();
}

/*
 * energy_uj is readable by root only (the PLATYPUS fix). A child process without the right to
 * read it (root drops to nobody, since root reads any file) gets -EACCES and the fix.
 */
static void test_rapl_permission(void **state)
{
	char path[sizeof(tmproot) + 32];
	pid_t pid;
	int st;

	(void)state;
	make_tmp();
	zone("intel-rapl:0", "package-0", "1000", "262143328850");
	snprintf(path, sizeof(path), "%s/intel-rapl:0/energy_uj", tmproot);
	assert_int_equal(chmod(path, 0400), 0);
	if (geteuid() != 0)
		assert_int_equal(chmod(path, 0), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct power_source src;
		char err[2048], want[2048];
		int ret;

		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(77);
		ret = powercap_open(&src, tmproot, err, sizeof(err));
		snprintf(want, sizeof(want),
			 "cannot read %s: permission denied (RAPL energy is readable by root only "
			 "since the 2020 PLATYPUS fix): run as root, or: sudo chmod a+r "
			 "%s/intel-rapl:*/energy_uj",
			 path, tmproot);
		if (ret != -EACCES || strcmp(err, want) || src.n || src.c) {
			fprintf(stderr, "got %d: %s\nwanted: %s\n", ret, err, want);
			_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	remove_tmp();
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- the perf power PMU through a fake counter_sys ---- */

#define MAX_OPENS     16
#define FAKE_READINGS 3

struct fake_open {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd;
	unsigned long flags;
	int fd, wfd; /* the pipe's ends */
};

struct fake_pmu {
	struct fake_open opens[MAX_OPENS];
	int nopens, nclosed;
	int eacces_config; /* EACCES for this config (-1: none, 0: every event) */
	int enoent_config; /* ENOENT for this config (-1: none, 0: every event) */
};

/* A pipe whose reads return FAKE_READINGS values counting up from CONFIG * 1000, step
 * CONFIG * 10 + CPU. */
static int fake_pmu_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			 unsigned long flags)
{
	struct fake_pmu *f = ctx;
	struct fake_open *o;
	int p[2];

	assert_true(f->nopens < MAX_OPENS);
	if (f->eacces_config == 0 || (uint64_t)f->eacces_config == attr->config) {
		errno = EACCES;
		return -1;
	}
	if (f->enoent_config == 0 || (uint64_t)f->enoent_config == attr->config) {
		errno = ENOENT;
		return -1;
	}
	o = &f->opens[f->nopens++];
	o->attr = *attr;
	o->pid = pid;
	o->cpu = cpu;
	o->group_fd = group_fd;
	o->flags = flags;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	for (uint64_t k = 0; k < FAKE_READINGS; k++) {
		uint64_t v = attr->config * 1000 + k * (attr->config * 10 + (uint64_t)cpu);

		assert_int_equal(write(p[1], &v, sizeof(v)), sizeof(v));
	}
	o->fd = p[0];
	o->wfd = p[1];
	return p[0];
}

static int fake_pmu_close(void *ctx, int fd)
{
	struct fake_pmu *f = ctx;

	for (int i = 0; i < f->nopens; i++)
		if (f->opens[i].fd == fd) {
			close(f->opens[i].wfd);
			f->opens[i].fd = -1;
			f->nclosed++;
		}
	return close(fd);
}

static void fake_pmu_init(struct fake_pmu *f, struct counter_sys *sys)
{
	memset(f, 0, sizeof(*f));
	f->eacces_config = f->enoent_config = -1;
	sys->open = fake_pmu_open;
	sys->close = fake_pmu_close;
	sys->ctx = f;
}

static void test_perf_events(void **state)
{
	static const char *const names[] = {"energy-pkg", "energy-cores", "energy-ram",
					    "energy-gpu", "energy-psys"};
	static const uint64_t configs[] = {2, 1, 3, 4, 5};
	const double nj = 2.3283064365386962890625e-10;
	struct counter_sys sys;
	struct fake_pmu f;
	struct power_source src;
	uint64_t v[5];
	char err[512];

	(void)state;
	fake_pmu_init(&f, &sys);
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-power"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 0);
	assert_int_equal(src.kind, POWER_SOURCE_PERF);
	assert_string_equal(power_source_name(&src), "perf");
	assert_int_equal(src.n, 5);
	assert_int_equal(f.nopens, 5);
	for (size_t i = 0; i < 5; i++) {
		const struct fake_open *o = &f.opens[i];

		assert_string_equal(src.c[i].name, names[i]);
		assert_string_equal(src.c[i].unit, "Joules");
		assert_true(src.c[i].scale == (configs[i] == 3 ? 6.103515625e-05 : nj));
		assert_int_equal(src.c[i].wrap, 0);
		assert_int_equal(src.c[i].cpu, 0);
		/* system-wide on the PMU's CPU, counting at once, no fd left to the command */
		assert_int_equal(o->attr.type, 23);
		assert_int_equal(o->attr.config, configs[i]);
		assert_int_equal(o->attr.size, sizeof(o->attr));
		assert_int_equal(o->attr.disabled, 0);
		assert_int_equal(o->attr.inherit, 0);
		assert_int_equal(o->attr.read_format, 0);
		assert_int_equal(o->pid, -1);
		assert_int_equal(o->cpu, 0);
		assert_int_equal(o->group_fd, -1);
		assert_int_equal(o->flags, PERF_FLAG_FD_CLOEXEC);
	}
	for (uint64_t k = 0; k < FAKE_READINGS; k++) {
		assert_int_equal(power_source_read(&src, v), 0);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(v[i], configs[i] * 1000 + k * configs[i] * 10);
	}
	power_source_close(&src);
	assert_int_equal(f.nclosed, 5);
}

/* One package per CPU of cpumask: every event on each, named after the CPU. */
static void test_perf_two_packages(void **state)
{
	struct counter_sys sys;
	struct fake_pmu f;
	struct power_source src;
	uint64_t v[2];
	char err[512], sysfs[PATH_MAX];

	(void)state;
	make_tmp();
	put("bus/event_source/devices/power/type", "23\n");
	put("bus/event_source/devices/power/cpumask", "0,4\n");
	put("bus/event_source/devices/power/events/energy-pkg", "event=0x02\n");
	put("bus/event_source/devices/power/events/energy-pkg.scale", "0.5\n");
	put("bus/event_source/devices/power/events/energy-pkg.unit", "Joules\n");
	/* events that are not usable are left out with the reason */
	put("bus/event_source/devices/power/events/energy-gpu", "event=0x04\n");
	put("bus/event_source/devices/power/events/energy-gpu.unit", "Joules\n");
	put("bus/event_source/devices/power/events/energy-ram", "event=0x03\n");
	put("bus/event_source/devices/power/events/energy-ram.scale", "1\n");
	put("bus/event_source/devices/power/events/energy-ram.unit", "mJ\n");
	put("bus/event_source/devices/power/events/energy-odd", "bogus\n");
	snprintf(sysfs, sizeof(sysfs), "%s", tmproot);
	fake_pmu_init(&f, &sys);
	assert_int_equal(
	    power_pmu_open(&src, sysfs, DATA("procfs-paranoid2"), &sys, err, sizeof(err)), 0);
	assert_int_equal(src.n, 2);
	assert_string_equal(src.c[0].name, "energy-pkg@cpu0");
	assert_string_equal(src.c[1].name, "energy-pkg@cpu4");
	assert_int_equal(f.opens[0].cpu, 0);
	assert_int_equal(f.opens[1].cpu, 4);
	assert_true(src.c[1].scale == 0.5);
	assert_string_equal(src.skipped, "energy-ram (unit is not Joules), energy-gpu (no valid "
					 ".scale), energy-odd (unknown encoding)");
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(power_source_read(&src, v), 0);
	assert_int_equal(v[0], 2000 + 20);
	assert_int_equal(v[1], 2000 + 24);
	power_source_close(&src);
	assert_int_equal(f.nclosed, 2);
	remove_tmp();
}

/* perf_event_paranoid forbids system-wide events: -EACCES naming the setting and the fix,
 * and the events already open are closed. */
static void test_perf_not_permitted(void **state)
{
	struct counter_sys sys;
	struct fake_pmu f;
	struct power_source src;
	char err[512];

	(void)state;
	fake_pmu_init(&f, &sys);
	f.eacces_config = 3; /* energy-ram, after energy-pkg and energy-cores opened */
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-power"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 -EACCES);
	assert_string_equal(err, "power/energy-ram (system-wide on CPU 0) not permitted: "
				 "kernel.perf_event_paranoid is 2, system-wide measurement needs "
				 "<= 0: run as root, grant CAP_PERFMON, or: sysctl -w "
				 "kernel.perf_event_paranoid=0");
	assert_int_equal(f.nopens, 2);
	assert_int_equal(f.nclosed, 2);
	assert_int_equal(src.n, 0);
}

/* An event the kernel does not have is left out; none at all is an error. */
static void test_perf_missing_events(void **state)
{
	struct counter_sys sys;
	struct fake_pmu f;
	struct power_source src;
	char err[512];

	(void)state;
	fake_pmu_init(&f, &sys);
	f.enoent_config = 4;
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-power"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 0);
	assert_int_equal(src.n, 4);
	assert_string_equal(src.c[3].name, "energy-psys");
	assert_string_equal(src.skipped, "energy-gpu (No such file or directory)");
	power_source_close(&src);
	assert_int_equal(f.nclosed, 4);

	fake_pmu_init(&f, &sys);
	f.enoent_config = 0;
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-power"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no energy event of " DATA("sysfs-power")));
	assert_non_null(strstr(err, "energy-pkg (No such file or directory)"));
	assert_int_equal(src.n, 0);
}

static void test_perf_no_pmu(void **state)
{
	struct counter_sys sys;
	struct fake_pmu f;
	struct power_source src;
	char err[512];

	(void)state;
	fake_pmu_init(&f, &sys);
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-pmu"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(
	    err, "no perf power PMU (" DATA(
		     "sysfs-pmu") "/bus/event_source/"
				  "devices/power) (a VM or a CPU without RAPL): use --power rapl "
				  "or --power file:PATH");
	/* the VM this tree comes from has the PMU, without events */
	assert_int_equal(power_pmu_open(&src, DATA("sysfs-nopmu"), DATA("procfs-paranoid2"), &sys,
					err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(
	    err, "the perf power PMU (" DATA(
		     "sysfs-nopmu") "/bus/event_source/"
				    "devices/power) has no energy-* event (a VM or a CPU without "
				    "RAPL): use --power rapl or --power file:PATH");
	assert_int_equal(f.nopens, 0);
	assert_int_equal(src.n, 0);
}

static void test_perf_event_config(void **state)
{
	uint64_t c;

	(void)state;
	make_tmp();
	put("format/event", "config:0-7\n");
	put("format/umask", "config:8-15\n");
	put("format/edge", "config:18\n");
	put("format/cmask", "config1:0-7\n");
	assert_int_equal(power_pmu_event_config(tmproot, "event=0x02", &c), 0);
	assert_int_equal(c, 2);
	assert_int_equal(power_pmu_event_config(tmproot, "event=0x1,umask=0x3,edge=1", &c), 0);
	assert_int_equal(c, 0x40301);
	assert_int_equal(power_pmu_event_config(tmproot, "event=10", &c), 0);
	assert_int_equal(c, 10);
	/* too wide for its bits, unknown or unsupported fields, bad syntax */
	assert_int_equal(power_pmu_event_config(tmproot, "event=0x100", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "edge=2", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "period=1", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "cmask=1", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "event=", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "event=0x2x", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "event", &c), -EINVAL);
	assert_int_equal(power_pmu_event_config(tmproot, "=1", &c), -EINVAL);
	remove_tmp();
	/* a PMU without format files: event is config:0-7 */
	assert_int_equal(power_pmu_event_config(DATA("no-such-pmu"), "event=0x05", &c), 0);
	assert_int_equal(c, 5);
	assert_int_equal(power_pmu_event_config(DATA("no-such-pmu"), "umask=1", &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rapl_intel),
	    cmocka_unit_test(test_rapl_two_packages_sorted),
	    cmocka_unit_test(test_rapl_mmio_only),
	    cmocka_unit_test(test_rapl_none),
	    cmocka_unit_test(test_rapl_unreadable_zone),
	    cmocka_unit_test(test_rapl_reads_again),
	    cmocka_unit_test(test_rapl_names),
	    cmocka_unit_test(test_rapl_permission),
	    cmocka_unit_test(test_perf_events),
	    cmocka_unit_test(test_perf_two_packages),
	    cmocka_unit_test(test_perf_not_permitted),
	    cmocka_unit_test(test_perf_missing_events),
	    cmocka_unit_test(test_perf_no_pmu),
	    cmocka_unit_test(test_perf_event_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
