/*
 * test_select.c - two-pass instrumentation: selection by mean time and by exclusive time, gcc's
 * user-visible names and exclude keys (the expected names are what g++ 12 and gfortran 12
 * match, found by compiling with each candidate entry and reading the instrumented functions
 * back with objdump), and exclude lists with their exact entries, substring conflicts included.
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

#include "analysis/profile/select.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- selection ------------------------------------------------------------------------------ */

static void test_min_time_boundary(void **state)
{
	struct sel_func f[] = {
	    {.name = "exact", .named = 1, .calls = 4, .sum_ns = 4000000}, /* mean 1 ms */
	    {.name = "below", .named = 1, .calls = 4, .sum_ns = 3999999}, /* 999999.75 ns */
	    {.name = "above", .named = 1, .calls = 1, .sum_ns = 2000000},
	    {.name = "never", .named = 1, .calls = 0, .sum_ns = 0},
	    {.name = "huge", .named = 1, .calls = UINT64_MAX / 2, .sum_ns = INT64_MAX},
	};

	(void)state;
	assert_int_equal(select_min_time(f, N(f), 1000000), 2);
	assert_int_equal(f[0].selected, 1);
	assert_int_equal(f[1].selected, 0);
	assert_int_equal(f[2].selected, 1);
	assert_int_equal(f[3].selected, 0);
	assert_int_equal(f[4].selected, 0); /* mean 1 ns: no overflow in min * calls */
	assert_int_equal(select_min_time(f, N(f), 0), 4);
	assert_int_equal(f[3].selected, 0); /* never called: no mean */
}

static void test_top_by_exclusive(void **state)
{
	struct sel_func f[] = {
	    {.name = "c", .named = 1, .calls = 1, .excl_ns = 50},
	    {.name = "a", .named = 1, .calls = 9, .excl_ns = 300},
	    {.name = "b", .named = 1, .calls = 2, .excl_ns = 50},
	    {.name = "z", .named = 1, .calls = 0, .excl_ns = 0},
	    {.name = "d", .named = 1, .calls = 7, .excl_ns = 10},
	};

	(void)state;
	assert_int_equal(select_top(f, N(f), 2), 2);
	assert_int_equal(f[1].selected + f[2].selected, 2); /* a, then b before c (tie: name) */
	assert_int_equal(f[0].selected + f[3].selected + f[4].selected, 0);
	assert_int_equal(select_top(f, N(f), 10), 4); /* z was never called */
	assert_int_equal(f[3].selected, 0);
	assert_int_equal(select_top(f, N(f), 0), 0);
}

/* ---- names ------------------------------------------------------------------------------------
 */

struct name_case {
	const char *sym, *gcc, *key; /* NULL: -ENOENT */
};

static const struct name_case names[] = {
    {"fib", "fib", "fib"},
    {"fast.constprop.0", "fast", "fast"},
    {"slow.part.0", "slow", "slow"},
    {"__mm_MOD_work", "work", "work"},
    {"ext_", "ext", "ext"},
    {"tail__", "tail__", "tail__"},
    {"MAIN__", NULL, NULL},
    {"ns::C::method(int)", "ns::C::method", "ns::C::method"},
    {"ns::C::stat(double)", "ns::C::stat", "ns::C::stat"},
    {"int ns::tf<int>(int)", "ns::tf<int>", "ns::tf"},
    {"long ns::tf<long>(long)", "ns::tf<long>", "ns::tf"},
    {"(anonymous namespace)::anon(int)", "{anonymous}::anon", "{anonymous}::anon"},
    {"Vec<long>::get() const", "Vec<long>::get", ">::get"},
    {"Vec<long>::~Vec()", "Vec<long>::~Vec", ">::~Vec"},
    {"Vec<long>::operator<(Vec<long> const&) const", "Vec<long>::operator<", ">::operator<"},
    {"use(int)::{lambda(int)#1}::operator()(int) const", "use(int)::<lambda(int)>::operator()",
     ">::operator()"},
    {"f(int) [clone .isra.0]", "f", "f"},
    {"make[abi:cxx11](int)", "make", "make"},
    {"operator new(unsigned long)", "operator new", "operator new"},
    {"operator delete(void*)", "operator delete", "operator delete"},
    {"C::operator long() const", "C::operator long", "C::operator "},
    {"C::operator,(C const&) const", "C::operator,", "C::operator,"},
    {"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
     ">::_Alloc_hider::~_Alloc_hider()",
     "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
     ">::_Alloc_hider::~_Alloc_hider",
     ">::_Alloc_hider::~_Alloc_hider"},
    {"", NULL, NULL},
};

