/*
 * events.h - event names to perf_event encodings, through libpfm4.
 *
 * Accepts perf's generic names (cycles, instructions, cache-misses, L1-dcache-load-misses,
 * dTLB-load-misses, page-faults, task-clock, ...), PMU-qualified native names
 * (skl::L1D_PEND_MISS:PENDING, perf::PAGE-FAULTS) and raw rNNNN, with libpfm4 modifiers
 * (:u, :k). This file is the only one that includes libpfm4's headers, whose perf_event.h
 * clashes with <linux/perf_event.h>.
 */
#ifndef PSC_EVENTS_H
#define PSC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define EVENT_NAME_MAX 128

/* A resolved event: what perf_event_open needs, and how to name it. */
struct event_desc {
	char name[EVENT_NAME_MAX];	/* as the user wrote it */
	char canonical[EVENT_NAME_MAX]; /* libpfm4's fully qualified name */
	uint32_t type;			/* perf_event_attr.type */
	uint64_t config, config1, config2;
	unsigned exclude_user : 1, exclude_kernel : 1, exclude_hv : 1;
	unsigned precise_ip : 2;
};

/* Resolve NAME. Returns 0, -ENOENT when no PMU knows it, -EINVAL for a bad modifier, or
 * -EIO when libpfm4 cannot start. */
int event_resolve(const char *name, struct event_desc *ev);

/* True when EV needs a hardware PMU (not a software, tracepoint or breakpoint event). */
int event_is_hardware(const struct event_desc *ev);

/*
 * Resolve the comma-separated LIST into a new array *EVS of *N events (duplicates dropped).
 * On -ENOENT/-EINVAL the offending name is copied into BAD. The caller frees *EVS with
 * psc_mem_free (mem.h).
 */
int event_list_resolve(const char *list, struct event_desc **evs, size_t *n, char *bad,
		       size_t badlen);

/* Up to MAX (at most 16) known event names close to NAME (edit distance or prefix), best
 * first, copied into OUT. Returns how many. */
size_t event_suggest(const char *name, char (*out)[EVENT_NAME_MAX], size_t max);

/* Categories listed by `perfscope list`. */
enum event_category {
	EVENT_CAT_HARDWARE = 1, /* generic hardware: cycles, instructions, ... */
	EVENT_CAT_CACHE,	/* generic cache: L1-dcache-load-misses, ... */
	EVENT_CAT_SOFTWARE,	/* kernel software events */
	EVENT_CAT_NATIVE,	/* native events of a PMU present here, from libpfm4 */
};

struct event_info {
	const char *name; /* usable with event_resolve */
	const char *desc;
	const char *pmu; /* "" for generic names */
	enum event_category category;
};

/* Call FN for every event perfscope can name on this machine: the generic table, then the
 * native events of every libpfm4 PMU present here. Stops early when FN returns non-zero. */
int event_foreach(int (*fn)(void *ctx, const struct event_info *info), void *ctx);

/* libpfm4's version as "major.minor", for `perfscope list`. */
const char *event_library_version(char *buf, size_t len);

#endif /* PSC_EVENTS_H */
