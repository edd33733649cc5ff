/* strmap.c - indexes of records by name (strmap.h). */
#include "strmap.h"
#include "../core/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t hchain_first(const struct hchain *c, uint64_t h)
{
	uint64_t at;

	return u64map_get(&c->heads, h, &at) ? (size_t)at : 0;
}

int hchain_add(struct hchain *c, uint64_t h, size_t idx)
{
	size_t before = hchain_first(c, h);

	if (array_reserve((void **)&c->next, &c->cap, idx + 1, sizeof(*c->next)) ||
	    u64map_put(&c->heads, h, idx + 1))
		return -ENOMEM;
	c->next[idx] = before;
	return 0;
}

void hchain_release(struct hchain *c)
{
	u64map_release(&c->heads);
	free(c->next);
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

	if (array_reserve((void **)&m->keys, &cap, m->n + 1, sizeof(*m->keys)) ||
	    array_reserve((void **)&m->vals, &m->cap, m->n + 1, sizeof(*m->vals)) ||
	    hchain_add(&m->chain, hash_str(HASH_INIT, key), m->n))
		return -ENOMEM;
	m->keys[m->n] = key;
	m->vals[m->n++] = val;
	return 0;
}

void strmap_release(struct strmap *m)
{
	hchain_release(&m->chain);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
