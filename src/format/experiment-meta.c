/* experiment-meta.c - an experiment's meta.json read: the run, its metrics, sampling and power. */
#include "format/experiment-int.h"

#include "format/meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sampling_load(struct experiment *e, struct jfile *f, const cJSON *v)
{
	struct exp_sampling *sm = &e->sampling;
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(v, "events"), *it;
	size_t i = 0;

	e->has_sampling = 1;
	sm->events = exp_dup_str_array(f, evs, &sm->nevents);
	sm->states = calloc(sm->nevents + 1, sizeof(*sm->states));
	if (!sm->states)
		exp_jfile_oom(f);
	cJSON_ArrayForEach(it, evs)
	{
		if (sm->states && i < sm->nevents)
			sm->states[i++] = exp_dup_str(f, it, "state");
	}
	sm->frequency =
	    exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "frequency"), "frequency");
	sm->period = exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "period"), "period");
	sm->callgraph = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "callgraph"));
	sm->user_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "user_only"));
	sm->samples = exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "samples"), "samples");
	sm->lost = exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "lost"), "lost");
	sm->throttled =
	    exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "throttled"), "throttled");
	sm->late = exp_json_u64(f, cJSON_GetObjectItemCaseSensitive(v, "late"), "late");
	sm->inherit = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "inherit"));
	sm->error = exp_dup_str(f, v, "error");
	sm->kallsyms_error = exp_dup_str(f, v, "kallsyms_error");
}

/* meta.json's "unsupported_events" (V, an array): entries without a name are skipped. */
static void unsupported_load(struct experiment *e, struct jfile *f, const cJSON *v)
{
	const cJSON *it;

	e->unsupported = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(*e->unsupported));
	if (!e->unsupported) {
		exp_jfile_oom(f);
		return;
	}
	cJSON_ArrayForEach(it, v)
	{
		struct exp_unsupported *u = &e->unsupported[e->nunsupported];
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");

		if (!cJSON_IsString(name) || !name->valuestring[0])
			continue;
		u->name = exp_jdup(f, name->valuestring);
		u->reason = exp_dup_str(f, it, "reason");
		if (u->reason && !u->reason[0]) {
			free(u->reason);
			u->reason = exp_jdup(f, "could not be opened");
		}
		if (!u->name || !u->reason) { /* out of memory: said in F */
			free(u->name);
			free(u->reason);
			u->name = u->reason = NULL;
			continue;
		}
		u->status = (int)exp_get_num(f, it, "status", R_INT, 0);
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

int exp_meta_load(struct experiment *e, char *err, size_t errlen)
{
	char path[4096];
	struct jfile f = {path, err, errlen, 0};
	cJSON *j, *v;
	int ret = 0;

	layout_path(e->dir, &(struct layout_file){.kind = LAYOUT_META}, path, sizeof(path));
	j = exp_read_json(path, err, errlen, &ret);
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
	e->created_by = exp_dup_str(&f, j, META_CREATED_BY);
	e->host = exp_dup_str(&f, j, META_HOST);
	e->clock = exp_dup_str(&f, j, META_CLOCK);
	v = cJSON_GetObjectItemCaseSensitive(j, META_CPU);
	e->cpu_brand = cJSON_IsObject(v) ? exp_dup_str(&f, v, META_CPU_BRAND) : exp_jdup(&f, "");
	e->start_unix_ns = (uint64_t)exp_get_num(&f, j, META_START_UNIX_NS, R_U64, 0);
	e->exit_status = (int)exp_get_num(&f, j, META_EXIT_STATUS, R_INT, -1);
	e->exit_signal = (int)exp_get_num(&f, j, META_EXIT_SIGNAL, R_SIGNAL, -1);
	e->start_ns = (int64_t)exp_get_num(&f, j, META_START_NS, R_NS, 0);
	e->end_ns = (int64_t)exp_get_num(&f, j, META_END_NS, R_NS, 0);
	if (e->end_ns < e->start_ns)
		e->start_ns = e->end_ns = 0;
	e->mpi = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, META_MPI));
	e->command =
	    exp_dup_str_array(&f, cJSON_GetObjectItemCaseSensitive(j, META_COMMAND), &e->ncommand);
	v = cJSON_GetObjectItemCaseSensitive(j, META_METRIC_GROUP);
	e->metric_group = cJSON_IsObject(v) ? exp_dup_str(&f, v, "name") : exp_jdup(&f, "");
	if (cJSON_IsObject(v)) {
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(v, "metrics"), *m;

		e->metrics = calloc((size_t)cJSON_GetArraySize(ms) + 1, sizeof(*e->metrics));
		if (!e->metrics)
			exp_jfile_oom(&f);
		cJSON_ArrayForEach(m, ms)
		{
			if (!e->metrics)
				break;
			struct exp_metric *em = &e->metrics[e->nmetrics++];

			em->name = exp_dup_str(&f, m, "name");
			em->unit = exp_dup_str(&f, m, "unit");
			em->formula = exp_dup_str(&f, m, "formula");
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
		pw->source = exp_dup_str(&f, v, "source");
		pw->file = exp_dup_str(&f, v, "file");
		pw->period_ns = (int64_t)exp_get_num(&f, v, "period_ns", R_NS, 0);
		pw->path = exp_dup_str(&f, v, "path");
		pw->format = exp_dup_str(&f, v, "format");
		pw->scale = exp_dup_str(&f, v, "scale");
		pw->rate_hz = exp_get_num(&f, v, "rate_hz", R_REAL, 0);
		pw->offset_ns = exp_get_num(&f, v, "offset_ns", R_REAL, 0);
	}
	cJSON_Delete(j);
	return f.ret;
}
