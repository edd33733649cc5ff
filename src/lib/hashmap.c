/* hashmap.c - the u64map, hchain and strmap of hashmap.h. */
#include "lib/hashmap.h"
#include "lib/array.h"
#include "lib/mem.h"

#include <errno.h>
#include <string.h>

/* ---- u64map: open addressing with linear probing; grows at half full ---- */

static int grow(struct u64map *m)
{
	struct u64map n = {.cap = m->cap ? m->cap * 2 : 64};

	n.keys = psc_mem_calloc(n.cap, sizeof(*n.keys));
	n.vals = psc_mem_calloc(n.cap, sizeof(*n.vals));
	n.used = psc_mem_calloc(n.cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		u64map_release(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	u64map_release(m);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && grow(m) < 0)
		return -ENOMEM;
	for (i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}

void u64map_clear(struct u64map *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->n = 0;
}

void u64map_release(struct u64map *m)
{
	psc_mem_free(m->keys);
	psc_mem_free(m->vals);
	psc_mem_free(m->used);
	memset(m, 0, sizeof(*m));
}

/* ---- hchain and strmap ---- */

size_t hchain_first(const struct hchain *c, uint64_t h)
{
	uint64_t at;

	return u64map_get(&c->heads, h, &at) ? (size_t)at : 0;
}

int hchain_add(struct hchain *c, uint64_t h, size_t idx)
{
	size_t before = hchain_first(c, h);

	if (ARRAY_GROW(c->next, idx + 1, c->cap) || u64map_put(&c->heads, h, idx + 1))
		return -ENOMEM;
	c->next[idx] = before;
	return 0;
}

void hchain_release(struct hchain *c)
{
	u64map_release(&c->heads);
	psc_mem_free(c->next);
	memset(c, 0, sizeof(*c));
}

int strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	for (size_t at = hchain_first(&m->chain, hash_str(HASH_INIT, key)); at;
	     at = hchain_next(&m->chain, at)) {
		if (!strcmp(m->keys[at - 1], key)) {
			*val = m->vals[at - 1];
			return 1;
		}
	}
	return 0;
}

int strmap_put(struct strmap *m, const char *key, size_t val)
{
	size_t cap = m->cap;

	if (ARRAY_GROW(m->keys, m->n + 1, cap) || ARRAY_GROW(m->vals, m->n + 1, m->cap) ||
	    hchain_add(&m->chain, hash_str(HASH_INIT, key), m->n))
		return -ENOMEM;
	m->keys[m->n] = key;
	m->vals[m->n++] = val;
	return 0;
}

void strmap_release(struct strmap *m)
{
	hchain_release(&m->chain);
	psc_mem_free(m->keys);
	psc_mem_free(m->vals);
	memset(m, 0, sizeof(*m));
}
