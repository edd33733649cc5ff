/*
 * test_pass.c - the pass over an experiment source (src/model/pass.h): events in order with
 * their matched calls, facts per location, consumers filtered by kind and location, errors.
 *
 * Run with an experiment directory as its argument, it prints how many records of each kind
 * a pass with a counting consumer saw ("NAME COUNT" lines, names as `perfscope dump` prints
 * them): tests/e2e/test_pass_counts.sh compares them with dump's.
 */
#include "synth-exp.h"

#include "model/experiment-open.h"
#include "format/stream.h"
#include "model/pass.h"
#include "model/thread-label.h"

#include <errno.h>

/* A consumer counting what it sees. */
struct count {
	uint64_t by_kind[EV_NKINDS];
	uint64_t begins, ends, finishes;
	uint64_t unmatched, synthetic;
	struct ev_location_facts last;
	int64_t incl[8], excl[8];
	size_t nexits;
	char region[32];
	char region_at_end[32]; /* the name of region 0 at the last location_end */
	int errors;		/* location_ends with an error */
	char errmsg[512];	/* the last one's message */
	int fail_at_exit;	/* return -EIO at this exit (1-based), 0 never */
	uint64_t raw;		/* events that carry their record */
	uint64_t raw_backwards; /* of those, records before the previous one in the file */
	uint64_t last_offset;
	uint64_t raw_func_exits; /* EV_MARKER events of a function exit record */
	uint64_t readers;	 /* events whose location shows its reader */
};

static int c_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct count *c = ctx;

	(void)loc, (void)err, (void)errlen;
	c->begins++;
	c->last_offset = 0;
	return 0;
}

static int c_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct count *c = ctx;

	c->by_kind[ev->kind]++;
	if (ev->raw) {
		c->raw++;
		c->raw_backwards += ev->raw->offset <= c->last_offset;
		c->last_offset = ev->raw->offset;
		c->raw_func_exits += ev->kind == EV_MARKER && ev->raw->kind == PSC_KIND_FUNC_EXIT;
	}
	c->readers += ev->loc->reader != NULL;
	if (ev->kind == EV_CALL_EXIT) {
		if (c->nexits < 8) {
			c->incl[c->nexits] = ev->call.incl_ns;
			c->excl[c->nexits] = ev->call.excl_ns;
		}
		c->synthetic += (uint64_t)ev->call.synthetic;
		if (++c->nexits == (size_t)c->fail_at_exit) {
			snprintf(err, errlen, "consumer stops");
			return -EIO;
		}
	}
	if (ev->kind == EV_REGION_ENTER && ev->region.name)
		snprintf(c->region, sizeof(c->region), "%s", ev->region.name);
	return 0;
}

static int c_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		 char *err, size_t errlen)
{
	struct count *c = ctx;

	(void)loc, (void)err, (void)errlen;
	c->ends++;
	c->unmatched += f->unmatched_exits;
	c->last = *f;
	if (f->error) {
		c->errors++;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s", f->errmsg);
	}
	snprintf(c->region_at_end, sizeof(c->region_at_end), "%s",
		 ev_location_region_name(loc, 0) ? ev_location_region_name(loc, 0) : "");
	return 0;
}

static int c_finish(void *ctx, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	((struct count *)ctx)->finishes++;
	return 0;
}

static struct ev_consumer counter(struct count *c, uint64_t kinds, unsigned locations)
{
	return (struct ev_consumer){.name = "count",
				    .kinds = kinds,
				    .locations = locations,
				    .ctx = c,
				    .location_begin = c_begin,
				    .event = c_event,
				    .location_end = c_end,
				    .finish = c_finish};
}

/* Run one pass of consumers C[0..n) over DIR with FLAGS: its return, the message in ERR. */
static int run_flags(const char *dir, struct ev_consumer *const *c, size_t n, unsigned flags,
		     char *err, size_t len)
{
	struct experiment e;
	struct ev_source *src;
	int ret = experiment_open(&e, dir, err, len);

	if (ret)
		fail_msg("experiment_open: %s", err);
	ret = ev_source_experiment(&src, &e, err, len);
	assert_int_equal(ret, 0);
	ret = ev_pass_run_flags(src, c, n, flags, err, len);
	ev_source_close(src);
	experiment_release(&e);
	return ret;
}

