/*
 * test_html_energy.c - the HTML report's "energy" data (html-energy.c) on synthetic
 * experiments with a recorded meter file of constant power, where every energy is known:
 * ten functions called one after the other, the eight largest as their own series per
 * interval, the other two summed, the time outside traced code last, each interval adding up
 * to its energy; power over part of the run (a caveat); power without calls (no data, a
 * caveat); no power (nothing).
 */
#include "synth-exp.h"

#include <cjson/cJSON.h>

#include "html/html-int.h"
#include "model/experiment-open.h"
#include "model/symbols.h"

#define WATTS  5.0
#define NFUNCS 10

/* A run from 1000 to 2000 ns whose meter file holds NSAMPLES samples of 5 W at 100 MHz (one
 * every 10 ns from the run's start); no power object when NSAMPLES is 0. */
static void write_meta(const char *dir, int nsamples)
{
	char path[512];
	FILE *f;

	if (!nsamples) {
		write_text(dir, "meta.json",
			   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
			   "\"start_ns\":1000,\"end_ns\":2000}");
		return;
	}
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
		   "\"start_ns\":1000,\"end_ns\":2000,\"power\":{\"source\":\"file\","
		   "\"file\":\"power.meter\",\"format\":\"watts\",\"rate_hz\":100000000}}");
	snprintf(path, sizeof(path), "%s/power.meter", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < nsamples; i++)
		fprintf(f, "%g\n", WATTS);
	assert_int_equal(fclose(f), 0);
}

/* Function k (address 0x1000 (k + 1)) runs 10 (k + 1) ns, one after the other from 1100 ns:
 * the calls end at 1650. With CALLS 0 the stream has no calls. */
static void write_calls(const char *dir, int calls)
{
	struct words s = {{0}, 0};
	uint64_t t = 1100;

	w_clock(&s, 1000);
	for (int k = 0; calls && k < NFUNCS; k++) {
		w_call(&s, t, 1, 0x1000u * (k + 1));
		t += 10u * (k + 1);
		w_call(&s, t, 0, 0x1000u * (k + 1));
	}
	w_end(&s, 2000);
	write_stream(dir, 100, 100, &s, NULL, 0);
}

/* The "energy" data of DIR (NULL when the builder wrote none) and the caveats in *IN. */
static cJSON *energy_of(const char *dir, struct html_input *in, struct experiment *e,
			struct symtab *syms)
{
	char err[512] = "";
	struct jsonw w;
	cJSON *root, *out;

	if (experiment_open(e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(syms, dir), 0);
	memset(in, 0, sizeof(*in));
	in->e = e;
	in->syms = syms;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	assert_int_equal(html_data_energy(&w, in), 0);
	jsonw_object_end(&w);
	assert_non_null(jsonw_text(&w));
	root = cJSON_Parse(jsonw_text(&w));
	jsonw_release(&w);
	assert_non_null(root);
	out = cJSON_DetachItemFromObject(root, "energy");
	cJSON_Delete(root);
	return out;
}

static void release(struct html_input *in, struct experiment *e, struct symtab *syms)
{
	html_input_release(in);
	symtab_release(syms);
	experiment_release(e);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("no number %s", key);
	return v->valuedouble;
}

static void assert_rel(double want, double got)
{
	double d = want - got;

	if ((d < 0 ? -d : d) > 1e-9 * (want < 0 ? -want : want) + 1e-18)
		fail_msg("expected %.17g, got %.17g", want, got);
}

/* Sum of the array KEY of object O. */
static double sum(const cJSON *o, const char *key)
{
	const cJSON *v;
	double s = 0;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(o, key)) s += v->valuedouble;
	return s;
}

