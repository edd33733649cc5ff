/* test_html_mpi.c - the report's "mpi" data (html-mpi.c) on an MPI model built by hand with
 * known times (mpi-hand.h): the wait matrix, the routines per rank, the traffic of the whole
 * run and over time frames, the clock facts and caveats, exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html/html-int.h"
#include "model/session.h"
#include "mpi-hand.h"

#define R(name) MPI_ROUTINE_##name

/*
 * 3 ranks over 100 ms. Rank 1 receives from rank 0 (Recv 2..11 ms; Send 10..10.5 ms, 1000
 * bytes: a late sender by 8 ms; in transfer 10..11 ms, 8 Mbit/s, written 8e+06) and from
 * rank 2 (Recv 30..42 ms; Send 40..41 ms, 4000 bytes: 10 ms late; in transfer 40..42 ms,
 * 16 Mbit/s). Then a barrier entered by rank r at 60 + 10 r ms, left by all at 81 ms: rank r
 * waits 20 - 10 r ms.
 */
static void model(struct mpi_model *m)
{
	uint32_t s0, r0, s2, r2, bar[3], si0, ri0, si2, ri2;

	hand_init(m, 3, 100);
	s0 = hand_call(m, 0, R(Send), 10, 10.5);
	si0 = hand_item(m, PSC_MPI_ITEM_SEND, 0, 1, 0, 1000, 0);
	r0 = hand_call(m, 1, R(Recv), 2, 11);
	ri0 = hand_item(m, PSC_MPI_ITEM_RECV, 0, 0, 0, 1000, 0);
	r2 = hand_call(m, 1, R(Recv), 30, 42);
	ri2 = hand_item(m, PSC_MPI_ITEM_RECV, 0, 2, 0, 4000, 0);
	s2 = hand_call(m, 2, R(Send), 40, 41);
	si2 = hand_item(m, PSC_MPI_ITEM_SEND, 0, 1, 0, 4000, 0);
	hand_msg(m, 0, 1, 1000, s0, s0, r0, r0, 0, si0, ri0);
	hand_msg(m, 2, 1, 4000, s2, s2, r2, r2, 0, si2, ri2);
	for (int r = 0; r < 3; r++) {
		bar[r] = hand_call(m, r, R(Barrier), 60 + 10 * r, 81);
		hand_item(m, PSC_MPI_ITEM_COLL, 0, -1, 0, 0, 0);
	}
	hand_coll(m, R(Barrier), -1, bar, 3);
}

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

/* The "mpi" data of M as JSON text (malloc'd); IN keeps the caveats. */
static char *build(struct mpi_model *m, struct html_input *in, struct experiment *e)
{
	struct session sess;
	struct jsonw w;
	char *out;

	memset(in, 0, sizeof(*in));
	memset(e, 0, sizeof(*e));
	hand_session(&sess, m);
	e->exit_status = -1;
	in->s = &sess;
	in->e = e;
	in->mpi = m;
	in->mpi_state = m ? 1 : -1;
	jsonw_init(&w, 0);
	jsonw_object_begin(&w);
	assert_int_equal(html_data_mpi(&w, in), 0);
	jsonw_object_end(&w);
	assert_non_null(jsonw_text(&w));
	out = strdup(w.buf);
	jsonw_release(&w);
	in->mpi = NULL; /* the hand model is released by the test */
	in->s = NULL;
	hand_session_close(&sess);
	return out;
}

static void expect(const char *json, const char *part)
{
	if (!strstr(json, part))
		fail_msg("expected %s in %s", part, json);
}

