/*
 * bench_region.c - cost of a region begin+end pair against its baselines, in one process.
 *
 * The runtime reads its configuration once, in its constructor, so one process measures one
 * configuration; bench/run_region.sh starts it once per configuration. Every measurement is
 * a loop of ITERS pairs timed with CLOCK_MONOTONIC, repeated REPS times with the measurements
 * interleaved, and reported as the median in ns per pair.
 *
 *   --mode regions   (PERFSCOPE_OUT set, no PERFSCOPE_EVENTS)
 *	ts2        two clock_ticks() reads of the runtime's clock source (rdtsc with an
 *		   invariant TSC), the baseline: target region <= 2 x ts2
 *	region     psc_region_begin("r") + psc_region_end("r"), recording, no events
 *	region_id  psc_region_begin_id + psc_region_end_id (no name lookup), for comparison
 *   --mode counters  (PERFSCOPE_OUT and PERFSCOPE_EVENTS set)
 *	read2      two read() calls on a group of the same events opened here with
 *		   perf_event_open (GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), measured
 *		   before the first and after every region repetition: target region <= 1.15 x
 *	region     psc_region_begin("r") + psc_region_end("r"), recording with the events
 *   --mode off       (no PERFSCOPE_OUT): region calls when not recording, against ts2
 *
 * Before each region repetition (untimed) the thread's buffer is flushed and its stream file
 * truncated, so the repetitions start alike and the disk use stays bounded; buffer flushes
 * that fall inside a repetition are part of the measured cost. Bytes recorded per pair are
 * taken from the stream file size after the repetition.
 *
 * The last line is machine-readable: RESULT key=value ...
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu/clock.h"
#include "pmu/cpuinfo.h"
#include "pmu/events.h"
#include "perfscope.h"

#define MAX_REPS   101
#define MAX_EVENTS 16
#define REGION	   "r"

enum mode { MODE_AUTO, MODE_REGIONS, MODE_COUNTERS, MODE_OFF };

struct series {
	const char *name;
	const char *what;
	double ns[MAX_REPS + 1];
	int n;
};

static volatile uint64_t sink;

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--mode regions|counters|off] [--iters N] [--reps R] [--cpu C]\n"
		"  PERFSCOPE_OUT=DIR must be set for regions and counters, PERFSCOPE_EVENTS for "
		"counters\n",
		prog);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_REPS + 1];

	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double max_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* ---- the measured loops ---- */

static double time_ts2(enum clock_source src, long iters)
{
	uint64_t acc = 0, t0 = clock_monotonic_ns();

	for (long i = 0; i < iters; i++) {
		uint64_t a = clock_ticks(src);
		uint64_t b = clock_ticks(src);

		acc += b - a;
	}
	t0 = clock_monotonic_ns() - t0;
	sink = acc;
	return (double)t0 / (double)iters;
}

static double time_region(long iters)
{
	uint64_t t0 = clock_monotonic_ns();

	for (long i = 0; i < iters; i++) {
		psc_region_begin(REGION);
		psc_region_end(REGION);
	}
	return (double)(clock_monotonic_ns() - t0) / (double)iters;
}

static double time_region_id(int id, long iters)
{
	uint64_t t0 = clock_monotonic_ns();

	for (long i = 0; i < iters; i++) {
		psc_region_begin_id(id);
		psc_region_end_id(id);
	}
	return (double)(clock_monotonic_ns() - t0) / (double)iters;
}

static double time_read2(int fd, size_t bytes, long iters)
{
	uint64_t buf[3 + MAX_EVENTS], acc = 0, t0 = clock_monotonic_ns();

	for (long i = 0; i < iters; i++) {
		if (read(fd, buf, bytes) != (ssize_t)bytes)
			return -1;
		acc += buf[1];
		if (read(fd, buf, bytes) != (ssize_t)bytes)
			return -1;
		acc += buf[1];
	}
	t0 = clock_monotonic_ns() - t0;
	sink = acc;
	return (double)t0 / (double)iters;
}

/* ---- setup ---- */

/* The clock source the runtime picks (session.c does the same). */
static enum clock_source runtime_clock(void)
{
	const char *procfs, *sysfs;
	struct cpu_info ci;

