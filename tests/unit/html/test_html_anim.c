/*
 * test_html_anim.c - the Process animation's states (html-anim.h) on an MPI model built by
 * hand (mpi-hand.h) with known times: exact change lists with waits, overlapping and empty
 * calls, a rank's idle span; frames with dominant states and ties; the grid; and the JSON of
 * html_data_states ("states", its grid caveat, and "load" from a hand-written load log); the
 * mixes' budget (anim_mix_cap) on a run of 250 ranks whose 500,000 frames are all mixed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html/html-anim.h"
#include "html/html-int.h"
#include "model/session.h"
#include "mpi-hand.h"

#define R(name) MPI_ROUTINE_##name

/* The mix of track TR is exactly the N values V. */
static void expect_mix(const struct anim_track *tr, size_t n, const uint32_t *v)
{
	assert_int_equal(tr->nmix, n);
	for (size_t i = 0; i < n; i++)
		if (tr->mix[i] != v[i])
			fail_msg("mix value %zu: %u, expected %u", i, tr->mix[i], v[i]);
}

/* The states of track TR are exactly N changes (times in ms, states) given as pairs. */
static void expect_track(const struct anim_track *tr, size_t n, const double *t_ms,
			 const uint32_t *s)
{
	assert_int_equal(tr->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tr->t[i], MS(t_ms[i]));
		assert_int_equal(tr->s[i], s[i]);
	}
}

/*
 * 3 ranks over 10 ms. Rank 0: Barrier 2-6 waiting 3 ms, an empty Iprobe at 7. Rank 1:
 * Send 1-3, Recv 4-8 waiting 2 ms, and a Wait 7-9 of another thread overlapping the Recv
 * (added out of order: the Send last). Rank 2: no calls, present from 1 to 9 ms.
 */
static int64_t *model(struct mpi_model *m)
{
	int64_t *wait = calloc(HAND_MAX, sizeof(*wait));
	uint32_t c;

	assert_non_null(wait);
	hand_init(m, 3, 10);
	c = hand_call(m, 0, R(Barrier), 2, 6);
	wait[c] = MS(3);
	hand_call(m, 0, R(Iprobe), 7, 7);
	c = hand_call(m, 1, R(Recv), 4, 8);
	wait[c] = MS(2);
	hand_call(m, 1, R(Wait), 7, 9);
	hand_call(m, 1, R(Send), 1, 3);
	m->ranks[2].start_ns = MS(1);
	m->ranks[2].end_ns = MS(9);
	return wait;
}

static void test_exact(void **state)
{
	struct mpi_model m;
	struct anim_states st;
	int64_t *wait = model(&m);
	/* states: 3 Barrier, 4 Iprobe (seen, never shown), 5 Send, 6 Recv, 7 Wait */
	const double t0[] = {0, 2, 5, 6}, t1[] = {0, 1, 3, 4, 6, 8, 9}, t2[] = {0, 1, 9};
	const uint32_t s0[] = {1, 2, 3, 1}, s1[] = {1, 5, 1, 2, 6, 7, 1}, s2[] = {0, 1, 0};

	(void)state;
	assert_int_equal(anim_states_build(&st, &m, wait, ANIM_MAX_CHANGES, 2000), 0);
	assert_int_equal(st.nranks, 3);
	assert_int_equal(st.duration_ns, MS(10));
	assert_int_equal(st.frame_ns, 0);
	assert_int_equal(st.nroutines, 5);
	assert_int_equal(st.routines[0], R(Barrier));
	assert_int_equal(st.routines[1], R(Iprobe));
	assert_int_equal(st.routines[2], R(Send));
	assert_int_equal(st.routines[3], R(Recv));
	assert_int_equal(st.routines[4], R(Wait));
	expect_track(&st.ranks[0], 4, t0, s0);
	expect_track(&st.ranks[1], 7, t1, s1);
	expect_track(&st.ranks[2], 3, t2, s2);
	/* the state at an instant: the last change at or before it */
	assert_int_equal(anim_track_at(&st.ranks[0], MS(2) - 1), ANIM_COMPUTE);
	assert_int_equal(anim_track_at(&st.ranks[0], MS(2)), ANIM_WAIT);
	assert_int_equal(anim_track_at(&st.ranks[0], MS(5.5)), ANIM_ROUTINE);
	assert_int_equal(anim_track_at(&st.ranks[1], MS(8.5)), ANIM_ROUTINE + 4);
	assert_int_equal(anim_track_at(&st.ranks[2], MS(9.5)), ANIM_IDLE);
	anim_states_release(&st);

	/* without waits a call is its routine throughout */
	assert_int_equal(anim_states_build(&st, &m, NULL, ANIM_MAX_CHANGES, 2000), 0);
	const double u0[] = {0, 2, 6};
	const uint32_t v0[] = {1, 3, 1};
	expect_track(&st.ranks[0], 3, u0, v0);
	anim_states_release(&st);
	free(wait);
	hand_release(&m);
}

