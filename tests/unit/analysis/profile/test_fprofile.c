/*
 * test_fprofile.c - the function profile and its call tree on synthetic experiments whose
 * calls are known exactly: any 64-bit address is a function (0xffff... included), chains of
 * direct recursion folded (func_tree_build) with their calls, levels and times, and call trees
 * a million levels deep printed without recursion, in text that grows with the nodes.
 */
#include "synth-exp.h"

#include <errno.h>
#include <stdlib.h>

#include "model/experiment-open.h"
#include "analysis/profile/func-profile.h"
#include "view/func-print.h"
#include "model/symbols.h"

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

/* The node of T for ROW under PARENT (FUNC_NO_PARENT: a root of thread TH); it must be there
 * exactly once. */
static size_t node_of(const struct func_tree *t, size_t parent, size_t row, size_t th)
{
	size_t found = SIZE_MAX;

	for (size_t i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].parent != parent || t->nodes[i].row != row ||
		    (parent == FUNC_NO_PARENT && t->nodes[i].thread != th))
			continue;
		if (found != SIZE_MAX)
			fail_msg("row %zu twice under node %zu", row, parent);
		found = i;
	}
	if (found == SIZE_MAX)
		fail_msg("no node for row %zu under node %zu", row, parent);
	return found;
}

static size_t children(const struct func_tree *t, size_t node)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nnodes; i++)
		n += t->nodes[i].parent == node;
	return n;
}

