/*
 * load.c - the MPI load sampler.
 *
 * mpi_load_start splits the world by host; the host's lowest rank gathers the world rank and
 * pid of every rank on the host and starts a thread that, every period, reads the host's CPU
 * times from /proc/stat and each local rank's utime + stime from /proc/<pid>/stat, and writes
 * one line to load.<host>.<pid> in the experiment directory (docs/format.md "Load logs"):
 * the host's busy share and each rank's CPU share over the interval since the last line.
 * One sampler per host is enough: it sees every rank of the host from outside.
 * Only PMPI_* calls: MPI_* would be traced by the wrappers.
 */
#include "mpi-rt/load.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmu/clock.h"
#include "format/env.h"
#include "format/layout.h"
#include "runtime/rt-mpi.h"

#define LOAD_DEFAULT_MS 100
#define LOAD_MAX_MS	3600000 /* one hour */

struct load_rank {
	int rank, pid;
	int fd;		/* /proc/<pid>/stat, -1 once the process is gone */
	uint64_t ticks; /* utime + stime at the last reading */
	int have_ticks; /* ticks is a valid reading */
};

struct load_sampler {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	FILE *f;
	uint64_t period_ns;
	long clk_tck;
	int stat_fd;	      /* /proc/stat */
	uint64_t busy, total; /* host CPU ticks at the last reading */
	uint64_t wall_ns;     /* unskewed CLOCK_MONOTONIC at the last reading */
	struct load_rank *ranks;
	int nranks;
};

static struct load_sampler *sampler; /* the running one, or NULL */

/* The period in ns from PERFSCOPE_MPI_LOAD: 0 for off; unset or not a number: the default. */
static uint64_t load_period_ns(void)
{
	const char *s = getenv(PSC_ENV_MPI_LOAD);
	unsigned long ms = LOAD_DEFAULT_MS;
	char *end;

	if (s && *s) {
		errno = 0;
		ms = strtoul(s, &end, 10);
		if (errno || *end || s[0] == '-')
			ms = LOAD_DEFAULT_MS;
	}
	if (ms > LOAD_MAX_MS)
		ms = LOAD_MAX_MS;
	return (uint64_t)ms * 1000000u;
}

