/*
 * test_sample_kchain.c - kernel frames in sampled call chains, from the samples file to the
 * printed call tree: a hand-made experiment whose samples in the kernel carry kernel frames
 * (word 2 says how many of the chain's first entries are the kernel's) above the user frames
 * of this test program (its own executable mappings as the pmaps file), with a kallsyms file.
 * The tree puts the kernel functions, marked "[k]", under the user function that entered the
 * kernel, the user part being the same as for a sample without kernel frames; a kernel frame
 * no symbol names is left out of the path and counted in a caveat; a sample that says it has
 * more kernel frames than frames is an error at its byte offset; an experiment recorded in user
 * space only says that its chains have no kernel frames; the user instruction where the kernel
 * was entered is named at itself, not as a return address. Exact text throughout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/experiment-open.h"
#include "format/format.h"
#include "record/sample-out.h"
#include "view/sample-print.h"
#include "analysis/profile/sample-profile.h"
#include "model/symbols.h"

#define ROOT 100
#define MS   1000000ull

/* kernel functions of the kallsyms file below, and an address below all of them */
#define K_ASM	  0xffffffff81000000ull
#define K_EXC	  0xffffffff81001000ull
#define K_CLEAR	  0xffffffff81002000ull
#define K_UNNAMED 0xffffffff80000010ull

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir, sizeof(tmpdir), "sample-kchain");
}

