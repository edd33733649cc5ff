/*
 * test_sample_tree_view.c - the call trees of samples as column views
 * (src/view/sample-tree-view.c, sample-tree.c) on hand-made paths with exact counts: the call
 * tree's CSV has one row per text line, in its order, each with its path from the outermost
 * caller; --min-share leaves out the same nodes in CSV as in text; the callers tree's long CSV
 * names each node by its path, and its JSON nests the callers as the text indents them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "view/sample-print.h"
#include "analysis/profile/sample-callers.h"

enum { MAIN, A, B, SPIN, F, NFUNCS };

static const char *const names[NFUNCS] = {"main", "a", "b", "spin", "f"};

static void add(struct scall_tree *t, const uint32_t *path, size_t n, int times)
{
	for (int i = 0; i < times; i++)
		assert_int_equal(scall_add(t, path, n, 10), 0);
}

/* 3 x main>a>spin, 6 x main>b>spin, 1 x main>a (in a itself), 2 x main>f>f>f: 12 samples of
 * 10 ns each. */
static void build(struct sample_profile *p)
{
	static const uint32_t p1[] = {MAIN, A, SPIN}, p2[] = {MAIN, B, SPIN}, p3[] = {MAIN, A},
			      p4[] = {MAIN, F, F, F};
	uint32_t id;

	memset(p, 0, sizeof(*p));
	assert_int_equal(scall_init(&p->calls), 0);
	for (uint32_t i = 0; i < NFUNCS; i++) {
		assert_int_equal(scall_func_id(&p->calls, names[i], "/bin/x", &id), 0);
		assert_int_equal(id, i);
	}
	add(&p->calls, p1, 3, 3);
	add(&p->calls, p2, 3, 6);
	add(&p->calls, p3, 2, 1);
	add(&p->calls, p4, 4, 2);
	assert_int_equal(scall_sort(&p->calls), 0);
}

/* What sample_print_trees writes for R in FMT (CSV or long CSV), in a string. */
static char *print(const struct sample_report *r, enum out_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sample_print_trees(r, fmt, f, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_tree_csv(void **state)
{
	struct sample_profile p;
	struct sample_report r = {.p = &p, .tree = 1};
	char *text;

	(void)state;
	build(&p);
	text = print(&r, OUT_CSV);
	assert_string_equal(
	    text, "path,name,module,depth,samples,share,self_samples,self_share,time_ns,self_ns\n"
		  "main,main,/bin/x,0,12,100.0000,0,0.0000,120,0\n"
		  "main;b,b,/bin/x,1,6,50.0000,0,0.0000,60,0\n"
		  "main;b;spin,spin,/bin/x,2,6,50.0000,6,50.0000,60,60\n"
		  "main;a,a,/bin/x,1,4,33.3333,1,8.3333,40,10\n"
		  "main;a;spin,spin,/bin/x,2,3,25.0000,3,25.0000,30,30\n"
		  "main;f,f,/bin/x,1,2,16.6667,0,0.0000,20,0\n"
		  "main;f;f,f,/bin/x,2,2,16.6667,0,0.0000,20,0\n"
		  "main;f;f;f,f,/bin/x,3,2,16.6667,2,16.6667,20,20\n");
	free(text);
	/* f (16.7 %) and the two f below it go, as in the text */
	r.min_share = 20;
	text = print(&r, OUT_CSV);
	assert_string_equal(
	    text, "path,name,module,depth,samples,share,self_samples,self_share,time_ns,self_ns\n"
		  "main,main,/bin/x,0,12,100.0000,0,0.0000,120,0\n"
		  "main;b,b,/bin/x,1,6,50.0000,0,0.0000,60,0\n"
		  "main;b;spin,spin,/bin/x,2,6,50.0000,6,50.0000,60,60\n"
		  "main;a,a,/bin/x,1,4,33.3333,1,8.3333,40,10\n"
		  "main;a;spin,spin,/bin/x,2,3,25.0000,3,25.0000,30,30\n");
	assert_int_equal(sample_report_hidden(&r), 3);
	free(text);
	scall_release(&p.calls);
}

static void test_callers_long_and_json(void **state)
{
	struct sample_profile p;
	struct sample_report r = {.p = &p, .callers = "spin"};
	struct jsonw w;
	char *text;

	(void)state;
	build(&p);
	/* the CSV as it was, without the path; the long CSV with it */
	text = print(&r, OUT_CSV);
	assert_string_equal(text, "depth,function,module,samples,share,time_ns\n"
				  "0,spin,/bin/x,9,75.0000,90\n"
				  "1,b,/bin/x,6,50.0000,60\n"
				  "2,main,/bin/x,6,50.0000,60\n"
				  "1,a,/bin/x,3,25.0000,30\n"
				  "2,main,/bin/x,3,25.0000,30\n");
	free(text);
	text = print(&r, OUT_LONG);
	assert_string_equal(text, "path,depth,function,module,metric,value\n"
				  "spin,0,spin,/bin/x,samples,9\n"
				  "spin,0,spin,/bin/x,share,75.0000\n"
				  "spin,0,spin,/bin/x,time_ns,90\n"
				  "spin;b,1,b,/bin/x,samples,6\n"
				  "spin;b,1,b,/bin/x,share,50.0000\n"
				  "spin;b,1,b,/bin/x,time_ns,60\n"
				  "spin;b;main,2,main,/bin/x,samples,6\n"
				  "spin;b;main,2,main,/bin/x,share,50.0000\n"
				  "spin;b;main,2,main,/bin/x,time_ns,60\n"
				  "spin;a,1,a,/bin/x,samples,3\n"
				  "spin;a,1,a,/bin/x,share,25.0000\n"
				  "spin;a,1,a,/bin/x,time_ns,30\n"
				  "spin;a;main,2,main,/bin/x,samples,3\n"
				  "spin;a;main,2,main,/bin/x,share,25.0000\n"
				  "spin;a;main,2,main,/bin/x,time_ns,30\n");
	free(text);
	/* jsonw writes a double in its shortest form: 50 is 5e+01 */
	jsonw_init(&w, 0);
	assert_int_equal(sample_print_trees(&r, OUT_JSON, NULL, &w), 0);
	assert_string_equal(
	    jsonw_text(&w),
	    "{\"function\":\"spin\",\"tree\":["
	    "{\"name\":\"spin\",\"module\":\"/bin/x\",\"samples\":9,\"share\":75,\"time_ns\":90,"
	    "\"callers\":["
	    "{\"name\":\"b\",\"module\":\"/bin/x\",\"samples\":6,\"share\":5e+01,\"time_ns\":60,"
	    "\"callers\":["
	    "{\"name\":\"main\",\"module\":\"/bin/x\",\"samples\":6,\"share\":5e+01,\"time_ns\":60,"
	    "\"callers\":[]}]},"
	    "{\"name\":\"a\",\"module\":\"/bin/x\",\"samples\":3,\"share\":25,\"time_ns\":30,"
	    "\"callers\":["
	    "{\"name\":\"main\",\"module\":\"/bin/x\",\"samples\":3,\"share\":25,\"time_ns\":30,"
	    "\"callers\":[]}]}]}]}");
	assert_int_equal(w.depth, 0);
	jsonw_release(&w);
	scall_release(&p.calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_csv),
	    cmocka_unit_test(test_callers_long_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
