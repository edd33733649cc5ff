/*
 * counts.h - pure arithmetic on counter readings: multiplex scaling, deltas, and decoding of
 * the counter snapshots stored in region records (format.h). No system calls here.
 */
#ifndef PSC_COUNTS_H
#define PSC_COUNTS_H

#include <stddef.h>
#include <stdint.h>

/* One event's reading: its raw count and its group's enabled/running times (ns). */
struct count {
	uint64_t raw;
	uint64_t enabled;
	uint64_t running;
};

/*
 * Estimated full count: raw * enabled / running, rounded, computed in 128 bits so that no
 * 64-bit count overflows. Returns 0 and *out, or -ENODATA when the event never ran
 * (running == 0 while enabled > 0: "not counted").
 */
int count_scale(const struct count *c, uint64_t *out);

/* Fraction of the enabled time the event was counting (1.0 when not multiplexed). */
double count_running_ratio(const struct count *c);

/* True when the value is an estimate (running < enabled). */
int count_is_scaled(const struct count *c);

/* B - A, field by field (the change between two readings of the same event). */
struct count count_delta(const struct count *a, const struct count *b);

/* A += B, field by field (summing deltas). */
void count_add(struct count *a, const struct count *b);

/*
 * Decode a snapshot of NWORDS words into OUT[0..nevents-1]. GROUP_OF[i] is event i's group
 * index (PSC_NO_GROUP when it was not opened: OUT[i] is zeroed). Groups appear in the snapshot
 * in index order, each as nr, enabled, running, then nr values in event order. Returns 0, or
 * -EINVAL when the words do not match the layout (the caller reports the offset).
 */
int count_snapshot_decode(const uint64_t *words, size_t nwords, const uint32_t *group_of,
			  size_t nevents, struct count *out);

/* Number of words of a snapshot for the layout GROUP_OF[0..nevents-1]. */
size_t count_snapshot_words(const uint32_t *group_of, size_t nevents);

#endif /* PSC_COUNTS_H */
