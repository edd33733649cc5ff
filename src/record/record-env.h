/*
 * record-env.h - the environment `perfscope record` gives the command: the runtime (and the
 * MPI wrappers) preloaded, the PERFSCOPE_* variables that tell the runtime where and what to
 * record, and the filter file checked before anything runs (the runtime cannot say what is
 * wrong with it). Nothing here prints but record_mpi_library's messages.
 */
#ifndef PSC_RECORD_ENV_H
#define PSC_RECORD_ENV_H

#include <stddef.h>

/* What the runtime of a recorded command is told. NULL: not set (EVENTS, FILTER: unset). */
struct record_env {
	const char *dir;      /* the experiment, an absolute path */
	const char *events;   /* the events counted at region boundaries, comma-separated */
	const char *filter;   /* the filter file, an absolute path */
	const char *bufsize;  /* --buffer-size as given */
	const char *mpi_load; /* with --mpi: the load sampling period in ms */
	const char *mpi_run;  /* this MPI run's nonce */
	int openmp_off;	      /* --no-openmp: PERFSCOPE_OPENMP=0 (else unset) */
};

/*
 * LD_PRELOAD the runtime LIB (after the ASan runtime in sanitizer builds), with MPI its MPI
 * wrappers too (those of CMD's MPI, record_mpi_library, which says why it finds none), before
 * the user's. 0, -ENOENT (no wrappers), or the negative errno of setenv.
 */
int record_preload(const char *lib, int mpi, char *const *cmd);

/* Set the environment of ENV for the command and every process it starts: 0, or the
 * negative errno of the first setenv or unsetenv that failed. */
int record_env_set(const struct record_env *env);

/*
 * Check the filter file PATH (from perfscope select) and put its absolute path into ABS
 * (PATH itself when it has none). 0, or a negative errno with ERR saying why: it cannot be
 * read, or which line is not a filter line.
 */
int record_filter_check(const char *path, char *abs, size_t len, char *err, size_t errlen);

#endif /* PSC_RECORD_ENV_H */
