/*
 * symbols.c - addresses to function names, source lines and modules (symbols.h).
 *
 * A process's maps are read on its first lookup; each mapping of their history learns its
 * module (opened once per path and object, elf-module.h) and load bias on first use; every
 * answer is kept in a hash table keyed by (pid, image, place).
 */
#include "model/symbols.h"
#include "lib/array.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/elf-module.h"
#include "model/experiment-open.h"
#include "model/objcache.h"

#include "format/layout.h"

/* Per mapping of a process: its module and load bias, found on first use. */
struct sym_map {
	struct elf_module *mod;
	uint64_t bias;
	int state; /* 0 not yet, 1 bias known, -1 no usable module */
};

struct sym_proc {
	pid_t pid;
	unsigned image;
	int err;	     /* reading the maps files: neither could be read */
	struct maps maps;    /* the runtime's copies */
	struct maps pmaps;   /* the sampler's kernel records */
	struct sym_map *ext; /* per instance of maps, then of pmaps */
	int timed;	     /* the copies' times are on the events' time base */
};

/* A process's clock, from the experiment, to place the runtime's copies in time. */
struct sym_fit {
	pid_t pid;
	unsigned image;
	struct clock_fit fit;
};

struct sym_slot {
	uint64_t addr;
	pid_t pid;
	unsigned image;
	int used; /* 0 free, 1 looked up, 2 with the function inlined there (info.inlined) */
	struct sym_info info;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The same object as the recording describes it (NULL: unknown). */
static int same_id(const struct maps_object *a, const struct maps_object *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a->build_id, b->build_id) &&
	       (a->build_id[0] || (a->size == b->size && a->mtime_ns == b->mtime_ns));
}

/* The module mapped from path as object id, opened on first use; NULL only when out of memory. */
static struct elf_module *module_get(struct symtab *st, const char *path,
				     const struct maps_object *id)
{
	struct elf_module *mod;
	size_t i;

	for (i = 0; i < st->nmods; i++)
		if (!strcmp(st->mods[i]->path, path) && same_id(st->mod_ids[i], id))
			return st->mods[i];
	if (st->nmods == st->modcap) {
		/* mods and mod_ids both have room for modcap: from it, they grow alike */
		size_t cap = st->modcap, idcap = st->modcap;

		if (ARRAY_GROW(st->mods, st->nmods + 1, cap) ||
		    ARRAY_GROW(st->mod_ids, st->nmods + 1, idcap))
			return NULL;
		st->modcap = cap;
	}
	mod = malloc(sizeof(*mod));
	if (!mod)
		return NULL;
	if (elf_module_open_object(mod, path, id, st->cache) == -ENOMEM) {
		elf_module_release(mod);
		free(mod);
		return NULL;
	}
	st->mod_ids[st->nmods] = id;
	st->mods[st->nmods++] = mod;
	return mod;
}

/* ---- processes and places ------------------------------------------------------------------- */

static int64_t fit_conv(void *ctx, int64_t when)
{
	return clock_fit_ns(ctx, (uint64_t)when);
}

/* The processes' clocks, from the experiment (read once, when a history needs them). */
static void fits_read(struct symtab *st)
{
	struct experiment e;
	char err[512];

	st->fits_read = 1;
	if (experiment_open(&e, st->dir, err, sizeof(err)) == 0) {
		st->fits = calloc(e.nprocs + 1, sizeof(*st->fits));
		for (size_t i = 0; st->fits && i < e.nprocs; i++)
			st->fits[st->nfits++] =
			    (struct sym_fit){e.procs[i].pid, e.procs[i].image, e.procs[i].fit};
	}
	experiment_release(&e);
}

/* Puts the runtime's copies of P on the events' time base (the process's clock fit); without
 * a fit they keep no time, and lookups take the mapping at the end of the process. */