/* Read FD from offset 0 into BUF as a string. */
static int load_pread(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* The host's busy and total CPU ticks from the "cpu" line of /proc/stat. Busy is all but
 * idle and iowait; guest time is already in user and nice. */
static int load_read_host(int fd, uint64_t *busy, uint64_t *total)
{
	char buf[512];
	unsigned long long v[8] = {0};

	if (load_pread(fd, buf, sizeof(buf)) < 0)
		return -1;
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
	return 0;
}

/* utime + stime (fields 14 and 15) of a /proc/<pid>/stat; the name may hold spaces and
 * parentheses, so fields are counted after the last ')'. */
static int load_read_proc(int fd, uint64_t *ticks)
{
	char buf[1024];
	unsigned long long ut, st;
	char *p;

	if (load_pread(fd, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* after ") ": state (3), then fields 4..13 to skip */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	*ticks = ut + st;
	return 0;
}

/* Take a reading; unless FIRST, write the shares since the previous one as a line. */
static void load_sample(struct load_sampler *s, int first)
{
	uint64_t now = psc_rt_now_ns(), wall = clock_monotonic_ns(), busy = 0, total = 0;
	double dt_s = (double)(wall - s->wall_ns) / 1e9;
	int host_ok = load_read_host(s->stat_fd, &busy, &total) == 0;

	if (!first)
		fprintf(s->f, "%" PRIu64, now);
	if (!first && host_ok && total > s->total)
		fprintf(s->f, ",%.4f", (double)(busy - s->busy) / (double)(total - s->total));
	else if (!first)
		fputs(",-", s->f);
	if (host_ok) {
		s->busy = busy;
		s->total = total;
	}
	for (int i = 0; i < s->nranks; i++) {
		struct load_rank *r = &s->ranks[i];
		uint64_t ticks;
		int ok = r->fd >= 0 && load_read_proc(r->fd, &ticks) == 0;

		if (!first && ok && r->have_ticks && dt_s > 0)
			fprintf(s->f, ",%.4f",
				(double)(ticks - r->ticks) / (double)s->clk_tck / dt_s);
		else if (!first)
			fputs(",-", s->f);
		if (!ok && r->fd >= 0) {
			close(r->fd); /* the rank's process has gone */
			r->fd = -1;
		}
		r->have_ticks = ok;
		if (ok)
			r->ticks = ticks;
	}
	if (!first) {
		fputc('\n', s->f);
		fflush(s->f);
	}
	s->wall_ns = wall;
}

static struct timespec load_timespec(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	return ts;
}

/* The thread: a line every period on absolute deadlines, a last one when told to stop. */
static void *load_thread(void *arg)
{
	struct load_sampler *s = arg;
	uint64_t next = s->wall_ns + s->period_ns;
	int stopping = 0;

	while (!stopping) {
		struct timespec deadline = load_timespec(next);

		pthread_mutex_lock(&s->lock);
		while (!s->stop &&
		       pthread_cond_timedwait(&s->cond, &s->lock, &deadline) != ETIMEDOUT)
			;
		stopping = s->stop;
		pthread_mutex_unlock(&s->lock);
		/* a last interval shorter than 1 ms says nothing: not written */
		if (!stopping || clock_monotonic_ns() - s->wall_ns >= 1000000u)
			load_sample(s, 0);
		next += s->period_ns;
		if (next <= s->wall_ns) /* late by a whole period: skip the missed deadlines */
			next = s->wall_ns + s->period_ns;
	}
	return NULL;
}

static void load_free(struct load_sampler *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nranks; i++)
		if (s->ranks[i].fd >= 0)
			close(s->ranks[i].fd);
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	if (s->f)
		fclose(s->f);
	free(s->ranks);
	free(s);
}

/* The log file load.<host>.<pid> in the experiment, created exclusively; HOST made safe for
 * a name. */
static FILE *load_open(char *host)
{
	struct layout_file lf = {.kind = LAYOUT_LOAD, .pid = (int)getpid(), .host = host};
	char name[320];
	int fd;
	FILE *f;

	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ' ' || *p == ',')
			*p = '_';
	lf.hostlen = strlen(host);
	if (layout_name(&lf, name, sizeof(name)) < 0)
		return NULL;
	fd = psc_rt_create(name);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* The writer's side: open everything, write the header, start the thread. IDS holds
 * world rank and pid of each of the host's NRANKS ranks, the writer first. */
static struct load_sampler *load_begin(const int *ids, int nranks, uint64_t period_ns)
{
	struct load_sampler *s = calloc(1, sizeof(*s));
	char host[256] = "unknown", path[64];
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!s)
		return NULL;
	s->stat_fd = -1;
	s->period_ns = period_ns;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	s->ranks = calloc((size_t)nranks, sizeof(*s->ranks));
	if (!s->ranks || s->clk_tck <= 0)
		goto fail;
	for (int i = 0; i < nranks; i++) {
		s->ranks[i].rank = ids[2 * i];
		s->ranks[i].pid = ids[2 * i + 1];
		snprintf(path, sizeof(path), "/proc/%d/stat", ids[2 * i + 1]);
		s->ranks[i].fd = open(path, O_RDONLY | O_CLOEXEC);
		s->nranks = i + 1;
	}
	s->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	if (s->stat_fd < 0 || !(s->f = load_open(host)))
		goto fail;
	fprintf(s->f, "# perfscope load 1\n# host %s\n# period_ns %" PRIu64 "\n# cpus %ld\n", host,
		period_ns, sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < nranks; i++)
		fprintf(s->f, "# rank %d pid %d\n", s->ranks[i].rank, s->ranks[i].pid);
	fputs("time_ns,host", s->f);
	for (int i = 0; i < nranks; i++)
		fprintf(s->f, ",rank%d", s->ranks[i].rank);
	fputc('\n', s->f);
	fflush(s->f);
	load_sample(s, 1);

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* the thread takes no signal meant for the program */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->thread, NULL, load_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		goto fail;
	}
	return s;
fail:
	load_free(s);
	return NULL;
}

void mpi_load_start(MPI_Comm world)
{
	uint64_t period_ns = load_period_ns();
	MPI_Comm host = MPI_COMM_NULL;
	int wrank, hrank, hsize, me[2], ok, *ids = NULL;

	if (period_ns == 0 || !psc_rt_dir() || sampler)
		return;
	if (PMPI_Comm_rank(world, &wrank) != MPI_SUCCESS ||
	    PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
		MPI_SUCCESS)
		return;
	if (PMPI_Comm_rank(host, &hrank) != MPI_SUCCESS ||
	    PMPI_Comm_size(host, &hsize) != MPI_SUCCESS)
		goto out;
	me[0] = wrank;
	me[1] = (int)getpid();
	if (hrank == 0)
		ids = malloc(2 * sizeof(int) * (size_t)hsize);
	/* the writer says whether it can take the gather, so that no one is left waiting */
	ok = hrank != 0 || ids != NULL;
	if (PMPI_Bcast(&ok, 1, MPI_INT, 0, host) != MPI_SUCCESS || !ok)
		goto out;
	if (PMPI_Gather(me, 2, MPI_INT, ids, 2, MPI_INT, 0, host) == MPI_SUCCESS && ids)
		sampler = load_begin(ids, hsize, period_ns);
out:
	free(ids);
	PMPI_Comm_free(&host);
}

void mpi_load_stop(void)
{
	struct load_sampler *s = sampler;

	if (!s)
		return;
	sampler = NULL;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	load_free(s);
}
