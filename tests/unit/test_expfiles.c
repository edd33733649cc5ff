/*
 * test_expfiles.c - the names of an experiment's files (expfiles.h): every name a writer
 * makes (the runtime, record, the sampler, the power and load logs, the live buffers) with its
 * parts, the near misses a user's files make (stream.c, maps.txt, power.csv, proc.py,
 * meta.json.bak ...), numbers at and past their limits, and names built and parsed back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "expfiles.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A name and what expfile_parse must make of it. */
struct want {
	const char *name;
	enum expfile_kind kind;
	int pid, tid;
	unsigned image, slot;
	int writer;
	const char *host; /* LOAD */
};

static void check(const struct want *w)
{
	struct expfile f;
	char back[256];

	memset(&f, 0xa5, sizeof(f));
	if (expfile_parse(w->name, &f) != w->kind)
		fail_msg("%s: kind %d, expected %d", w->name, (int)f.kind, (int)w->kind);
	assert_int_equal(f.kind, w->kind);
	assert_int_equal(expfile_parse(w->name, NULL), w->kind);
	assert_int_equal(f.pid, w->pid);
	assert_int_equal(f.tid, w->tid);
	assert_int_equal(f.image, w->image);
	assert_int_equal(f.slot, w->slot);
	assert_int_equal(f.writer, w->writer);
	if (w->kind == EXPFILE_LOAD) {
		assert_int_equal(f.hostlen, strlen(w->host));
		assert_memory_equal(f.host, w->host, f.hostlen);
	} else {
		assert_null(f.host);
	}
	if (w->kind == EXPFILE_NONE)
		return;
	/* built back from its parts, the same name */
	assert_int_equal(expfile_name(&f, back, sizeof(back)), (int)strlen(w->name));
	assert_string_equal(back, w->name);
}

/* Every name a writer makes, with its parts. */
static void test_real_names(void **state)
{
	static const struct want names[] = {
	    {"meta.json", EXPFILE_META, 0, 0, 0, 0, 0, NULL},
	    {".meta.json.tmp", EXPFILE_META_TMP, 0, 0, 0, 0, 0, NULL},
	    {"meta.json.tmp4711", EXPFILE_META_TMP, 0, 0, 0, 0, 4711, NULL},
	    {"proc.4711.json", EXPFILE_PROC, 4711, 0, 0, 0, 0, NULL},
	    {"proc.4711.1.json", EXPFILE_PROC, 4711, 0, 1, 0, 0, NULL},
	    {"proc.4711.4095.json", EXPFILE_PROC, 4711, 0, 4095, 0, 0, NULL},
	    {"proc.4711.json.tmp4711", EXPFILE_PROC_TMP, 4711, 0, 0, 0, 4711, NULL},
	    {"proc.4711.2.json.tmp4711", EXPFILE_PROC_TMP, 4711, 0, 2, 0, 4711, NULL},
	    {"stream.4711.4711", EXPFILE_STREAM, 4711, 4711, 0, 0, 0, NULL},
	    {"stream.4711.4712", EXPFILE_STREAM, 4711, 4712, 0, 0, 0, NULL},
	    {"stream.4711.4712.3", EXPFILE_STREAM, 4711, 4712, 3, 0, 0, NULL},
	    {"stream.1.1", EXPFILE_STREAM, 1, 1, 0, 0, 0, NULL},
	    {"maps.4711", EXPFILE_MAPS, 4711, 0, 0, 0, 0, NULL},
	    {"maps.4711.1", EXPFILE_MAPS, 4711, 0, 1, 0, 0, NULL},
	    {"pmaps.4711", EXPFILE_PMAPS, 4711, 0, 0, 0, 0, NULL},
	    {"pmaps.4711.12", EXPFILE_PMAPS, 4711, 0, 12, 0, 0, NULL},
	    {"samples.4711", EXPFILE_SAMPLES, 4711, 0, 0, 0, 0, NULL},
	    {"kallsyms", EXPFILE_KALLSYMS, 0, 0, 0, 0, 0, NULL},
	    {"kallsyms.tmp", EXPFILE_KALLSYMS_TMP, 0, 0, 0, 0, 0, NULL},
	    {"power.rapl", EXPFILE_POWER, 0, 0, 0, 0, 0, NULL},
	    {"power.perf", EXPFILE_POWER, 0, 0, 0, 0, 0, NULL},
	    {"power.meter", EXPFILE_POWER, 0, 0, 0, 0, 0, NULL},
	    {"load.node17.4711", EXPFILE_LOAD, 4711, 0, 0, 0, 0, "node17"},
	    {"load.node17.cluster.example.org.4711", EXPFILE_LOAD, 4711, 0, 0, 0, 0,
	     "node17.cluster.example.org"},
	    {"load.my_host.1", EXPFILE_LOAD, 1, 0, 0, 0, 0, "my_host"},
	    {"load..4711", EXPFILE_LOAD, 4711, 0, 0, 0, 0, ""},
	    {"live.4711.0.0", EXPFILE_LIVE, 4711, 0, 0, 0, 0, NULL},
	    {"live.4711.2.17", EXPFILE_LIVE, 4711, 0, 2, 17, 0, NULL},
	};

	(void)state;
	for (size_t i = 0; i < N(names); i++)
		check(&names[i]);
}

