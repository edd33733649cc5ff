/* experiment.c - reading an experiment directory's JSON files and stream list. */
#include "format/experiment.h"
#include "model/objcache.h"
#include "format/stream.h"

#include "format/format.h"
#include "format/layout.h"
#include "format/meta.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *read_text(const char *path, int *err)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		*err = -errno;
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 8192);

			if (!p) {
				free(buf);
				fclose(f);
				*err = -ENOMEM;
				return NULL;
			}
			buf = p;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n == 4096);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* cJSON's allocations, so that a parse that failed for memory is not taken for bad JSON */
static __thread int json_oom;

static void *json_malloc(size_t n)
{
	void *p = malloc(n);

	json_oom |= !p;
	return p;
}

/*
 * Parse the JSON file PATH. NULL with a message in ERR and *RET set: -ENOENT and the like,
 * -ENOMEM when the parse ran out of memory, or -EINVAL for text that is not JSON. When CUT is
 * not NULL, a text that is blank or stops short (the parser ran out of text: a file cut by a
 * full disk or a kill) sets *CUT to 1 and *AT to the length of its text instead of being
 * called invalid (*RET is then -ENODATA).
 */
static cJSON *read_json_cut(const char *path, char *err, size_t errlen, int *ret, int *cut,
			    uint64_t *at)
{
	char *text = read_text(path, ret);
	cJSON *j;

	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(-*ret));
		return NULL;
	}
	cJSON_InitHooks(&(cJSON_Hooks){json_malloc, free});
	json_oom = 0;
	j = cJSON_Parse(text);
	if (!j && json_oom) {
		snprintf(err, errlen, "%s: out of memory", path);
		*ret = -ENOMEM;
	} else if (!j) {
		const char *bad = cJSON_GetErrorPtr();
		size_t len = strlen(text), end = len;

		while (end && strchr(" \t\r\n", text[end - 1]))
			end--;
		if (cut && (!end || (bad && (size_t)(bad - text) + 1 >= end))) {
			*cut = 1;
			*at = len;
			*ret = -ENODATA;
		} else {
			snprintf(err, errlen, "%s: byte %ld: invalid JSON", path,
				 bad ? (long)(bad - text) : 0L);
			*ret = -EINVAL;
		}
	}
	free(text);
	return j;
}

static cJSON *read_json(const char *path, char *err, size_t errlen, int *ret)
{
	return read_json_cut(path, err, errlen, ret, NULL, NULL);
}

/* Add the damaged file NAME to E's list: the entry, or NULL when out of memory. */
static struct exp_damage *damage_add(struct experiment *e, const char *name,
				     enum exp_damage_kind kind, uint64_t size, uint64_t at)
{
	struct exp_damage *d = realloc(e->damaged, (e->ndamaged + 1) * sizeof(*d));

	if (!d)
		return NULL;
	e->damaged = d;
	d += e->ndamaged;
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return NULL;
	d->kind = kind;
	d->size = size;
	d->at = at;
	e->ndamaged++;
	return d;
}

static uint64_t file_size(const char *dir, const char *name, int *exists)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*exists = stat(path, &st) == 0;
	return *exists ? (uint64_t)st.st_size : 0;
}

/* A JSON file's numbers as they are read: the first one out of its C type's range is a defect,
 * said in ERR ("PATH: "KEY" is V, ..."), and the file is refused (RET). */
struct jfile {
	const char *path;
	char *err;
	size_t errlen;
	int ret;
};

/* The values a number may have, LO <= V < HI (truncated, it fits its type), and their name. */
#define R_INT	 -2147483648.0, 2147483648.0, "a 32-bit integer"
#define R_U32	 0.0, 4294967296.0, "an unsigned 32-bit integer"
#define R_U64	 0.0, 18446744073709551616.0, "an unsigned 64-bit integer"
#define R_NS	 0.0, 9223372036854775808.0, "a time from 0 to 2^63 ns"
#define R_SIGNAL 0.0, 128.0, "a signal number (0 to 127)"
#define R_REAL	 -1.7976931348623157e308, 1.7976931348623157e308, "a number"