static void test_frames(void **state)
{
	struct mpi_model m;
	struct anim_states st;
	int64_t *wait = model(&m);

	(void)state;
	/* 5 frames of 2 ms. Rank 0: compute | wait | wait 1 + Barrier 1 (tie: the lower state,
	 * waiting) | compute | compute. Rank 1: Send 1 + compute 1 (tie: computing) | compute 1 +
	 * wait 1 (computing) | wait 2... Rank 2: idle 1 + compute 1 (tie: idle) | compute x3 |
	 * compute 1 + idle 1 (idle). */
	assert_int_equal(anim_states_build(&st, &m, wait, 0, 5), 0);
	assert_int_equal(st.frame_ns, MS(2));
	const double t0[] = {0, 2, 6}, t2[] = {0, 2, 8};
	const uint32_t s0[] = {1, 2, 1}, s2[] = {0, 1, 0};
	/* rank 1: [0,2) Send 1 compute 1 -> 1; [2,4) Send 1 compute 1 -> 1; [4,6) wait 2 -> 2;
	 * [6,8) Recv 2 -> 6; [8,10) Wait 1 compute 1 -> 1 */
	const double t1b[] = {0, 4, 6, 8};
	const uint32_t s1b[] = {1, 2, 6, 1};
	expect_track(&st.ranks[0], 3, t0, s0);
	expect_track(&st.ranks[1], 4, t1b, s1b);
	expect_track(&st.ranks[2], 3, t2, s2);
	/* the shares of the frames with several states, in thousandths, largest (then lowest
	 * state) first: rank 0's frame 2 waiting 1 ms, Barrier 1 ms; rank 1's frames 0 and 1
	 * computing 1 ms and Send 1 ms, frame 4 computing 1 and Wait 1; rank 2's frames 0 and 4
	 * idle 1 ms and computing 1 ms */
	const uint32_t m0[] = {2, 2, 2, 500, 3, 500};
	const uint32_t m1[] = {0, 2, 1, 500, 5, 500, 1, 2, 1, 500, 5, 500, 4, 2, 1, 500, 7, 500};
	const uint32_t m2[] = {0, 2, 0, 500, 1, 500, 4, 2, 0, 500, 1, 500};
	expect_mix(&st.ranks[0], 6, m0);
	expect_mix(&st.ranks[1], 18, m1);
	expect_mix(&st.ranks[2], 12, m2);
	{
		/* the JSON: each frame as the difference to the previous entry's */
		struct jsonw w;

		jsonw_init(&w, 0);
		anim_mix_json(&w, &st.ranks[1]);
		assert_string_equal(jsonw_text(&w),
				    "[0,2,1,500,5,500,1,2,1,500,5,500,3,2,1,500,7,500]");
		jsonw_release(&w);
		jsonw_init(&w, 0);
		anim_mix_json(&w, &st.ranks[2]);
		assert_string_equal(jsonw_text(&w), "[0,2,0,500,1,500,4,2,0,500,1,500]");
		jsonw_release(&w);
	}
	anim_states_release(&st);

	/* 4 frames of 2.5 ms: rank 0 compute 2 + wait 0.5 | wait 2.5 | Barrier 1 + compute 1.5
	 * | compute */
	assert_int_equal(anim_states_build(&st, &m, wait, 0, 4), 0);
	assert_int_equal(st.frame_ns, MS(2.5));
	const double u0[] = {0, 2.5, 5};
	const uint32_t v0[] = {1, 2, 1};
	expect_track(&st.ranks[0], 3, u0, v0);
	/* frame 0: computing 2 ms, waiting 0.5; frame 2: computing 1.5, Barrier 1 */
	const uint32_t w0[] = {0, 2, 1, 800, 2, 200, 2, 2, 1, 600, 3, 400};
	expect_mix(&st.ranks[0], 12, w0);
	anim_states_release(&st);

	/* 3 frames: 3333334 ns each, the last shorter; the changes stay at frame starts */
	assert_int_equal(anim_states_build(&st, &m, wait, 0, 3), 0);
	assert_int_equal(st.frame_ns, 3333334);
	for (int r = 0; r < 3; r++)
		for (size_t i = 0; i < st.ranks[r].n; i++)
			assert_int_equal(st.ranks[r].t[i] % 3333334, 0);
	/* rank 0, frame 0: computing 2 ms and waiting 1.333334 of 3.333334 (599.99988 and
	 * 400.00012 thousandths); frame 1: waiting 1.666666, Barrier 1, computing 0.666668 */
	const uint32_t x0[] = {0, 2, 1, 600, 2, 400, 1, 3, 2, 500, 3, 300, 1, 200};
	expect_mix(&st.ranks[0], 14, x0);
	anim_states_release(&st);

	/* under the limit: exact */
	assert_int_equal(anim_states_build(&st, &m, wait, 14, 3), 0);
	assert_int_equal(st.frame_ns, 0);
	anim_states_release(&st);
	assert_int_equal(anim_states_build(&st, &m, wait, 13, 3), 0);
	assert_int_not_equal(st.frame_ns, 0);
	anim_states_release(&st);

	/* a share below half a thousandth is still listed, as 1: one 1 us Send in 10 ms */
	hand_call(&m, 2, R(Send), 5, 5.001);
	assert_int_equal(anim_states_build(&st, &m, wait, 0, 1), 0);
	const uint32_t y2[] = {0, 3, 1, 800, 0, 200, 5, 1};
	expect_mix(&st.ranks[2], 8, y2);
	anim_states_release(&st);
	free(wait);
	hand_release(&m);
}

