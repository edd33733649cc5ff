/*
 * test_sample_calltree.c - call trees from sampled call paths
 * (src/analysis/profile/sample-callers.h) on hand-made paths with exact counts: the top-down tree's
 * inclusive and self samples per call path, children ordered by inclusive samples; per function the
 * inclusive count takes a sample once even when the function recurs on its path; the callers tree
 * of a function counts each sample through its outermost occurrence. And the kernel symbols file
 * (kallsyms.h): only text symbols are saved, hidden addresses (kptr_restrict) save nothing, lookups
 * find the symbol at or below an address and prefer a name without a leading underscore among
 * aliases; a save that cannot copy leaves no older copy behind. --min-share on the printed trees:
 * exact rows kept, and the count of hidden nodes (a hidden node's subtree counted with it).
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
#include <sys/stat.h>
#include <unistd.h>

#include "lib/jsonw.h"
#include "model/kallsyms.h"
#include "view/sample-print.h"
#include "analysis/profile/sample-callers.h"

enum { MAIN, A, B, SPIN, F, NFUNCS };

static const char *const names[NFUNCS] = {"main", "a", "b", "spin", "f"};

/* The child of NODE that is function FUNC, or UINT32_MAX. */
static uint32_t child(const struct scall_tree *t, uint32_t node, uint32_t func)
{
	for (uint32_t c = t->nodes[node].first_child; c != UINT32_MAX; c = t->nodes[c].next_sibling)
		if (t->nodes[c].func == func)
			return c;
	return UINT32_MAX;
}

static void add(struct scall_tree *t, const uint32_t *path, size_t n, int times)
{
	for (int i = 0; i < times; i++)
		assert_int_equal(scall_add(t, path, n, 10), 0);
}

/* T with the functions of names[] and no samples yet. */
static void build_empty(struct scall_tree *t)
{
	uint32_t id;

	assert_int_equal(scall_init(t), 0);
	for (uint32_t i = 0; i < NFUNCS; i++) {
		assert_int_equal(scall_func_id(t, names[i], "/bin/x", &id), 0);
		assert_int_equal(id, i);
	}
}

/*
 * 3 x main>a>spin, 6 x main>b>spin, 1 x main>a (in a itself), 2 x main>f>f>f: 12 samples of
 * 10 ns each.
 */
static void build(struct scall_tree *t)
{
	static const uint32_t p1[] = {MAIN, A, SPIN}, p2[] = {MAIN, B, SPIN}, p3[] = {MAIN, A},
			      p4[] = {MAIN, F, F, F};
	uint32_t id;

	build_empty(t);
	/* the same name and module is the same function */
	assert_int_equal(scall_func_id(t, "spin", "/bin/x", &id), 0);
	assert_int_equal(id, SPIN);
	add(t, p1, 3, 3);
	add(t, p2, 3, 6);
	add(t, p3, 2, 1);
	add(t, p4, 4, 2);
	assert_int_equal(scall_sort(t), 0);
}

static void test_functions(void **state)
{
	static const uint64_t incl[NFUNCS] = {12, 4, 6, 9, 2}, self[NFUNCS] = {0, 1, 0, 9, 2};
	struct scall_tree t;

	(void)state;
	build(&t);
	assert_int_equal(t.paths, 12);
	assert_int_equal(t.nodes[0].samples, 12);
	assert_int_equal(t.nodes[0].time_ns, 120);
	for (int i = 0; i < NFUNCS; i++) {
		assert_int_equal(t.funcs[i].incl, incl[i]);
		assert_int_equal(t.funcs[i].self, self[i]);
		assert_int_equal(t.funcs[i].incl_ns, 10 * incl[i]);
		assert_int_equal(t.funcs[i].self_ns, 10 * self[i]);
	}
	assert_int_equal(scall_find(&t, "spin"), SPIN);
	assert_int_equal(scall_find(&t, "nosuch"), -1);
	/* an index outside the functions is refused */
	assert_int_equal(scall_add(&t, (const uint32_t[]){NFUNCS}, 1, 1), -EINVAL);
	scall_release(&t);
}

