/* experiment-open.c - an experiment read and its objects surveyed (experiment-open.h). */
#include "model/experiment-open.h"

#include "model/objcache.h"

#include <errno.h>
#include <stdio.h>

int experiment_open(struct experiment *e, const char *dir, char *err, size_t errlen)
{
	int ret = experiment_read(e, dir, err, errlen);

	if (ret)
		return ret;
	if (objects_survey(dir, 1, &e->objects, &e->nobjects)) {
		snprintf(err, errlen, "%s: out of memory", dir);
		experiment_release(e);
		return -ENOMEM;
	}
	return 0;
}

void experiment_release(struct experiment *e)
{
	objects_release(e->objects, e->nobjects);
	experiment_clear(e);
}
