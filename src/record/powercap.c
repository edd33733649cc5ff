/*
 * powercap.c - RAPL zones of the powercap tree and events of the perf power PMU: discovery,
 * opening, reading. See powercap.h.
 *
 * What real machines show under /sys/class/powercap (links to the zone directories): the
 * control type "intel-rapl" (no energy_uj), "intel-rapl:0" (name package-0) with sub-zones
 * "intel-rapl:0:0" (core), ":0:1" (uncore), ":0:2" (dram), more packages as "intel-rapl:1",
 * and "intel-rapl:1" (psys) on clients. AMD CPUs have the same layout through the same driver.
 * "intel-rapl-mmio:0" (package-0 again, through MMIO) duplicates the MSR zone.
 */
#include "record/powercap.h"
#include "lib/array.h"
#include "pmu/cpuinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN      1024
#define MAX_PMU_CPUS  64
#define RAPL_PREFIX   "intel-rapl:"
#define MMIO_PREFIX   "intel-rapl-mmio:"
#define PERF_PMU_PATH "bus/event_source/devices/power"

/* ---- small helpers ---- */

static int bprintf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf that says when it cut: 0, or -ENAMETOOLONG (a path that cannot exist here). */
static int bprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Read the first line of PATH into BUF without trailing blanks. 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t l;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	l = strcspn(buf, "\n");
	while (l && isspace((unsigned char)buf[l - 1]))
		l--;
	buf[l] = '\0';
	return 0;
}

/* Decimal digits at S (at least one) into *V, up to the first non-digit. 0 or -EINVAL. */
static int parse_dec(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return -EINVAL;
	*v = x;
	return 0;
}

/* Replace what a log's column name must not hold (blanks, commas, slashes) with '_'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == ',' || *s == '/')
			*s = '_';
}

/* Append "NAME (WHY)" to the skipped list. */
static void note_skipped(struct power_source *src, const char *name, const char *why)
{
	size_t len = strlen(src->skipped);

	snprintf(src->skipped + len, sizeof(src->skipped) - len, "%s%s (%s)", len ? ", " : "", name,
		 why);
}

/* Room for one more counter in SRC. NULL when out of memory. */
static struct power_counter *add_counter(struct power_source *src)
{
	struct power_counter *c = realloc(src->c, (src->n + 1) * sizeof(*c));

	if (!c)
		return NULL;
	src->c = c;
	c += src->n++;
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->cpu = -1;
	return c;
}

/* Make C's name unique among the counters before it ("-2", "-3", ...). */
static void unique_name(struct power_source *src, struct power_counter *c)
{
	char base[POWER_NAME_MAX];

	bprintf(base, sizeof(base), "%s", c->name);
	for (int k = 2;; k++) {
		size_t i;

		for (i = 0; i < src->n && &src->c[i] != c; i++)
			if (!strcmp(src->c[i].name, c->name))
				break;
		if (i == src->n || &src->c[i] == c)
			return;
		bprintf(c->name, sizeof(c->name), "%.*s-%d", (int)sizeof(base) - 8, base, k);
	}
}

void power_source_close(struct power_source *src)
{
	for (size_t i = 0; i < src->n; i++) {
		if (src->c[i].fd < 0)
			continue;
		if (src->kind == POWER_SOURCE_PERF && src->sys)
			src->sys->close(src->sys->ctx, src->c[i].fd);
		else
			close(src->c[i].fd);
	}
	free(src->c);
	memset(src, 0, sizeof(*src));
}

const char *power_source_name(const struct power_source *src)
{
	return src->kind == POWER_SOURCE_PERF ? "perf" : "rapl";
}

/* One RAPL reading: energy_uj as decimal text. */
static int read_energy_uj(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return parse_dec(buf, v) ? -EIO : 0;
}

