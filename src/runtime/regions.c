/* regions.c - psc_region_begin/end: a timestamp and a counter snapshot per boundary. */
#include "runtime/session.h"

#include "../../include/perfscope.h"
#include "format/format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Open this thread's counters on its first region boundary, and describe their layout. */
static void counters_open(struct psc_thread *t)
{
	size_t n = psc_session.nevents, nwords = 2 + n;
	uint64_t *r;

	t->counters_state = -1;
	if (n == 0 || counter_set_init(&t->counters, psc_session.events, n, COUNTER_RDPMC, NULL))
		return;
	counter_set_open(&t->counters, 0);
	r = thread_reserve(t, nwords);
	if (!r) {
		counter_set_release(&t->counters);
		return;
	}
	r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
	r[1] = psc_ext_word1(PSC_REC_COUNTERS, (uint32_t)nwords, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct counter *c = &t->counters.ev[i];

		r[2 + i] = (uint64_t)c->group | ((uint64_t)(uint32_t)c->status << 32);
	}
	thread_commit(t, nwords);
	t->counters_state = 1;
}

static inline int region_defined(const struct psc_thread *t, int id)
{
	size_t byte = (size_t)id / 8;

	return byte < t->defined_bytes && (t->defined[byte] & (1u << (id % 8)));
}

/* First boundary of the thread, or first use of ID in its stream. 0, or -1 to drop. */
__attribute__((noinline, cold)) static int record_prepare(struct psc_thread *t, int id)
{
	int saved_errno = errno, ret = 0;

	if (t->counters_state == 0) {
		counters_open(t);
		t->record_words = 2 + (t->counters_state == 1 ? t->counters.snapshot_words : 0);
	}
	if (!region_defined(t, id) && thread_define_region(t, id) < 0)
		ret = -1;
	errno = saved_errno;
	return ret;
}

/* Chunk full: write it and reserve again (errno kept). */
__attribute__((noinline, cold)) static uint64_t *record_reserve_slow(struct psc_thread *t,
								     size_t words)
{
	int saved_errno = errno;
	uint64_t *r = thread_reserve(t, words);

	errno = saved_errno;
	return r;
}

/* The counter read; errno kept, the snapshot dropped when the read fails. */
__attribute__((noinline)) static size_t record_snapshot(struct psc_thread *t, uint64_t *words)
{
	int saved_errno = errno;
	int ret = counter_set_snapshot(&t->counters, words);

	errno = saved_errno;
	return ret < 0 ? 0 : t->counters.snapshot_words;
}

static inline void region_record(struct psc_thread *t, int id, enum psc_rec_type type)
{
	size_t words;
	uint64_t *r, ticks = 0;

	if (unlikely(t->counters_state == 0 || !region_defined(t, id)) && record_prepare(t, id))
		return;
	words = t->record_words;
	r = t->pos;
	if (unlikely(r + words > t->end)) {
		r = record_reserve_slow(t, words);
		if (unlikely(!r))
			return;
	}
	/* the interval between the two timestamps excludes the counter reads */
	if (type == PSC_REC_REGION_LEAVE)
		ticks = clock_ticks(psc_session.clock);
	if (words > 2)
		words = 2 + record_snapshot(t, r + 2);
	if (type == PSC_REC_REGION_ENTER)
		ticks = clock_ticks(psc_session.clock);
	r[0] = psc_word0(ticks, PSC_KIND_EXT);
	r[1] = psc_ext_word1(type, (uint32_t)words, (uint32_t)id);
	thread_commit(t, words);
}

static inline unsigned cache_slot(const char *name)
{
	return (unsigned)(((uintptr_t)name >> 3) ^ ((uintptr_t)name >> 11)) % REGION_CACHE_SLOTS;
}

/* Same text: NAME of LEN bytes (COUNTED: up to a NUL in them) or NUL-terminated, against the
 * interned TEXT. */
