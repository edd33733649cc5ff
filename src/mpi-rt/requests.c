/*
 * requests.c - the requests the program has open: MPI_Request handle -> what its message is,
 * so that the call completing it can name it (its request id). A hash table in 64 shards,
 * each under its own mutex, so that threads of an MPI_THREAD_MULTIPLE program rarely meet;
 * its nodes are recycled per shard, so that steady traffic allocates nothing.
 */
#include "mpi-rt/mpi-int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS	64
#define BUCKETS 256

/*
 * Open MPI hands out one handle for many requests: an Isend that completed at once returns
 * &ompi_request_empty. So a handle maps to a queue of requests, oldest first, which its
 * completions take in order. More than this many at once means completions were missed.
 */
#define MAX_SAME_HANDLE 4096

struct req_node {
	uint64_t key;
	struct mpi_req_info info;
	struct req_node *next;
};

struct shard {
	pthread_mutex_t lock;
	struct req_node *free;
	struct req_node *bucket[BUCKETS];
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {[0 ... SHARDS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};
static uint64_t next_id = 1;

static uint64_t req_key(MPI_Request h)
{
	uint64_t k = 0;

	memcpy(&k, &h, sizeof(h) < sizeof(k) ? sizeof(h) : sizeof(k));
	return k;
}

/* The shard and the bucket of KEY. */
static struct shard *shard_of(uint64_t key, struct req_node ***bucket)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	struct shard *s = &shards[h >> 58];

	*bucket = &s->bucket[(h >> 40) & (BUCKETS - 1)];
	return s;
}

/* The link that points at KEY's node in BUCKET, or at the NULL ending it. */
static struct req_node **find(struct req_node **bucket, uint64_t key)
{
	struct req_node **p = bucket;

	while (*p && (*p)->key != key)
		p = &(*p)->next;
	return p;
}

uint64_t requests_new_id(void)
{
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

int requests_add(MPI_Request handle, const struct mpi_req_info *info)
{
	uint64_t key = req_key(handle);
	struct req_node **bucket, **p, **oldest = NULL, *n;
	struct shard *s = shard_of(key, &bucket);
	struct mpi_comm *stale = NULL;
	unsigned same = 0;

	pthread_mutex_lock(&s->lock);
	/* to the end of the chain: a handle can stand for several requests at once */
	for (p = bucket; *p; p = &(*p)->next)
		if ((*p)->key == key && !same++)
			oldest = p;
	if (same >= MAX_SAME_HANDLE) {
		/* completed where perfscope did not see it (an unwrapped routine): forgotten */
		n = *oldest;
		stale = n->info.comm;
		*oldest = n->next;
		if (p == &n->next)
			p = oldest;
	} else {
		n = s->free;
		if (n)
			s->free = n->next;
		else
			n = malloc(sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&s->lock);
			comm_unref(info->comm);
			return -ENOMEM;
		}
	}
	n->key = key;
	n->info = *info;
	n->next = NULL;
	*p = n;
	pthread_mutex_unlock(&s->lock);
	comm_unref(stale);
	return 0;
}

int requests_complete(MPI_Request handle, int freed, struct mpi_req_info *out)
{
	uint64_t key = req_key(handle);
	struct req_node **bucket, **p, *n;
	struct shard *s = shard_of(key, &bucket);
	int active;

	pthread_mutex_lock(&s->lock);
	p = find(bucket, key);
	n = *p;
	if (!n) {
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	*out = n->info;
	active = n->info.id != 0;
	if (n->info.persistent && !freed) {
		n->info.id = 0; /* inactive until the next Start */
		n->info.cancelled = 0;
		comm_ref(out->comm);
	} else {
		*p = n->next;
		n->next = s->free;
		s->free = n;
	}
	pthread_mutex_unlock(&s->lock);
	if (!active)
		comm_unref(out->comm);
	return active;
}

int requests_start(MPI_Request handle, struct mpi_req_info *out)
{
	uint64_t key = req_key(handle);
	struct req_node **bucket, *n;
	struct shard *s = shard_of(key, &bucket);
	int known;

	pthread_mutex_lock(&s->lock);
	n = *find(bucket, key);
	known = n && n->info.persistent;
	if (known) {
		n->info.id = requests_new_id();
		n->info.cancelled = 0;
		*out = n->info;
	}
	pthread_mutex_unlock(&s->lock);
	return known;
}

int requests_cancel(MPI_Request handle)
{
	uint64_t key = req_key(handle);
	struct req_node **bucket, *n;
	struct shard *s = shard_of(key, &bucket);
	int active = 0;

	pthread_mutex_lock(&s->lock);
	n = *find(bucket, key);
	if (n && n->info.id) {
		n->info.cancelled = 1;
		active = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return active;
}
