/* experiment.c - reading an experiment directory's JSON files and stream list. */
#include "experiment.h"
#include "stream.h"

#include "../core/expfiles.h"

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

static cJSON *read_json(const char *path, char *err, size_t errlen, int *ret)
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
		const char *at = cJSON_GetErrorPtr();

		snprintf(err, errlen, "%s: byte %ld: invalid JSON", path,
			 at ? (long)(at - text) : 0L);
		*ret = -EINVAL;
	}
	free(text);
	return j;
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
#define R_INT  -2147483648.0, 2147483648.0, "a 32-bit integer"
#define R_U32  0.0, 4294967296.0, "an unsigned 32-bit integer"
#define R_U64  0.0, 18446744073709551616.0, "an unsigned 64-bit integer"
#define R_NS   0.0, 9223372036854775808.0, "a time from 0 to 2^63 ns"
#define R_REAL -1.7976931348623157e308, 1.7976931348623157e308, "a number"

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

	snprintf(path, sizeof(path), "%s/meta.json", e->dir);
	j = read_json(path, err, errlen, &ret);
	if (!j)
		return ret == -ENOENT ? 0 : ret;
	e->has_meta = 1;
	v = cJSON_GetObjectItemCaseSensitive(j, "version");
	if (!cJSON_IsNumber(v) || v->valueint != 1) {
		snprintf(err, errlen, "%s: format version %d, this perfscope reads 1", path,
			 cJSON_IsNumber(v) ? v->valueint : -1);
		cJSON_Delete(j);
		return -EINVAL;
	}
	e->created_by = dup_str(&f, j, "created_by");
	e->host = dup_str(&f, j, "host");
	e->clock = dup_str(&f, j, "clock");
	v = cJSON_GetObjectItemCaseSensitive(j, "cpu");
	e->cpu_brand = cJSON_IsObject(v) ? dup_str(&f, v, "brand") : jdup(&f, "");
	e->start_unix_ns = (uint64_t)get_num(&f, j, "start_unix_ns", R_U64, 0);
	e->exit_status = (int)get_num(&f, j, "exit_status", R_INT, -1);
	e->start_ns = (int64_t)get_num(&f, j, "start_ns", R_NS, 0);
	e->end_ns = (int64_t)get_num(&f, j, "end_ns", R_NS, 0);
	if (e->end_ns < e->start_ns)
		e->start_ns = e->end_ns = 0;
	e->mpi = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "mpi"));
	e->command =
	    dup_str_array(&f, cJSON_GetObjectItemCaseSensitive(j, "command"), &e->ncommand);
	v = cJSON_GetObjectItemCaseSensitive(j, "metric_group");
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
	v = cJSON_GetObjectItemCaseSensitive(j, "sampling");
	if (cJSON_IsObject(v))
		sampling_load(e, &f, v);
	v = cJSON_GetObjectItemCaseSensitive(j, "unsupported_events");
	if (cJSON_IsArray(v))
		unsupported_load(e, &f, v);
	v = cJSON_GetObjectItemCaseSensitive(j, "power");
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
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	j = read_json(path, err, errlen, &ret);
	if (!j)
		return ret;
	p = &e->procs[e->nprocs++];
	p->pid = (pid_t)get_num(&f, j, "pid", R_INT, 0);
	p->image = (unsigned)get_num(&f, j, "image", R_U32, 0);
	p->ppid = (pid_t)get_num(&f, j, "ppid", R_INT, 0);
	p->rank = (int)get_num(&f, j, "rank", R_INT, -1);
	p->exe = dup_str(&f, j, "exe");
	p->host = dup_str(&f, j, "host");
	p->state = dup_str(&f, j, "state");
	p->error = dup_str(&f, j, "error");
	p->paranoid = (int)get_num(&f, j, "paranoid", R_INT, 2);
	p->have_core_pmu = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "have_core_pmu"));
	p->lost_records = (uint64_t)get_num(&f, j, "lost_records", R_U64, 0);
	p->lost_bytes = (uint64_t)get_num(&f, j, "lost_bytes", R_U64, 0);
	p->lost_threads = (uint64_t)get_num(&f, j, "lost_threads", R_U64, 0);
	{
		char *clock = dup_str(&f, j, "clock");

		p->clock = clock ? clock_source_parse(clock) : 0;
		free(clock);
	}
	p->events = dup_str_array(&f, cJSON_GetObjectItemCaseSensitive(j, "events"), &p->nevents);
	cal = cJSON_GetObjectItemCaseSensitive(j, "calibration");
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

static int experiment_read(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	struct dirent *de;
	size_t nproc_files = 0, nstream_files = 0, nsample_files = 0;
	struct stat st;
	DIR *d;
	int ret;

	memset(e, 0, sizeof(*e));
	e->exit_status = -1;
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
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		enum expfile_kind kind = expfile_parse(de->d_name, NULL);

		nproc_files += kind == EXPFILE_PROC;
		nstream_files += kind == EXPFILE_STREAM;
		nsample_files += kind == EXPFILE_SAMPLES;
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
		struct expfile f;
		enum expfile_kind kind = expfile_parse(de->d_name, &f);

		if (kind == EXPFILE_PROC && e->nprocs < nproc_files) {
			ret = proc_load(e, de->d_name, err, errlen);
		} else if (kind == EXPFILE_STREAM && e->nstreams < nstream_files) {
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
		} else if (kind == EXPFILE_SAMPLES && e->nsamples < nsample_files) {
			struct exp_samples *s = &e->samples[e->nsamples++];
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			s->path = strdup(path);
			if (!s->path) {
				snprintf(err, errlen, "%s: out of memory", dir);
				ret = -ENOMEM;
			}
			s->pid = f.pid;
		}
	}
	closedir(d);
	if (ret)
		return ret;
	if (!e->has_meta && e->nprocs == 0) {
		snprintf(err, errlen,
			 "%s: not a perfscope experiment (no meta.json, no proc.*.json)", dir);
		return -EINVAL;
	}
	qsort(e->streams, e->nstreams, sizeof(*e->streams), cmp_stream);
	for (size_t i = 0; i < e->nstreams; i++) {
		struct exp_stream *s = &e->streams[i];
		struct pair_sink sink = {NULL, 0};

		s->proc = experiment_process(e, s->pid, s->image);
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
		stream_scan_clock(s->path, add_pair, &sink, err, errlen);
		if (sink.oom) {
			snprintf(err, errlen, "%s: out of memory", s->path);
			return -ENOMEM;
		}
	}
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