static void test_matrix_and_routines(void **state)
{
	struct mpi_model m;
	struct html_input in;
	struct experiment e;
	char *j, names[256] = "", calls[256] = "", times[256] = "", bytes[256] = "";
	/* per rank: calls, time (ns) and bytes of Send, Recv, Barrier */
	const unsigned ids[3] = {R(Send), R(Recv), R(Barrier)};
	const long long c[3][3] = {{1, 0, 1}, {0, 2, 1}, {1, 0, 1}};
	const long long t[3][3] = {{MS(0.5), 0, MS(21)}, {0, MS(21), MS(11)}, {MS(1), 0, MS(1)}};
	const long long b[3][3] = {{1000, 0, 0}, {0, 5000, 0}, {4000, 0, 0}};
	int order[3], n = 0;

	(void)state;
	model(&m);
	j = build(&m, &in, &e);
	expect(j, "\"mpi\":{\"ranks\":3,\"run_ns\":100000000,");
	expect(j, "\"present\":[1,1,1],\"start_ns\":[0,0,0],\"end_ns\":[100000000,100000000,"
		  "100000000]");
	expect(j, "\"waits\":{\"p2p\":[0,0,0,8000000,0,10000000,0,0,0],"
		  "\"coll\":[20000000,10000000,0],\"total\":[20000000,28000000,0],"
		  "\"exec_ns\":[100000000,100000000,100000000],\"hide_pct\":0.1}");
	/* routines in the order of their ids */
	for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++)
		for (int i = 0; i < 3; i++)
			if (ids[i] == k)
				order[n++] = i;
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s\"%s\"",
			 i ? "," : "", mpi_routine_name(ids[order[i]]));
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 3; i++) {
			const char *sep = r || i ? "," : "";
			int k = order[i];

			snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "%s%lld",
				 sep, c[r][k]);
			snprintf(times + strlen(times), sizeof(times) - strlen(times), "%s%lld",
				 sep, t[r][k]);
			snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes), "%s%lld",
				 sep, b[r][k]);
		}
	{
		char want[2048];

		snprintf(
		    want, sizeof(want),
		    "\"routines\":{\"names\":[%s],\"calls\":[%s],\"time_ns\":[%s],\"bytes\":[%s],"
		    "\"mpi_ns\":[21500000,32000000,2000000],"
		    "\"run_ns\":[100000000,100000000,100000000]}",
		    names, calls, times, bytes);
		expect(j, want);
	}
	expect(j, "\"clock\":{\"aligned\":true,\"violations_unaligned\":0,\"violations_before\":0,"
		  "\"violations_after\":0,\"max_correction_ns\":0}");
	assert_int_equal(in.ncaveats, 0);
	free(j);
	html_input_release(&in);
	hand_release(&m);
}

static void test_traffic(void **state)
{
	struct mpi_model m;
	struct html_input in;
	struct experiment e;
	char *j, want[2048];
	size_t off;

	(void)state;
	model(&m);
	j = build(&m, &in, &e);
	expect(j, "\"traffic\":{\"messages\":2,\"matched\":2,\"bytes\":5000,\"pairs\":{"
		  "\"src\":[0,2],\"dst\":[1,1],\"messages\":[1,1],\"matched\":[1,1],"
		  "\"bytes\":[1000,4000],\"rate_mean\":[8e+06,1.6e+07],"
		  "\"rate_min\":[8e+06,1.6e+07],\"rate_max\":[8e+06,1.6e+07]}");
	/* 200 frames of 0.5 ms: 0 -> 1 in frames 20-21, 2 -> 1 in frames 80-83 */
	off = (size_t)snprintf(want, sizeof(want),
			       "\"frames\":{\"n\":200,\"dt_ns\":500000,\"first\":[");
	for (int f = 0; f <= 200; f++) {
		int n = f <= 20 ? 0 : f <= 22 ? f - 20 : f <= 80 ? 2 : f <= 84 ? 2 + f - 80 : 6;

		off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%d", f ? "," : "", n);
	}
	snprintf(want + off, sizeof(want) - off,
		 "],\"pair\":[0,0,1,1,1,1],\"messages\":[1,1,1,1,1,1],"
		 "\"bytes\":[1000,1000,4000,4000,4000,4000],"
		 "\"rate\":[8e+06,8e+06,1.6e+07,1.6e+07,1.6e+07,1.6e+07]}}}");
	expect(j, want);
	free(j);
	html_input_release(&in);
	hand_release(&m);
}

/* A pair's ranks are signed: a receive from any source (peer -1) that no message matched is
 * the pair (-1, receiver), written -1, not 2^64 - 1. */