static double num_at(struct jfile *f, const cJSON *v, const char *key, double lo, double hi,
		     const char *what, double dflt)
{
	if (!cJSON_IsNumber(v))
		return dflt;
	if (v->valuedouble >= lo && v->valuedouble < hi)
		return v->valuedouble;
	if (!f->ret)
		snprintf(f->err, f->errlen, "%s: \"%s\" is %.17g, not %s: the file is damaged",
			 f->path, key, v->valuedouble, what);
	f->ret = -EINVAL;
	return dflt;
}

static double get_num(struct jfile *f, const cJSON *j, const char *key, double lo, double hi,
		      const char *what, double dflt)
{
	return num_at(f, cJSON_GetObjectItemCaseSensitive(j, key), key, lo, hi, what, dflt);
}

/* F's error is out of memory (unless it has one already). */
static void jfile_oom(struct jfile *f)
{
	if (!f->ret)
		snprintf(f->err, f->errlen, "%s: out of memory", f->path);
	if (!f->ret)
		f->ret = -ENOMEM;
}

/* A copy of S, or NULL with F's error out of memory. */
static char *jdup(struct jfile *f, const char *s)
{
	char *d = strdup(s);

	if (!d)
		jfile_oom(f);
	return d;
}

static char *dup_str(struct jfile *f, const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return jdup(f, cJSON_IsString(v) ? v->valuestring : "");
}

static char **dup_str_array(struct jfile *f, const cJSON *arr, size_t *n)
{
	size_t count = (size_t)cJSON_GetArraySize(arr), i = 0;
	char **out = calloc(count + 1, sizeof(*out));
	const cJSON *it;

	if (!out) {
		jfile_oom(f);
		return NULL;
	}
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *name = cJSON_IsObject(it) ? cJSON_GetObjectItem(it, "name") : it;

		out[i++] = jdup(f, cJSON_IsString(name) ? name->valuestring : "");
	}
	*n = i;
	return out;
}

static void free_str_array(char **a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		free(a[i]);
	free(a);
}

/* Ticks and ns are written as decimal strings: a double would round values above 2^53. */
static uint64_t json_u64(struct jfile *f, const cJSON *v, const char *key)
{
	if (cJSON_IsString(v))
		return strtoull(v->valuestring, NULL, 10);
	return (uint64_t)num_at(f, v, key, R_U64, 0);
}

static void sampling_load(struct experiment *e, struct jfile *f, const cJSON *v)
{
	struct exp_sampling *sm = &e->sampling;
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(v, "events"), *it;
	size_t i = 0;

	e->has_sampling = 1;
	sm->events = dup_str_array(f, evs, &sm->nevents);
	sm->states = calloc(sm->nevents + 1, sizeof(*sm->states));
	if (!sm->states)
		jfile_oom(f);
	cJSON_ArrayForEach(it, evs)
	{
		if (sm->states && i < sm->nevents)
			sm->states[i++] = dup_str(f, it, "state");
	}
	sm->frequency = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "frequency"), "frequency");
	sm->period = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "period"), "period");
	sm->callgraph = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "callgraph"));
	sm->user_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "user_only"));
	sm->samples = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "samples"), "samples");
	sm->lost = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "lost"), "lost");
	sm->throttled = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "throttled"), "throttled");
	sm->late = json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "late"), "late");
	sm->inherit = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "inherit"));
	sm->error = dup_str(f, v, "error");
	sm->kallsyms_error = dup_str(f, v, "kallsyms_error");
}

