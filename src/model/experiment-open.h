/*
 * experiment-open.h - an experiment as the analyses open it: its directory read
 * (format/experiment.h) and the objects its maps name surveyed (model/objcache.h): each one's
 * file checked against the one that ran, and kept in the build-id cache, so that a rebuild
 * after the recording does not rename its functions.
 */
#ifndef PSC_EXPERIMENT_OPEN_H
#define PSC_EXPERIMENT_OPEN_H

#include <stddef.h>

#include "format/experiment.h"

/*
 * experiment_read() of DIR into E, then the survey of its objects into E->objects
 * (objects_survey(DIR, 1): the files that are still the ones that ran are copied into the
 * build-id cache when they are not there yet). 0, or a negative errno with a one-line message
 * naming the file in ERR; then E holds nothing to release (experiment_release() on it does
 * nothing).
 */
int experiment_open(struct experiment *e, const char *dir, char *err, size_t errlen);

/* Release what experiment_open() put in E, the objects with the rest, and empty it. */
void experiment_release(struct experiment *e);

#endif /* PSC_EXPERIMENT_OPEN_H */
