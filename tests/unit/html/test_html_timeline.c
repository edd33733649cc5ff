/*
 * test_html_timeline.c - the Timeline's level of detail (html-timeline.h): which slices are
 * kept whole, what the bins hold (busy time, busiest name, a call split at a bin's edge),
 * the slice budget raising the threshold, the bin budget doubling the bins; and the data
 * of a synthetic experiment through html_data_timeline (rows, depths, regions nested in
 * functions, a region left open closed with its function, delta-encoded JSON).
 */
#include "synth-exp.h"

#include <cjson/cJSON.h>

#include "html/html-int.h"
#include "html/html-timeline.h"
#include "model/experiment-open.h"
#include "model/symbols.h"

#define RUN_NS (65536 * 1000) /* min_ns and bin_ns start at 1000 */

static void lod_init(struct tl_lod *t, size_t slices, size_t cells)
{
	const struct tl_params p = {RUN_NS, slices, cells, 64};
	size_t row;

	assert_int_equal(tl_init(t, &p), 0);
	assert_int_equal(t->min_ns, 1000);
	assert_int_equal(t->bin_ns, 1000);
	assert_int_equal(tl_row_add(t, 1, 1, -1, 0, &row), 0);
	assert_int_equal(row, 0);
}

static void expect_cell(const struct tl_cell *c, uint64_t bin, uint64_t key, int64_t busy,
			int64_t dom)
{
	assert_int_equal(c->bin, bin);
	assert_int_equal(c->key, key);
	assert_int_equal(c->busy, busy);
	assert_int_equal(c->dom, dom);
}

static void test_keep_and_bin(void **state)
{
	struct tl_lod t;
	const struct tl_lane *l;

	(void)state;
	lod_init(&t, 100, 100);
	assert_int_equal(tl_add(&t, 0, 0, 0, 9000, 1), 0);    /* kept */
	assert_int_equal(tl_add(&t, 0, 1, 100, 300, 2), 0);   /* bin 0 */
	assert_int_equal(tl_add(&t, 0, 1, 500, 100, 3), 0);   /* bin 0 */
	assert_int_equal(tl_add(&t, 0, 1, 700, 100, 2), 0);   /* bin 0: 2 is busiest */
	assert_int_equal(tl_add(&t, 0, 1, 1900, 400, 3), 0);  /* bins 1 and 2 */
	assert_int_equal(tl_add(&t, 0, 1, 3000, 1000, 4), 0); /* exactly min_ns: kept */
	assert_int_equal(tl_add(&t, 0, 1, 5000, 999, 5), 0);  /* bin 5 */
	/* bin 7: 6 leads, then 7 overtakes it with two calls */
	assert_int_equal(tl_add(&t, 0, 1, 7000, 200, 6), 0);
	assert_int_equal(tl_add(&t, 0, 1, 7300, 150, 7), 0);
	assert_int_equal(tl_add(&t, 0, 1, 7500, 100, 7), 0);
	assert_int_equal(tl_add(&t, 0, -1, 8000, 10, 8), 0); /* MPI lane */
	assert_int_equal(tl_finish(&t), 0);
	assert_int_equal(t.calls, 11);
	assert_int_equal(t.nslices, 2);
	assert_int_equal(t.raised, 0);
	assert_int_equal(t.rows[0].nlanes, 3);
	l = &t.rows[0].lanes[1];
	assert_int_equal(l->nsl, 1);
	assert_int_equal(l->sl[0].dur, 9000);
	assert_int_equal(l->ncells, 0);
	l = &t.rows[0].lanes[2];
	assert_int_equal(l->nsl, 1);
	assert_int_equal(l->sl[0].start, 3000);
	assert_int_equal(l->sl[0].key, 4);
	assert_int_equal(l->ncells, 5);
	expect_cell(&l->cells[0], 0, 2, 500, 400);
	expect_cell(&l->cells[1], 1, 3, 100, 100);
	expect_cell(&l->cells[2], 2, 3, 300, 300);
	expect_cell(&l->cells[3], 5, 5, 999, 999);
	expect_cell(&l->cells[4], 7, 7, 450, 250);
	l = &t.rows[0].lanes[0];
	assert_int_equal(l->ncells, 1);
	expect_cell(&l->cells[0], 8, 8, 10, 10);
	assert_int_equal(t.ncells, 6);
	tl_release(&t);
}