	psc_machine_roots(&procfs, &sysfs);
	cpu_info_read(&ci, procfs, sysfs);
	return clock_source_choose(cpu_info_tsc_usable(&ci), getenv("PERFSCOPE_CLOCK"));
}

/* The clock source written by the runtime into DIR/proc.<pid>.json, or 0. */
static enum clock_source recorded_clock(const char *dir)
{
	char path[4096], text[65536], name[32];
	const char *p;
	ssize_t n;
	size_t k = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/proc.%d.json", dir, (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	p = strstr(text, "\"clock\"");
	if (!p || !(p = strchr(p + 7, '"')))
		return 0;
	for (p++; *p && *p != '"' && k < sizeof(name) - 1; p++)
		name[k++] = *p;
	name[k] = 0;
	return clock_source_parse(name);
}

static void stream_path(char *path, size_t len)
{
	snprintf(path, len, "%s/stream.%d.%d", getenv("PERFSCOPE_OUT"), (int)getpid(),
		 (int)syscall(SYS_gettid));
}

/* Flush this thread's records and empty its stream file (outside the timed loops). */
static int stream_reset(void)
{
	char path[4096];
	int ret = psc_flush();

	if (ret < 0)
		return ret;
	stream_path(path, sizeof(path));
	return truncate(path, 0) < 0 ? -errno : 0;
}

/* Bytes in this thread's stream file after a flush. */
static long long stream_bytes(void)
{
	char path[4096];
	struct stat st;

	if (psc_flush() < 0)
		return -1;
	stream_path(path, sizeof(path));
	return stat(path, &st) < 0 ? -1 : (long long)st.st_size;
}

static int perf_open(struct perf_event_attr *attr, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Open the events of LIST as one group on this thread, with the attributes the runtime uses
 * (counters.c counter_attr_build/open_one: leader disabled, members added, then the group
 * enabled). Returns the leader's fd or -1; *BYTES is the size of one group read.
 */
static int group_open(const char *list, size_t *bytes, size_t *nev)
{
	struct event_desc *evs = NULL;
	char bad[EVENT_NAME_MAX] = "";
	size_t n = 0;
	int leader = -1;

	if (event_list_resolve(list, &evs, &n, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "bench_region: cannot resolve event '%s' of '%s'\n", bad, list);
		return -1;
	}
	if (n == 0 || n > MAX_EVENTS) {
		fprintf(stderr, "bench_region: need 1 to %d events, got %zu\n", MAX_EVENTS, n);
		free(evs);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = evs[i].type;
		attr.config = evs[i].config;
		attr.config1 = evs[i].config1;
		attr.config2 = evs[i].config2;
		attr.exclude_user = evs[i].exclude_user;
		attr.exclude_kernel = evs[i].exclude_kernel;
		attr.exclude_hv = evs[i].exclude_hv;
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* the leader starts disabled; the complete group is enabled below */
		attr.disabled = leader < 0;
		fd = perf_open(&attr, leader);
		if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel &&
		    !attr.exclude_user) {
			attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			fd = perf_open(&attr, leader);
		}
		if (fd < 0) {
			fprintf(stderr, "bench_region: perf_event_open %s: %s\n", evs[i].name,
				strerror(errno));
			free(evs);
			return -1;
		}
		if (leader < 0)
			leader = fd;
	}
	free(evs);
	if (ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		perror("bench_region: enabling the group");
		return -1;
	}
	*nev = n;
	*bytes = (3 + n) * sizeof(uint64_t);
	return leader;
}

static void report(const struct series *s)
{
	printf("%-10s median %9.2f ns/pair  (min %9.2f, max %9.2f, %d runs)  %s\n", s->name,
	       median(s->ns, s->n), min_of(s->ns, s->n), max_of(s->ns, s->n), s->n, s->what);
	printf("%-10s runs  ", "");
	for (int i = 0; i < s->n; i++)
		printf(" %.1f", s->ns[i]);
	printf("\n");
}

static void add(struct series *s, double ns)
{
	s->ns[s->n++] = ns;
}