static void test_gcc_names(void **state)
{
	char buf[256];

	(void)state;
	for (size_t i = 0; i < N(names); i++) {
		int r = sel_gcc_name(names[i].sym, buf, sizeof(buf));

		if (!names[i].gcc) {
			assert_int_equal(r, -ENOENT);
			continue;
		}
		assert_int_equal(r, (int)strlen(names[i].gcc));
		assert_string_equal(buf, names[i].gcc);
	}
	assert_int_equal(sel_gcc_name("ns::C::method(int)", buf, 5), -ENAMETOOLONG);
	assert_int_equal(sel_gcc_name(NULL, buf, sizeof(buf)), -ENOENT);
}

static void test_exclude_keys(void **state)
{
	char buf[256];

	(void)state;
	for (size_t i = 0; i < N(names); i++) {
		int r = sel_exclude_key(names[i].sym, buf, sizeof(buf));

		if (!names[i].key) {
			assert_int_equal(r, -ENOENT);
			continue;
		}
		assert_int_equal(r, (int)strlen(names[i].key));
		assert_string_equal(buf, names[i].key);
	}
}

/* ---- plans ------------------------------------------------------------------------------------
 */

static void assert_list(char *const *got, size_t n, const char *const *want, size_t nwant)
{
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

/* Build, check (nothing lost, only the kept ones uncovered) and return the options. */
static char *plan(struct sel_plan *p, struct sel_func *f, size_t n)
{
	size_t lost, uncovered;
	char *opts;

	assert_int_equal(sel_plan_build(p, f, n), 0);
	assert_int_equal(sel_plan_check(p, f, n, &lost, &uncovered), 0);
	assert_int_equal(lost, 0);
	assert_int_equal(uncovered, p->nkept);
	opts = sel_plan_gcc_options(p);
	assert_non_null(opts);
	return opts;
}

static void test_plan_one_file(void **state)
{
	struct sel_func f[] = {
	    {.name = "main", .file = "/t/p.c", .named = 1, .selected = 1},
	    {.name = "slow_a", .file = "/t/p.c", .named = 1, .selected = 1},
	    {.name = "fast_x", .file = "/t/p.c", .named = 1},
	    {.name = "fast_y.constprop.0", .file = "/t/p.c", .named = 1},
	    {.name = "fast", .file = "/t/p.c", .named = 1},
	    {.name = "slow_b", .file = "/t/p.c", .named = 1, .selected = 1},
	};
	const char *want[] = {"fast"}; /* covers fast_x and fast_y */
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_int_equal(p.nfiles, 0);
	assert_int_equal(p.nkept, 0);
	assert_string_equal(
	    opts, "-finstrument-functions -finstrument-functions-exclude-function-list=fast");
	free(opts);
	sel_plan_release(&p);
}

/* Selected fib2 contains the unselected fib: fib cannot be excluded without losing fib2. */
static void test_plan_conflict(void **state)
{
	struct sel_func f[] = {
	    {.name = "fib", .file = "/t/p.c", .named = 1},
	    {.name = "fib2", .file = "/t/p.c", .named = 1, .selected = 1},
	    {.name = "helper", .file = "/t/p.c", .named = 1},
	};
	const char *want[] = {"helper"};
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_int_equal(p.nkept, 1);
	assert_int_equal(p.kept[0].func, 0);
	assert_int_equal(p.kept[0].selected, 1);
	assert_int_equal(p.kept[0].reason, SEL_KEEP_CONFLICT);
	assert_string_equal(
	    opts, "-finstrument-functions -finstrument-functions-exclude-function-list=helper");
	free(opts);
	sel_plan_release(&p);
}

/* The other way round is fine: excluding fib2 leaves fib alone. */
static void test_plan_no_conflict(void **state)
{
	struct sel_func f[] = {
	    {.name = "fib", .file = "/t/p.c", .named = 1, .selected = 1},
	    {.name = "fib2", .file = "/t/p.c", .named = 1},
	};
	const char *want[] = {"fib2"};
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_int_equal(p.nkept, 0);
	free(opts);
	sel_plan_release(&p);
}

/* Files without a selected function go by base name, which also solves a name conflict. */
static void test_plan_files(void **state)
{
	struct sel_func f[] = {
	    {.name = "main", .file = "/t/src/main.c", .named = 1, .selected = 1},
	    {.name = "fib2", .file = "/t/src/main.c", .named = 1, .selected = 1},
	    {.name = "tiny", .file = "/t/src/main.c", .named = 1},
	    {.name = "fib", .file = "/t/src/util.c", .named = 1},
	    {.name = "add", .file = "/t/src/util.c", .named = 1},
	    {.name = "inl", .file = "/t/include/util.h", .named = 1},
	    {.name = "mystery", .file = "", .named = 0},
	};
	const char *want_funcs[] = {"tiny"};
	const char *want_files[] = {"util.c", "util.h"};
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want_funcs, N(want_funcs));
	assert_list(p.files, p.nfiles, want_files, N(want_files));
	assert_int_equal(p.nkept, 1);
	assert_int_equal(p.kept[0].func, 6);
	assert_int_equal(p.kept[0].reason, SEL_KEEP_UNNAMED);
	assert_string_equal(opts, "-finstrument-functions "
				  "-finstrument-functions-exclude-function-list=tiny "
				  "-finstrument-functions-exclude-file-list=util.c,util.h");
	free(opts);
	sel_plan_release(&p);
}

