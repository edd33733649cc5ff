/*
 * test_sampler.c - the launcher's sampler (src/record/sampler.h).
 *
 * Group planning: a fake struct counter_sys passes every perf_event_open to the kernel (the
 * software events work on any machine) but injects failures by rule, and records what it was
 * asked: an event that cannot join the group is sampled in a group of its own, an event that
 * cannot be opened at all is marked failed, the leader is cpu-clock when cycles fails, kernel
 * sampling is dropped when only it is refused, a refusal of everything is an error, and a
 * kernel that refuses PERF_SAMPLE_READ in inherited events gets one per-task ring instead.
 * Call chains: what a sample keeps of the kernel's PERF_SAMPLE_CALLCHAIN (sampler_chain): its
 * kernel frames, counted, then its user frames, without the markers and the repeated IP.
 * The sampled task is a child held before exec (launch.h), never released in those tests.
 *
 * End to end: the sampler on a real child (this program run with --spin: two threads that spin
 * 0.15 s of CPU time each and touch 1024 new pages), then the samples file read back with the
 * validating reader. Only counts are asserted, and the relations between them that hold on any
 * machine however loaded: no timings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format/format.h"
#include "record/launch.h"
#include "record/sampler.h"
#include "format/stream.h"

#define MAX_CALLS 256
#define NO_RULE	  UINT64_MAX

/* ---- the fake system calls ------------------------------------------------------------------ */

struct call {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd;
	int ret; /* the fd, or -errno */
};

struct fake {
	struct call calls[MAX_CALLS];
	int ncalls;
	int closed[MAX_CALLS], nclosed;
	/* rules, checked in this order */
	int hw_errno;		/* PERF_TYPE_HARDWARE events fail with this errno (0: off) */
	int old_kernel;		/* EINVAL for PERF_SAMPLE_READ in an inherited event */
	int eacces_always;	/* EACCES for everything */
	int eacces_kernel;	/* EACCES unless exclude_kernel */
	uint64_t enoent_config; /* this software event always fails with ENOENT */
	uint64_t member_config; /* this software event fails with EINVAL as a group member */
};

static int fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	struct fake *f = ctx;
	struct call *c;
	int err = 0, fd;

	assert_true(f->ncalls < MAX_CALLS);
	c = &f->calls[f->ncalls++];
	c->attr = *attr;
	c->pid = pid;
	c->cpu = cpu;
	c->group_fd = group_fd;
	if (f->hw_errno && attr->type == PERF_TYPE_HARDWARE)
		err = f->hw_errno;
	else if (f->old_kernel && attr->inherit && (attr->sample_type & PERF_SAMPLE_READ))
		err = EINVAL;
	else if (f->eacces_always || (f->eacces_kernel && !attr->exclude_kernel))
		err = EACCES;
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config == f->enoent_config)
		err = ENOENT;
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config == f->member_config &&
		 group_fd != -1)
		err = EINVAL;
	if (err) {
		c->ret = -err;
		errno = err;
		return -1;
	}
	fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	c->ret = fd < 0 ? -errno : fd;
	return fd;
}

static int fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	assert_true(f->nclosed < MAX_CALLS);
	f->closed[f->nclosed++] = fd;
	return close(fd);
}

static void fake_init(struct fake *f, struct counter_sys *sys)
{
	memset(f, 0, sizeof(*f));
	f->enoent_config = f->member_config = NO_RULE;
	sys->open = fake_open;
	sys->close = fake_close;
	sys->ctx = f;
}

/* Every fd the kernel gave was closed exactly once. */
static void expect_all_closed(const struct fake *f)
{
	for (int i = 0; i < f->ncalls; i++) {
		int n = 0;

		if (f->calls[i].ret < 0)
			continue;
		for (int k = 0; k < f->nclosed; k++)
			n += f->closed[k] == f->calls[i].ret;
		if (n != 1)
			fail_msg("fd %d of open call %d closed %d times", f->calls[i].ret, i, n);
	}
}

/* ---- helpers -------------------------------------------------------------------------------- */

