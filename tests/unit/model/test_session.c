/*
 * test_session.c - the session (src/model/session.h): analyses built once on demand with
 * their needs, failures kept with their message, metrics that do not parse kept as caveats.
 */
#include "model/session.h"
#include "pmu/metrics.h"

#include "synth-exp.h"

#include <errno.h>

/* A run with one region "outer" (1000..1100) holding "inner" twice, and a metric that does
 * not parse next to one that does. */
static void write_regions(char *dir, size_t len)
{
	struct words s = {{0}, 0};

	new_dir(dir, len);
	write_text(dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"],"
		   "\"metric_group\":{\"name\":\"g\",\"metrics\":["
		   "{\"name\":\"bad\",\"unit\":\"\",\"formula\":\"(1 +\"},"
		   "{\"name\":\"two\",\"unit\":\"\",\"formula\":\"1 + 1\"}]}}");
	write_proc(dir, 100, "[]");
	w_clock(&s, 1000);
	w_def(&s, 1000, 1, "outer");
	w_def(&s, 1000, 2, "inner");
	w_enter(&s, 1000, 1);
	w_enter(&s, 1010, 2);
	w_leave(&s, 1030, 2);
	w_enter(&s, 1040, 2);
	w_leave(&s, 1060, 2);
	w_leave(&s, 1100, 1);
	w_end(&s, 1100);
	write_stream(dir, 100, 100, &s, NULL, 0);
}

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < SESSION_NANALYSES; i++)
		assert_int_equal(session_find(session_name((enum session_id)i)), i);
	assert_int_equal(session_find("waits"), SESSION_WAITS);
	assert_int_equal(session_find("no-such-analysis"), -ENOENT);
}

/* The merged regions need the profiles, which need the symbols and the experiment: each is
 * built once, and nothing else is. */
static void test_needs_built_once(void **state)
{
	struct region_profile *merged, *again;
	struct session_profiles *prof;
	struct session s;
	char dir[128], err[512] = "";

	(void)state;
	write_regions(dir, sizeof(dir));
	session_init(&s, dir, SESSION_DIR, NULL);
	assert_int_equal(
	    session_get(&s, SESSION_REGIONS_MERGED, (void **)&merged, err, sizeof(err)), 0);
	assert_int_equal(session_state(&s, SESSION_EXPERIMENT), 1);
	assert_int_equal(session_state(&s, SESSION_SYMBOLS), 1);
	assert_int_equal(session_state(&s, SESSION_PROFILES), 1);
	assert_int_equal(session_state(&s, SESSION_MPI), 0);
	assert_int_equal(session_state(&s, SESSION_SAMPLES), 0);
	assert_int_equal(s.nbuilt, 4);
	assert_int_equal(merged->nrows, 2);
	assert_int_equal(session_get(&s, SESSION_PROFILES, (void **)&prof, err, sizeof(err)), 0);
	assert_ptr_equal(prof, &s.prof);
	assert_int_equal(prof->regions.nrows, 2);
	assert_int_equal(session_get(&s, SESSION_REGIONS_MERGED, (void **)&again, err, sizeof(err)),
			 0);
	assert_ptr_equal(again, merged);
	assert_int_equal(s.nbuilt, 4);
	session_close(&s);
}

static void collect(void *ctx, const char *line)
{
	char *buf = ctx;

	strcat(buf, line);
	strcat(buf, "\n");
}

/* A metric of meta.json that does not parse is left out and said as a caveat. */
static void test_metric_caveat(void **state)
{
	struct session_metrics *m;
	struct session s;
	char dir[128], err[512] = "", said[2048] = "";

	(void)state;
	write_regions(dir, sizeof(dir));
	session_init(&s, dir, SESSION_DIR, NULL);
	assert_int_equal(session_get(&s, SESSION_METRICS, (void **)&m, err, sizeof(err)), 0);
	assert_int_equal(m->n, 1);
	assert_string_equal(m->v[0].name, "two");
	session_caveats(&s, collect, said);
	assert_non_null(strstr(said, "metric 'bad' in meta.json: "));
	assert_null(strchr(strchr(said, '\n') + 1, '\n'));
	session_close(&s);
}

/* A directory that is not there: the experiment fails, and so does all that needs it, with
 * its message, each time they are asked; nothing is read again. */
static void test_failure_kept(void **state)
{
	struct session s;
	char dir[128], err[512] = "", again[512] = "";
	int ret;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/no-such-dir", synth_top);
	session_init(&s, dir, SESSION_DIR, NULL);
	ret = session_get(&s, SESSION_WAITS, NULL, err, sizeof(err));
	assert_true(ret < 0);
	assert_non_null(strstr(err, "no-such-dir"));
	assert_int_equal(session_state(&s, SESSION_EXPERIMENT), -1);
	assert_int_equal(session_state(&s, SESSION_MPI), -1);
	assert_int_equal(session_state(&s, SESSION_SYMBOLS), 0);
	assert_int_equal(session_get(&s, SESSION_EXPERIMENT, NULL, again, sizeof(again)), ret);
	assert_string_equal(again, err);
	assert_int_equal(session_get(&s, SESSION_WAITS, NULL, again, sizeof(again)), ret);
	assert_string_equal(again, err);
	assert_int_equal(s.nbuilt, 0);
	session_close(&s);
}

/* An experiment without samples: the sample profile is refused with -ENODATA. */
static void test_no_samples(void **state)
{
	struct session s;
	char dir[128], err[512] = "";

	(void)state;
	write_regions(dir, sizeof(dir));
	session_init(&s, dir, SESSION_DIR, NULL);
	assert_int_equal(session_get(&s, SESSION_SAMPLES, NULL, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "has no samples"));
	assert_int_equal(session_state(&s, SESSION_SYMBOLS), 1);
	session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),	  cmocka_unit_test(test_needs_built_once),
	    cmocka_unit_test(test_metric_caveat), cmocka_unit_test(test_failure_kept),
	    cmocka_unit_test(test_no_samples),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