/* Every node: inclusive time = exclusive time + its children's inclusive times. */
static void check_times(const struct func_tree *t)
{
	for (size_t i = 0; i < t->nnodes; i++) {
		int64_t kids = 0;

		for (size_t k = 0; k < t->nnodes; k++)
			if (t->nodes[k].parent == i)
				kids += t->nodes[k].incl_ns;
		assert_int_equal(t->nodes[i].incl_ns, t->nodes[i].excl_ns + kids);
	}
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

/*
 * main calls F, which recurses 20 levels deep (F1 .. F20); F3 and F7 call G, which calls H
 * from F7 only; main calls G directly too. Folded past 16 levels: main, F [20 levels] with
 * 20 calls, G under it with 2 calls and H under that G; G under main apart.
 */
static void test_fold_chain(void **state)
{
	struct trace tr = {0};
	struct fixture x;
	struct func_tree t;
	uint64_t f_in = 0, f_out = 0, g3_in = 0, g3_out = 0, g7_in = 0, g7_out = 0;
	size_t m, f, g, h, gm;

	(void)state;
	fixture_dir(&x);
	tr_call(&tr, 1, M);
	for (int level = 1; level <= 20; level++) {
		uint64_t t = tr_call(&tr, 1, F);

		if (level == 1)
			f_in = t;
		if (level == 3 || level == 7) {
			uint64_t gi = tr_call(&tr, 1, G), go;

			if (level == 7) {
				tr_call(&tr, 1, H);
				tr_call(&tr, 0, H);
			}
			go = tr_call(&tr, 0, G);
			if (level == 3)
				g3_in = gi, g3_out = go;
			else
				g7_in = gi, g7_out = go;
		}
	}
	for (int level = 20; level >= 1; level--)
		f_out = tr_call(&tr, 0, F);
	tr_call(&tr, 1, G);
	tr_call(&tr, 0, G);
	tr_call(&tr, 0, M);
	tr_write(x.dir, 100, &tr);
	build(&x);

	/* not folded: the tree as recorded, 20 levels of F */
	assert_int_equal(func_tree_build(&t, &x.merged, 0), 0);
	assert_int_equal(t.nnodes, x.merged.nnodes);
	assert_int_equal(t.nnodes, 1 + 20 + 2 + 1 + 1);
	assert_int_equal(t.folded, 0);
	for (size_t i = 0; i < t.nnodes; i++)
		assert_int_equal(t.levels[i], 1);
	check_times(&t);
	func_tree_release(&t);
	/* 20 levels are not more than 20: nothing folded */
	assert_int_equal(func_tree_build(&t, &x.merged, 20), 0);
	assert_int_equal(t.nnodes, 25);
	func_tree_release(&t);

	assert_int_equal(func_tree_build(&t, &x.merged, 16), 0);
	assert_int_equal(t.nnodes, 5);
	assert_int_equal(t.folded, 1);
	assert_int_equal(t.max_levels, 20);
	m = node_of(&t, FUNC_NO_PARENT, row_of(&x.merged, M), 0);
	f = node_of(&t, m, row_of(&x.merged, F), 0);
	g = node_of(&t, f, row_of(&x.merged, G), 0);
	h = node_of(&t, g, row_of(&x.merged, H), 0);
	gm = node_of(&t, m, row_of(&x.merged, G), 0);
	assert_int_equal(children(&t, f), 1); /* no F under F */
	assert_int_equal(t.levels[f], 20);
	assert_int_equal(t.levels[g], 1);
	assert_int_equal(t.nodes[f].calls, 20);
	assert_int_equal(t.nodes[g].calls, 2);
	assert_int_equal(t.nodes[h].calls, 1);
	assert_int_equal(t.nodes[gm].calls, 1);
	/* the outermost F's time; G's two calls summed */
	assert_int_equal(t.nodes[f].incl_ns, (int64_t)(f_out - f_in));
	assert_int_equal(t.nodes[g].incl_ns, (int64_t)(g3_out - g3_in + g7_out - g7_in));
	assert_int_equal(t.nodes[f].excl_ns, (int64_t)(f_out - f_in - t.nodes[g].incl_ns));
	check_times(&t);
	func_tree_release(&t);

	/* every chain of direct recursion: the same here */
	assert_int_equal(func_tree_build(&t, &x.merged, 1), 0);
	assert_int_equal(t.nnodes, 5);
	func_tree_release(&t);
	release(&x);
}

/*
 * G recurses 20 levels under main; G2 calls F recursing 18 levels, G5 calls F recursing 3
 * levels. Past 16 levels G folds, and F under it is one node whatever chain each call came
 * from: F's short chain folds with the long one (it shares its node), so no F is under F.
 */
static void test_fold_shared_node(void **state)
{
	struct trace tr = {0};
	struct fixture x;
	struct func_tree t;
	size_t m, g, f;

	(void)state;
	fixture_dir(&x);
	tr_call(&tr, 1, M);
	for (int level = 1; level <= 20; level++) {
		int depth = level == 2 ? 18 : level == 5 ? 3 : 0;

		tr_call(&tr, 1, G);
		for (int k = 0; k < depth; k++)
			tr_call(&tr, 1, F);
		for (int k = 0; k < depth; k++)
			tr_call(&tr, 0, F);
	}
	for (int level = 1; level <= 20; level++)
		tr_call(&tr, 0, G);
	tr_call(&tr, 0, M);
	tr_write(x.dir, 100, &tr);
	build(&x);
	assert_int_equal(func_tree_build(&t, &x.merged, 16), 0);
	assert_int_equal(t.nnodes, 3);
	m = node_of(&t, FUNC_NO_PARENT, row_of(&x.merged, M), 0);
	g = node_of(&t, m, row_of(&x.merged, G), 0);
	f = node_of(&t, g, row_of(&x.merged, F), 0);
	assert_int_equal(children(&t, f), 0);
	assert_int_equal(t.levels[g], 20);
	assert_int_equal(t.levels[f], 18);
	assert_int_equal(t.nodes[g].calls, 20);
	assert_int_equal(t.nodes[f].calls, 21);
	assert_int_equal(t.folded, 3); /* G's chain and F's two */
	check_times(&t);
	func_tree_release(&t);
	release(&x);
}

/* Per thread, a root per thread: two threads' chains fold apart. */
static void test_fold_per_thread(void **state)
{
	struct fixture x;
	struct func_tree t;

	(void)state;
	fixture_dir(&x);
	for (int tid = 100; tid <= 101; tid++) {
		struct trace tr = {0};

		for (int level = 0; level < 30 + tid - 100; level++)
			tr_call(&tr, 1, F);
		for (int level = 0; level < 30 + tid - 100; level++)
			tr_call(&tr, 0, F);
		tr_write(x.dir, tid, &tr);
	}
	build(&x);
	assert_int_equal(func_tree_build(&t, &x.p, 16), 0);
	assert_int_equal(t.nnodes, 2);
	assert_int_equal(t.folded, 2);
	assert_int_equal(t.max_levels, 31);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(t.nodes[i].parent, FUNC_NO_PARENT);
		assert_int_equal(t.levels[i], 30 + t.nodes[i].thread);
		assert_int_equal(t.nodes[i].calls, 30 + t.nodes[i].thread);
	}
	func_tree_release(&t);
	release(&x);
}