/* meta.json's "unsupported_events" (V, an array): entries without a name are skipped. */
static void unsupported_load(struct experiment *e, struct jfile *f, const cJSON *v)
{
	const cJSON *it;

	e->unsupported = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(*e->unsupported));
	if (!e->unsupported) {
		jfile_oom(f);
		return;
	}
	cJSON_ArrayForEach(it, v)
	{
		struct exp_unsupported *u = &e->unsupported[e->nunsupported];
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");

		if (!cJSON_IsString(name) || !name->valuestring[0])
			continue;
		u->name = jdup(f, name->valuestring);
		u->reason = dup_str(f, it, "reason");
		if (u->reason && !u->reason[0]) {
			free(u->reason);
			u->reason = jdup(f, "could not be opened");
		}
		if (!u->name || !u->reason) { /* out of memory: said in F */
			free(u->name);
			free(u->reason);
			u->name = u->reason = NULL;
			continue;
		}
		u->status = (int)get_num(f, it, "status", R_INT, 0);
		e->nunsupported++;
	}
}

const struct exp_unsupported *experiment_unsupported(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->nunsupported; i++)
		if (!strcmp(e->unsupported[i].name, name))
			return &e->unsupported[i];
	return NULL;
}

static int meta_load(struct experiment *e, char *err, size_t errlen)
{
	char path[4096];
	struct jfile f = {path, err, errlen, 0};
	cJSON *j, *v;
	int ret = 0;

	layout_path(e->dir, &(struct layout_file){.kind = LAYOUT_META}, path, sizeof(path));
	j = read_json(path, err, errlen, &ret);
	if (!j)
		return ret == -ENOENT ? 0 : ret;
	e->has_meta = 1;
	v = cJSON_GetObjectItemCaseSensitive(j, META_VERSION);
	if (!cJSON_IsNumber(v) || v->valueint != 1) {
		snprintf(err, errlen, "%s: format version %d, this perfscope reads 1", path,
			 cJSON_IsNumber(v) ? v->valueint : -1);
		cJSON_Delete(j);
		return -EINVAL;
	}
	e->created_by = dup_str(&f, j, META_CREATED_BY);
	e->host = dup_str(&f, j, META_HOST);
	e->clock = dup_str(&f, j, META_CLOCK);
	v = cJSON_GetObjectItemCaseSensitive(j, META_CPU);
	e->cpu_brand = cJSON_IsObject(v) ? dup_str(&f, v, META_CPU_BRAND) : jdup(&f, "");
	e->start_unix_ns = (uint64_t)get_num(&f, j, META_START_UNIX_NS, R_U64, 0);
	e->exit_status = (int)get_num(&f, j, META_EXIT_STATUS, R_INT, -1);
	e->exit_signal = (int)get_num(&f, j, META_EXIT_SIGNAL, R_SIGNAL, -1);
	e->start_ns = (int64_t)get_num(&f, j, META_START_NS, R_NS, 0);
	e->end_ns = (int64_t)get_num(&f, j, META_END_NS, R_NS, 0);
	if (e->end_ns < e->start_ns)
		e->start_ns = e->end_ns = 0;
	e->mpi = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, META_MPI));
	e->command =
	    dup_str_array(&f, cJSON_GetObjectItemCaseSensitive(j, META_COMMAND), &e->ncommand);
	v = cJSON_GetObjectItemCaseSensitive(j, META_METRIC_GROUP);
	e->metric_group = cJSON_IsObject(v) ? dup_str(&f, v, "name") : jdup(&f, "");
	if (cJSON_IsObject(v)) {
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(v, "metrics"), *m;

		e->metrics = calloc((size_t)cJSON_GetArraySize(ms) + 1, sizeof(*e->metrics));
		if (!e->metrics)
			jfile_oom(&f);
		cJSON_ArrayForEach(m, ms)
		{
			if (!e->metrics)
				break;
			struct exp_metric *em = &e->metrics[e->nmetrics++];

			em->name = dup_str(&f, m, "name");
			em->unit = dup_str(&f, m, "unit");
			em->formula = dup_str(&f, m, "formula");
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(j, META_SAMPLING);
	if (cJSON_IsObject(v))
		sampling_load(e, &f, v);
	v = cJSON_GetObjectItemCaseSensitive(j, META_UNSUPPORTED_EVENTS);
	if (cJSON_IsArray(v))
		unsupported_load(e, &f, v);
	v = cJSON_GetObjectItemCaseSensitive(j, META_POWER);
	if (cJSON_IsObject(v)) {
		struct exp_power *pw = &e->power;

		e->has_power = 1;
		pw->source = dup_str(&f, v, "source");
		pw->file = dup_str(&f, v, "file");
		pw->period_ns = (int64_t)get_num(&f, v, "period_ns", R_NS, 0);
		pw->path = dup_str(&f, v, "path");
		pw->format = dup_str(&f, v, "format");
		pw->scale = dup_str(&f, v, "scale");
		pw->rate_hz = get_num(&f, v, "rate_hz", R_REAL, 0);
		pw->offset_ns = get_num(&f, v, "offset_ns", R_REAL, 0);
	}
	cJSON_Delete(j);
	return f.ret;
}

static int proc_load(struct experiment *e, const char *name, char *err, size_t errlen)
{
	char path[4096];
	struct jfile f = {path, err, errlen, 0};
	struct exp_process *p;
	cJSON *j, *cal, *pair;
	int ret = 0, cut = 0;
	uint64_t at = 0;

	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	j = read_json_cut(path, err, errlen, &ret, &cut, &at);
	if (!j && cut) {
		/* a full disk or a kill left no whole description: the process is left out */
		struct layout_file lf;
		int exists;
		uint64_t size = file_size(e->dir, name, &exists);
		struct exp_damage *d =
		    damage_add(e, name, size ? EXP_DAMAGE_JSON_CUT : EXP_DAMAGE_EMPTY, size, at);

		if (!d) {
			snprintf(err, errlen, "%s: out of memory", path);
			return -ENOMEM;
		}
		if (layout_parse(name, &lf) == LAYOUT_PROC) {
			d->pid = lf.pid;
			d->image = lf.image;
		}
		return 0;
	}
	if (!j)
		return ret;
	p = &e->procs[e->nprocs++];
	p->pid = (pid_t)get_num(&f, j, PROC_PID, R_INT, 0);
	p->image = (unsigned)get_num(&f, j, PROC_IMAGE, R_U32, 0);
	p->ppid = (pid_t)get_num(&f, j, PROC_PPID, R_INT, 0);
	p->rank = (int)get_num(&f, j, PROC_RANK, R_INT, -1);
	p->exe = dup_str(&f, j, PROC_EXE);
	p->host = dup_str(&f, j, PROC_HOST);
	p->state = dup_str(&f, j, PROC_STATE);
	p->error = dup_str(&f, j, PROC_ERROR);
	p->paranoid = (int)get_num(&f, j, PROC_PARANOID, R_INT, 2);
	p->have_core_pmu = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, PROC_HAVE_CORE_PMU));
	p->lost_records = (uint64_t)get_num(&f, j, PROC_LOST_RECORDS, R_U64, 0);
	p->lost_bytes = (uint64_t)get_num(&f, j, PROC_LOST_BYTES, R_U64, 0);
	p->lost_threads = (uint64_t)get_num(&f, j, PROC_LOST_THREADS, R_U64, 0);
	p->regions_folded = (uint64_t)get_num(&f, j, PROC_REGIONS_FOLDED, R_U64, 0);
	p->region_names_cut = (uint64_t)get_num(&f, j, PROC_REGION_NAMES_CUT, R_U64, 0);
	{
		char *clock = dup_str(&f, j, PROC_CLOCK);

		p->clock = clock ? clock_source_parse(clock) : 0;
		free(clock);
	}
	p->events =
	    dup_str_array(&f, cJSON_GetObjectItemCaseSensitive(j, PROC_EVENTS), &p->nevents);
	cal = cJSON_GetObjectItemCaseSensitive(j, PROC_CALIBRATION);
	p->pairs = calloc((size_t)cJSON_GetArraySize(cal) + 1, sizeof(*p->pairs));
	if (!p->pairs)
		jfile_oom(&f);
	cJSON_ArrayForEach(pair, cal)
	{
		if (cJSON_GetArraySize(pair) != 2 || !p->pairs)
			continue;
		p->pairs[p->npairs].ticks =
		    json_u64(&f, cJSON_GetArrayItem(pair, 0), "calibration");
		p->pairs[p->npairs].ns = json_u64(&f, cJSON_GetArrayItem(pair, 1), "calibration");
		/* as in a stream header: ticks of a record's 62 bits, a signed time */
		if (!f.ret && (p->pairs[p->npairs].ticks >> 62 || p->pairs[p->npairs].ns >> 63)) {
			snprintf(err, errlen,
				 "%s: \"calibration\": pair %zu (%" PRIu64 ", %" PRIu64
				 ") is past 2^62 ticks or 2^63 ns: the file is damaged",
				 path, p->npairs + 1, p->pairs[p->npairs].ticks,
				 p->pairs[p->npairs].ns);
			f.ret = -EINVAL;
		}
		p->npairs++;
	}
	cJSON_Delete(j);
	if (f.ret)
		return f.ret;
	if (!p->clock || p->pid <= 0) {
		snprintf(err, errlen, "%s: missing pid or clock", path);
		return -EINVAL;
	}
	return 0;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct exp_stream *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The process a stream's clock pairs go to, and whether memory ran out adding one. */