static void proc_times(struct symtab *st, struct sym_proc *p)
{
	p->timed = 1;
	if (!p->maps.ambiguous)
		return;
	if (!st->fits_read)
		fits_read(st);
	for (size_t i = 0; i < st->nfits; i++)
		if (st->fits[i].pid == p->pid && st->fits[i].image == p->image) {
			maps_set_times(&p->maps, fit_conv, &st->fits[i].fit);
			return;
		}
}

static struct sym_proc *proc_get(struct symtab *st, pid_t pid, unsigned image)
{
	struct sym_proc *p;
	char path[PATH_MAX], ppath[PATH_MAX];
	const char *const paths[] = {path}, *const ppaths[] = {ppath};
	size_t i;
	int perr;

	if (st->last && st->last->pid == pid && st->last->image == image)
		return st->last;
	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i].pid == pid && st->procs[i].image == image)
			return st->last = &st->procs[i];
	if (ARRAY_GROW(st->procs, st->nprocs + 1, st->proccap))
		return NULL;
	st->last = NULL;
	p = &st->procs[st->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->image = image;
	/* the runtime's copies of /proc/PID/maps, and the mappings the sampler's kernel
	 * records reported (pmaps), which also cover programs run without the runtime */
	layout_path(st->dir,
		    &(struct layout_file){.kind = LAYOUT_MAPS, .pid = (int)pid, .image = image},
		    path, sizeof(path));
	layout_path(st->dir,
		    &(struct layout_file){.kind = LAYOUT_PMAPS, .pid = (int)pid, .image = image},
		    ppath, sizeof(ppath));
	p->err = maps_load(&p->maps, paths, 1);
	perr = p->err == -ENOMEM ? 0 : maps_load(&p->pmaps, ppaths, 1);
	if (p->err == -ENOMEM || perr == -ENOMEM) {
		maps_release(&p->maps);
		maps_release(&p->pmaps);
		return NULL;
	}
	if (p->err)
		maps_release(&p->maps);
	if (perr)
		maps_release(&p->pmaps);
	else
		maps_set_times(&p->pmaps, NULL, NULL); /* kernel times are ns already */
	p->err = p->err && perr ? p->err : 0;
	p->ext = calloc(p->maps.ninsts + p->pmaps.ninsts + 1, sizeof(*p->ext));
	if (!p->ext) {
		maps_release(&p->maps);
		maps_release(&p->pmaps);
		return NULL;
	}
	st->nprocs++;
	return st->last = p;
}

/* The history holding addr: the runtime's when it ever held it, else the sampler's. */
static const struct maps *maps_of(const struct sym_proc *p, uint64_t addr, size_t *ext0)
{
	*ext0 = 0;
	if (maps_at(&p->maps, addr, SYMTAB_END) >= 0)
		return &p->maps;
	*ext0 = p->maps.ninsts;
	return &p->pmaps;
}

uint64_t symtab_place_slow(struct symtab *st, pid_t pid, unsigned image, uint64_t addr, int64_t ns)
{
	struct sym_proc *p = proc_get(st, pid, image);
	const struct maps *m;
	size_t ext0;
	unsigned tag;

	st->plain = p && !p->maps.ambiguous && !p->pmaps.ambiguous
			? (uint64_t)(uint32_t)pid << 32 | image
			: UINT64_MAX;
	if (!p || st->plain != UINT64_MAX || addr >> SYMTAB_PLACE_TAG_SHIFT)
		return addr;
	if (!p->timed)
		proc_times(st, p);
	m = maps_of(p, addr, &ext0);
	tag = maps_tag(m, addr, maps_at(m, addr, ns));
	return addr | (uint64_t)tag << SYMTAB_PLACE_TAG_SHIFT;
}

/* PLACE of PID's IMAGE into *OUT, with OUT->inlined when INLINED. 0 or -ENOMEM. */
static int resolve(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
		   struct sym_info *out, int inlined)
{
	uint64_t addr = SYMTAB_PLACE_ADDR(place), fileoff;
	unsigned tag = place == addr ? 0 : (unsigned)(place >> SYMTAB_PLACE_TAG_SHIFT);
	const struct maps_inst *x;
	const struct maps_entry *e;
	const struct maps *maps;
	struct sym_proc *proc;
	struct sym_map *m;
	struct elf_func *f;
	size_t ext0;
	long idx;