/* The power sources are told apart. */
static void test_power_sources(void **state)
{
	struct expfile f;

	(void)state;
	assert_int_equal(expfile_parse("power.rapl", &f), EXPFILE_POWER);
	assert_int_equal(f.power, EXPFILE_POWER_RAPL);
	assert_int_equal(expfile_parse("power.perf", &f), EXPFILE_POWER);
	assert_int_equal(f.power, EXPFILE_POWER_PERF);
	assert_int_equal(expfile_parse("power.meter", &f), EXPFILE_POWER);
	assert_int_equal(f.power, EXPFILE_POWER_METER);
}

/* Limits: pids and tids 1 to INT_MAX, images 1 (0 in live files) to UINT_MAX. */
static void test_number_limits(void **state)
{
	char name[128];
	struct want w = {0};

	(void)state;
	snprintf(name, sizeof(name), "stream.%d.%d.%u", INT_MAX, INT_MAX, UINT_MAX);
	w = (struct want){name, EXPFILE_STREAM, INT_MAX, INT_MAX, UINT_MAX, 0, 0, NULL};
	check(&w);
	snprintf(name, sizeof(name), "live.%d.%u.%u", INT_MAX, UINT_MAX, UINT_MAX);
	w = (struct want){name, EXPFILE_LIVE, INT_MAX, 0, UINT_MAX, UINT_MAX, 0, NULL};
	check(&w);
	snprintf(name, sizeof(name), "stream.%lld.1", (long long)INT_MAX + 1);
	assert_int_equal(expfile_parse(name, NULL), EXPFILE_NONE);
	snprintf(name, sizeof(name), "stream.1.%lld", (long long)INT_MAX + 1);
	assert_int_equal(expfile_parse(name, NULL), EXPFILE_NONE);
	snprintf(name, sizeof(name), "stream.1.1.%llu", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(expfile_parse(name, NULL), EXPFILE_NONE);
	snprintf(name, sizeof(name), "live.1.%llu.0", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(expfile_parse(name, NULL), EXPFILE_NONE);
	snprintf(name, sizeof(name), "live.1.0.%llu", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(expfile_parse(name, NULL), EXPFILE_NONE);
	/* far past every limit: no overflow turns it into a small number */
	assert_int_equal(expfile_parse("maps.99999999999999999999999999", NULL), EXPFILE_NONE);
	assert_int_equal(expfile_parse("samples.18446744073709551617", NULL), EXPFILE_NONE);
	assert_int_equal(expfile_parse("stream.4294967297.1", NULL), EXPFILE_NONE);
}

/* A user's files and other names that look like an experiment's but are none. */
static void test_near_misses(void **state)
{
	static const char *const names[] = {
	    /* the issue's: a user's files next to an experiment */
	    "stream.c",
	    "maps.txt",
	    "power.csv",
	    "proc.py",
	    "meta.json.bak",
	    /* too many, too few or bad numbers */
	    "stream.1.2.3.4",
	    "stream.1.2x",
	    "stream.1",
	    "stream.1.",
	    "stream.1.2.",
	    "stream..2",
	    "stream.-1.2",
	    "stream.+1.2",
	    "stream.1.-2",
	    "stream.0.1",
	    "stream.1.0",
	    "stream.1.2.0",
	    "stream.01.2",
	    "stream.1.02",
	    "stream.1.2.03",
	    "stream. 1.2",
	    "stream.1.2 ",
	    "stream.0x10.1",
	    "stream.1e3.1",
	    "stream",
	    "stream.",
	    /* proc files */
	    "proc.-1.json",
	    "proc.1.json.",
	    "proc.1.json.bak",
	    "proc.1.json.tmp",
	    "proc.1.json.tmpx",
	    "proc.1.json.tmp-1",
	    "proc.1.json.tmp0",
	    "proc.1.0.json",
	    "proc.1.2.3.json",
	    "proc.1.JSON",
	    "proc.1json",
	    "proc.json",
	    "proc..json",
	    "proc.1.2",
	    "proc.x.json",
	    "proc.01.json",
	    "proc.1.json.tmp1.json",
	    /* maps, pmaps, samples */
	    "maps",
	    "maps.",
	    "maps.0",
	    "maps.1.0",
	    "maps.1.2.3",
	    "maps.1.txt",
	    "maps.-5",
	    "pmaps.txt",
	    "pmaps.1.x",
	    "pmaps.",
	    "samples",
	    "samples.",
	    "samples.1.2",
	    "samples.0",
	    "samples.txt",
	    "samples.1.json",
	    /* meta.json and its temporaries */
	    "meta.json~",
	    "meta.jso",
	    "meta.json.tmp",
	    "meta.json.tmp0",
	    "meta.json.tmpx",
	    "meta.json.tmp12.bak",
	    ".meta.json.tmp1",
	    ".meta.json",
	    "meta.json.old",
	    "meta",
	    "Meta.json",
	    "meta.json.tmp-3",
	    /* kallsyms, power */
	    "kallsyms.txt",
	    "kallsyms.tmp2",
	    "kallsyms-0123",
	    "power.",
	    "power.rapl.bak",
	    "power.RAPL",
	    "power.perf2",
	    "power.meter.csv",
	    "power",
	    /* load logs: a user's load.py, no pid, a host the writer never names */
	    "load.py",
	    "load.1",
	    "load.",
	    "load",
	    "load.x.",
	    "load.x.py",
	    "load.x.0",
	    "load.x.01",
	    "load.x.-1",
	    "load.a b.1",
	    "load.a,b.1",
	    "load.x.1 ",
	    /* live buffers: exactly three numbers */
	    "live.1",
	    "live.1.2",
	    "live.1.2.3.4",
	    "live.0.0.0",
	    "live.1.2.x",
	    "live.1.-2.3",
	    "live.1.02.3",
	    "live.1.2.03",
	    "live.1..3",
	    "live.1.2.",
	    "live..2.3",
	    "live.txt",
	    /* nothing like it */
	    "",
	    ".",
	    "..",
	    "notes.txt",
	    "report.html",
	    "traces.otf2",
	    "perfscope.json",
	};

	(void)state;
	for (size_t i = 0; i < N(names); i++) {
		struct expfile f;

		memset(&f, 0x5a, sizeof(f));
		if (expfile_parse(names[i], &f) != EXPFILE_NONE)
			fail_msg("'%s' taken for a file of kind %d", names[i], (int)f.kind);
		assert_int_equal(f.kind, EXPFILE_NONE);
		assert_int_equal(f.pid, 0);
		assert_null(f.host);
	}
}

/* The builder spells names exactly as the writers do (their formats, copied here). */
static void test_writers_formats(void **state)
{
	char want[128], got[128];
	struct expfile f;

	(void)state;
	for (int pid = 1; pid < 100000; pid = pid * 7 + 3) {
		for (unsigned image = 0; image < 3; image++) {
			/* src/runtime/thread.c */
			if (image)
				snprintf(want, sizeof(want), "stream.%d.%d.%u", pid, pid + 1,
					 image);
			else
				snprintf(want, sizeof(want), "stream.%d.%d", pid, pid + 1);
			f = (struct expfile){
			    .kind = EXPFILE_STREAM, .pid = pid, .tid = pid + 1, .image = image};
			assert_true(expfile_name(&f, got, sizeof(got)) > 0);
			assert_string_equal(got, want);
			/* src/runtime/session.c proc_file and write_file */
			if (image)
				snprintf(want, sizeof(want), "proc.%d.%u.json.tmp%d", pid, image,
					 pid);
			else
				snprintf(want, sizeof(want), "proc.%d.json.tmp%d", pid, pid);
			f = (struct expfile){
			    .kind = EXPFILE_PROC_TMP, .pid = pid, .image = image, .writer = pid};
			assert_true(expfile_name(&f, got, sizeof(got)) > 0);
			assert_string_equal(got, want);
			assert_int_equal(expfile_parse(got, &f), EXPFILE_PROC_TMP);
			assert_int_equal(f.image, image);
		}
		/* src/mpi/load.c */
		snprintf(want, sizeof(want), "load.%s.%d", "n1.example", pid);
		f = (struct expfile){
		    .kind = EXPFILE_LOAD, .pid = pid, .host = "n1.example", .hostlen = 10};
		assert_true(expfile_name(&f, got, sizeof(got)) > 0);
		assert_string_equal(got, want);
		/* src/cli/sample-out.c */
		snprintf(want, sizeof(want), "samples.%d", pid);
		f = (struct expfile){.kind = EXPFILE_SAMPLES, .pid = pid};
		assert_true(expfile_name(&f, got, sizeof(got)) > 0);
		assert_string_equal(got, want);
	}
}

/* What cannot be a name is not built; a buffer too small is said. */
static void test_name_errors(void **state)
{
	char buf[64];
	struct expfile f;

	(void)state;
	f = (struct expfile){.kind = EXPFILE_NONE};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_STREAM, .pid = 0, .tid = 1};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_STREAM, .pid = 1, .tid = -1};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_PROC_TMP, .pid = 1, .writer = 0};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_LOAD, .pid = 1, .host = "a/b", .hostlen = 3};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_LOAD, .pid = 1, .host = NULL};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_POWER, .power = (enum expfile_power)3};
	assert_int_equal(expfile_name(&f, buf, sizeof(buf)), -1);
	f = (struct expfile){.kind = EXPFILE_STREAM, .pid = 12345, .tid = 12346};
	assert_int_equal(expfile_name(&f, buf, 18), -1); /* "stream.12345.12346" is 18 long */
	assert_int_equal(expfile_name(&f, buf, 19), 18);
	assert_string_equal(buf, "stream.12345.12346");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_names),	    cmocka_unit_test(test_power_sources),
	    cmocka_unit_test(test_number_limits),   cmocka_unit_test(test_near_misses),
	    cmocka_unit_test(test_writers_formats), cmocka_unit_test(test_name_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
