/* record-env.c - the environment of a recorded command: the runtime preloaded, its variables. */
#include "record/record-env.h"
#include "record/record-mpi.h"

#include "format/env.h"
#include "format/filter.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int record_preload(const char *lib, int mpi, char *const *cmd)
{
	char mpilib[PATH_MAX + 32] = "", value[4 * PATH_MAX + 8];
	const char *old = getenv("LD_PRELOAD");

	if (mpi && record_mpi_library(lib, cmd, mpilib, sizeof(mpilib)))
		return -ENOENT;
#ifdef PSC_ASAN_RUNTIME
	snprintf(value, sizeof(value), "%s:%s%s%s%s", PSC_ASAN_RUNTIME, lib, mpilib,
		 old && *old ? ":" : "", old && *old ? old : "");
	if (!getenv("ASAN_OPTIONS"))
		setenv("ASAN_OPTIONS", "detect_leaks=0:verify_asan_link_order=0", 1);
#else
	snprintf(value, sizeof(value), "%s%s%s%s", lib, mpilib, old && *old ? ":" : "",
		 old && *old ? old : "");
#endif
	return setenv("LD_PRELOAD", value, 1) ? -errno : 0;
}

int record_env_set(const struct record_env *env)
{
	if (setenv(PSC_ENV_OUT, env->dir, 1) || setenv(PSC_ENV_LAUNCHER, "1", 1) ||
	    (env->events ? setenv(PSC_ENV_EVENTS, env->events, 1) : unsetenv(PSC_ENV_EVENTS)) ||
	    (env->filter ? setenv(PSC_ENV_FILTER, env->filter, 1) : unsetenv(PSC_ENV_FILTER)) ||
	    (env->bufsize ? setenv(PSC_ENV_BUFSIZE, env->bufsize, 1) : 0) ||
	    (env->mpi_load ? setenv(PSC_ENV_MPI_LOAD, env->mpi_load, 1) : 0) ||
	    (env->mpi_run ? setenv(PSC_ENV_MPI_RUN, env->mpi_run, 1) : 0) ||
	    (env->openmp_off ? setenv(PSC_ENV_OPENMP, "0", 1) : unsetenv(PSC_ENV_OPENMP)))
		return -errno;
	return 0;
}

int record_filter_check(const char *path, char *abs, size_t len, char *err, size_t errlen)
{
	struct psc_filter *f = NULL;
	size_t line = 0;
	int ret = filter_load(path, &f, &line);

	if (ret == -ENOENT || ret == -EACCES) {
		snprintf(err, errlen, "cannot read filter %s: %s", path, strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		snprintf(
		    err, errlen,
		    "%s:%zu: not a perfscope filter line (write filters with perfscope select)",
		    path, line);
		return ret;
	}
	filter_free(f);
	if (!realpath(path, abs))
		snprintf(abs, len, "%s", path);
	return 0;
}