static int run(const char *dir, struct ev_consumer *const *c, size_t n, char *err, size_t len)
{
	return run_flags(dir, c, n, 0, err, len);
}

/* main 0..100 calling f 10..40 (g 20..30 inside) inside region "r"; a stray exit of 0x99. */
static void write_calls(const char *dir, int end)
{
	struct words s = {.n = 0};

	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_call(&s, 1001, 0, 0x99);
	w_def(&s, 1002, 0, "r");
	w_enter(&s, 1003, 0);
	w_call(&s, 1000 + 0, 1, 0x10); /* same tick as the clock record: time may not go back */
	s.w[s.n - 2] = psc_word0(1003, PSC_KIND_FUNC_ENTER);
	w_call(&s, 1010, 1, 0x20);
	w_call(&s, 1020, 1, 0x30);
	w_call(&s, 1030, 0, 0x30);
	w_call(&s, 1040, 0, 0x20);
	if (end) {
		w_call(&s, 1100, 0, 0x10);
		w_leave(&s, 1100, 0);
		w_end(&s, 1100);
	}
	write_stream(dir, 10, 10, &s, NULL, 0);
}

static void test_calls_matched(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	char dir[256], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(c.begins, 1);
	assert_int_equal(c.ends, 1);
	assert_int_equal(c.finishes, 1);
	assert_int_equal(c.by_kind[EV_CALL_ENTER], 3);
	assert_int_equal(c.by_kind[EV_CALL_EXIT], 3);
	assert_int_equal(c.by_kind[EV_REGION_ENTER], 1);
	assert_int_equal(c.by_kind[EV_REGION_EXIT], 1);
	/* clock sync, the stray exit, region def, end */
	assert_int_equal(c.by_kind[EV_MARKER], 4);
	assert_int_equal(c.raw_func_exits, 1);
	/* every record once, in file order, with its reader at hand */
	assert_int_equal(c.raw, 12);
	assert_int_equal(c.raw_backwards, 0);
	assert_int_equal(c.readers, 3 + 3 + 2 + 4);
	assert_string_equal(c.region, "r");
	/* g 10; f 30 with g inside: 20 of its own; main 97, 67 of its own */
	assert_int_equal(c.incl[0], 10);
	assert_int_equal(c.excl[0], 10);
	assert_int_equal(c.incl[1], 30);
	assert_int_equal(c.excl[1], 20);
	assert_int_equal(c.incl[2], 97);
	assert_int_equal(c.excl[2], 67);
	assert_int_equal(c.unmatched, 1);
	assert_int_equal(c.synthetic, 0);
	assert_int_equal(c.last.ended, 1);
	assert_int_equal(c.last.function_records, 7);
	assert_int_equal(c.last.records, 12);
	assert_int_equal(c.last.first_ns, 1000);
	assert_int_equal(c.last.last_ns, 1100);
	/* the function records' span: from the stray exit at 1001 to main's exit at 1100 */
	assert_int_equal(c.last.first_call_ns, 1001);
	assert_int_equal(c.last.last_call_ns, 1100);
}

/* A run killed inside g: the open calls close at the last timestamp, flagged. */
static void test_calls_killed(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_BIT(EV_CALL_EXIT), 0), *list[] = {&cc};
	char dir[256], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(c.by_kind[EV_CALL_EXIT], 3);
	assert_int_equal(c.by_kind[EV_CALL_ENTER], 0); /* not asked for */
	assert_int_equal(c.synthetic, 1);
	assert_int_equal(c.incl[2], 37); /* main closed at 1040 */
	assert_int_equal(c.raw, 2);	 /* the exits of g and f; main's is made up */
	assert_int_equal(c.last.ended, 0);
	assert_int_equal(c.last.synthetic_exits, 1);
}

/* An exit that skips a frame (a longjmp): the skipped call's exit is made up (no record), the
 * exit itself carries its record; in a batch (events()) no call carries one. */
static int c_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (c_event(ctx, &ev[i], err, errlen))
			return -EIO;
	return 0;
}

