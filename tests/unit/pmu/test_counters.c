/*
 * test_counters.c - the hardware counter path without a PMU: the perf_event_attr encoding of
 * resolved events (checked against the kernel ABI), grouping and fallbacks through a fake
 * struct counter_sys, and the status texts. Reads through the mmap'd page are in
 * test_counters_page.c.
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

#include "pmu/counters.h"
#include "pmu/counts.h"
#include "pmu/events.h"
#include "format/format.h"

/* ---- (a) attribute encoding ----------------------------------------------------------------- */

/* Kernel ABI values (include/uapi/linux/perf_event.h), spelled out on purpose. */
#define ABI_TYPE_HARDWARE 0u
#define ABI_TYPE_SOFTWARE 1u
#define ABI_TYPE_HW_CACHE 3u
#define ABI_TYPE_RAW	  4u
/* TOTAL_TIME_ENABLED 1<<0 | TOTAL_TIME_RUNNING 1<<1 | GROUP 1<<3 */
#define ABI_READ_FORMAT 0xbu

static struct event_desc resolve(const char *name)
{
	struct event_desc ev;
	int ret = event_resolve(name, &ev);

	if (ret)
		fail_msg("event_resolve(\"%s\") = %d", name, ret);
	return ev;
}

static void check_plain(const struct perf_event_attr *a, const struct event_desc *ev)
{
	assert_int_equal(a->size, sizeof(struct perf_event_attr));
	assert_int_equal(a->read_format, ABI_READ_FORMAT);
	assert_int_equal(a->read_format, PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
					     PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_int_equal(a->config1, 0);
	assert_int_equal(a->config2, 0);
	assert_int_equal(a->exclude_user, ev->exclude_user);
	assert_int_equal(a->exclude_kernel, ev->exclude_kernel);
	assert_int_equal(a->exclude_hv, ev->exclude_hv);
	assert_int_equal(a->sample_period, 0);
	assert_int_equal(a->sample_type, 0);
	assert_int_equal(a->freq, 0);
	assert_int_equal(a->pinned, 0);
	assert_int_equal(a->exclusive, 0);
}

static void test_attr_encoding(void **state)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
	} cases[] = {
	    {"cycles", ABI_TYPE_HARDWARE, 0},			   /* PERF_COUNT_HW_CPU_CYCLES */
	    {"instructions", ABI_TYPE_HARDWARE, 1},		   /* PERF_COUNT_HW_INSTRUCTIONS */
	    {"L1-dcache-load-misses", ABI_TYPE_HW_CACHE, 0x10000}, /* L1D 0 | READ 0 | MISS 1 */
	    {"dTLB-load-misses", ABI_TYPE_HW_CACHE, 0x10003},	   /* DTLB 3 | READ 0 | MISS 1 */
	    {"r01c2", ABI_TYPE_RAW, 0x1c2},
	    {"page-faults", ABI_TYPE_SOFTWARE, 2}, /* PERF_COUNT_SW_PAGE_FAULTS */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct event_desc ev = resolve(cases[i].name);
		struct perf_event_attr a;

		memset(&a, 0x5a, sizeof(a));
		counter_attr_build(&ev, 0, 1, &a);
		if (a.type != cases[i].type || a.config != cases[i].config)
			fail_msg("%s: type %u config %#llx, expected %u %#llx", cases[i].name,
				 a.type, (unsigned long long)a.config, cases[i].type,
				 (unsigned long long)cases[i].config);
		check_plain(&a, &ev);
		/* no modifier: user and kernel both counted */
		assert_int_equal(a.exclude_user, 0);
		assert_int_equal(a.exclude_kernel, 0);
		/*
		 * no flags: a non-inherited leader that starts disabled (counter_set_open
		 * enables complete groups), nothing at exec
		 */
		assert_int_equal(a.disabled, 1);
		assert_int_equal(a.enable_on_exec, 0);
		assert_int_equal(a.inherit, 0);
		/* as a member: never disabled, it follows its leader */
		counter_attr_build(&ev, 0, 0, &a);
		assert_int_equal(a.type, cases[i].type);
		assert_int_equal(a.config, cases[i].config);
		check_plain(&a, &ev);
		assert_int_equal(a.disabled, 0);
		assert_int_equal(a.enable_on_exec, 0);
	}
}

