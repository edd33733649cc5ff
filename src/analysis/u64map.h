/* u64map.h - an open-addressing hash map from 64-bit keys to 64-bit values. */
#ifndef PSC_U64MAP_H
#define PSC_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap, n; /* cap is a power of two, or 0 */
};

/* The value of KEY in *VAL: 1 found, 0 not. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);

/* Set KEY to VAL. 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);

/* Forget every key, keeping the memory. */
void u64map_clear(struct u64map *m);

void u64map_release(struct u64map *m);

#endif /* PSC_U64MAP_H */