struct pair_sink {
	struct exp_process *p;
	int oom;
};

static void add_pair(void *ctx, uint64_t ticks, uint64_t ns)
{
	struct pair_sink *sink = ctx;
	struct exp_process *p = sink->p;
	struct clock_pair *np = realloc(p->pairs, (p->npairs + 1) * sizeof(*np));

	if (!np) {
		sink->oom = 1;
		return;
	}
	p->pairs = np;
	p->pairs[p->npairs].ticks = ticks;
	p->pairs[p->npairs].ns = ns;
	p->npairs++;
}

/*
 * meta.json has no "sampling": the events of the first samples file's header, named "event0",
 * "event1"... 0 or -ENOMEM (a header that cannot be read leaves the experiment without
 * sampling: the samples walk then says why).
 */
static int sampling_guess(struct experiment *e)
{
	struct exp_sampling *sm = &e->sampling;
	struct stream_reader r;
	char err[256];
	uint32_t n;

	if (stream_open(&r, e->samples[0].path, err, sizeof(err)))
		return 0;
	n = r.hdr.nevents;
	stream_close(&r);
	sm->events = calloc((size_t)n + 1, sizeof(*sm->events));
	sm->states = calloc((size_t)n + 1, sizeof(*sm->states));
	sm->error = strdup("");
	sm->kallsyms_error = strdup("");
	if (!sm->events || !sm->states || !sm->error || !sm->kallsyms_error)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "event%u", i);
		sm->events[i] = strdup(name);
		sm->states[i] = strdup("group");
		sm->nevents = i + 1;
		if (!sm->events[i] || !sm->states[i])
			return -ENOMEM;
	}
	sm->inherit = 1;
	sm->guessed = 1;
	e->has_sampling = 1;
	return 0;
}