	memset(out, 0, sizeof(*out));
	out->module = out->file = out->func_file = "";
	out->offset = addr;
	proc = proc_get(st, pid, image);
	if (!proc)
		return -ENOMEM;
	maps = maps_of(proc, addr, &ext0);
	idx = tag ? maps_untag(maps, addr, tag) : -1;
	if (idx < 0)
		idx = maps_at(maps, addr, SYMTAB_END);
	if (idx < 0 || !maps->insts[idx].e.path[0]) {
		out->name = arena_printf(&st->strings, "[unknown]+0x%" PRIx64, addr);
		return out->name ? 0 : -ENOMEM;
	}
	x = &maps->insts[idx];
	e = &x->e;
	m = &proc->ext[ext0 + (size_t)idx];
	out->module = e->path;
	out->object = x->obj;
	fileoff = e->offset + (addr - e->start);
	if (m->state == 0) {
		m->state = -1;
		/* a deleted file is read only when the recording says what it was */
		if (e->path[0] == '/' && (!e->deleted || x->obj)) {
			m->mod = module_get(st, e->path, x->obj);
			if (!m->mod)
				return -ENOMEM;
			if (!m->mod->err && elf_module_bias(m->mod, e, &m->bias) == 0)
				m->state = 1;
		}
	}
	out->stale = m->mod && (m->mod->state == OBJ_CHANGED || m->mod->state == OBJ_MISSING);
	if (m->state < 0) {
		out->offset = fileoff;
		out->name =
		    arena_printf(&st->strings, "%s+0x%" PRIx64, base_name(e->path), fileoff);
		return out->name ? 0 : -ENOMEM;
	}
	out->offset = addr - m->bias;
	elf_module_line(m->mod, out->offset, &out->file, &out->line);
	f = elf_module_func(m->mod, out->offset);
	if (!f) {
		out->name =
		    arena_printf(&st->strings, "%s+0x%" PRIx64, base_name(e->path), out->offset);
		return out->name ? 0 : -ENOMEM;
	}
	if (!f->decl_done)
		elf_module_decl(m->mod, f);
	out->known = 1;
	out->name = elf_func_name(f, &st->strings);
	out->start = f->addr + m->bias;
	if (f->decl_file) {
		out->func_file = f->decl_file;
		out->func_line = f->decl_line;
	}
	if (inlined) {
		out->inlined = elf_module_inlined(m->mod, out->offset, &st->strings);
		st->scope_walks++;
	}
	return 0;
}

static size_t slot_hash(pid_t pid, unsigned image, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)(uint32_t)pid << 32 | image) * 0xff51afd7ed558ccdull;
	return (size_t)(h ^ h >> 29);
}

static struct sym_slot *slot_find(const struct symtab *st, pid_t pid, unsigned image, uint64_t addr)
{
	size_t mask = st->nslots - 1, i = slot_hash(pid, image, addr) & mask;

	for (;; i = (i + 1) & mask) {
		struct sym_slot *s = &st->slots[i];

		if (!s->used || (s->addr == addr && s->pid == pid && s->image == image))
			return s;
	}
}

