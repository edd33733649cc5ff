/* test_caveats.c - the caveats about events: one line per event record could not open (from
 * meta.json's unsupported_events, said once even where the region rows know it too), and one
 * per multiplexed (scaled) event with its lowest running share. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/caveats.h"
#include "view/region-print.h"

/* The caveat lines, each followed by '\n', in one malloc'd string. */
struct lines {
	char buf[4096];
	size_t len;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s\n", line);
}

static const char reason[] =
    "not supported: no hardware PMU on this machine (a VM without PMU passthrough?)";

/* An experiment of one process that ended cleanly; with UNSUPPORTED, record could not open
 * cycles. */
static void make_experiment(struct experiment *e, struct exp_process *pr, struct exp_unsupported *u,
			    int unsupported)
{
	memset(e, 0, sizeof(*e));
	memset(pr, 0, sizeof(*pr));
	pr->pid = 42;
	pr->state = "exited";
	pr->error = "";
	pr->paranoid = 2;
	e->dir = "exp";
	e->exit_status = 0;
	e->procs = pr;
	e->nprocs = 1;
	if (unsupported) {
		u->name = "cycles";
		u->reason = (char *)reason;
		u->status = -ENOENT;
		e->unsupported = u;
		e->nunsupported = 1;
	}
}

static void test_experiment_line(void **state)
{
	struct experiment e;
	struct exp_process pr;
	struct exp_unsupported u;
	struct lines l = {.len = 0};

	(void)state;
	make_experiment(&e, &pr, &u, 1);
	experiment_caveats(&e, 1, collect, &l);
	assert_string_equal(l.buf, "cycles: not supported: no hardware PMU on this machine (a VM "
				   "without PMU passthrough?)\n");
	assert_ptr_equal(experiment_unsupported(&e, "cycles"), &u);
	assert_null(experiment_unsupported(&e, "instructions"));
	/* none listed: no line */
	make_experiment(&e, &pr, &u, 0);
	l.len = 0;
	l.buf[0] = 0;
	experiment_caveats(&e, 1, collect, &l);
	assert_string_equal(l.buf, "");
}

/* One region row over the events page-faults (counted), instructions (multiplexed: running 1/4
 * and 1/2 of enabled in two rows) and cycles (not opened, -ENOENT). */
static void region_lines(int unsupported, struct lines *l)
{
	static char *events[] = {"page-faults", "instructions", "cycles"};
	struct count c0[3] = {{100, 1000, 1000}, {500, 1000, 250}, {0, 0, 0}};
	struct count c1[3] = {{100, 1000, 1000}, {500, 1000, 500}, {0, 0, 0}};
	int32_t st[3] = {0, 0, -ENOENT};
	struct region_row rows[2] = {
	    {.name = "a", .calls = 1, .counts = c0, .status = st},
	    {.name = "b", .calls = 1, .counts = c1, .status = st},
	};
	struct thread_summary th = {.pid = 42, .tid = 42, .ended = 1, .records = 4};
	struct region_profile p = {.nevents = 3,
				   .events = events,
				   .rows = rows,
				   .nrows = 2,
				   .threads = &th,
				   .nthreads = 1};
	struct experiment e;
	struct exp_process pr;
	struct exp_unsupported u;
	struct region_report r = {.e = &e, .p = &p};

	make_experiment(&e, &pr, &u, unsupported);
	l->len = 0;
	l->buf[0] = 0;
	region_report_caveats(&r, collect, l);
}

static void test_region_lines(void **state)
{
	static const char multiplexed[] =
	    "instructions: multiplexed (counted 25.0 % of the time at least): its values are "
	    "estimates, scaled by enabled / running time\n";
	static const char cycles[] = "cycles: not supported: no hardware PMU on this machine (a "
				     "VM without PMU passthrough?)\n";
	struct lines l;

	(void)state;
	/* record listed cycles: its line once, from the experiment, then the multiplexed one */
	region_lines(1, &l);
	char want[1024];

	snprintf(want, sizeof(want), "%s%s", cycles, multiplexed);
	assert_string_equal(l.buf, want);
	/* an experiment without the list (a program run alone): the rows' status says it, with the
	 * reason counter_status_reason gives for the recorded machine (no core PMU) */
	region_lines(0, &l);
	snprintf(want, sizeof(want), "%s%s", multiplexed, cycles);
	assert_string_equal(l.buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_experiment_line),
	    cmocka_unit_test(test_region_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