static void test_tree(void **state)
{
	struct scall_tree t;
	uint32_t m, a, b, f, n, c;

	(void)state;
	build(&t);
	/* one root function, main, with all samples */
	m = t.nodes[0].first_child;
	assert_int_equal(t.nodes[m].func, MAIN);
	assert_int_equal(t.nodes[m].next_sibling, UINT32_MAX);
	assert_int_equal(t.nodes[m].samples, 12);
	assert_int_equal(t.nodes[m].self, 0);
	/* main's callees by inclusive samples: b 6, a 4, f 2 */
	b = t.nodes[m].first_child;
	a = t.nodes[b].next_sibling;
	f = t.nodes[a].next_sibling;
	assert_int_equal(t.nodes[b].func, B);
	assert_int_equal(t.nodes[a].func, A);
	assert_int_equal(t.nodes[f].func, F);
	assert_int_equal(t.nodes[f].next_sibling, UINT32_MAX);
	assert_int_equal(t.nodes[b].samples, 6);
	assert_int_equal(t.nodes[a].samples, 4);
	assert_int_equal(t.nodes[a].self, 1);
	assert_int_equal(t.nodes[a].time_ns, 40);
	/* spin under both a and b */
	c = child(&t, a, SPIN);
	assert_int_not_equal(c, UINT32_MAX);
	assert_int_equal(t.nodes[c].samples, 3);
	assert_int_equal(t.nodes[c].self, 3);
	c = child(&t, b, SPIN);
	assert_int_not_equal(c, UINT32_MAX);
	assert_int_equal(t.nodes[c].samples, 6);
	assert_int_equal(t.nodes[c].self_ns, 60);
	/* recursion: one node per depth, f > f > f, 2 samples each, self at the deepest */
	n = f;
	for (int depth = 0; depth < 3; depth++) {
		assert_int_equal(t.nodes[n].func, F);
		assert_int_equal(t.nodes[n].samples, 2);
		assert_int_equal(t.nodes[n].self, depth == 2 ? 2 : 0);
		c = t.nodes[n].first_child;
		if (depth < 2)
			n = c;
		else
			assert_int_equal(c, UINT32_MAX);
	}
	/* root, main, a, spin, b, spin, f, f, f */
	assert_int_equal(t.nnodes, 9);
	scall_release(&t);
}

static void test_callers(void **state)
{
	struct scall_tree t, c;
	uint32_t s, b, a, m, f;

	(void)state;
	build(&t);
	assert_int_equal(scall_callers(&t, SPIN, &c), 0);
	assert_int_equal(scall_sort(&c), 0);
	assert_int_equal(c.nodes[0].samples, 9);
	s = c.nodes[0].first_child;
	assert_int_equal(c.nodes[s].func, SPIN);
	assert_int_equal(c.nodes[s].samples, 9);
	assert_int_equal(c.nodes[s].next_sibling, UINT32_MAX);
	b = c.nodes[s].first_child;
	a = c.nodes[b].next_sibling;
	assert_int_equal(c.nodes[b].func, B);
	assert_int_equal(c.nodes[b].samples, 6);
	assert_int_equal(c.nodes[a].func, A);
	assert_int_equal(c.nodes[a].samples, 3);
	assert_int_equal(c.nodes[a].time_ns, 30);
	m = c.nodes[a].first_child;
	assert_int_equal(c.nodes[m].func, MAIN);
	assert_int_equal(c.nodes[m].samples, 3);
	assert_int_equal(c.nodes[m].first_child, UINT32_MAX);
	assert_string_equal(c.funcs[c.nodes[m].func].name, "main");
	scall_release(&c);

	/* a recursive function: its outermost occurrence, so main is its only caller */
	assert_int_equal(scall_callers(&t, F, &c), 0);
	f = c.nodes[0].first_child;
	assert_int_equal(c.nodes[f].func, F);
	assert_int_equal(c.nodes[f].samples, 2);
	m = c.nodes[f].first_child;
	assert_int_equal(c.nodes[m].func, MAIN);
	assert_int_equal(c.nodes[m].samples, 2);
	assert_int_equal(c.nodes[m].next_sibling, UINT32_MAX);
	scall_release(&c);

	/* a, with its own sample and its 3 through spin */
	assert_int_equal(scall_callers(&t, A, &c), 0);
	a = c.nodes[0].first_child;
	assert_int_equal(c.nodes[a].samples, 4);
	assert_int_equal(c.nodes[c.nodes[a].first_child].samples, 4);
	scall_release(&c);
	scall_release(&t);
}