int power_source_read(struct power_source *src, uint64_t *values)
{
	for (size_t i = 0; i < src->n; i++) {
		if (src->kind == POWER_SOURCE_RAPL) {
			int ret = read_energy_uj(src->c[i].fd, &values[i]);

			if (ret)
				return ret;
		} else {
			ssize_t n = read(src->c[i].fd, &values[i], sizeof(values[i]));

			if (n != (ssize_t)sizeof(values[i]))
				return n < 0 ? -errno : -EIO;
		}
	}
	return 0;
}

/* ---- RAPL zones ---- */

struct zone_ent {
	int mmio;
	long pkg, sub; /* intel-rapl:PKG or intel-rapl:PKG:SUB (sub -1) */
	char entry[NAME_MAX + 1];
};

/* Ids of a zone entry name; 0, or -1 when NAME is not a RAPL zone. */
static int parse_zone(const char *name, struct zone_ent *z)
{
	const char *p;
	char *end;

	if (!strncmp(name, MMIO_PREFIX, strlen(MMIO_PREFIX))) {
		z->mmio = 1;
		p = name + strlen(MMIO_PREFIX);
	} else if (!strncmp(name, RAPL_PREFIX, strlen(RAPL_PREFIX))) {
		z->mmio = 0;
		p = name + strlen(RAPL_PREFIX);
	} else {
		return -1;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	z->pkg = strtol(p, &end, 10);
	z->sub = -1;
	if (*end == ':') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		z->sub = strtol(end + 1, &end, 10);
	}
	if (*end || strlen(name) >= sizeof(z->entry))
		return -1;
	strcpy(z->entry, name);
	return 0;
}

static int zone_cmp(const void *a, const void *b)
{
	const struct zone_ent *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return 0;
}

/* The zone entries under ROOT that have an energy_uj file, MSR zones preferred, sorted. */
static int list_zones(const char *root, struct zone_ent **out, size_t *nout)
{
	struct zone_ent *z = NULL;
	size_t n = 0, cap = 0, k = 0;
	int have_msr = 0;
	struct dirent *de;
	DIR *d = opendir(root);

	*out = NULL;
	*nout = 0;
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d))) {
		struct zone_ent e;
		char path[PATH_LEN];

		if (parse_zone(de->d_name, &e))
			continue;
		bprintf(path, sizeof(path), "%s/%s/energy_uj", root, de->d_name);
		if (access(path, F_OK))
			continue;
		if (ARRAY_GROW(z, n + 1, cap)) {
			free(z);
			closedir(d);
			return -ENOMEM;
		}
		z[n++] = e;
		have_msr |= !e.mmio;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		if (!have_msr || !z[i].mmio)
			z[k++] = z[i];
	if (k)
		qsort(z, k, sizeof(*z), zone_cmp);
	*out = z;
	*nout = k;
	return 0;
}

/* Name of zone Z: its name file, prefixed with its parent's for a sub-zone. */
static void zone_name(const char *root, const struct zone_ent *z, char *name, size_t len)
{
	char path[PATH_LEN], own[POWER_NAME_MAX], parent[POWER_NAME_MAX];

	bprintf(path, sizeof(path), "%s/%s/name", root, z->entry);
	if (read_line(path, own, sizeof(own)) || !*own)
		bprintf(own, sizeof(own), "%s", z->entry);
	sanitize(own);
	if (z->sub < 0) {
		bprintf(name, len, "%s", own);
		return;
	}
	bprintf(path, sizeof(path), "%s/%s%ld/name", root, z->mmio ? MMIO_PREFIX : RAPL_PREFIX,
		z->pkg);
	if (read_line(path, parent, sizeof(parent)) || !*parent)
		bprintf(parent, sizeof(parent), "%s%ld", z->mmio ? MMIO_PREFIX : RAPL_PREFIX,
			z->pkg);
	sanitize(parent);
	bprintf(name, len, "%.*s/%.*s", (int)len / 2 - 1, parent, (int)len / 2 - 1, own);
}

