/*
 * cmd-select.c - `perfscope select`: the second pass of two-pass instrumentation. From a fully
 * instrumented run it keeps the functions with a long mean call (--min-time) or the most
 * exclusive time (--top), writes the runtime filter file for `record --filter` and the gcc
 * options that instrument only those functions in a rebuild (docs/cmd-select.md).
 */
#include "cli/cli.h"
#include "lib/path.h"

#include "model/elf-module.h"
#include "analysis/profile/select.h"
#include "model/session.h"
#include "view/caveats.h"
#include "view/table.h"
#include "lib/array.h"
#include "lib/textesc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_OUTPUT "perfscope.filter"
#define MAX_WARNINGS   10 /* functions named on stderr; the filter file lists all */

struct select_run {
	const char *dir;
	struct session s; /* the experiment, its symbols and function profile */
	const struct experiment *e;
	struct symtab *syms;
	const struct func_profile *merged; /* the threads merged */
	struct sel_func *funcs; /* one per merged row, then the modules' functions never called */
	size_t nfuncs, nrecorded, cap;
	struct elf_module *mods; /* the modules of the recorded functions, for those never called */
	size_t nmods;
	struct str_arena names; /* demangled names of functions never called */
	struct sel_plan plan;
	uint64_t min_ns; /* --min-time, or 0 */
	size_t top;	 /* --top, or 0 */
};