/* A base name inside a selected function's path, or a selected function of unknown file: no
 * file entries, names only. */
static void test_plan_files_unusable(void **state)
{
	struct sel_func f[] = {
	    {.name = "main", .file = "/t/src/myutil.c", .named = 1, .selected = 1},
	    {.name = "add", .file = "/t/src/util.c", .named = 1},
	    {.name = "sub", .file = "/t/src/util.c", .named = 1},
	};
	const char *want[] = {"add", "sub"};
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_int_equal(p.nfiles, 0);
	free(opts);
	sel_plan_release(&p);

	f[0].file = "/t/src/main.c";
	opts = plan(&p, f, N(f));
	assert_int_equal(p.nfuncs, 0);
	assert_int_equal(p.nfiles, 1);
	assert_string_equal(p.files[0], "util.c");
	free(opts);
	sel_plan_release(&p);

	f[0].file = "";
	opts = plan(&p, f, N(f));
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_int_equal(p.nfiles, 0);
	free(opts);
	sel_plan_release(&p);
}

/* C++: keys free of template spellings, a comma escaped and the word quoted for the shell. */
static void test_plan_cxx(void **state)
{
	struct sel_func f[] = {
	    {.name = "Vec<long>::get() const", .file = "/t/a.cc", .named = 1, .selected = 1},
	    {.name = "Vec<long>::size() const", .file = "/t/a.cc", .named = 1},
	    {.name = "C::operator,(C const&) const", .file = "/t/a.cc", .named = 1},
	    {.name = "int ns::tf<int>(int)", .file = "/t/a.cc", .named = 1},
	    {.name = "long ns::tf<long>(long)", .file = "/t/a.cc", .named = 1},
	};
	const char *want[] = {">::size", "C::operator,", "ns::tf"};
	struct sel_plan p;
	char *opts = plan(&p, f, N(f));

	(void)state;
	assert_list(p.funcs, p.nfuncs, want, N(want));
	assert_string_equal(opts, "-finstrument-functions "
				  "'-finstrument-functions-exclude-function-list=>::size,"
				  "C::operator\\,,ns::tf'");
	free(opts);
	sel_plan_release(&p);
}

/* Many numbered names (f7 is inside f17 and f170): the kept functions are exactly those whose
 * name is inside a selected one, found here by brute force. */
