/*
 * elf-module.c - an ELF file's load headers, function symbols and DWARF (elf-module.h).
 */
#include "model/elf-module.h"

#include "model/objcache.h"
#include "lib/array.h"
#include "lib/strbuf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (psc_analysis links libstdc++ for it). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DEBUG_ROOT "/usr/lib/debug"

/* The address range of a compilation unit, for DWARF without .debug_aranges. */
struct elf_cu_range {
	uint64_t lo, hi;
	Dwarf_Off die; /* offset of the unit's DIE */
};

/* ---- symbols -------------------------------------------------------------------------------- */

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
static int add_symbols(struct elf_module *mod, Elf *elf, unsigned want)
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
			if (ARRAY_GROW(mod->funcs, mod->nfuncs + 1, mod->funccap))
				return -ENOMEM;
			mod->funcs[mod->nfuncs++] = (struct elf_func){
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
	const struct elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Sorts the functions and gives every alias of an address the group's end. */
static void sort_functions(struct elf_module *mod)
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
struct elf_func *elf_module_func(struct elf_module *mod, uint64_t vaddr)
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
static int try_debug_file(struct elf_module *mod, const char *candidate, const void *id,
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
static void find_debug_file(struct elf_module *mod)
{
	const unsigned char *id = NULL;
	ssize_t idlen = dwelf_elf_gnu_build_id(mod->elf, (const void **)&id);
	char path[PATH_MAX], dir[PATH_MAX];
	const char *link, *slash;
	GElf_Word crc;

	if (idlen > 1 && idlen <= 64) {
		struct strbuf sb = STRBUF_INIT;
		int found;

		strbuf_addf(&sb, DEBUG_ROOT "/.build-id/%02x/", id[0]);
		for (ssize_t i = 1; i < idlen; i++)
			strbuf_addf(&sb, "%02x", id[i]);
		strbuf_adds(&sb, ".debug");
		found = !sb.err && try_debug_file(mod, sb.buf, id, idlen);
		strbuf_release(&sb);
		if (found)
			return;
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

int elf_module_open(struct elf_module *mod, const char *path)
{
	GElf_Ehdr eh;
	size_t i, nph;
	int own_symtab;

	memset(mod, 0, sizeof(*mod));
	mod->fd = mod->dbg_fd = -1;
	elf_version(EV_CURRENT);
	mod->path = strdup(path);
	mod->source = strdup(path);
	if (!mod->path || !mod->source)
		return mod->err = -ENOMEM;
	mod->err = open_elf(path, &mod->fd, &mod->elf);
	if (mod->err)
		return mod->err;
	if (!gelf_getehdr(mod->elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(mod->elf, &nph))
		return mod->err = -ENOEXEC;
	mod->loads = calloc(nph ? nph : 1, sizeof(*mod->loads));
	if (!mod->loads)
		return mod->err = -ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(mod->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->loads[mod->nloads++] =
		    (struct elf_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_flags};
	}
	own_symtab = add_symbols(mod, mod->elf, SHT_SYMTAB);
	if (own_symtab < 0 || add_symbols(mod, mod->elf, SHT_DYNSYM) < 0)
		return mod->err = -ENOMEM;
	if (!own_symtab || !has_dwarf(mod->elf))
		find_debug_file(mod);
	if (mod->dbg && !own_symtab && add_symbols(mod, mod->dbg, SHT_SYMTAB) < 0)
		return mod->err = -ENOMEM;
	sort_functions(mod);
	if (has_dwarf(mod->elf))
		mod->dw = dwarf_begin_elf(mod->elf, DWARF_C_READ, NULL);
	else if (mod->dbg && has_dwarf(mod->dbg))
		mod->dw = dwarf_begin_elf(mod->dbg, DWARF_C_READ, NULL);
	return 0;
}

int elf_module_open_object(struct elf_module *mod, const char *path, const struct maps_object *o,
			   const char *cache)
{
	char hex[132], entry[PATH_MAX];
	struct stat st;
	int ret = elf_module_open(mod, path), same;

	if (!o || ret == -ENOMEM)
		return ret;
	if (ret == 0) {
		obj_build_id_hex(mod->elf, hex);
		same = fstat(mod->fd, &st) ? 0 : obj_same(o, hex, &st);
		mod->state = same > 0 ? OBJ_SAME : OBJ_UNCHECKED;
		if (same)
			return 0;
	} else if (!o->build_id[0] && (o->size < 0 || o->mtime_ns < 0)) {
		return ret; /* nothing to find a copy by */
	}
	same = ret == 0; /* the file is there, but changed */
	elf_module_release(mod);
	if (objcache_find(cache, o, path, entry, sizeof(entry)) == 0) {
		ret = elf_module_open(mod, entry);
		if (ret == 0 || ret == -ENOMEM) {
			free(mod->path);
			mod->path = strdup(path);
			mod->state = OBJ_CACHED;
			return mod->path ? ret : (mod->err = -ENOMEM);
		}
		elf_module_release(mod);
	}
	mod->path = strdup(path);
	/* a file that cannot be read (not gone, nor another build) is unreadable, as before */
	mod->state = same				 ? OBJ_CHANGED
		     : ret == -ENOENT || ret == -ENOTDIR ? OBJ_MISSING
							 : OBJ_UNCHECKED;
	return mod->err = !mod->path ? -ENOMEM : same ? -ESTALE : ret ? ret : -ENOENT;
}

void elf_module_release(struct elf_module *mod)
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
	free(mod->cus);
	free(mod->path);
	free(mod->source);
	memset(mod, 0, sizeof(*mod));
	mod->fd = mod->dbg_fd = -1;
}

/*
 * The PT_LOAD chosen maps file offset p_offset at p_vaddr + bias, the mapping maps e->offset at
 * e->start. Candidates hold e->offset in their file range (or start within a 64 KiB page after
 * it); one with the mapping's execute permission and starting at or before it wins.
 */
int elf_module_bias(const struct elf_module *mod, const struct maps_entry *e, uint64_t *bias)
{
	const struct elf_load *best = NULL;
	int best_score = -1;
	size_t i;

	for (i = 0; i < mod->nloads; i++) {
		const struct elf_load *l = &mod->loads[i];
		uint64_t page_off = l->offset & ~(uint64_t)0xfff;
		int score;

		if (e->offset >= l->offset + l->filesz || l->offset > e->offset + 0xffff)
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

static int cu_cmp(const void *a, const void *b)
{
	const struct elf_cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Indexes the address ranges of all compilation units (once; partial if memory runs out). */
static void build_cu_index(struct elf_module *mod)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;
	size_t cap = 0;

	mod->cus_built = 1;
	while (dwarf_get_units(mod->dw, unit, &unit, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (ARRAY_GROW(mod->cus, mod->ncus + 1, cap))
				goto out;
			mod->cus[mod->ncus++] =
			    (struct elf_cu_range){lo, hi, dwarf_dieoffset(&cudie)};
		}
	}
out:
	if (mod->ncus)
		qsort(mod->cus, mod->ncus, sizeof(*mod->cus), cu_cmp);
}

/* The compilation unit holding vaddr: by .debug_aranges, else by the units' own ranges. */
static int find_cu(struct elf_module *mod, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t lo = 0, hi, back;

	if (dwarf_addrdie(mod->dw, vaddr, cu))
		return 0;
	if (!mod->cus_built)
		build_cu_index(mod);
	hi = mod->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->cus[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (back = 0; lo > 0 && back < 8; back++, lo--)
		if (vaddr < mod->cus[lo - 1].hi)
			return dwarf_offdie(mod->dw, mod->cus[lo - 1].die, cu) ? 0 : -1;
	return -1;
}

void elf_module_line(struct elf_module *mod, uint64_t vaddr, const char **file, unsigned *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int lineno;

	if (!mod->dw || find_cu(mod, vaddr, &cu))
		return;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l)
		return;
	src = dwarf_linesrc(l, NULL, NULL);
	if (src && dwarf_lineno(l, &lineno) == 0 && lineno > 0) {
		*file = src;
		*line = (unsigned)lineno;
	}
}

/* The declaration of the outermost subprogram at f->addr: the function itself, not inlines. */
void elf_module_decl(struct elf_module *mod, struct elf_func *f)
{
	Dwarf_Die cu, *scopes = NULL;
	int n, i;

	f->decl_done = 1;
	if (!mod->dw || find_cu(mod, f->addr, &cu))
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

/* RAW demangled into A when it is a C++ symbol, else RAW itself (also when out of memory). */
static const char *demangled(const char *raw, struct str_arena *a)
{
	const char *name = raw;
	char *d;
	int status = -1;

	if (strncmp(raw, "_Z", 2))
		return raw;
	d = __cxa_demangle(raw, NULL, NULL, &status);
	if (d && status == 0) {
		const char *copy = arena_strndup(a, d, strlen(d));

		if (copy)
			name = copy;
	}
	free(d);
	return name;
}

const char *elf_func_name(struct elf_func *f, struct str_arena *a)
{
	if (!f->name)
		f->name = demangled(f->raw, a);
	return f->name;
}

const char *elf_module_inlined(struct elf_module *mod, uint64_t vaddr, struct str_arena *a)
{
	Dwarf_Die cu, *scopes = NULL;
	const char *name = NULL;
	int n;

	if (!mod->dw || find_cu(mod, vaddr, &cu))
		return NULL;
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	/* innermost first: the first inlined scope before the enclosing function's */
	for (int i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		Dwarf_Attribute at;
		const char *raw;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		/* the linkage name, demangled, names a C++ function as its symbol does */
		raw = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &at));
		if (!raw)
			raw = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
		if (raw)
			name = demangled(raw, a);
		break;
	}
	free(scopes);
	return name;
}
