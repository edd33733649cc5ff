/*
 * symbols.c - addresses to function names, source lines and modules (symbols.h).
 *
 * A module is opened once: its PT_LOAD headers (to turn a mapping's file offset into the load
 * bias), its function symbols from .symtab and .dynsym (and from a separate debug file's
 * .symtab when the module is stripped), and its DWARF for lines. Function symbols are kept in
 * one array sorted by address; aliases of one address sit together, the preferred name first.
 */
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (the CLI links libstdc++ for it). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DEBUG_ROOT "/usr/lib/debug"

struct sym_func {
	uint64_t addr;
	uint64_t end;	  /* of the address's group of aliases: [addr, end) */
	const char *raw;  /* in an ELF string table */
	const char *name; /* demangled or raw; NULL until first needed */
	const char *decl_file;
	unsigned decl_line;
	int decl_done;
	unsigned rank; /* lower is preferred among aliases */
};

struct sym_load {
	uint64_t offset, vaddr, filesz, memsz;
	unsigned flags; /* PF_X ... */
};

struct sym_module {
	char *path;
	int err; /* 0, or -errno why the module cannot be read */
	int fd, dbg_fd;
	Elf *elf, *dbg;
	Dwarf *dw;
	struct sym_load *loads;
	size_t nloads;
	struct sym_func *funcs;
	size_t nfuncs, funccap;
};

/* Per mapping of a process: its module and load bias, found on first use. */
struct sym_map {
	struct sym_module *mod;
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

/* ---- modules -------------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static int section_by_name(Elf *elf, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			if (out)
				*out = sh;
			return 1;
		}
	}
	return 0;
}

static int has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return (section_by_name(elf, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS) ||
	       section_by_name(elf, ".zdebug_info", NULL);
}

/* Lower ranks are preferred names for one address: fewer leading '_', global, short. */
static unsigned name_rank(const char *name, unsigned bind)
{
	unsigned under = 0, b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	size_t len = strlen(name);

	while (name[under] == '_' && under < 15)
		under++;
	return under << 24 | b << 20 | (unsigned)(len < 0xfffff ? len : 0xfffff);
}

/* Adds the function symbols of every SHT_SYMTAB (want == SHT_SYMTAB) or SHT_DYNSYM section. */
static int add_symbols(struct sym_module *mod, Elf *elf, unsigned want)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		found = 1;
		for (i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
			    sym.st_value == 0)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (mod->nfuncs == mod->funccap) {
				size_t cap = mod->funccap ? mod->funccap * 2 : 256;
				struct sym_func *f = realloc(mod->funcs, cap * sizeof(*f));

				if (!f)
					return -ENOMEM;
				mod->funcs = f;
				mod->funccap = cap;
			}
			mod->funcs[mod->nfuncs++] = (struct sym_func){
			    .addr = sym.st_value,
			    .end = sym.st_value + sym.st_size,
			    .raw = name,
			    .rank = name_rank(name, GELF_ST_BIND(sym.st_info)),
			};
		}
	}
	return found;
}

static int func_cmp(const void *a, const void *b)
{
	const struct sym_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Sorts the functions and gives every alias of an address the group's end. */
static void sort_functions(struct sym_module *mod)
{
	size_t i, j;

	if (!mod->nfuncs)
		return;
	qsort(mod->funcs, mod->nfuncs, sizeof(*mod->funcs), func_cmp);
	for (i = 0; i < mod->nfuncs; i = j) {
		uint64_t end = mod->funcs[i].end;

		for (j = i + 1; j < mod->nfuncs && mod->funcs[j].addr == mod->funcs[i].addr; j++)
			if (mod->funcs[j].end > end)
				end = mod->funcs[j].end;
		if (end == mod->funcs[i].addr) /* size unknown: up to the next function */
			end = j < mod->nfuncs ? mod->funcs[j].addr : end + 1;
		while (i < j)
			mod->funcs[i++].end = end;
	}
}

/* The first alias of the function holding vaddr, or NULL. */
static struct sym_func *module_func(struct sym_module *mod, uint64_t vaddr)
{
	size_t lo = 0, hi = mod->nfuncs, back;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: first function after vaddr; look back a few groups for one that holds it */
	for (back = 0; lo > 0 && back < 4; back++) {
		size_t i = lo - 1;

		while (i > 0 && mod->funcs[i - 1].addr == mod->funcs[i].addr)
			i--;
		if (vaddr < mod->funcs[i].end)
			return &mod->funcs[i];
		lo = i;
	}
	return NULL;
}

static int open_elf(const char *path, int *fd, Elf **elf)
{
	int err;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF)
		return 0;
	err = *elf ? -ENOEXEC : -EIO;
	elf_end(*elf);
	close(*fd);
	*elf = NULL;
	*fd = -1;
	return err;
}

