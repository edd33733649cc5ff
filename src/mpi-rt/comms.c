/*
 * comms.c - communicators as the records name them: an index per process (0 MPI_COMM_WORLD,
 * 1 MPI_COMM_SELF, then in creation order), a key the same in every member, and the world
 * rank of every peer rank. MPI_COMM_WORLD needs no lookup (comms_find, mpi-int.h); other
 * handles are found in an open-addressing table read without a lock (written under one).
 */
#include "mpi-rt/mpi-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int mpi_world_rank = -1, mpi_world_size;
struct mpi_comm mpi_comm_world_info;
static struct mpi_comm self_info;

/* Handles never leave the table (a freed one keeps its slot with a NULL value): a reader
 * probing without the lock can then stop at the first empty slot. */
struct comm_slot {
	uint64_t key; /* the handle's bits, 0 empty */
	struct mpi_comm *val;
};

struct comm_table {
	size_t cap, used;
	struct comm_table *older; /* replaced tables stay: a reader may still probe one */
	struct comm_slot slots[];
};

static struct comm_table *table;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_index = 2; /* under lock */
static uint32_t next_seq = 2;	/* 0 is world's, 1 every self's */

static uint64_t handle_key(MPI_Comm h)
{
	uint64_t k = 0;

	memcpy(&k, &h, sizeof(h) < sizeof(k) ? sizeof(h) : sizeof(k));
	return k;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static struct mpi_comm *table_get(uint64_t key)
{
	struct comm_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);

	if (!t)
		return NULL;
	for (size_t i = slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		uint64_t k = __atomic_load_n(&t->slots[i].key, __ATOMIC_ACQUIRE);

		if (k == key)
			return __atomic_load_n(&t->slots[i].val, __ATOMIC_ACQUIRE);
		if (k == 0)
			return NULL;
	}
}

/* Put KEY -> VAL (under lock); the previous value, or NULL. */
static int table_put(uint64_t key, struct mpi_comm *val, struct mpi_comm **old)
{
	struct comm_table *t = table;
	size_t i;

	*old = NULL;
	if (!t || (t->used + 1) * 2 > t->cap) {
		size_t cap = t ? t->cap * 2 : 64;
		struct comm_table *n = calloc(1, sizeof(*n) + cap * sizeof(n->slots[0]));

		if (!n)
			return -ENOMEM;
		n->cap = cap;
		n->older = t;
		for (size_t j = 0; t && j < t->cap; j++) {
			if (!t->slots[j].key)
				continue;
			for (i = slot_of(t->slots[j].key, cap); n->slots[i].key;
			     i = (i + 1) & (cap - 1))
				;
			n->slots[i] = t->slots[j];
			n->used++;
		}
		__atomic_store_n(&table, n, __ATOMIC_RELEASE);
		t = n;
	}
	for (i = slot_of(key, t->cap); t->slots[i].key && t->slots[i].key != key;
	     i = (i + 1) & (t->cap - 1))
		;
	*old = t->slots[i].val;
	__atomic_store_n(&t->slots[i].val, val, __ATOMIC_RELEASE);
	if (!t->slots[i].key) {
		t->used++;
		__atomic_store_n(&t->slots[i].key, key, __ATOMIC_RELEASE);
	}
	return 0;
}

void comm_ref(struct mpi_comm *cm)
{
	if (cm->index >= 2)
		__atomic_add_fetch(&cm->refs, 1, __ATOMIC_RELAXED);
}

