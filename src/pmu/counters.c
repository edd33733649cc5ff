/* counters.c - opening, grouping and reading perf_event counters. */
#include "pmu/counters.h"
#include "lib/compiler.h"
#include "format/format.h"
#include "lib/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static int sys_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags)
{
	(void)ctx;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

const struct counter_sys counter_sys_linux = {sys_open, sys_close, NULL};

void counter_attr_build(const struct event_desc *ev, unsigned flags, int leader,
			struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_hv = ev->exclude_hv;
	attr->precise_ip = ev->precise_ip;
	attr->read_format =
	    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->inherit = !!(flags & COUNTER_INHERIT);
	/*
	 * Leaders start disabled: a member added to a group that is already counting stays
	 * off the PMU until the next context switch, so counter_set_open enables the groups
	 * once they are complete. Members follow their leader.
	 */
	if (leader) {
		attr->disabled = 1;
		attr->enable_on_exec = !!(flags & COUNTER_ENABLE_ON_EXEC);
	}
}

int counter_set_init(struct counter_set *set, const struct event_desc *evs, size_t n,
		     unsigned flags, const struct counter_sys *sys)
{
	memset(set, 0, sizeof(*set));
	set->flags = flags;
	set->sys = sys ? sys : &counter_sys_linux;
	set->max_hw_per_group = 4;
	if (n == 0)
		return 0;
	set->ev = psc_mem_calloc(n, sizeof(*set->ev));
	set->groups = psc_mem_calloc(n, sizeof(*set->groups));
	set->order = psc_mem_calloc(n, sizeof(*set->order));
	if (!set->ev || !set->groups || !set->order) {
		counter_set_release(set);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		set->ev[i].desc = evs[i];
		set->ev[i].fd = -1;
		set->ev[i].group = PSC_NO_GROUP;
		set->ev[i].status = -ENODEV;
	}
	set->nev = n;
	return 0;
}

/* Open one event, retrying user-only when kernel counting is not permitted. */
static int open_one(struct counter_set *set, struct counter *c, pid_t pid, int cpu, int leader,
		    int group_fd)
{
	struct perf_event_attr attr;
	int fd;

	counter_attr_build(&c->desc, set->flags, leader, &attr);
	fd = set->sys->open(set->sys->ctx, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	/* user space only is a fallback for events that count it (not for :k events) */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel &&
	    !attr.exclude_user) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = set->sys->open(set->sys->ctx, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			c->user_only = 1;
	}
	return fd < 0 ? -errno : fd;
}

static unsigned hw_members(const struct counter_set *set, const struct counter_group *g)
{
	unsigned n = 0;

	for (uint32_t k = 0; k < g->nmembers; k++)
		n += event_is_hardware(&set->ev[set->order[g->first + k]].desc);
	return n;
}

static void map_page(struct counter_set *set, struct counter *c)
{
	long pagesize = sysconf(_SC_PAGESIZE);
	void *p;

	if (!(set->flags & COUNTER_RDPMC) || !event_is_hardware(&c->desc) ||
	    set->sys != &counter_sys_linux)
		return;
	p = mmap(NULL, (size_t)pagesize, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p != MAP_FAILED)
		c->page = p;
}

int counter_set_open(struct counter_set *set, pid_t pid)
{
	return counter_set_open_cpu(set, pid, -1);
}

int counter_set_open_cpu(struct counter_set *set, pid_t pid, int cpu)
{
	struct counter_group *cur = NULL;
	uint32_t pos = 0;
	int counting = 0;

	for (size_t i = 0; i < set->nev; i++) {
		struct counter *c = &set->ev[i];
		int fd = -1;

		if (cur && !(set->flags & COUNTER_NO_GROUP) &&
		    (!event_is_hardware(&c->desc) || hw_members(set, cur) < set->max_hw_per_group))
			fd = open_one(set, c, pid, cpu, 0, cur->leader_fd);
		if (fd >= 0) {
			cur->nmembers++;
		} else {
			fd = open_one(set, c, pid, cpu, 1, -1);
			if (fd < 0) {
				c->status = fd;
				continue;
			}
			cur = &set->groups[set->ngroups++];
			cur->leader_fd = fd;
			cur->first = pos;
			cur->nmembers = 1;
		}
		c->fd = fd;
		c->status = 0;
		c->group = (uint32_t)(cur - set->groups);
		set->order[pos++] = (uint32_t)i;
		map_page(set, c);
		counting++;
	}
	if (!(set->flags & (COUNTER_DISABLED | COUNTER_ENABLE_ON_EXEC)) &&
	    set->sys == &counter_sys_linux)
		counter_set_enable(set);
	set->snapshot_words = 0;
	for (uint32_t g = 0; g < set->ngroups; g++) {
		struct counter_group *grp = &set->groups[g];

		set->snapshot_words += 3 + grp->nmembers;
		grp->rdpmc = 1;
		for (uint32_t k = 0; k < grp->nmembers; k++) {
			const struct counter *m = &set->ev[set->order[grp->first + k]];

			grp->rdpmc &= m->page && m->page->cap_user_rdpmc;
		}
	}
	return counting;
}

static int for_each_group(struct counter_set *set, unsigned long request)
{
	for (uint32_t g = 0; g < set->ngroups; g++)
		if (ioctl(set->groups[g].leader_fd, request, PERF_IOC_FLAG_GROUP) < 0)
			return -errno;
	return 0;
}

int counter_set_enable(struct counter_set *set)
{
	return for_each_group(set, PERF_EVENT_IOC_ENABLE);
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t hw_rdpmc(uint32_t counter)
{
	return __rdpmc((int)counter);
}

static uint64_t hw_ticks(void)
{
	return __rdtsc();
}
#else
static uint64_t hw_rdpmc(uint32_t counter)
{
	(void)counter;
	return 0;
}

static uint64_t hw_ticks(void)
{
	return 0;
}
#endif

int counter_read_page(const volatile struct perf_event_mmap_page *pc,
		      uint64_t (*rdpmc)(uint32_t counter), uint64_t (*ticks)(void), uint64_t *value,
		      uint64_t *enabled, uint64_t *running)
{
	uint64_t ena, run, cyc = 0, time_offset = 0, time_cycles = 0, time_mask = ~0ull, cnt;
	uint32_t seq, idx, time_mult = 0;
	uint16_t time_shift = 0;
	int time_short = 0;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		ena = pc->time_enabled;
		run = pc->time_running;
		if (pc->cap_user_time && ena != run) {
			cyc = ticks();
			time_mult = pc->time_mult;
			time_shift = pc->time_shift;
			time_offset = pc->time_offset;
			time_short = pc->cap_user_time_short;
			if (time_short) {
				time_cycles = pc->time_cycles;
				time_mask = pc->time_mask;
			}
		}
		idx = pc->index;
		cnt = pc->offset;
		if (!pc->cap_user_rdpmc || !idx || pc->pmc_width == 0 || pc->pmc_width > 64)
			return -EAGAIN;
		unsigned width = pc->pmc_width;
		int64_t pmc = (int64_t)(rdpmc(idx - 1) << (64 - width));

		cnt += (uint64_t)(pmc >> (64 - width));
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	if (ena != run && time_mult) {
		uint64_t quot, rem, delta;

		if (time_short)
			cyc = time_cycles + ((cyc - time_cycles) & time_mask);
		quot = cyc >> time_shift;
		rem = cyc & (((uint64_t)1 << time_shift) - 1);
		delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
		ena += delta;
		run += delta;
	}
	*value = cnt;
	*enabled = ena;
	*running = run;
	return 0;
}

/* A group's snapshot through rdpmc; -EAGAIN when a member is not on a counter right now. */
static int group_read_rdpmc(struct counter_set *set, const struct counter_group *g, uint64_t *w)
{
	for (uint32_t k = 0; k < g->nmembers; k++) {
		const struct counter *m = &set->ev[set->order[g->first + k]];
		uint64_t ena, run;
		int ret = counter_read_page(m->page, hw_rdpmc, hw_ticks, &w[3 + k], &ena, &run);

		if (ret)
			return ret;
		if (k == 0) {
			w[1] = ena;
			w[2] = run;
		}
	}
	w[0] = g->nmembers;
	return 0;
}

int counter_set_snapshot(struct counter_set *set, uint64_t *words)
{
	for (uint32_t g = 0; g < set->ngroups; g++) {
		const struct counter_group *grp = &set->groups[g];
		size_t bytes = (3 + (size_t)grp->nmembers) * sizeof(uint64_t);

		if (grp->rdpmc && group_read_rdpmc(set, grp, words) == 0) {
			words += 3 + grp->nmembers;
			continue;
		}
		ssize_t got = read(grp->leader_fd, words, bytes);

		if (unlikely(got != (ssize_t)bytes))
			return got < 0 ? -errno : -EIO;
		words += 3 + grp->nmembers;
	}
	return 0;
}

void counter_set_layout(const struct counter_set *set, uint32_t *group_of, int32_t *status)
{
	for (size_t i = 0; i < set->nev; i++) {
		group_of[i] = set->ev[i].group;
		status[i] = set->ev[i].status;
	}
}

void counter_set_release(struct counter_set *set)
{
	long pagesize = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < set->nev; i++) {
		if (set->ev[i].page)
			munmap(set->ev[i].page, (size_t)pagesize);
		if (set->ev[i].fd >= 0)
			set->sys->close(set->sys->ctx, set->ev[i].fd);
	}
	psc_mem_free(set->ev);
	psc_mem_free(set->groups);
	psc_mem_free(set->order);
	memset(set, 0, sizeof(*set));
}

const char *counter_status_reason(int status, const struct event_desc *ev, int paranoid,
				  int have_core_pmu, char *buf, size_t len)
{
	switch (-status) {
	case 0:
		snprintf(buf, len, "counting");
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (event_is_hardware(ev) && !have_core_pmu)
			snprintf(buf, len,
				 "not supported: no hardware PMU on this machine "
				 "(a VM without PMU passthrough?)");
		else
			snprintf(buf, len, "not supported by this machine's PMU or kernel");
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, len,
			 "permission denied (kernel.perf_event_paranoid=%d): run as root, grant "
			 "CAP_PERFMON, or: sysctl -w kernel.perf_event_paranoid=%d",
			 paranoid, paranoid > 2 ? 2 : 1);
		break;
	case EINVAL:
		snprintf(buf, len, "not supported: invalid encoding or modifier for this PMU");
		break;
	case EBUSY:
		snprintf(buf, len, "PMU busy: another tool or the NMI watchdog holds the counters");
		break;
	case EMFILE:
		snprintf(buf, len, "too many open files: raise the limit with ulimit -n");
		break;
	default:
		snprintf(buf, len, "not counted: %s", strerror(-status));
		break;
	}
	return buf;
}
