/* power-sampler.c - reading energy counters on a period into a power log. See power-sampler.h. */
#include "record/power-sampler.h"

#include "pmu/clock.h"
#include "format/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The longest single sleep: how late the thread may notice that it is asked to stop. */
#define SLEEP_SLICE_NS 20000000u

static int stopping(struct power_sampler *ps)
{
	return __atomic_load_n(&ps->stop, __ATOMIC_ACQUIRE);
}

/* D as the shortest decimal text that reads back as D ("1e-06", "2.3283064365386963e-10"). */
static void format_double(char *buf, size_t len, double d)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

/* Take one reading and write its row. The time is the middle of the reads. 0 or -errno. */
static int take_reading(struct power_sampler *ps)
{
	uint64_t t0, t1, t;
	int ret;

	t0 = clock_monotonic_ns();
	ret = power_source_read(ps->src, ps->vals);
	t1 = clock_monotonic_ns();
	if (ret)
		return ret;
	t = t0 + (t1 - t0) / 2;
	if (ps->readings && t <= ps->last_ns)
		t = ps->last_ns + 1; /* times increase strictly */
	fprintf(ps->f, "%llu", (unsigned long long)t);
	for (size_t i = 0; i < ps->src->n; i++) {
		fprintf(ps->f, ",%llu", (unsigned long long)ps->vals[i]);
		if (!ps->readings)
			ps->first[i] = ps->vals[i];
		else if (ps->vals[i] != ps->first[i])
			ps->moved[i] = 1;
	}
	if (fputc('\n', ps->f) == EOF)
		return -(errno ? errno : EIO);
	ps->last_ns = t;
	ps->readings++;
	if (ps->readings % ps->flush_every == 0 && fflush(ps->f))
		return -errno;
	return 0;
}

/* Sleep until DEADLINE on CLOCK_MONOTONIC, in slices, unless asked to stop. 0 at the
 * deadline, 1 when stopping. */
static int sleep_until(struct power_sampler *ps, uint64_t deadline)
{
	for (;;) {
		uint64_t now = clock_monotonic_ns(), until = deadline;
		struct timespec ts;

		if (stopping(ps))
			return 1;
		if (now >= deadline)
			return 0;
		if (until - now > SLEEP_SLICE_NS)
			until = now + SLEEP_SLICE_NS;
		ts.tv_sec = (time_t)(until / 1000000000u);
		ts.tv_nsec = (long)(until % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static void *sampler_main(void *arg)
{
	struct power_sampler *ps = arg;
	uint64_t deadline = ps->last_ns + ps->period_ns;

	while (!sleep_until(ps, deadline)) {
		uint64_t now;
		int ret = take_reading(ps);

		if (ret) {
			ps->error = ret;
			break;
		}
		/* absolute deadlines: no drift; a deadline missed (a slow read) is skipped */
		deadline += ps->period_ns;
		now = clock_monotonic_ns();
		if (deadline <= now)
			deadline += ((now - deadline) / ps->period_ns + 1) * ps->period_ns;
	}
	return NULL;
}

static int write_header(struct power_sampler *ps)
{
	const struct power_source *src = ps->src;
	char scale[40];

	fprintf(ps->f, "# perfscope power 1\n# source %s\n# period_ns %llu\n",
		power_source_name(src), (unsigned long long)ps->period_ns);
	for (size_t i = 0; i < src->n; i++) {
		format_double(scale, sizeof(scale), src->c[i].scale);
		fprintf(ps->f, "# column %s %s %s %llu\n", src->c[i].name, src->c[i].unit, scale,
			(unsigned long long)src->c[i].wrap);
	}
	fputs("time_ns", ps->f);
	for (size_t i = 0; i < src->n; i++)
		fprintf(ps->f, ",%s", src->c[i].name);
	return fputc('\n', ps->f) == EOF ? -EIO : 0;
}

int power_sampler_start(struct power_sampler *ps, struct power_source *src, uint64_t period_ns,
			const char *dir)
{
	struct layout_file file = {.kind = LAYOUT_POWER,
				   .power = src->kind == POWER_SOURCE_PERF ? LAYOUT_POWER_PERF
									   : LAYOUT_POWER_RAPL};
	char path[PATH_MAX];
	int fd, ret;

	memset(ps, 0, sizeof(*ps));
	if (period_ns < POWER_PERIOD_MIN_NS || !src->n)
		return -EINVAL;
	ps->src = src;
	ps->period_ns = period_ns;
	ps->flush_every = 1000000000u / period_ns + 1;
	ps->vals = calloc(src->n, sizeof(*ps->vals));
	ps->first = calloc(src->n, sizeof(*ps->first));
	ps->moved = calloc(src->n, 1);
	if (!ps->vals || !ps->first || !ps->moved) {
		ret = -ENOMEM;
		goto fail;
	}
	layout_path(dir, &file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(ps->f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	setvbuf(ps->f, NULL, _IOFBF, 1 << 16);
	ret = write_header(ps);
	if (!ret)
		ret = take_reading(ps);
	if (!ret && fflush(ps->f))
		ret = -errno;
	if (ret)
		goto fail;
	ret = -pthread_create(&ps->thread, NULL, sampler_main, ps);
	if (ret)
		goto fail;
	ps->thread_started = 1;
	return 0;
fail:
	if (ps->f)
		fclose(ps->f);
	ps->f = NULL;
	power_sampler_release(ps);
	return ret;
}

int power_sampler_finish(struct power_sampler *ps)
{
	int ret;

	if (ps->thread_started) {
		__atomic_store_n(&ps->stop, 1, __ATOMIC_RELEASE);
		pthread_join(ps->thread, NULL);
		ps->thread_started = 0;
	}
	if (!ps->f)
		return ps->error;
	if (!ps->error)
		ps->error = take_reading(ps);
	ret = fclose(ps->f) ? -errno : 0;
	ps->f = NULL;
	if (!ps->error)
		ps->error = ret;
	return ps->error;
}

int power_sampler_advanced(const struct power_sampler *ps, size_t i)
{
	return ps->moved && i < ps->src->n && ps->moved[i];
}

void power_sampler_release(struct power_sampler *ps)
{
	power_sampler_finish(ps);
	free(ps->vals);
	free(ps->first);
	free(ps->moved);
	ps->vals = ps->first = NULL;
	ps->moved = NULL;
}
