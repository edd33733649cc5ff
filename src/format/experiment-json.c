/*
 * experiment-json.c - the JSON files of an experiment read: a text cut short told from one that
 * is not JSON, and every number checked against the range of the C type it is read into.
 */
#include "format/experiment-int.h"
#include "lib/array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		if (ARRAY_GROW(buf, len + 4096 + 1, cap)) {
			free(buf);
			fclose(f);
			*err = -ENOMEM;
			return NULL;
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

cJSON *exp_read_json_cut(const char *path, char *err, size_t errlen, int *ret, int *cut,
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

cJSON *exp_read_json(const char *path, char *err, size_t errlen, int *ret)
{
	return exp_read_json_cut(path, err, errlen, ret, NULL, NULL);
}
double exp_num_at(struct jfile *f, const cJSON *v, const char *key, double lo, double hi,
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

double exp_get_num(struct jfile *f, const cJSON *j, const char *key, double lo, double hi,
		   const char *what, double dflt)
{
	return exp_num_at(f, cJSON_GetObjectItemCaseSensitive(j, key), key, lo, hi, what, dflt);
}

void exp_jfile_oom(struct jfile *f)
{
	if (!f->ret)
		snprintf(f->err, f->errlen, "%s: out of memory", f->path);
	if (!f->ret)
		f->ret = -ENOMEM;
}

char *exp_jdup(struct jfile *f, const char *s)
{
	char *d = strdup(s);

	if (!d)
		exp_jfile_oom(f);
	return d;
}

char *exp_dup_str(struct jfile *f, const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return exp_jdup(f, cJSON_IsString(v) ? v->valuestring : "");
}

char **exp_dup_str_array(struct jfile *f, const cJSON *arr, size_t *n)
{
	size_t count = (size_t)cJSON_GetArraySize(arr), i = 0;
	char **out = calloc(count + 1, sizeof(*out));
	const cJSON *it;

	if (!out) {
		exp_jfile_oom(f);
		return NULL;
	}
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *name = cJSON_IsObject(it) ? cJSON_GetObjectItem(it, "name") : it;

		out[i++] = exp_jdup(f, cJSON_IsString(name) ? name->valuestring : "");
	}
	*n = i;
	return out;
}

void exp_free_str_array(char **a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		free(a[i]);
	free(a);
}

uint64_t exp_json_u64(struct jfile *f, const cJSON *v, const char *key)
{
	if (cJSON_IsString(v))
		return strtoull(v->valuestring, NULL, 10);
	return (uint64_t)exp_num_at(f, v, key, R_U64, 0);
}
