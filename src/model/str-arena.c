/* str-arena.c - a string arena: strings copied into blocks freed all at once (str-arena.h). */
#include "model/str-arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

static char *arena_alloc(struct str_arena *a, size_t n)
{
	struct arena_block *b = a->head;

	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

char *arena_strndup(struct str_arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_printf(struct str_arena *a, const char *fmt, ...)
{
	va_list ap;
	char buf[256], *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof(buf))
		return arena_strndup(a, buf, (size_t)n);
	p = arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_release(struct str_arena *a)
{
	while (a->head) {
		struct arena_block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}
