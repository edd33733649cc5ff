/*
 * test_symbols.c - maps parsing (maps.h) and symbol resolution (symbols.h) on real processes:
 * this test's own maps, a C++ library it opens with dlopen, a small program built as a PIE and
 * as a position-dependent executable (tests/data/sym), and hand-written maps files with
 * overlapping snapshots and damaged lines.
 *
 * Expected values come from outside the code under test: names and lines from this source
 * (__LINE__, __FILE__), load bases from dladdr(), module paths from realpath().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/maps.h"
#include "model/symbols.h"

#define NOINLINE __attribute__((noinline))

/* ---- functions whose addresses are resolved ------------------------------------------------- */

static unsigned where_line;

NOINLINE void *sym_where(unsigned line)
{
	where_line = line;
	return __builtin_return_address(0);
}

static const unsigned target_line = __LINE__ + 1;
NOINLINE int sym_target(int x)
{
	return x * 11 + 5;
}

static const unsigned caller_line = __LINE__ + 1;
NOINLINE void *sym_caller(void)
{
	void *ra = sym_where(__LINE__);

	__asm__ volatile("" ::: "memory");
	return ra;
}

/* Code inlined into another function: its call of sym_where lies in DWARF's inlined scope. */
static inline __attribute__((always_inline)) void *sym_inlined_body(void)
{
	return sym_where(__LINE__);
}

NOINLINE void *sym_inliner(void)
{
	void *ra = sym_inlined_body();

	__asm__ volatile("" ::: "memory");
	return ra;
}

/* Looks mangled but is not: the name must come back unchanged. */
NOINLINE int _Zpsc_not_mangled(int x)
{
	return x - 9;
}

/* ---- helpers -------------------------------------------------------------------------------- */

static char *make_dir(void)
{
	char tmpl[] = "/tmp/psc-sym-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return strdup(tmpl);
}

static void remove_dir(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
	free(dir);
}

static void write_file(const char *dir, const char *name, const char *text, size_t len, int append)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, append ? "a" : "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Appends this process's /proc/self/maps (after `header` if not NULL) to dir/maps.<pid>. */
static void snapshot_maps(const char *dir, const char *header)
{
	char name[64], buf[65536];
	FILE *in = fopen("/proc/self/maps", "r");
	size_t n;

	assert_non_null(in);
	snprintf(name, sizeof(name), "maps.%d", (int)getpid());
	if (header)
		write_file(dir, name, header, strlen(header), 1);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		write_file(dir, name, buf, n, 1);
	fclose(in);
}

static uint64_t addr_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The load base of the module holding p, as the dynamic linker knows it. */
static uint64_t load_base(const void *p)
{
	Dl_info info;

	assert_int_not_equal(dladdr(p, &info), 0);
	return addr_of(info.dli_fbase);
}

static void assert_unknown(struct symtab *st, pid_t pid, unsigned image, uint64_t addr)
{
	struct sym_info si;
	char want[64];

	assert_int_equal(symtab_lookup(st, pid, image, addr, &si), 0);
	snprintf(want, sizeof(want), "[unknown]+0x%" PRIx64, addr);
	assert_string_equal(si.name, want);
	assert_string_equal(si.module, "");
	assert_int_equal(si.offset, addr);
	assert_int_equal(si.known, 0);
	assert_int_equal(si.line, 0);
}

/* An address of a module without a usable symbol: "<base name>+0x<offset>". */
static void assert_module_offset(struct symtab *st, pid_t pid, uint64_t addr, const char *name,
				 const char *module, uint64_t offset)
{
	struct sym_info si;

	assert_int_equal(symtab_lookup(st, pid, 0, addr, &si), 0);
	assert_string_equal(si.name, name);
	assert_string_equal(si.module, module);
	assert_int_equal(si.offset, offset);
	assert_int_equal(si.known, 0);
	assert_int_equal(si.start, 0);
}

/* ---- this process --------------------------------------------------------------------------- */

