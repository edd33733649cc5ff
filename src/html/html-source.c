/*
 * html-source.c - the report's "source" data: the source files that carry cost, each line's
 * cost per metric (time, samples, energy) and the scopes (functions, regions) with where they
 * lie, how they nest, their inclusive cost and, in MPI runs, their split into computation, MPI
 * and MPI waiting per rank (mpi-scope.h). docs/html.md describes the keys.
 *
 * Where costs land: samples on their own lines (the line profile of the samples); time on the
 * samples' lines too when the run was sampled, else each traced function's exclusive time on
 * its first line; energy (a traced run with power, from html_energy()) on the function's first
 * line as well. A
 * function spans its declaration line to its last line in the DWARF line table (or, without
 * one, to the brace closing its body); a region spans its psc_region_begin to its end call.
 */
#include "html/html-int.h"
#include "html/html-source.h"

#include "model/elf-module.h"
#include "analysis/mpi/mpi-scope.h"
#include "analysis/profile/regions.h"
#include "model/session.h"
#include "lib/array.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Source text read at most: per file and over all files (the report must stay small). */
#define SRC_FILE_MAX  (1u << 20)
#define SRC_TOTAL_MAX (4u << 20)
#define SRC_FILES_MAX 200

/* One profile row (a thread's function or region) with its source location. */
struct raw {
	const char *name, *file, *module;
	unsigned line; /* declaration line */
	uint64_t vaddr;
	pid_t tid;
	int region;
	int sampled; /* a row of the sample profile */
	uint64_t calls, samples, incl_samples;
	int64_t incl_ns, excl_ns, sample_ns, incl_sample_ns;
	double incl_j, excl_j;
};

/* A function or region merged over threads: raws[begin, end). */
struct scope {
	struct raw sum;
	size_t begin, end;
	size_t file; /* in files, SIZE_MAX when not shown */
	unsigned first, last;
};

struct src {
	struct html_input *in;
	struct raw *raws;
	size_t nraws, rawcap;
	struct scope *scopes;
	size_t nscopes;
	struct src_file *files;
	size_t nfiles;
	int time_from_samples;
	struct sample_profile own; /* the line profile when the report's has no lines */
	int have_own;
	const struct mpi_scope_profile *mp; /* the session's, on an MPI run */
};

static struct raw *raw_add(struct src *s)
{
	if (ARRAY_GROW(s->raws, s->nraws + 1, s->rawcap))
		return NULL;
	memset(&s->raws[s->nraws], 0, sizeof(*s->raws));
	return &s->raws[s->nraws++];
}

