/*
 * test_experiment_numbers.c - numbers of meta.json and proc.<pid>.json that do not fit the
 * field they are read into (found by tests/fuzz/fuzz_experiment.c; casting such a double is
 * undefined behaviour: on x86-64 it gave INT64_MIN or 2^64 - 1): experiment_open refuses the
 * file, naming it and the key. And a failing experiment_open leaves nothing to release (found
 * by the mutation test: callers that did not release leaked it).
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

#include "model/experiment-open.h"
#include "format/format.h"
#include "synth-exp.h"

/* FILE of a fresh directory holding TEXT (and a proc file for meta.json's cases) is refused
 * with a message that names it and KEY, and leaves nothing to release. */
static void refused(const char *file, const char *text, const char *key)
{
	struct experiment e;
	char dir[128], err[512] = "";

	new_dir(dir, sizeof(dir));
	write_text(dir, file, text);
	if (strcmp(file, "proc.7.json"))
		write_text(dir, "proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\"}");
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), -EINVAL);
	if (!strstr(err, file) || !strstr(err, key))
		fail_msg("%s with %s: the message names neither: %s", file, key, err);
	assert_null(e.dir);
	assert_null(e.procs);
	assert_int_equal(e.nprocs, 0);
	experiment_release(&e);
}

static void test_out_of_range(void **state)
{
	(void)state;
	refused("meta.json", "{\"version\":1,\"start_ns\":1e300}", "start_ns");
	refused("meta.json", "{\"version\":1,\"end_ns\":1e301}", "end_ns");
	refused("meta.json", "{\"version\":1,\"exit_status\":-1e20}", "exit_status");
	refused("meta.json", "{\"version\":1,\"start_unix_ns\":-5}", "start_unix_ns");
	refused("meta.json",
		"{\"version\":1,\"unsupported_events\":[{\"name\":\"x\",\"status\":1e99}]}",
		"status");
	refused("meta.json", "{\"version\":1,\"power\":{\"source\":\"rapl\",\"period_ns\":-1e30}}",
		"period_ns");
	refused("proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\",\"image\":-1}", "image");
	refused("proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\",\"ppid\":1e12}", "ppid");
	refused("proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\",\"rank\":3e9}", "rank");
	refused("proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\",\"lost_records\":-1}",
		"lost_records");
	refused("proc.7.json", "{\"pid\":7,\"clock\":\"monotonic\",\"lost_bytes\":1e30}",
		"lost_bytes");
	refused("proc.7.json", "{\"pid\":1e10,\"clock\":\"monotonic\"}", "pid");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
