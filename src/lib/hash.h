/*
 * hash.h - the one hash function of perfscope: 64-bit FNV-1a. Keys made of several parts
 * chain it: hash_str(hash_str(HASH_INIT, a), b). Values are stable across runs and builds
 * (caches on disk and clock ids keep them), so the function and its constants never change.
 */
#ifndef PSC_LIB_HASH_H
#define PSC_LIB_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis: the hash of nothing, where every chain starts. */
#define HASH_INIT 14695981039346656037ull

/* FNV-1a of the LEN bytes at P, continuing from H. */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* FNV-1a of the string S (its NUL not included), continuing from H. */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

#endif /* PSC_LIB_HASH_H */