/* The damaged proc file of image IMAGE of PID (PID -1: any), or NULL. */
static struct exp_damage *damaged_proc(const struct experiment *e, pid_t pid, unsigned image)
{
	for (size_t i = 0; i < e->ndamaged; i++) {
		struct exp_damage *d = &e->damaged[i];

		if ((pid < 0 || (d->pid == pid && d->image == image)) &&
		    layout_parse(d->name, NULL) == LAYOUT_PROC)
			return d;
	}
	return NULL;
}

/*
 * A stream or samples file of SIZE bytes shorter than its header: listed as damaged, with the
 * process it belongs to. 1 listed (leave it out), 0 not short, -ENOMEM.
 */
static int short_file(struct experiment *e, const char *path, uint64_t size, pid_t pid,
		      unsigned image, int launcher)
{
	const char *name = strrchr(path, '/');
	struct exp_damage *d;

	if (size >= sizeof(struct psc_stream_header))
		return 0;
	d = damage_add(e, name ? name + 1 : path, size ? EXP_DAMAGE_HEADER : EXP_DAMAGE_EMPTY, size,
		       size);
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	return 1;
}

/* What the chunk scan X of a stream or samples file says about its end, listed as damage. */
static int scan_damage(struct experiment *e, const char *path, const struct stream_extent *x,
		       uint64_t header, pid_t pid, unsigned image, int launcher)
{
	const char *name = strrchr(path, '/');
	struct exp_damage *d = NULL;

	name = name ? name + 1 : path;
	if (x->defect)
		return 0; /* corruption: the full pass names it */
	if (x->cut_at)
		d = damage_add(e, name, EXP_DAMAGE_CUT, x->size, x->cut_at);
	else if (!x->chunks)
		d = damage_add(e, name, EXP_DAMAGE_CUT, x->size, header);
	else if (x->want_end && x->ended == 0)
		d = damage_add(e, name, EXP_DAMAGE_UNENDED, x->size, x->size);
	else
		return 0;
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	return 0;
}

