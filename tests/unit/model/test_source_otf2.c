/*
 * test_source_otf2.c - an OTF2 archive as a source of the pass (ev_source_otf2, pass.h), on an
 * archive written here event by event: its location, the calls as events with their region,
 * depth, times and exclusive time, one by one and in batches alike; a Leave that skips an
 * open call (closed, synthetic), a Leave of a region not open (counted, dropped), a call left
 * open closed at the location's last event (ProgramEnd), the location's facts; an Enter of an
 * undefined region ends the location with the error (the pass stops, or goes on with it in
 * the facts), a consumer's failure stops the pass with its message; the function profile
 * built by the experiments' consumer; a session building the profiles and the scope profile
 * of an archive in one pass, as each alone.
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
#include <unistd.h>

#include <otf2/otf2.h>

#include "model/otf2-calls.h"
#include "model/pass.h"
#include "model/session.h"

/* Under the sanitizers: libopen-trace-format2 keeps a few allocations of its own. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2\n";
}

enum { R_MAIN, R_F, R_G, R_H, R_SEND, NREGIONS };
static const char *const strings[] = {"",  "node", "host",     "rank 0", "main",    "f",
				      "g", "h",	   "MPI_Send", "MPI",	 "thread 0"};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	(void)ud, (void)type, (void)loc, (void)caller, (void) final;
	return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush};

/* An archive in DIR/a (anchor DIR/a/traces.otf2) of one rank with one location: main calls f,
 * which calls g, and f's Leave comes while g is open; a Leave of h (not open); MPI_Send with a
 * call of f inside; main still open at ProgramEnd. UNDEFINED: an Enter of region 99 at 90. */
static void write_archive(const char *dir, int undefined)
{
	OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 20,
					     OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	OTF2_GlobalDefWriter *gw;
	OTF2_EvtWriter *ew;
	OTF2_DefWriter *dw;
	uint64_t n = 0;

	assert_non_null(ar);
	assert_int_equal(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(ar), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_OpenEvtFiles(ar), OTF2_SUCCESS);
	ew = OTF2_Archive_GetEvtWriter(ar, 0);
	assert_non_null(ew);
#define ENTER(t, r) (n++, OTF2_EvtWriter_Enter(ew, NULL, t, r))
#define LEAVE(t, r) (n++, OTF2_EvtWriter_Leave(ew, NULL, t, r))
	n++;
	OTF2_EvtWriter_ProgramBegin(ew, NULL, 0, 4, 0, NULL);
	ENTER(10, R_MAIN);
	ENTER(20, R_F);
	ENTER(30, R_G);
	LEAVE(50, R_F);
	LEAVE(60, R_H);
	ENTER(70, R_SEND);
	ENTER(75, R_F);
	LEAVE(78, R_F);
	LEAVE(80, R_SEND);
	if (undefined)
		ENTER(90, 99);
	n++;
	OTF2_EvtWriter_ProgramEnd(ew, NULL, 100, 0);
	assert_int_equal(OTF2_Archive_CloseEvtWriter(ar, ew), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_CloseEvtFiles(ar), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_OpenDefFiles(ar), OTF2_SUCCESS);
	dw = OTF2_Archive_GetDefWriter(ar, 0);
	assert_non_null(dw);
	assert_int_equal(OTF2_Archive_CloseDefWriter(ar, dw), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_CloseDefFiles(ar), OTF2_SUCCESS);
	gw = OTF2_Archive_GetGlobalDefWriter(ar);
	assert_non_null(gw);
	OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, 0, 101,
						  OTF2_UNDEFINED_TIMESTAMP);
	for (uint32_t i = 0; i < sizeof(strings) / sizeof(*strings); i++)
		OTF2_GlobalDefWriter_WriteString(gw, i, strings[i]);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 2, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	OTF2_GlobalDefWriter_WriteLocation(gw, 0, 10, OTF2_LOCATION_TYPE_CPU_THREAD, n, 0);
	for (uint32_t r = 0; r < NREGIONS; r++)
		OTF2_GlobalDefWriter_WriteRegion(
		    gw, r, 4 + r, 4 + r, 0,
		    r == R_SEND ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
		    r == R_SEND ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE,
		    r == R_SEND ? 9 : 0, 0, 0);
	assert_int_equal(OTF2_Archive_CloseGlobalDefWriter(ar, gw), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_Close(ar), OTF2_SUCCESS);
}

