/*
 * test_fprofile.c - the function profile on synthetic experiments whose calls are known
 * exactly: any 64-bit address is a function (0xffff... included).
 */
#include "synth-exp.h"

#include <errno.h>
#include <stdlib.h>

#include "experiment.h"
#include "fprofile.h"
#include "symbols.h"

/* A thread's function records, growing: every event 1 ns after the one before. */
struct trace {
	uint64_t *w;
	size_t n, cap;
	uint64_t t;
};

static void tr_put(struct trace *tr, uint64_t v)
{
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 1024;
		tr->w = realloc(tr->w, tr->cap * sizeof(*tr->w));
		assert_non_null(tr->w);
	}
	tr->w[tr->n++] = v;
}

/* The time of the event written. */
static uint64_t tr_call(struct trace *tr, int enter, uint64_t addr)
{
	uint64_t t = ++tr->t;

	tr_put(tr, psc_word0(t, enter ? PSC_KIND_FUNC_ENTER : PSC_KIND_FUNC_EXIT));
	tr_put(tr, addr);
	return t;
}

/* stream.100.TID: chunks of at most 64 Ki words, each opened by a clock record, then the end
 * record. */
static void tr_write(const char *dir, int tid, struct trace *tr)
{
	FILE *f = synth_stream_create(dir, 100, tid);
	size_t at = 0, seq = 0;

	do {
		size_t k = tr->n - at > 65536 ? 65536 : tr->n - at;
		uint64_t t0 = at ? tr->w[at] >> 2 : 1, head[3];
		int last = at + k == tr->n;
		uint64_t end[2] = {psc_word0(tr->t + 1, PSC_KIND_EXT),
				   psc_ext_word1(PSC_REC_STREAM_END, 2, PSC_END_EXIT)};
		struct psc_chunk_header ch = {PSC_CHUNK_MAGIC,
					      (uint32_t)((3 + k + (last ? 2 : 0)) * 8), seq++};

		head[0] = psc_word0(t0, PSC_KIND_EXT);
		head[1] = psc_ext_word1(PSC_REC_CLOCK_SYNC, 3, 0);
		head[2] = t0;
		assert_int_equal(fwrite(&ch, sizeof(ch), 1, f), 1);
		assert_int_equal(fwrite(head, 8, 3, f), 3);
		if (k)
			assert_int_equal(fwrite(tr->w + at, 8, k, f), k);
		if (last)
			assert_int_equal(fwrite(end, 8, 2, f), 2);
		at += k;
	} while (at < tr->n);
	assert_int_equal(fclose(f), 0);
	free(tr->w);
	memset(tr, 0, sizeof(*tr));
}

/* An experiment: a directory, its profile (per thread and merged) and symbols. */
struct fixture {
	char dir[128];
	struct experiment e;
	struct symtab syms;
	struct func_profile p, merged;
};

static void fixture_dir(struct fixture *x)
{
	memset(x, 0, sizeof(*x));
	new_dir(x->dir, sizeof(x->dir));
	write_text(x->dir, "meta.json",
		   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	write_proc(x->dir, 100, "[]");
}

static void build(struct fixture *x)
{
	char err[512] = "";

	if (experiment_open(&x->e, x->dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(&x->syms, x->dir), 0);
	if (func_profile_build(&x->p, &x->e, &x->syms, NULL, NULL, err, sizeof(err)))
		fail_msg("func_profile_build: %s", err);
	assert_int_equal(func_profile_merge(&x->p, &x->merged), 0);
}

static void release(struct fixture *x)
{
	func_profile_release(&x->merged);
	func_profile_release(&x->p);
	symtab_release(&x->syms);
	experiment_release(&x->e);
}

static size_t row_of(const struct func_profile *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].addr == addr)
			return i;
	fail_msg("no row for 0x%llx", (unsigned long long)addr);
	return SIZE_MAX;
}

#define M 0x1000u
#define F 0x2000u
#define G 0x3000u
#define H 0x4000u

/* Function records of addresses that other code takes as "none" or "empty": all ones (the
 * pass's caches once took UINT64_MAX for an empty slot and crashed on it), zero, and the
 * top of the address space, nested and repeated. */
static void test_any_address(void **state)
{
	static const uint64_t top = UINT64_MAX, next = UINT64_MAX - 1, high = 0xffffffffff600000;
	struct trace tr = {0};
	struct fixture x;

	(void)state;
	fixture_dir(&x);
	for (int i = 0; i < 3; i++) {
		tr_call(&tr, 1, top);
		tr_call(&tr, 1, next);
		tr_call(&tr, 0, next);
		tr_call(&tr, 0, top);
	}
	tr_call(&tr, 1, 0);
	tr_call(&tr, 1, high);
	tr_call(&tr, 0, high);
	tr_call(&tr, 0, 0);
	tr_write(x.dir, 100, &tr);
	build(&x);
	assert_int_equal(x.p.nrows, 4);
	assert_int_equal(x.p.rows[row_of(&x.p, top)].calls, 3);
	assert_int_equal(x.p.rows[row_of(&x.p, next)].calls, 3);
	assert_int_equal(x.p.rows[row_of(&x.p, 0)].calls, 1);
	assert_int_equal(x.p.rows[row_of(&x.p, high)].calls, 1);
	/* each 0xffff...ff call lasts 3 ns (enter, the callee's two events, exit) */
	assert_int_equal(x.p.rows[row_of(&x.p, top)].incl_ns, 9);
	assert_int_equal(x.p.rows[row_of(&x.p, next)].incl_ns, 3);
	assert_int_equal(x.p.nnodes, 4);
	assert_int_equal(x.merged.nrows, 4);
	release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_any_address),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