static void test_plan_many(void **state)
{
	enum { NF = 3000 };
	struct sel_func *f = calloc(NF, sizeof(*f));
	char(*names)[16] = calloc(NF, sizeof(*names));
	size_t want_kept = 0;
	struct sel_plan p;
	char *opts;

	(void)state;
	assert_non_null(f);
	assert_non_null(names);
	for (size_t i = 0; i < NF; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		f[i] = (struct sel_func){.name = names[i], .file = "/t/m.c", .named = 1};
		f[i].selected = i % 97 == 5;
	}
	for (size_t i = 0; i < NF; i++) {
		int inside = 0;

		for (size_t j = 0; j < NF && !inside && !f[i].selected; j++)
			inside = f[j].selected && strstr(names[j], names[i]) != NULL;
		want_kept += (size_t)inside;
	}
	opts = plan(&p, f, NF);
	assert_int_equal(p.nkept, want_kept);
	for (size_t k = 0; k < p.nkept; k++) {
		assert_int_equal(p.kept[k].reason, SEL_KEEP_CONFLICT);
		assert_true(f[p.kept[k].selected].selected);
		assert_non_null(strstr(names[p.kept[k].selected], names[p.kept[k].func]));
	}
	free(opts);
	sel_plan_release(&p);
	free(names);
	free(f);
}

/* A list too long for one argument (the kernel's limit is 128 KiB) is split over several
 * options, which gcc adds up; every entry is in exactly one. */
static void test_options_split(void **state)
{
	enum { NE = 4000 };
	char **funcs = calloc(NE, sizeof(*funcs));
	struct sel_plan p = {.funcs = funcs, .nfuncs = NE};
	const char *opt = "-finstrument-functions-exclude-function-list=";
	size_t words = 0, entries = 0;
	char *opts, *save = NULL;

	(void)state;
	assert_non_null(funcs);
	for (size_t i = 0; i < NE; i++) {
		funcs[i] = malloc(48);
		assert_non_null(funcs[i]);
		snprintf(funcs[i], 48, "function_with_a_rather_long_name_%05zu", i);
	}
	opts = sel_plan_gcc_options(&p);
	assert_non_null(opts);
	for (char *w = strtok_r(opts, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		assert_true(strlen(w) < 131072);
		if (strncmp(w, opt, strlen(opt)))
			continue;
		words++;
		entries++;
		for (const char *c = w; *c; c++)
			entries += *c == ',';
	}
	assert_int_equal(entries, NE);
	assert_int_equal(words, 3); /* 4000 x 39 bytes in words of at most 64 KiB */
	free(opts);
	for (size_t i = 0; i < NE; i++)
		free(funcs[i]);
	free(funcs);
}

/* A broken plan is caught by the check: an entry inside a selected name, a function missed. */
static void test_check_catches(void **state)
{
	struct sel_func f[] = {
	    {.name = "fib2", .file = "/t/p.c", .named = 1, .selected = 1},
	    {.name = "fib", .file = "/t/p.c", .named = 1},
	    {.name = "other", .file = "/t/q.c", .named = 1},
	};
	char *funcs[] = {"fib"};
	char *gcc_names[] = {"fib2", "fib", "other"};
	struct sel_plan p = {.funcs = funcs, .nfuncs = 1, .gcc_names = gcc_names, .n = 3};
	size_t lost, uncovered;

	(void)state;
	assert_int_equal(sel_plan_check(&p, f, N(f), &lost, &uncovered), 0);
	assert_int_equal(lost, 1);
	assert_int_equal(uncovered, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_min_time_boundary),	cmocka_unit_test(test_top_by_exclusive),
	    cmocka_unit_test(test_gcc_names),		cmocka_unit_test(test_exclude_keys),
	    cmocka_unit_test(test_plan_one_file),	cmocka_unit_test(test_plan_conflict),
	    cmocka_unit_test(test_plan_no_conflict),	cmocka_unit_test(test_plan_files),
	    cmocka_unit_test(test_plan_files_unusable), cmocka_unit_test(test_plan_cxx),
	    cmocka_unit_test(test_plan_many),		cmocka_unit_test(test_options_split),
	    cmocka_unit_test(test_check_catches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