/* The declaration of SYM, else the line of its address. */
static void sym_where(const struct sym_info *sym, const char **file, unsigned *line)
{
	*file = sym->func_file && sym->func_file[0] && sym->func_line ? sym->func_file : sym->file;
	*line = *file == sym->func_file ? sym->func_line : sym->line;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c;

	if (x->region != y->region)
		return x->region - y->region;
	if ((c = strcmp(x->file, y->file)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Function rows keyed by function (module, address, name), to find a function's energy. */
static int energy_key_cmp(const void *a, const void *b)
{
	const struct func_row *x = *(const struct func_row *const *)a,
			      *y = *(const struct func_row *const *)b;
	int c;

	if (x->sym.offset != y->sym.offset)
		return x->sym.offset < y->sym.offset ? -1 : 1;
	if ((c = strcmp(x->sym.module, y->sym.module)))
		return c;
	return strcmp(x->sym.name, y->sym.name);
}

/* The energy of the functions from the shared energy profile (html_energy), which has it
 * merged over threads: the report's own profile is built without power. A function's energy
 * goes to its first row (FP's rows are raws FIRST on); the scopes sum their rows. 0 or
 * -ENOMEM. */
static int energy_fill(struct src *s, const struct func_profile *fp, size_t first)
{
	const struct html_energy *he = html_energy(s->in);
	const struct func_profile *ef = he ? &he->ep.merged : NULL;
	const struct func_row **idx;
	char *used;

	if (!ef || !ef->nrows)
		return s->in->failed ? -ENOMEM : 0;
	idx = malloc(ef->nrows * sizeof(*idx));
	used = calloc(ef->nrows, 1);
	if (!idx || !used) {
		free(idx);
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ef->nrows; i++)
		idx[i] = &ef->rows[i];
	qsort(idx, ef->nrows, sizeof(*idx), energy_key_cmp);
	for (size_t i = 0; i < fp->nrows; i++) {
		const struct func_row *key = &fp->rows[i], **hit;
		size_t k;

		hit = bsearch(&key, idx, ef->nrows, sizeof(*idx), energy_key_cmp);
		if (!hit || used[k = (size_t)(hit - idx)])
			continue;
		used[k] = 1;
		s->raws[first + i].incl_j = (*hit)->incl_j;
		s->raws[first + i].excl_j = (*hit)->excl_j;
	}
	free(idx);
	free(used);
	return 0;
}

/* Every function of the traces and the samples, and every region, as raws. */
static int collect_rows(struct src *s)
{
	const struct func_profile *fp = s->in->fr ? s->in->fr->p : NULL;
	const struct sample_profile *sp = s->in->sr ? s->in->sr->p : NULL;
	const struct region_profile *rp = s->in->rr ? s->in->rr->p : NULL;
	struct raw *r;
	int ret;

	for (size_t i = 0; fp && i < fp->nrows; i++) {
		const struct func_row *row = &fp->rows[i];

		if (!(r = raw_add(s)))
			return -ENOMEM;
		sym_where(&row->sym, &r->file, &r->line);
		r->name = row->sym.name;
		r->module = row->sym.module;
		r->vaddr = row->sym.offset;
		r->tid = row->tid;
		r->calls = row->calls;
		r->incl_ns = row->incl_ns;
		r->excl_ns = row->excl_ns;
	}
	if (fp && fp->nrows && (ret = energy_fill(s, fp, s->nraws - fp->nrows)))
		return ret;
	for (size_t i = 0; sp && i < sp->nrows; i++) {
		const struct sprof_row *row = &sp->rows[i];

		if (!(r = raw_add(s)))
			return -ENOMEM;
		sym_where(&row->sym, &r->file, &r->line);
		r->name = row->sym.name;
		r->module = row->sym.module;
		r->vaddr = row->sym.offset;
		r->tid = row->tid;
		r->sampled = 1;
		r->samples = row->samples;
		r->sample_ns = (int64_t)row->time_ns;
		r->incl_samples = row->incl_samples;
		r->incl_sample_ns = (int64_t)row->incl_ns;
	}
	for (size_t i = 0; rp && i < rp->nrows; i++) {
		const struct region_row *row = &rp->rows[i];

		if (!(r = raw_add(s)))
			return -ENOMEM;
		r->name = row->name;
		r->file = r->module = "";
		r->region = 1;
		r->tid = row->tid;
		r->calls = row->calls;
		r->incl_ns = (int64_t)row->incl_ns;
		r->excl_ns = (int64_t)row->excl_ns;
	}
	for (size_t i = 0; i < s->nraws; i++)
		if (!s->raws[i].file)
			s->raws[i].file = "";
	return 0;
}

/* Raws of one function or region (same kind, location and name) become one scope. */
static int merge_rows(struct src *s)
{
	if (s->nraws)
		qsort(s->raws, s->nraws, sizeof(*s->raws), raw_cmp);
	s->scopes = calloc(s->nraws ? s->nraws : 1, sizeof(*s->scopes));
	if (!s->scopes)
		return -ENOMEM;
	for (size_t i = 0; i < s->nraws;) {
		const struct raw *a = &s->raws[i];
		struct scope *sc = &s->scopes[s->nscopes++];
		size_t j = i;

		sc->sum = *a;
		sc->sum.calls = sc->sum.samples = sc->sum.incl_samples = 0;
		sc->sum.incl_ns = sc->sum.excl_ns = sc->sum.sample_ns = sc->sum.incl_sample_ns = 0;
		sc->sum.incl_j = sc->sum.excl_j = 0;
		for (; j < s->nraws && a->region == s->raws[j].region &&
		       !strcmp(a->file, s->raws[j].file) && a->line == s->raws[j].line &&
		       !strcmp(a->name, s->raws[j].name);
		     j++) {
			const struct raw *b = &s->raws[j];

			sc->sum.sampled |= b->sampled;
			sc->sum.calls += b->calls;
			sc->sum.samples += b->samples;
			sc->sum.incl_samples += b->incl_samples;
			sc->sum.incl_sample_ns += b->incl_sample_ns;
			sc->sum.incl_ns += b->incl_ns;
			sc->sum.excl_ns += b->excl_ns;
			sc->sum.sample_ns += b->sample_ns;
			sc->sum.incl_j += b->incl_j;
			sc->sum.excl_j += b->excl_j;
		}
		sc->begin = i;
		sc->end = j;
		sc->file = SIZE_MAX;
		i = j;
	}
	return 0;
}

/* The per-line sample profile: the report's when it has lines, else one built here. */
static const struct sample_profile *line_profile(struct src *s)
{
	char err[512];

	if (!s->in->sr || !s->in->sr->p)
		return NULL;
	if (s->in->sr->p->nlines)
		return s->in->sr->p;
	if (sample_profile_build(&s->own, s->in->e, s->in->syms, 0, 1, err, sizeof(err))) {
		sample_profile_release(&s->own);
		html_caveat(s->in, "Source view: no sampled lines: %s", err);
		return NULL;
	}
	s->have_own = 1;
	return &s->own;
}

struct path_weight {
	const char *path;
	double w;
};

static int weight_cmp(const void *a, const void *b)
{
	const struct path_weight *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void weight_add(struct path_weight *pw, size_t *n, const char *path, double w)
{
	if (!path[0] || w <= 0)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(pw[i].path, path)) {
			pw[i].w += w;
			return;
		}
	pw[(*n)++] = (struct path_weight){path, w};
}

static size_t file_find(const struct src *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return i;
	return SIZE_MAX;
}

/* Read PATH into S's files within the size caps; a caveat (counted in *UNREADABLE for one line
 * at the end) when it cannot. 0 or -ENOMEM. */
static int file_read(struct src *s, const char *path, size_t *total, size_t *unreadable,
		     const char **first_bad)
{
	struct stat st;
	char *text;
	ssize_t got = 0;
	/* O_NONBLOCK: a FIFO or a device named by the debug info must not block the report */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		if (!(*unreadable)++)
			*first_bad = path;
		return 0;
	}
	if (st.st_size > SRC_FILE_MAX || *total + (size_t)st.st_size > SRC_TOTAL_MAX) {
		close(fd);
		html_caveat(s->in, "Source view: %s left out: %s", path,
			    st.st_size > SRC_FILE_MAX ? "larger than 1 MiB"
						      : "the report holds 4 MiB of source at most");
		return 0;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	while (got < st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)(st.st_size - got));

		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	*total += (size_t)got;
	return src_file_init(&s->files[s->nfiles++], path, text, (size_t)got);
}

/* The files that carry cost, most costly first, as far as they can be read. */
static int read_files(struct src *s, const struct sample_profile *lp)
{
	struct path_weight *pw = calloc(s->nscopes + (lp ? lp->nlines : 0) + 1, sizeof(*pw));
	size_t npw = 0, total = 0, unreadable = 0;
	const char *first_bad = NULL;
	int ret = 0;

	if (!pw)
		return -ENOMEM;
	for (size_t i = 0; i < s->nscopes; i++) {
		const struct raw *r = &s->scopes[i].sum;

		weight_add(pw, &npw, r->file,
			   (double)(r->excl_ns + r->sample_ns) + 1e-3 * (double)r->calls);
	}
	for (size_t i = 0; lp && i < lp->nlines; i++)
		weight_add(pw, &npw, lp->lines[i].file, (double)lp->lines[i].time_ns + 1e-3);
	if (npw)
		qsort(pw, npw, sizeof(*pw), weight_cmp);
	if (npw > SRC_FILES_MAX) {
		html_caveat(s->in, "Source view: the %d costliest of %zu source files shown",
			    SRC_FILES_MAX, npw);
		npw = SRC_FILES_MAX;
	}
	s->files = calloc(npw ? npw : 1, sizeof(*s->files));
	for (size_t i = 0; s->files && i < npw && !ret; i++)
		ret = file_read(s, pw[i].path, &total, &unreadable, &first_bad);
	if (!s->files)
		ret = -ENOMEM;
	if (!ret && unreadable)
		html_caveat(s->in, "Source view: %zu source file%s could not be read (%s%s)",
			    unreadable, unreadable > 1 ? "s" : "", first_bad,
			    unreadable > 1 ? ", ..." : "");
	free(pw);
	return ret;
}

/* The last line of function SC (in file F) in the DWARF line table of its module, below
 * LIMIT; 0 unknown. */
static unsigned dwarf_last_line(struct src *s, const struct scope *sc, unsigned limit)
{
	struct symtab *st = s->in->syms;
	struct elf_module *mod = NULL;
	const struct elf_func *fn;
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	unsigned last = 0;

	for (size_t i = 0; st && i < st->nmods && !mod; i++)
		if (!strcmp(st->mods[i]->path, sc->sum.module))
			mod = st->mods[i];
	if (!mod || !mod->dw || !(fn = elf_module_func(mod, sc->sum.vaddr)) ||
	    !dwarf_addrdie(mod->dw, fn->addr, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int no;
		const char *file;

		if (!l || dwarf_lineaddr(l, &a) || a < fn->addr || a >= fn->end ||
		    dwarf_lineno(l, &no) || no <= 0 || (unsigned)no < sc->first ||
		    (limit && (unsigned)no >= limit) || (unsigned)no <= last)
			continue;
		file = dwarf_linesrc(l, NULL, NULL);
		if (file && !strcmp(file, sc->sum.file))
			last = (unsigned)no;
	}
	return last;
}

/* Place every scope in its file: functions from their declaration to their last line (the
 * next function's first line bounds it), regions by their begin and end calls. */
static void place_scopes(struct src *s)
{
	for (size_t i = 0; i < s->nscopes; i++) {
		struct scope *sc = &s->scopes[i];

		if (sc->sum.region)
			continue;
		sc->file = file_find(s, sc->sum.file);
		if (sc->file != SIZE_MAX &&
		    (sc->sum.line < 1 || sc->sum.line > s->files[sc->file].nlines))
			sc->file = SIZE_MAX;
		sc->first = sc->last = sc->sum.line;
	}
	for (size_t i = 0; i < s->nscopes; i++) {
		struct scope *sc = &s->scopes[i];
		unsigned limit = 0, end;

		if (sc->sum.region || sc->file == SIZE_MAX)
			continue;
		for (size_t j = 0; j < s->nscopes; j++)
			if (!s->scopes[j].sum.region && s->scopes[j].file == sc->file &&
			    s->scopes[j].first > sc->first &&
			    (!limit || s->scopes[j].first < limit))
				limit = s->scopes[j].first;
		end = dwarf_last_line(s, sc, limit);
		if (!end)
			end = src_brace_end(&s->files[sc->file], sc->first, limit);
		sc->last = end >= sc->first ? end : sc->first;
	}
	for (size_t i = 0; i < s->nscopes; i++) {
		struct scope *sc = &s->scopes[i];

		for (size_t f = 0; sc->sum.region && f < s->nfiles && sc->file == SIZE_MAX; f++)
			if (!src_region_lines(&s->files[f], sc->sum.name, &sc->first, &sc->last))
				sc->file = f;
	}
}

/* Each line's costs. 0 or -ENOMEM. */
static int attribute(struct src *s, const struct sample_profile *lp)
{
	s->time_from_samples = lp && lp->time_ns > 0;
	for (size_t i = 0; lp && i < lp->nlines; i++) {
		const struct sprof_line *l = &lp->lines[i];
		size_t f = file_find(s, l->file);

		if (f == SIZE_MAX)
			continue;
		if (src_file_add(&s->files[f], SRC_SAMPLES, l->line, (double)l->samples) ==
			-ENOMEM ||
		    (s->time_from_samples &&
		     src_file_add(&s->files[f], SRC_TIME, l->line, (double)l->time_ns) == -ENOMEM))
			return -ENOMEM;
	}
	for (size_t i = 0; i < s->nscopes; i++) {
		const struct scope *sc = &s->scopes[i];
		struct src_file *f = sc->file == SIZE_MAX ? NULL : &s->files[sc->file];

		if (!f || sc->sum.region)
			continue;
		if ((!s->time_from_samples && sc->sum.excl_ns > 0 &&
		     src_file_add(f, SRC_TIME, sc->first, (double)sc->sum.excl_ns) == -ENOMEM) ||
		    (sc->sum.excl_j > 0 &&
		     src_file_add(f, SRC_ENERGY, sc->first, sc->sum.excl_j) == -ENOMEM))
			return -ENOMEM;
	}
	return 0;
}

/* The MPI scope profile when the run has MPI records (else nothing: no categories). */
static void build_mpi(struct src *s)
{
	char err[512];
	void *mp;
	int ret;

	if (!html_mpi(s->in) || !html_waits(s->in))
		return; /* no model, or out of memory: html_waits() failed the report */
	ret = session_get(s->in->s, SESSION_SCOPES, &mp, err, sizeof(err));
	if (ret == -ENOMEM)
		s->in->failed = 1;
	else if (ret)
		html_caveat(s->in, "Source view: no MPI categories: %s", err);
	else
		s->mp = mp;
}

/* The MPI scope of SC, or SIZE_MAX. */
static size_t mpi_find(const struct src *s, const struct scope *sc)
{
	enum mpi_scope_kind k = sc->sum.region ? MPI_SCOPE_REGION : MPI_SCOPE_FUNCTION;

	for (size_t i = 0; s->mp && i < s->mp->nscopes; i++)
		if (s->mp->scopes[i].kind == k && !strcmp(s->mp->scopes[i].name, sc->sum.name))
			return i;
	return SIZE_MAX;
}

/*
 * SC's inclusive cost in metric M: measured where a profile has it, else its lines' sum. A
 * sampled function's samples are the sample profile's, as report counts them: its lines' sum
 * would miss the code inlined into it (its lines are the callee's) and count copies of it
 * inlined elsewhere.
 */
static double scope_cost(const struct src *s, const struct scope *sc, enum src_metric m)
{
	const struct src_file *f = &s->files[sc->file];

	if (m == SRC_TIME && (sc->sum.region || (!s->time_from_samples && sc->sum.calls)))
		return (double)sc->sum.incl_ns;
	if (m == SRC_TIME && s->time_from_samples && sc->sum.sampled)
		return (double)sc->sum.incl_sample_ns;
	if (m == SRC_SAMPLES && sc->sum.sampled)
		return (double)sc->sum.incl_samples;
	if (m == SRC_ENERGY && sc->sum.incl_j > 0)
		return sc->sum.incl_j;
	return src_file_sum(f, m, sc->first, sc->last);
}

static void write_metric_value(struct jsonw *w, enum src_metric m, double v)
{
	if (m == SRC_ENERGY)
		jsonw_double(w, v);
	else
		jsonw_i64(w, (int64_t)(v + 0.5));
}

static void write_scope(struct jsonw *w, const struct src *s, const struct scope *sc,
			const struct src_scope *ss, const int *shown)
{
	size_t mi = mpi_find(s, sc);

	jsonw_object_begin(w);
	jsonw_kv_string(w, "name", sc->sum.name);
	jsonw_kv_string(w, "kind", sc->sum.region ? "region" : "function");
	jsonw_kv_u64(w, "first", ss->first);
	jsonw_kv_u64(w, "last", ss->last);
	jsonw_kv_u64(w, "depth", ss->depth);
	jsonw_kv_i64(w, "parent", ss->parent == SRC_NO_PARENT ? -1 : (int64_t)ss->parent);
	jsonw_kv_u64(w, "calls", sc->sum.calls);
	if (sc->sum.calls)
		jsonw_kv_i64(w, "excl_ns", sc->sum.excl_ns);
	jsonw_key(w, "incl");
	jsonw_object_begin(w);
	for (int m = 0; m < SRC_NMETRICS; m++) {
		if (!shown[m])
			continue;
		jsonw_key(w, src_metric_name(m));
		write_metric_value(w, m, scope_cost(s, sc, m));
	}
	jsonw_object_end(w);
	if (mi != SIZE_MAX) {
		static const char *const cat[] = {"comp", "mpi", "wait"};
		struct mpi_scope_total t;

		mpi_scope_total(s->mp, mi, &t);
		jsonw_key(w, "cat");
		jsonw_array_begin(w);
		jsonw_i64(w, mpi_scope_comp_incl(&t.sum));
		jsonw_i64(w, mpi_scope_mpi_incl(&t.sum));
		jsonw_i64(w, t.sum.wait_incl_ns);
		jsonw_array_end(w);
		jsonw_key(w, "ranks");
		jsonw_object_begin(w);
		for (int c = 0; c < 3; c++) {
			jsonw_key(w, cat[c]);
			jsonw_array_begin(w);
			for (int r = 0; r < s->mp->nranks; r++) {
				const struct mpi_scope_cell *cell = mpi_scope_cell(s->mp, mi, r);

				jsonw_i64(w, c == 0   ? mpi_scope_comp_incl(cell)
					     : c == 1 ? mpi_scope_mpi_incl(cell)
						      : cell->wait_incl_ns);
			}
			jsonw_array_end(w);
		}
		jsonw_object_end(w);
	}
	if (sc->sum.calls && sc->end - sc->begin > 0) {
		/* per thread: [tid, calls, incl_ns, excl_ns] */
		jsonw_key(w, "threads");
		jsonw_array_begin(w);
		for (size_t i = sc->begin; i < sc->end; i++) {
			const struct raw *r = &s->raws[i];

			if (!r->calls)
				continue;
			jsonw_array_begin(w);
			jsonw_i64(w, r->tid);
			jsonw_u64(w, r->calls);
			jsonw_i64(w, r->incl_ns);
			jsonw_i64(w, r->excl_ns);
			jsonw_array_end(w);
		}
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
}

static int write_file(struct jsonw *w, const struct src *s, size_t fi, const int *shown)
{
	const struct src_file *f = &s->files[fi];
	struct src_scope *ss;
	size_t n = 0;

	ss = calloc(s->nscopes ? s->nscopes : 1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	for (size_t i = 0; i < s->nscopes; i++)
		if (s->scopes[i].file == fi)
			ss[n++] =
			    (struct src_scope){s->scopes[i].first, s->scopes[i].last, 0, 0, i};
	if (src_scopes_nest(ss, n)) {
		free(ss);
		return -ENOMEM;
	}
	jsonw_object_begin(w);
	jsonw_kv_string(w, "path", f->path);
	jsonw_key(w, "lines");
	jsonw_array_begin(w);
	for (unsigned l = 0; l < f->nlines; l++)
		jsonw_string(w, f->lines[l]);
	jsonw_array_end(w);
	/* per metric: [line, cost, line, cost, ...] of the lines with a cost */
	jsonw_key(w, "cost");
	jsonw_object_begin(w);
	for (int m = 0; m < SRC_NMETRICS; m++) {
		if (!shown[m])
			continue;
		jsonw_key(w, src_metric_name(m));
		jsonw_array_begin(w);
		for (unsigned l = 0; f->cost[m] && l < f->nlines; l++) {
			if (f->cost[m][l] <= 0)
				continue;
			jsonw_u64(w, l + 1);
			write_metric_value(w, m, f->cost[m][l]);
		}
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
	jsonw_key(w, "scopes");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		write_scope(w, s, &s->scopes[ss[i].id], &ss[i], shown);
	jsonw_array_end(w);
	jsonw_object_end(w);
	free(ss);
	return 0;
}

static int write_source(struct jsonw *w, struct src *s, const struct sample_profile *lp)
{
	int shown[SRC_NMETRICS] = {0}, any = 0;
	double total[SRC_NMETRICS] = {0};

	for (size_t f = 0; f < s->nfiles; f++)
		for (int m = 0; m < SRC_NMETRICS; m++)
			shown[m] |= s->files[f].total[m] > 0;
	for (int m = 0; m < SRC_NMETRICS; m++)
		any |= shown[m];
	if (!any)
		return 0;
	/* the run's totals, shown or not, so shares are of the whole run */
	for (size_t i = 0; i < s->nscopes; i++) {
		if (s->scopes[i].sum.region)
			continue;
		total[SRC_TIME] += s->time_from_samples ? 0 : (double)s->scopes[i].sum.excl_ns;
		total[SRC_ENERGY] += s->scopes[i].sum.excl_j;
	}
	if (lp) {
		total[SRC_SAMPLES] = (double)lp->samples;
		if (s->time_from_samples)
			total[SRC_TIME] = (double)lp->time_ns;
	}
	jsonw_key(w, "source");
	jsonw_object_begin(w);
	jsonw_key(w, "metrics");
	jsonw_array_begin(w);
	for (int m = 0; m < SRC_NMETRICS; m++)
		if (shown[m])
			jsonw_string(w, src_metric_name(m));
	jsonw_array_end(w);
	jsonw_kv_string(w, "time_from", s->time_from_samples ? "samples" : "functions");
	jsonw_key(w, "total");
	jsonw_object_begin(w);
	for (int m = 0; m < SRC_NMETRICS; m++) {
		if (!shown[m])
			continue;
		jsonw_key(w, src_metric_name(m));
		write_metric_value(w, m, total[m]);
	}
	jsonw_object_end(w);
	if (s->mp)
		jsonw_kv_i64(w, "ranks", s->mp->nranks);
	jsonw_key(w, "files");
	jsonw_array_begin(w);
	for (size_t f = 0; f < s->nfiles; f++)
		if (write_file(w, s, f, shown))
			return -ENOMEM;
	jsonw_array_end(w);
	jsonw_object_end(w);
	return 0;
}

int html_data_source(struct jsonw *w, struct html_input *in)
{
	struct src s = {.in = in};
	const struct sample_profile *lp;
	int ret;

	lp = line_profile(&s);
	ret = collect_rows(&s);
	if (!ret)
		ret = merge_rows(&s);
	if (!ret)
		ret = read_files(&s, lp);
	if (!ret) {
		place_scopes(&s);
		ret = attribute(&s, lp);
	}
	if (!ret && s.nfiles) {
		build_mpi(&s);
		ret = write_source(w, &s, lp);
	}
	if (s.have_own)
		sample_profile_release(&s.own);
	for (size_t i = 0; i < s.nfiles; i++)
		src_file_release(&s.files[i]);
	free(s.files);
	free(s.scopes);
	free(s.raws);
	return ret;
}