static char self_exe[PATH_MAX];

static struct event_desc resolve(const char *name)
{
	struct event_desc ev;

	assert_int_equal(event_resolve(name, &ev), 0);
	return ev;
}

static int is_sw(const struct event_desc *ev, uint64_t config)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->config == config;
}

/* A child of this program held before its exec of `--spin`. */
static void hold_child(struct launch *l)
{
	char *argv[] = {self_exe, "--spin", NULL};

	assert_int_equal(launch_prepare(l, argv), 0);
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	assert_true(n > 0);
	return (int)n;
}

/* The open calls that returned an fd. */
static int successes(const struct fake *f)
{
	int n = 0;

	for (int i = 0; i < f->ncalls; i++)
		n += f->calls[i].ret >= 0;
	return n;
}

/* ---- planning ------------------------------------------------------------------------------- */

/*
 * cycles fails, so cpu-clock leads; task-clock joins; page-faults cannot be a member (EINVAL)
 * and is sampled alone; context-switches cannot be opened at all. cpu-clock, also requested,
 * is not sampled twice.
 */
static void test_plan_groups(void **state)
{
	const struct event_desc evs[] = {resolve("cpu-clock"), resolve("task-clock"),
					 resolve("page-faults"), resolve("context-switches")};
	struct sampler_config cfg = {.freq = 100};
	struct counter_sys sys;
	struct sampler s;
	struct launch l;
	struct fake f;
	int ncpus = online_cpus(), k;
	uint64_t seen_cpu[16] = {0};

	(void)state;
	fake_init(&f, &sys);
	f.hw_errno = ENOENT;
	f.member_config = PERF_COUNT_SW_PAGE_FAULTS;
	f.enoent_config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	cfg.sys = &sys;
	hold_child(&l);
	assert_int_equal(sampler_open(&s, &cfg, evs, 4, l.pid), 3);

	assert_int_equal(s.nev, 4);
	assert_true(is_sw(&s.ev[0].desc, PERF_COUNT_SW_CPU_CLOCK));
	assert_int_equal(s.ev[0].state, SAMPLER_IN_GROUP);
	assert_int_equal(s.ev[0].group, 0);
	assert_true(is_sw(&s.ev[1].desc, PERF_COUNT_SW_TASK_CLOCK));
	assert_int_equal(s.ev[1].state, SAMPLER_IN_GROUP);
	assert_int_equal(s.ev[1].group, 0);
	assert_int_equal(s.ev[1].status, 0);
	assert_true(is_sw(&s.ev[2].desc, PERF_COUNT_SW_PAGE_FAULTS));
	assert_int_equal(s.ev[2].state, SAMPLER_OWN_GROUP);
	assert_int_equal(s.ev[2].join_error, -EINVAL);
	assert_int_equal(s.ev[2].status, 0);
	assert_int_equal(s.ev[2].group, 1);
	assert_true(is_sw(&s.ev[3].desc, PERF_COUNT_SW_CONTEXT_SWITCHES));
	assert_int_equal(s.ev[3].state, SAMPLER_FAILED);
	assert_int_equal(s.ev[3].status, -ENOENT);
	assert_int_equal(s.ev[3].group, PSC_NO_GROUP);
	assert_int_equal(s.ngroups, 2);
	assert_int_equal(s.groups[0].n, 2);
	assert_int_equal(s.groups[0].members[0], 0);
	assert_int_equal(s.groups[0].members[1], 1);
	assert_int_equal(s.groups[1].n, 1);
	assert_int_equal(s.groups[1].members[0], 2);
	assert_int_equal(s.ncpus, ncpus);
	assert_int_equal(s.inherit, 1);
	assert_int_equal(s.cfg.exclude_kernel, 0);

	/*
	 * The calls: cycles; on the first CPU cpu-clock, task-clock joining it, page-faults
	 * joining (refused) then alone, context-switches joining then alone (both refused); on
	 * every other CPU the three sampled events again, in their groups.
	 */
	assert_int_equal(f.ncalls, 7 + 3 * (ncpus - 1));
	assert_int_equal(f.calls[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(f.calls[0].ret, -ENOENT);
	assert_int_equal(f.calls[3].ret, -EINVAL);
	assert_int_equal(f.calls[3].group_fd, f.calls[1].ret);
	assert_int_equal(f.calls[4].group_fd, -1);
	assert_int_equal(f.calls[5].ret, -ENOENT);
	assert_int_equal(f.calls[6].ret, -ENOENT);
	assert_int_equal(successes(&f), 3 * ncpus);
	k = 1;
	for (int c = 0; c < ncpus; c++) {
		const struct call *lead = &f.calls[k], *member = &f.calls[k + 1],
				  *alone = &f.calls[c ? k + 2 : k + 3];

		assert_true(lead->ret >= 0 && member->ret >= 0 && alone->ret >= 0);
		/* one CPU per slot, every online CPU once */
		assert_true(lead->cpu >= 0 && lead->cpu < 1024 &&
			    !(seen_cpu[lead->cpu / 64] & (1ull << (lead->cpu % 64))));
		seen_cpu[lead->cpu / 64] |= 1ull << (lead->cpu % 64);
		assert_int_equal(member->cpu, lead->cpu);
		assert_int_equal(alone->cpu, lead->cpu);
		assert_int_equal(lead->pid, l.pid);
		assert_int_equal(lead->attr.config, PERF_COUNT_SW_CPU_CLOCK);
		assert_int_equal(member->attr.config, PERF_COUNT_SW_TASK_CLOCK);
		assert_int_equal(alone->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
		/* leaders sample and start at exec; only the first group's leader tracks tasks */
		assert_int_equal(lead->group_fd, -1);
		assert_int_equal(member->group_fd, lead->ret);
		assert_int_equal(alone->group_fd, -1);
		assert_true(lead->attr.disabled && lead->attr.enable_on_exec);
		assert_true(alone->attr.disabled && alone->attr.enable_on_exec);
		assert_false(member->attr.disabled);
		assert_true(lead->attr.freq && lead->attr.sample_freq == 100);
		assert_true(alone->attr.freq && alone->attr.sample_freq == 100);
		assert_true(lead->attr.mmap && lead->attr.comm && lead->attr.task);
		assert_false(alone->attr.mmap || alone->attr.comm || alone->attr.task);
		assert_false(member->attr.mmap || member->attr.comm || member->attr.task);
		for (const struct call *x = lead; x <= alone; x++) {
			assert_true(x->attr.inherit);
			assert_true(x->attr.sample_type & PERF_SAMPLE_READ);
			assert_true(x->attr.read_format & PERF_FORMAT_GROUP);
			assert_false(x->attr.exclude_kernel);
		}
		k += c ? 3 : 6;
	}
	sampler_release(&s);
	expect_all_closed(&f);
	launch_abort(&l);
}

/* Kernel sampling refused (perf_event_paranoid 2): the sampler goes on user-only. */
static void test_plan_user_only(void **state)
{
	const struct event_desc evs[] = {resolve("task-clock")};
	struct sampler_config cfg = {.period = 1000000};
	struct counter_sys sys;
	struct sampler s;
	struct launch l;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.hw_errno = ENOENT;
	f.eacces_kernel = 1;
	cfg.sys = &sys;
	hold_child(&l);
	assert_int_equal(sampler_open(&s, &cfg, evs, 1, l.pid), 2);
	assert_int_equal(s.cfg.exclude_kernel, 1);
	assert_int_equal(s.nev, 2);
	assert_int_equal(s.ev[1].state, SAMPLER_IN_GROUP);
	/* cycles; cpu-clock with the kernel (refused), then without; task-clock; other CPUs */
	assert_int_equal(f.ncalls, 4 + 2 * (online_cpus() - 1));
	assert_int_equal(f.calls[1].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_false(f.calls[1].attr.exclude_kernel);
	assert_int_equal(f.calls[1].ret, -EACCES);
	for (int i = 2; i < f.ncalls; i++) {
		assert_true(f.calls[i].ret >= 0);
		assert_true(f.calls[i].attr.exclude_kernel);
		assert_true(f.calls[i].attr.exclude_hv);
	}
	assert_int_equal(f.calls[2].attr.sample_period, 1000000);
	assert_false(f.calls[2].attr.freq);
	sampler_release(&s);
	expect_all_closed(&f);
	launch_abort(&l);
}

/* Sampling not permitted at all: an error, nothing left open. */
static void test_plan_not_permitted(void **state)
{
	const struct event_desc evs[] = {resolve("task-clock")};
	struct sampler_config cfg = {.freq = 100};
	struct counter_sys sys;
	struct sampler s;
	struct launch l;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.eacces_always = 1;
	cfg.sys = &sys;
	hold_child(&l);
	assert_int_equal(sampler_open(&s, &cfg, evs, 1, l.pid), -EACCES);
	assert_int_equal(successes(&f), 0);
	/* the leader with the kernel, then user-only; cpu-clock would be refused the same way */
	assert_int_equal(f.ncalls, 2);
	assert_false(f.calls[0].attr.exclude_kernel);
	assert_true(f.calls[1].attr.exclude_kernel);
	sampler_release(&s);
	launch_abort(&l);
}

/*
 * A kernel before 6.12 refuses PERF_SAMPLE_READ in inherited events (EINVAL): the sampler
 * samples the first thread only, with one ring on any CPU (cpu -1) and no inherit.
 */
static void test_plan_old_kernel(void **state)
{
	const struct event_desc evs[] = {resolve("task-clock"), resolve("page-faults")};
	struct sampler_config cfg = {.freq = 100};
	struct counter_sys sys;
	struct sampler s;
	struct launch l;
	struct fake f;
	int first = -1;

	(void)state;
	fake_init(&f, &sys);
	f.hw_errno = ENOENT;
	f.old_kernel = 1;
	cfg.sys = &sys;
	hold_child(&l);
	assert_int_equal(sampler_open(&s, &cfg, evs, 2, l.pid), 3);
	assert_int_equal(s.inherit, 0);
	assert_int_equal(s.ncpus, 1);
	assert_int_equal(s.ngroups, 1);
	assert_int_equal(s.groups[0].n, 3);
	for (int i = 0; i < f.ncalls; i++) {
		if (f.calls[i].ret < 0)
			continue;
		if (first < 0)
			first = i;
		assert_int_equal(f.calls[i].cpu, -1);
		assert_false(f.calls[i].attr.inherit);
	}
	assert_int_equal(successes(&f), 3);
	assert_int_equal(f.ncalls, first + 3);
	sampler_release(&s);
	expect_all_closed(&f);
	launch_abort(&l);
}

/* ---- end to end ----------------------------------------------------------------------------- */

#define SPIN_NS	   150000000ull /* CPU time each of the two threads spins */
#define SPIN_PAGES 1024

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin SPIN_NS of this thread's CPU time from now (the main thread ran before its exec). */
static void spin_cpu(void)
{
	uint64_t start = thread_cpu_ns();
	volatile uint64_t x = 0;

	do
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	while (thread_cpu_ns() - start < SPIN_NS);
}

static void *spin_thread(void *arg)
{
	(void)arg;
	spin_cpu();
	return NULL;
}

/* The sampled command: 1024 new pages, then two threads spinning. */
static int spin_main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)page * SPIN_PAGES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;

	if (p == MAP_FAILED)
		return 2;
	madvise(p, (size_t)page * SPIN_PAGES, MADV_NOHUGEPAGE);
	for (long i = 0; i < SPIN_PAGES; i++)
		p[i * page] = 1;
	if (pthread_create(&t, NULL, spin_thread, NULL))
		return 3;
	spin_cpu();
	pthread_join(t, NULL);
	_exit(0); /* no exit handlers: a sanitizer's leak check would start a process */
}

/* The last values of each (thread, cpu, group) the samples carried. */
struct last {
	uint64_t tid, cpu, group, v[8];
};

struct seen {
	uint64_t samples, per_group[8], groups_defined, execs, thread_forks, lost, totals, ends;
	uint64_t tids[8];
	size_t ntids;
	struct last last[64];
	size_t nlast;
	uint64_t total[3 * 8];
};

static void on_sample(struct seen *z, const struct sampler *s, const struct stream_record *r,
		      pid_t pid)
{
	const uint64_t *p = r->payload;
	uint64_t tid = p[0] >> 32, cpu = p[2] & 0xffff;
	size_t k;

	assert_true(r->arg < s->ngroups);
	assert_true(z->groups_defined & (1u << r->arg)); /* defined before its samples */
	assert_int_equal((uint32_t)p[0], pid);
	assert_int_equal(p[3], s->groups[r->arg].n);
	z->samples++;
	z->per_group[r->arg]++;
	for (k = 0; k < z->ntids && z->tids[k] != tid; k++)
		;
	if (k == z->ntids) {
		assert_true(z->ntids < 8);
		z->tids[z->ntids++] = tid;
	}
	for (k = 0; k < z->nlast; k++)
		if (z->last[k].tid == tid && z->last[k].cpu == cpu && z->last[k].group == r->arg)
			break;
	if (k == z->nlast) {
		assert_true(z->nlast < 64);
		z->last[z->nlast++] = (struct last){tid, cpu, r->arg, {0}};
	}
	for (uint64_t m = 0; m < p[3]; m++) {
		assert_true(p[6 + m] >= z->last[k].v[m]); /* counts only grow */
		z->last[k].v[m] = p[6 + m];
	}
}

static void read_samples(const char *path, const struct sampler *s, pid_t pid, struct seen *z)
{
	char err[512] = "";
	struct stream_reader r;
	struct stream_record rec;
	int ret;

	memset(z, 0, sizeof(*z));
	assert_int_equal(stream_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.hdr.features, PSC_FEAT_SAMPLES | PSC_FEAT_SWITCHES);
	assert_int_equal(r.hdr.pid, pid);
	assert_int_equal(r.hdr.nevents, s->nev);
	while ((ret = stream_next(&r, &rec, err, sizeof(err))) > 0) {
		switch (rec.type) {
		case PSC_REC_SAMPLE_GROUP:
			assert_true(rec.arg < s->ngroups);
			assert_int_equal(rec.npayload, s->groups[rec.arg].n);
			for (size_t m = 0; m < rec.npayload; m++)
				assert_int_equal(rec.payload[m], s->groups[rec.arg].members[m]);
			z->groups_defined |= 1u << rec.arg;
			break;
		case PSC_REC_SAMPLE:
			on_sample(z, s, &rec, pid);
			break;
		case PSC_REC_TASK:
			if (rec.arg == PSC_TASK_EXEC && (uint32_t)rec.payload[0] == (uint32_t)pid)
				z->execs++;
			if (rec.arg == PSC_TASK_FORK && (uint32_t)rec.payload[0] == (uint32_t)pid &&
			    rec.payload[0] >> 32 != (uint64_t)pid)
				z->thread_forks++;
			break;
		case PSC_REC_LOST:
			z->lost++;
			break;
		case PSC_REC_SAMPLE_TOTALS:
			assert_int_equal(rec.npayload, 3 * s->nev);
			memcpy(z->total, rec.payload, rec.npayload * 8);
			z->totals++;
			break;
		case PSC_REC_STREAM_END:
			assert_int_equal(rec.arg, PSC_END_EXIT);
			z->ends++;
			break;
		default:
			break;
		}
	}
	if (ret)
		fail_msg("%s", err);
	assert_int_equal(r.truncated_at, 0);
	stream_close(&r);
}

/* DIR/NAME holds a line ending in " PATH". */
static int file_has_path(const char *dir, const char *name, const char *path)
{
	char file[PATH_MAX + 64], line[PATH_MAX + 128];
	size_t n = strlen(path);
	int found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	f = fopen(file, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		found |= len > n && line[len - n - 1] == ' ' && !strncmp(line + len - n, path, n);
	}
	fclose(f);
	return found;
}

/*
 * Sample the spinning child with cpu-clock, task-clock and page-faults through SYS (NULL: the
 * real system calls) and check the samples file against the sampler's own numbers and the
 * exact totals. OWN_GROUPS: the groups expected (page-faults alone when the fake refuses it as
 * a member).
 */
static void run_end_to_end(const struct counter_sys *sys, uint32_t own_groups)
{
	const struct event_desc evs[] = {resolve("cpu-clock"), resolve("task-clock"),
					 resolve("page-faults")};
	struct sampler_config cfg = {.freq = 1000, .sys = sys};
	char dir[] = "/tmp/psc-unit-sampler-XXXXXX", path[PATH_MAX], pmaps[64], cmd[128];
	uint64_t max = sampler_max_rate(NULL), sum[8] = {0};
	size_t clk = SIZE_MAX, pf = SIZE_MAX;
	struct sampler s;
	struct launch l;
	struct seen z;
	int status = -1;

	if (max && cfg.freq > max)
		cfg.freq = max;
	hold_child(&l);
	assert_int_equal(sampler_open(&s, &cfg, evs, 3, l.pid), 3);
	assert_int_equal(s.ngroups, own_groups);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sampler_start(&s, dir), 0);
	assert_int_equal(launch_go(&l), 0);
	assert_int_equal(launch_wait(&l, &status, NULL), 0);
	assert_int_equal(status, 0);
	assert_int_equal(sampler_finish(&s), 0);

	snprintf(path, sizeof(path), "%s/samples.%d", dir, (int)l.pid);
	read_samples(path, &s, l.pid, &z);
	for (size_t i = 0; i < s.nev; i++) {
		if (is_sw(&s.ev[i].desc, PERF_COUNT_SW_CPU_CLOCK))
			clk = i;
		if (is_sw(&s.ev[i].desc, PERF_COUNT_SW_PAGE_FAULTS))
			pf = i;
	}
	assert_true(clk < s.nev && pf < s.nev);
	assert_int_equal(z.groups_defined, (1u << s.ngroups) - 1);
	assert_true(z.samples > 0);
	assert_int_equal(z.samples, s.samples);
	/* a group of its own samples too: freq mode starts at period 1, the loader faults */
	for (uint32_t g = 0; g < s.ngroups; g++)
		assert_true(z.per_group[g] > 0);
	assert_int_equal(z.lost, 0);
	assert_int_equal(s.lost, 0);
	assert_int_equal(z.totals, 1);
	assert_int_equal(z.ends, 1);
	assert_int_equal(z.execs, 1); /* the launch itself */
	/* inherited by the second thread; kernels before 6.12 sample the first thread only */
	assert_int_equal(z.ntids, s.inherit ? 2 : 1);
	if (s.inherit)
		assert_int_equal(z.thread_forks, 1);

	/*
	 * The exact totals: cpu-clock counted at least the 2 x 0.15 s of CPU time the threads
	 * spun after exec (the threads' CPU clock leaves out interrupt and steal time, cpu-clock
	 * does not), and as much as the time its event ran; every page touched faulted.
	 */
	if (s.inherit)
		assert_true(z.total[3 * clk] >= 2 * SPIN_NS);
	assert_true(z.total[3 * clk + 2] > 0);
	assert_true(z.total[3 * clk] * 10 >= z.total[3 * clk + 2] * 9);
	assert_true(z.total[3 * clk] * 10 <= z.total[3 * clk + 2] * 11);
	assert_true(z.total[3 * pf] >= SPIN_PAGES);
	/* every thread's last sample counted no more than the whole run */
	for (size_t k = 0; k < z.nlast; k++)
		for (uint32_t m = 0; m < s.groups[z.last[k].group].n; m++)
			sum[s.groups[z.last[k].group].members[m]] += z.last[k].v[m];
	for (size_t i = 0; i < s.nev; i++)
		assert_true(sum[i] <= z.total[3 * i]);

	/* the executable's mapping, for symbols */
	snprintf(pmaps, sizeof(pmaps), "pmaps.%d", (int)l.pid);
	if (!file_has_path(dir, pmaps, self_exe))
		fail_msg("%s/%s does not map %s", dir, pmaps, self_exe);
	sampler_release(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The real system calls: software events all join the cpu-clock group. */
static void test_end_to_end(void **state)
{
	(void)state;
	run_end_to_end(NULL, 1);
}

/* page-faults refused as a member: its own group shares the CPU's ring and is sampled. */
static void test_end_to_end_own_group(void **state)
{
	struct counter_sys sys;
	struct fake f;

	(void)state;
	fake_init(&f, &sys);
	f.member_config = PERF_COUNT_SW_PAGE_FAULTS;
	run_end_to_end(&sys, 2);
	expect_all_closed(&f);
}

/* ---- call chains ---------------------------------------------------------------------------- */

#define KIP  0xffffffff81001010ull /* a kernel IP, and kernel return addresses below */
#define K1   0xffffffff81002020ull
#define K2   0xffffffff81003030ull
#define UIP  0x401010ull /* where the thread entered the kernel, and user return addresses */
#define U1   0x402020ull
#define U2   0x403030ull
#define KCTX ((uint64_t)PERF_CONTEXT_KERNEL)
#define UCTX ((uint64_t)PERF_CONTEXT_USER)

static void expect_chain(const uint64_t *in, size_t n, uint64_t ip, const uint64_t *want,
			 size_t nwant, unsigned want_kernel)
{
	uint64_t out[16];
	unsigned nk = 99;
	size_t m = sampler_chain(in, n, ip, out, 16, &nk);

	assert_int_equal(m, nwant);
	assert_int_equal(nk, want_kernel);
	for (size_t k = 0; k < m; k++)
		if (out[k] != want[k])
			fail_msg("frame %zu: %#llx, want %#llx", k, (unsigned long long)out[k],
				 (unsigned long long)want[k]);
}

/*
 * A sample in the kernel keeps its kernel frames (the first, the IP itself, left out), then
 * the user frames from where the thread entered the kernel; a sample in user space has no
 * kernel part and loses the first user entry (its IP). Hypervisor frames, kernel frames after
 * user ones and frames past the room given are dropped; a chain of markers alone is empty.
 */
static void test_chain_kernel_frames(void **state)
{
	static const uint64_t kernel[] = {KCTX, KIP, K1, K2, UCTX, UIP, U1, U2};
	static const uint64_t kernel_want[] = {K1, K2, UIP, U1, U2};
	static const uint64_t user[] = {UCTX, UIP, U1, U2};
	static const uint64_t user_want[] = {U1, U2};
	static const uint64_t odd[] = {
	    (uint64_t)PERF_CONTEXT_HV, 0xfff0ull, KCTX, KIP, K1, UCTX, UIP, KCTX, K2};
	static const uint64_t odd_want[] = {K1, UIP};
	static const uint64_t markers[] = {KCTX, UCTX};
	uint64_t out[2];
	unsigned nk;

	(void)state;
	expect_chain(kernel, 8, KIP, kernel_want, 5, 2);
	expect_chain(user, 4, UIP, user_want, 2, 0);
	expect_chain(odd, 9, KIP, odd_want, 2, 1);
	expect_chain(markers, 2, KIP, NULL, 0, 0);
	/* room for two frames: the two kernel ones */
	assert_int_equal(sampler_chain(kernel, 8, KIP, out, 2, &nk), 2);
	assert_int_equal(nk, 2);
	assert_true(out[0] == K1 && out[1] == K2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_groups),		cmocka_unit_test(test_plan_user_only),
	    cmocka_unit_test(test_plan_not_permitted),	cmocka_unit_test(test_plan_old_kernel),
	    cmocka_unit_test(test_end_to_end),		cmocka_unit_test(test_end_to_end_own_group),
	    cmocka_unit_test(test_chain_kernel_frames),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--spin"))
		return spin_main();
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