int powercap_open(struct power_source *src, const char *root, char *err, size_t errlen)
{
	struct zone_ent *z;
	size_t nz;
	int ret;

	memset(src, 0, sizeof(*src));
	src->kind = POWER_SOURCE_RAPL;
	ret = list_zones(root, &z, &nz);
	if (ret) {
		snprintf(err, errlen, "cannot list %s: %s", root, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < nz; i++) {
		struct power_counter *c = add_counter(src);
		char path[PATH_LEN], buf[64];
		uint64_t v;

		if (!c) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		zone_name(root, &z[i], c->name, sizeof(c->name));
		snprintf(c->unit, sizeof(c->unit), "uJ");
		c->scale = 1e-6;
		bprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", root, z[i].entry);
		if (read_line(path, buf, sizeof(buf)) || parse_dec(buf, &c->wrap))
			c->wrap = 0;
		bprintf(path, sizeof(path), "%s/%s/energy_uj", root, z[i].entry);
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->fd < 0 && (errno == EACCES || errno == EPERM)) {
			snprintf(err, errlen,
				 "cannot read %s: permission denied (RAPL energy is readable by "
				 "root only since the 2020 PLATYPUS fix): run as root, or: sudo "
				 "chmod a+r %s/%s*/energy_uj",
				 path, root, z[i].mmio ? MMIO_PREFIX : RAPL_PREFIX);
			ret = -EACCES;
			goto fail;
		}
		/* a zone the driver lists but cannot read (ENODATA on some parts) is left out */
		ret = c->fd < 0 ? -errno : read_energy_uj(c->fd, &v);
		if (ret) {
			note_skipped(src, c->name, strerror(-ret));
			if (c->fd >= 0)
				close(c->fd);
			src->n--;
			continue;
		}
		unique_name(src, c);
	}
	free(z);
	if (src->n)
		return 0;
	if (*src->skipped)
		snprintf(err, errlen, "no readable RAPL zone under %s: %s", root, src->skipped);
	else
		snprintf(err, errlen,
			 "no RAPL zones under %s (a VM or a CPU without RAPL): use --power perf or "
			 "--power file:PATH",
			 root);
	power_source_close(src);
	return -ENOENT;
fail:
	free(z);
	power_source_close(src);
	return ret;
}

/* ---- perf power PMU ---- */

/* Bits of format file PMU_DIR/format/TERM ("config:0-7", "config:5") into *LO, *HI. */
static int term_bits(const char *pmu_dir, const char *term, int *lo, int *hi)
{
	char path[PATH_LEN], buf[64], *end;
	int ret;

	bprintf(path, sizeof(path), "%s/format/%s", pmu_dir, term);
	ret = read_line(path, buf, sizeof(buf));
	if (ret == -ENOENT && !strcmp(term, "event")) {
		*lo = 0;
		*hi = 7;
		return 0;
	}
	if (ret || strncmp(buf, "config:", 7) || !isdigit((unsigned char)buf[7]))
		return -EINVAL;
	*lo = (int)strtol(buf + 7, &end, 10);
	*hi = *lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		*hi = (int)strtol(end + 1, &end, 10);
	}
	return *end || *lo > *hi || *hi > 63 ? -EINVAL : 0;
}

int power_pmu_event_config(const char *pmu_dir, const char *spec, uint64_t *config)
{
	char buf[256], *save = NULL, *term;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	*config = 0;
	for (term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '='), *end;
		unsigned long long v;
		int lo, hi;

		if (!eq || eq == term || !isdigit((unsigned char)eq[1]))
			return -EINVAL;
		*eq = '\0';
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		if (errno || *end || term_bits(pmu_dir, term, &lo, &hi))
			return -EINVAL;
		if (hi - lo < 63 && v >> (hi - lo + 1))
			return -EINVAL;
		*config |= (uint64_t)v << lo;
	}
	return 0;
}

