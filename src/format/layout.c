/* layout.c - the names of an experiment's files (layout.h). */
#include "format/layout.h"

#include <errno.h>
#include <limits.h>
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
static enum layout_kind end(const char *s, enum layout_kind kind)
{
	return s && !*s ? kind : LAYOUT_NONE;
}

/* The host of a load log: anything but the characters its writer replaces. */
static int host_ok(const char *host, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (host[i] == '/' || host[i] == ' ' || host[i] == ',' || host[i] == '\0')
			return 0;
	return 1;
}

static enum layout_kind parse(const char *name, struct layout_file *f)
{
	const char *p;

	if (!strcmp(name, "meta.json"))
		return LAYOUT_META;
	if (!strcmp(name, ".meta.json.tmp"))
		return LAYOUT_META_TMP;
	if ((p = after(name, "meta.json.tmp")))
		return end(id(p, &f->writer), LAYOUT_META_TMP);
	if (!strcmp(name, "kallsyms"))
		return LAYOUT_KALLSYMS;
	if (!strcmp(name, "kallsyms.tmp"))
		return LAYOUT_KALLSYMS_TMP;
	if ((p = after(name, "proc."))) {
		p = after(image_suffix(id(p, &f->pid), &f->image), ".json");
		if (p && !*p)
			return LAYOUT_PROC;
		return end(id(after(p, ".tmp"), &f->writer), LAYOUT_PROC_TMP);
	}
	if ((p = after(name, "stream.")))
		return end(image_suffix(id(after(id(p, &f->pid), "."), &f->tid), &f->image),
			   LAYOUT_STREAM);
	if ((p = after(name, "maps.")))
		return end(image_suffix(id(p, &f->pid), &f->image), LAYOUT_MAPS);
	if ((p = after(name, "pmaps.")))
		return end(image_suffix(id(p, &f->pid), &f->image), LAYOUT_PMAPS);
	if ((p = after(name, "samples.")))
		return end(id(p, &f->pid), LAYOUT_SAMPLES);
	if ((p = after(name, "power."))) {
		for (size_t i = 0; i < sizeof(power_names) / sizeof(power_names[0]); i++)
			if (!strcmp(p, power_names[i])) {
				f->power = (enum layout_power)i;
				return LAYOUT_POWER;
			}
		return LAYOUT_NONE;
	}
	if ((p = after(name, "load."))) {
		const char *dot = strrchr(p, '.');

		if (!dot || !host_ok(p, (size_t)(dot - p)))
			return LAYOUT_NONE;
		f->host = p;
		f->hostlen = (size_t)(dot - p);
		return end(id(dot + 1, &f->pid), LAYOUT_LOAD);
	}
	if ((p = after(name, "live."))) {
		unsigned long long image, slot;

		p = number(after(id(p, &f->pid), "."), 0, UINT_MAX, &image);
		p = number(after(p, "."), 0, UINT_MAX, &slot);
		f->image = (unsigned)image;
		f->slot = (unsigned)slot;
		return end(p, LAYOUT_LIVE);
	}
	return LAYOUT_NONE;
}

enum layout_kind layout_parse(const char *name, struct layout_file *f)
{
	struct layout_file local;

	if (!f)
		f = &local;
	memset(f, 0, sizeof(*f));
	f->kind = parse(name, f);
	if (f->kind == LAYOUT_NONE)
		memset(f, 0, sizeof(*f));
	return f->kind;
}

/* A name being built into a caller's buffer: BUF of LEN bytes, N written so far (more than
 * LEN - 1 once it overflowed). */
struct out {
	char *buf;
	size_t len, n;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->n++)
		if (o->n + 1 < o->len)
			o->buf[o->n] = s[i];
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u(struct out *o, unsigned long long v)
{
	char digits[24];
	size_t i = sizeof(digits);

	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10));
	put(o, digits + i, sizeof(digits) - i);
}

/* ".<image>" for the images after the first. */
static void put_image(struct out *o, unsigned image)
{
	if (image) {
		put_str(o, ".");
		put_u(o, image);
	}
}

/* O's length, or -ENAMETOOLONG when it did not fit; its buffer NUL-terminated either way. */
static int done(struct out *o)
{
	if (o->len)
		o->buf[o->n < o->len ? o->n : o->len - 1] = '\0';
	return o->n < o->len && o->n <= INT_MAX ? (int)o->n : -ENAMETOOLONG;
}