/* What sample_print_tree (or with CALLERS sample_print_callers) prints for R, in a string. */
static char *print_tree(struct sample_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(r->callers ? sample_print_callers(r, f, 0, NULL) : sample_print_tree(r, f),
			 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_min_share(void **state)
{
	struct sample_profile p;
	struct sample_report r = {.p = &p, .tree = 1, .min_share = 20};
	char *text;

	(void)state;
	memset(&p, 0, sizeof(p));
	build(&p.calls);
	/* main 12 (100 %), b 6 (50 %) > spin 6, a 4 (33.3 %) > spin 3 (25 %) kept; f 2 (16.7 %)
	 * hidden with its f > f below: 3 nodes */
	text = print_tree(&r);
	assert_string_equal(text, "Call tree from the samples' call chains (callees by inclusive "
				  "samples):\n"
				  "    samples     incl.      self   est. time  function\n"
				  "         12   100.0 %     0.0 %      120 ns  main\n"
				  "          6    50.0 %     0.0 %     60.0 ns    b\n"
				  "          6    50.0 %    50.0 %     60.0 ns      spin\n"
				  "          4    33.3 %     8.3 %     40.0 ns    a\n"
				  "          3    25.0 %    25.0 %     30.0 ns      spin\n");
	free(text);
	assert_int_equal(sample_report_hidden(&r), 3);
	/* at exactly a node's share it stays: 25 % keeps a > spin; 25.1 % hides it too */
	r.min_share = 25;
	assert_int_equal(sample_report_hidden(&r), 3);
	r.min_share = 25.1;
	assert_int_equal(sample_report_hidden(&r), 4);
	/* --min-time prunes first: what it hides is not counted again */
	r.min_ns = 35;
	assert_int_equal(sample_report_hidden(&r), 0);
	r.min_ns = 0;
	{
		/* main > a 9 (75 %); main > f 3 (25 %, 30 ns) > spin 1 (10 ns): at 30 % f goes, and
		 * with --min-time 15ns its spin was hidden already, so only f counts */
		static const uint32_t ma[] = {MAIN, A}, mf[] = {MAIN, F}, mfs[] = {MAIN, F, SPIN};
		struct sample_profile q;
		struct sample_report rq = {.p = &q, .tree = 1, .min_share = 30};

		memset(&q, 0, sizeof(q));
		build_empty(&q.calls);
		add(&q.calls, ma, 2, 9);
		add(&q.calls, mf, 2, 2);
		add(&q.calls, mfs, 3, 1);
		assert_int_equal(scall_sort(&q.calls), 0);
		assert_int_equal(sample_report_hidden(&rq), 2);
		rq.min_ns = 15;
		assert_int_equal(sample_report_hidden(&rq), 1);
		scall_release(&q.calls);
	}

	/* callers of spin (9 samples of 12): spin 75 %, b 50 % > main 50 %, a 25 % > main 25 % */
	r.tree = 0;
	r.callers = "spin";
	r.min_share = 30;
	text = print_tree(&r);
	assert_string_equal(text,
			    "Callers of spin (each line called the one above it; shares of all "
			    "samples):\n"
			    "    samples     incl.   est. time  function\n"
			    "          9    75.0 %     90.0 ns  spin\n"
			    "          6    50.0 %     60.0 ns    b\n"
			    "          6    50.0 %     60.0 ns      main\n");
	free(text);
	assert_int_equal(sample_report_hidden(&r), 2);
	/* no --min-share: nothing hidden */
	r.min_share = 0;
	assert_int_equal(sample_report_hidden(&r), 0);
	scall_release(&p.calls);
}

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

/* 50,000 functions, two of them with the same name in two modules: each its own id, found
 * again by name and module, with a few comparisons of names each (the index looked through
 * every function for each new one: 1.25 * 10^9 comparisons here). Counted, not timed. */
static void test_many_functions(void **state)
{
	const size_t n = 50000;
	char **names = calloc(n, sizeof(*names));
	struct scall_tree t;
	uint32_t id;

	(void)state;
	assert_non_null(names);
	assert_int_equal(scall_init(&t), 0);
	strcmp_calls = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(asprintf(&names[i], "f%zu", i) > 0);
		assert_int_equal(scall_func_id(&t, names[i], "/bin/x", &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(scall_func_id(&t, names[7], "/lib/y", &id), 0);
	assert_int_equal(id, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(scall_func_id(&t, names[i], "/bin/x", &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(scall_func_id(&t, names[7], "/lib/y", &id), 0);
	assert_int_equal(id, n);
	assert_int_equal(t.nfuncs, n + 1);
	/* the lookups above: 2 n + 2, each comparing names and modules of equal hashes only */
	assert_true(strcmp_calls <= 4 * (2 * n + 2));
	scall_release(&t);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A FILE that counts the bytes and lines written to it. */
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

/*
 * One sample whose call chain is 200,000 frames deep (a and b calling each other, then spin):
 * the trees are walked without recursion (theirs overflowed the stack), a line per frame of
 * bounded length (the depth past 32 levels written, not indented), and the callers tree's
 * JSON, nested as deep, linear in size.
 */
static void test_deep_chain(void **state)
{
	const size_t depth = 200000;
	uint32_t *path = malloc((depth + 1) * sizeof(*path));
	struct sample_profile p;
	struct sample_report r = {.p = &p, .tree = 1, .min_share = 0.5};
	struct count k;
	struct jsonw w;
	const char *text;
	FILE *f;

	(void)state;
	assert_non_null(path);
	memset(&p, 0, sizeof(p));
	build_empty(&p.calls);
	for (size_t i = 0; i < depth; i++)
		path[i] = i % 2 ? B : A;
	path[depth] = SPIN;
	assert_int_equal(scall_add(&p.calls, path, depth + 1, 10), 0);
	assert_int_equal(scall_add(&p.calls, path, 2, 10), 0);
	assert_int_equal(scall_sort(&p.calls), 0);
	f = count_open(&k);
	assert_int_equal(sample_print_tree(&r, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(k.lines, 2 + depth + 1);
	assert_true(k.bytes < 4096 + 128 * depth);
	assert_int_equal(sample_report_hidden(&r), 0);
	r.min_share = 60; /* a > b, the second sample's path, is 100 %; below it 50 % */
	assert_int_equal(sample_report_hidden(&r), depth + 1 - 2);
	r.min_share = 0;

	/* the callers of spin: spin, then the whole chain up to the outermost a */
	r.tree = 0;
	r.callers = "spin";
	f = count_open(&k);
	assert_int_equal(sample_print_callers(&r, f, 0, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(k.lines, 2 + depth + 1);
	assert_true(k.bytes < 4096 + 128 * depth);
	f = count_open(&k);
	assert_int_equal(sample_print_callers(&r, f, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(k.lines, 1 + depth + 1);
	jsonw_init(&w, 1);
	assert_int_equal(sample_print_callers(&r, NULL, 0, &w), 0);
	text = jsonw_text(&w);
	assert_non_null(text);
	assert_true(strlen(text) < 4096 + 1024 * depth);
	/* closed as deep as it was opened */
	assert_int_equal(w.depth, 0);
	jsonw_release(&w);
	scall_release(&p.calls);
	free(path);
}

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/psc-calltree-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_kallsyms(void **state)
{
	char proc[128], exp[128], path[160], why[256];
	struct kallsyms k;
	const struct kallsym *s;

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", tmpdir);
	snprintf(exp, sizeof(exp), "%s/exp", tmpdir);
	assert_int_equal(mkdir(proc, 0755), 0);
	assert_int_equal(mkdir(exp, 0755), 0);
	snprintf(path, sizeof(path), "%s/kallsyms", proc);
	/* hidden addresses: nothing saved */
	write_file(path, "0000000000000000 T _text\n0000000000000000 t foo\n");
	assert_int_equal(kallsyms_save(proc, exp, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "kptr_restrict"));
	assert_int_equal(kallsyms_load(&k, exp, why, sizeof(why)), 0);
	assert_true(k.missing);
	assert_null(kallsyms_find(&k, 0xffffffff81000000ull));
	kallsyms_release(&k);
	/* text kept (unsorted modules too), data (D, b, r) left out */
	write_file(path, "ffffffffc0001000 t modfn\t[mod]\n"
			 "ffffffff81000000 T _text\n"
			 "ffffffff81000000 T startup\n"
			 "ffffffff81000080 D some_data\n"
			 "ffffffff81000100 t foo\n"
			 "ffffffff82000000 b some_bss\n"
			 "ffffffff81000200 W weakfn\n");
	assert_int_equal(kallsyms_save(proc, exp, why, sizeof(why)), 0);
	assert_int_equal(kallsyms_load(&k, exp, why, sizeof(why)), 0);
	assert_false(k.missing);
	assert_int_equal(k.n, 5);
	assert_null(kallsyms_find(&k, 0xffffffff80ffffffull));
	s = kallsyms_find(&k, 0xffffffff81000050ull);
	assert_non_null(s);
	assert_string_equal(s->name, "startup");
	assert_string_equal(kallsyms_find(&k, 0xffffffff81000100ull)->name, "foo");
	assert_string_equal(kallsyms_find(&k, 0xffffffff810001ffull)->name, "foo");
	assert_string_equal(kallsyms_find(&k, 0xffffffff81000300ull)->name, "weakfn");
	assert_string_equal(kallsyms_find(&k, 0xffffffffc0001010ull)->name, "modfn [mod]");
	/* far above the last symbol: not the kernel's */
	assert_null(kallsyms_find(&k, 0xffffffffc0001000ull + (32u << 20)));
	kallsyms_release(&k);
	/* a later save into the same directory that cannot copy removes the old copy */
	write_file(path, "0000000000000000 T _text\n");
	assert_int_equal(kallsyms_save(proc, exp, why, sizeof(why)), -EPERM);
	assert_int_equal(kallsyms_load(&k, exp, why, sizeof(why)), 0);
	assert_true(k.missing);
	kallsyms_release(&k);
	write_file(path, "ffffffff81000000 T _text\n");
	assert_int_equal(kallsyms_save(proc, exp, why, sizeof(why)), 0);
	/* a malformed file is said */
	snprintf(path, sizeof(path), "%s/kallsyms", exp);
	write_file(path, "ffffffff81000000 T _text\nnot a symbol line\n");
	assert_int_equal(kallsyms_load(&k, exp, why, sizeof(why)), -EINVAL);
	assert_true(!strncmp(why, path, strlen(path)));
	assert_string_equal(why + strlen(path),
			    ": line 2: expected 'ADDRESS TYPE NAME' (a copy of /proc/kallsyms)");
	assert_null(k.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_functions),  cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_callers),    cmocka_unit_test(test_min_share),
	    cmocka_unit_test(test_deep_chain), cmocka_unit_test(test_many_functions),
	    cmocka_unit_test(test_kallsyms),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