static void test_attr_modifiers(void **state)
{
	struct event_desc u = resolve("cycles:u");
	struct event_desc k = resolve("cycles:k");
	struct perf_event_attr a;

	(void)state;
	counter_attr_build(&u, 0, 1, &a);
	assert_int_equal(a.type, ABI_TYPE_HARDWARE);
	assert_int_equal(a.config, 0);
	assert_int_equal(a.exclude_user, 0);
	assert_int_equal(a.exclude_kernel, 1);
	counter_attr_build(&k, 0, 1, &a);
	assert_int_equal(a.exclude_user, 1);
	assert_int_equal(a.exclude_kernel, 0);
}

static void test_attr_flags(void **state)
{
	struct event_desc ev = resolve("instructions");
	struct perf_event_attr a;

	(void)state;
	/* enable-on-exec: only the leader starts disabled and is enabled at exec */
	counter_attr_build(&ev, COUNTER_ENABLE_ON_EXEC, 1, &a);
	assert_int_equal(a.disabled, 1);
	assert_int_equal(a.enable_on_exec, 1);
	assert_int_equal(a.inherit, 0);
	counter_attr_build(&ev, COUNTER_ENABLE_ON_EXEC, 0, &a);
	assert_int_equal(a.disabled, 0);
	assert_int_equal(a.enable_on_exec, 0);
	/* disabled: the leader starts disabled, nothing at exec */
	counter_attr_build(&ev, COUNTER_DISABLED, 1, &a);
	assert_int_equal(a.disabled, 1);
	assert_int_equal(a.enable_on_exec, 0);
	counter_attr_build(&ev, COUNTER_DISABLED, 0, &a);
	assert_int_equal(a.disabled, 0);
	/* inherit: leader and members */
	counter_attr_build(&ev, COUNTER_INHERIT, 1, &a);
	assert_int_equal(a.inherit, 1);
	assert_int_equal(a.disabled, 1);
	assert_int_equal(a.enable_on_exec, 0);
	counter_attr_build(&ev, COUNTER_INHERIT | COUNTER_ENABLE_ON_EXEC, 0, &a);
	assert_int_equal(a.inherit, 1);
	assert_int_equal(a.disabled, 0);
	assert_int_equal(a.enable_on_exec, 0);
	/* flags never change the encoding */
	assert_int_equal(a.type, ABI_TYPE_HARDWARE);
	assert_int_equal(a.config, 1);
	assert_int_equal(a.read_format, ABI_READ_FORMAT);
}

/* ---- (b) a fake perf_event_open ----------------------------------------------------------- */

#define MAX_CALLS 64

struct call {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd;
	unsigned long flags;
	int ret, err;
};

struct fake {
	struct call calls[MAX_CALLS];
	int ncalls;
	int next_fd;
	/* failure rules */
	uint32_t fail_type;  /* fail events of this type ... */
	int fail_type_errno; /* ... with this errno (0: rule off) */
	int max_hw;	     /* EINVAL when a group would get more hardware members (0: off) */
	int eacces_kernel;   /* EACCES unless exclude_kernel is set */
	/* groups: leader fd -> hardware members */
	int leader_fd[MAX_CALLS], leader_hw[MAX_CALLS], nleaders;
	int closed[MAX_CALLS], nclosed;
};

static int is_hw_type(uint32_t type)
{
	return type != 1 && type != 2 && type != 5;
}