static void test_self(void **state)
{
	char *dir = make_dir(), exe[PATH_MAX];
	uint64_t fn = addr_of((void *)sym_target), caller = addr_of((void *)sym_caller);
	uint64_t ra = addr_of(sym_caller()), base = load_base((void *)sym_target), off, ira;
	struct sym_info si, again;
	struct symtab st;

	(void)state;
	assert_non_null(realpath("/proc/self/exe", exe));
	snapshot_maps(dir, NULL);
	assert_int_equal(symtab_init(&st, dir), 0);

	/* a function's first address */
	assert_int_equal(symtab_lookup(&st, getpid(), 0, fn, &si), 0);
	assert_string_equal(si.name, "sym_target");
	assert_string_equal(si.module, exe);
	assert_int_equal(si.offset, fn - base);
	assert_int_equal(si.start, fn);
	assert_int_equal(si.known, 1);
	assert_string_equal(si.file, __FILE__);
	assert_string_equal(si.func_file, __FILE__);
	assert_int_equal(si.func_line, target_line);

	/* the call instruction inside another function: its exact line */
	assert_int_equal(symtab_lookup(&st, getpid(), 0, ra - 1, &si), 0);
	assert_string_equal(si.name, "sym_caller");
	assert_int_equal(si.start, caller);
	assert_int_equal(si.offset, ra - 1 - base);
	assert_string_equal(si.file, __FILE__);
	assert_int_equal(si.line, where_line);
	assert_int_equal(si.func_line, caller_line);

	/* a name that starts like a mangled one but is not stays as it is */
	assert_int_equal(symtab_lookup(&st, getpid(), 0, addr_of((void *)_Zpsc_not_mangled), &si),
			 0);
	assert_string_equal(si.name, "_Zpsc_not_mangled");

	/* a second lookup of an address is answered from the cache, with the same strings */
	assert_int_equal(symtab_lookup(&st, getpid(), 0, fn, &again), 0);
	assert_ptr_equal(again.name, symtab_lookup(&st, getpid(), 0, fn, &si) ? NULL : si.name);

	/* a place in code inlined into another function: the function whose code it is and the
	 * one inlined there; asked again, from the cache (the same string, not a second walk of
	 * DWARF's scopes, which takes milliseconds); a plain lookup of it has no inlined name */
	ira = addr_of(sym_inliner());
	assert_int_equal(symtab_lookup(&st, getpid(), 0, ira - 1, &si), 0);
	assert_string_equal(si.name, "sym_inliner");
	assert_null(si.inlined);
	assert_int_equal(symtab_lookup_inlined(&st, getpid(), 0, ira - 1, &si), 0);
	assert_string_equal(si.name, "sym_inliner");
	assert_string_equal(si.inlined, "sym_inlined_body");
	assert_int_equal(si.line, where_line);
	assert_int_equal(st.scope_walks, 1);
	assert_int_equal(symtab_lookup_inlined(&st, getpid(), 0, ira - 1, &again), 0);
	assert_ptr_equal(again.inlined, si.inlined);
	assert_int_equal(st.scope_walks, 1);
	assert_int_equal(symtab_lookup(&st, getpid(), 0, ira - 1, &again), 0);
	assert_null(again.inlined);
	assert_ptr_equal(again.name, si.name);

	/* a function by name, for filters */
	assert_int_equal(symtab_find_function(&st, exe, "sym_caller", &off), 0);
	assert_int_equal(off, caller - base);
	assert_int_equal(symtab_find_function(&st, exe, "no_such_function_here", &off), -ENOENT);
	assert_int_equal(symtab_find_function(&st, "/nonexistent/lib.so", "f", &off), -ENOENT);

	/* the page at 0 is never mapped */
	assert_unknown(&st, getpid(), 0, 0x10);
	/* an image that has no maps file */
	assert_unknown(&st, getpid(), 3, fn);

	symtab_release(&st);
	remove_dir(dir);
}

static void test_libc(void **state)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	char *dir = make_dir();
	uint64_t qs, gp;
	struct sym_info si;
	struct symtab st;

	(void)state;
	assert_non_null(libc);
	/* from libc itself: a sanitizer runtime may define its own qsort in front of it */
	qs = addr_of(dlsym(libc, "qsort"));
	gp = addr_of(dlsym(libc, "getpid"));
	assert_int_not_equal(qs, 0);
	snapshot_maps(dir, NULL);
	assert_int_equal(symtab_init(&st, dir), 0);

	assert_int_equal(symtab_lookup(&st, getpid(), 0, qs + 1, &si), 0);
	assert_string_equal(si.name, "qsort");
	assert_string_equal(strrchr(si.module, '/'), "/libc.so.6");
	assert_int_equal(si.offset, qs + 1 - load_base((void *)(uintptr_t)qs));
	assert_int_equal(si.start, qs);
	assert_int_equal(si.known, 1);
	/* getpid has the alias __getpid: the name without underscores is shown */
	assert_int_equal(symtab_lookup(&st, getpid(), 0, gp, &si), 0);
	assert_string_equal(si.name, "getpid");

	symtab_release(&st);
	remove_dir(dir);
	dlclose(libc);
}

