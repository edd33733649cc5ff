/* sampler.c - per-CPU inherited sampling groups, ring buffer drain, exact totals. */
#include "record/sampler.h"
#include "record/ring.h"
#include "record/sampler-int.h"
#include "record/sample-out.h"

#include "model/kallsyms.h"
#include "pmu/clock.h"
#include "lib/compiler.h"
#include "pmu/cpuinfo.h"
#include "format/env.h"
#include "format/format.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RING_PAGES 256u /* 1 MiB of 4 KiB pages per CPU */
#define DRAIN_PERIOD_MS	   50
/* a record may be published a little after the time it carries: wait this long for it */
#define ORDER_SLACK_NS 2000000u

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_READ)
#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

uint64_t sampler_max_rate(const char *procfs)
{
	char path[PATH_MAX];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_sample_rate",
		 procfs ? procfs : "/proc");
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void attr_build(const struct sampler *s, const struct event_desc *ev, int leader, int tracks,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel || s->cfg.exclude_kernel;
	a->exclude_hv = ev->exclude_hv || s->cfg.exclude_kernel;
	a->precise_ip = ev->precise_ip;
	a->sample_type = SAMPLE_TYPE | (s->cfg.callgraph ? PERF_SAMPLE_CALLCHAIN : 0);
	a->read_format = READ_FORMAT;
	a->inherit = s->inherit;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_callchain_kernel = s->cfg.exclude_kernel;
	if (!leader)
		return;
	a->disabled = 1;
	a->enable_on_exec = 1;
	if (s->cfg.freq) {
		a->freq = 1;
		a->sample_freq = s->cfg.freq;
	} else {
		a->sample_period = s->cfg.period;
	}
	if (tracks) {
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		/* each mapping's build-id (Linux 5.12 on), so that a rebuild is noticed */
		a->build_id = !s->no_build_id;
		/* on- and off-CPU times, so that deltas spread over the time a thread ran */
		a->context_switch = 1;
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(s->cpus[0].ring.data_bytes / 4);
	}
}

