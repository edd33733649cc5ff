/*
 * test_record_sample.c - the sampler's configuration from record's --sample and --period
 * (src/record/record-sample.h), against a fake procfs's kernel.perf_event_max_sample_rate.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/env.h"
#include "record/record-sample.h"

static char top[256];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(top, sizeof(top), "recsample");
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(top);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char noted[512];

static void note(void *ctx, const char *line)
{
	(void)ctx;
	snprintf(noted, sizeof(noted), "%s", line);
}

/* --sample=HZ is a number of Hz, lowered to the kernel's limit with a warning; --period wins. */
static void test_sample_config(void **state)
{
	struct sampler_config cfg;
	char root[512], dir[1024], err[256] = "";

	(void)state;
	snprintf(root, sizeof(root), "%s/proc", top);
	assert_int_equal(mkdir(root, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/sys", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/sys/kernel", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	put(dir, "perf_event_max_sample_rate", "5000\n");
	assert_int_equal(setenv(PSC_ENV_PROCFS_ROOT, root, 1), 0);

	assert_int_equal(record_sample_config("abc", 0, 0, &cfg, note, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--sample=abc: give a frequency in Hz, e.g. --sample=1000");
	assert_int_equal(record_sample_config("-5", 0, 0, &cfg, note, NULL, err, sizeof(err)),
			 -EINVAL);

	noted[0] = 0;
	assert_int_equal(record_sample_config("1000", 0, 1, &cfg, note, NULL, err, sizeof(err)), 0);
	assert_int_equal(cfg.freq, 1000);
	assert_int_equal(cfg.callgraph, 1);
	assert_string_equal(noted, "");

	assert_int_equal(record_sample_config("8000", 0, 0, &cfg, note, NULL, err, sizeof(err)), 0);
	assert_int_equal(cfg.freq, 5000);
	assert_string_equal(noted,
			    "warning: 8000 Hz is above kernel.perf_event_max_sample_rate=5000; "
			    "sampling at 5000 Hz (raise it with: sysctl -w "
			    "kernel.perf_event_max_sample_rate=8000)");

	assert_int_equal(record_sample_config("abc", 777, 0, &cfg, note, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.period, 777);
	assert_int_equal(cfg.freq, 0);
	unsetenv(PSC_ENV_PROCFS_ROOT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample_config),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