static void test_signed_ranks(void **state)
{
	struct mpi_model m;
	struct html_input in;
	struct experiment e;
	char *j;

	(void)state;
	model(&m);
	hand_call(&m, 2, R(Recv), 90, 91);
	hand_item(&m, PSC_MPI_ITEM_RECV, 0, -1, 0, 64, 0);
	j = build(&m, &in, &e);
	expect(j, "\"pairs\":{\"src\":[0,2,-1],\"dst\":[1,1,2],\"messages\":[1,1,1],"
		  "\"matched\":[1,1,0],\"bytes\":[1000,4000,64],");
	free(j);
	html_input_release(&in);
	hand_release(&m);
}

/* Corrected clocks give a caveat; the model's warnings (html_mpi's) are not repeated. */
static void test_clock_caveats(void **state)
{
	struct mpi_model m;
	struct html_input in;
	struct experiment e;
	char *j;
	int found = 0;

	(void)state;
	model(&m);
	m.violations_unaligned = 5;
	m.violations_before = 2;
	m.violations_after = 0;
	m.max_correction_ns = 1500000;
	m.warnings = malloc(sizeof(*m.warnings));
	assert_non_null(m.warnings);
	m.warnings[0] = (char *)"rank 2: records dropped";
	m.nwarnings = 1;
	j = build(&m, &in, &e);
	expect(j, "\"clock\":{\"aligned\":true,\"violations_unaligned\":5,\"violations_before\":2,"
		  "\"violations_after\":0,\"max_correction_ns\":1500000}");
	for (size_t i = 0; i < in.ncaveats; i++) {
		assert_string_not_equal(in.caveats[i], "rank 2: records dropped");
		found += strstr(in.caveats[i], "2 messages received before they were sent (clock "
					       "error): corrected, 0 left, largest shift") != NULL;
		found += strstr(in.caveats[i], "the clock alignment fixed 3") != NULL;
	}
	assert_int_equal(found, 2);
	assert_int_equal(in.ncaveats, 2);
	free(j);
	html_input_release(&in);
	m.nwarnings = 0;
	hand_release(&m);
}

/* Without an MPI model the builder writes nothing: the views are absent. */
static void test_no_mpi(void **state)
{
	struct html_input in;
	struct experiment e;
	char *j;

	(void)state;
	j = build(NULL, &in, &e);
	assert_string_equal(j, "{}");
	free(j);
	html_input_release(&in);
}

/* Many communicating pairs get fewer frames: frames x pairs stays within the budget. */
static void test_frame_budget(void **state)
{
	struct mpi_model m;
	struct html_input in;
	struct experiment e;
	char *j, *p;
	const int np = 80; /* 80 x 79 = 6320 pairs: 1 Mi cells / 6320 = 165 frames */

	(void)state;
	hand_init(&m, np, 100);
	free(m.calls);
	free(m.items);
	free(m.msgs);
	m.calls = calloc(2 * (size_t)np * np, sizeof(*m.calls));
	m.items = calloc(2 * (size_t)np * np, sizeof(*m.items));
	m.msgs = calloc((size_t)np * np, sizeof(*m.msgs));
	assert_true(m.calls && m.items && m.msgs);
	for (int a = 0; a < np; a++)
		for (int b = 0; b < np; b++) {
			uint32_t s, r, si, ri;

			if (a == b)
				continue;
			s = hand_call(&m, a, R(Send), 1, 2);
			si = hand_item(&m, PSC_MPI_ITEM_SEND, 0, b, 0, 8, 0);
			r = hand_call(&m, b, R(Recv), 1, 3);
			ri = hand_item(&m, PSC_MPI_ITEM_RECV, 0, a, 0, 8, 0);
			hand_msg(&m, a, b, 8, s, s, r, r, 0, si, ri);
		}
	j = build(&m, &in, &e);
	p = strstr(j, "\"frames\":{\"n\":");
	assert_non_null(p);
	assert_int_equal(strtol(p + strlen("\"frames\":{\"n\":"), NULL, 10),
			 (1 << 20) / (np * (np - 1)));
	free(j);
	html_input_release(&in);
	hand_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matrix_and_routines), cmocka_unit_test(test_traffic),
	    cmocka_unit_test(test_clock_caveats),	cmocka_unit_test(test_no_mpi),
	    cmocka_unit_test(test_frame_budget),	cmocka_unit_test(test_signed_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