/* What the pass handed on, one line per callback. */
struct log {
	const struct ev_source *src;
	char text[2048];
	size_t len;
	int fail_at; /* the callback that returns -ENOMEM (counted from 1), 0 none */
	int calls;
};

static int say(struct log *lg, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(struct log *lg, char *err, size_t errlen, const char *fmt, ...)
{
	va_list va;

	va_start(va, fmt);
	lg->len += (size_t)vsnprintf(lg->text + lg->len, sizeof(lg->text) - lg->len, fmt, va);
	va_end(va);
	assert_true(lg->len < sizeof(lg->text));
	if (++lg->calls != lg->fail_at)
		return 0;
	snprintf(err, errlen, "test consumer: out of memory");
	return -ENOMEM;
}

static int on_begin(void *ctx, const struct ev_location *l, char *err, size_t errlen)
{
	struct log *lg = ctx;

	return say(lg, err, errlen, "loc %zu %s pid %d tid %d rank %d thread %u\n", l->index,
		   l->name, (int)l->pid, (int)l->tid, l->rank, otf2_source_thread(lg->src, l));
}

static int on_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct log *lg = ctx;
	const struct ev_call *c = &ev->call;

	/* the call's name is its region's, by the index in its address */
	assert_string_equal(c->name, otf2_source_region(lg->src, (uint32_t)c->addr)->name);
	assert_null(ev->raw);
	if (ev->kind == EV_CALL_ENTER)
		return say(lg, err, errlen, "enter %s depth %u at %lld\n", c->name, c->depth,
			   (long long)ev->ns);
	assert_int_equal(ev->kind, EV_CALL_EXIT);
	return say(lg, err, errlen, "leave %s depth %u %lld-%lld incl %lld excl %lld%s\n", c->name,
		   c->depth, (long long)(ev->ns - c->incl_ns), (long long)ev->ns,
		   (long long)c->incl_ns, (long long)c->excl_ns, c->synthetic ? " synthetic" : "");
}

static int on_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int ret = on_event(ctx, &ev[i], err, errlen);

		if (ret < 0)
			return ret;
	}
	return 0;
}

static int on_end(void *ctx, const struct ev_location *l, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	return say(ctx, err, errlen,
		   "end %s %s: %llu records, %llu function records, %llu synthetic, %llu "
		   "unmatched, %lld-%lld, calls %lld-%lld%s%s\n",
		   l->name, f->name, (unsigned long long)f->records,
		   (unsigned long long)f->function_records, (unsigned long long)f->synthetic_exits,
		   (unsigned long long)f->unmatched_exits, (long long)f->first_ns,
		   (long long)f->last_ns, (long long)f->first_call_ns, (long long)f->last_call_ns,
		   f->error ? ", error: " : "", f->errmsg);
}

static char dir[64], anchor[96], err[512];

static void setup_dir(int undefined)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/test_source_otf2.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	write_archive(dir, undefined);
	snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A pass of ANCHOR's source into LG (failing at its FAIL_AT-th callback), its calls in batches
 * when BATCHED, with FLAGS: the pass's return. */
static int walk(struct log *lg, int fail_at, int batched, unsigned flags)
{
	struct ev_consumer c = {.name = "log",
				.kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT),
				.ctx = lg,
				.location_begin = on_begin,
				.event = on_event,
				.events = batched ? on_events : NULL,
				.location_end = on_end};
	struct ev_consumer *cs[1] = {&c};
	struct ev_source *src;
	int ret;

	memset(lg, 0, sizeof(*lg));
	lg->fail_at = fail_at;
	err[0] = 0;
	ret = ev_source_otf2(&src, anchor, err, sizeof(err));
	assert_int_equal(ret, 0);
	assert_int_equal(ev_source_nlocations(src), 1);
	assert_int_equal(otf2_source_nregions(src), NREGIONS);
	assert_int_equal(otf2_source_region(src, R_SEND)->routine >= 0, 1);
	assert_int_equal(otf2_source_region(src, R_SEND)->mpi, 1);
	assert_int_equal(otf2_source_region(src, R_F)->routine, -1);
	assert_int_equal(otf2_source_region(src, R_F)->function, 1);
	assert_null(otf2_source_region(src, NREGIONS));
	lg->src = src;
	ret = ev_pass_run_flags(src, cs, 1, flags, err, sizeof(err));
	ev_source_close(src);
	return ret;
}