static void test_calls_skipped(void **state)
{
	struct count c = {0}, b = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), cb = counter(&b, EV_ALL, 0),
			   *list[] = {&cc}, *batched[] = {&cb};
	struct words s = {.n = 0};
	char dir[256], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_call(&s, 1001, 1, 0x10);
	w_call(&s, 1002, 1, 0x20);
	w_call(&s, 1003, 0, 0x10); /* skips 0x20 */
	w_end(&s, 1004);
	write_stream(dir, 10, 10, &s, NULL, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(c.by_kind[EV_CALL_EXIT], 2);
	assert_int_equal(c.synthetic, 1);
	assert_int_equal(c.raw, 5); /* clock, 2 enters, the exit, end */
	assert_int_equal(c.raw_backwards, 0);
	cb.events = c_events;
	assert_int_equal(run(dir, batched, 1, err, sizeof(err)), 0);
	assert_int_equal(b.by_kind[EV_CALL_EXIT], 2);
	assert_int_equal(b.raw, 2); /* clock, end */
}

/* A stream file alone: its records in order, each an event of its own, none a call. */
static void test_file_alone(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	struct ev_source *src;
	char dir[256], path[512], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	snprintf(path, sizeof(path), "%s/stream.10.10", dir);
	assert_int_equal(ev_source_file(&src, path, err, sizeof(err)), 0);
	assert_int_equal(ev_source_nlocations(src), 1);
	assert_int_equal(ev_pass_run(src, list, 1, err, sizeof(err)), 0);
	ev_source_close(src);
	assert_int_equal(c.by_kind[EV_CALL_ENTER] + c.by_kind[EV_CALL_EXIT], 0);
	assert_int_equal(c.by_kind[EV_MARKER], 12);
	assert_int_equal(c.raw, 12);
	assert_int_equal(c.raw_backwards, 0);
	assert_int_equal(c.readers, 12);
	assert_int_equal(c.last.records, 12);
	assert_int_equal(c.last.ended, 1);
	/* unreadable: the pass fails with the file's message */
	snprintf(path, sizeof(path), "%s/no-such-stream", dir);
	assert_int_equal(ev_source_file(&src, path, err, sizeof(err)), 0);
	assert_true(ev_pass_run(src, list, 1, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no-such-stream"));
	ev_source_close(src);
}

/* Two consumers in one pass see the same; one that visits samples files only visits none. */
static void test_many_consumers(void **state)
{
	struct count a = {0}, b = {0}, s = {0};
	struct ev_consumer ca = counter(&a, EV_ALL, 0), cb = counter(&b, EV_BIT(EV_CALL_ENTER), 0),
			   cs = counter(&s, EV_ALL, EV_LOC_SAMPLES), *list[] = {&ca, &cb, &cs};
	char dir[256], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	assert_int_equal(run(dir, list, 3, err, sizeof(err)), 0);
	assert_int_equal(a.by_kind[EV_CALL_ENTER], 3);
	assert_int_equal(b.by_kind[EV_CALL_ENTER], 3);
	assert_int_equal(b.by_kind[EV_CALL_EXIT], 0);
	assert_int_equal(b.ends, 1);
	assert_int_equal(s.begins, 0);
	assert_int_equal(s.finishes, 1);
}

static int decline(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	(void)loc, (void)err, (void)errlen;
	((struct count *)ctx)->begins++;
	return 1;
}

static int begin_fails(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	(void)loc;
	((struct count *)ctx)->begins++;
	snprintf(err, errlen, "begin refuses");
	return -EINVAL;
}

/* An error of a consumer's location_begin stops the pass there, with its message. */
static void test_begin_error(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	char dir[256], err[512];

	(void)state;
	cc.location_begin = begin_fails;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "begin refuses");
	assert_int_equal(c.begins, 1);
	assert_int_equal(c.by_kind[EV_CALL_ENTER] + c.by_kind[EV_MARKER], 0);
	assert_int_equal(c.ends + c.finishes, 0);
}

/* A consumer that declines a location gets neither its events nor its end; the others do. */
static void test_decline(void **state)
{
	struct count a = {0}, d = {0};
	struct ev_consumer ca = counter(&a, EV_ALL, 0), cd = counter(&d, EV_ALL, 0),
			   *list[] = {&cd, &ca};
	char dir[256], err[512];

	(void)state;
	cd.location_begin = decline;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	assert_int_equal(run(dir, list, 2, err, sizeof(err)), 0);
	assert_int_equal(d.begins, 1);
	assert_int_equal(d.by_kind[EV_CALL_ENTER], 0);
	assert_int_equal(d.ends, 0);
	assert_int_equal(d.finishes, 1);
	assert_int_equal(a.by_kind[EV_CALL_ENTER], 3);
	assert_int_equal(a.ends, 1);
	/* declined by all: nothing read, no error */
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(d.begins, 2);
	assert_int_equal(d.ends, 0);
}

/* A consumer's error stops the pass with its message; a source's names file and byte. */
static void test_errors(void **state)
{
	struct count c = {.fail_at_exit = 2}, s = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), cs = counter(&s, EV_ALL, EV_LOC_SAMPLES),
			   *list[] = {&cc}, *samples_only[] = {&cs};
	char dir[256], err[512], path[512], want[600];
	struct words w = {.n = 0};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), -EIO);
	assert_string_equal(err, "consumer stops");
	assert_int_equal(c.ends, 0);
	assert_int_equal(c.finishes, 0);

	/* time going back at the second record (byte 64 + 16 + 16) */
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&w, 1000);
	w_call(&w, 1000, 1, 0x10);
	w.w[w.n - 2] = psc_word0(900, PSC_KIND_FUNC_ENTER);
	write_stream(dir, 10, 10, &w, NULL, 0);
	c = (struct count){0};
	assert_true(run(dir, list, 1, err, sizeof(err)) < 0);
	snprintf(path, sizeof(path), "%s/stream.10.10", dir);
	snprintf(want, sizeof(want), "%s: byte 104: ", path);
	assert_memory_equal(err, want, strlen(want));
	/* nobody visits the stream: it is not opened */
	assert_int_equal(run(dir, samples_only, 1, err, sizeof(err)), 0);
}