static void test_grid(void **state)
{
	int rows, cols;

	(void)state;
	assert_int_equal(anim_grid(4, 0, 0, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 22);
	assert_int_equal(anim_grid(5, 0, 0, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 23);
	assert_int_equal(anim_grid(10, 0, 0, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 34);
	assert_int_equal(anim_grid(1, 0, 0, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 11);
	assert_int_equal(anim_grid(4, 1, 4, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 14);
	assert_int_equal(anim_grid(4, 3, 3, &rows, &cols), 0);
	assert_int_equal(rows * 10 + cols, 33);
	assert_int_equal(anim_grid(5, 2, 2, &rows, &cols), -1);
	assert_int_equal(rows * 10 + cols, 23);
	assert_int_equal(anim_frames(4), 2000);
	assert_int_equal(anim_frames(1000), 500);
	assert_int_equal(anim_frames(100000), 100);
}

/* html_data_states's JSON of IN as text (the object's contents). */
/* A session holding the test's hand model M (NULL: none): what html_waits() asks. */
static void hand_session(struct session *s, struct mpi_model *m)
{
	session_init(s, "/nonexistent", SESSION_DIR, NULL);
	if (m)
		assert_int_equal(session_put(s, SESSION_MPI, m), 0);
}

/* Close S, whose hand model the test releases itself. */
static void hand_session_close(struct session *s)
{
	memset(&s->mpi, 0, sizeof(s->mpi));
	session_close(s);
}

static char *states_json(struct html_input *in)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	assert_int_equal(html_data_states(&w, in), 0);
	jsonw_object_end(&w);
	s = strdup(jsonw_text(&w));
	jsonw_release(&w);
	return s;
}

static void release_caveats(struct html_input *in)
{
	in->mpi = NULL; /* the test's own model */
	html_input_release(in);
}

static void test_json(void **state)
{
	struct mpi_model m;
	struct experiment e = {0};
	struct html_input in = {0};
	struct session sess;
	int64_t *wait = model(&m);
	char dir[] = "/tmp/psc-html-anim.XXXXXX", path[256], *s;
	FILE *f;

	(void)state;
	free(wait);
	assert_non_null(mkdtemp(dir));
	e.dir = dir;
	hand_session(&sess, &m);
	in.s = &sess;
	in.e = &e;
	in.mpi = &m;
	in.mpi_state = 1;
	s = states_json(&in);
	/* no waits in the JSON: the hand model matched no collective or message */
	assert_string_equal(s, "{\"states\":{\"ranks\":3,\"grid\":[2,2],\"duration_ns\":10000000,"
			       "\"frame_ns\":0,\"names\":[\"idle\",\"computing\",\"waiting\","
			       "\"MPI_Barrier\",\"MPI_Iprobe\",\"MPI_Send\",\"MPI_Recv\","
			       "\"MPI_Wait\"],\"t\":[[0,2000000,6000000],[0,1000000,3000000,"
			       "4000000,8000000,9000000],[0,1000000,9000000]],\"s\":[[1,3,1],[1,5,"
			       "1,6,7,1],[0,1,0]]}}");
	free(s);
	assert_int_equal(in.ncaveats, 0);

	/* a grid too small: near-square and a caveat */
	in.grid_rows = 1;
	in.grid_cols = 2;
	s = states_json(&in);
	assert_non_null(strstr(s, "\"grid\":[2,2]"));
	free(s);
	assert_int_equal(in.ncaveats, 1);
	assert_string_equal(in.caveats[0],
			    "Process animation: --grid 1x2 holds fewer than the 3 ranks: 2x2 used");

	/* a load log: times from one period before the first sample (no start, no model) */
	snprintf(path, sizeof(path), "%s/load.h1.100", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# perfscope load 1\n# host h1\n# period_ns 20000000\n# cpus 2\n# rank 0 pid 100\n"
	      "# rank 1 pid 101\ntime_ns,host,rank0,rank1\n1000000000,0.5,1.0000,0.25\n"
	      "1020000000,-,0.5,-\n",
	      f);
	fclose(f);
	in.grid_rows = in.grid_cols = 0;
	in.mpi_state = -1;
	s = states_json(&in);
	assert_string_equal(
	    s, "{\"load\":{\"ranks\":2,\"grid\":[1,2],\"duration_ns\":0,\"hosts\":[{\"host\":"
	       "\"h1\",\"cpus\":2,\"period_ns\":20000000,\"busy\":{\"samples\":1,\"mean\":0.5,"
	       "\"min\":0.5,\"max\":0.5},\"t\":[20000000,40000000],\"busy_over_time\":[0.5,null]}],"
	       "\"rank\":[{\"rank\":0,\"pid\":100,\"host\":0,\"samples\":2,\"mean\":0.75,\"min\":"
	       "0.5,\"max\":1,\"share\":[1,0.5]},{\"rank\":1,\"pid\":101,\"host\":0,\"samples\":1,"
	       "\"mean\":0.25,\"min\":0.25,\"max\":0.25,\"share\":[0.25,null]}]}}");
	free(s);

	/* a broken log: a caveat, no "load" */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# perfscope load 9\n", f);
	fclose(f);
	s = states_json(&in);
	assert_string_equal(s, "{}");
	free(s);
	assert_int_equal(in.ncaveats, 2);
	assert_non_null(strstr(in.caveats[1], "Load view left out: "));
	unlink(path);
	rmdir(dir);
	release_caveats(&in);
	hand_session_close(&sess);
	hand_release(&m);
}

/* The share of rank R's Send in frame F of the large run, in thousandths: 1 to 400, each
 * value 5 times per rank (2000 frames), so 1250 times over the 250 ranks. */
static uint32_t big_k(int r, int f)
{
	return 1 + (uint32_t)(r * 7 + f) % 400;
}

/* 250 ranks over 2000 ms; in each 1-ms frame f rank r sends for big_k(r, f) us from 0.1 ms
 * into the frame and computes otherwise: 1,000,250 changes, aggregated to 2000 frames of
 * 1 ms whose every one is mixed ([f, 2, 1, 1000 - k, 3, k]: 6 numbers, 3,000,000 in all). */
static void big_model(struct mpi_model *m)
{
	const int p = 250, nf = 2000;

	hand_init(m, p, nf);
	free(m->calls);
	m->calls = calloc((size_t)p * nf, sizeof(*m->calls));
	assert_non_null(m->calls);
	for (int r = 0; r < p; r++)
		for (int f = 0; f < nf; f++) {
			int64_t a = MS(f) + 100000;

			m->calls[m->ncalls++] =
			    (struct mpi_call){.enter_ns = a,
					      .leave_ns = a + 1000 * (int64_t)big_k(r, f),
					      .routine = R(Send),
					      .loc = (uint32_t)r,
					      .site = MPI_NONE,
					      .coll = MPI_NONE};
		}
}

static void test_mix_cap(void **state)
{
	struct mpi_model m;
	struct anim_states st;
	size_t kept = 0;

	(void)state;
	big_model(&m);
	assert_int_equal(anim_states_build(&st, &m, NULL, ANIM_MAX_CHANGES, anim_frames(250)), 0);
	assert_int_equal(st.frame_ns, MS(1));
	for (int r = 0; r < 250; r++)
		kept += st.ranks[r].nmix;
	assert_int_equal(kept, 3000000);
	/* a budget above the mixes: nothing dropped */
	anim_mix_cap(&st, 3000000);
	assert_int_equal(st.mix_entries, 500000);
	assert_int_equal(st.mix_dropped, 0);
	assert_int_equal(st.mix_min_pm, 0);
	/* the report's budget: the levels k = 268 to 400 (133 x 7500 = 997,500 numbers) stay,
	 * one more level (134 x 7500) would pass 1,000,000 */
	anim_mix_cap(&st, ANIM_MIX_MAX);
	assert_int_equal(st.mix_entries, 500000);
	assert_int_equal(st.mix_min_pm, 268);
	assert_int_equal(st.mix_dropped, 500000 - 133 * 1250);
	kept = 0;
	for (int r = 0; r < 250; r++) {
		const struct anim_track *tr = &st.ranks[r];
		size_t i = 0;

		/* exactly the frames with k >= 268, in order, 5 x 133 per rank */
		for (int f = 0; f < 2000; f++) {
			uint32_t k = big_k(r, f);

			if (k < 268)
				continue;
			assert_true(i + 6 <= tr->nmix);
			if (tr->mix[i] != (uint32_t)f || tr->mix[i + 1] != 2 ||
			    tr->mix[i + 2] != 1 || tr->mix[i + 3] != 1000 - k ||
			    tr->mix[i + 4] != 3 || tr->mix[i + 5] != k)
				fail_msg("rank %d frame %d: [%u,%u,%u,%u,%u,%u], expected "
					 "[%d,2,1,%u,3,%u]",
					 r, f, tr->mix[i], tr->mix[i + 1], tr->mix[i + 2],
					 tr->mix[i + 3], tr->mix[i + 4], tr->mix[i + 5], f,
					 1000 - k, k);
			i += 6;
		}
		assert_int_equal(tr->nmix, i);
		assert_int_equal(i, 6 * 5 * 133);
		kept += i;
	}
	assert_int_equal(kept, 997500);
	{
		/* rank 1 (k = 1 + (7 + f) mod 400): the first kept frames are 260, 261, ... */
		struct jsonw w;

		jsonw_init(&w, 0);
		anim_mix_json(&w, &st.ranks[1]);
		assert_memory_equal(jsonw_text(&w), "[260,2,1,732,3,268,1,2,1,731,3,269,", 35);
		jsonw_release(&w);
	}
	/* one number less: the level 268 goes too (132 x 7500 = 990,000 numbers) */
	anim_mix_cap(&st, 997499);
	assert_int_equal(st.mix_entries, 166250);
	assert_int_equal(st.mix_min_pm, 269);
	assert_int_equal(st.mix_dropped, 1250);
	anim_states_release(&st);

	{
		/* the report: the cap, its caveat and "mix_min_pm" */
		struct html_input in = {0};
		struct session sess;
		char *s;

		hand_session(&sess, &m);
		in.s = &sess;
		in.mpi = &m;
		in.mpi_state = 1;
		s = states_json(&in);
		assert_non_null(strstr(s, "\"frame_ns\":1000000,"));
		assert_non_null(strstr(s, "\"mix_min_pm\":268}"));
		assert_non_null(strstr(s, "[260,2,1,732,3,268,1,2,1,731,3,269,"));
		free(s);
		assert_int_equal(in.ncaveats, 1);
		assert_string_equal(
		    in.caveats[0],
		    "Process animation: the shares of 333750 of the 500000 mixed frames "
		    "(those with less than 26.8 % outside their main state) were left out "
		    "to keep the report small (at most 1000000 numbers of shares)");
		release_caveats(&in);
		hand_session_close(&sess);
	}
	hand_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact),   cmocka_unit_test(test_frames),
	    cmocka_unit_test(test_grid),    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_mix_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