static const char expected[] =
    "loc 0 thread 0 pid 0 tid 0 rank 0 thread 0\n"
    "enter main depth 0 at 10\n"
    "enter f depth 1 at 20\n"
    "enter g depth 2 at 30\n"
    "leave g depth 2 30-50 incl 20 excl 20 synthetic\n"
    "leave f depth 1 20-50 incl 30 excl 10\n"
    "enter MPI_Send depth 1 at 70\n"
    "enter f depth 2 at 75\n"
    "leave f depth 2 75-78 incl 3 excl 3\n"
    "leave MPI_Send depth 1 70-80 incl 10 excl 7\n"
    "leave main depth 0 10-100 incl 90 excl 50 synthetic\n"
    "end thread 0 thread 0: 11 records, 9 function records, 2 synthetic, 1 unmatched, "
    "0-100, calls 10-80\n";

static void test_calls(void **state)
{
	struct log lg;

	(void)state;
	setup_dir(0);
	assert_int_equal(walk(&lg, 0, 0, 0), 0);
	assert_string_equal(lg.text, expected);
	assert_int_equal(walk(&lg, 0, 1, 0), 0);
	assert_string_equal(lg.text, expected);
	/* a consumer's failure stops the pass at once, its message in ERR */
	assert_int_equal(walk(&lg, 4, 0, 0), -ENOMEM);
	assert_int_equal(lg.calls, 4);
	assert_string_equal(err, "test consumer: out of memory");
	assert_int_equal(walk(&lg, 4, 1, EV_PASS_KEEP_GOING), -ENOMEM);
	assert_int_equal(lg.calls, 4);
	assert_string_equal(err, "test consumer: out of memory");
	assert_int_equal(walk(&lg, 12, 1, 0), -ENOMEM); /* at location_end */
	assert_int_equal(lg.calls, 12);
	remove_dir();
}

static void test_undefined_region(void **state)
{
	static const char closed[] = "leave main depth 0 10-90 incl 80 excl 40 synthetic\n";
	struct log lg;

	(void)state;
	setup_dir(1);
	/* the pass stops with the error; main, open, ends at the last event read (the Enter) */
	assert_int_equal(walk(&lg, 0, 1, 0), -EINVAL);
	assert_non_null(strstr(err, "location 0: Enter of region 99, which is not defined"));
	assert_int_equal(strncmp(err, anchor, strlen(anchor)), 0);
	assert_non_null(strstr(lg.text, closed));
	assert_null(strstr(lg.text, "\nend "));
	/* or goes on, the location ended with the error in its facts */
	assert_int_equal(walk(&lg, 0, 0, EV_PASS_KEEP_GOING), 0);
	assert_string_equal(err, "");
	assert_non_null(strstr(lg.text, closed));
	assert_non_null(strstr(lg.text, "end thread 0 thread 0: "));
	assert_non_null(strstr(lg.text, "9 function records, 2 synthetic, 1 unmatched, 0-90, "
					"calls 10-80, error: "));
	assert_non_null(strstr(lg.text, "Enter of region 99, which is not defined\n"));
	remove_dir();
}

static void test_unopened(void **state)
{
	struct ev_source *src = (void *)1;

	(void)state;
	assert_true(ev_source_otf2(&src, "/nonexistent/traces.otf2", err, sizeof(err)) < 0);
	assert_null(src);
	assert_int_equal(strncmp(err, "/nonexistent/traces.otf2: ", 26), 0);
}

