/*
 * hashmap.h - the hash maps of perfscope, for integer keys and for string keys.
 *
 * struct u64map: 64-bit key -> 64-bit value, open addressing with linear probing, grown at
 * half full. Keys are mixed before probing, so ids, addresses and hashes all spread.
 *
 * struct hchain: an index of records 0, 1, 2, ... of the caller's array, each added with the
 * 64-bit hash of its key (hash.h); a lookup walks the records with the same hash (newest
 * first) and the caller compares their keys in full, so equal hashes never merge two keys.
 * For keys of several parts (a kind and a name, a module and a symbol).
 *
 * struct strmap: an hchain for keys that are C strings: string -> size_t.
 *
 * None of them is iterated: a caller that lists entries keeps them in its own array, in the
 * order it added them. Memory comes from psc_mem_* (lib/mem.h). A zeroed map is empty.
 */
#ifndef PSC_LIB_HASHMAP_H
#define PSC_LIB_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hash.h"

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap, n; /* cap is a power of two, or 0 */
};

/* The first slot of KEY in a table of CAP slots (a power of two): KEY mixed (murmur3's
 * finalizer), so that ids, addresses and hashes all spread. */
static inline size_t u64map_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/* The value of KEY in *VAL: 1 found, 0 not. Inline: it is on the paths that run per event
 * (a function's name per call in the Chrome export). */
static inline int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap)
		return 0;
	for (size_t i = u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return 0;
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 1;
		}
	}
}

/* Set KEY to VAL. 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);

/* Forget every key, keeping the memory. */
void u64map_clear(struct u64map *m);

void u64map_release(struct u64map *m);

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

#endif /* PSC_LIB_HASHMAP_H */
