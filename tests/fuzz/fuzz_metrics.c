/*
 * fuzz_metrics.c - libFuzzer target for metric group files (src/pmu/metrics.c) and their
 * formulas (src/pmu/metric-expr.c): the input is a `.metrics` file, written to a memfd and
 * read by metric_group_load; every metric of a group it accepts is evaluated with inputs that
 * are missing, zero, huge or ordinary (by a hash of the name), and its missing inputs listed.
 *
 * Besides the sanitizers, the target checks the contract and aborts when it is broken:
 *   - 0, -EINVAL or -ENOMEM; an error message is one line starting with the path; on an error
 *     the group is zeroed;
 *   - on 0: at least one event, none empty or repeated; every metric named, with a formula;
 *   - an evaluation gives 0 and a finite value, -EDOM, or -ENODATA exactly when
 *     metric_expr_missing names at least one input.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_metrics tests/fuzz/corpus-metrics.
 */
#include "pmu/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_metrics: contract broken: %s (err: '%s')\n", what, err);
		abort();
	}
}

/* An input's value by a hash of its name: missing, 0, huge, or ordinary. */
static int lookup(void *ctx, const char *name, double *value)
{
	uint32_t h = 2166136261u;

	(void)ctx;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	switch (h % 5) {
	case 0:
		return -ENOENT;
	case 1:
		*value = 0;
		return 0;
	case 2:
		*value = 1e300;
		return 0;
	default:
		*value = (double)(h % 100000) + 0.5;
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct metric_group g;
	char err[512] = "", missing[256];
	int ret;

	if (fd < 0) {
		fd = memfd_create("metrics", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	memset(&g, 0x5a, sizeof(g));
	ret = metric_group_load(&g, path, err, sizeof(err));
	if (ret) {
		check(ret == -EINVAL || ret == -ENOMEM, "an error is -EINVAL or -ENOMEM", err);
		check(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'),
		      "one line naming the file", err);
		check(!g.name && !g.events && !g.metrics && !g.nevents && !g.nmetrics,
		      "the group is zeroed", err);
		return 0;
	}
	check(g.nevents >= 1 && g.name && g.path && g.description, "a group with events", "");
	for (size_t i = 0; i < g.nevents; i++) {
		check(g.events[i] && g.events[i][0], "an event has a name", g.events[i]);
		for (size_t j = 0; j < i; j++)
			check(strcmp(g.events[i], g.events[j]) != 0, "events without duplicates",
			      g.events[i]);
	}
	for (size_t i = 0; i < g.nmetrics; i++) {
		const struct metric *m = &g.metrics[i];
		double v = 0;
		int n;

		check(m->name && m->name[0] && m->unit && m->formula && m->expr,
		      "a metric has a name and a formula", m->name ? m->name : "");
		ret = metric_eval(m, lookup, NULL, &v);
		n = metric_expr_missing(m->expr, lookup, NULL, missing, sizeof(missing));
		check(ret == 0 || ret == -EDOM || ret == -ENODATA, "0, -EDOM or -ENODATA",
		      m->formula);
		check(ret != 0 || isfinite(v), "a finite value", m->formula);
		check((ret == -ENODATA) == (n > 0), "unavailable exactly when an input is missing",
		      m->formula);
		check(n == 0 || (missing[0] && strlen(missing) < sizeof(missing)),
		      "the missing inputs listed", m->formula);
	}
	metric_group_release(&g);
	return 0;
}