static int parse_args(int argc, char **argv, enum mode *mode, long *iters, int *reps, int *cpu)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return 1;
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--mode")) {
			if (!strcmp(v, "regions"))
				*mode = MODE_REGIONS;
			else if (!strcmp(v, "counters"))
				*mode = MODE_COUNTERS;
			else if (!strcmp(v, "off"))
				*mode = MODE_OFF;
			else
				return -1;
			continue;
		}
		errno = 0;
		long x = strtol(v, &end, 10);

		if (errno || *end || x < 0)
			return -1;
		if (!strcmp(a, "--iters") && x > 0)
			*iters = x;
		else if (!strcmp(a, "--reps") && x > 0 && x <= MAX_REPS)
			*reps = (int)x;
		else if (!strcmp(a, "--cpu"))
			*cpu = (int)x;
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = getenv("PERFSCOPE_OUT"), *events = getenv("PERFSCOPE_EVENTS");
	const char *bufsize = getenv("PERFSCOPE_BUFFER_SIZE");
	enum mode mode = MODE_AUTO;
	enum clock_source src;
	long iters = 0;
	int reps = 9, cpu = -1, ret, id;
	struct series ts2 = {"ts2", "", {0}, 0}, region = {"region", "", {0}, 0};
	struct series region_id = {"region_id", "", {0}, 0}, read2 = {"read2", "", {0}, 0};
	double ratio_pairs[MAX_REPS], bpp[MAX_REPS], ratio, target;
	char what[3][160];
	size_t gbytes = 0, nev = 0;
	int gfd = -1;

	ret = parse_args(argc, argv, &mode, &iters, &reps, &cpu);
	if (ret) {
		usage(argv[0]);
		return ret > 0 ? 0 : 2;
	}
	if (out && !*out)
		out = NULL;
	if (events && !*events)
		events = NULL;
	if (mode == MODE_AUTO)
		mode = !out ? MODE_OFF : events ? MODE_COUNTERS : MODE_REGIONS;
	if ((mode == MODE_OFF) != !out || (mode == MODE_COUNTERS) != !!events) {
		fprintf(stderr,
			"bench_region: mode %s needs PERFSCOPE_OUT %s and PERFSCOPE_EVENTS %s\n",
			mode == MODE_OFF	? "off"
			: mode == MODE_COUNTERS ? "counters"
						: "regions",
			mode == MODE_OFF ? "unset" : "set",
			mode == MODE_COUNTERS ? "set" : "unset");
		return 2;
	}
	if (!iters)
		iters = mode == MODE_COUNTERS ? 200000 : 10000000;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "bench_region: cpu %d: %s\n", cpu, strerror(errno));
			return 1;
		}
	}

	src = runtime_clock();
	if (mode != MODE_OFF) {
		enum clock_source rec = recorded_clock(out);

		ret = psc_flush();
		if (ret < 0) {
			fprintf(stderr,
				"bench_region: the runtime is not recording (psc_flush: %s)\n",
				strerror(-ret));
			return 1;
		}
		if (rec && rec != src) {
			fprintf(stderr, "bench_region: runtime uses clock %s, expected %s\n",
				clock_source_name(rec), clock_source_name(src));
			src = rec;
		}
	}
	if (mode == MODE_COUNTERS) {
		gfd = group_open(events, &gbytes, &nev);
		if (gfd < 0)
			return 1;
	}
	id = psc_region_id(REGION);
	if (id < 0 && mode != MODE_OFF) {
		fprintf(stderr, "bench_region: psc_region_id: %s\n", strerror(-id));
		return 1;
	}

	snprintf(what[0], sizeof(what[0]), "two clock_ticks(%s) reads", clock_source_name(src));
	snprintf(what[1], sizeof(what[1]), "psc_region_begin(\"%s\") + psc_region_end(\"%s\")%s",
		 REGION, REGION, mode == MODE_OFF ? ", not recording" : "");
	snprintf(what[2], sizeof(what[2]), "two read() of a %zu-event group (%zu bytes each)", nev,
		 gbytes);
	ts2.what = what[0];
	region.what = what[1];
	region_id.what = "psc_region_begin_id + psc_region_end_id";
	read2.what = what[2];

	printf("bench_region: mode=%s clock=%s buffer=%s events=%s iters=%ld reps=%d cpu=%d\n",
	       mode == MODE_OFF	       ? "off"
	       : mode == MODE_COUNTERS ? "counters"
				       : "regions",
	       clock_source_name(src), bufsize ? bufsize : "default", events ? events : "-", iters,
	       reps, cpu);
	fflush(stdout);

	/* warm-up, untimed: thread state, region definition, counters, caches */
	time_ts2(src, iters / 10 + 1);
	time_region(iters / 10 + 1);
	if (mode != MODE_OFF)
		time_region_id(id, iters / 10 + 1);
	if (gfd >= 0 && time_read2(gfd, gbytes, iters / 10 + 1) < 0) {
		perror("bench_region: read");
		return 1;
	}
	if (gfd >= 0) {
		/* the baseline group must really count: nr, enabled, running, then the values */
		uint64_t w[3 + MAX_EVENTS];

		if (read(gfd, w, gbytes) != (ssize_t)gbytes || w[0] != nev || w[2] == 0 ||
		    w[3] == 0) {
			fprintf(stderr, "bench_region: the baseline group does not count\n");
			return 1;
		}
		add(&read2, time_read2(gfd, gbytes, iters));
	}

	for (int r = 0; r < reps; r++) {
		long long bytes;

		if (mode != MODE_OFF && (ret = stream_reset()) < 0) {
			fprintf(stderr, "bench_region: flushing the stream: %s\n", strerror(-ret));
			return 1;
		}
		add(&region, time_region(iters));
		if (mode != MODE_OFF) {
			bytes = stream_bytes();
			bpp[r] = bytes < 0 ? -1 : (double)bytes / (double)iters;
		}
		if (mode == MODE_COUNTERS) {
			double d = time_read2(gfd, gbytes, iters);

			if (d < 0) {
				perror("bench_region: read");
				return 1;
			}
			add(&read2, d);
			ratio_pairs[r] = region.ns[r] / (0.5 * (read2.ns[r] + read2.ns[r + 1]));
		}
		add(&ts2, time_ts2(src, iters));
		if (mode == MODE_REGIONS) {
			stream_reset();
			add(&region_id, time_region_id(id, iters));
		}
	}

	report(&ts2);
	if (mode == MODE_COUNTERS)
		report(&read2);
	report(&region);
	if (mode == MODE_REGIONS)
		report(&region_id);
	if (mode != MODE_OFF)
		printf("recorded   median %9.1f bytes/pair in the stream file\n",
		       median(bpp, reps));

	if (mode == MODE_COUNTERS) {
		target = 1.15;
		ratio = median(region.ns, region.n) / median(read2.ns, read2.n);
		printf("ratio region/read2 = %.3f (median of per-run ratios against the read2 runs "
		       "around each: %.3f); target <= %.2f: %s\n",
		       ratio, median(ratio_pairs, reps), target,
		       ratio <= target ? "met" : "MISSED");
	} else {
		target = 2.0;
		ratio = median(region.ns, region.n) / median(ts2.ns, ts2.n);
		printf("ratio region/ts2 = %.3f; target <= %.2f%s\n", ratio, target,
		       mode == MODE_OFF	 ? " (informative: not recording)"
		       : ratio <= target ? ": met"
					 : ": MISSED");
	}

	printf("RESULT mode=%s clock=%s buffer=%s events=%s iters=%ld reps=%d ts2_ns=%.2f "
	       "region_ns=%.2f",
	       mode == MODE_OFF	       ? "off"
	       : mode == MODE_COUNTERS ? "counters"
				       : "regions",
	       clock_source_name(src), bufsize ? bufsize : "default", events ? events : "-", iters,
	       reps, median(ts2.ns, ts2.n), median(region.ns, region.n));
	if (mode == MODE_REGIONS)
		printf(" region_id_ns=%.2f", median(region_id.ns, region_id.n));
	if (mode == MODE_COUNTERS)
		printf(" read2_ns=%.2f", median(read2.ns, read2.n));
	if (mode != MODE_OFF)
		printf(" bytes_per_pair=%.1f", median(bpp, reps));
	printf(" ratio=%.3f target=%.2f met=%s\n", ratio, target,
	       mode == MODE_OFF	 ? "n/a"
	       : ratio <= target ? "yes"
				 : "no");
	if (gfd >= 0)
		close(gfd);
	return 0;
}
