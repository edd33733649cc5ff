/* filter.c - load a filter file and place its functions at their runtime addresses. */
#include "format/filter.h"
#include "lib/array.h"
#include "lib/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILTER_MAGIC "# perfscope filter 1"

void filter_free(struct psc_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nentries; i++)
		psc_mem_free(f->entries[i].module);
	psc_mem_free(f->entries);
	psc_mem_free(f->slots);
	psc_mem_free(f);
}

/* One line: MODULE <tab> 0xVADDR [<tab> name]. 0, 1 to skip (comment, blank), or -EINVAL. */
static int parse_line(char *s, struct filter_entry *e)
{
	char *tab, *end;

	if (s[0] == '#' || s[0] == 0)
		return 1;
	tab = strchr(s, '\t');
	if (!tab || s[0] != '/')
		return -EINVAL;
	*tab = 0;
	errno = 0;
	e->vaddr = strtoull(tab + 1, &end, 16);
	if (errno || end == tab + 1 || (*end && *end != '\t'))
		return -EINVAL;
	e->module = psc_mem_strdup(s);
	return e->module ? 0 : -ENOMEM;
}

/* The whole file at PATH, NUL-terminated, in psc_mem memory (the runtime reads it inside the
 * measured program, whose allocator and stdio it does not use); -errno. */
static int file_slurp(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	size_t len = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		/* room for a read of 4 KiB at least, and the NUL */
		if (ARRAY_GROW(buf, len + 4097, cap)) {
			ret = -ENOMEM;
			break;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (ret < 0) {
		psc_mem_free(buf);
		return ret;
	}
	buf[len] = 0;
	*out = buf;
	return 0;
}

int filter_load(const char *path, struct psc_filter **out, size_t *line)
{
	struct psc_filter *f;
	char *text = NULL, *s, *next;
	size_t cap = 0;
	int ret;

	*line = 0;
	ret = file_slurp(path, &text);
	if (ret < 0)
		return ret;
	f = psc_mem_calloc(1, sizeof(*f));
	if (!f) {
		psc_mem_free(text);
		return -ENOMEM;
	}
	for (s = text; *s; s = next) {
		struct filter_entry e;
		int r;

		next = s + strcspn(s, "\n");
		if (*next)
			*next++ = 0;
		++*line;
		if (*line == 1 && strncmp(s, FILTER_MAGIC, strlen(FILTER_MAGIC))) {
			ret = -EINVAL;
			break;
		}
		r = parse_line(s, &e);
		if (r == 1)
			continue;
		if (r < 0) {
			ret = r;
			break;
		}
		if (ARRAY_GROW(f->entries, f->nentries + 1, cap)) {
			psc_mem_free(e.module);
			ret = -ENOMEM;
			break;
		}
		f->entries[f->nentries++] = e;
	}
	if (ret == 0 && *line == 0)
		ret = -EINVAL;
	psc_mem_free(text);
	if (ret < 0) {
		filter_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

struct resolve_ctx {
	const struct psc_filter *f;
	struct psc_filter *out;
	char exe[PATH_MAX];
};

static void slot_insert(struct psc_filter *out, uintptr_t addr)
{
	size_t mask = ((size_t)1 << out->bits) - 1;

	for (size_t i = filter_hash(addr, out->bits);; i = (i + 1) & mask) {
		if (out->slots[i] == addr)
			return;
		if (out->slots[i] == 0) {
			out->slots[i] = addr;
			return;
		}
	}
}

static int resolve_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct resolve_ctx *c = arg;
	/* the main program has an empty name */
	const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : c->exe;
	char real[PATH_MAX];

	(void)size;
	if (!realpath(name, real))
		snprintf(real, sizeof(real), "%s", name);
	for (size_t i = 0; i < c->f->nentries; i++) {
		if (strcmp(c->f->entries[i].module, real))
			continue;
		slot_insert(c->out, (uintptr_t)(info->dlpi_addr + c->f->entries[i].vaddr));
		c->out->resolved++;
	}
	return 0;
}

struct psc_filter *filter_resolve(const struct psc_filter *f)
{
	struct resolve_ctx c = {.f = f};
	struct psc_filter *out = psc_mem_calloc(1, sizeof(*out));
	ssize_t n;

	if (!out)
		return NULL;
	/* at least twice the entries, so probes stay short and an empty slot always exists */
	out->bits = 4;
	while (((size_t)1 << out->bits) < 2 * f->nentries + 2)
		out->bits++;
	out->slots = psc_mem_calloc((size_t)1 << out->bits, sizeof(*out->slots));
	if (!out->slots) {
		psc_mem_free(out);
		return NULL;
	}
	out->entries = f->entries;
	out->nentries = f->nentries;
	n = readlink("/proc/self/exe", c.exe, sizeof(c.exe) - 1);
	c.exe[n > 0 ? n : 0] = 0;
	c.out = out;
	dl_iterate_phdr(resolve_module, &c);
	return out;
}