static double mean_ns(const struct sel_func *f)
{
	return f->calls ? (double)f->sum_ns / (double)f->calls : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Append the functions of module MOD that were never called in the run (not at one of the
 * sorted SEEN addresses) and that have a source file in its DWARF, i.e. were compiled from the
 * program's sources: the rebuild must exclude them too. 0 or -ENOMEM. */
static int add_uncalled(struct select_run *r, struct elf_module *mod, const uint64_t *seen,
			size_t nseen)
{
	for (size_t i = 0; i < mod->nfuncs; i++) {
		struct elf_func *ef = &mod->funcs[i];
		struct sel_func *f;

		if ((i > 0 && mod->funcs[i - 1].addr == ef->addr) ||
		    bsearch(&ef->addr, seen, nseen, sizeof(*seen), cmp_u64))
			continue;
		if (!ef->decl_done)
			elf_module_decl(mod, ef);
		if (!ef->decl_file || !ef->decl_file[0])
			continue;
		if (ARRAY_GROW(r->funcs, r->nfuncs + 1, r->cap))
			return -ENOMEM;
		f = &r->funcs[r->nfuncs++];
		memset(f, 0, sizeof(*f));
		f->name = elf_func_name(ef, &r->names);
		f->file = ef->decl_file;
		f->named = 1;
	}
	return 0;
}

/* The functions of every module with a recorded function that the run never called. 0 or
 * -ENOMEM. */
static int add_modules(struct select_run *r)
{
	uint64_t *seen = malloc((r->nrecorded + 1) * sizeof(*seen));
	int ret = 0;

	r->mods = calloc(r->nrecorded + 1, sizeof(*r->mods));
	if (!seen || !r->mods) {
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nrecorded && ret == 0; i++) {
		const char *path = r->merged->rows[i].sym.module;
		size_t nseen = 0, m;

		for (m = 0; m < r->nmods && strcmp(r->mods[m].path, path); m++)
			;
		if (path[0] != '/' || m < r->nmods)
			continue;
		ret = symtab_open_module(r->syms, &r->merged->rows[i].sym, &r->mods[r->nmods++]);
		if (ret == -ENOMEM)
			break;
		ret = 0;
		for (size_t j = 0; j < r->nrecorded; j++)
			if (!strcmp(r->merged->rows[j].sym.module, path))
				seen[nseen++] = r->merged->rows[j].sym.offset;
		qsort(seen, nseen, sizeof(*seen), cmp_u64);
		if (r->mods[r->nmods - 1].err == 0)
			ret = add_uncalled(r, &r->mods[r->nmods - 1], seen, nseen);
	}
	free(seen);
	return ret;
}

/* Read DIR and fill the function list. 0, or -1 after printing the cause. */
static int load(struct select_run *r)
{
	char err[1024];
	void *e = NULL, *syms = NULL, *merged = NULL;
	int ret;

	session_init(&r->s, r->dir, SESSION_DIR, NULL);
	if ((ret = session_get(&r->s, SESSION_EXPERIMENT, &e, err, sizeof(err))) == 0 &&
	    (ret = session_get(&r->s, SESSION_SYMBOLS, &syms, err, sizeof(err))) == 0)
		ret = session_get(&r->s, SESSION_FUNCTIONS_MERGED, &merged, err, sizeof(err));
	if (ret < 0) {
		cli_error("select", "%s", err);
		return -1;
	}
	r->e = e;
	r->syms = syms;
	r->merged = merged;
	if (r->s.prof.funcs.function_records == 0) {
		cli_error("select",
			  "no function events were recorded in %s: build with "
			  "-finstrument-functions and record with 'perfscope record --functions'",
			  r->dir);
		return -1;
	}
	/* a filter from another build's names would exclude the wrong functions */
	for (size_t i = 0; i < r->merged->nrows; i++)
		if (r->merged->rows[i].sym.stale) {
			cli_error(
			    "select",
			    "%s was rebuilt or removed after the recording of %s and the "
			    "build-id cache has no copy: its functions cannot be named; record "
			    "again with this build",
			    r->merged->rows[i].sym.module, r->dir);
			return -1;
		}
	r->cap = 2 * r->merged->nrows + 16;
	r->funcs = calloc(r->cap, sizeof(*r->funcs));
	if (!r->funcs) {
		cli_error("select", "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->merged->nrows; i++) {
		const struct func_row *row = &r->merged->rows[i];
		struct sel_func *f = &r->funcs[r->nfuncs++];

		f->name = row->sym.name;
		f->file = sym_info_def_file(&row->sym);
		f->named = row->sym.known;
		f->calls = row->calls;
		f->sum_ns = row->sum_ns;
		f->excl_ns = row->excl_ns;
	}
	r->nrecorded = r->nfuncs;
	if (add_modules(r)) {
		cli_error("select", "out of memory");
		return -1;
	}
	experiment_caveats(r->e, 1, caveat_warning, stderr);
	return 0;
}

/* The criterion in words, for the table heading and the filter file. */
static void criterion(const struct select_run *r, char *buf, size_t len)
{
	char t[32];

	if (r->top) {
		snprintf(buf, len, "the top %zu by exclusive time", r->top);
	} else {
		fmt_duration(t, sizeof(t), (double)r->min_ns);
		snprintf(buf, len, "mean time per call >= %s", t);
	}
}

/* "none selected" as a one-line usage error naming the longest mean. */
static void none_selected(const struct select_run *r)
{
	const struct sel_func *best = NULL;
	char t[32], m[32];

	for (size_t i = 0; i < r->nrecorded; i++)
		if (r->funcs[i].calls && (!best || mean_ns(&r->funcs[i]) > mean_ns(best)))
			best = &r->funcs[i];
	fmt_duration(t, sizeof(t), (double)r->min_ns);
	if (!best) {
		cli_error("select", "no function call was completed in %s", r->dir);
		return;
	}
	fmt_duration(m, sizeof(m), mean_ns(best));
	cli_error("select",
		  "no function has a mean time per call of at least %s (the longest is %s, "
		  "%s): give a smaller --min-time",
		  t, m, best->name);
}

/* Indices of the selected functions in table order: --top by exclusive time, --min-time by mean
 * (ties by name). */
static int table_order(const void *a, const void *b, void *arg)
{
	const struct select_run *r = arg;
	const struct sel_func *x = &r->funcs[*(const size_t *)a],
			      *y = &r->funcs[*(const size_t *)b];
	double kx = r->top ? (double)x->excl_ns : mean_ns(x);
	double ky = r->top ? (double)y->excl_ns : mean_ns(y);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->name, y->name);
}

static size_t *selected_order(const struct select_run *r, size_t *n)
{
	size_t *idx = malloc((r->nfuncs + 1) * sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].selected)
			idx[(*n)++] = i;
	qsort_r(idx, *n, sizeof(*idx), table_order, (void *)r);
	return idx;
}

