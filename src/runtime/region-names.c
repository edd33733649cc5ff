/* region-names.c - the names of the regions of a process, interned once each: a region's id
 * indexes pages of names that readers load without the lock. */
#include "runtime/session.h"

#include "lib/hash.h"

#include <errno.h>
#include <string.h>

const char *session_region_name(int id)
{
	char **page;

	if (id < 0 || id >= REGION_MAX)
		return NULL;
	page =
	    __atomic_load_n(&psc_session.region_pages[id >> REGION_PAGE_SHIFT], __ATOMIC_ACQUIRE);
	return page ? __atomic_load_n(&page[id & ((1 << REGION_PAGE_SHIFT) - 1)], __ATOMIC_ACQUIRE)
		    : NULL;
}

/* Double the open-addressing index of the names (256 at first). The lock is held. */
static int index_grow(void)
{
	size_t cap = psc_session.region_index_cap ? psc_session.region_index_cap * 2 : 256;
	uint32_t *idx = rt_alloc(cap * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (int id = 0; id < psc_session.nregions; id++) {
		const char *name = session_region_name(id);
		size_t h = hash_bytes(HASH_INIT, name, strlen(name)) & (cap - 1);

		while (idx[h])
			h = (h + 1) & (cap - 1);
		idx[h] = (uint32_t)id + 1;
	}
	rt_free(psc_session.region_index, psc_session.region_index_cap * sizeof(*idx));
	psc_session.region_index = idx;
	psc_session.region_index_cap = cap;
	return 0;
}

/* Region names longer than this are cut (they are labels, not data). */
#define REGION_NAME_MAX 1024

/* The name of every region past the others. */
#define REGION_OVERFLOW_NAME "[regions past the 1048575th name]"

/* Give NAME (LEN bytes, copied) the next id. The lock is held. */
static int region_add(const char *name, size_t len, size_t slot)
{
	int id = psc_session.nregions;
	char *copy, **page = psc_session.region_pages[id >> REGION_PAGE_SHIFT];

	if (!page) {
		page = rt_alloc((1u << REGION_PAGE_SHIFT) * sizeof(*page));
		if (!page)
			return -ENOMEM;
		__atomic_store_n(&psc_session.region_pages[id >> REGION_PAGE_SHIFT], page,
				 __ATOMIC_RELEASE);
	}
	copy = rt_strndup(name, len);
	if (!copy)
		return -ENOMEM;
	__atomic_store_n(&page[id & ((1 << REGION_PAGE_SHIFT) - 1)], copy, __ATOMIC_RELEASE);
	psc_session.region_index[slot] = (uint32_t)id + 1;
	psc_session.nregions++;
	return id;
}

int session_region_intern(const char *name, size_t len)
{
	size_t h, cap, full = strnlen(name, len);
	int id, cut = full > REGION_NAME_MAX;

	/* a name is its text up to a NUL, and at most REGION_NAME_MAX bytes of it */
	len = cut ? REGION_NAME_MAX : full;
	pthread_mutex_lock(&psc_session.lock);
	if ((size_t)psc_session.nregions * 2 >= psc_session.region_index_cap && index_grow()) {
		id = -ENOMEM;
		goto out;
	}
	cap = psc_session.region_index_cap;
	for (h = hash_bytes(HASH_INIT, name, len) & (cap - 1); psc_session.region_index[h];
	     h = (h + 1) & (cap - 1)) {
		const char *known = session_region_name((int)psc_session.region_index[h] - 1);

		if (!strncmp(known, name, len) && known[len] == 0) {
			id = (int)psc_session.region_index[h] - 1;
			if (id == REGION_OVERFLOW_ID)
				psc_session.regions_folded++;
			goto out;
		}
	}
	if (psc_session.nregions < REGION_OVERFLOW_ID) {
		id = region_add(name, len, h);
		if (id >= 0 && cut)
			psc_session.region_names_cut++;
		goto out;
	}
	/* every id is taken: the name is recorded under the overflow region, and counted */
	id = session_region_name(REGION_OVERFLOW_ID) ? REGION_OVERFLOW_ID : -ENOSPC;
	if (id < 0) {
		len = strlen(REGION_OVERFLOW_NAME);
		for (h = hash_bytes(HASH_INIT, REGION_OVERFLOW_NAME, len) & (cap - 1);
		     psc_session.region_index[h]; h = (h + 1) & (cap - 1))
			;
		id = region_add(REGION_OVERFLOW_NAME, len, h);
	}
	if (id >= 0)
		psc_session.regions_folded++;
out:
	pthread_mutex_unlock(&psc_session.lock);
	return id;
}
