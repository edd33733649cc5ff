/*
 * test_layout.c - the names of an experiment's files (layout.h): every name a writer
 * makes (the runtime, record, the sampler, the power and load logs, the live buffers) with its
 * parts, the near misses a user's files make (stream.c, maps.txt, power.csv, proc.py,
 * meta.json.bak ...), numbers at and past their limits, and names built and parsed back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "format/layout.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A name and what layout_parse must make of it. */
struct want {
	const char *name;
	enum layout_kind kind;
	int pid, tid;
	unsigned image, slot;
	int writer;
	const char *host; /* LOAD */
};

static void check(const struct want *w)
{
	struct layout_file f;
	char back[256];

	memset(&f, 0xa5, sizeof(f));
	if (layout_parse(w->name, &f) != w->kind)
		fail_msg("%s: kind %d, expected %d", w->name, (int)f.kind, (int)w->kind);
	assert_int_equal(f.kind, w->kind);
	assert_int_equal(layout_parse(w->name, NULL), w->kind);
	assert_int_equal(f.pid, w->pid);
	assert_int_equal(f.tid, w->tid);
	assert_int_equal(f.image, w->image);
	assert_int_equal(f.slot, w->slot);
	assert_int_equal(f.writer, w->writer);
	if (w->kind == LAYOUT_LOAD) {
		assert_int_equal(f.hostlen, strlen(w->host));
		assert_memory_equal(f.host, w->host, f.hostlen);
	} else {
		assert_null(f.host);
	}
	if (w->kind == LAYOUT_NONE)
		return;
	/* built back from its parts, the same name */
	assert_int_equal(layout_name(&f, back, sizeof(back)), (int)strlen(w->name));
	assert_string_equal(back, w->name);
}

/* Every name a writer makes, with its parts. */
static void test_real_names(void **state)
{
	static const struct want names[] = {
	    {"meta.json", LAYOUT_META, 0, 0, 0, 0, 0, NULL},
	    {".meta.json.tmp", LAYOUT_META_TMP, 0, 0, 0, 0, 0, NULL},
	    {"meta.json.tmp4711", LAYOUT_META_TMP, 0, 0, 0, 0, 4711, NULL},
	    {"proc.4711.json", LAYOUT_PROC, 4711, 0, 0, 0, 0, NULL},
	    {"proc.4711.1.json", LAYOUT_PROC, 4711, 0, 1, 0, 0, NULL},
	    {"proc.4711.4095.json", LAYOUT_PROC, 4711, 0, 4095, 0, 0, NULL},
	    {"proc.4711.json.tmp4711", LAYOUT_PROC_TMP, 4711, 0, 0, 0, 4711, NULL},
	    {"proc.4711.2.json.tmp4711", LAYOUT_PROC_TMP, 4711, 0, 2, 0, 4711, NULL},
	    {"stream.4711.4711", LAYOUT_STREAM, 4711, 4711, 0, 0, 0, NULL},
	    {"stream.4711.4712", LAYOUT_STREAM, 4711, 4712, 0, 0, 0, NULL},
	    {"stream.4711.4712.3", LAYOUT_STREAM, 4711, 4712, 3, 0, 0, NULL},
	    {"stream.1.1", LAYOUT_STREAM, 1, 1, 0, 0, 0, NULL},
	    {"maps.4711", LAYOUT_MAPS, 4711, 0, 0, 0, 0, NULL},
	    {"maps.4711.1", LAYOUT_MAPS, 4711, 0, 1, 0, 0, NULL},
	    {"pmaps.4711", LAYOUT_PMAPS, 4711, 0, 0, 0, 0, NULL},
	    {"pmaps.4711.12", LAYOUT_PMAPS, 4711, 0, 12, 0, 0, NULL},
	    {"samples.4711", LAYOUT_SAMPLES, 4711, 0, 0, 0, 0, NULL},
	    {"kallsyms", LAYOUT_KALLSYMS, 0, 0, 0, 0, 0, NULL},
	    {"kallsyms.tmp", LAYOUT_KALLSYMS_TMP, 0, 0, 0, 0, 0, NULL},
	    {"power.rapl", LAYOUT_POWER, 0, 0, 0, 0, 0, NULL},
	    {"power.perf", LAYOUT_POWER, 0, 0, 0, 0, 0, NULL},
	    {"power.meter", LAYOUT_POWER, 0, 0, 0, 0, 0, NULL},
	    {"load.node17.4711", LAYOUT_LOAD, 4711, 0, 0, 0, 0, "node17"},
	    {"load.node17.cluster.example.org.4711", LAYOUT_LOAD, 4711, 0, 0, 0, 0,
	     "node17.cluster.example.org"},
	    {"load.my_host.1", LAYOUT_LOAD, 1, 0, 0, 0, 0, "my_host"},
	    {"load..4711", LAYOUT_LOAD, 4711, 0, 0, 0, 0, ""},
	    {"live.4711.0.0", LAYOUT_LIVE, 4711, 0, 0, 0, 0, NULL},
	    {"live.4711.2.17", LAYOUT_LIVE, 4711, 0, 2, 17, 0, NULL},
	};

	(void)state;
	for (size_t i = 0; i < N(names); i++)
		check(&names[i]);
}

