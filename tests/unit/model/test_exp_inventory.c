/*
 * test_exp_inventory.c - what an experiment holds (src/model/exp-inventory.h): streams read
 * whole (records by kind, span, how each ended), processes in pid order, and the words for how
 * a stream and a process ended.
 */
#include "model/exp-inventory.h"
#include "model/experiment-open.h"

#include "synth-exp.h"

#include <errno.h>

/* Process 200 (a region entered and left, ended) and process 50 (two calls, no end record),
 * listed in that order by no one: the inventory puts 50 first. */
static void write_two(char *dir, size_t len)
{
	struct words a = {{0}, 0}, b = {{0}, 0};

	new_dir(dir, len);
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],\"exit_status\":0,"
		   "\"exit_signal\":0}");
	write_proc(dir, 200, "[]");
	write_proc(dir, 50, "[]");
	w_clock(&a, 1000);
	w_def(&a, 1000, 1, "r");
	w_enter(&a, 1100, 1);
	w_leave(&a, 1300, 1);
	w_end(&a, 1400);
	write_stream(dir, 200, 200, &a, NULL, 0);
	w_clock(&b, 2000);
	w_call(&b, 2100, 1, 0x1000);
	w_call(&b, 2200, 0, 0x1000);
	w_call(&b, 2300, 1, 0x1000);
	w_call(&b, 2500, 0, 0x1000);
	write_stream(dir, 50, 50, &b, NULL, 0);
}

static const struct stream_info *stream_of(const struct exp_inventory *inv, int pid)
{
	for (size_t i = 0; i < inv->e->nstreams; i++)
		if (inv->streams[i].s->pid == pid)
			return &inv->streams[i];
	fail_msg("no stream of pid %d", pid);
	return NULL;
}

static void test_read(void **state)
{
	struct exp_inventory inv;
	const struct stream_info *a, *b;
	struct experiment e;
	char dir[128], err[512] = "", buf[128];
	double span;

	(void)state;
	write_two(dir, sizeof(dir));
	memset(&e, 0, sizeof(e));
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(exp_inventory_read(&inv, &e, err, sizeof(err)), 0);
	assert_int_equal(e.nprocs, 2);
	assert_int_equal(inv.procs[0]->pid, 50);
	assert_int_equal(inv.procs[1]->pid, 200);

	a = stream_of(&inv, 200);
	assert_int_equal(a->records, 5);
	assert_int_equal(a->by_kind[PSC_REC_REGION_ENTER + 1], 1);
	assert_int_equal(a->by_kind[PSC_REC_REGION_LEAVE + 1], 1);
	assert_int_equal(a->by_kind[0] + a->by_kind[1], 0);
	assert_true(a->ended);
	stream_info_end_text(a, buf, sizeof(buf));
	assert_string_equal(buf, "exit");

	b = stream_of(&inv, 50);
	assert_int_equal(b->records, 5);
	assert_int_equal(b->by_kind[0], 2); /* function enter */
	assert_int_equal(b->by_kind[1], 2); /* function exit */
	assert_false(b->ended);
	stream_info_end_text(b, buf, sizeof(buf));
	assert_string_equal(buf, "no end record");

	/* ticks are ns: from 1000 (process 200's first record) to 2500 (process 50's last) */
	assert_int_equal(inventory_span_ns(inv.streams, e.nstreams, &span), 1);
	assert_true(span == 1500.0);
	assert_int_equal(inventory_streams_of(inv.procs[0], inv.streams, e.nstreams), 1);
	inventory_process_state(&e, inv.procs[0], inv.streams, e.nstreams, buf, sizeof(buf));
	assert_string_equal(buf, "exited");
	exp_inventory_release(&inv);
	experiment_release(&e);
}

/* Function records counted as recorded, whatever the matching of calls made of them: an exit
 * without its enter, an exit that skips a frame, a call left open (a killed run); the exits
 * made up for the skipped frame and the open call are no record. */
