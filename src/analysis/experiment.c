/* experiment.c - reading an experiment directory's JSON files and stream list. */
#include "experiment.h"
#include "objcache.h"
#include "stream.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
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

static cJSON *read_json(const char *path, char *err, size_t errlen, int *ret)
{
	char *text = read_text(path, ret);
	cJSON *j;

	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(-*ret));
		return NULL;
	}
	j = cJSON_Parse(text);
	if (!j) {
		const char *at = cJSON_GetErrorPtr();

		snprintf(err, errlen, "%s: byte %ld: invalid JSON", path,
			 at ? (long)(at - text) : 0L);
		*ret = -EINVAL;
	}
	free(text);
	return j;
}

static char *dup_str(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

static double get_num(const cJSON *j, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static char **dup_str_array(const cJSON *arr, size_t *n)
{
	size_t count = (size_t)cJSON_GetArraySize(arr), i = 0;
	char **out = calloc(count + 1, sizeof(*out));
	const cJSON *it;

	if (!out)
		return NULL;
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *name = cJSON_IsObject(it) ? cJSON_GetObjectItem(it, "name") : it;

		out[i++] = strdup(cJSON_IsString(name) ? name->valuestring : "");
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
static uint64_t json_u64(const cJSON *v)
{
	if (cJSON_IsString(v))
		return strtoull(v->valuestring, NULL, 10);
	return cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : 0;
}

static void sampling_load(struct experiment *e, const cJSON *v)
{
	struct exp_sampling *sm = &e->sampling;
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(v, "events"), *it;
	size_t i = 0;

	e->has_sampling = 1;
	sm->events = dup_str_array(evs, &sm->nevents);
	sm->states = calloc(sm->nevents + 1, sizeof(*sm->states));
	cJSON_ArrayForEach(it, evs)
	{
		if (sm->states && i < sm->nevents)
			sm->states[i++] = dup_str(it, "state");
	}
	sm->frequency = json_u64(cJSON_GetObjectItemCaseSensitive(v, "frequency"));
	sm->period = json_u64(cJSON_GetObjectItemCaseSensitive(v, "period"));
	sm->callgraph = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "callgraph"));
	sm->user_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "user_only"));
	sm->samples = json_u64(cJSON_GetObjectItemCaseSensitive(v, "samples"));
	sm->lost = json_u64(cJSON_GetObjectItemCaseSensitive(v, "lost"));
	sm->throttled = json_u64(cJSON_GetObjectItemCaseSensitive(v, "throttled"));
	sm->late = json_u64(cJSON_GetObjectItemCaseSensitive(v, "late"));
	sm->inherit = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "inherit"));
}

/* meta.json's "unsupported_events" (V, an array): entries without a name are skipped. */
static void unsupported_load(struct experiment *e, const cJSON *v)
{
	const cJSON *it;

	e->unsupported = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(*e->unsupported));
	if (!e->unsupported)
		return;
	cJSON_ArrayForEach(it, v)
	{
		struct exp_unsupported *u = &e->unsupported[e->nunsupported];
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");

		if (!cJSON_IsString(name) || !name->valuestring[0])
			continue;
		u->name = strdup(name->valuestring);
		u->reason = dup_str(it, "reason");
		if (u->reason && !u->reason[0]) {
			free(u->reason);
			u->reason = strdup("could not be opened");
		}
		if (!u->name || !u->reason) {
			/* out of memory: the event goes without its caveat, as other fields do */
			free(u->name);
			free(u->reason);
			u->name = u->reason = NULL;
			continue;
		}
		u->status = (int)get_num(it, "status", 0);
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
	e->created_by = dup_str(j, "created_by");
	e->host = dup_str(j, "host");
	e->clock = dup_str(j, "clock");
	v = cJSON_GetObjectItemCaseSensitive(j, "cpu");
	e->cpu_brand = cJSON_IsObject(v) ? dup_str(v, "brand") : strdup("");
	e->start_unix_ns = (uint64_t)get_num(j, "start_unix_ns", 0);
	e->exit_status = (int)get_num(j, "exit_status", -1);
	e->start_ns = (int64_t)get_num(j, "start_ns", 0);
	e->end_ns = (int64_t)get_num(j, "end_ns", 0);
	if (e->end_ns < e->start_ns)
		e->start_ns = e->end_ns = 0;
	e->command = dup_str_array(cJSON_GetObjectItemCaseSensitive(j, "command"), &e->ncommand);
	v = cJSON_GetObjectItemCaseSensitive(j, "metric_group");
	e->metric_group = cJSON_IsObject(v) ? dup_str(v, "name") : strdup("");
	if (cJSON_IsObject(v)) {
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(v, "metrics"), *m;

		e->metrics = calloc((size_t)cJSON_GetArraySize(ms) + 1, sizeof(*e->metrics));
		cJSON_ArrayForEach(m, ms)
		{
			struct exp_metric *em = &e->metrics[e->nmetrics++];

			em->name = dup_str(m, "name");
			em->unit = dup_str(m, "unit");
			em->formula = dup_str(m, "formula");
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(j, "sampling");
	if (cJSON_IsObject(v))
		sampling_load(e, v);
	v = cJSON_GetObjectItemCaseSensitive(j, "unsupported_events");
	if (cJSON_IsArray(v))
		unsupported_load(e, v);
	v = cJSON_GetObjectItemCaseSensitive(j, "power");
	if (cJSON_IsObject(v)) {
		struct exp_power *pw = &e->power;

		e->has_power = 1;
		pw->source = dup_str(v, "source");
		pw->file = dup_str(v, "file");
		pw->period_ns = (int64_t)get_num(v, "period_ns", 0);
		pw->path = dup_str(v, "path");
		pw->format = dup_str(v, "format");
		pw->scale = dup_str(v, "scale");
		pw->rate_hz = get_num(v, "rate_hz", 0);
		pw->offset_ns = get_num(v, "offset_ns", 0);
	}
	cJSON_Delete(j);
	return 0;
}

static int proc_load(struct experiment *e, const char *name, char *err, size_t errlen)
{
	char path[4096];
	struct exp_process *p;
	cJSON *j, *cal, *pair;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	j = read_json(path, err, errlen, &ret);
	if (!j)
		return ret;
	p = &e->procs[e->nprocs++];
	p->pid = (pid_t)get_num(j, "pid", 0);
	p->image = (unsigned)get_num(j, "image", 0);
	p->ppid = (pid_t)get_num(j, "ppid", 0);
	p->rank = (int)get_num(j, "rank", -1);
	p->exe = dup_str(j, "exe");
	p->host = dup_str(j, "host");
	p->state = dup_str(j, "state");
	p->error = dup_str(j, "error");
	p->paranoid = (int)get_num(j, "paranoid", 2);
	p->have_core_pmu = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "have_core_pmu"));
	p->lost_records = (uint64_t)get_num(j, "lost_records", 0);
	p->lost_bytes = (uint64_t)get_num(j, "lost_bytes", 0);
	{
		char *clock = dup_str(j, "clock");

		p->clock = clock ? clock_source_parse(clock) : 0;
		free(clock);
	}
	p->events = dup_str_array(cJSON_GetObjectItemCaseSensitive(j, "events"), &p->nevents);
	cal = cJSON_GetObjectItemCaseSensitive(j, "calibration");
	p->pairs = calloc((size_t)cJSON_GetArraySize(cal) + 1, sizeof(*p->pairs));
	cJSON_ArrayForEach(pair, cal)
	{
		if (cJSON_GetArraySize(pair) != 2 || !p->pairs)
			continue;
		p->pairs[p->npairs].ticks = json_u64(cJSON_GetArrayItem(pair, 0));
		p->pairs[p->npairs].ns = json_u64(cJSON_GetArrayItem(pair, 1));
		p->npairs++;
	}
	cJSON_Delete(j);
	if (!p->clock || p->pid <= 0) {
		snprintf(err, errlen, "%s: missing pid or clock", path);
		return -EINVAL;
	}
	return 0;
}