static void test_functions_and_intervals(void **state)
{
	struct html_input in;
	struct experiment e;
	struct symtab syms;
	char dir[128];
	const cJSON *f, *iv, *series, *s;
	cJSON *en;
	double prev = 1e9;
	int k = 0;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_meta(dir, 101);
	write_proc(dir, 100, "[]");
	write_calls(dir, 1);
	en = energy_of(dir, &in, &e, &syms);
	assert_non_null(en);
	assert_rel(WATTS * 1000e-9, num(en, "total_j"));
	assert_rel(WATTS * 450e-9, num(en, "outside_j")); /* 1000..1100 and 1650..2000 */
	assert_int_equal((int)num(en, "run_ns"), 1000);
	/* every function: 5 W x its 10 (k + 1) ns, the largest first */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(en, "functions")), NFUNCS);
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(en, "functions"))
	{
		double ns = num(f, "excl_ns");

		assert_true(ns < prev);
		prev = ns;
		assert_int_equal((int)ns, 10 * (NFUNCS - k));
		assert_rel(WATTS * ns * 1e-9, num(f, "excl_j"));
		assert_rel(WATTS, num(f, "power_w"));
		assert_int_equal((int)num(f, "calls"), 1);
		k++;
	}
	/* 40 intervals of 25 ns, each 5 W x 25 ns; 8 functions, the other 2, the outside */
	iv = cJSON_GetObjectItem(en, "intervals");
	assert_non_null(iv);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(iv, "edges_ns")), 41);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(iv, "edges_ns"), 40)->valueint,
			 1000);
	series = cJSON_GetObjectItem(iv, "series");
	assert_int_equal(cJSON_GetArraySize(series), 10);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 8), "name")->valuestring,
			    "[other functions]");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 9), "name")->valuestring,
			    "[outside traced functions]");
	assert_rel(WATTS * 30e-9, sum(cJSON_GetArrayItem(series, 8), "j")); /* 10 + 20 ns */
	assert_rel(30, sum(cJSON_GetArrayItem(series, 8), "ns"));
	assert_rel(WATTS * 450e-9, sum(cJSON_GetArrayItem(series, 9), "j"));
	assert_rel(450, sum(cJSON_GetArrayItem(series, 9), "ns"));
	assert_rel(WATTS * 100e-9, sum(cJSON_GetArrayItem(series, 0), "j"));
	for (int i = 0; i < 40; i++) {
		double j = 0, ns = 0;

		cJSON_ArrayForEach(s, series)
		{
			j += cJSON_GetArrayItem(cJSON_GetObjectItem(s, "j"), i)->valuedouble;
			ns += cJSON_GetArrayItem(cJSON_GetObjectItem(s, "ns"), i)->valuedouble;
		}
		assert_rel(WATTS * 25e-9,
			   cJSON_GetArrayItem(cJSON_GetObjectItem(iv, "energy_j"), i)->valuedouble);
		assert_rel(WATTS * 25e-9, j);
		assert_rel(25, ns); /* one thread: traced and idle time fill the interval */
	}
	/* the first interval (1000..1025) is idle, the fifth (1100..1125) holds f0 and f1 */
	assert_rel(WATTS * 25e-9,
		   cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 9), "j"), 0)
		       ->valuedouble);
	assert_rel(WATTS * 25e-9,
		   cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 8), "j"), 4)
		       ->valuedouble);
	/* energy_caveats' own: the calls of 10 to 40 ns are within 4 samples of 10 ns */
	assert_int_equal(in.ncaveats, 4);
	for (size_t i = 0; i < in.ncaveats; i++)
		assert_non_null(strstr(in.caveats[i], "is shorter than 4 power sample periods"));
	cJSON_Delete(en);
	release(&in, &e, &syms);
}

/* Power samples up to 1500 ns only: the energy of the covered half, and a caveat. */
static void test_partial_cover(void **state)
{
	struct html_input in;
	struct experiment e;
	struct symtab syms;
	char dir[128];
	cJSON *en;
	int found = 0;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_meta(dir, 51);
	write_proc(dir, 100, "[]");
	write_calls(dir, 1);
	en = energy_of(dir, &in, &e, &syms);
	assert_non_null(en);
	assert_rel(WATTS * 500e-9, num(en, "total_j"));
	assert_int_equal((int)num(en, "cover_to_ns"), 500);
	for (size_t i = 0; i < in.ncaveats; i++)
		found += strstr(in.caveats[i], "the power samples cover the run from") != NULL;
	assert_int_equal(found, 1);
	cJSON_Delete(en);
	release(&in, &e, &syms);
}

/* Power without function calls: no "energy", a caveat says why; no power: nothing at all. */
static void test_no_calls_no_power(void **state)
{
	struct html_input in;
	struct experiment e;
	struct symtab syms;
	char dir[128];

	(void)state;
	new_dir(dir, sizeof(dir));
	write_meta(dir, 101);
	write_proc(dir, 100, "[]");
	write_calls(dir, 0);
	assert_null(energy_of(dir, &in, &e, &syms));
	assert_int_equal(in.ncaveats, 1);
	assert_non_null(strstr(in.caveats[0], "Energy view left out: power was recorded but no "
					      "function calls"));
	release(&in, &e, &syms);

	new_dir(dir, sizeof(dir));
	write_meta(dir, 0);
	write_proc(dir, 100, "[]");
	write_calls(dir, 1);
	assert_null(energy_of(dir, &in, &e, &syms));
	assert_int_equal(in.ncaveats, 0);
	release(&in, &e, &syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_functions_and_intervals),
	    cmocka_unit_test(test_partial_cover),
	    cmocka_unit_test(test_no_calls_no_power),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