/* Whether F's fields make a name of its kind. */
static int valid(const struct layout_file *f)
{
	switch (f->kind) {
	case LAYOUT_META:
	case LAYOUT_KALLSYMS:
	case LAYOUT_KALLSYMS_TMP:
		return 1;
	case LAYOUT_META_TMP:
		return f->writer >= 0;
	case LAYOUT_PROC_TMP:
		return f->pid > 0 && f->writer > 0;
	case LAYOUT_STREAM:
		return f->pid > 0 && f->tid > 0;
	case LAYOUT_PROC:
	case LAYOUT_MAPS:
	case LAYOUT_PMAPS:
	case LAYOUT_SAMPLES:
	case LAYOUT_LIVE:
		return f->pid > 0;
	case LAYOUT_POWER:
		return (unsigned)f->power < sizeof(power_names) / sizeof(power_names[0]);
	case LAYOUT_LOAD:
		return f->pid > 0 && f->host && host_ok(f->host, f->hostlen);
	case LAYOUT_NONE:
		break;
	}
	return 0;
}

/* F's name (valid) appended to O. */
static void put_name(struct out *o, const struct layout_file *f)
{
	switch (f->kind) {
	case LAYOUT_META:
		put_str(o, "meta.json");
		break;
	case LAYOUT_META_TMP:
		put_str(o, f->writer ? "meta.json.tmp" : ".meta.json.tmp");
		if (f->writer)
			put_u(o, (unsigned)f->writer);
		break;
	case LAYOUT_PROC:
	case LAYOUT_PROC_TMP:
		put_str(o, "proc.");
		put_u(o, (unsigned)f->pid);
		put_image(o, f->image);
		put_str(o, f->kind == LAYOUT_PROC ? ".json" : ".json.tmp");
		if (f->kind == LAYOUT_PROC_TMP)
			put_u(o, (unsigned)f->writer);
		break;
	case LAYOUT_STREAM:
		put_str(o, "stream.");
		put_u(o, (unsigned)f->pid);
		put_str(o, ".");
		put_u(o, (unsigned)f->tid);
		put_image(o, f->image);
		break;
	case LAYOUT_MAPS:
	case LAYOUT_PMAPS:
		put_str(o, f->kind == LAYOUT_MAPS ? "maps." : "pmaps.");
		put_u(o, (unsigned)f->pid);
		put_image(o, f->image);
		break;
	case LAYOUT_SAMPLES:
		put_str(o, "samples.");
		put_u(o, (unsigned)f->pid);
		break;
	case LAYOUT_KALLSYMS:
	case LAYOUT_KALLSYMS_TMP:
		put_str(o, f->kind == LAYOUT_KALLSYMS ? "kallsyms" : "kallsyms.tmp");
		break;
	case LAYOUT_POWER:
		put_str(o, "power.");
		put_str(o, power_names[f->power]);
		break;
	case LAYOUT_LOAD:
		put_str(o, "load.");
		put(o, f->host, f->hostlen);
		put_str(o, ".");
		put_u(o, (unsigned)f->pid);
		break;
	case LAYOUT_LIVE:
		put_str(o, "live.");
		put_u(o, (unsigned)f->pid);
		put_str(o, ".");
		put_u(o, f->image);
		put_str(o, ".");
		put_u(o, f->slot);
		break;
	case LAYOUT_NONE:
		break;
	}
}

int layout_name(const struct layout_file *f, char *buf, size_t len)
{
	struct out o = {buf, len, 0};

	if (!valid(f)) {
		if (len)
			buf[0] = '\0';
		return -EINVAL;
	}
	put_name(&o, f);
	return done(&o);
}

int layout_path(const char *dir, const struct layout_file *f, char *buf, size_t len)
{
	struct out o = {buf, len, 0};

	if (!valid(f)) {
		if (len)
			buf[0] = '\0';
		return -EINVAL;
	}
	put_str(&o, dir);
	put_str(&o, "/");
	put_name(&o, f);
	return done(&o);
}

struct layout_file layout_tmp(const struct layout_file *f, int writer)
{
	struct layout_file t = *f;

	switch (f->kind) {
	case LAYOUT_META:
		t.kind = LAYOUT_META_TMP;
		t.writer = writer;
		break;
	case LAYOUT_PROC:
		t.kind = LAYOUT_PROC_TMP;
		t.writer = writer;
		break;
	case LAYOUT_KALLSYMS:
		t.kind = LAYOUT_KALLSYMS_TMP;
		break;
	default:
		t.kind = LAYOUT_NONE;
		break;
	}
	return t;
}