static void test_profile(void **state)
{
	struct func_profile p;
	struct str_arena names;
	const struct func_row *f = NULL, *send = NULL;
	uint64_t calls = 0;

	(void)state;
	setup_dir(0);
	memset(&names, 0, sizeof(names));
	assert_int_equal(otf2_func_profile(&p, &names, anchor, err, sizeof(err)), 0);
	for (size_t i = 0; i < p.nrows; i++) {
		calls += p.rows[i].calls;
		if (!strcmp(p.rows[i].sym.name, "f"))
			f = &p.rows[i];
		if (!strcmp(p.rows[i].sym.name, "MPI_Send"))
			send = &p.rows[i];
	}
	assert_int_equal(p.nrows, 4);
	assert_int_equal(calls, 5);
	assert_non_null(f);
	assert_int_equal(f->addr, R_F);
	assert_int_equal(f->calls, 2);
	assert_int_equal(f->incl_ns, 33);
	assert_int_equal(f->excl_ns, 13);
	assert_int_equal(f->synthetic, 0);
	assert_non_null(send);
	assert_string_equal(send->sym.module, "MPI");
	assert_int_equal(p.nthreads, 1);
	assert_int_equal(p.threads[0].pid, 0);
	assert_int_equal(p.threads[0].tid, 0);
	assert_int_equal(p.function_records, 9);
	assert_int_equal(p.synthetic_exits, 2);
	assert_int_equal(p.unmatched_exits, 1);
	assert_int_equal(p.total_ns, 100);
	assert_non_null(p.no_records_caveat);
	func_profile_release(&p);
	arena_release(&names);
	remove_dir();
}

/* The scope profiles A and B are the same. */
static void same_scopes(const struct mpi_scope_profile *a, const struct mpi_scope_profile *b)
{
	assert_int_equal(a->nscopes, b->nscopes);
	assert_true(a->nscopes > 0);
	for (size_t i = 0; i < a->nscopes; i++) {
		assert_string_equal(a->scopes[i].name, b->scopes[i].name);
		assert_int_equal(a->scopes[i].kind, b->scopes[i].kind);
	}
	assert_int_equal(a->unmatched_calls, b->unmatched_calls);
}

/* A session asked for an archive's profiles with its scope profile required builds both in
 * one pass, each as asked for alone. */
static void test_session_one_pass(void **state)
{
	const char *path = PSC_TEST_DATA_DIR "/otf2/ping-pong-otf2/traces.otf2";
	struct session one, alone;
	struct mpi_scope_profile *sp, *sp_alone;
	struct func_profile *fp, *fp_alone;

	(void)state;
	session_init(&one, path, SESSION_OTF2, NULL);
	session_require(&one, SESSION_SCOPES);
	assert_int_equal(session_get(&one, SESSION_PROFILES, (void **)&fp, err, sizeof(err)), 0);
	assert_int_equal(session_state(&one, SESSION_SCOPES), 1);
	assert_int_equal(session_get(&one, SESSION_SCOPES, (void **)&sp, err, sizeof(err)), 0);
	session_init(&alone, path, SESSION_OTF2, NULL);
	assert_int_equal(session_get(&alone, SESSION_SCOPES, (void **)&sp_alone, err, sizeof(err)),
			 0);
	assert_int_equal(session_state(&alone, SESSION_PROFILES), 0);
	assert_int_equal(
	    session_get(&alone, SESSION_PROFILES, (void **)&fp_alone, err, sizeof(err)), 0);
	same_scopes(sp, sp_alone);
	assert_int_equal(fp->nrows, fp_alone->nrows);
	assert_true(fp->nrows > 0);
	for (size_t i = 0; i < fp->nrows; i++) {
		assert_string_equal(fp->rows[i].sym.name, fp_alone->rows[i].sym.name);
		assert_int_equal(fp->rows[i].calls, fp_alone->rows[i].calls);
		assert_int_equal(fp->rows[i].excl_ns, fp_alone->rows[i].excl_ns);
	}
	assert_int_equal(fp->function_records, fp_alone->function_records);
	session_close(&one);
	session_close(&alone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_calls),
	    cmocka_unit_test(test_undefined_region),
	    cmocka_unit_test(test_unopened),
	    cmocka_unit_test(test_profile),
	    cmocka_unit_test(test_session_one_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