/* Over the slice budget the longest stay, the others become bins. */
static void test_slice_budget(void **state)
{
	struct tl_lod t;
	const struct tl_lane *l;
	int64_t busy = 0;

	(void)state;
	lod_init(&t, 3, 100);
	/* durations 1000 .. 8000 ns, one every 10 us */
	for (int k = 1; k <= 8; k++)
		assert_int_equal(tl_add(&t, 0, 0, 10000 * k, 1000 * k, (uint64_t)k), 0);
	assert_int_equal(t.nslices, 8);
	assert_int_equal(tl_finish(&t), 0);
	assert_int_equal(t.raised, 1);
	assert_int_equal(t.min_ns, 5001);
	assert_int_equal(t.nslices, 3);
	l = &t.rows[0].lanes[1];
	assert_int_equal(l->nsl, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(l->sl[i].dur, 1000 * (6 + i));
		assert_int_equal(l->sl[i].start, 10000 * (6 + i));
	}
	/* 1000 .. 5000 ns from 10, 20, .. 50 us: bins 10, 20-21, 30-32, 40-43, 50-54 */
	assert_int_equal(l->ncells, 15);
	for (size_t i = 0; i < l->ncells; i++) {
		assert_int_equal(l->cells[i].busy, 1000);
		busy += l->cells[i].busy;
	}
	assert_int_equal(busy, 15000);
	expect_cell(&l->cells[0], 10, 1, 1000, 1000);
	expect_cell(&l->cells[14], 54, 5, 1000, 1000);
	tl_release(&t);
}

/* Over the bin budget the bins double until they fit; neighbours merge. */
static void test_cell_budget(void **state)
{
	struct tl_lod t;
	const struct tl_lane *l;

	(void)state;
	lod_init(&t, 100, 4);
	/* 500 ns at the start of bins 0..9; bins 4..9 of name 2, 0..3 of name 1 */
	for (int b = 0; b < 10; b++)
		assert_int_equal(tl_add(&t, 0, 0, 1000 * b, 500, b < 4 ? 1 : 2), 0);
	assert_int_equal(tl_finish(&t), 0);
	assert_int_equal(t.bin_ns, 4000);
	assert_int_equal(t.ncells, 3);
	l = &t.rows[0].lanes[1];
	assert_int_equal(l->ncells, 3);
	expect_cell(&l->cells[0], 0, 1, 2000, 2000);
	expect_cell(&l->cells[1], 1, 2, 2000, 2000);
	expect_cell(&l->cells[2], 2, 2, 1000, 1000);
	tl_release(&t);
}

/* Names: one id per (name, kind). */
static void test_names(void **state)
{
	struct tl_names n = {0};
	struct tl_lod t;

	(void)state;
	assert_int_equal(tl_name_id(&n, "main", TL_FUNCTION), 0);
	assert_int_equal(tl_name_id(&n, "main", TL_REGION), 1);
	assert_int_equal(tl_name_id(&n, "MPI_Send", TL_MPI), 2);
	assert_int_equal(tl_name_id(&n, "main", TL_FUNCTION), 0);
	assert_int_equal(n.n, 3);
	memset(&t, 0, sizeof(t));
	t.names = n;
	tl_release(&t);
}

/* A thread from 0 to RUN_NS (ns from the start 1000): f (0x1000) 0..40 ms, inside it region
 * "outer" from 1 ms left open (closed with f), inside that 3 calls of g (0x2000) of 100 ns
 * at 2 ms, 2.0003 ms, 2.0006 ms; then h (0x3000) 50..51 ms. A second thread with one call. */
static void write_exp(char *dir, size_t len)
{
	struct words s = {{0}, 0}, s2 = {{0}, 0};
	const uint64_t o = 1000;

	new_dir(dir, len);
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
		   "\"start_ns\":1000,\"end_ns\":65537000}");
	write_proc(dir, 100, "[]");
	w_clock(&s, o);
	w_def(&s, o, 1, "outer");
	w_call(&s, o, 1, 0x1000);
	w_enter(&s, o + 1000000, 1);
	for (int i = 0; i < 3; i++) {
		w_call(&s, o + 2000000 + 300 * (uint64_t)i, 1, 0x2000);
		w_call(&s, o + 2000100 + 300 * (uint64_t)i, 0, 0x2000);
	}
	w_call(&s, o + 40000000, 0, 0x1000);
	w_call(&s, o + 50000000, 1, 0x3000);
	w_call(&s, o + 51000000, 0, 0x3000);
	w_end(&s, o + 60000000);
	write_stream(dir, 100, 100, &s, NULL, 0);
	w_clock(&s2, o);
	w_call(&s2, o + 5000000, 1, 0x1000);
	w_call(&s2, o + 6000000, 0, 0x1000);
	w_end(&s2, o + 7000000);
	write_stream(dir, 100, 101, &s2, NULL, 0);
}

static cJSON *get(const cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(v);
	return v;
}

static int64_t num(const cJSON *o, const char *k)
{
	return (int64_t)cJSON_GetNumberValue(get(o, k));
}

static int64_t at(const cJSON *arr, int i)
{
	return (int64_t)cJSON_GetNumberValue(cJSON_GetArrayItem(arr, i));
}

