/* expfiles.c - the names of an experiment's files (expfiles.h). */
#include "expfiles.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const power_names[] = {"rapl", "perf", "meter"};

/* S past PREFIX, or NULL when S does not start with it. */
static const char *after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s && !strncmp(s, prefix, n) ? s + n : NULL;
}

/* A decimal number from MIN to MAX at S, without sign or leading zero: S past it, its value
 * in *V; NULL when there is none. */
static const char *number(const char *s, unsigned long long min, unsigned long long max,
			  unsigned long long *v)
{
	unsigned long long x = 0;

	if (!s || *s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		x = x * 10 + (unsigned long long)(*s - '0');
		if (x > max)
			return NULL;
	}
	if (x < min)
		return NULL;
	*v = x;
	return s;
}

/* A pid or tid (1 to INT_MAX) at S into *ID: S past it, or NULL. */
static const char *id(const char *s, int *out)
{
	unsigned long long v;

	s = number(s, 1, INT_MAX, &v);
	if (s)
		*out = (int)v;
	return s;
}

/* The image suffix at S: ".<N>" with N from 1, or nothing (image 0). S past it. */
static const char *image_suffix(const char *s, unsigned *image)
{
	unsigned long long v;
	const char *p;

	*image = 0;
	if (!s || s[0] != '.' || s[1] < '0' || s[1] > '9')
		return s;
	p = number(s + 1, 1, UINT_MAX, &v);
	if (p)
		*image = (unsigned)v;
	return p;
}

/* S at the end of the name: the name is of KIND, else of none. */
static enum expfile_kind end(const char *s, enum expfile_kind kind)
{
	return s && !*s ? kind : EXPFILE_NONE;
}

/* The host of a load log: anything but the characters its writer replaces. */
static int host_ok(const char *host, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (host[i] == '/' || host[i] == ' ' || host[i] == ',' || host[i] == '\0')
			return 0;
	return 1;
}

static enum expfile_kind parse(const char *name, struct expfile *f)
{
	const char *p;

	if (!strcmp(name, "meta.json"))
		return EXPFILE_META;
	if (!strcmp(name, ".meta.json.tmp"))
		return EXPFILE_META_TMP;
	if ((p = after(name, "meta.json.tmp")))
		return end(id(p, &f->writer), EXPFILE_META_TMP);
	if (!strcmp(name, "kallsyms"))
		return EXPFILE_KALLSYMS;
	if (!strcmp(name, "kallsyms.tmp"))
		return EXPFILE_KALLSYMS_TMP;
	if ((p = after(name, "proc."))) {
		p = after(image_suffix(id(p, &f->pid), &f->image), ".json");
		if (p && !*p)
			return EXPFILE_PROC;
		return end(id(after(p, ".tmp"), &f->writer), EXPFILE_PROC_TMP);
	}
	if ((p = after(name, "stream.")))
		return end(image_suffix(id(after(id(p, &f->pid), "."), &f->tid), &f->image),
			   EXPFILE_STREAM);
	if ((p = after(name, "maps.")))
		return end(image_suffix(id(p, &f->pid), &f->image), EXPFILE_MAPS);
	if ((p = after(name, "pmaps.")))
		return end(image_suffix(id(p, &f->pid), &f->image), EXPFILE_PMAPS);
	if ((p = after(name, "samples.")))
		return end(id(p, &f->pid), EXPFILE_SAMPLES);
	if ((p = after(name, "power."))) {
		for (size_t i = 0; i < sizeof(power_names) / sizeof(power_names[0]); i++)
			if (!strcmp(p, power_names[i])) {
				f->power = (enum expfile_power)i;
				return EXPFILE_POWER;
			}
		return EXPFILE_NONE;
	}
	if ((p = after(name, "load."))) {
		const char *dot = strrchr(p, '.');

		if (!dot || !host_ok(p, (size_t)(dot - p)))
			return EXPFILE_NONE;
		f->host = p;
		f->hostlen = (size_t)(dot - p);
		return end(id(dot + 1, &f->pid), EXPFILE_LOAD);
	}
	if ((p = after(name, "live."))) {
		unsigned long long image, slot;

		p = number(after(id(p, &f->pid), "."), 0, UINT_MAX, &image);
		p = number(after(p, "."), 0, UINT_MAX, &slot);
		f->image = (unsigned)image;
		f->slot = (unsigned)slot;
		return end(p, EXPFILE_LIVE);
	}
	return EXPFILE_NONE;
}

enum expfile_kind expfile_parse(const char *name, struct expfile *f)
{
	struct expfile local;

	if (!f)
		f = &local;
	memset(f, 0, sizeof(*f));
	f->kind = parse(name, f);
	if (f->kind == EXPFILE_NONE)
		memset(f, 0, sizeof(*f));
	return f->kind;
}

/* snprintf's result as expfile_name's. */
static int fit(int n, size_t len)
{
	return n >= 0 && (size_t)n < len ? n : -1;
}

int expfile_name(const struct expfile *f, char *buf, size_t len)
{
	char image[16] = "";
	int pid_ok = f->pid > 0;

	if (f->image)
		snprintf(image, sizeof(image), ".%u", f->image);
	switch (f->kind) {
	case EXPFILE_META:
		return fit(snprintf(buf, len, "meta.json"), len);
	case EXPFILE_META_TMP:
		if (f->writer < 0)
			return -1;
		return fit(f->writer ? snprintf(buf, len, "meta.json.tmp%d", f->writer)
				     : snprintf(buf, len, ".meta.json.tmp"),
			   len);
	case EXPFILE_PROC:
		return pid_ok ? fit(snprintf(buf, len, "proc.%d%s.json", f->pid, image), len) : -1;
	case EXPFILE_PROC_TMP:
		if (!pid_ok || f->writer <= 0)
			return -1;
		return fit(snprintf(buf, len, "proc.%d%s.json.tmp%d", f->pid, image, f->writer),
			   len);
	case EXPFILE_STREAM:
		if (!pid_ok || f->tid <= 0)
			return -1;
		return fit(snprintf(buf, len, "stream.%d.%d%s", f->pid, f->tid, image), len);
	case EXPFILE_MAPS:
		return pid_ok ? fit(snprintf(buf, len, "maps.%d%s", f->pid, image), len) : -1;
	case EXPFILE_PMAPS:
		return pid_ok ? fit(snprintf(buf, len, "pmaps.%d%s", f->pid, image), len) : -1;
	case EXPFILE_SAMPLES:
		return pid_ok ? fit(snprintf(buf, len, "samples.%d", f->pid), len) : -1;
	case EXPFILE_KALLSYMS:
		return fit(snprintf(buf, len, "kallsyms"), len);
	case EXPFILE_KALLSYMS_TMP:
		return fit(snprintf(buf, len, "kallsyms.tmp"), len);
	case EXPFILE_POWER:
		if ((unsigned)f->power >= sizeof(power_names) / sizeof(power_names[0]))
			return -1;
		return fit(snprintf(buf, len, "power.%s", power_names[f->power]), len);
	case EXPFILE_LOAD:
		if (!pid_ok || !f->host || f->hostlen > INT_MAX || !host_ok(f->host, f->hostlen))
			return -1;
		return fit(snprintf(buf, len, "load.%.*s.%d", (int)f->hostlen, f->host, f->pid),
			   len);
	case EXPFILE_LIVE:
		return pid_ok ? fit(snprintf(buf, len, "live.%d.%u.%u", f->pid, f->image, f->slot),
				    len)
			      : -1;
	case EXPFILE_NONE:
		break;
	}
	return -1;
}
