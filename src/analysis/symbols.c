/*
 * symbols.c - addresses to function names, source lines and modules (symbols.h).
 *
 * A process's maps are read on its first lookup; each mapping learns its module (opened once
 * per path, elf-module.h) and load bias on first use; every answer is kept in a hash table
 * keyed by (pid, image, address).
 */
#include "symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf-module.h"

/* Per mapping of a process: its module and load bias, found on first use. */
struct sym_map {
	struct elf_module *mod;
	uint64_t bias;
	int state; /* 0 not yet, 1 bias known, -1 no usable module */
};

struct sym_proc {
	pid_t pid;
	unsigned image;
	int err; /* reading the maps file */
	struct maps maps;
	struct sym_map *ext;
};

struct sym_slot {
	uint64_t addr;
	pid_t pid;
	unsigned image;
	int used;
	struct sym_info info;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The module at path, opened on first use; NULL only when out of memory. */
static struct elf_module *module_get(struct symtab *st, const char *path)
{
	struct elf_module *mod;
	size_t i;

	for (i = 0; i < st->nmods; i++)
		if (!strcmp(st->mods[i]->path, path))
			return st->mods[i];
	if (st->nmods == st->modcap) {
		size_t cap = st->modcap ? st->modcap * 2 : 16;
		struct elf_module **v = realloc(st->mods, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->mods = v;
		st->modcap = cap;
	}
	mod = malloc(sizeof(*mod));
	if (!mod)
		return NULL;
	if (elf_module_open(mod, path) == -ENOMEM) {
		elf_module_release(mod);
		free(mod);
		return NULL;
	}
	st->mods[st->nmods++] = mod;
	return mod;
}

/* ---- processes and lookups ------------------------------------------------------------------ */

static struct sym_proc *proc_get(struct symtab *st, pid_t pid, unsigned image)
{
	struct sym_proc *p;
	char path[PATH_MAX], ppath[PATH_MAX];
	const char *const paths[] = {path, ppath};
	size_t i;

	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i].pid == pid && st->procs[i].image == image)
			return &st->procs[i];
	if (st->nprocs == st->proccap) {
		size_t cap = st->proccap ? st->proccap * 2 : 8;
		struct sym_proc *v = realloc(st->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->procs = v;
		st->proccap = cap;
	}
	p = &st->procs[st->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->image = image;
	/* the runtime's copies of /proc/PID/maps, then the mappings the sampler's kernel
	 * records reported (pmaps), which also cover programs run without the runtime */
	if (image) {
		snprintf(path, sizeof(path), "%s/maps.%d.%u", st->dir, (int)pid, image);
		snprintf(ppath, sizeof(ppath), "%s/pmaps.%d.%u", st->dir, (int)pid, image);
	} else {
		snprintf(path, sizeof(path), "%s/maps.%d", st->dir, (int)pid);
		snprintf(ppath, sizeof(ppath), "%s/pmaps.%d", st->dir, (int)pid);
	}
	p->err = maps_load(&p->maps, paths, 2);
	if (p->err == -ENOMEM) {
		maps_release(&p->maps);
		return NULL;
	}
	if (p->err)
		maps_release(&p->maps);
	p->ext = calloc(p->maps.n ? p->maps.n : 1, sizeof(*p->ext));
	if (!p->ext) {
		maps_release(&p->maps);
		return NULL;
	}
	st->nprocs++;
	return p;
}

static int resolve(struct symtab *st, pid_t pid, unsigned image, uint64_t addr,
		   struct sym_info *out)
{
	const struct maps_entry *e;
	struct sym_proc *proc;
	struct sym_map *m;
	struct elf_func *f;
	uint64_t fileoff;
	long idx;

	memset(out, 0, sizeof(*out));
	out->module = out->file = out->func_file = "";
	out->offset = addr;
	proc = proc_get(st, pid, image);
	if (!proc)
		return -ENOMEM;
	idx = maps_find(&proc->maps, addr);
	if (idx < 0 || !proc->maps.v[idx].path[0]) {
		out->name = arena_printf(&st->strings, "[unknown]+0x%" PRIx64, addr);
		return out->name ? 0 : -ENOMEM;
	}
	e = &proc->maps.v[idx];
	m = &proc->ext[idx];
	out->module = e->path;
	fileoff = e->offset + (addr - e->start);
	if (m->state == 0) {
		m->state = -1;
		if (e->path[0] == '/' && !e->deleted) {
			m->mod = module_get(st, e->path);
			if (!m->mod)
				return -ENOMEM;
			if (!m->mod->err && elf_module_bias(m->mod, e, &m->bias) == 0)
				m->state = 1;
		}
	}
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
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(dir, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	st->dir = strdup(dir);
	return st->dir ? 0 : -ENOMEM;
}

int symtab_lookup(struct symtab *st, pid_t pid, unsigned image, uint64_t addr, struct sym_info *out)
{
	struct sym_slot *s;
	int ret;

	if (st->nslots && (s = slot_find(st, pid, image, addr))->used) {
		*out = s->info;
		return 0;
	}
	ret = resolve(st, pid, image, addr, out);
	if (ret || !out->name) {
		out->name = "[unknown]";
		return ret ? ret : -ENOMEM;
	}
	if ((st->nused + 1) * 10 > st->nslots * 7 && slots_grow(st))
		return 0;
	s = slot_find(st, pid, image, addr);
	*s = (struct sym_slot){addr, pid, image, 1, *out};
	st->nused++;
	return 0;
}

int symtab_find_function(struct symtab *st, const char *module, const char *name, uint64_t *offset)
{
	struct elf_module *mod = module_get(st, module);
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

	return p && !p->err ? &p->maps : NULL;
}

void symtab_release(struct symtab *st)
{
	size_t i;

	for (i = 0; i < st->nprocs; i++) {
		maps_release(&st->procs[i].maps);
		free(st->procs[i].ext);
	}
	for (i = 0; i < st->nmods; i++) {
		elf_module_release(st->mods[i]);
		free(st->mods[i]);
	}
	free(st->procs);
	free(st->mods);
	free(st->slots);
	free(st->dir);
	arena_release(&st->strings);
	memset(st, 0, sizeof(*st));
}