static int fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	struct fake *f = ctx;
	struct call *c;
	int err = 0, hw = is_hw_type(attr->type), g = -1;

	assert_true(f->ncalls < MAX_CALLS);
	c = &f->calls[f->ncalls++];
	c->attr = *attr;
	c->pid = pid;
	c->cpu = cpu;
	c->group_fd = group_fd;
	c->flags = flags;
	if (group_fd >= 0) {
		for (int i = 0; i < f->nleaders; i++)
			if (f->leader_fd[i] == group_fd)
				g = i;
		assert_true(g >= 0); /* members only join open leaders */
	}
	if (f->fail_type_errno && attr->type == f->fail_type)
		err = f->fail_type_errno;
	else if (f->eacces_kernel && !attr->exclude_kernel)
		err = EACCES;
	else if (f->max_hw && hw && g >= 0 && f->leader_hw[g] + 1 > f->max_hw)
		err = EINVAL;
	if (err) {
		c->ret = -1;
		c->err = err;
		errno = err;
		return -1;
	}
	c->ret = f->next_fd++;
	if (g >= 0) {
		f->leader_hw[g] += hw;
	} else {
		f->leader_fd[f->nleaders] = c->ret;
		f->leader_hw[f->nleaders++] = hw;
	}
	return c->ret;
}

static int fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	f->closed[f->nclosed++] = fd;
	return 0;
}

static void fake_init(struct fake *f, struct counter_sys *sys)
{
	memset(f, 0, sizeof(*f));
	f->next_fd = 100;
	sys->open = fake_open;
	sys->close = fake_close;
	sys->ctx = f;
}

static void resolve_all(const char *const *names, size_t n, struct event_desc *evs)
{
	for (size_t i = 0; i < n; i++)
		evs[i] = resolve(names[i]);
}

/* Check the layout: group of every event and its status. */
static void check_layout(const struct counter_set *set, const uint32_t *group_of,
			 const int32_t *status)
{
	uint32_t g[16];
	int32_t s[16];

	assert_true(set->nev <= 16);
	counter_set_layout(set, g, s);
	for (size_t i = 0; i < set->nev; i++) {
		if (g[i] != group_of[i] || s[i] != status[i])
			fail_msg("event %zu: group %u status %d, expected group %u status %d", i,
				 g[i], s[i], group_of[i], status[i]);
	}
}

/* Every fd opened successfully is closed exactly once by counter_set_release. */
static void check_release(struct counter_set *set, struct fake *f)
{
	int opened = 0;

	counter_set_release(set);
	for (int i = 0; i < f->ncalls; i++) {
		int seen = 0;

		if (f->calls[i].ret < 0)
			continue;
		opened++;
		for (int k = 0; k < f->nclosed; k++)
			seen += f->closed[k] == f->calls[i].ret;
		if (seen != 1)
			fail_msg("fd %d closed %d times", f->calls[i].ret, seen);
	}
	assert_int_equal(f->nclosed, opened);
	assert_null(set->ev);
}

static void test_group_all_fit(void **state)
{
	static const char *const names[] = {"cycles", "instructions", "page-faults"};
	static const uint32_t groups[] = {0, 0, 0};
	static const int32_t status[] = {0, 0, 0};
	struct event_desc evs[3];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	resolve_all(names, 3, evs);
	assert_int_equal(
	    counter_set_init(&set, evs, 3, COUNTER_ENABLE_ON_EXEC | COUNTER_INHERIT, &sys), 0);
	/* before opening: nothing counts */
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(set.ev[i].fd, -1);
		assert_int_equal(set.ev[i].group, PSC_NO_GROUP);
		assert_true(set.ev[i].status < 0);
	}
	assert_int_equal(counter_set_open_cpu(&set, 4321, 3), 3);
	assert_int_equal(f.ncalls, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f.calls[i].pid, 4321);
		assert_int_equal(f.calls[i].cpu, 3);
		assert_int_equal(f.calls[i].flags, PERF_FLAG_FD_CLOEXEC);
		assert_int_equal(f.calls[i].attr.inherit, 1);
		assert_int_equal(f.calls[i].attr.read_format, ABI_READ_FORMAT);
	}
	/* leader first, members in its group */
	assert_int_equal(f.calls[0].group_fd, -1);
	assert_int_equal(f.calls[1].group_fd, 100);
	assert_int_equal(f.calls[2].group_fd, 100);
	assert_int_equal(f.calls[0].attr.type, ABI_TYPE_HARDWARE);
	assert_int_equal(f.calls[0].attr.config, 0);
	assert_int_equal(f.calls[1].attr.config, 1);
	assert_int_equal(f.calls[2].attr.type, ABI_TYPE_SOFTWARE);
	assert_int_equal(f.calls[2].attr.config, 2);
	/* only the leader is disabled until exec */
	assert_int_equal(f.calls[0].attr.disabled, 1);
	assert_int_equal(f.calls[0].attr.enable_on_exec, 1);
	assert_int_equal(f.calls[1].attr.disabled, 0);
	assert_int_equal(f.calls[1].attr.enable_on_exec, 0);
	assert_int_equal(f.calls[2].attr.disabled, 0);
	assert_int_equal(f.calls[2].attr.enable_on_exec, 0);

	assert_int_equal(set.ngroups, 1);
	assert_int_equal(set.groups[0].leader_fd, 100);
	assert_int_equal(set.groups[0].first, 0);
	assert_int_equal(set.groups[0].nmembers, 3);
	assert_int_equal(set.order[0], 0);
	assert_int_equal(set.order[1], 1);
	assert_int_equal(set.order[2], 2);
	assert_int_equal(set.ev[0].fd, 100);
	assert_int_equal(set.ev[1].fd, 101);
	assert_int_equal(set.ev[2].fd, 102);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(set.ev[i].user_only, 0);
		assert_null(set.ev[i].page);
	}
	/* nr, enabled, running + 3 values */
	assert_int_equal(set.snapshot_words, 6);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