static int print_table(const struct select_run *r, const size_t *idx, size_t n, FILE *out)
{
	struct table *t = table_new();
	char how[96], v[64];
	int ret = -ENOMEM;

	if (!t)
		return -ENOMEM;
	if (table_add_column(t, "function", TABLE_LEFT) ||
	    table_add_column(t, "calls", TABLE_RIGHT) || table_add_column(t, "mean", TABLE_RIGHT) ||
	    table_add_column(t, "exclusive", TABLE_RIGHT) ||
	    table_add_column(t, "source", TABLE_LEFT))
		goto out;
	for (size_t k = 0; k < n; k++) {
		const struct sel_func *f = &r->funcs[idx[k]];
		const struct func_row *row = &r->merged->rows[idx[k]];

		if (table_add_row(t) || table_set(t, 0, "%s", f->name))
			goto out;
		fmt_count(v, sizeof(v), f->calls);
		if (table_set(t, 1, "%s", v))
			goto out;
		fmt_duration(v, sizeof(v), mean_ns(f));
		if (table_set(t, 2, "%s", v))
			goto out;
		fmt_duration(v, sizeof(v), (double)f->excl_ns);
		if (table_set(t, 3, "%s", v))
			goto out;
		int decl = row->sym.func_file && row->sym.func_file[0];
		const char *src = decl ? row->sym.func_file : row->sym.file;

		if (src && src[0] &&
		    table_set(t, 4, "%s:%u", path_base(src),
			      decl ? row->sym.func_line : row->sym.line))
			goto out;
	}
	criterion(r, how, sizeof(how));
	fprintf(out, "%zu of %zu functions selected from %s (%s):\n\n", n, r->nrecorded,
		text_safe(r->dir), how);
	ret = table_print(t, out, "  ");
	fputc('\n', out);
out:
	table_free(t);
	return ret;
}

/* Warnings, one line each: unselected functions the rebuild still instruments, and why. */
static void plan_warnings(const struct select_run *r, const char *output)
{
	const struct sel_plan *p = &r->plan;
	size_t shown = p->nkept < MAX_WARNINGS ? p->nkept : MAX_WARNINGS;

	for (size_t k = 0; k < shown; k++) {
		const struct sel_kept *kept = &p->kept[k];
		const char *name = r->funcs[kept->func].name;

		if (kept->reason == SEL_KEEP_UNNAMED) {
			fprintf(
			    stderr,
			    "perfscope select: warning: '%s' stays instrumented in the rebuild: "
			    "gcc cannot be told its name; the filter file leaves it out of the "
			    "record\n",
			    text_safe(name));
			continue;
		}
		fprintf(stderr,
			"perfscope select: warning: '%s' stays instrumented in the rebuild: gcc "
			"matches names as substrings, and excluding '%s' would also lose the "
			"selected",
			text_safe(name), text_safe(p->keys[kept->func]));
		for (size_t i = 0, m = 0; i < r->nfuncs; i++)
			if (r->funcs[i].selected && p->gcc_names[i] &&
			    strstr(p->gcc_names[i], p->keys[kept->func]))
				fprintf(stderr, "%s '%s'", m++ ? "," : "",
					text_safe(r->funcs[i].name));
		fprintf(stderr, "; the filter file leaves it out of the record\n");
	}
	if (p->nkept > shown)
		fprintf(
		    stderr,
		    "perfscope select: warning: %zu more unselected functions stay instrumented "
		    "in the rebuild (all are listed in %s)\n",
		    p->nkept - shown, text_safe(output));
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].selected && !p->gcc_names[i])
			fprintf(
			    stderr,
			    "perfscope select: warning: the selected '%s' has no name gcc "
			    "matches; the rebuild instruments it only if no exclude entry is part "
			    "of its name\n",
			    text_safe(r->funcs[i].name));
}

