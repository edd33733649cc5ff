/* sprofile.c - functions and lines of a sampled experiment. */
#include "analysis/profile/sample-profile.h"
#include "lib/array.h"
#include "lib/hashmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build {
	struct sample_profile *p;
	int lines;
	struct str_arena names; /* "module (no symbols)" labels */
	uint32_t *path;		/* the sample's functions in p->calls, outermost first */
	size_t pathcap;
};

/* The function's ELF address in its module: the same in every process that maps it. */
static uint64_t function_offset(const struct sym_info *sym, uint64_t addr)
{
	return sym->known && sym->start && sym->start <= addr ? sym->offset - (addr - sym->start)
							      : 0;
}

static int same_row(const struct sprof_row *r, const struct sym_info *sym, uint64_t foff, pid_t tid,
		    pid_t pid)
{
	return r->tid == tid && r->pid == pid && r->sym.known == sym->known &&
	       function_offset(&r->sym, r->addr) == foff && !strcmp(r->sym.module, sym->module) &&
	       (!sym->known || !strcmp(r->sym.name, sym->name));
}

/* The row of the function SYM holding ADDR (the sample's IP or a caller's) in S's thread. */
static struct sprof_row *row_get(struct build *b, const struct sample *s, uint64_t addr,
				 const struct sym_info *sym)
{
	struct sample_profile *p = b->p;
	pid_t tid = p->per_thread ? s->tid : 0, pid = p->per_thread ? s->pid : 0;
	uint64_t foff = function_offset(sym, addr);
	uint64_t h =
	    hash_str(hash_str(HASH_INIT ^ foff, sym->module), sym->known ? sym->name : "") ^
	    ((uint64_t)(uint32_t)tid << 20) ^ (uint64_t)(uint32_t)pid;
	struct sprof_row *r;

	for (size_t at = hchain_first(p->index, h); at; at = hchain_next(p->index, at))
		if (same_row(&p->rows[at - 1], sym, foff, tid, pid))
			return &p->rows[at - 1];
	if (p->nrows == p->rowcap) {
		size_t cap = p->rowcap ? 2 * p->rowcap : 256;
		struct sprof_row *nr = realloc(p->rows, cap * sizeof(*nr));
		uint64_t *nc = realloc(p->counts, cap * (p->nevents + 1) * sizeof(*nc));

		if (nr)
			p->rows = nr;
		if (nc)
			p->counts = nc;
		if (!nr || !nc)
			return NULL;
		p->rowcap = cap;
	}
	r = &p->rows[p->nrows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->tid = tid;
	r->image = s->image;
	r->addr = addr;
	r->sym = *sym;
	if (!sym->known) {
		/* addresses without a symbol count for their module as a whole */
		char label[256];
		const char *name = sample_function_name(sym, label, sizeof(label));

		r->sym.name = name == label ? arena_strndup(&b->names, label, strlen(label)) : name;
		if (!r->sym.name)
			return NULL;
		r->sym.file = "";
		r->sym.line = 0;
		r->sym.func_file = "";
		r->sym.func_line = 0;
	}
	r->counts = p->nrows;
	memset(p->counts + r->counts * p->nevents, 0, p->nevents * sizeof(uint64_t));
	if (scall_func_id(&p->calls, r->sym.name, r->sym.module, &r->cfunc))
		return NULL;
	if (hchain_add(p->index, h, p->nrows))
		return NULL;
	p->nrows++;
	return r;
}

static int line_add(struct build *b, const struct sample *s, const struct sym_info *sym,
		    const char *func)
{
	struct sample_profile *p = b->p;
	uint64_t h = hash_str(hash_str(HASH_INIT ^ sym->line, sym->file), func);
	struct sprof_line *l = NULL;

	for (size_t at = hchain_first(p->line_index, h); !l && at;
	     at = hchain_next(p->line_index, at))
		if (p->lines[at - 1].line == sym->line &&
		    !strcmp(p->lines[at - 1].file, sym->file) &&
		    !strcmp(p->lines[at - 1].func, func))
			l = &p->lines[at - 1];
	if (!l) {
		if (ARRAY_GROW(p->lines, p->nlines + 1, p->linecap))
			return -ENOMEM;
		if (hchain_add(p->line_index, h, p->nlines))
			return -ENOMEM;
		l = &p->lines[p->nlines++];
		*l = (struct sprof_line){sym->file, sym->line, func, sym->module, 0, 0};
	}
	l->samples++;
	l->time_ns += s->weight_ns;
	return 0;
}

int sample_kernel_sym(const struct kallsyms *k, uint64_t addr, struct sym_info *sym)
{
	const struct kallsym *ks = kallsyms_find(k, addr);

	*sym = (struct sym_info){
	    .name = "[kernel]", .module = "[kernel]", .file = "", .func_file = ""};
	if (!ks)
		return 0;
	sym->name = ks->name;
	sym->offset = addr;
	sym->start = ks->addr;
	sym->known = 1;
	return 1;
}

/* Count ROW in the sample's inclusive counts, once per sample. */
static void count_incl(struct sample_profile *p, struct sprof_row *row, const struct sample *s)
{
	if (row->seen == p->samples + 1)
		return;
	row->seen = p->samples + 1;
	row->incl_samples++;
	row->incl_ns += s->weight_ns;
}

/*
 * The callers of the leader's sample S (return addresses: named at the call, ADDR - 1) into
 * the inclusive counts and b->path, outermost first, kernel frames below the user ones (those
 * no kernel symbol names are left out). A sample in the kernel's first user frame is where the
 * thread entered the kernel, not a return address: the interrupted or faulting instruction
 * itself (after a fault on a function's first instruction, ADDR - 1 is in the function before),
 * or the one after a system call, in practice still in the calling function: it is named at ADDR.
 * The number of callers on the path, or -ENOMEM.
 */
static long add_callers(struct build *b, const struct sample *s)
{
	struct sample_profile *p = b->p;
	size_t n = 0;

	if (ARRAY_GROW(b->path, s->nchain + 1, b->pathcap))
		return -ENOMEM;
	for (size_t k = s->nchain; k-- > 0;) {
		uint64_t addr =
		    s->chain[k] && !(s->kernel && k == s->nkchain) ? s->chain[k] - 1 : s->chain[k];
		struct sym_info sym;
		struct sprof_row *r;

		if (k < s->nkchain) {
			p->kframes++;
			if (!sample_kernel_sym(&p->ksyms, addr, &sym)) {
				p->kframes_unnamed++;
				continue;
			}
		} else if (symtab_lookup_at(p->syms, s->pid, s->image, addr, (int64_t)s->ns,
					    &sym)) {
			return -ENOMEM;
		}
		r = row_get(b, s, addr, &sym);
		if (!r)
			return -ENOMEM;
		count_incl(p, r, s);
		b->path[n++] = r->cfunc;
	}
	return (long)n;
}

static int on_sample(void *ctx, const struct sample *s)
{
	struct build *b = ctx;
	struct sample_profile *p = b->p;
	struct sym_info sym;
	struct sprof_row *r;
	uint64_t *c;
	size_t ri;
	long ncallers;
	int ret;

	if (s->kernel) {
		if (sample_kernel_sym(&p->ksyms, s->ip, &sym) && s->group == 0)
			p->kernel_named++;
		p->kernel_samples += s->group == 0;
	} else if (symtab_lookup_at(p->syms, s->pid, s->image, s->ip, (int64_t)s->ns, &sym)) {
		return -ENOMEM;
	}
	r = row_get(b, s, s->ip, &sym);
	if (!r)
		return -ENOMEM;
	c = p->counts + r->counts * p->nevents;
	for (uint32_t k = 0; k < p->nevents; k++) {
		c[k] += s->delta[k];
		p->estimated[k] += s->delta[k];
	}
	if (s->group != 0)
		return 0;
	ri = (size_t)(r - p->rows);
	ncallers = add_callers(b, s);
	if (ncallers < 0)
		return (int)ncallers;
	r = &p->rows[ri]; /* add_callers may have moved the rows */
	count_incl(p, r, s);
	b->path[ncallers] = r->cfunc;
	ret = scall_add(&p->calls, b->path, (size_t)ncallers + 1, s->weight_ns);
	if (ret)
		return ret;
	p->chains += s->nchain > 0;
	r->samples++;
	r->time_ns += s->weight_ns;
	p->samples++;
	p->time_ns += s->weight_ns;
	return b->lines && !s->kernel ? line_add(b, s, &sym, r->sym.name) : 0;
}

int sample_profile_build(struct sample_profile *p, const struct experiment *e, struct symtab *syms,
			 int per_thread, int lines, char *err, size_t errlen)
{
	struct build b = {p, lines, {0}, NULL, 0};
	int ret;

	memset(p, 0, sizeof(*p));
	p->syms = syms;
	p->per_thread = per_thread;
	p->nevents = (uint32_t)e->sampling.nevents;
	p->estimated = calloc(p->nevents + 1, sizeof(uint64_t));
	p->index = calloc(1, sizeof(*p->index));
	p->line_index = calloc(1, sizeof(*p->line_index));
	if (!p->estimated || !p->index || !p->line_index || scall_init(&p->calls)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = kallsyms_load(&p->ksyms, e->dir, err, errlen);
	if (ret)
		return ret;
	ret = samples_walk(e, &p->walk, on_sample, &b, err, errlen);
	free(b.path);
	if (ret == -ENOMEM && !*err)
		snprintf(err, errlen, "out of memory");
	/* the labels live as long as the profile: hand the arena to the symtab's lifetime */
	p->names = b.names;
	return ret;
}

static int cmp_row(const void *a, const void *b)
{
	const struct sprof_row *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->sym.name, y->sym.name);
}

static int cmp_row_incl(const void *a, const void *b)
{
	const struct sprof_row *x = a, *y = b;

	if (x->incl_ns != y->incl_ns)
		return x->incl_ns < y->incl_ns ? 1 : -1;
	if (x->incl_samples != y->incl_samples)
		return x->incl_samples < y->incl_samples ? 1 : -1;
	return cmp_row(a, b);
}

static int cmp_row_name(const void *a, const void *b)
{
	const struct sprof_row *x = a, *y = b;
	int c = strcmp(x->sym.name, y->sym.name);

	return c ? c : (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_line(const void *a, const void *b)
{
	const struct sprof_line *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->file, y->file);
}

void sample_profile_sort(struct sample_profile *p)
{
	sample_profile_sort_by(p, SPROF_SELF);
}

void sample_profile_sort_by(struct sample_profile *p, enum sprof_key key)
{
	if (p->nrows)
		qsort(p->rows, p->nrows, sizeof(*p->rows),
		      key == SPROF_INCL	  ? cmp_row_incl
		      : key == SPROF_NAME ? cmp_row_name
					  : cmp_row);
	if (p->nlines)
		qsort(p->lines, p->nlines, sizeof(*p->lines), cmp_line);
	/* the indexes point at the old order: a sorted profile is for reading only */
	hchain_release(p->index);
	hchain_release(p->line_index);
}

void sample_profile_release(struct sample_profile *p)
{
	sample_walk_release(&p->walk);
	if (p->index)
		hchain_release(p->index);
	if (p->line_index)
		hchain_release(p->line_index);
	free(p->index);
	free(p->line_index);
	free(p->rows);
	free(p->counts);
	free(p->lines);
	free(p->estimated);
	arena_release(&p->names);
	kallsyms_release(&p->ksyms);
	scall_release(&p->calls);
	memset(p, 0, sizeof(*p));
}
