/* kallsyms.c - kernel text symbols: saved at record time, read for kernel samples. */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Types of symbols in the kernel's text: local and global functions, weak ones. */
static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

int kallsyms_save(const char *procfs, const char *dir, char *why, size_t whylen)
{
	char path[4096], tmp[4096], line[512], name[400];
	uint64_t kept = 0, nonzero = 0;
	FILE *in, *out;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/kallsyms", procfs);
	in = fopen(path, "r");
	if (!in) {
		ret = -errno;
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		unlink(path); /* an older experiment's copy would name this run's samples */
		return ret;
	}
	snprintf(tmp, sizeof(tmp), "%s/kallsyms.tmp", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		fclose(in);
		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		unlink(path);
		return ret;
	}
	while (fgets(line, sizeof(line), in)) {
		uint64_t addr;
		char type;
		int used = 0;

		if (sscanf(line, "%" SCNx64 " %c %399s%n", &addr, &type, name, &used) < 3 ||
		    !is_text(type))
			continue;
		nonzero += addr != 0;
		kept++;
		/* "name" or "name\t[module]" as the kernel lists it */
		fprintf(out, "%016" PRIx64 " %c %s%s", addr, type, name, line + used);
		if (!strchr(line + used, '\n'))
			fputc('\n', out);
	}
	if (ferror(in) && !ret) {
		ret = -EIO;
		snprintf(why, whylen, "cannot read %s", path);
	}
	fclose(in);
	if (fclose(out) && !ret) {
		ret = -EIO;
		snprintf(why, whylen, "cannot write %s", tmp);
	}
	if (!ret && (!kept || !nonzero)) {
		ret = -EPERM;
		snprintf(why, whylen,
			 "%s hides kernel addresses (kernel.kptr_restrict; root or CAP_SYSLOG with "
			 "kptr_restrict <= 1 can see them)",
			 path);
	}
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
	}
	if (ret) {
		unlink(tmp);
		unlink(path); /* an older experiment's copy would name this run's samples */
	}
	return ret;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* of aliases at one address, prefer the one without a leading underscore */
	return (x->name[0] == '_') - (y->name[0] == '_');
}

int kallsyms_load(struct kallsyms *k, const char *dir)
{
	char path[4096];
	size_t len = 0, cap = 0, lines = 0;
	FILE *f;
	int c;

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "r");
	if (!f) {
		k->missing = 1;
		return errno == ENOENT ? 0 : -errno;
	}
	/* the whole file in one buffer; lines are cut in place */
	while ((c = getc(f)) != EOF) {
		if (len + 2 > cap) {
			size_t ncap = cap ? 2 * cap : 1 << 20;
			char *t = realloc(k->text, ncap);

			if (!t) {
				fclose(f);
				kallsyms_release(k);
				return -ENOMEM;
			}
			k->text = t;
			cap = ncap;
		}
		k->text[len++] = (char)c;
		lines += c == '\n';
	}
	fclose(f);
	if (!k->text)
		return 0;
	k->text[len] = 0;
	k->v = calloc(lines + 1, sizeof(*k->v));
	if (!k->v) {
		kallsyms_release(k);
		return -ENOMEM;
	}
	for (char *p = k->text, *nl; *p; p = nl + 1) {
		char *end, *name;
		uint64_t addr;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		else
			*nl = 0;
		addr = strtoull(p, &end, 16);
		if (end == p || end[0] != ' ' || !end[1] || end[2] != ' ' || !end[3]) {
			kallsyms_release(k);
			return -EINVAL;
		}
		name = end + 3;
		for (char *t = name; *t; t++)
			if (*t == '\t')
				*t = ' ';
		k->v[k->n++] = (struct kallsym){addr, name};
		if (!nl[1])
			break;
	}
	qsort(k->v, k->n, sizeof(*k->v), cmp_sym);
	return 0;
}

const struct kallsym *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->v[0].addr ||
	    (addr > k->v[k->n - 1].addr && addr - k->v[k->n - 1].addr > (16u << 20)))
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first alias at that address (sorted to prefer names without '_') */
	while (lo > 0 && k->v[lo - 1].addr == k->v[lo].addr)
		lo--;
	return &k->v[lo];
}

void kallsyms_release(struct kallsyms *k)
{
	free(k->v);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