/* Comments naming every unselected function that the rebuild still instruments. */
static void write_kept(const struct select_run *r, FILE *f)
{
	const struct sel_plan *p = &r->plan;

	if (p->nkept)
		fprintf(f, "# not selected, but instrumented in a rebuild with FILE.cflags (gcc "
			   "cannot exclude them):\n");
	for (size_t k = 0; k < p->nkept; k++) {
		const struct sel_kept *kept = &p->kept[k];

		if (kept->reason == SEL_KEEP_UNNAMED)
			fprintf(f, "#   %s (no name gcc knows)\n",
				text_safe(r->funcs[kept->func].name));
		else
			fprintf(f, "#   %s (excluding '%s' would lose '%s')\n",
				text_safe(r->funcs[kept->func].name),
				text_safe(p->keys[kept->func]),
				text_safe(r->funcs[kept->selected].name));
	}
}

/* The filter file: header, comments on where it comes from, one line per function. Returns the
 * number of function lines, or -1 when writing failed. */
static long write_filter(const struct select_run *r, const size_t *idx, size_t n, FILE *f)
{
	char how[96], abs[PATH_MAX];
	long lines = 0;

	criterion(r, how, sizeof(how));
	if (!realpath(r->dir, abs))
		snprintf(abs, sizeof(abs), "%s", r->dir);
	fprintf(f, "# perfscope filter 1\n");
	fprintf(f, "# written by perfscope select %s from the experiment %s\n", PSC_VERSION,
		text_safe(abs));
	if (r->e->ncommand) {
		fprintf(f, "# recorded command:");
		for (size_t i = 0; i < r->e->ncommand; i++)
			fprintf(f, " %s", text_safe(r->e->command[i]));
		fputc('\n', f);
	}
	fprintf(f, "# criterion: %s; %zu of %zu functions selected\n", how, n, r->nrecorded);
	write_kept(r, f);
	fprintf(f, "# module\tELF address\tfunction\n");
	for (size_t k = 0; k < n; k++) {
		const struct func_row *row = &r->merged->rows[idx[k]];

		/* a line is module TAB address [TAB name]: a module path with a tab or a line
		 * break cannot be written in it (the name, for people only, is escaped) */
		if (row->sym.module[0] != '/' || strpbrk(row->sym.module, "\t\n")) {
			fprintf(stderr,
				"perfscope select: warning: the selected '%s' is not in a file "
				"the filter file can name (module '%s')\n",
				text_safe(row->sym.name), text_safe(row->sym.module));
			continue;
		}
		fprintf(f, "%s\t0x%" PRIx64 "\t%s\n", row->sym.module, row->sym.offset,
			text_safe(row->sym.name));
		lines++;
	}
	return ferror(f) ? -1 : lines;
}

/* Write FILE and FILE.cflags (neither replaced without --force). 0, or -1 after the cause. */
static int write_outputs(const struct select_run *r, const size_t *idx, size_t n,
			 const char *output, const char *opts, int force)
{
	char cflags[PATH_MAX];
	FILE *ff, *fc;
	long lines;

	if (snprintf(cflags, sizeof(cflags), "%s.cflags", output) >= (int)sizeof(cflags)) {
		cli_error("select", "%s: name too long", output);
		return -1;
	}
	if (!force && access(cflags, F_OK) == 0) {
		cli_error("select", "%s exists; not overwriting it (use --force)", cflags);
		return -1;
	}
	if (cli_output_open("select", output, force, &ff))
		return -1;
	if (cli_output_open("select", cflags, force, &fc)) {
		cli_output_close("select", ff, 0, 0);
		return -1;
	}
	lines = write_filter(r, idx, n, ff);
	fprintf(fc, "%s\n", opts);
	/* the options only with their filter (a failed write is said) */
	if (cli_output_close("select", ff, 1, 0)) {
		cli_output_close("select", fc, 0, 0);
		return -1;
	}
	if (cli_output_close("select", fc, 1, 0))
		return -1;
	fprintf(stderr, "perfscope select: wrote %s (%ld functions, for record --filter) and %s\n",
		text_safe(output), lines, text_safe(cflags));
	return 0;
}