/* With EV_PASS_KEEP_GOING a damaged stream ends with its error in its facts and the pass
 * reads the next one; the region names of a location are there until its end. */
static void test_keep_going(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	char dir[256], err[512], want[600];
	struct words w = {.n = 0};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	w_clock(&w, 1000);
	w_def(&w, 1000, 0, "bad");
	w_call(&w, 1000, 1, 0x10);
	w.w[w.n - 2] = psc_word0(900, PSC_KIND_FUNC_ENTER);
	write_stream(dir, 10, 11, &w, NULL, 0);
	assert_true(run(dir, list, 1, err, sizeof(err)) < 0);

	c = (struct count){0};
	err[0] = 0;
	assert_int_equal(run_flags(dir, list, 1, EV_PASS_KEEP_GOING, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(c.begins, 2);
	assert_int_equal(c.ends, 2);
	assert_int_equal(c.finishes, 1);
	assert_int_equal(c.errors, 1);
	/* time going back at its third record (byte 64 + 24 + 24 + 16) */
	snprintf(want, sizeof(want), "%s/stream.10.11: byte 128: ", dir);
	assert_memory_equal(c.errmsg, want, strlen(want));
	assert_int_equal(c.by_kind[EV_CALL_ENTER], 3); /* the good stream's */
	/* the good stream is read first: its region's name came to its end */
	assert_int_equal(c.last.error < 0, 1);
	assert_string_equal(c.region_at_end, "bad");
}

/* An isolated consumer that fails keeps its error; the pass goes on for the others, which
 * see every location and their finish. */
static void test_isolated(void **state)
{
	struct count a = {.fail_at_exit = 2}, b = {0};
	struct ev_consumer ca = counter(&a, EV_ALL, 0), cb = counter(&b, EV_ALL, 0), ia, ib;
	struct ev_consumer *list[] = {&ia, &ib};
	struct ev_isolated isa, isb;
	char dir[256], err[512];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	ev_consumer_isolate(&ia, &isa, &ca, 0);
	ev_consumer_isolate(&ib, &isb, &cb, 0);
	err[0] = 0;
	assert_int_equal(run(dir, list, 2, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(isa.ret, -EIO);
	assert_string_equal(isa.msg, "consumer stops");
	assert_int_equal(a.nexits, 2); /* nothing after its failure */
	assert_int_equal(a.ends, 0);
	assert_int_equal(a.finishes, 0);
	assert_int_equal(isb.ret, 0);
	assert_int_equal(b.by_kind[EV_CALL_EXIT], 3);
	assert_int_equal(b.ends, 1);
	assert_int_equal(b.finishes, 1);
}

/* With EV_PASS_KEEP_GOING, a consumer isolated with source errors fails at a damaged stream
 * with the source's message; one isolated without reads past it. */
static void test_isolated_source_errors(void **state)
{
	struct count a = {0}, b = {0};
	struct ev_consumer ca = counter(&a, EV_ALL, 0), cb = counter(&b, EV_ALL, 0), ia, ib;
	struct ev_consumer *list[] = {&ia, &ib};
	struct ev_isolated isa, isb;
	char dir[256], err[512], want[600];
	struct words w = {.n = 0};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_calls(dir, 1);
	w_clock(&w, 1000);
	w_call(&w, 1000, 1, 0x10);
	w.w[w.n - 2] = psc_word0(900, PSC_KIND_FUNC_ENTER);
	write_stream(dir, 10, 11, &w, NULL, 0);
	ev_consumer_isolate(&ia, &isa, &ca, 1);
	ev_consumer_isolate(&ib, &isb, &cb, 0);
	assert_int_equal(run_flags(dir, list, 2, EV_PASS_KEEP_GOING, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/stream.10.11: byte 104: ", dir);
	assert_true(isa.ret < 0);
	assert_memory_equal(isa.msg, want, strlen(want));
	assert_int_equal(a.finishes, 0);
	assert_int_equal(isb.ret, 0);
	assert_int_equal(b.ends, 2);
	assert_int_equal(b.errors, 1);
	assert_int_equal(b.finishes, 1);
}

/* An isolated consumer that fails inside a location which then ends in a source error keeps
 * its own error, not the source's. */
static void test_isolated_own_error_kept(void **state)
{
	struct count a = {.fail_at_exit = 1};
	struct ev_consumer ca = counter(&a, EV_ALL, 0), ia, *list[] = {&ia};
	struct ev_isolated isa;
	char dir[256], err[512];
	struct words w = {.n = 0};

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&w, 1000);
	w_call(&w, 1000, 1, 0x10);
	w_call(&w, 1001, 0, 0x10);
	w_call(&w, 1002, 1, 0x10);
	w.w[w.n - 2] = psc_word0(900, PSC_KIND_FUNC_ENTER); /* time goes back: damage */
	write_stream(dir, 10, 11, &w, NULL, 0);
	ev_consumer_isolate(&ia, &isa, &ca, 1);
	assert_int_equal(run_flags(dir, list, 1, EV_PASS_KEEP_GOING, err, sizeof(err)), 0);
	assert_int_equal(isa.ret, -EIO);
	assert_string_equal(isa.msg, "consumer stops");
}

/* The OpenMP events of a location, as the consumer got them. */
struct omp_seen {
	struct event ev[16];
	size_t n;
};

static int omp_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct omp_seen *o = ctx;

	(void)err, (void)errlen;
	if (o->n < 16)
		o->ev[o->n++] = *ev;
	return 0;
}

/* Every OpenMP record becomes its event with the record's fields (format.h), the worksharing
 * construct's start ticks in ns as the record's own time. */
static void test_omp_events(void **state)
{
	struct omp_seen o = {.n = 0};
	uint64_t kinds = 0;
	struct ev_consumer c = {.name = "omp", .ctx = &o, .event = omp_event}, *list[] = {&c};
	struct words s = {.n = 0};
	char dir[256], err[512];
	const uint64_t par[] = {7, 0x401000, 0x402000, 1}, id[] = {7}, it[] = {7, 4},
		       sync[] = {0x403000, 0xbeef}, work[] = {0x404000, 1030, 5, 100},
		       task[] = {9, 0x405000};
	const enum ev_kind order[] = {EV_OMP_PARALLEL_BEGIN, EV_OMP_ITASK_BEGIN, EV_OMP_SYNC_ENTER,
				      EV_OMP_SYNC_LEAVE,     EV_OMP_WORK,	 EV_OMP_TASK_CREATE,
				      EV_OMP_TASK_BEGIN,     EV_OMP_TASK_END,	 EV_OMP_ITASK_END,
				      EV_OMP_PARALLEL_END};

	(void)state;
	for (unsigned k = EV_OMP_PARALLEL_BEGIN; k <= EV_OMP_TASK_END; k++)
		kinds |= EV_BIT(k);
	c.kinds = kinds;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_ext(&s, 1010, PSC_REC_OMP_PARALLEL_BEGIN, 4, par, 4);
	w_ext(&s, 1011, PSC_REC_OMP_ITASK_BEGIN, 0, it, 2);
	w_ext(&s, 1020, PSC_REC_OMP_SYNC_ENTER, PSC_OMP_SYNC_LOCK, sync, 2);
	w_ext(&s, 1025, PSC_REC_OMP_SYNC_LEAVE, PSC_OMP_SYNC_LOCK, NULL, 0);
	w_ext(&s, 1040, PSC_REC_OMP_WORK, PSC_OMP_WORK_LOOP_DYNAMIC, work, 4);
	w_ext(&s, 1041, PSC_REC_OMP_TASK_CREATE, 0, task, 2);
	w_ext(&s, 1042, PSC_REC_OMP_TASK_BEGIN, 0, task, 1);
	w_ext(&s, 1043, PSC_REC_OMP_TASK_END, 1, task, 1);
	w_ext(&s, 1050, PSC_REC_OMP_ITASK_END, 0, id, 1);
	w_ext(&s, 1060, PSC_REC_OMP_PARALLEL_END, 4, id, 1);
	w_end(&s, 1070);
	write_stream(dir, 10, 10, &s, NULL, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(o.n, 10);
	for (size_t i = 0; i < o.n; i++)
		assert_int_equal(o.ev[i].kind, order[i]);
	assert_int_equal(o.ev[0].ns, 1010);
	assert_int_equal(o.ev[0].omp.parallel, 7);
	assert_int_equal(o.ev[0].omp.site, 0x401000);
	assert_int_equal(o.ev[0].omp.fn, 0x402000);
	assert_int_equal(o.ev[0].omp.team, 4);
	assert_int_equal(o.ev[0].omp.level, 1);
	assert_int_equal(o.ev[1].omp.parallel, 7);
	assert_int_equal(o.ev[1].omp.thread, 0);
	assert_int_equal(o.ev[1].omp.team, 4);
	assert_int_equal(o.ev[2].omp.kind, PSC_OMP_SYNC_LOCK);
	assert_int_equal(o.ev[2].omp.site, 0x403000);
	assert_int_equal(o.ev[2].omp.object, 0xbeef);
	assert_int_equal(o.ev[3].omp.kind, PSC_OMP_SYNC_LOCK);
	assert_int_equal(o.ev[3].ns, 1025);
	assert_int_equal(o.ev[4].omp.kind, PSC_OMP_WORK_LOOP_DYNAMIC);
	assert_int_equal(o.ev[4].omp.site, 0x404000);
	assert_int_equal(o.ev[4].omp.begin_ns, 1030);
	assert_int_equal(o.ev[4].omp.chunks, 5);
	assert_int_equal(o.ev[4].omp.iterations, 100);
	assert_int_equal(o.ev[5].omp.object, 9);
	assert_int_equal(o.ev[5].omp.site, 0x405000);
	assert_int_equal(o.ev[6].omp.object, 9);
	assert_int_equal(o.ev[7].omp.kind, 1);
	assert_int_equal(o.ev[8].omp.parallel, 7);
	assert_int_equal(o.ev[9].omp.team, 4);
	assert_int_equal(o.ev[9].ns, 1060);
}

/* A thread's OpenMP thread numbers in its facts: those of the implicit tasks it ran outside
 * any other (not the nested one inside the first), and none for a thread without them; the
 * label views give them (model/thread-label.h). */
static void test_omp_thread_facts(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	struct words s = {.n = 0};
	const uint64_t it[] = {7, 4}, id[] = {7}, nested[] = {8, 2}, nid[] = {8};
	char dir[256], err[512], buf[64];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_ext(&s, 1010, PSC_REC_OMP_ITASK_BEGIN, 3, it, 2);
	w_ext(&s, 1011, PSC_REC_OMP_ITASK_BEGIN, 0, nested, 2);
	w_ext(&s, 1012, PSC_REC_OMP_ITASK_END, 0, nid, 1);
	w_ext(&s, 1013, PSC_REC_OMP_ITASK_END, 3, id, 1);
	w_ext(&s, 1020, PSC_REC_OMP_ITASK_BEGIN, 3, it, 2);
	w_ext(&s, 1021, PSC_REC_OMP_ITASK_END, 3, id, 1);
	w_end(&s, 1070);
	write_stream(dir, 10, 10, &s, NULL, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(c.last.omp_tasks, 2);
	assert_int_equal(c.last.omp_thread_min, 3);
	assert_int_equal(c.last.omp_thread_max, 3);
	assert_string_equal(thread_label(buf, sizeof(buf), &c.last, -1), "omp thread 3");
	assert_string_equal(thread_label(buf, sizeof(buf), &c.last, 2), "omp thread 3 of rank 2");
	assert_string_equal(thread_label_of(buf, sizeof(buf), 5, 1, 3, 0),
			    "omp threads 1-3 of rank 0");
	assert_string_equal(thread_label_of(buf, 9, 1, 12, 12, 7), "omp thre");

	/* no implicit task: no OpenMP thread, and no label */
	memset(&c, 0, sizeof(c));
	s.n = 0;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_end(&s, 1070);
	write_stream(dir, 10, 10, &s, NULL, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), 0);
	assert_int_equal(c.ends, 1);
	assert_int_equal(c.last.omp_tasks, 0);
	assert_null(thread_label(buf, sizeof(buf), &c.last, 2));
}

/* An OpenMP record of the wrong length is damage at its offset, named by its kind. */
static void test_omp_bad_length(void **state)
{
	struct count c = {0};
	struct ev_consumer cc = counter(&c, EV_ALL, 0), *list[] = {&cc};
	struct words s = {.n = 0};
	const uint64_t id[] = {7, 8};
	char dir[256], err[512], want[400];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_proc(dir, 10, "[]");
	w_clock(&s, 1000);
	w_ext(&s, 1010, PSC_REC_OMP_PARALLEL_END, 4, id, 2);
	w_end(&s, 1070);
	write_stream(dir, 10, 10, &s, NULL, 0);
	assert_int_equal(run(dir, list, 1, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/stream.10.10: byte %zu: OpenMP parallel end record of 4 words, expected 3",
		 dir, sizeof(struct psc_stream_header) + sizeof(struct psc_chunk_header) + 24 + 8);
	assert_string_equal(err, want);
}

/* Records by the name dump gives them: calls from the call events and facts, the others
 * from their records. */
struct by_name {
	const char *name[64];
	uint64_t n[64];
	size_t nnames;
	uint64_t calls[2], synthetic;
};

static void by_name_add(struct by_name *b, const char *name, uint64_t n)
{
	size_t i = 0;

	while (i < b->nnames && strcmp(b->name[i], name))
		i++;
	if (i == b->nnames && b->nnames < 64)
		b->name[b->nnames++] = name;
	if (i < 64)
		b->n[i] += n;
}

static int n_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct by_name *b = ctx;

	(void)err, (void)errlen;
	if (ev->kind == EV_CALL_ENTER || ev->kind == EV_CALL_EXIT) {
		b->calls[ev->kind == EV_CALL_EXIT]++;
		b->synthetic += (uint64_t)(ev->kind == EV_CALL_EXIT && ev->call.synthetic);
	} else {
		by_name_add(b, stream_record_name(ev->raw), 1);
	}
	return 0;
}

static int print_counts(const char *dir)
{
	struct by_name b = {.nnames = 0};
	struct ev_consumer c = {.name = "names", .kinds = EV_ALL, .ctx = &b, .event = n_event},
			   *list[] = {&c};
	char err[512];
	struct experiment e;
	struct ev_source *src;
	int ret;

	if (experiment_open(&e, dir, err, sizeof(err)) ||
	    ev_source_experiment(&src, &e, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	ret = ev_pass_run(src, list, 1, err, sizeof(err));
	ev_source_close(src);
	experiment_release(&e);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	/* the exits as recorded: those matched (those dropped come as records), not those made up
	 */
	by_name_add(&b, "func-enter", b.calls[0]);
	by_name_add(&b, "func-exit", b.calls[1] - b.synthetic);
	for (size_t i = 0; i < b.nnames; i++)
		if (b.n[i])
			printf("%s %llu\n", b.name[i], (unsigned long long)b.n[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_calls_matched),
	    cmocka_unit_test(test_calls_killed),
	    cmocka_unit_test(test_calls_skipped),
	    cmocka_unit_test(test_file_alone),
	    cmocka_unit_test(test_many_consumers),
	    cmocka_unit_test(test_decline),
	    cmocka_unit_test(test_begin_error),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_keep_going),
	    cmocka_unit_test(test_isolated),
	    cmocka_unit_test(test_isolated_source_errors),
	    cmocka_unit_test(test_isolated_own_error_kept),
	    cmocka_unit_test(test_omp_events),
	    cmocka_unit_test(test_omp_thread_facts),
	    cmocka_unit_test(test_omp_bad_length),
	};

	if (argc > 1)
		return print_counts(argv[1]);
	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