static int slots_grow(struct symtab *st)
{
	struct sym_slot *old = st->slots;
	size_t n = st->nslots, i;

	st->nslots = n ? n * 2 : 1024;
	st->slots = calloc(st->nslots, sizeof(*st->slots));
	if (!st->slots) {
		st->slots = old;
		st->nslots = n;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (old[i].used)
			*slot_find(st, old[i].pid, old[i].image, old[i].addr) = old[i];
	free(old);
	return 0;
}

int symtab_init(struct symtab *st, const char *dir)
{
	char root[PATH_MAX];
	struct stat sb;

	memset(st, 0, sizeof(*st));
	st->plain = UINT64_MAX;
	if (stat(dir, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	st->dir = strdup(dir);
	if (objcache_root(root, sizeof(root)) && !(st->cache = strdup(root)))
		return -ENOMEM;
	return st->dir ? 0 : -ENOMEM;
}

/* symtab_lookup(), with the function inlined at PLACE too when INLINED, through the cache: an
 * entry says whether its inlined function was looked up (DWARF's scopes at an address cost
 * milliseconds: an OpenMP region's site is named at every instance of the region). */
static int lookup(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
		  struct sym_info *out, int inlined)
{
	struct sym_slot *s = st->nslots ? slot_find(st, pid, image, place) : NULL;
	int ret;

	if (s && s->used >= 1 + inlined) {
		*out = s->info;
		if (!inlined)
			out->inlined = NULL;
		return 0;
	}
	ret = resolve(st, pid, image, place, out, inlined);
	if (ret || !out->name) {
		out->name = "[unknown]";
		return ret ? ret : -ENOMEM;
	}
	if (s && s->used) { /* looked up before, without its inlined function */
		*s = (struct sym_slot){place, pid, image, 2, *out};
		return 0;
	}
	if ((st->nused + 1) * 10 > st->nslots * 7 && slots_grow(st))
		return 0;
	s = slot_find(st, pid, image, place);
	*s = (struct sym_slot){place, pid, image, 1 + inlined, *out};
	st->nused++;
	return 0;
}

int symtab_lookup(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
		  struct sym_info *out)
{
	return lookup(st, pid, image, place, out, 0);
}

int symtab_lookup_inlined(struct symtab *st, pid_t pid, unsigned image, uint64_t place,
			  struct sym_info *out)
{
	return lookup(st, pid, image, place, out, 1);
}

int symtab_lookup_at(struct symtab *st, pid_t pid, unsigned image, uint64_t addr, int64_t ns,
		     struct sym_info *out)
{
	return symtab_lookup(st, pid, image, symtab_place(st, pid, image, addr, ns), out);
}

int symtab_open_module(struct symtab *st, const struct sym_info *si, struct elf_module *mod)
{
	return elf_module_open_object(mod, si->module, si->object, st->cache);
}

int symtab_find_function(struct symtab *st, const char *module, const char *name, uint64_t *offset)
{
	struct elf_module *mod = module_get(st, module, NULL);
	size_t i;

	if (!mod)
		return -ENOMEM;
	if (mod->err)
		return mod->err;
	for (i = 0; i < mod->nfuncs; i++)
		if (!strcmp(mod->funcs[i].raw, name)) {
			*offset = mod->funcs[i].addr;
			return 0;
		}
	for (i = 0; i < mod->nfuncs; i++)
		if (!strcmp(elf_func_name(&mod->funcs[i], &st->strings), name)) {
			*offset = mod->funcs[i].addr;
			return 0;
		}
	return -ENOENT;
}

const struct maps *symtab_maps(struct symtab *st, pid_t pid, unsigned image)
{
	struct sym_proc *p = proc_get(st, pid, image);

	if (!p || p->err)
		return NULL;
	return p->maps.ncopies ? &p->maps : &p->pmaps;
}

void symtab_release(struct symtab *st)
{
	size_t i;

	for (i = 0; i < st->nprocs; i++) {
		maps_release(&st->procs[i].maps);
		maps_release(&st->procs[i].pmaps);
		free(st->procs[i].ext);
	}
	for (i = 0; i < st->nmods; i++) {
		elf_module_release(st->mods[i]);
		free(st->mods[i]);
	}
	free(st->procs);
	free(st->mods);
	free(st->mod_ids);
	free(st->slots);
	free(st->dir);
	free(st->cache);
	free(st->fits);
	arena_release(&st->strings);
	memset(st, 0, sizeof(*st));
	st->plain = UINT64_MAX;
}