static int remove_tmpdir(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

/* Two user functions of this program whose addresses the samples carry. */
__attribute__((noinline)) static int user_walk(volatile int *p)
{
	int s = 0;

	for (int i = 0; i < 16; i++)
		s += p[i];
	return s;
}

__attribute__((noinline)) static int user_main(volatile int *p)
{
	return user_walk(p) + user_walk(p + 1);
}

/* An address inside F, past its first bytes: a return address into it. */
static uint64_t inside(int (*f)(volatile int *))
{
	return (uint64_t)(uintptr_t)f + 4;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* This program's executable mappings as pmaps.ROOT: its code is the sampled program's. */
static void write_pmaps(const char *dir)
{
	char path[256], line[4096], exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *in = fopen("/proc/self/maps", "r"), *out;
	int kept = 0;

	assert_true(n > 0);
	exe[n] = 0;
	snprintf(path, sizeof(path), "%s/pmaps.%d", dir, ROOT);
	out = fopen(path, "w");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (strlen(line) > strlen(exe) && !strcmp(line + strlen(line) - strlen(exe), exe) &&
		    strstr(line, " r-x")) {
			fprintf(out, "%s\n", line);
			kept++;
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_true(kept > 0);
}

/* A sample of the root at AT ms on CPU 0 at IP (in the kernel when KERNEL), 1 ms of cpu-clock
 * after the previous one, with the chain CHAIN of N frames, the first NK the kernel's. */
static void sample(struct sample_out *o, uint64_t t0, int at, uint64_t ip, int kernel,
		   const uint64_t *chain, size_t n, unsigned nk)
{
	uint64_t p[6 + 1 + 8];

	p[0] = (uint64_t)ROOT | (uint64_t)ROOT << 32;
	p[1] = ip;
	p[2] = (kernel ? (uint64_t)PSC_SAMPLE_KERNEL << 16 : 0) |
	       (uint64_t)nk << PSC_SAMPLE_KFRAMES_SHIFT | (uint64_t)n << 32;
	p[3] = 1;
	p[4] = p[5] = p[6] = (uint64_t)at * MS;
	memcpy(p + 7, chain, n * sizeof(*chain));
	assert_int_equal(sample_out_add(o, t0 + (uint64_t)at * MS, PSC_REC_SAMPLE, 0, p, 7 + n), 0);
}

enum kind { K_OK, K_BAD, K_FIRST_INSN };

/*
 * The experiment DIR: 3 samples in clear_page_erms called by exc_page_fault called by
 * asm_exc_page_fault entered from user_walk called by user_main; 1 in clear_page_erms whose
 * caller has no symbol; 1 in user_walk itself. With K_BAD, a sixth sample claims 3 kernel
 * frames of a chain of 2. With K_FIRST_INSN, the kernel was entered at user_walk's first
 * instruction (a fault there), so ADDR - 1 is before user_walk.
 */
static void write_experiment(const char *dir, enum kind kind)
{
	uint64_t uip = kind == K_FIRST_INSN ? (uint64_t)(uintptr_t)user_walk : inside(user_walk),
		 ret = inside(user_main);
	const uint64_t named[] = {K_EXC + 0x20, K_ASM + 0x30, uip, ret};
	const uint64_t unnamed[] = {K_UNNAMED, K_ASM + 0x30, uip, ret};
	const uint64_t user[] = {ret};
	uint64_t member = 0, t0;
	struct sample_out *o;
	struct psc_stream_header h;
	char path[256];
	int fd;

	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(dir, "meta.json",
		   "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": true, "
		   "\"callgraph\": true, \"events\": [{\"name\": \"cpu-clock\", \"state\": "
		   "\"group\", \"status\": 0}]}}\n");
	write_text(dir, "kallsyms",
		   "ffffffff81000000 T asm_exc_page_fault\n"
		   "ffffffff81001000 T exc_page_fault\n"
		   "ffffffff81002000 T clear_page_erms\n");
	write_pmaps(dir);
	assert_int_equal(sample_out_open(&o, dir, ROOT, 1, PSC_FEAT_SWITCHES), 0);
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &h, sizeof(h)), sizeof(h));
	close(fd);
	t0 = h.start_ns;
	assert_int_equal(sample_out_add(o, t0, PSC_REC_SAMPLE_GROUP, 0, &member, 1), 0);
	for (int i = 1; i <= 3; i++)
		sample(o, t0, i, K_CLEAR + 0x10, 1, named, 4, 2);
	sample(o, t0, 4, K_CLEAR + 0x10, 1, unnamed, 4, 2);
	sample(o, t0, 5, inside(user_walk) + 4, 0, user, 1, 0);
	if (kind == K_BAD)
		sample(o, t0, 6, K_CLEAR + 0x10, 1, named, 2, 3);
	assert_int_equal(sample_out_close(o), 0);
}

/* Print what F prints for the report R into a string. */
static char *print(int (*f)(const struct sample_report *, FILE *), const struct sample_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(f(r, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* The tree of the K_OK and K_FIRST_INSN experiments: the kernel frames under user_walk. */
static const char kernel_tree[] =
    "Call tree from the samples' call chains (callees by inclusive samples):\n"
    "    samples     incl.      self   est. time  function\n"
    "          5   100.0 %     0.0 %     5.00 ms  user_main\n"
    "          5   100.0 %    20.0 %     5.00 ms    user_walk\n"
    "          4    80.0 %     0.0 %     4.00 ms      [k] asm_exc_page_fault\n"
    "          3    60.0 %     0.0 %     3.00 ms        [k] exc_page_fault\n"
    "          3    60.0 %    60.0 %     3.00 ms          [k] clear_page_erms\n"
    "          1    20.0 %    20.0 %     1.00 ms        [k] clear_page_erms\n";

/* E, SYMS and P of the experiment in DIR, its samples' profile built. */
static void open_profile(const char *dir, struct experiment *e, struct symtab *syms,
			 struct sample_profile *p)
{
	char err[512] = "";

	if (experiment_open(e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(symtab_init(syms, dir), 0);
	if (sample_profile_build(p, e, syms, 0, 0, err, sizeof(err)))
		fail_msg("%s", err);
}

static void close_profile(struct experiment *e, struct symtab *syms, struct sample_profile *p)
{
	sample_profile_release(p);
	symtab_release(syms);
	experiment_release(e);
}

static void test_kernel_frames_in_tree(void **state)
{
	char dir[128], err[512] = "", *text;
	struct experiment e;
	struct symtab syms;
	struct sample_profile p;
	struct sample_report r = {0};
	struct sample_view v = {.tree = 1};
	volatile int data[17] = {0};

	(void)state;
	assert_int_equal(user_main(data), 0);
	snprintf(dir, sizeof(dir), "%s/ok", tmpdir);
	write_experiment(dir, K_OK);
	open_profile(dir, &e, &syms, &p);
	assert_int_equal(p.samples, 5);
	assert_int_equal(p.kframes, 8);
	assert_int_equal(p.kframes_unnamed, 1);
	r.e = &e;
	r.p = &p;
	if (sample_report_setup(&r, &p, &v, err, sizeof(err)))
		fail_msg("%s", err);
	text = print(sample_print_tree, &r);
	assert_string_equal(text, kernel_tree);
	free(text);
	text = print(sample_print_text, &r);
	if (!strstr(text, "1 kernel frames of the call chains are left out of the paths: no "
			  "kernel symbol holds their addresses"))
		fail_msg("no caveat about the unnamed kernel frame in:\n%s", text);
	free(text);
	close_profile(&e, &syms, &p);

	/* recorded user space only (perf_event_paranoid): the report says the chains lack them */
	snprintf(dir, sizeof(dir), "%s/ok", tmpdir);
	write_text(dir, "meta.json",
		   "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": true, "
		   "\"callgraph\": true, \"user_only\": true, \"events\": [{\"name\": "
		   "\"cpu-clock\", \"state\": \"group\", \"status\": 0}]}}\n");
	open_profile(dir, &e, &syms, &p);
	r.e = &e;
	r.p = &p;
	text = print(sample_print_text, &r);
	if (!strstr(text, "kernel code was not sampled (kernel.perf_event_paranoid): user space "
			  "only, call chains without kernel frames"))
		fail_msg("no caveat about user-space-only chains in:\n%s", text);
	free(text);
	close_profile(&e, &syms, &p);

	/* more kernel frames than frames: said at the sample's word 2 */
	snprintf(dir, sizeof(dir), "%s/bad", tmpdir);
	write_experiment(dir, K_BAD);
	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(symtab_init(&syms, dir), 0);
	assert_int_equal(sample_profile_build(&p, &e, &syms, 0, 0, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "a sample's 3 kernel frames are more than its call chain of 2"))
		fail_msg("unexpected error: %s", err);
	close_profile(&e, &syms, &p);
}

/*
 * A fault on user_walk's first instruction (review s7 #8): the user IP where the kernel was
 * entered is named at itself, not at IP - 1 like a return address, so the kernel frames hang
 * under user_walk, the same tree as with an IP inside it.
 */
static void test_entry_at_first_instruction(void **state)
{
	char dir[128], err[512] = "", *text;
	struct experiment e;
	struct symtab syms;
	struct sample_profile p;
	struct sample_report r = {0};
	struct sample_view v = {.tree = 1};

	(void)state;
	snprintf(dir, sizeof(dir), "%s/first", tmpdir);
	write_experiment(dir, K_FIRST_INSN);
	open_profile(dir, &e, &syms, &p);
	assert_int_equal(p.samples, 5);
	r.e = &e;
	r.p = &p;
	if (sample_report_setup(&r, &p, &v, err, sizeof(err)))
		fail_msg("%s", err);
	text = print(sample_print_tree, &r);
	assert_string_equal(text, kernel_tree);
	free(text);
	close_profile(&e, &syms, &p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_frames_in_tree),
	    cmocka_unit_test(test_entry_at_first_instruction),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
