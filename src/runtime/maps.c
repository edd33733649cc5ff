/* maps.c - the memory maps file of a process image and the identities of its loaded objects,
 * written at start and again after a dlopen or dlclose. */
#include "runtime/session.h"

#include "format/filter.h"
#include "format/layout.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dl_iterate_phdr's callback of session_objects_loaded: the first object's counts. */
static int adds_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *counts = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		counts[0] = info->dlpi_adds;
		counts[1] = info->dlpi_subs;
	}
	return 1;
}

void session_objects_loaded(unsigned long long counts[2])
{
	counts[0] = counts[1] = 0;
	dl_iterate_phdr(adds_cb, counts);
}

/* The GNU build-id of the object INFO describes, in hex into HEX (at least 129 bytes), from
 * its note segments in memory; "-" when it has none. */
static void build_id_hex(const struct dl_phdr_info *info, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr),
			   *end = p + ph->p_memsz;
		size_t align = ph->p_align == 8 ? 8 : 4;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			size_t name = (n->n_namesz + align - 1) & ~(align - 1);
			size_t desc = (n->n_descsz + align - 1) & ~(align - 1);
			const unsigned char *d = (const unsigned char *)(p + sizeof(*n) + name);

			if (name > (size_t)(end - p) || (const char *)d + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4) && n->n_descsz > 0 &&
			    n->n_descsz <= 64) {
				for (size_t k = 0; k < n->n_descsz; k++) {
					hex[2 * k] = digits[d[k] >> 4];
					hex[2 * k + 1] = digits[d[k] & 15];
				}
				hex[2 * n->n_descsz] = 0;
				return;
			}
			p = (const char *)d + desc;
		}
	}
	strcpy(hex, "-");
}

/* "# object BUILDID SIZE MTIME_NS PATH" for each loaded object (docs/format.md "Memory
 * maps"): what a reader needs to tell whether the file it finds is the one that ran. */
static int object_line_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	char line[PATH_MAX + 256], exe[PATH_MAX], hex[132], size_s[24] = "-", mtime_s[24] = "-";
	const char *path = info->dlpi_name;
	struct stat st;
	size_t n;

	(void)size;
	if (!path || !*path) {
		/* the program itself */
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len <= 0)
			return 0;
		exe[len] = 0;
		path = exe;
	}
	build_id_hex(info, hex);
	if (stat(path, &st) == 0) {
		snprintf(size_s, sizeof(size_s), "%lld", (long long)st.st_size);
		snprintf(mtime_s, sizeof(mtime_s), "%lld",
			 (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
	}
	n = (size_t)snprintf(line, sizeof(line), "# object %s %s %s ", hex, size_s, mtime_s);
	/* a newline in the path is written as /proc/self/maps writes it */
	for (const char *c = path; *c && n + 5 < sizeof(line); c++) {
		if (*c == '\n') {
			memcpy(line + n, "\\012", 4);
			n += 4;
		} else {
			line[n++] = *c;
		}
	}
	line[n++] = '\n';
	return rt_text_add(arg, line, n) < 0;
}

void session_objects_render(void)
{
	struct rt_text *t = &psc_session.objects;
	unsigned long long counts[2];

	session_objects_loaded(counts);
	if (t->p && counts[0] == psc_session.objects_text_counts[0] &&
	    counts[1] == psc_session.objects_text_counts[1])
		return;
	t->len = 0;
	if (dl_iterate_phdr(object_line_cb, t) == 0) {
		psc_session.objects_text_counts[0] = counts[0];
		psc_session.objects_text_counts[1] = counts[1];
	} else {
		t->len = 0; /* out of memory: no object lines */
		psc_session.objects_text_counts[0] = psc_session.objects_text_counts[1] = 0;
	}
}

void session_maps_write(const char *header)
{
	char name[64], buf[8192]; /* the writer thread runs this on a small stack */
	struct layout_file f = {
	    .kind = LAYOUT_MAPS, .pid = (int)psc_session.pid, .image = psc_session.image};
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return;
	layout_name(&f, name, sizeof(name));
	out = header ? rt_open(name, O_WRONLY | O_APPEND, 0)
		     : rt_open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (out >= 0) {
		n = 0;
		if (header) {
			n = snprintf(buf, sizeof(buf), "# %s %llu\n", header,
				     (unsigned long long)clock_ticks(psc_session.clock));
			n = rt_write_all(out, buf, (size_t)n);
		}
		while (n >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			n = rt_write_all(out, buf, (size_t)n);
		if (n == 0 && psc_session.objects.len)
			rt_write_all(out, psc_session.objects.p, psc_session.objects.len);
		close(out);
	}
	close(in);
}

/* Write a snapshot of the maps (HEADER) when objects were loaded or unloaded since the last. */
static void objects_look(const char *header)
{
	unsigned long long counts[2];

	session_objects_loaded(counts);
	if (counts[0] == psc_session.objects_seen[0] && counts[1] == psc_session.objects_seen[1])
		return;
	pthread_mutex_lock(&psc_session.lock);
	if (counts[0] != psc_session.objects_seen[0] || counts[1] != psc_session.objects_seen[1]) {
		int added = counts[0] != psc_session.objects_seen[0];

		psc_session.objects_seen[0] = counts[0];
		psc_session.objects_seen[1] = counts[1];
		session_objects_render();
		session_maps_write(header);
		if (added && psc_session.filter_spec) {
			struct psc_filter *f = filter_resolve(psc_session.filter_spec);

			/* the old table stays allocated: a hook may still be probing it */
			if (f)
				__atomic_store_n(&psc_session.filter, f, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&psc_session.lock);
}

void session_check_objects(void)
{
	objects_look("dlopen");
}

void session_after_dlclose(void)
{
	objects_look("dlclose");
}
