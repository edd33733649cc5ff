/*
 * strmap.h - indexes of records by name (or by any key the caller compares), for profiles
 * that look every row up by name once: a linear search there made 64k regions take minutes.
 *
 * struct hchain is the general form: records 0, 1, 2, ... of the caller's array, each added
 * with the 64-bit hash of its key; a lookup walks the records with the same hash (newest
 * first) and the caller compares their keys in full, so equal hashes never merge two keys.
 * struct strmap is that for keys that are C strings: string -> size_t.
 */
#ifndef PSC_AN_STRMAP_H
#define PSC_AN_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"
#include "../lib/hash.h"

struct hchain {
	struct u64map heads; /* hash -> the newest record with that hash, + 1 */
	size_t *next;	     /* record -> the record before it with the same hash, + 1; 0 none */
	size_t cap;
};

/* The newest record added with hash H, + 1; 0 when none. */
size_t hchain_first(const struct hchain *c, uint64_t h);

/* The record added before record AT1 - 1 with the same hash, + 1; 0 when none. */
static inline size_t hchain_next(const struct hchain *c, size_t at1)
{
	return c->next[at1 - 1];
}

/* Record IDX (each index once) with hash H. 0 or -ENOMEM. */
int hchain_add(struct hchain *c, uint64_t h, size_t idx);

void hchain_release(struct hchain *c);

struct strmap {
	struct hchain chain;
	const char **keys; /* record -> its key, not copied: valid and unchanged while in the map */
	size_t *vals;
	size_t n, cap;
};

/* The value of KEY in *VAL: 1 found, 0 not. */
int strmap_get(const struct strmap *m, const char *key, size_t *val);

/* Add KEY (not in M yet; not copied) with VAL. 0 or -ENOMEM. */
int strmap_put(struct strmap *m, const char *key, size_t val);

void strmap_release(struct strmap *m);

#endif /* PSC_AN_STRMAP_H */
