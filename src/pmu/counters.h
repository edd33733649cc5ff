/*
 * counters.h - sets of events counted with perf_event_open.
 *
 * Events are opened as groups (PERF_FORMAT_GROUP with time enabled/running) so one read()
 * gives a consistent snapshot of a group. A group that does not fit the PMU is split and the
 * kernel multiplexes the pieces; readers scale by enabled/running (counts.h). An event the
 * machine cannot count keeps its slot with a status saying why, and the others go on.
 * Hardware events are read with rdpmc through the mmap'd page when the kernel allows it.
 */
#ifndef PSC_COUNTERS_H
#define PSC_COUNTERS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/events.h"

enum counter_flags {
	COUNTER_INHERIT = 0x1,	      /* count the target's future threads and children */
	COUNTER_ENABLE_ON_EXEC = 0x2, /* the kernel enables the groups at exec (launcher) */
	COUNTER_DISABLED = 0x4,	      /* stay disabled until counter_set_enable() */
	COUNTER_NO_GROUP = 0x8,	      /* every event in a group of its own */
	COUNTER_RDPMC = 0x10,	      /* map each hardware event's page for rdpmc reads */
};

/* System calls used by a counter set; tests substitute fakes to capture the attributes. */
struct counter_sys {
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags);
	int (*close)(void *ctx, int fd);
	void *ctx;
};

/* The real system calls. */
extern const struct counter_sys counter_sys_linux;

struct counter {
	struct event_desc desc;
	int fd;
	uint32_t group; /* index in counter_set.groups, PSC_NO_GROUP when not counting */
	int status;	/* 0 counting, else a negative errno from perf_event_open */
	int user_only;	/* kernel counting was refused, so only user space is counted */
	struct perf_event_mmap_page *page; /* for rdpmc, or NULL */
};

struct counter_group {
	int leader_fd;
	uint32_t first, nmembers; /* members: counter_set.order[first .. first + nmembers) */
	int rdpmc;		  /* all members are hardware events with a mapped page */
};

struct counter_set {
	struct counter *ev;
	size_t nev;
	struct counter_group *groups;
	uint32_t ngroups;
	uint32_t *order;       /* event indices grouped by group, in group order */
	size_t snapshot_words; /* words counter_set_snapshot() writes */
	unsigned flags;
	unsigned max_hw_per_group; /* split hardware groups beyond this many members */
	const struct counter_sys *sys;
};

/* Fill ATTR for EV the way counter_set_open() opens it: pure, so tests can check the
 * encoding of hardware events on machines without a PMU. */
void counter_attr_build(const struct event_desc *ev, unsigned flags, int leader,
			struct perf_event_attr *attr);

/* Prepare a set of the N events EVS (copied); no system call yet. 0 or -ENOMEM. */
int counter_set_init(struct counter_set *set, const struct event_desc *evs, size_t n,
		     unsigned flags, const struct counter_sys *sys);

/*
 * Open the events on task PID (0 = calling thread) on any CPU, and start them unless the set
 * was made with COUNTER_DISABLED or COUNTER_ENABLE_ON_EXEC. Returns the number of events
 * counting (the others carry their status).
 */
int counter_set_open(struct counter_set *set, pid_t pid);

/* Same as counter_set_open, counting PID only while it runs on CPU (-1: any CPU). */
int counter_set_open_cpu(struct counter_set *set, pid_t pid, int cpu);

/* Start every group. 0 or a negative errno. */
int counter_set_enable(struct counter_set *set);

/*
 * Write a snapshot of every group (format.h layout: nr, enabled, running, values) into
 * WORDS, which has room for set->snapshot_words. The hot-path read. 0 or a negative errno.
 */
int counter_set_snapshot(struct counter_set *set, uint64_t *words);

/* Group index of every event, as stored in PSC_REC_COUNTERS records. */
void counter_set_layout(const struct counter_set *set, uint32_t *group_of, int32_t *status);

/* Close everything and free the set's memory. */
void counter_set_release(struct counter_set *set);

/*
 * Why an event is not counted, as one line: the reason for STATUS (negative errno from
 * perf_event_open) given the event and the machine's paranoid level. Writes into BUF.
 */
const char *counter_status_reason(int status, const struct event_desc *ev, int paranoid,
				  int have_core_pmu, char *buf, size_t len);

/*
 * Read one event through its mmap'd page, as libperf's perf_mmap__read_self does: seqlock
 * retry, rdpmc when the page allows it (index != 0), enabled/running extended to now with
 * the page's time_mult/shift. Returns 0, or -EAGAIN when the page gives no rdpmc access (the
 * caller falls back to read()). RDPMC and TICKS are the instruction readers (tests fake them).
 */
int counter_read_page(const volatile struct perf_event_mmap_page *pc,
		      uint64_t (*rdpmc)(uint32_t counter), uint64_t (*ticks)(void), uint64_t *value,
		      uint64_t *enabled, uint64_t *running);

#endif /* PSC_COUNTERS_H */