static void test_data(void **state)
{
	struct experiment e;
	struct symtab syms;
	struct html_input in;
	struct jsonw w;
	char dir[256], err[256];
	cJSON *root, *tl, *names, *lanes;
	int seen = 0;

	(void)state;
	write_exp(dir, sizeof(dir));
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(symtab_init(&syms, dir), 0);
	memset(&in, 0, sizeof(in));
	in.e = &e;
	in.syms = &syms;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	assert_int_equal(html_data_timeline(&w, &in), 0);
	jsonw_object_end(&w);
	assert_non_null(jsonw_text(&w));
	root = cJSON_Parse(w.buf);
	assert_non_null(root);
	tl = get(root, "timeline");
	assert_int_equal(num(tl, "origin_ns"), 1000);
	assert_int_equal(num(tl, "run_ns"), RUN_NS);
	assert_int_equal(num(tl, "min_ns"), 1000);
	assert_int_equal(num(tl, "calls"), 7); /* f, outer, 3 g, h; f of thread 101 */
	assert_int_equal(cJSON_GetArraySize(get(tl, "rows")), 2);
	assert_int_equal(num(cJSON_GetArrayItem(get(tl, "rows"), 0), "tid"), 100);
	assert_int_equal(num(cJSON_GetArrayItem(get(tl, "rows"), 0), "depth"), 3);
	names = get(tl, "names");
	lanes = get(tl, "lanes");
	for (int i = 0; i < cJSON_GetArraySize(lanes); i++) {
		const cJSON *l = cJSON_GetArrayItem(lanes, i);
		const cJSON *start = get(l, "start"), *dur = get(l, "dur"), *nm = get(l, "name");
		int64_t row = num(l, "row"), depth = num(l, "depth");

		if (row == 0 && depth == 0) {
			/* f then h, start delta-encoded */
			assert_int_equal(cJSON_GetArraySize(start), 2);
			assert_int_equal(at(start, 0), 0);
			assert_int_equal(at(dur, 0), 40000000);
			assert_int_equal(at(start, 1), 50000000);
			assert_int_equal(at(dur, 1), 1000000);
			assert_string_equal(cJSON_GetArrayItem(names, (int)at(nm, 0))->valuestring,
					    "[unknown]+0x1000");
			seen++;
		} else if (row == 0 && depth == 1) {
			/* the region, closed when f returned */
			assert_int_equal(at(start, 0), 1000000);
			assert_int_equal(at(dur, 0), 39000000);
			assert_string_equal(cJSON_GetArrayItem(names, (int)at(nm, 0))->valuestring,
					    "outer");
			assert_int_equal(at(get(tl, "kinds"), (int)at(nm, 0)), TL_REGION);
			seen++;
		} else if (row == 0 && depth == 2) {
			/* the g calls: one bin (2000) with 300 ns busy: 300 thousandths */
			assert_int_equal(cJSON_GetArraySize(start), 0);
			assert_int_equal(cJSON_GetArraySize(get(l, "bin")), 1);
			assert_int_equal(at(get(l, "bin"), 0), 2000);
			assert_int_equal(at(get(l, "busy"), 0), 300);
			assert_string_equal(
			    cJSON_GetArrayItem(names, (int)at(get(l, "bname"), 0))->valuestring,
			    "[unknown]+0x2000");
			seen++;
		} else if (row == 1) {
			assert_int_equal(depth, 0);
			assert_int_equal(at(start, 0), 5000000);
			seen++;
		}
	}
	assert_int_equal(seen, 4);
	assert_int_equal(num(get(tl, "arrows"), "total"), 0);
	cJSON_Delete(root);
	jsonw_release(&w);
	html_input_release(&in);
	symtab_release(&syms);
	experiment_release(&e);
}

/* No calls, regions or MPI records: no "timeline" key at all. */
static void test_empty(void **state)
{
	struct experiment e;
	struct symtab syms;
	struct html_input in;
	struct words s = {{0}, 0};
	struct jsonw w;
	char dir[256], err[256];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
		   "\"start_ns\":1000,\"end_ns\":9000}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_end(&s, 2000);
	write_stream(dir, 100, 100, &s, NULL, 0);
	assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
	assert_int_equal(symtab_init(&syms, dir), 0);
	memset(&in, 0, sizeof(in));
	in.e = &e;
	in.syms = &syms;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	assert_int_equal(html_data_timeline(&w, &in), 0);
	jsonw_object_end(&w);
	assert_string_equal(jsonw_text(&w), "{}");
	jsonw_release(&w);
	html_input_release(&in);
	symtab_release(&syms);
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keep_and_bin), cmocka_unit_test(test_slice_budget),
	    cmocka_unit_test(test_cell_budget),	 cmocka_unit_test(test_names),
	    cmocka_unit_test(test_data),	 cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