/* CPUs of a cpumask list ("0", "0,28", "0-3") into CPUS; how many, 0 when unreadable. */
static int parse_cpus(const char *text, int *cpus, int max)
{
	const char *p = text;
	int n = 0;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			return 0;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return 0;
		}
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		if (*end != ',' && *end)
			return 0;
		p = *end ? end + 1 : end;
	}
	return n;
}

/* Order of the events in the log: the package first (the usual channel), then the parts. */
static int event_rank(const char *name)
{
	static const char *const order[] = {"energy-pkg", "energy-cores", "energy-ram",
					    "energy-gpu", "energy-psys"};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(name, order[i]))
			return (int)i;
	return (int)(sizeof(order) / sizeof(order[0]));
}

static int event_cmp(const void *a, const void *b)
{
	const char *x = a, *y = b;
	int rx = event_rank(x), ry = event_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

/* The energy-* event names in PMU_DIR/events, in log order. */
static int list_events(const char *pmu_dir, char (**names)[NAME_MAX + 1], size_t *n)
{
	char path[PATH_LEN];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*names = NULL;
	*n = 0;
	bprintf(path, sizeof(path), "%s/events", pmu_dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "energy-", 7) || strchr(de->d_name, '.'))
			continue;
		if (ARRAY_GROW(*names, *n + 1, cap)) {
			closedir(d);
			return -ENOMEM;
		}
		snprintf((*names)[(*n)++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), event_cmp);
	return 0;
}

/* Describe event NAME (encoding, scale, unit) into C; a reason in WHY when it is unusable. */
static int describe_event(const char *pmu_dir, const char *name, struct power_counter *c, char *why,
			  size_t whylen)
{
	char path[PATH_LEN], buf[256], *end;

	bprintf(path, sizeof(path), "%s/events/%s", pmu_dir, name);
	if (read_line(path, buf, sizeof(buf)) || power_pmu_event_config(pmu_dir, buf, &c->config)) {
		snprintf(why, whylen, "unknown encoding");
		return -EINVAL;
	}
	bprintf(path, sizeof(path), "%s/events/%s.scale", pmu_dir, name);
	if (read_line(path, buf, sizeof(buf)) || (c->scale = strtod(buf, &end), *end) ||
	    !(c->scale > 0) || !isfinite(c->scale)) {
		snprintf(why, whylen, "no valid .scale");
		return -EINVAL;
	}
	bprintf(path, sizeof(path), "%s/events/%s.unit", pmu_dir, name);
	if (read_line(path, buf, sizeof(buf)) || strcmp(buf, "Joules")) {
		snprintf(why, whylen, "unit is not Joules");
		return -EINVAL;
	}
	snprintf(c->unit, sizeof(c->unit), "Joules");
	return 0;
}

/* The message for a refused system-wide perf_event_open. */
static void perf_refused(const char *name, int cpu, const char *procfs_root, const char *sysfs_root,
			 char *err, size_t errlen)
{
	struct perf_state ps;
	char buf[256];
	const char *fix;

	perf_state_read(&ps, procfs_root, sysfs_root);
	fix = perf_state_fix(&ps, PERF_NEED_CPU, buf, sizeof(buf));
	snprintf(err, errlen, "power/%s (system-wide on CPU %d) not permitted: %s", name, cpu,
		 fix ? fix
		     : "run as root or grant CAP_PERFMON (a seccomp or LSM policy forbids "
		       "perf_event_open)");
}

/* The machine roots of power_pmu_open, for the message of a refused open. */
struct pmu_roots {
	const char *procfs, *sysfs;
};

/*
 * Open the power PMU's event NAME (of PMU type TYPE, in PMU_DIR) on each of the NCPUS CPUS
 * into SRC. An event that cannot be described or opened is left out on every CPU and noted in
 * SRC's skipped list, its first open error kept in *FIRST_ERR. 0, or a negative errno that
 * fails the source (out of memory, opening refused) with ERR said.
 */