static int run_select(struct select_run *r, const char *output, int force)
{
	size_t nsel, *idx = NULL, lost, uncovered;
	char *opts = NULL;
	int ret = EXIT_USAGE;

	if (load(r))
		return EXIT_USAGE;
	nsel = r->top ? select_top(r->funcs, r->nfuncs, r->top)
		      : select_min_time(r->funcs, r->nfuncs, r->min_ns);
	if (nsel == 0) {
		none_selected(r);
		return EXIT_USAGE;
	}
	if (sel_plan_build(&r->plan, r->funcs, r->nfuncs) ||
	    !(opts = sel_plan_gcc_options(&r->plan)) || !(idx = selected_order(r, &nsel))) {
		cli_error("select", "out of memory");
		ret = 1;
		goto out;
	}
	if (sel_plan_check(&r->plan, r->funcs, r->nfuncs, &lost, &uncovered)) {
		cli_error("select", "out of memory");
		ret = 1;
		goto out;
	}
	if (lost || uncovered != r->plan.nkept) {
		cli_error("select",
			  "internal error: the exclude lists would lose %zu selected functions "
			  "and miss %zu others",
			  lost, uncovered - r->plan.nkept);
		ret = 1;
		goto out;
	}
	if (write_outputs(r, idx, nsel, output, opts, force))
		goto out;
	plan_warnings(r, output);
	ret = print_table(r, idx, nsel, stdout) ? 1 : 0;
	printf("gcc options (also in %s.cflags):\n%s\n", text_safe(output), text_safe(opts));
out:
	free(idx);
	free(opts);
	return ret;
}

int cmd_select(int argc, char **argv)
{
	const char *output = DEFAULT_OUTPUT, *min_time = NULL;
	long top = LONG_MIN; /* not given */
	int force = 0, help = 0, first, ret;
	const struct option_spec specs[] = {
	    {0, "min-time", OPT_STRING, &min_time, "T",
	     "keep functions whose mean call takes at least T (500ns, 10us, 1ms, 2s)", 0, NULL},
	    {0, "top", OPT_INT, &top, "N", "keep the N functions with the most exclusive time", 0,
	     NULL},
	    {'o', "output", OPT_STRING, &output, "FILE",
	     "the filter file (default " DEFAULT_OUTPUT "); the gcc options go to FILE.cflags", 0,
	     NULL},
	    {0, "force", OPT_FLAG, &force, NULL, "overwrite FILE and FILE.cflags", 0, NULL},
	    {'h', "help", OPT_FLAG, &help, NULL, "show this help", 0, NULL},
	    {0},
	};
	struct select_run r;

	memset(&r, 0, sizeof(r));
	r.dir = "perfscope.out";
	ret = cli_parse("select", specs, 0, argc - 1, argv + 1, &first, &help);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	if (cli_operand("select", argc - 1 - first, argv + 1 + first, &r.dir))
		return EXIT_USAGE;
	if (!min_time == (top == LONG_MIN)) {
		cli_error("select", min_time ? "--min-time and --top exclude each other: give one"
					     : "give --min-time T or --top N (see: perfscope "
					       "help select)");
		return EXIT_USAGE;
	}
	if (min_time && (parse_duration_ns(min_time, &r.min_ns) ||
			 isdigit((unsigned char)min_time[strlen(min_time) - 1]))) {
		cli_error("select",
			  "--min-time %s: expected a time with a unit (500ns, 10us, 1ms, 2s)",
			  min_time);
		return EXIT_USAGE;
	}
	if (top != LONG_MIN && top < 1) {
		cli_error("select", "--top %ld: N must be 1 or more", top);
		return EXIT_USAGE;
	}
	if (!strcmp(output, "-") || !*output) {
		cli_error("select", "-o needs a file name: the gcc options already go to stdout");
		return EXIT_USAGE;
	}
	r.top = min_time ? 0 : (size_t)top;
	ret = run_select(&r, output, force);
	sel_plan_release(&r.plan);
	free(r.funcs);
	for (size_t i = 0; i < r.nmods; i++)
		elf_module_release(&r.mods[i]);
	free(r.mods);
	arena_release(&r.names);
	session_close(&r.s);
	return ret;
}
