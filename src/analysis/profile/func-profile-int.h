/*
 * func-profile-int.h - what the files of the function profile share (func-profile.c,
 * func-profile-merge.c, func-tree.c): adding rows and nodes, the key of a call path, and a
 * saturating sum of durations. Not for use outside them.
 */
#ifndef PSC_FUNC_PROFILE_INT_H
#define PSC_FUNC_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile/func-profile.h"

/* A new row of P, zeroed with min_ns INT64_MAX (no call yet), its index in *IDX. NULL when
 * out of memory. */
struct func_row *func_row_add(struct func_profile *p, size_t *idx);

/* A new node of P for ROW under PARENT (FUNC_NO_PARENT: a root) in thread TH, with no counts,
 * its index in *IDX. NULL when out of memory. */
struct func_node *func_node_add(struct func_profile *p, size_t parent, size_t row, size_t th,
				size_t *idx);

/* The key of the call path of ROW under node PARENT (FUNC_NO_PARENT: a root), distinct for
 * every pair below 2^32 nodes and rows. */
static inline uint64_t func_node_key(size_t parent, size_t row)
{
	return ((uint64_t)(parent == FUNC_NO_PARENT ? 0 : parent + 1) << 32) ^ (uint64_t)row;
}

/* A + B, pinned at the int64_t limits: a damaged trace (times near 2^62, deep recursion) must
 * not overflow a sum of durations (undefined behaviour). */
static inline int64_t func_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

#endif /* PSC_FUNC_PROFILE_INT_H */