/* The PMU takes 2 hardware events per group: the third hardware event starts a new group. */
static void test_group_split_on_failure(void **state)
{
	static const char *const names[] = {"cycles", "instructions", "r01c2", "page-faults",
					    "dTLB-load-misses"};
	static const uint32_t groups[] = {0, 0, 1, 1, 1};
	static const int32_t status[] = {0, 0, 0, 0, 0};
	struct event_desc evs[5];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.max_hw = 2;
	resolve_all(names, 5, evs);
	assert_int_equal(counter_set_init(&set, evs, 5, COUNTER_DISABLED, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 5);
	/*
	 * cycles: leader fd 100; instructions: member; r01c2: member refused (EINVAL), then
	 * leader fd 102; page-faults: member fd 103; dTLB: member fd 104 (2nd hw in group 1).
	 */
	assert_int_equal(f.ncalls, 6);
	assert_int_equal(f.calls[0].group_fd, -1);
	assert_int_equal(f.calls[0].ret, 100);
	assert_int_equal(f.calls[1].group_fd, 100);
	assert_int_equal(f.calls[1].ret, 101);
	assert_int_equal(f.calls[2].group_fd, 100);
	assert_int_equal(f.calls[2].ret, -1);
	assert_int_equal(f.calls[2].err, EINVAL);
	assert_int_equal(f.calls[2].attr.disabled, 0);
	assert_int_equal(f.calls[3].group_fd, -1);
	assert_int_equal(f.calls[3].ret, 102);
	assert_int_equal(f.calls[3].attr.disabled, 1); /* a new leader starts disabled */
	assert_int_equal(f.calls[3].attr.type, ABI_TYPE_RAW);
	assert_int_equal(f.calls[4].group_fd, 102);
	assert_int_equal(f.calls[4].ret, 103);
	assert_int_equal(f.calls[5].group_fd, 102);
	assert_int_equal(f.calls[5].ret, 104);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(f.calls[i].pid, 0);
		assert_int_equal(f.calls[i].cpu, -1);
	}
	assert_int_equal(set.ngroups, 2);
	assert_int_equal(set.groups[0].leader_fd, 100);
	assert_int_equal(set.groups[0].first, 0);
	assert_int_equal(set.groups[0].nmembers, 2);
	assert_int_equal(set.groups[1].leader_fd, 102);
	assert_int_equal(set.groups[1].first, 2);
	assert_int_equal(set.groups[1].nmembers, 3);
	assert_int_equal(set.snapshot_words, (3 + 2) + (3 + 3));
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

/* max_hw_per_group splits without asking the kernel; software events join any group. */
static void test_group_max_hw(void **state)
{
	static const char *const names[] = {
	    "cycles",		"instructions", "page-faults", "r01c2", "L1-dcache-load-misses",
	    "dTLB-load-misses", "task-clock"};
	static const uint32_t groups[] = {0, 0, 0, 1, 1, 2, 2};
	static const int32_t status[] = {0, 0, 0, 0, 0, 0, 0};
	struct event_desc evs[7];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	resolve_all(names, 7, evs);
	assert_int_equal(counter_set_init(&set, evs, 7, 0, &sys), 0);
	assert_int_equal(set.max_hw_per_group, 4); /* the default */
	set.max_hw_per_group = 2;
	assert_int_equal(counter_set_open(&set, 0), 7);
	/* no open was refused: every split was decided before the call */
	assert_int_equal(f.ncalls, 7);
	for (int i = 0; i < 7; i++)
		assert_true(f.calls[i].ret >= 0);
	assert_int_equal(f.calls[0].group_fd, -1);
	assert_int_equal(f.calls[1].group_fd, 100);
	assert_int_equal(f.calls[2].group_fd, 100);
	assert_int_equal(f.calls[3].group_fd, -1);
	assert_int_equal(f.calls[4].group_fd, 103);
	assert_int_equal(f.calls[5].group_fd, -1);
	assert_int_equal(f.calls[6].group_fd, 105);
	assert_int_equal(set.ngroups, 3);
	assert_int_equal(set.groups[0].nmembers, 3);
	assert_int_equal(set.groups[1].nmembers, 2);
	assert_int_equal(set.groups[2].nmembers, 2);
	assert_int_equal(set.groups[2].first, 5);
	assert_int_equal(set.snapshot_words, 6 + 5 + 5);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

static void test_no_group(void **state)
{
	static const char *const names[] = {"cycles", "instructions", "page-faults"};
	static const uint32_t groups[] = {0, 1, 2};
	static const int32_t status[] = {0, 0, 0};
	struct event_desc evs[3];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	resolve_all(names, 3, evs);
	assert_int_equal(
	    counter_set_init(&set, evs, 3, COUNTER_NO_GROUP | COUNTER_ENABLE_ON_EXEC, &sys), 0);
	assert_int_equal(counter_set_open(&set, 77), 3);
	assert_int_equal(f.ncalls, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f.calls[i].group_fd, -1);
		assert_int_equal(f.calls[i].pid, 77);
		/* every event leads its own group: each starts disabled until exec */
		assert_int_equal(f.calls[i].attr.disabled, 1);
		assert_int_equal(f.calls[i].attr.enable_on_exec, 1);
		assert_int_equal(set.groups[i].leader_fd, 100 + i);
		assert_int_equal(set.groups[i].nmembers, 1);
		assert_int_equal(set.groups[i].first, (uint32_t)i);
	}
	assert_int_equal(set.ngroups, 3);
	assert_int_equal(set.snapshot_words, 12);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

/* Kernel counting refused (EACCES unless exclude_kernel): retried user-only. */
static void test_user_only_fallback(void **state)
{
	static const char *const names[] = {"cycles", "page-faults"};
	static const uint32_t groups[] = {0, 0};
	static const int32_t status[] = {0, 0};
	struct event_desc evs[2];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.eacces_kernel = 1;
	resolve_all(names, 2, evs);
	assert_int_equal(counter_set_init(&set, evs, 2, 0, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 2);
	assert_int_equal(f.ncalls, 4);
	/* leader: refused, then user-only */
	assert_int_equal(f.calls[0].ret, -1);
	assert_int_equal(f.calls[0].err, EACCES);
	assert_int_equal(f.calls[0].attr.exclude_kernel, 0);
	assert_int_equal(f.calls[0].group_fd, -1);
	assert_int_equal(f.calls[1].ret, 100);
	assert_int_equal(f.calls[1].attr.exclude_kernel, 1);
	assert_int_equal(f.calls[1].attr.exclude_hv, 1);
	assert_int_equal(f.calls[1].attr.exclude_user, 0);
	assert_int_equal(f.calls[1].group_fd, -1);
	/* member: same, in the leader's group */
	assert_int_equal(f.calls[2].ret, -1);
	assert_int_equal(f.calls[2].group_fd, 100);
	assert_int_equal(f.calls[3].ret, 101);
	assert_int_equal(f.calls[3].group_fd, 100);
	assert_int_equal(f.calls[3].attr.exclude_kernel, 1);
	assert_int_equal(f.calls[3].attr.exclude_user, 0);
	assert_int_equal(set.ev[0].user_only, 1);
	assert_int_equal(set.ev[1].user_only, 1);
	assert_int_equal(set.ngroups, 1);
	assert_int_equal(set.snapshot_words, 5);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

/* An event that already excludes the kernel is not retried, and is not user-only. */
static void test_user_only_not_needed(void **state)
{
	struct event_desc ev = resolve("cycles:u");
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.eacces_kernel = 1;
	assert_int_equal(counter_set_init(&set, &ev, 1, 0, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 1);
	assert_int_equal(f.ncalls, 1);
	assert_int_equal(set.ev[0].user_only, 0);
	assert_int_equal(set.ev[0].status, 0);
	check_release(&set, &f);
}

/*
 * A kernel-only event (":k") refused with EACCES cannot fall back to user-only counting: with
 * both exclude_user and exclude_kernel set it would count nothing yet be reported as counting.
 * It must keep its -EACCES status (and its permission message) instead.
 */
static void test_kernel_only_refused(void **state)
{
	static const char *const names[] = {"cycles:k", "page-faults"};
	static const uint32_t groups[] = {PSC_NO_GROUP, 0};
	static const int32_t status[] = {-EACCES, 0};
	struct event_desc evs[2];
	int counting;
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.eacces_kernel = 1;
	resolve_all(names, 2, evs);
	assert_int_equal(evs[0].exclude_user, 1);
	assert_int_equal(counter_set_init(&set, evs, 2, 0, &sys), 0);
	counting = counter_set_open(&set, 0);
	/* never an open that excludes both user and kernel */
	for (int i = 0; i < f.ncalls; i++)
		if (f.calls[i].attr.exclude_user && f.calls[i].attr.exclude_kernel)
			fail_msg("open %d counts neither user nor kernel space", i);
	assert_int_equal(counting, 1);
	assert_int_equal(set.ev[0].user_only, 0);
	assert_int_equal(set.ev[0].fd, -1);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

/* An event the machine cannot count keeps its slot and status; the others still open. */
static void test_unsupported_event(void **state)
{
	static const char *const names[] = {"cycles", "L1-dcache-load-misses", "instructions",
					    "dTLB-load-misses"};
	static const uint32_t groups[] = {0, PSC_NO_GROUP, 0, PSC_NO_GROUP};
	static const int32_t status[] = {0, -ENOENT, 0, -ENOENT};
	struct event_desc evs[4];
	uint32_t g[4];
	int32_t s[4];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.fail_type = ABI_TYPE_HW_CACHE;
	f.fail_type_errno = ENOENT;
	resolve_all(names, 4, evs);
	assert_int_equal(counter_set_init(&set, evs, 4, 0, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 2);
	assert_int_equal(set.ngroups, 1);
	assert_int_equal(set.groups[0].nmembers, 2);
	assert_int_equal(set.order[0], 0);
	assert_int_equal(set.order[1], 2);
	assert_int_equal(set.ev[1].fd, -1);
	assert_int_equal(set.ev[3].fd, -1);
	assert_int_equal(set.ev[0].fd, 100);
	assert_int_equal(set.ev[2].fd, 101);
	assert_int_equal(set.snapshot_words, 5);
	check_layout(&set, groups, status);
	/* the layout gives the same snapshot size to the reader (counts.h) */
	counter_set_layout(&set, g, s);
	assert_int_equal(count_snapshot_words(g, 4), 5);
	check_release(&set, &f);
}

/* The very first event fails: the next one becomes group 0's leader. */
static void test_first_event_fails(void **state)
{
	static const char *const names[] = {"dTLB-load-misses", "cycles", "instructions"};
	static const uint32_t groups[] = {PSC_NO_GROUP, 0, 0};
	static const int32_t status[] = {-EOPNOTSUPP, 0, 0};
	struct event_desc evs[3];
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.fail_type = ABI_TYPE_HW_CACHE;
	f.fail_type_errno = EOPNOTSUPP;
	resolve_all(names, 3, evs);
	assert_int_equal(counter_set_init(&set, evs, 3, COUNTER_ENABLE_ON_EXEC, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 2);
	assert_int_equal(f.calls[0].ret, -1);
	assert_int_equal(f.calls[1].group_fd, -1);
	assert_int_equal(f.calls[1].attr.enable_on_exec, 1);
	assert_int_equal(f.calls[2].group_fd, 100);
	assert_int_equal(f.calls[2].attr.enable_on_exec, 0);
	assert_int_equal(set.groups[0].first, 0);
	assert_int_equal(set.order[0], 1);
	assert_int_equal(set.snapshot_words, 5);
	check_layout(&set, groups, status);
	check_release(&set, &f);
}

static void test_empty_set(void **state)
{
	struct counter_sys sys;
	struct counter_set set;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	assert_int_equal(counter_set_init(&set, NULL, 0, 0, &sys), 0);
	assert_int_equal(counter_set_open(&set, 0), 0);
	assert_int_equal(f.ncalls, 0);
	assert_int_equal(set.snapshot_words, 0);
	assert_int_equal(set.ngroups, 0);
	check_release(&set, &f);
}

/* ---- (c) status texts ----------------------------------------------------------------------- */

static void test_status_reason(void **state)
{
	struct event_desc hw = resolve("cycles");
	struct event_desc sw = resolve("page-faults");
	char buf[256];

	(void)state;
	assert_string_equal(counter_status_reason(0, &hw, 2, 1, buf, sizeof(buf)), "counting");
	assert_non_null(
	    strstr(counter_status_reason(-ENOENT, &hw, 2, 0, buf, sizeof(buf)), "no hardware PMU"));
	assert_non_null(strstr(counter_status_reason(-EOPNOTSUPP, &hw, 2, 0, buf, sizeof(buf)),
			       "no hardware PMU"));
	/* with a PMU, or for a software event, the PMU is not said to be missing */
	assert_null(
	    strstr(counter_status_reason(-ENOENT, &hw, 2, 1, buf, sizeof(buf)), "no hardware PMU"));
	assert_non_null(strstr(buf, "not supported"));
	assert_null(
	    strstr(counter_status_reason(-ENOENT, &sw, 2, 0, buf, sizeof(buf)), "no hardware PMU"));

	/* permission: names the sysctl, the current level, and the level that helps */
	counter_status_reason(-EACCES, &hw, 2, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid=2"));
	assert_non_null(strstr(buf, "sysctl -w kernel.perf_event_paranoid=1"));
	counter_status_reason(-EPERM, &hw, 3, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid=3"));
	assert_non_null(strstr(buf, "sysctl -w kernel.perf_event_paranoid=2"));

	counter_status_reason(-EMFILE, &sw, 2, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "too many open files"));
	assert_non_null(strstr(buf, "ulimit -n"));

	counter_status_reason(-EBUSY, &hw, 2, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "busy"));
	/* anything else: the errno text */
	counter_status_reason(-ENOSPC, &hw, 2, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, strerror(ENOSPC)));
	/* truncated into a small buffer, still terminated */
	counter_status_reason(-EMFILE, &sw, 2, 1, buf, 8);
	assert_int_equal(strlen(buf), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attr_encoding),
	    cmocka_unit_test(test_attr_modifiers),
	    cmocka_unit_test(test_attr_flags),
	    cmocka_unit_test(test_group_all_fit),
	    cmocka_unit_test(test_group_split_on_failure),
	    cmocka_unit_test(test_group_max_hw),
	    cmocka_unit_test(test_no_group),
	    cmocka_unit_test(test_user_only_fallback),
	    cmocka_unit_test(test_user_only_not_needed),
	    cmocka_unit_test(test_kernel_only_refused),
	    cmocka_unit_test(test_unsupported_event),
	    cmocka_unit_test(test_first_event_fails),
	    cmocka_unit_test(test_empty_set),
	    cmocka_unit_test(test_status_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