static inline int same_text(const char *text, const char *name, size_t len, int counted)
{
	if (counted) {
		for (size_t i = 0; i < len; i++) {
			if (text[i] != name[i])
				return 0;
			if (!text[i])
				return 1;
		}
		return text[len] == 0;
	}
	while (*text && *text == *name)
		text++, name++;
	return *text == *name;
}

/* Cache miss: intern NAME and remember it in SLOT (errno kept). */
__attribute__((noinline, cold)) static int
region_lookup_slow(struct psc_thread *t, const char *name, size_t len, int counted, unsigned slot)
{
	int saved_errno = errno;
	int id = session_region_intern(name, counted ? len : strlen(name));

	if (id >= 0) {
		t->cache[slot].key = name;
		t->cache[slot].text = session_region_name(id);
		t->cache[slot].id = id;
	}
	errno = saved_errno;
	return id;
}

static inline void region_boundary(const char *name, size_t len, int counted,
				   enum psc_rec_type type)
{
	struct psc_thread *t = thread_get();
	unsigned slot;
	int id;

	if (unlikely(!t)) {
		thread_count_closed_drop();
		return;
	}
	if (unlikely(!name) || unlikely(t->guard))
		return;
	thread_guard_enter(t);
	/* a hit needs the same pointer and the same text: callers may reuse a buffer */
	slot = cache_slot(name);
	if (likely(t->cache[slot].key == name) &&
	    likely(same_text(t->cache[slot].text, name, len, counted)))
		id = t->cache[slot].id;
	else
		id = region_lookup_slow(t, name, len, counted, slot);
	if (likely(id >= 0))
		region_record(t, id, type);
	thread_guard_leave(t);
}

static inline void region_boundary_id(int id, enum psc_rec_type type)
{
	struct psc_thread *t = thread_get();

	if (unlikely(!t)) {
		thread_count_closed_drop();
		return;
	}
	if (unlikely(t->guard))
		return;
	/* an id defined in this stream is known; others must name an interned region */
	if (unlikely(!region_defined(t, id)) && !session_region_name(id))
		return;
	thread_guard_enter(t);
	region_record(t, id, type);
	thread_guard_leave(t);
}

PSC_EXPORT void psc_region_begin(const char *name)
{
	region_boundary(name, 0, 0, PSC_REC_REGION_ENTER);
}

PSC_EXPORT void psc_region_end(const char *name)
{
	region_boundary(name, 0, 0, PSC_REC_REGION_LEAVE);
}

PSC_EXPORT void psc_region_begin_n(const char *name, int64_t len)
{
	if (len >= 0)
		region_boundary(name, (size_t)len, 1, PSC_REC_REGION_ENTER);
}

PSC_EXPORT void psc_region_end_n(const char *name, int64_t len)
{
	if (len >= 0)
		region_boundary(name, (size_t)len, 1, PSC_REC_REGION_LEAVE);
}

PSC_EXPORT int psc_region_id(const char *name)
{
	int saved_errno = errno, id;

	if (!name)
		return -EINVAL;
	id = session_region_intern(name, strlen(name));
	errno = saved_errno;
	return id;
}

PSC_EXPORT void psc_region_begin_id(int id)
{
	region_boundary_id(id, PSC_REC_REGION_ENTER);
}

PSC_EXPORT void psc_region_end_id(int id)
{
	region_boundary_id(id, PSC_REC_REGION_LEAVE);
}

PSC_EXPORT int psc_flush(void)
{
	struct psc_thread *t = thread_get();
	int saved_errno = errno, ret;

	if (!t)
		return psc_session.state == SESSION_OFF ? -ENODEV : -EPIPE;
	if (t->guard)
		return -EBUSY;
	thread_guard_enter(t);
	ret = thread_flush(t, 1);
	if (ret == 0 && t->discard)
		ret = -EIO; /* the chunk could not be written */
	thread_guard_leave(t);
	errno = saved_errno;
	return ret;
}
