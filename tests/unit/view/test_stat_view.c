/* test_stat_view.c - `perfscope stat` results in every format (text, CSV, JSON, long CSV), with
 * and without --per-thread, on results made by hand whose every number is known: each output
 * is compared byte for byte with tests/data/stat-view/NAME. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/stat-result.h"
#include "view/stat-print.h"
#include "view/view.h"

/* Events: page-faults counted in full, instructions scaled (half the time, user space only),
 * cycles not supported (ENOENT), branches never scheduled. */
static const char *const event_names[] = {"page-faults", "instructions", "cycles", "branches"};
#define NEV 4

static const char *const group_text =
    "description: test group\n"
    "events: page-faults, instructions, cycles\n"
    "metric: faults per second [1/s] = page-faults / time_s\n"
    "metric: IPC = instructions / cycles\n"
    "metric: zero = page-faults / (instructions - instructions)\n";

struct fixture {
	struct stat_result res;
	struct metric_group g;
};

static char *command[] = {"./prog", "a b", NULL};

/* Run R of RES: page-faults 1000 + 100 R, instructions 5000 + 10 R raw counted half of the
 * time, wall 2 ms + 1 ms R, user 1.5 ms, system 0.25 ms. */
static void fill_run(struct stat_result *res, size_t r)
{
	struct stat_run *run = &res->runs[r];

	run->counts[0] = (struct count){1000 + 100 * r, 10, 10};
	run->counts[1] = (struct count){5000 + 10 * r, 10, 5};
	run->user_only[1] = 1;
	run->status[2] = -ENOENT;
	run->counts[3] = (struct count){0, 10, 0};
	run->wall_ns = 2e6 + 1e6 * (double)r;
	run->user_ns = 1.5e6;
	run->sys_ns = 0.25e6;
}

/* Threads of run 0: the launched one (pid 100), a worker, and a thread of a child process
 * (pid 200) that could not count instructions. */
static void fill_threads(struct stat_run *run)
{
	static const struct {
		pid_t pid, tid;
		const char *name;
		uint64_t faults, instr;
		int instr_status;
	} th[] = {{100, 100, "prog", 300, 2000, 0},
		  {100, 101, "worker", 600, 500, 0},
		  {200, 202, "", 90, 0, -EACCES}};

	run->nthreads = 3;
	run->threads = calloc(3, sizeof(*run->threads));
	assert_non_null(run->threads);
	for (size_t k = 0; k < 3; k++) {
		struct stat_thread *t = &run->threads[k];

		t->pid = th[k].pid;
		t->tid = th[k].tid;
		snprintf(t->name, sizeof(t->name), "%s", th[k].name);
		t->counts = calloc(NEV, sizeof(*t->counts));
		t->status = calloc(NEV, sizeof(*t->status));
		assert_non_null(t->counts);
		assert_non_null(t->status);
		t->counts[0] = (struct count){th[k].faults, 10, 10};
		t->counts[1] = (struct count){th[k].instr, 10, 5};
		t->status[1] = th[k].instr_status;
		t->status[2] = -ENOENT;
		t->counts[3] = (struct count){0, 10, 0};
	}
}

/* RUNS runs of the events above, the group's metrics, the threads when PER_THREAD. */
static void make(struct fixture *fx, size_t runs, int per_thread)
{
	char err[256];

	memset(fx, 0, sizeof(*fx));
	assert_int_equal(metric_group_parse(&fx->g, "test", NULL, group_text, err, sizeof(err)), 0);
	fx->res.events = calloc(NEV, sizeof(*fx->res.events));
	assert_non_null(fx->res.events);
	for (size_t i = 0; i < NEV; i++) {
		snprintf(fx->res.events[i].name, sizeof(fx->res.events[i].name), "%s",
			 event_names[i]);
		snprintf(fx->res.events[i].canonical, sizeof(fx->res.events[i].canonical),
			 "perf::%s", event_names[i]);
		fx->res.events[i].type = 1;
	}
	fx->res.nevents = NEV;
	assert_int_equal(stat_result_alloc(&fx->res, runs), 0);
	for (size_t r = 0; r < runs; r++)
		fill_run(&fx->res, r);
	fx->res.nruns = runs;
	fx->res.group = &fx->g;
	fx->res.command = command;
	fx->res.ncommand = 2;
	fx->res.paranoid = 2;
	fx->res.per_thread = per_thread;
	fx->res.exit_status = 3;
	if (per_thread)
		fill_threads(&fx->res.runs[0]);
}

static void release(struct fixture *fx)
{
	stat_result_release(&fx->res);
	metric_group_release(&fx->g);
}

/* The contents of tests/data/stat-view/NAME, malloc'd. */
static char *expected(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/stat-view/%s", PSC_TEST_DATA_DIR, name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc((size_t)n + 1, 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* RES in FMT as stat prints it, compared with the file NAME. */
static void check(const struct stat_result *res, enum out_format fmt, const char *name)
{
	char *out = NULL, *want;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(stat_print(res, fmt, f), 0);
	fclose(f);
	want = expected(name);
	if (getenv("PSC_STAT_VIEW_WRITE")) { /* regenerate: PSC_STAT_VIEW_WRITE=DIR */
		char path[512];
		FILE *w;

		snprintf(path, sizeof(path), "%s/%s", getenv("PSC_STAT_VIEW_WRITE"), name);
		w = fopen(path, "wb");
		assert_non_null(w);
		fputs(out, w);
		fclose(w);
	}
	assert_string_equal(out, want);
	free(out);
	free(want);
}

static void test_one_run(void **state)
{
	struct fixture fx;

	(void)state;
	make(&fx, 1, 0);
	check(&fx.res, OUT_TEXT, "one.txt");
	check(&fx.res, OUT_CSV, "one.csv");
	check(&fx.res, OUT_JSON, "one.json");
	check(&fx.res, OUT_LONG, "one.long.csv");
	release(&fx);
}

static void test_two_runs(void **state)
{
	struct fixture fx;

	(void)state;
	make(&fx, 2, 0);
	check(&fx.res, OUT_TEXT, "two.txt");
	check(&fx.res, OUT_CSV, "two.csv");
	check(&fx.res, OUT_JSON, "two.json");
	check(&fx.res, OUT_LONG, "two.long.csv");
	release(&fx);
}

static void test_per_thread(void **state)
{
	struct fixture fx;

	(void)state;
	make(&fx, 1, 1);
	check(&fx.res, OUT_TEXT, "threads.txt");
	check(&fx.res, OUT_CSV, "threads.csv");
	check(&fx.res, OUT_JSON, "threads.json");
	check(&fx.res, OUT_LONG, "threads.long.csv");
	release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_run),
	    cmocka_unit_test(test_two_runs),
	    cmocka_unit_test(test_per_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