static void test_calls_as_recorded(void **state)
{
	struct exp_inventory inv;
	struct words s = {{0}, 0};
	struct experiment e;
	char dir[128], err[512] = "";

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_call(&s, 1001, 0, 0x99); /* entered before the recording began */
	w_call(&s, 1002, 1, 0x10);
	w_call(&s, 1003, 1, 0x20);
	w_call(&s, 1004, 0, 0x10); /* skips 0x20 */
	w_call(&s, 1005, 1, 0x30); /* never left */
	write_stream(dir, 100, 100, &s, NULL, 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(exp_inventory_read(&inv, &e, err, sizeof(err)), 0);
	assert_int_equal(inv.streams[0].records, 6);
	assert_int_equal(inv.streams[0].by_kind[0], 3);
	assert_int_equal(inv.streams[0].by_kind[1], 2);
	assert_int_equal(inv.streams[0].by_kind[PSC_REC_CLOCK_SYNC + 1], 1);
	assert_int_equal(inv.streams[0].chunks, 1);
	assert_false(inv.streams[0].ended);
	exp_inventory_release(&inv);
	experiment_release(&e);
}

/* A stream whose file name and header disagree is a defect named with its byte. */
static void test_name_mismatch(void **state)
{
	struct exp_inventory inv;
	struct words s = {{0}, 0};
	struct experiment e;
	char dir[128], err[512] = "", from[256], to[256];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_end(&s, 1100);
	write_stream(dir, 100, 101, &s, NULL, 0);
	snprintf(from, sizeof(from), "%s/stream.100.101", dir);
	snprintf(to, sizeof(to), "%s/stream.100.102", dir);
	assert_int_equal(rename(from, to), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(exp_inventory_read(&inv, &e, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "stream.100.102: byte 28: the header says pid 100 tid 101"));
	exp_inventory_release(&inv);
	experiment_release(&e);
}

/* How a process that wrote no end ended, as far as meta.json tells. */
static void test_process_state(void **state)
{
	char running[] = "running", buf[128];
	struct exp_process p = {.pid = 10, .ppid = 1, .state = running};
	struct experiment e = {.procs = &p, .nprocs = 1};

	(void)state;
	e.exit_signal = 9;
	inventory_process_state(&e, &p, NULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "running (killed: the command ended by signal 9)");
	e.exit_signal = -1;
	e.exit_status = 137;
	inventory_process_state(&e, &p, NULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "running (killed: the command ended by signal 9)");
	e.exit_status = -1;
	e.created_by = "perfscope record";
	inventory_process_state(&e, &p, NULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "running (did not end cleanly; record was killed too)");
	e.created_by = NULL;
	inventory_process_state(&e, &p, NULL, 0, buf, sizeof(buf));
	assert_string_equal(
	    buf, "running (did not end cleanly: killed, or still running when record ended)");
}

static void test_end_text(void **state)
{
	struct stream_info si = {0};
	char buf[64];

	(void)state;
	si.ended = 1;
	si.end_arg = PSC_END_SIGNAL | 9u << 8;
	stream_info_end_text(&si, buf, sizeof(buf));
	assert_string_equal(buf, "signal 9 (SIGKILL)");
	si.ended = 0;
	si.cut_at = 4096;
	stream_info_end_text(&si, buf, sizeof(buf));
	assert_string_equal(buf, "cut at byte 4096");
}

static void test_kinds(void **state)
{
	(void)state;
	assert_false(inventory_kind_samples_only(0));
	assert_true(inventory_kind_samples_only(PSC_REC_SAMPLE + 1));
	assert_true(inventory_kind_samples_only(PSC_REC_SWITCH + 1));
	assert_false(inventory_kind_samples_only(PSC_REC_REGION_ENTER + 1));
	assert_string_equal(inventory_kind_name(PSC_REC_REGION_ENTER + 1),
			    stream_record_name(&(struct stream_record){
				.kind = PSC_KIND_EXT, .type = PSC_REC_REGION_ENTER}));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read),	  cmocka_unit_test(test_name_mismatch),
	    cmocka_unit_test(test_process_state), cmocka_unit_test(test_end_text),
	    cmocka_unit_test(test_kinds),	  cmocka_unit_test(test_calls_as_recorded),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