/* stream.<pid>.<tid> or stream.<pid>.<tid>.<image>: 1 and the numbers, or 0. */
static int stream_name_parse(const char *name, int *pid, int *tid, unsigned *image)
{
	int used = 0, used2 = 0;
	size_t len = strlen(name);

	*image = 0;
	if (sscanf(name, "stream.%d.%d%n", pid, tid, &used) != 2 || *pid <= 0 || *tid <= 0)
		return 0;
	if ((size_t)used == len)
		return 1;
	return name[used] == '.' && sscanf(name + used, ".%u%n", image, &used2) == 1 &&
	       (size_t)(used + used2) == len && *image > 0;
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

static void add_pair(void *ctx, uint64_t ticks, uint64_t ns)
{
	struct exp_process *p = ctx;
	struct clock_pair *np = realloc(p->pairs, (p->npairs + 1) * sizeof(*np));

	if (!np)
		return;
	p->pairs = np;
	p->pairs[p->npairs].ticks = ticks;
	p->pairs[p->npairs].ns = ns;
	p->npairs++;
}

int experiment_open(struct experiment *e, const char *dir, char *err, size_t errlen)
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
	ret = meta_load(e, err, errlen);
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		nproc_files += !strncmp(de->d_name, "proc.", 5);
		nstream_files += !strncmp(de->d_name, "stream.", 7);
		nsample_files += !strncmp(de->d_name, "samples.", 8);
	}
	e->samples = calloc(nsample_files + 1, sizeof(*e->samples));
	e->procs = calloc(nproc_files + 1, sizeof(*e->procs));
	e->streams = calloc(nstream_files + 1, sizeof(*e->streams));
	rewinddir(d);
	while ((de = readdir(d)) && ret == 0) {
		int pid, tid, used = 0;
		unsigned image = 0;
		size_t len = strlen(de->d_name);

		if (!strncmp(de->d_name, "proc.", 5) && len > 10 &&
		    !strcmp(de->d_name + len - 5, ".json") && e->nprocs < nproc_files) {
			ret = proc_load(e, de->d_name, err, errlen);
		} else if (stream_name_parse(de->d_name, &pid, &tid, &image) &&
			   e->nstreams < nstream_files) {
			struct exp_stream *s = &e->streams[e->nstreams++];
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			s->path = strdup(path);
			s->pid = pid;
			s->tid = tid;
			s->image = image;
		} else if (sscanf(de->d_name, "samples.%d%n", &pid, &used) == 1 &&
			   (size_t)used == len && pid > 0 && e->nsamples < nsample_files) {
			struct exp_samples *s = &e->samples[e->nsamples++];
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			s->path = strdup(path);
			s->pid = pid;
		}
	}
	closedir(d);
	if (ret)
		return ret;
	if (!e->procs || !e->streams || !e->samples) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	if (!e->has_meta && e->nprocs == 0) {
		snprintf(err, errlen,
			 "%s: not a perfscope experiment (no meta.json, no proc.*.json)", dir);
		return -EINVAL;
	}
	qsort(e->streams, e->nstreams, sizeof(*e->streams), cmp_stream);
	for (size_t i = 0; i < e->nstreams; i++) {
		struct exp_stream *s = &e->streams[i];

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
		stream_scan_clock(s->path, add_pair, s->proc, err, errlen);
	}
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_process *p = &e->procs[i];

		if (p->npairs == 0 || clock_fit_pairs(p->pairs, p->npairs, p->clock, &p->fit)) {
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
