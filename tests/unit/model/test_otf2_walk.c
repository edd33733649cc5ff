/*
 * test_otf2_walk.c - the walk of an OTF2 archive's calls (otf2-calls.h) on an archive written
 * here event by event: the calls handed on with their depth, times and exclusive time, a
 * Leave that skips an open call (closed, synthetic), a Leave of a region not open (counted,
 * dropped), a call left open closed at the location's last event (ProgramEnd), the counts of
 * the location; an Enter of an undefined region and a callback's failure stop the walk with
 * the error in the caller's buffer; the function profile built on the walk.
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

/* What the walk handed on, one line per callback. */
struct log {
	const struct otf2_walk *w;
	char text[2048];
	size_t len;
	int fail_at; /* the callback that returns -ENOMEM (counted from 1), 0 none */
	int calls;
};

static int say(struct log *lg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct log *lg, const char *fmt, ...)
{
	va_list va;

	va_start(va, fmt);
	lg->len += (size_t)vsnprintf(lg->text + lg->len, sizeof(lg->text) - lg->len, fmt, va);
	va_end(va);
	assert_true(lg->len < sizeof(lg->text));
	return ++lg->calls == lg->fail_at ? -ENOMEM : 0;
}

static int on_location(void *ctx, const struct otf2_walk_loc *l)
{
	return say(ctx, "loc %llu %s rank %d thread %u\n", (unsigned long long)l->id, l->name,
		   l->rank, l->thread);
}

static int on_enter(void *ctx, const struct otf2_call *c)
{
	struct log *lg = ctx;

	return say(lg, "enter %s depth %u at %lld\n", otf2_walk_region(lg->w, c->region)->name,
		   c->depth, (long long)c->enter_ns);
}

static int on_leave(void *ctx, const struct otf2_call *c)
{
	struct log *lg = ctx;

	return say(lg, "leave %s depth %u %lld-%lld incl %lld excl %lld%s\n",
		   otf2_walk_region(lg->w, c->region)->name, c->depth, (long long)c->enter_ns,
		   (long long)c->leave_ns, (long long)c->incl_ns, (long long)c->excl_ns,
		   c->synthetic ? " synthetic" : "");
}

static int on_end(void *ctx, const struct otf2_walk_loc *l, const struct call_thread *th)
{
	return say(ctx, "end %s: %llu records, %llu synthetic, %llu unmatched, %lld-%lld\n",
		   l->name, (unsigned long long)th->function_records,
		   (unsigned long long)th->synthetic_exits, (unsigned long long)th->unmatched_exits,
		   (long long)th->first_ns, (long long)th->last_ns);
}

static const struct otf2_walk_ops ops = {on_location, on_enter, on_leave, on_end};

static char dir[64], anchor[96], err[512];

static void setup_dir(int undefined)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/test_otf2_walk.%d", (int)getpid());
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

/* Walk ANCHOR with LG (failing at its FAIL_AT-th callback): the walk's return. */
static int walk(struct log *lg, int fail_at)
{
	struct otf2_walk *w;
	int ret;

	memset(lg, 0, sizeof(*lg));
	lg->fail_at = fail_at;
	err[0] = 0;
	ret = otf2_walk_open(&w, anchor, err, sizeof(err));
	assert_int_equal(ret, 0);
	assert_int_equal(otf2_walk_nlocs(w), 1);
	assert_int_equal(otf2_walk_nregions(w), NREGIONS);
	assert_int_equal(otf2_walk_region(w, R_SEND)->routine >= 0, 1);
	assert_int_equal(otf2_walk_region(w, R_SEND)->mpi, 1);
	assert_int_equal(otf2_walk_region(w, R_F)->routine, -1);
	assert_int_equal(otf2_walk_region(w, R_F)->function, 1);
	lg->w = w;
	ret = otf2_walk_run(w, &ops, lg);
	otf2_walk_close(w);
	return ret;
}

static const char expected[] = "loc 0 thread 0 rank 0 thread 0\n"
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
			       "end thread 0: 9 records, 2 synthetic, 1 unmatched, 0-100\n";

static void test_calls(void **state)
{
	struct log lg;

	(void)state;
	setup_dir(0);
	assert_int_equal(walk(&lg, 0), 0);
	assert_string_equal(lg.text, expected);
	/* a callback's failure stops the walk at once, its error in ERR */
	assert_int_equal(walk(&lg, 4), -ENOMEM);
	assert_int_equal(lg.calls, 4);
	assert_non_null(strstr(err, "out of memory"));
	assert_int_equal(strncmp(err, anchor, strlen(anchor)), 0);
	assert_int_equal(walk(&lg, 12), -ENOMEM); /* at location_end */
	assert_int_equal(lg.calls, 12);
	remove_dir();
}

static void test_undefined_region(void **state)
{
	struct log lg;

	(void)state;
	setup_dir(1);
	assert_int_equal(walk(&lg, 0), -EINVAL);
	assert_non_null(strstr(err, "Enter of region 99, which is not defined"));
	/* main, open, ends at the last event read (the Enter), and the location ends there */
	assert_non_null(strstr(lg.text,
			       "leave main depth 0 10-90 incl 80 excl 40 synthetic\n"
			       "end thread 0: 9 records, 2 synthetic, 1 unmatched, 0-90\n"));
	remove_dir();
}

static void test_profile(void **state)
{
	struct func_profile p;
	struct str_arena names;
	const struct func_row *f = NULL;
	uint64_t calls = 0;

	(void)state;
	setup_dir(0);
	memset(&names, 0, sizeof(names));
	assert_int_equal(otf2_func_profile(&p, &names, anchor, err, sizeof(err)), 0);
	for (size_t i = 0; i < p.nrows; i++) {
		calls += p.rows[i].calls;
		if (!strcmp(p.rows[i].sym.name, "f"))
			f = &p.rows[i];
	}
	assert_int_equal(calls, 5);
	assert_non_null(f);
	assert_int_equal(f->calls, 2);
	assert_int_equal(f->incl_ns, 33);
	assert_int_equal(f->excl_ns, 13);
	func_profile_release(&p);
	arena_release(&names);
	remove_dir();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_calls),
	    cmocka_unit_test(test_undefined_region),
	    cmocka_unit_test(test_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