static int pmu_open_event(struct power_source *src, const char *pmu_dir, const char *name,
			  uint32_t type, const int *cpus, int ncpus, const struct pmu_roots *roots,
			  int *first_err, char *err, size_t errlen)
{
	struct power_counter desc = {0};
	size_t first = src->n;
	char why[64];
	int ret;

	if (describe_event(pmu_dir, name, &desc, why, sizeof(why))) {
		note_skipped(src, name, why);
		return 0;
	}
	for (int k = 0; k < ncpus; k++) {
		struct power_counter *c = add_counter(src);
		struct perf_event_attr attr;

		if (!c) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		*c = desc;
		if (ncpus > 1)
			bprintf(c->name, sizeof(c->name), "%s@cpu%d", name, cpus[k]);
		else
			bprintf(c->name, sizeof(c->name), "%s", name);
		c->cpu = cpus[k];
		c->type = type;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = c->type;
		attr.config = c->config;
		c->fd = src->sys->open(src->sys->ctx, &attr, -1, c->cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (c->fd >= 0)
			continue;
		ret = -errno;
		c->fd = -1;
		if (ret == -EACCES || ret == -EPERM) {
			perf_refused(name, c->cpu, roots->procfs, roots->sysfs, err, errlen);
			return -EACCES;
		}
		/* the event is left out on every CPU */
		if (!*first_err)
			*first_err = ret;
		while (src->n > first) {
			struct power_counter *o = &src->c[--src->n];

			if (o->fd >= 0)
				src->sys->close(src->sys->ctx, o->fd);
		}
		note_skipped(src, name, strerror(-ret));
		break;
	}
	return 0;
}

int power_pmu_open(struct power_source *src, const char *sysfs_root, const char *procfs_root,
		   const struct counter_sys *sys, char *err, size_t errlen)
{
	char pmu_dir[PATH_LEN], path[PATH_LEN + 16], buf[256];
	char(*names)[NAME_MAX + 1] = NULL;
	int cpus[MAX_PMU_CPUS], ncpus, first_err = 0;
	const struct pmu_roots roots = {procfs_root, sysfs_root};
	uint64_t type;
	size_t nev;
	int ret;

	memset(src, 0, sizeof(*src));
	src->kind = POWER_SOURCE_PERF;
	src->sys = sys ? sys : &counter_sys_linux;
	bprintf(pmu_dir, sizeof(pmu_dir), "%s/" PERF_PMU_PATH, sysfs_root);
	bprintf(path, sizeof(path), "%s/type", pmu_dir);
	if (read_line(path, buf, sizeof(buf)) || parse_dec(buf, &type) || type > UINT32_MAX) {
		snprintf(err, errlen,
			 "no perf power PMU (%s) (a VM or a CPU without RAPL): use --power rapl or "
			 "--power file:PATH",
			 pmu_dir);
		return -ENOENT;
	}
	bprintf(path, sizeof(path), "%s/cpumask", pmu_dir);
	ncpus = read_line(path, buf, sizeof(buf)) ? 0 : parse_cpus(buf, cpus, MAX_PMU_CPUS);
	if (!ncpus) {
		cpus[0] = 0;
		ncpus = 1;
	}
	ret = list_events(pmu_dir, &names, &nev);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	for (size_t e = 0; e < nev; e++) {
		ret = pmu_open_event(src, pmu_dir, names[e], (uint32_t)type, cpus, ncpus, &roots,
				     &first_err, err, errlen);
		if (ret)
			goto fail;
	}
	free(names);
	if (src->n)
		return 0;
	if (*src->skipped)
		snprintf(err, errlen,
			 "no energy event of %s could be opened: %s: use --power rapl or --power "
			 "file:PATH",
			 pmu_dir, src->skipped);
	else
		snprintf(err, errlen,
			 "the perf power PMU (%s) has no energy-* event (a VM or a CPU without "
			 "RAPL): use --power rapl or --power file:PATH",
			 pmu_dir);
	power_source_close(src);
	return first_err ? first_err : -ENOENT;
fail:
	free(names);
	power_source_close(src);
	return ret;
}