static int sys_open(const struct sampler *s, struct perf_event_attr *a, int cpu, int group_fd)
{
	const struct counter_sys *sys = s->cfg.sys;
	int fd = sys->open(sys->ctx, a, s->pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Open event I on CPU slot C as a leader (group_fd -1) or member. */
static int open_event(struct sampler *s, size_t i, int c, int leader, int tracks, int group_fd)
{
	struct perf_event_attr a;

	attr_build(s, &s->ev[i].desc, leader, tracks, &a);
	return sys_open(s, &a, s->cpus[c].cpu, group_fd);
}

static int add_group(struct sampler *s, uint32_t leader)
{
	struct sampler_group *g = &s->groups[s->ngroups];

	g->members = calloc(s->nev, sizeof(*g->members));
	if (!g->members)
		return -ENOMEM;
	g->members[0] = leader;
	g->n = 1;
	s->ev[leader].group = s->ngroups++;
	return 0;
}

/*
 * On the first CPU: open the leader (retrying user-only where kernel sampling is not allowed),
 * then each event as a member, else alone in a group of its own, else not at all.
 */
static int plan_groups(struct sampler *s)
{
	struct sampler_cpu *c0 = &s->cpus[0];
	int fd = open_event(s, 0, 0, 1, 1, -1);

	if (fd == -EINVAL || fd == -E2BIG) { /* a kernel without build-ids in MMAP2 records */
		s->no_build_id = 1;
		fd = open_event(s, 0, 0, 1, 1, -1);
	}
	if ((fd == -EACCES || fd == -EPERM) && !s->cfg.exclude_kernel) {
		s->cfg.exclude_kernel = 1;
		fd = open_event(s, 0, 0, 1, 1, -1);
	}
	if (fd < 0)
		return fd;
	c0->fd[0] = fd;
	if (add_group(s, 0))
		return -ENOMEM;
	for (size_t i = 1; i < s->nev; i++) {
		struct sampler_event *e = &s->ev[i];

		fd = open_event(s, i, 0, 0, 0, c0->fd[0]);
		if (fd >= 0) {
			c0->fd[i] = fd;
			e->state = SAMPLER_IN_GROUP;
			e->group = 0;
			s->groups[0].members[s->groups[0].n++] = (uint32_t)i;
			continue;
		}
		e->join_error = fd;
		fd = open_event(s, i, 0, 1, 0, -1);
		if (fd < 0) {
			e->state = SAMPLER_FAILED;
			e->status = fd;
			e->group = PSC_NO_GROUP;
			continue;
		}
		c0->fd[i] = fd;
		e->state = SAMPLER_OWN_GROUP;
		if (add_group(s, (uint32_t)i))
			return -ENOMEM;
	}
	return 0;
}

/* The same groups on CPU slot C (the plan is known): members join their group's leader. */
static int open_cpu(struct sampler *s, int c)
{
	struct sampler_cpu *cpu = &s->cpus[c];

	for (uint32_t g = 0; g < s->ngroups; g++) {
		const struct sampler_group *grp = &s->groups[g];

		for (uint32_t k = 0; k < grp->n; k++) {
			uint32_t i = grp->members[k];
			int fd;

			if (c == 0 && cpu->fd[i] >= 0)
				continue;
			fd = open_event(s, i, c, k == 0, g == 0 && k == 0,
					k ? cpu->fd[grp->members[0]] : -1);
			if (fd < 0)
				return fd;
			cpu->fd[i] = fd;
		}
	}
	return 0;
}

/*
 * Map CPU slot C's ring on its first leader, then point the other leaders at it (the kernel
 * redirects output only into an event that has its buffer). Where the locked-memory limit
 * (kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK) refuses the ring, try smaller ones.
 */
static int map_ring(struct sampler *s, int c)
{
	struct sampler_cpu *cpu = &s->cpus[c];
	int fd0 = cpu->fd[0];
	int ret = perf_ring_map(&cpu->ring, fd0);

	if (ret)
		return ret;
	for (uint32_t g = 0; g < s->ngroups; g++) {
		int fd = cpu->fd[s->groups[g].members[0]];

		if (ioctl(fd, PERF_EVENT_IOC_ID, &cpu->id[g]) < 0)
			return -errno;
		if (g && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd0) < 0)
			return -errno;
	}
	return 0;
}

/* Forget a plan that failed: close what it opened on the first CPU. */
static void reset_plan(struct sampler *s)
{
	for (size_t i = 0; i < s->nev; i++) {
		if (s->cpus[0].fd[i] >= 0)
			s->cfg.sys->close(s->cfg.sys->ctx, s->cpus[0].fd[i]);
		s->cpus[0].fd[i] = -1;
	}
	for (uint32_t g = 0; g < s->ngroups; g++) {
		free(s->groups[g].members);
		s->groups[g].members = NULL;
	}
	s->ngroups = 0;
	memset(s->ev, 0, s->nev * sizeof(*s->ev));
	s->nev = 0;
}

static int same_event(const struct event_desc *a, const struct event_desc *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2;
}

/* LEADER, then the N requested events but the leader, planned on the first CPU. */
static int plan(struct sampler *s, const struct event_desc *leader, const struct event_desc *evs,
		size_t n)
{
	s->ev[0].desc = *leader;
	s->nev = 1;
	for (size_t i = 0; i < n; i++)
		if (!same_event(&evs[i], leader))
			s->ev[s->nev++].desc = evs[i];
	return plan_groups(s);
}

/* Plan with cycles as the leader, else with cpu-clock. */
static int plan_leader(struct sampler *s, const struct event_desc *evs, size_t n)
{
	struct event_desc leader;
	int ret = event_resolve("cycles", &leader);

	if (ret == 0)
		ret = plan(s, &leader, evs, n);
	if (ret < 0 && ret != -EACCES && ret != -EPERM) {
		reset_plan(s);
		if (event_resolve("cpu-clock", &leader))
			return -ENOENT;
		ret = plan(s, &leader, evs, n);
	}
	return ret;
}

int sampler_open(struct sampler *s, const struct sampler_config *cfg, const struct event_desc *evs,
		 size_t n, pid_t pid)
{
	int *cpus = NULL, ncpus, ret = 0;
	size_t pages;

	memset(s, 0, sizeof(*s));
	s->stop_fd = -1;
	s->cfg = *cfg;
	if (!s->cfg.sys)
		s->cfg.sys = &counter_sys_linux;
	pages = s->cfg.ring_pages ? s->cfg.ring_pages : DEFAULT_RING_PAGES;
	s->pid = pid;
	s->ev = calloc(n + 1, sizeof(*s->ev));
	s->groups = calloc(n + 1, sizeof(*s->groups));
	ncpus = perf_online_cpus(&cpus);
	if (!s->ev || !s->groups || ncpus <= 0) {
		free(cpus);
		return ncpus < 0 ? ncpus : -ENOMEM;
	}
	s->cpus = calloc((size_t)ncpus, sizeof(*s->cpus));
	if (!s->cpus) {
		free(cpus);
		return -ENOMEM;
	}
	s->ncpus = ncpus;
	for (int c = 0; c < ncpus; c++) {
		struct sampler_cpu *cpu = &s->cpus[c];

		cpu->cpu = cpus[c];
		cpu->fd = malloc((n + 1) * sizeof(int));
		cpu->id = calloc(n + 1, sizeof(uint64_t));
		perf_ring_init(&cpu->ring, pages * (size_t)page_size());
		if (!cpu->fd || !cpu->id)
			ret = -ENOMEM;
		for (size_t i = 0; cpu->fd && i <= n; i++)
			cpu->fd[i] = -1;
	}
	free(cpus);
	if (ret)
		return ret;
	/* the leader: cycles where the PMU has it, else the cpu-clock timer */
	s->inherit = 1;
	ret = plan_leader(s, evs, n);
	if (ret == -EINVAL) {
		/*
		 * Kernels before 6.12 refuse PERF_SAMPLE_READ in inherited events: sample the
		 * command's first thread alone, with one ring buffer following it on any CPU.
		 */
		reset_plan(s);
		s->inherit = 0;
		for (int c = 1; c < s->ncpus; c++) {
			free(s->cpus[c].fd);
			free(s->cpus[c].id);
		}
		s->ncpus = ncpus = 1;
		s->cpus[0].cpu = -1;
		ret = plan_leader(s, evs, n);
	}
	if (ret < 0)
		return ret;
	for (int c = 0; c < ncpus && !ret; c++)
		ret = open_cpu(s, c);
	for (int c = 0; c < ncpus && !ret; c++)
		ret = map_ring(s, c);
	if (ret < 0)
		return ret;
	ret = 0;
	for (size_t i = 0; i < s->nev; i++)
		ret += s->ev[i].state != SAMPLER_FAILED;
	return ret;
}

/* ---- the drain ---- */

struct drain_ctx {
	struct sampler *s;
	struct sampler_cpu *cpu;
};

static int drain_record(void *ctx, const struct perf_event_header *h)
{
	struct drain_ctx *d = ctx;

	return sampler_take_record(d->s, d->cpu, h);
}

static int drain_cpu(struct sampler *s, struct sampler_cpu *cpu)
{
	struct drain_ctx d = {s, cpu};

	return perf_ring_drain(&cpu->ring, drain_record, &d);
}

/*
 * Drain every ring, put the records up to WATERMARK in order into the file's chunk, and write
 * the chunk when it has waited long enough at time NOW (UINT64_MAX: at once). 0, or the
 * negative errno that stops the drain (out of memory); write errors are the file's to keep.
 */
static int drain_all(struct sampler *s, uint64_t watermark, uint64_t now)
{
	int ret = 0;

	for (int c = 0; c < s->ncpus; c++) {
		int r = drain_cpu(s, &s->cpus[c]);

		if (r && !ret)
			ret = r;
	}
	if (!ret)
		ret = sample_out_flush(s->out, watermark);
	if (!ret)
		sample_out_sync(s->out, now);
	return ret;
}

static void *drain_main(void *arg)
{
	struct sampler *s = arg;
	struct pollfd *pfd = calloc((size_t)s->ncpus + 1, sizeof(*pfd));

	if (!pfd) {
		s->error = -ENOMEM;
		return NULL;
	}
	for (int c = 0; c < s->ncpus; c++) {
		pfd[c].fd = s->cpus[c].fd[0];
		pfd[c].events = POLLIN;
	}
	pfd[s->ncpus].fd = s->stop_fd;
	pfd[s->ncpus].events = POLLIN;
	for (;;) {
		int n = poll(pfd, (nfds_t)s->ncpus + 1, DRAIN_PERIOD_MS);
		uint64_t now = clock_monotonic_ns();

		if (n > 0 && pfd[s->ncpus].revents)
			break;
		/* the measured task is gone on this ring: stop polling it (it would spin) */
		for (int c = 0; n > 0 && c < s->ncpus; c++)
			if (pfd[c].revents & (POLLHUP | POLLERR))
				pfd[c].fd = -1;
		if (!s->error) {
			int r = drain_all(s, now > ORDER_SLACK_NS ? now - ORDER_SLACK_NS : 0, now);

			if (r)
				s->error = r;
		}
	}
	free(pfd);
	return NULL;
}

/*
 * The directory of the kernel symbols' cache, created (0700) if missing, in BUF: the value of
 * PERFSCOPE_CACHE_DIR (set and empty: no cache), else $XDG_CACHE_HOME/perfscope, else
 * $HOME/.cache/perfscope. NULL without one.
 */
static const char *ksyms_cache_dir(char *buf, size_t len)
{
	const char *env = getenv(PSC_ENV_CACHE_DIR), *base;
	char parent[4096];

	if (env) {
		if (!*env)
			return NULL;
		snprintf(buf, len, "%s", env);
	} else if ((base = getenv("XDG_CACHE_HOME")) && base[0] == '/') {
		if (snprintf(buf, len, "%s/perfscope", base) >= (int)len)
			return NULL;
		mkdir(base, 0700);
	} else if ((base = getenv("HOME")) && base[0] == '/') {
		if (snprintf(parent, sizeof(parent), "%s/.cache", base) >= (int)sizeof(parent) ||
		    snprintf(buf, len, "%s/.cache/perfscope", base) >= (int)len)
			return NULL;
		mkdir(parent, 0700);
	} else {
		return NULL;
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return NULL;
	return buf;
}

/* Copy the kernel's symbols into the experiment: 5 MB of text that takes the kernel tens of
 * ms to list, so it is taken from a cache kept per boot when it can be (a hard link), and
 * otherwise made beside the command at idle priority instead of before it. */
static void *ksyms_main(void *arg)
{
	struct sampler *s = arg;
	struct sched_param sp = {0};
	const char *procfs;
	char cache[4096];

	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	psc_machine_roots(&procfs, NULL);
	if (!kallsyms_save_cached(procfs, s->dir, ksyms_cache_dir(cache, sizeof(cache)),
				  s->ksyms_why, sizeof(s->ksyms_why)))
		s->ksyms_why[0] = 0;
	return NULL;
}

int sampler_start(struct sampler *s, const char *dir)
{
	int ret = sample_out_open(&s->out, dir, s->pid, (uint32_t)s->nev, PSC_FEAT_SWITCHES);
	uint64_t now = clock_monotonic_ns();

	if (ret)
		return ret;
	/* kernel IPs are named from a copy of the kernel's symbols (not with fake system calls) */
	if (!s->cfg.exclude_kernel && s->cfg.sys == &counter_sys_linux) {
		s->dir = dir;
		ret = pthread_create(&s->ksyms_thread, NULL, ksyms_main, s);
		if (ret)
			return -ret;
		s->ksyms_started = 1;
	}
	for (uint32_t g = 0; g < s->ngroups; g++) {
		uint64_t m[64];

		for (uint32_t k = 0; k < s->groups[g].n && k < 64; k++)
			m[k] = s->groups[g].members[k];
		ret = sample_out_add(s->out, now, PSC_REC_SAMPLE_GROUP, g, m, s->groups[g].n);
		if (ret)
			return ret;
	}
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_fd < 0)
		return -errno;
	ret = pthread_create(&s->thread, NULL, drain_main, s);
	if (ret)
		return -ret;
	s->thread_started = 1;
	return 0;
}

/* Exact totals: each CPU's group read, which sums the inherited events of every thread. */
static int write_totals(struct sampler *s)
{
	uint64_t *t = calloc(3 * s->nev, sizeof(uint64_t)), buf[3 + 2 * 64];
	int ret;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].state == SAMPLER_FAILED)
			t[3 * i] = UINT64_MAX;
	for (int c = 0; c < s->ncpus; c++) {
		for (uint32_t g = 0; g < s->ngroups; g++) {
			const struct sampler_group *grp = &s->groups[g];
			size_t bytes = (3 + 2 * (size_t)grp->n) * 8;

			if (grp->n > 64 ||
			    read(s->cpus[c].fd[grp->members[0]], buf, bytes) != (ssize_t)bytes)
				continue;
			for (uint32_t k = 0; k < grp->n; k++) {
				uint64_t *e = &t[3 * grp->members[k]];

				e[0] += buf[3 + 2 * k];
				e[1] += buf[1];
				e[2] += buf[2];
			}
		}
	}
	ret = sample_out_add(s->out, clock_monotonic_ns(), PSC_REC_SAMPLE_TOTALS, (uint32_t)s->nev,
			     t, 3 * s->nev);
	free(t);
	return ret;
}