/* ---- a C++ library opened with dlopen ------------------------------------------------------- */

static void test_dlopen_cxx(void **state)
{
#ifdef PSC_SYM_CXX_LIB
	char *dir = make_dir(), *first = make_dir(), header[64], lib[PATH_MAX];
	void *h;
	uint64_t scale, twice, off;
	const char *file;
	struct sym_info si;
	struct symtab st;

	(void)state;
	assert_non_null(realpath(PSC_SYM_CXX_LIB, lib));
	snapshot_maps(dir, NULL);
	snapshot_maps(first, NULL);
	h = dlopen(PSC_SYM_CXX_LIB, RTLD_NOW);
	assert_non_null(h);
	snprintf(header, sizeof(header), "# dlopen %d\n", (int)getpid());
	snapshot_maps(dir, header);

	scale = addr_of(((void *(*)(void))dlsym(h, "psc_sym_cxx_scale"))());
	twice = addr_of(((void *(*)(void))dlsym(h, "psc_sym_cxx_twice"))());
	file = ((const char *(*)(void))dlsym(h, "psc_sym_cxx_file"))();

	assert_int_equal(symtab_init(&st, dir), 0);
	assert_int_equal(symtab_lookup(&st, getpid(), 0, scale, &si), 0);
	assert_string_equal(si.name, "int psc_test::scale<int>(int)");
	assert_string_equal(si.module, lib);
	assert_int_equal(si.offset, scale - load_base((void *)(uintptr_t)scale));
	assert_int_equal(si.start, scale);
	assert_int_equal(si.known, 1);
	assert_string_equal(si.func_file, file);
	assert_int_equal(si.func_line, ((unsigned (*)(void))dlsym(h, "psc_sym_cxx_scale_line"))());
	assert_string_equal(si.file, file);

	assert_int_equal(symtab_lookup(&st, getpid(), 0, twice + 2, &si), 0);
	assert_string_equal(si.name, "psc_test::box<double>::twice(double)");
	assert_int_equal(si.start, twice);
	assert_int_equal(si.func_line, ((unsigned (*)(void))dlsym(h, "psc_sym_cxx_twice_line"))());

	/* by demangled name and by raw name */
	assert_int_equal(symtab_find_function(&st, lib, "int psc_test::scale<int>(int)", &off), 0);
	assert_int_equal(off, scale - load_base((void *)(uintptr_t)scale));
	assert_int_equal(symtab_find_function(&st, lib, "_ZN8psc_test5scaleIiEET_S1_", &off), 0);
	assert_int_equal(off, scale - load_base((void *)(uintptr_t)scale));
	symtab_release(&st);

	/* without the snapshot taken after dlopen the library is not known */
	assert_int_equal(symtab_init(&st, first), 0);
	assert_unknown(&st, getpid(), 0, scale);
	symtab_release(&st);

	dlclose(h);
	remove_dir(dir);
	remove_dir(first);
#else
	(void)state;
	fprintf(stderr, "skipped: no C++ compiler, the dlopen'ed C++ library was not built\n");
	skip();
#endif
}

/* ---- PIE and position-dependent executables ------------------------------------------------- */

enum prog_kind { PROG_PIE, PROG_NOPIE, PROG_NODEBUG, PROG_DEBUGLINK };