/* The maps or pmaps file F named NAME, when it has 0 bytes, listed as damaged. */
static int maps_damage(struct experiment *e, const char *name, const struct layout_file *f)
{
	struct layout_file maps_file = {.kind = LAYOUT_MAPS, .pid = f->pid, .image = f->image};
	int pid = f->pid, launcher = f->kind == LAYOUT_PMAPS, exists;
	unsigned image = f->image;
	struct exp_damage *d;
	char maps[64];

	if (file_size(e->dir, name, &exists) || !exists)
		return 0;
	d = damage_add(e, name, EXP_DAMAGE_EMPTY, 0, 0);
	if (!d)
		return -ENOMEM;
	d->pid = pid;
	d->image = image;
	d->launcher = launcher;
	if (launcher) {
		layout_name(&maps_file, maps, sizeof(maps));
		d->maps_cover = file_size(e->dir, maps, &exists) > 0;
	}
	return 0;
}

/*
 * The samples files: cut short or without their end record (damage); the command's pmaps
 * file missing; and when meta.json has no "sampling" (the launcher was killed before the
 * command ended), event names made from the first file's header. 0 or -ENOMEM.
 */
static int samples_check(struct experiment *e)
{
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < e->nsamples; i++) {
		struct exp_samples *f = &e->samples[i];
		struct stream_extent x = {.want_end = 1};
		struct layout_file pmaps = {.kind = LAYOUT_PMAPS, .pid = (int)f->pid};
		struct layout_file maps = {.kind = LAYOUT_MAPS, .pid = (int)f->pid};
		int exists, left_out;
		uint64_t size = file_size(e->dir, strrchr(f->path, '/') + 1, &exists);
		char name[64], err[256];

		left_out = ret ? 0 : short_file(e, f->path, size, f->pid, 0, 1);
		if (left_out < 0)
			ret = left_out;
		if (left_out > 0) {
			free(f->path);
			continue;
		}
		e->samples[keep++] = *f;
		if (ret)
			continue; /* out of memory: the files are kept to be freed */
		if (stream_scan(f->path, NULL, NULL, &x, err, sizeof(err)) == 0)
			ret = scan_damage(e, f->path, &x, sizeof(struct psc_stream_header), f->pid,
					  0, 1);
		layout_name(&pmaps, name, sizeof(name));
		file_size(e->dir, name, &exists);
		if (!ret && !exists) {
			layout_name(&maps, name, sizeof(name));
			file_size(e->dir, name, &exists);
			if (!exists) {
				struct exp_damage *d;

				layout_name(&pmaps, name, sizeof(name));
				d = damage_add(e, name, EXP_DAMAGE_MISSING, 0, 0);
				if (!d)
					ret = -ENOMEM;
				else {
					d->pid = f->pid;
					d->launcher = 1;
				}
			}
		}
	}
	e->nsamples = keep;
	if (ret || !e->nsamples || e->has_sampling)
		return ret;
	return sampling_guess(e);
}