/* Two threads calling the same 50,000 functions (in opposite orders): 100,000 rows per thread,
 * 50,000 merged rows of 2 calls each, each function once. (Merging looked through every row
 * for each new function: 64k functions took 29 s; bench/README.md.) */
static void test_merge_many(void **state)
{
	const size_t n = 50000;
	struct fixture x;

	(void)state;
	fixture_dir(&x);
	for (int tid = 100; tid <= 101; tid++) {
		struct trace tr = {0};

		for (size_t i = 0; i < n; i++) {
			uint64_t a = 0x400000 + 16 * (tid == 100 ? i : n - 1 - i);

			tr_call(&tr, 1, a);
			tr_call(&tr, 0, a);
		}
		tr_write(x.dir, tid, &tr);
	}
	build(&x);
	assert_int_equal(x.p.nrows, 2 * n);
	assert_int_equal(x.merged.nrows, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(x.merged.rows[i].addr, 0x400000 + 16 * i);
		assert_int_equal(x.merged.rows[i].calls, 2);
		assert_int_equal(x.merged.rows[i].incl_ns, 2);
	}
	release(&x);
}

/* A FILE that counts what is written to it: bytes and lines. */
struct count {
	size_t bytes, lines;
};

static ssize_t count_write(void *c, const char *buf, size_t n)
{
	struct count *k = c;

	k->bytes += n;
	for (size_t i = 0; i < n; i++)
		k->lines += buf[i] == '\n';
	return (ssize_t)n;
}

static FILE *count_open(struct count *k)
{
	cookie_io_functions_t io = {.write = count_write};
	FILE *f;

	memset(k, 0, sizeof(*k));
	f = fopencookie(k, "w", io);
	assert_non_null(f);
	return f;
}

/* The tree of X's merged profile printed with FOLD into K. */
static void print_tree(struct fixture *x, uint64_t fold, struct count *k)
{
	struct func_report r = {.e = &x->e, .p = &x->merged, .fold_recursion = fold};
	FILE *f = count_open(k);

	assert_int_equal(func_print_tree(&r, OUT_TEXT, f, stderr), 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * A recursion a million levels deep: F calls F ... (and apart, F and G calling each other,
 * 100,000 levels). The tree is walked without recursion (the printer's own recursion overflowed
 * the stack here), folded by default into one line, and unfolded in lines of bounded length:
 * the text grows with the nodes, not with their depth squared (which is 10^12 bytes at this
 * depth, 1.6 GB at 50,000).
 */
static void test_deep(void **state)
{
	const size_t deep = 1000000, mutual = 100000;
	struct trace tr = {0};
	struct fixture x;
	struct count k;

	(void)state;
	fixture_dir(&x);
	for (size_t i = 0; i < deep; i++)
		tr_call(&tr, 1, F);
	for (size_t i = 0; i < deep; i++)
		tr_call(&tr, 0, F);
	tr_write(x.dir, 100, &tr);
	for (size_t i = 0; i < mutual; i++)
		tr_call(&tr, 1, i % 2 ? H : G);
	for (size_t i = mutual; i-- > 0;)
		tr_call(&tr, 0, i % 2 ? H : G);
	tr_write(x.dir, 101, &tr);
	build(&x);
	assert_int_equal(x.merged.nnodes, deep + mutual);

	/* by default: F is one line, G and H are not direct recursion: a line per level; the
	 * heading, the note on folding and the column titles come first */
	print_tree(&x, 0, &k);
	assert_int_equal(k.lines, 4 + 1 + mutual);
	assert_true(k.bytes < 4096 + 160 * (1 + mutual));
	print_tree(&x, FUNC_FOLD_NONE, &k);
	assert_int_equal(k.lines, 3 + deep + mutual);
	assert_true(k.bytes < 4096 + 160 * (deep + mutual));
	release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_any_address),	     cmocka_unit_test(test_fold_chain),
	    cmocka_unit_test(test_fold_shared_node), cmocka_unit_test(test_fold_per_thread),
	    cmocka_unit_test(test_merge_many),	     cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
