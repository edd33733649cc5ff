/*
 * test_regions_many.c - the region profile of many regions: two threads each entering 65,535
 * regions (every id a stream can define) once give 131,070 rows per thread and 65,535 merged
 * rows of 2 calls, each under its own name, and the merge compares a few names per row: it
 * searched the merged rows one by one (2 * 10^9 comparisons here; 64k regions took 91 s,
 * bench/README.md has the times). Counted, not timed: this program's strcmp counts its calls.
 */
#include "synth-exp.h"

#include <errno.h>
#include <stdlib.h>

#include "model/experiment-open.h"
#include "analysis/profile/regions.h"
#include "lib/hashmap.h"

/* Calls of strcmp in this program (the library's included): it takes the C library's place. */
static size_t strcmp_calls;

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	strcmp_calls++;
	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

/* A stream's words, growing. */
struct big {
	uint64_t *w;
	size_t n, cap;
};

static void b_put(struct big *b, uint64_t v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 4096;
		b->w = realloc(b->w, b->cap * sizeof(*b->w));
		assert_non_null(b->w);
	}
	b->w[b->n++] = v;
}

static void b_ext(struct big *b, uint64_t t, enum psc_rec_type type, uint32_t arg,
		  const uint64_t *payload, size_t n)
{
	b_put(b, psc_word0(t, PSC_KIND_EXT));
	b_put(b, psc_ext_word1(type, (uint32_t)(2 + n), arg));
	for (size_t i = 0; i < n; i++)
		b_put(b, payload[i]);
}

#define NREGIONS 65535

/* Thread TID: region_N defined, then entered and left, for every id N (in reverse order on
 * thread 101, so the merge meets the names in another order than it made the rows). */
static void write_thread(const char *dir, int tid)
{
	struct big b = {0};
	uint64_t t = 1000, clock = 1000;
	FILE *f = synth_stream_create(dir, 100, tid);
	struct psc_chunk_header ch;

	b_ext(&b, t, PSC_REC_CLOCK_SYNC, 0, &clock, 1);
	for (uint32_t k = 0; k < NREGIONS; k++) {
		uint32_t id = tid == 100 ? k : NREGIONS - 1 - k;
		uint64_t name[2] = {0, 0};

		snprintf((char *)name, sizeof(name), "region_%u", id);
		b_ext(&b, ++t, PSC_REC_REGION_DEF, id, name, 2);
		b_ext(&b, ++t, PSC_REC_REGION_ENTER, id, NULL, 0);
		b_ext(&b, t += 10, PSC_REC_REGION_LEAVE, id, NULL, 0);
	}
	b_ext(&b, ++t, PSC_REC_STREAM_END, PSC_END_EXIT, NULL, 0);
	ch = (struct psc_chunk_header){PSC_CHUNK_MAGIC, (uint32_t)(b.n * 8), 0};
	assert_int_equal(fwrite(&ch, sizeof(ch), 1, f), 1);
	assert_int_equal(fwrite(b.w, 8, b.n, f), b.n);
	assert_int_equal(fclose(f), 0);
	free(b.w);
}

static void test_many_regions(void **state)
{
	char dir[128], err[512] = "";
	struct experiment e;
	struct region_profile p, m;
	struct strmap names = {0};
	size_t v;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(dir, 100, "[]");
	write_thread(dir, 100);
	write_thread(dir, 101);
	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	if (region_profile_build(&p, &e, err, sizeof(err)))
		fail_msg("region_profile_build: %s", err);
	assert_int_equal(p.nrows, 2 * NREGIONS);
	strcmp_calls = 0;
	assert_int_equal(region_profile_merge_threads(&p, &m), 0);
	/* a name looked up per row, one comparison each but for equal hashes */
	assert_true(strcmp_calls <= 2 * p.nrows);
	assert_int_equal(m.nrows, NREGIONS);
	for (size_t i = 0; i < m.nrows; i++) {
		char want[32];

		/* thread 100's order: region_0, region_1, ... */
		snprintf(want, sizeof(want), "region_%zu", i);
		assert_string_equal(m.rows[i].name, want);
		assert_int_equal(m.rows[i].calls, 2);
		assert_int_equal(m.rows[i].tid, 0);
		assert_true(m.rows[i].incl_ns == 20);
		assert_int_equal(strmap_get(&names, m.rows[i].name, &v), 0); /* each name once */
		assert_int_equal(strmap_put(&names, m.rows[i].name, i), 0);
	}
	strmap_release(&names);
	region_profile_release(&m);
	region_profile_release(&p);
	experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many_regions),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
