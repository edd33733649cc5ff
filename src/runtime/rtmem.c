/*
 * rtmem.c - the runtime's memory comes from mmap, never from the program's allocator: a
 * program may define malloc itself and build it with -finstrument-functions, so that a call
 * from a hook would enter the hook again, or its allocator may not be ready or safe to call
 * from where the runtime runs (a signal handler, a thread that is starting or ending).
 */
#include "runtime/session.h"

#include "lib/mem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (size + page - 1) / page * page;
}

void *rt_alloc(size_t size)
{
	void *p = mmap(NULL, page_round(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void rt_free(void *p, size_t size)
{
	if (p)
		munmap(p, page_round(size));
}

/* The size of a psc_mem_calloc block sits in the 16 bytes before it. */
#define MEM_HEAD 16

void *psc_mem_calloc(size_t n, size_t size)
{
	char *p;

	if (size && n > (SIZE_MAX - MEM_HEAD) / size)
		return NULL;
	p = rt_alloc(MEM_HEAD + n * size);
	if (!p)
		return NULL;
	*(size_t *)p = MEM_HEAD + n * size;
	return p + MEM_HEAD;
}

void psc_mem_free(void *p)
{
	char *head = p ? (char *)p - MEM_HEAD : NULL;

	if (head)
		rt_free(head, *(size_t *)head);
}

void *psc_mem_realloc(void *p, size_t size)
{
	char *head = p ? (char *)p - MEM_HEAD : NULL, *q;
	size_t old = head ? *(size_t *)head - MEM_HEAD : 0;

	if (size > SIZE_MAX - MEM_HEAD)
		return NULL;
	if (head && page_round(MEM_HEAD + size) == page_round(MEM_HEAD + old)) {
		/* the pages hold it already: what lies past SIZE is zeroed, as calloc's was */
		if (size < old)
			memset((char *)p + size, 0, old - size);
		*(size_t *)head = MEM_HEAD + size;
		return p;
	}
	q = psc_mem_calloc(1, size);
	if (!q)
		return NULL;
	memcpy(q, p ? p : q, old < size ? old : size);
	psc_mem_free(p);
	return q;
}

char *psc_mem_strdup(const char *s)
{
	size_t len = strlen(s);
	char *copy = psc_mem_calloc(1, len + 1);

	if (copy)
		memcpy(copy, s, len);
	return copy;
}

char *rt_strndup(const char *s, size_t len)
{
	struct rt_arena *a = &psc_session.names;
	char *copy;

	if (len + 1 > a->left) {
		size_t block = len + 1 > RT_ARENA_BLOCK ? len + 1 : RT_ARENA_BLOCK;

		a->next = rt_alloc(block);
		if (!a->next) {
			a->left = 0;
			return NULL;
		}
		a->left = page_round(block);
	}
	copy = a->next;
	memcpy(copy, s, len);
	copy[len] = 0;
	a->next += len + 1;
	a->left -= len + 1;
	return copy;
}

int rt_text_add(struct rt_text *t, const char *s, size_t len)
{
	if (len > t->cap - t->len) {
		size_t cap = page_round(t->len + len > 2 * t->cap ? t->len + len : 2 * t->cap);
		char *p = rt_alloc(cap);

		if (!p)
			return -ENOMEM;
		if (t->len)
			memcpy(p, t->p, t->len);
		rt_free(t->p, t->cap);
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, len);
	t->len += len;
	return 0;
}