/* Runs prog (tests/data/sym/prog.c) and resolves the addresses it printed in its own maps. */
static void check_program(const char *prog, enum prog_kind kind)
{
	char *dir = make_dir(), cmd[PATH_MAX * 2 + 16], path[PATH_MAX], from[PATH_MAX],
	     to[PATH_MAX];
	int dwarf = kind != PROG_NODEBUG;
	uintmax_t fn, ra, base;
	unsigned fline, cline;
	int pid, result;
	struct sym_info si;
	struct symtab st;
	FILE *p;

	assert_non_null(realpath(prog, path));
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", prog, dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(
	    fscanf(p, "%d %jx %u %jx %u %jx %d", &pid, &fn, &fline, &ra, &cline, &base, &result),
	    7);
	assert_int_equal(pclose(p), 0);
	assert_int_equal(result, 7 * 2 + 3);

	assert_int_equal(symtab_init(&st, dir), 0);
	assert_int_equal(symtab_lookup(&st, pid, 0, fn, &si), 0);
	assert_string_equal(si.name, "psc_prog_func");
	assert_string_equal(si.module, path);
	assert_int_equal(si.start, fn);
	assert_int_equal(si.known, 1);
	/* a position-dependent executable is not moved: ELF address == runtime address */
	assert_int_equal(si.offset, kind == PROG_NOPIE ? fn : fn - base);
	assert_int_equal(si.func_line, dwarf ? fline : 0);
	assert_string_equal(dwarf ? strrchr(si.func_file, '/') : si.func_file,
			    dwarf ? "/prog.c" : "");

	assert_int_equal(symtab_lookup(&st, pid, 0, ra - 1, &si), 0);
	assert_string_equal(si.name, "psc_prog_caller");
	assert_int_equal(si.line, dwarf ? cline : 0);
	assert_string_equal(dwarf ? strrchr(si.file, '/') : si.file, dwarf ? "/prog.c" : "");
	symtab_release(&st);

	/* the same maps as the process's second image (after an exec) */
	snprintf(from, sizeof(from), "%s/maps.%d", dir, pid);
	snprintf(to, sizeof(to), "%s/maps.%d.1", dir, pid);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(symtab_init(&st, dir), 0);
	assert_int_equal(symtab_lookup(&st, pid, 1, fn, &si), 0);
	assert_string_equal(si.name, "psc_prog_func");
	assert_unknown(&st, pid, 0, fn);
	symtab_release(&st);
	remove_dir(dir);
}

static void test_pie(void **state)
{
	(void)state;
	check_program(PSC_SYM_PROG_PIE, PROG_PIE);
}

static void test_nopie(void **state)
{
	(void)state;
	check_program(PSC_SYM_PROG_NOPIE, PROG_NOPIE);
}

/* Built without -g: names from .symtab, no lines. */
static void test_nodebug(void **state)
{
	(void)state;
	check_program(PSC_SYM_PROG_NODEBUG, PROG_NODEBUG);
}

/* Stripped of every symbol: names and lines from the file its .gnu_debuglink names. */
static void test_debuglink(void **state)
{
	(void)state;
	check_program(PSC_SYM_PROG_DEBUGLINK, PROG_DEBUGLINK);
}

/* ---- hand-written maps ---------------------------------------------------------------------- */

static void assert_entry(const struct maps *m, size_t i, uint64_t start, uint64_t end,
			 uint64_t offset, const char *path)
{
	assert_true(i < m->n);
	assert_int_equal(m->v[i].start, start);
	assert_int_equal(m->v[i].end, end);
	assert_int_equal(m->v[i].offset, offset);
	assert_string_equal(m->v[i].path, path);
}

/* A later snapshot wins where it overlaps; what it does not cover stays. */
static void test_snapshots(void **state)
{
	static const char text[] =
	    "00001000-00003000 r-xp 00001000 08:01 12 /nonexistent/liba.so\n"
	    "00010000-00011000 r-xp 00000000 08:01 13 /nonexistent/libgone.so\n"
	    "# dlopen 4242\n"
	    "00002000-00002800 r-xp 00004000 08:01 14 /nonexistent/libb.so\n";
	char *dir = make_dir();
	struct symtab st;
	const struct maps *m;

	(void)state;
	write_file(dir, "maps.4242", text, strlen(text), 0);
	assert_int_equal(symtab_init(&st, dir), 0);
	m = symtab_maps(&st, 4242, 0);
	assert_non_null(m);
	assert_int_equal(m->n, 4);
	assert_int_equal(m->snapshots, 2);
	assert_int_equal(m->skipped, 0);
	assert_entry(m, 0, 0x1000, 0x2000, 0x1000, "/nonexistent/liba.so");
	assert_entry(m, 1, 0x2000, 0x2800, 0x4000, "/nonexistent/libb.so");
	assert_entry(m, 2, 0x2800, 0x3000, 0x2800, "/nonexistent/liba.so");
	assert_entry(m, 3, 0x10000, 0x11000, 0, "/nonexistent/libgone.so");
	assert_int_equal(m->v[0].perms, MAPS_R | MAPS_X | MAPS_P);

	assert_module_offset(&st, 4242, 0x1800, "liba.so+0x1800", "/nonexistent/liba.so", 0x1800);
	assert_module_offset(&st, 4242, 0x2100, "libb.so+0x4100", "/nonexistent/libb.so", 0x4100);
	assert_module_offset(&st, 4242, 0x2900, "liba.so+0x2900", "/nonexistent/liba.so", 0x2900);
	assert_module_offset(&st, 4242, 0x10010, "libgone.so+0x10", "/nonexistent/libgone.so",
			     0x10);
	assert_unknown(&st, 4242, 0, 0x5000);
	assert_unknown(&st, 4242, 0, 0x3000);
	assert_null(symtab_maps(&st, 4243, 0));
	symtab_release(&st);
	remove_dir(dir);
}

