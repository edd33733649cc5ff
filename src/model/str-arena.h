/*
 * str-arena.h - a small string arena: strings copied into it live until arena_release(), for
 * the many short names (paths, symbols) a memory map or a symbol table keeps.
 */
#ifndef PSC_STR_ARENA_H
#define PSC_STR_ARENA_H

#include <stddef.h>

/* Small string arena: strings copied into it live until arena_release(). */
struct str_arena {
	struct arena_block *head;
};

/* A copy of the n bytes at s (plus a NUL) in the arena; NULL when out of memory. */
char *arena_strndup(struct str_arena *a, const char *s, size_t n);
/* A printf-formatted string in the arena; NULL when out of memory. */
char *arena_printf(struct str_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees every string of the arena at once. */
void arena_release(struct str_arena *a);

#endif /* PSC_STR_ARENA_H */