static int cmp_damage(const void *a, const void *b)
{
	return strcmp(((const struct exp_damage *)a)->name, ((const struct exp_damage *)b)->name);
}

static int experiment_read(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	struct dirent *de;
	size_t nproc_files = 0, nstream_files = 0, nsample_files = 0, keep = 0;
	struct stat st;
	DIR *d;
	int ret;

	memset(e, 0, sizeof(*e));
	e->exit_status = -1;
	e->exit_signal = -1;
	if (stat(dir, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir,
			 e == ENOENT ? "no such experiment directory" : strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (an experiment is a directory)", dir);
		return -ENOTDIR;
	}
	e->dir = strdup(dir);
	if (!e->dir) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	/* streams of killed processes are completed from their live buffer files first; what
	 * cannot be (a read-only directory) is said in the caveats */
	salvage_dir(dir, &e->salvage, err, errlen);
	err[0] = 0;
	ret = meta_load(e, err, errlen);
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir,
			 ret == -ENOMEM ? "out of memory reading the directory" : strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		enum layout_kind kind = layout_parse(de->d_name, NULL);

		nproc_files += kind == LAYOUT_PROC;
		nstream_files += kind == LAYOUT_STREAM;
		nsample_files += kind == LAYOUT_SAMPLES;
	}
	e->samples = calloc(nsample_files + 1, sizeof(*e->samples));
	e->procs = calloc(nproc_files + 1, sizeof(*e->procs));
	e->streams = calloc(nstream_files + 1, sizeof(*e->streams));
	if (!e->procs || !e->streams || !e->samples) {
		closedir(d);
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	rewinddir(d);
	while ((de = readdir(d)) && ret == 0) {
		struct layout_file f;
		enum layout_kind kind = layout_parse(de->d_name, &f);

		if (kind == LAYOUT_PROC && e->nprocs < nproc_files) {
			ret = proc_load(e, de->d_name, err, errlen);
		} else if (kind == LAYOUT_STREAM && e->nstreams < nstream_files) {
			struct exp_stream *s = &e->streams[e->nstreams++];
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			s->path = strdup(path);
			if (!s->path) {
				snprintf(err, errlen, "%s: out of memory", dir);
				ret = -ENOMEM;
			}
			s->pid = f.pid;
			s->tid = f.tid;
			s->image = f.image;
		} else if (kind == LAYOUT_SAMPLES && e->nsamples < nsample_files) {
			struct exp_samples *s = &e->samples[e->nsamples++];
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			s->path = strdup(path);
			if (!s->path) {
				snprintf(err, errlen, "%s: out of memory", dir);
				ret = -ENOMEM;
			}
			s->pid = f.pid;
		} else if (kind == LAYOUT_MAPS || kind == LAYOUT_PMAPS) {
			ret = maps_damage(e, de->d_name, &f);
		}
	}
	closedir(d);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", dir);
	if (ret)
		return ret;
	if (!e->has_meta && e->nprocs == 0 && !damaged_proc(e, -1, 0)) {
		snprintf(err, errlen,
			 "%s: not a perfscope experiment (no meta.json, no proc.*.json)", dir);
		return -EINVAL;
	}
	qsort(e->streams, e->nstreams, sizeof(*e->streams), cmp_stream);
	for (size_t i = 0; i < e->nstreams; i++) {
		struct exp_stream *s = &e->streams[i];
		struct pair_sink sink = {NULL, 0};
		struct stream_extent x = {0};
		struct exp_damage *dp;
		char serr[256];
		int exists;
		uint64_t size = file_size(dir, strrchr(s->path, '/') + 1, &exists);

		s->proc = experiment_process(e, s->pid, s->image);
		ret = short_file(e, s->path, size, s->pid, s->image, 0);
		if (!ret && !s->proc && (dp = damaged_proc(e, s->pid, s->image))) {
			dp->streams_out++; /* said with its process's file */
			ret = 1;
		}
		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory", dir);
			return ret;
		}
		if (ret) {
			free(s->path);
			s->path = NULL; /* left out */
			continue;
		}
		if (!s->proc) {
			if (s->image)
				snprintf(err, errlen, "%s: no proc.%d.%u.json for this stream",
					 s->path, (int)s->pid, s->image);
			else
				snprintf(err, errlen, "%s: no proc.%d.json for this stream",
					 s->path, (int)s->pid);
			return -EINVAL;
		}
		sink.p = s->proc;
		if (stream_scan(s->path, add_pair, &sink, &x, serr, sizeof(serr)) == 0 &&
		    scan_damage(e, s->path, &x, sizeof(struct psc_stream_header), s->pid, s->image,
				0)) {
			snprintf(err, errlen, "%s: out of memory", dir);
			return -ENOMEM;
		}
		if (sink.oom) {
			snprintf(err, errlen, "%s: out of memory", s->path);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < e->nstreams; i++)
		if (e->streams[i].path)
			e->streams[keep++] = e->streams[i];
	e->nstreams = keep;
	ret = samples_check(e);
	if (ret) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return ret;
	}
	if (e->ndamaged)
		qsort(e->damaged, e->ndamaged, sizeof(*e->damaged), cmp_damage);
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_process *p = &e->procs[i];

		if (p->npairs == 0 || clock_fit_checked(p->pairs, p->npairs, p->clock, &p->fit,
							p->clock_note, sizeof(p->clock_note))) {
			/* without two distinct pairs, trust the only one with a unit slope */
			p->fit.ref_ticks = p->npairs ? p->pairs[0].ticks : 0;
			p->fit.ref_ns = p->npairs ? p->pairs[0].ns : 0;
			p->fit.ns_per_tick = 1.0;
			clock_fit_prepare(&p->fit);
		}
	}
	if (objects_survey(dir, 1, &e->objects, &e->nobjects)) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	return 0;
}