int sampler_finish(struct sampler *s)
{
	uint64_t one = 1, end[1] = {0};
	int ret;

	if (s->ksyms_started) {
		pthread_join(s->ksyms_thread, NULL);
		s->ksyms_started = 0;
		if (s->ksyms_why[0])
			fprintf(stderr,
				"perfscope record: kernel functions will show as [kernel]: %s\n",
				s->ksyms_why);
	}
	if (!s->out)
		return 0;
	if (s->thread_started) {
		if (write(s->stop_fd, &one, sizeof(one)) < 0)
			s->error = s->error ? s->error : -errno;
		pthread_join(s->thread, NULL);
		s->thread_started = 0;
	}
	ret = s->error;
	if (!ret)
		ret = drain_all(s, UINT64_MAX, UINT64_MAX);
	if (!ret)
		ret = write_totals(s);
	if (!ret)
		ret = sample_out_add(s->out, clock_monotonic_ns(), PSC_REC_STREAM_END, PSC_END_EXIT,
				     end, 0);
	if (!ret)
		ret = sample_out_flush(s->out, UINT64_MAX);
	if (!ret)
		sample_out_sync(s->out, UINT64_MAX);
	s->late = sample_out_late(s->out);
	s->unwritten = sample_out_unwritten(s->out);
	if (sample_out_error(s->out, s->why, sizeof(s->why)) && s->unwritten) {
		size_t n = strlen(s->why);

		snprintf(s->why + n, sizeof(s->why) - n, " (%llu records not written)",
			 (unsigned long long)s->unwritten);
	}
	int r = sample_out_close(s->out);

	s->out = NULL;
	if (ret && !s->why[0])
		snprintf(s->why, sizeof(s->why), "draining the ring buffers: %s", strerror(-ret));
	else if (r && !s->why[0])
		snprintf(s->why, sizeof(s->why), "closing samples.%d: %s", (int)s->pid,
			 strerror(-r));
	return ret ? ret : r;
}

void sampler_release(struct sampler *s)
{
	if (s->thread_started || s->out)
		sampler_finish(s);
	for (int c = 0; c < s->ncpus; c++) {
		struct sampler_cpu *cpu = &s->cpus[c];

		perf_ring_release(&cpu->ring);
		for (size_t i = 0; cpu->fd && i < s->nev; i++)
			if (cpu->fd[i] >= 0)
				s->cfg.sys->close(s->cfg.sys->ctx, cpu->fd[i]);
		free(cpu->fd);
		free(cpu->id);
	}
	for (uint32_t g = 0; g < s->ngroups; g++)
		free(s->groups[g].members);
	free(s->cpus);
	free(s->groups);
	free(s->ev);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	memset(s, 0, sizeof(*s));
	s->stop_fd = -1;
}
