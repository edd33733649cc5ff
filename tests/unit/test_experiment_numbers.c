/*
 * test_experiment_numbers.c - numbers of meta.json and proc.<pid>.json that do not fit the
 * field they are read into (found by tests/fuzz/fuzz_experiment.c): experiment_open reads them
 * as absent (the field's default) instead of casting a double out of range, which is undefined
 * behaviour (on x86-64 it gave INT64_MIN or 2^64 - 1). And a failing experiment_open leaves
 * nothing to release (found by the mutation test: callers that did not release leaked it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "format.h"
#include "synth-exp.h"

static void test_out_of_range(void **state)
{
	struct experiment e;
	char dir[128], err[512] = "";

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json",
		   "{\"version\":1,\"start_ns\":1e300,\"end_ns\":1e301,\"exit_status\":-1e20,"
		   "\"start_unix_ns\":-5,\"unsupported_events\":[{\"name\":\"x\",\"status\":1e99}],"
		   "\"power\":{\"source\":\"rapl\",\"period_ns\":-1e30}}");
	write_text(dir, "proc.7.json",
		   "{\"pid\":7,\"clock\":\"monotonic\",\"image\":-1,\"ppid\":1e12,\"rank\":3e9,"
		   "\"paranoid\":-4e9,\"lost_records\":-1,\"lost_bytes\":1e30,"
		   "\"calibration\":[[\"10\",\"20\"],[-1e300,1e300]]}");
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(e.start_ns, 0);
	assert_int_equal(e.end_ns, 0);
	assert_int_equal(e.exit_status, -1);
	assert_int_equal(e.start_unix_ns, 0);
	assert_int_equal(e.nunsupported, 1);
	assert_int_equal(e.unsupported[0].status, 0);
	assert_int_equal(e.power.period_ns, 0);
	assert_int_equal(e.nprocs, 1);
	assert_int_equal(e.procs[0].pid, 7);
	assert_int_equal(e.procs[0].image, 0);
	assert_int_equal(e.procs[0].ppid, 0);
	assert_int_equal(e.procs[0].rank, -1);
	assert_int_equal(e.procs[0].paranoid, 2);
	assert_int_equal(e.procs[0].lost_records, 0);
	assert_int_equal(e.procs[0].lost_bytes, 0);
	assert_int_equal(e.procs[0].npairs, 2);
	assert_int_equal(e.procs[0].pairs[1].ticks, 0);
	assert_int_equal(e.procs[0].pairs[1].ns, 0);
	experiment_release(&e);

	/* a pid out of range is no pid */
	new_dir(dir, sizeof(dir));
	write_text(dir, "proc.8.json", "{\"pid\":1e10,\"clock\":\"monotonic\"}");
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "missing pid or clock"));
	/* a failure leaves nothing to release (callers that did not release leaked it) */
	assert_null(e.dir);
	assert_null(e.procs);
	assert_int_equal(e.nprocs, 0);
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