/* Opens candidate as the separate debug file of mod, if it is one. */
static int try_debug_file(struct sym_module *mod, const char *candidate, const void *id,
			  ssize_t idlen)
{
	struct stat a, b;
	const void *cid;
	ssize_t clen;

	if (open_elf(candidate, &mod->dbg_fd, &mod->dbg))
		return 0;
	if (fstat(mod->fd, &a) == 0 && fstat(mod->dbg_fd, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		goto reject;
	clen = dwelf_elf_gnu_build_id(mod->dbg, &cid);
	if (idlen > 0 && clen > 0 && (clen != idlen || memcmp(cid, id, (size_t)idlen)))
		goto reject;
	if (!has_dwarf(mod->dbg) && !section_by_name(mod->dbg, ".symtab", NULL))
		goto reject;
	return 1;
reject:
	elf_end(mod->dbg);
	close(mod->dbg_fd);
	mod->dbg = NULL;
	mod->dbg_fd = -1;
	return 0;
}

/* Finds the separate debug file: by build-id, then by .gnu_debuglink. */
static void find_debug_file(struct sym_module *mod)
{
	const unsigned char *id = NULL;
	ssize_t idlen = dwelf_elf_gnu_build_id(mod->elf, (const void **)&id);
	char path[PATH_MAX], dir[PATH_MAX];
	const char *link, *slash;
	GElf_Word crc;

	if (idlen > 1 && idlen <= 64) {
		int n = snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/", id[0]);
		ssize_t i;

		for (i = 1; i < idlen && n > 0 && (size_t)n + 8 < sizeof(path); i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", id[i]);
		if (n > 0 && (size_t)n + 8 < sizeof(path)) {
			strcpy(path + n, ".debug");
			if (try_debug_file(mod, path, id, idlen))
				return;
		}
	}
	link = dwelf_elf_gnu_debuglink(mod->elf, &crc);
	slash = strrchr(mod->path, '/');
	if (!link || !*link || strchr(link, '/') || !slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - mod->path), mod->path);
	if ((snprintf(path, sizeof(path), "%s/%s", dir, link) < (int)sizeof(path) &&
	     try_debug_file(mod, path, id, idlen)) ||
	    (snprintf(path, sizeof(path), "%s/.debug/%s", dir, link) < (int)sizeof(path) &&
	     try_debug_file(mod, path, id, idlen)))
		return;
	if (snprintf(path, sizeof(path), DEBUG_ROOT "%s/%s", dir, link) < (int)sizeof(path))
		try_debug_file(mod, path, id, idlen);
}

static int module_open(struct sym_module *mod)
{
	GElf_Ehdr eh;
	size_t i, nph;
	int ret, own_symtab;

	ret = open_elf(mod->path, &mod->fd, &mod->elf);
	if (ret)
		return ret;
	if (!gelf_getehdr(mod->elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(mod->elf, &nph))
		return -ENOEXEC;
	mod->loads = calloc(nph ? nph : 1, sizeof(*mod->loads));
	if (!mod->loads)
		return -ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(mod->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->loads[mod->nloads++] =
		    (struct sym_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_flags};
	}
	own_symtab = add_symbols(mod, mod->elf, SHT_SYMTAB);
	if (own_symtab < 0 || (ret = add_symbols(mod, mod->elf, SHT_DYNSYM)) < 0)
		return -ENOMEM;
	if (!own_symtab || !has_dwarf(mod->elf))
		find_debug_file(mod);
	if (mod->dbg && !own_symtab && add_symbols(mod, mod->dbg, SHT_SYMTAB) < 0)
		return -ENOMEM;
	sort_functions(mod);
	if (has_dwarf(mod->elf))
		mod->dw = dwarf_begin_elf(mod->elf, DWARF_C_READ, NULL);
	else if (mod->dbg && has_dwarf(mod->dbg))
		mod->dw = dwarf_begin_elf(mod->dbg, DWARF_C_READ, NULL);
	return 0;
}

static void module_free(struct sym_module *mod)
{
	if (mod->dw)
		dwarf_end(mod->dw);
	elf_end(mod->dbg);
	elf_end(mod->elf);
	if (mod->dbg_fd >= 0)
		close(mod->dbg_fd);
	if (mod->fd >= 0)
		close(mod->fd);
	free(mod->loads);
	free(mod->funcs);
	free(mod->path);
	free(mod);
}

/* The module at path, opened on first use; NULL only when out of memory. */
static struct sym_module *module_get(struct symtab *st, const char *path)
{
	struct sym_module *mod;
	size_t i;

	for (i = 0; i < st->nmods; i++)
		if (!strcmp(st->mods[i]->path, path))
			return st->mods[i];
	if (st->nmods == st->modcap) {
		size_t cap = st->modcap ? st->modcap * 2 : 16;
		struct sym_module **v = realloc(st->mods, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->mods = v;
		st->modcap = cap;
	}
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return NULL;
	mod->fd = mod->dbg_fd = -1;
	mod->path = strdup(path);
	if (!mod->path) {
		free(mod);
		return NULL;
	}
	mod->err = module_open(mod);
	if (mod->err == -ENOMEM) {
		module_free(mod);
		return NULL;
	}
	st->mods[st->nmods++] = mod;
	return mod;
}

/*
 * The load bias of a mapping of mod: the PT_LOAD that holds the mapping's file offset (one with
 * the same execute permission preferred) maps file offset p_offset at p_vaddr + bias, the
 * mapping maps e->offset at e->start. 0, or -1 when no PT_LOAD matches.
 */
static int mapping_bias(const struct sym_module *mod, const struct maps_entry *e, uint64_t *bias)
{
	const struct sym_load *best = NULL;
	int best_score = -1;
	size_t i;

	for (i = 0; i < mod->nloads; i++) {
		const struct sym_load *l = &mod->loads[i];
		uint64_t page_off = l->offset & ~(uint64_t)0xfff;
		int score;

		if (e->offset >= l->offset + l->filesz &&
		    !(l->filesz == 0 && e->offset == page_off))
			continue;
		if (l->offset > e->offset + 0xffff)
			continue;
		score =
		    (!!(l->flags & PF_X) == !!(e->perms & MAPS_X)) * 2 + (page_off <= e->offset);
		if (score > best_score) {
			best = l;
			best_score = score;
		}
	}
	if (!best)
		return -1;
	*bias = e->start - best->vaddr - e->offset + best->offset;
	return 0;
}

/* ---- DWARF ---------------------------------------------------------------------------------- */

static int find_cu(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;

	if (dwarf_addrdie(dw, vaddr, cu))
		return 0;
	/* no .debug_aranges entry: ask each compilation unit */
	while (dwarf_get_units(dw, unit, &unit, &version, &unit_type, &cudie, &subdie) == 0) {
		if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial) &&
		    dwarf_haspc(&cudie, vaddr) > 0) {
			*cu = cudie;
			return 0;
		}
	}
	return -1;
}

static void source_line(struct sym_module *mod, uint64_t vaddr, struct sym_info *info)
{
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *file;
	int lineno;

	if (!mod->dw || find_cu(mod->dw, vaddr, &cu))
		return;
	line = dwarf_getsrc_die(&cu, vaddr);
	if (!line)
		return;
	file = dwarf_linesrc(line, NULL, NULL);
	if (file && dwarf_lineno(line, &lineno) == 0 && lineno > 0) {
		info->file = file;
		info->line = (unsigned)lineno;
	}
}

/* The declaration of the function starting at f->addr (the outermost subprogram there). */
static void function_decl(struct sym_module *mod, struct sym_func *f)
{
	Dwarf_Die cu, *scopes = NULL;
	int n, i;

	f->decl_done = 1;
	if (!mod->dw || find_cu(mod->dw, f->addr, &cu))
		return;
	n = dwarf_getscopes(&cu, f->addr, &scopes);
	for (i = n - 1; i >= 0; i--) {
		const char *file;
		int line;

		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		file = dwarf_decl_file(&scopes[i]);
		if (file && dwarf_decl_line(&scopes[i], &line) == 0 && line > 0) {
			f->decl_file = file;
			f->decl_line = (unsigned)line;
		}
		break;
	}
	free(scopes);
}

/* The name shown for f: demangled when it is a mangled C++ name. */
static const char *func_name(struct symtab *st, struct sym_func *f)
{
	char *d;
	int status = -1;

	if (f->name)
		return f->name;
	f->name = f->raw;
	if (strncmp(f->raw, "_Z", 2))
		return f->name;
	d = __cxa_demangle(f->raw, NULL, NULL, &status);
	if (d && status == 0) {
		const char *copy = arena_strndup(&st->strings, d, strlen(d));

		if (copy)
			f->name = copy;
	}
	free(d);
	return f->name;
}

/* ---- processes and lookups ------------------------------------------------------------------ */

static struct sym_proc *proc_get(struct symtab *st, pid_t pid, unsigned image)
{
	struct sym_proc *p;
	char path[PATH_MAX];
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
	if (image)
		snprintf(path, sizeof(path), "%s/maps.%d.%u", st->dir, (int)pid, image);
	else
		snprintf(path, sizeof(path), "%s/maps.%d", st->dir, (int)pid);
	p->err = maps_load(&p->maps, path);
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
	struct sym_func *f;
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
			if (!m->mod->err && mapping_bias(m->mod, e, &m->bias) == 0)
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
	source_line(m->mod, out->offset, out);
	f = module_func(m->mod, out->offset);
	if (!f) {
		out->name =
		    arena_printf(&st->strings, "%s+0x%" PRIx64, base_name(e->path), out->offset);
		return out->name ? 0 : -ENOMEM;
	}
	if (!f->decl_done)
		function_decl(m->mod, f);
	out->known = 1;
	out->name = func_name(st, f);
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
	elf_version(EV_CURRENT);
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
	struct sym_module *mod = module_get(st, module);
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
		if (!strcmp(func_name(st, &mod->funcs[i]), name)) {
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
	for (i = 0; i < st->nmods; i++)
		module_free(st->mods[i]);
	free(st->procs);
	free(st->mods);
	free(st->slots);
	free(st->dir);
	arena_release(&st->strings);
	memset(st, 0, sizeof(*st));
}
