/*
 * perfscope.h - in-process API of perfscope (link with -lperfscope).
 *
 * Regions: mark a piece of code with psc_region_begin/psc_region_end. When the program runs
 * under `perfscope record` or with PERFSCOPE_OUT=DIR set, every begin/end is recorded with a
 * timestamp and the configured counters (perfscope record -e, or PERFSCOPE_EVENTS=ev1,ev2);
 * `perfscope report DIR --by region` shows calls, time and counter deltas. Otherwise the calls
 * cost a few nanoseconds and record nothing.
 *
 * Counter sets: the simplest explicit use, independent of recording: start a set of named
 * events, read their values and the elapsed time, stop.
 *
 * No function here prints, exits or changes errno.
 */
#ifndef PERFSCOPE_H
#define PERFSCOPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSC_VERSION_MAJOR 0
#define PSC_VERSION_MINOR 1

/* Value stored by psc_counters_read for an event this machine cannot count. */
#define PSC_NOT_COUNTED (-1)

/*
 * Enter the region NAME on the calling thread. Regions nest per thread. NAME is interned on
 * first use; later calls with the same pointer cost no string hashing (a literal is ideal).
 */
void psc_region_begin(const char *name);

/* Leave the region NAME. An end that does not match the innermost begin is counted as an
 * error in the results, never a crash. */
void psc_region_end(const char *name);

/* Interned id of NAME (>= 0), or a negative errno code. For callers that build names. */
int psc_region_id(const char *name);

/* Begin/end by an id from psc_region_id(): no string work at all. */
void psc_region_begin_id(int id);
void psc_region_end_id(int id);

/* Same as psc_region_begin/end for a name of LEN bytes, not NUL-terminated (Fortran). */
void psc_region_begin_n(const char *name, int64_t len);
void psc_region_end_n(const char *name, int64_t len);

/* Write this thread's buffered records to the experiment now (they are written at exit and
 * whenever a buffer chunk fills anyway). Returns 0 or a negative errno code. */
int psc_flush(void);

struct psc_counters;

/*
 * Open and start the comma-separated EVENTS (e.g. "page-faults,task-clock") for the calling
 * thread. Events this machine cannot count are kept in the set and read as PSC_NOT_COUNTED;
 * psc_counters_error() says why. Returns 0 and sets *set, or a negative errno code
 * (-ENOENT: an event name is unknown; -EINVAL: bad list; -ENOMEM).
 */
int psc_counters_start(const char *events, struct psc_counters **set);

/*
 * Read the counts since psc_counters_start into VALUES[0..n-1] (scaled when multiplexed,
 * PSC_NOT_COUNTED when not countable) and the elapsed wall time into *elapsed_ns (may be
 * NULL). Returns the number of events in the set, or a negative errno code.
 */
int psc_counters_read(struct psc_counters *set, int64_t *values, int n, int64_t *elapsed_ns);

/* Number of events in SET. */
int psc_counters_count(const struct psc_counters *set);

/* Name of event I as given, or NULL when I is out of range. */
const char *psc_counters_name(const struct psc_counters *set, int i);

/* Why event I is not counted ("not supported: no hardware PMU", ...), or NULL if it is. */
const char *psc_counters_error(const struct psc_counters *set, int i);

/* Stop and free SET. Returns 0 or a negative errno code. */
int psc_counters_stop(struct psc_counters *set);

/*
 * Macros that compile to nothing unless PERFSCOPE is defined, with the same arguments in both
 * forms, so instrumented code builds without perfscope.
 */
#ifdef PERFSCOPE
#define PSC_REGION_BEGIN(name) psc_region_begin(name)
#define PSC_REGION_END(name)   psc_region_end(name)
#define PSC_FLUSH()	       ((void)psc_flush())
#else
#define PSC_REGION_BEGIN(name) ((void)0)
#define PSC_REGION_END(name)   ((void)0)
#define PSC_FLUSH()	       ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PERFSCOPE_H */