/* Damaged lines are skipped and counted; the good ones around them still count. */
static void test_garbage(void **state)
{
	static const char text[] =
	    "not a maps line\n"
	    "00400000-00401000 r-xp 00000000 08:01 1\n"
	    "zzzz-00401000 r-xp 00000000 08:01 1 /x\n"
	    "00500000-00400000 r-xp 00000000 08:01 1 /start-after-end\n"
	    "00600000-00601000 rwzp 00000000 08:01 1 /bad-perms\n"
	    "00700000-00701000 r-xp 0000000g 08:01 1 /bad-offset\n"
	    "00800000-00801000 r-xp 00000000 0801 1 /bad-dev\n"
	    "00900000-00901000 r-xp 00000000 08:01 /no-inode\n"
	    "11111111111111111-22222222222222222 r-xp 00000000 08:01 1 /overflow\n"
	    "00a00000-00a01000 r-xp\n"
	    "\n"
	    "00b00000-00b01000 r-xp 00002000 08:01 77 /opt/my lib/with space.so\n"
	    "00c00000-00c01000 r-xp 00001000 08:01 78 /tmp/gone.so (deleted)\n"
	    "00d00000-00d01000 rw-p 00000000 00:00 0 \n"
	    "00e00000-00e01000 r--p 00000000 00:00 0 [vvar]\r\n"
	    "\x01\x02\xff\xfe-\n"
	    "00f00000-00f01000 r-xp 00000000 08:01 1 /nul\0x\n"
	    "01000000-01001000 r-xp 00000000 08:01 1 /truncated-at-the-end";
	char *dir = make_dir(), notelf[PATH_MAX], line[PATH_MAX + 64];
	struct symtab st;
	const struct maps *m;

	(void)state;
	write_file(dir, "maps.7", text, sizeof(text) - 1, 0);
	snprintf(notelf, sizeof(notelf), "%s/not-elf.txt", dir);
	write_file(dir, "not-elf.txt", "just text\n", 10, 0);
	snprintf(line, sizeof(line), "00001000-00002000 r-xp 00003000 08:01 5 %s\n", notelf);
	write_file(dir, "maps.8", line, strlen(line), 0);

	assert_int_equal(symtab_init(&st, dir), 0);
	m = symtab_maps(&st, 7, 0);
	assert_non_null(m);
	assert_int_equal(m->lines, 17);
	assert_int_equal(m->skipped, 11);
	assert_int_equal(m->n, 6);
	assert_entry(m, 0, 0x400000, 0x401000, 0, "");
	assert_entry(m, 1, 0xb00000, 0xb01000, 0x2000, "/opt/my lib/with space.so");
	assert_entry(m, 2, 0xc00000, 0xc01000, 0x1000, "/tmp/gone.so");
	assert_int_equal(m->v[2].deleted, 1);
	assert_entry(m, 3, 0xd00000, 0xd01000, 0, "");
	assert_int_equal(m->v[3].perms, MAPS_R | MAPS_W | MAPS_P);
	assert_entry(m, 4, 0xe00000, 0xe01000, 0, "[vvar]");
	assert_entry(m, 5, 0x1000000, 0x1001000, 0, "/truncated-at-the-end");

	assert_unknown(&st, 7, 0, 0x400010);
	assert_unknown(&st, 7, 0, 0x600010);
	assert_unknown(&st, 7, 0, 0xd00010);
	assert_module_offset(&st, 7, 0xb00010, "with space.so+0x2010", "/opt/my lib/with space.so",
			     0x2010);
	assert_module_offset(&st, 7, 0xc00010, "gone.so+0x1010", "/tmp/gone.so", 0x1010);
	assert_module_offset(&st, 7, 0xe00010, "[vvar]+0x10", "[vvar]", 0x10);
	/* a mapped file that is not ELF */
	assert_module_offset(&st, 8, 0x1010, "not-elf.txt+0x3010", notelf, 0x3010);
	symtab_release(&st);
	remove_dir(dir);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random text from the maps alphabet: whatever is kept is sorted and never overlaps. */
static void test_random_text(void **state)
{
	static const char alphabet[] = "0123456789abcdef-- ::rwxps/#\n\n  ";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char text[768];
	int round;

	(void)state;
	for (round = 0; round < 2000; round++) {
		struct maps m = {0};
		size_t i;

		for (i = 0; i < sizeof(text); i++)
			text[i] = alphabet[rnd(&x) % (sizeof(alphabet) - 1)];
		assert_int_equal(maps_parse(&m, text, sizeof(text)), 0);
		for (i = 0; i < m.n; i++) {
			assert_true(m.v[i].start < m.v[i].end);
			assert_true(i == 0 || m.v[i - 1].end <= m.v[i].start);
		}
		maps_release(&m);
	}
}

#define RLINES 40

/*
 * Random overlapping mappings in random order, some lines broken (a 'z' before the path) and
 * some '#' lines between them. Oracle: an address belongs to the last intact line holding it.
 */
static void test_random_overlaps(void **state)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	int round;

	(void)state;
	for (round = 0; round < 300; round++) {
		struct {
			uint64_t start, end, offset;
			int broken;
		} l[RLINES];
		char text[RLINES * 96], line[96], path[32];
		size_t len = 0, broken = 0, i, k;
		struct maps m = {0};
		uint64_t a;

		for (i = 0; i < RLINES; i++) {
			size_t n, at;

			l[i].start = (rnd(&x) % 64) * 0x1000;
			l[i].end = l[i].start + (1 + rnd(&x) % 8) * 0x1000;
			l[i].offset = (rnd(&x) % 16) * 0x1000;
			l[i].broken = rnd(&x) % 5 == 0;
			broken += (size_t)l[i].broken;
			n = (size_t)snprintf(line, sizeof(line),
					     "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64
					     " 08:01 %zu /m%zu\n",
					     l[i].start, l[i].end, l[i].offset, i + 1, i);
			if (l[i].broken) {
				at = (size_t)(strstr(line, " /m") - line);
				at = rnd(&x) % (at + 1);
				memmove(line + at + 1, line + at, n - at + 1);
				line[at] = 'z';
				n++;
			}
			if (rnd(&x) % 8 == 0)
				len +=
				    (size_t)snprintf(text + len, sizeof(text) - len, "# dlopen\n");
			memcpy(text + len, line, n);
			len += n;
		}
		assert_int_equal(maps_parse(&m, text, len), 0);
		assert_int_equal(m.lines, RLINES);
		assert_int_equal(m.skipped, broken);
		for (a = 0; a < 72 * 0x1000; a += 0x800) {
			long idx = maps_find(&m, a + 0x10);

			for (k = RLINES; k-- > 0;)
				if (!l[k].broken && l[k].start <= a && a < l[k].end)
					break;
			if (k == (size_t)-1) {
				assert_int_equal(idx, -1);
				continue;
			}
			assert_true(idx >= 0);
			snprintf(path, sizeof(path), "/m%zu", k);
			assert_string_equal(m.v[idx].path, path);
			assert_int_equal(m.v[idx].offset + (a + 0x10 - m.v[idx].start),
					 l[k].offset + (a + 0x10 - l[k].start));
		}
		maps_release(&m);
	}
}

static void test_init_errors(void **state)
{
	struct symtab st;

	(void)state;
	assert_int_equal(symtab_init(&st, "/nonexistent/experiment"), -ENOENT);
	symtab_release(&st);
	assert_int_equal(symtab_init(&st, "/proc/self/maps"), -ENOTDIR);
	symtab_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_self),
	    cmocka_unit_test(test_libc),
	    cmocka_unit_test(test_dlopen_cxx),
	    cmocka_unit_test(test_pie),
	    cmocka_unit_test(test_nopie),
	    cmocka_unit_test(test_nodebug),
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_snapshots),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_random_text),
	    cmocka_unit_test(test_random_overlaps),
	    cmocka_unit_test(test_init_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