/* What experiment_read() left when it failed is released here: no caller leaks it. */
int experiment_open(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	int ret = experiment_read(e, dir, err, errlen);

	if (ret)
		experiment_release(e);
	return ret;
}

struct exp_process *experiment_process(const struct experiment *e, pid_t pid, unsigned image)
{
	for (size_t i = 0; i < e->nprocs; i++)
		if (e->procs[i].pid == pid && e->procs[i].image == image)
			return &e->procs[i];
	return NULL;
}

void experiment_release(struct experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_process *p = &e->procs[i];

		free(p->exe);
		free(p->host);
		free(p->state);
		free(p->error);
		free(p->pairs);
		free_str_array(p->events, p->nevents);
	}
	for (size_t i = 0; i < e->nstreams; i++)
		free(e->streams[i].path);
	for (size_t i = 0; i < e->nsamples; i++)
		free(e->samples[i].path);
	free(e->samples);
	free_str_array(e->sampling.events, e->sampling.nevents);
	free_str_array(e->sampling.states, e->sampling.nevents);
	free(e->sampling.error);
	free(e->sampling.kallsyms_error);
	for (size_t i = 0; i < e->ndamaged; i++)
		free(e->damaged[i].name);
	free(e->damaged);
	for (size_t i = 0; i < e->nmetrics; i++) {
		free(e->metrics[i].name);
		free(e->metrics[i].unit);
		free(e->metrics[i].formula);
	}
	free(e->metrics);
	free(e->metric_group);
	free(e->power.source);
	free(e->power.file);
	free(e->power.path);
	free(e->power.format);
	free(e->power.scale);
	for (size_t i = 0; i < e->nunsupported; i++) {
		free(e->unsupported[i].name);
		free(e->unsupported[i].reason);
	}
	free(e->unsupported);
	objects_release(e->objects, e->nobjects);
	free(e->procs);
	free(e->streams);
	free_str_array(e->command, e->ncommand);
	free(e->created_by);
	free(e->host);
	free(e->clock);
	free(e->cpu_brand);
	free(e->dir);
	memset(e, 0, sizeof(*e));
}