/* The power sources are told apart. */
static void test_power_sources(void **state)
{
	struct layout_file f;

	(void)state;
	assert_int_equal(layout_parse("power.rapl", &f), LAYOUT_POWER);
	assert_int_equal(f.power, LAYOUT_POWER_RAPL);
	assert_int_equal(layout_parse("power.perf", &f), LAYOUT_POWER);
	assert_int_equal(f.power, LAYOUT_POWER_PERF);
	assert_int_equal(layout_parse("power.meter", &f), LAYOUT_POWER);
	assert_int_equal(f.power, LAYOUT_POWER_METER);
}

/* Limits: pids and tids 1 to INT_MAX, images 1 (0 in live files) to UINT_MAX. */
static void test_number_limits(void **state)
{
	char name[128];
	struct want w = {0};

	(void)state;
	snprintf(name, sizeof(name), "stream.%d.%d.%u", INT_MAX, INT_MAX, UINT_MAX);
	w = (struct want){name, LAYOUT_STREAM, INT_MAX, INT_MAX, UINT_MAX, 0, 0, NULL};
	check(&w);
	snprintf(name, sizeof(name), "live.%d.%u.%u", INT_MAX, UINT_MAX, UINT_MAX);
	w = (struct want){name, LAYOUT_LIVE, INT_MAX, 0, UINT_MAX, UINT_MAX, 0, NULL};
	check(&w);
	snprintf(name, sizeof(name), "stream.%lld.1", (long long)INT_MAX + 1);
	assert_int_equal(layout_parse(name, NULL), LAYOUT_NONE);
	snprintf(name, sizeof(name), "stream.1.%lld", (long long)INT_MAX + 1);
	assert_int_equal(layout_parse(name, NULL), LAYOUT_NONE);
	snprintf(name, sizeof(name), "stream.1.1.%llu", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(layout_parse(name, NULL), LAYOUT_NONE);
	snprintf(name, sizeof(name), "live.1.%llu.0", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(layout_parse(name, NULL), LAYOUT_NONE);
	snprintf(name, sizeof(name), "live.1.0.%llu", (unsigned long long)UINT_MAX + 1);
	assert_int_equal(layout_parse(name, NULL), LAYOUT_NONE);
	/* far past every limit: no overflow turns it into a small number */
	assert_int_equal(layout_parse("maps.99999999999999999999999999", NULL), LAYOUT_NONE);
	assert_int_equal(layout_parse("samples.18446744073709551617", NULL), LAYOUT_NONE);
	assert_int_equal(layout_parse("stream.4294967297.1", NULL), LAYOUT_NONE);
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
		struct layout_file f;

		memset(&f, 0x5a, sizeof(f));
		if (layout_parse(names[i], &f) != LAYOUT_NONE)
			fail_msg("'%s' taken for a file of kind %d", names[i], (int)f.kind);
		assert_int_equal(f.kind, LAYOUT_NONE);
		assert_int_equal(f.pid, 0);
		assert_null(f.host);
	}
}

/* The builder spells names exactly as the writers do (their formats, copied here). */
static void test_writers_formats(void **state)
{
	char want[128], got[128];
	struct layout_file f;

	(void)state;
	for (int pid = 1; pid < 100000; pid = pid * 7 + 3) {
		for (unsigned image = 0; image < 3; image++) {
			/* src/runtime/thread.c */
			if (image)
				snprintf(want, sizeof(want), "stream.%d.%d.%u", pid, pid + 1,
					 image);
			else
				snprintf(want, sizeof(want), "stream.%d.%d", pid, pid + 1);
			f = (struct layout_file){
			    .kind = LAYOUT_STREAM, .pid = pid, .tid = pid + 1, .image = image};
			assert_true(layout_name(&f, got, sizeof(got)) > 0);
			assert_string_equal(got, want);
			/* src/runtime/session.c proc_file and write_file */
			if (image)
				snprintf(want, sizeof(want), "proc.%d.%u.json.tmp%d", pid, image,
					 pid);
			else
				snprintf(want, sizeof(want), "proc.%d.json.tmp%d", pid, pid);
			f = (struct layout_file){
			    .kind = LAYOUT_PROC_TMP, .pid = pid, .image = image, .writer = pid};
			assert_true(layout_name(&f, got, sizeof(got)) > 0);
			assert_string_equal(got, want);
			assert_int_equal(layout_parse(got, &f), LAYOUT_PROC_TMP);
			assert_int_equal(f.image, image);
		}
		/* src/mpi-rt/load.c */
		snprintf(want, sizeof(want), "load.%s.%d", "n1.example", pid);
		f = (struct layout_file){
		    .kind = LAYOUT_LOAD, .pid = pid, .host = "n1.example", .hostlen = 10};
		assert_true(layout_name(&f, got, sizeof(got)) > 0);
		assert_string_equal(got, want);
		/* src/record/sample-out.c */
		snprintf(want, sizeof(want), "samples.%d", pid);
		f = (struct layout_file){.kind = LAYOUT_SAMPLES, .pid = pid};
		assert_true(layout_name(&f, got, sizeof(got)) > 0);
		assert_string_equal(got, want);
	}
}

/* What cannot be a name is not built; a buffer too small is said. */
static void test_name_errors(void **state)
{
	char buf[64];
	struct layout_file f;

	(void)state;
	f = (struct layout_file){.kind = LAYOUT_NONE};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_STREAM, .pid = 0, .tid = 1};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_STREAM, .pid = 1, .tid = -1};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_PROC_TMP, .pid = 1, .writer = 0};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_LOAD, .pid = 1, .host = "a/b", .hostlen = 3};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_LOAD, .pid = 1, .host = NULL};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_POWER, .power = (enum layout_power)3};
	assert_int_equal(layout_name(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct layout_file){.kind = LAYOUT_STREAM, .pid = 12345, .tid = 12346};
	assert_int_equal(layout_name(&f, buf, 18),
			 -ENAMETOOLONG); /* "stream.12345.12346" is 18 long */
	assert_int_equal(layout_name(&f, buf, 19), 18);
	assert_string_equal(buf, "stream.12345.12346");
	/* cut short, still a string */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(layout_name(&f, buf, 8), -ENAMETOOLONG);
	assert_string_equal(buf, "stream.");
	assert_int_equal(layout_name(&f, buf, 0), -ENAMETOOLONG);
	assert_int_equal(layout_path("/tmp/exp", &f, buf, 27), -ENAMETOOLONG);
	assert_int_equal(layout_path("/tmp/exp", &f, buf, 28), 27);
	assert_string_equal(buf, "/tmp/exp/stream.12345.12346");
	f = (struct layout_file){.kind = LAYOUT_MAPS, .pid = -4};
	assert_int_equal(layout_path("/tmp/exp", &f, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "");
}

/* Every kind with its largest numbers, built into a path and parsed back. */
static void test_round_trip_limits(void **state)
{
	const struct layout_file files[] = {
	    {.kind = LAYOUT_META},
	    {.kind = LAYOUT_META_TMP},
	    {.kind = LAYOUT_META_TMP, .writer = INT_MAX},
	    {.kind = LAYOUT_PROC, .pid = INT_MAX, .image = UINT_MAX},
	    {.kind = LAYOUT_PROC_TMP, .pid = 1, .image = 0, .writer = INT_MAX},
	    {.kind = LAYOUT_STREAM, .pid = INT_MAX, .tid = INT_MAX, .image = UINT_MAX},
	    {.kind = LAYOUT_MAPS, .pid = INT_MAX, .image = 1},
	    {.kind = LAYOUT_PMAPS, .pid = 10, .image = 10},
	    {.kind = LAYOUT_SAMPLES, .pid = INT_MAX},
	    {.kind = LAYOUT_KALLSYMS},
	    {.kind = LAYOUT_KALLSYMS_TMP},
	    {.kind = LAYOUT_POWER, .power = LAYOUT_POWER_METER},
	    {.kind = LAYOUT_LOAD, .pid = INT_MAX, .host = "a.b.c", .hostlen = 5},
	    {.kind = LAYOUT_LOAD, .pid = 7, .host = "", .hostlen = 0},
	    {.kind = LAYOUT_LIVE, .pid = INT_MAX, .image = UINT_MAX, .slot = UINT_MAX},
	    {.kind = LAYOUT_LIVE, .pid = 1, .image = 0, .slot = 0},
	};
	char path[128];

	(void)state;
	for (size_t i = 0; i < N(files); i++) {
		struct layout_file g;
		int n = layout_path("d", &files[i], path, sizeof(path));

		assert_true(n > 2);
		assert_int_equal((size_t)n, strlen(path));
		assert_memory_equal(path, "d/", 2);
		assert_int_equal(layout_parse(path + 2, &g), files[i].kind);
		assert_int_equal(g.pid, files[i].pid);
		assert_int_equal(g.tid, files[i].tid);
		assert_int_equal(g.image, files[i].image);
		assert_int_equal(g.slot, files[i].slot);
		assert_int_equal(g.writer, files[i].writer);
		assert_int_equal(g.power, files[i].power);
		assert_int_equal(g.hostlen, files[i].hostlen);
	}
}

/* The temporary names files are written under before they are renamed into place. */
static void test_tmp_names(void **state)
{
	struct layout_file f = {.kind = LAYOUT_META}, t;
	char buf[64];

	(void)state;
	t = layout_tmp(&f, 0);
	assert_int_equal(layout_name(&t, buf, sizeof(buf)), 14);
	assert_string_equal(buf, ".meta.json.tmp");
	t = layout_tmp(&f, 4242);
	assert_true(layout_name(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "meta.json.tmp4242");
	f = (struct layout_file){.kind = LAYOUT_PROC, .pid = 17, .image = 2};
	t = layout_tmp(&f, 17);
	assert_true(layout_name(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "proc.17.2.json.tmp17");
	f = (struct layout_file){.kind = LAYOUT_KALLSYMS};
	t = layout_tmp(&f, 0);
	assert_true(layout_name(&t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "kallsyms.tmp");
	f = (struct layout_file){.kind = LAYOUT_STREAM, .pid = 1, .tid = 1};
	assert_int_equal(layout_tmp(&f, 1).kind, LAYOUT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_names),	      cmocka_unit_test(test_power_sources),
	    cmocka_unit_test(test_number_limits),     cmocka_unit_test(test_near_misses),
	    cmocka_unit_test(test_writers_formats),   cmocka_unit_test(test_name_errors),
	    cmocka_unit_test(test_round_trip_limits), cmocka_unit_test(test_tmp_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