void comm_unref(struct mpi_comm *cm)
{
	if (!cm || cm->index < 2 || __atomic_sub_fetch(&cm->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (cm->peers != cm->members)
		free(cm->peers);
	free(cm->members);
	free(cm);
}

/* World ranks of the N ranks of GROUP (MPI_UNDEFINED for processes outside the world). */
static int32_t *group_world_ranks(MPI_Group group, int n)
{
	static MPI_Group world_group = MPI_GROUP_NULL;
	int *in = malloc((size_t)(n ? n : 1) * sizeof(int));
	int32_t *out = malloc((size_t)(n ? n : 1) * sizeof(int32_t));

	if (!in || !out)
		goto fail;
	if (__atomic_load_n(&world_group, __ATOMIC_ACQUIRE) == MPI_GROUP_NULL) {
		MPI_Group g;

		if (PMPI_Comm_group(MPI_COMM_WORLD, &g) != MPI_SUCCESS)
			goto fail;
		pthread_mutex_lock(&lock);
		if (world_group == MPI_GROUP_NULL)
			__atomic_store_n(&world_group, g, __ATOMIC_RELEASE);
		else
			PMPI_Group_free(&g);
		pthread_mutex_unlock(&lock);
	}
	for (int i = 0; i < n; i++)
		in[i] = i;
	if (PMPI_Group_translate_ranks(group, n, in, world_group, (int *)out) != MPI_SUCCESS)
		goto fail;
	free(in);
	return out;
fail:
	free(in);
	free(out);
	return NULL;
}

/* Describe HANDLE (not yet indexed, no key). NULL when an MPI call or memory fails. */
static struct mpi_comm *comm_build(MPI_Comm handle)
{
	struct mpi_comm *cm = calloc(1, sizeof(*cm));
	MPI_Group g = MPI_GROUP_NULL;

	if (!cm)
		return NULL;
	cm->handle = handle;
	cm->refs = 1;
	if (PMPI_Comm_test_inter(handle, &cm->inter) != MPI_SUCCESS ||
	    PMPI_Comm_rank(handle, &cm->me) != MPI_SUCCESS ||
	    PMPI_Comm_size(handle, &cm->size) != MPI_SUCCESS ||
	    PMPI_Comm_group(handle, &g) != MPI_SUCCESS)
		goto fail;
	cm->members = group_world_ranks(g, cm->size);
	PMPI_Group_free(&g);
	if (!cm->members)
		goto fail;
	cm->peers = cm->members;
	cm->npeers = cm->size;
	if (cm->inter) {
		if (PMPI_Comm_remote_size(handle, &cm->npeers) != MPI_SUCCESS ||
		    PMPI_Comm_remote_group(handle, &g) != MPI_SUCCESS)
			goto fail;
		cm->peers = group_world_ranks(g, cm->npeers);
		PMPI_Group_free(&g);
		if (!cm->peers) {
			cm->peers = cm->members;
			goto fail;
		}
	}
	return cm;
fail:
	if (cm->peers != cm->members)
		free(cm->peers);
	free(cm->members);
	free(cm);
	return NULL;
}

static int32_t lowest_member(const struct mpi_comm *cm)
{
	int32_t low = INT32_MAX;

	for (int i = 0; i < cm->size; i++)
		if (cm->members[i] >= 0 && cm->members[i] < low)
			low = cm->members[i];
	for (int i = 0; cm->inter && i < cm->npeers; i++)
		if (cm->peers[i] >= 0 && cm->peers[i] < low)
			low = cm->peers[i];
	return low == INT32_MAX ? 0 : low;
}

/* PSC_REC_MPI_COMM for CM under KEY in the calling thread's stream. */
static void comm_record(const struct mpi_comm *cm, uint64_t key)
{
	size_t nwords = 2 + ((size_t)cm->size + 1) / 2;
	uint64_t *p = calloc(nwords, sizeof(*p));

	if (!p)
		return;
	p[0] = key;
	p[1] = (uint64_t)cm->size;
	for (int i = 0; i < cm->size; i++) {
		int32_t w = cm->members ? cm->members[i] : i;

		p[2 + i / 2] |= (uint64_t)(uint32_t)w << (32 * (i % 2));
	}
	psc_rt_record(PSC_REC_MPI_COMM, cm->index, p, nwords);
	free(p);
}

/* Index CM, publish it and record it under KEY; with IF_ABSENT, a communicator another thread
 * published for the same handle meanwhile wins (CM released). The published one, or NULL. */
static struct mpi_comm *comm_publish(struct mpi_comm *cm, uint64_t key, int if_absent)
{
	struct mpi_comm *old, *found;
	int ret;

	pthread_mutex_lock(&lock);
	found = if_absent ? table_get(handle_key(cm->handle)) : NULL;
	if (found) {
		pthread_mutex_unlock(&lock);
		comm_unref(cm);
		return found;
	}
	cm->index = next_index++;
	ret = table_put(handle_key(cm->handle), cm, &old);
	pthread_mutex_unlock(&lock);
	if (ret) {
		comm_unref(cm);
		return NULL;
	}
	comm_unref(old); /* a freed handle the MPI library gave out again */
	comm_record(cm, key);
	return cm;
}

int comms_init(void)
{
	struct mpi_comm *w = &mpi_comm_world_info, *s = &self_info;
	struct mpi_comm *old;
	int ret;

	w->handle = MPI_COMM_WORLD;
	w->index = 0;
	w->me = mpi_world_rank;
	w->size = w->npeers = mpi_world_size;
	w->refs = 1;
	comm_record(w, 0);
	s->handle = MPI_COMM_SELF;
	s->index = 1;
	s->size = s->npeers = 1;
	s->refs = 1;
	s->members = s->peers = malloc(sizeof(int32_t));
	if (!s->members)
		return -ENOMEM;
	s->members[0] = mpi_world_rank;
	comm_record(s, (1ull << 32) | (uint32_t)mpi_world_rank);
	pthread_mutex_lock(&lock);
	ret = table_put(handle_key(MPI_COMM_SELF), s, &old);
	pthread_mutex_unlock(&lock);
	return ret;
}

void comms_created(MPI_Comm handle)
{
	struct mpi_comm *cm;
	unsigned propose, seq = 0, round;
	int inter = 0;

	if (handle == MPI_COMM_NULL)
		return;
	cm = comm_build(handle);
	/* asked of MPI, not of CM: a member whose CM failed must still take the second round */
	if (PMPI_Comm_test_inter(handle, &inter) != MPI_SUCCESS)
		inter = 0;
	/* every member takes part in the agreement, even one that could not describe it */
	propose = __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED);
	if (PMPI_Allreduce(&propose, &seq, 1, MPI_UNSIGNED, MPI_MAX, handle) != MPI_SUCCESS)
		seq = propose;
	/* on an intercommunicator each group got the other's maximum: a second round agrees */
	if (inter) {
		round = seq > propose ? seq : propose;
		if (PMPI_Allreduce(&round, &seq, 1, MPI_UNSIGNED, MPI_MAX, handle) != MPI_SUCCESS)
			seq = round;
	}
	/* later proposals of this process come after every sequence number it has seen */
	for (unsigned cur = __atomic_load_n(&next_seq, __ATOMIC_RELAXED); cur <= seq;)
		if (__atomic_compare_exchange_n(&next_seq, &cur, seq + 1, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	if (cm)
		comm_publish(cm, (uint64_t)seq << 32 | (uint32_t)lowest_member(cm), 0);
}

static uint32_t hash_ranks(const int32_t *r, int n)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < n; i++)
		h = (h ^ (uint32_t)r[i]) * 16777619u;
	return h;
}

struct mpi_comm *comms_find_slow(MPI_Comm handle)
{
	struct mpi_comm *cm;
	uint32_t h;

	if (handle == MPI_COMM_NULL)
		return NULL;
	cm = table_get(handle_key(handle));
	if (likely(cm != NULL))
		return cm;
	/* made by a routine perfscope does not wrap: no agreement is possible outside a
	 * collective call, so the key is a hash of the members (the same in each of them) */
	cm = comm_build(handle);
	if (!cm)
		return NULL;
	h = hash_ranks(cm->members, cm->size);
	if (cm->inter)
		h ^= hash_ranks(cm->peers, cm->npeers);
	return comm_publish(cm, (uint64_t)(0x80000000u | h) << 32 | (uint32_t)lowest_member(cm), 1);
}

void comms_freed(MPI_Comm handle)
{
	struct mpi_comm *old = NULL;
	uint64_t key = handle_key(handle);

	if (handle == MPI_COMM_NULL || handle == MPI_COMM_WORLD || handle == MPI_COMM_SELF)
		return;
	pthread_mutex_lock(&lock);
	if (table_get(key))
		table_put(key, NULL, &old);
	pthread_mutex_unlock(&lock);
	comm_unref(old);
}

int mpi_comm_peers(MPI_Comm handle)
{
	struct mpi_comm *cm = comms_find(handle);

	return cm ? cm->npeers : 0;
}
