/*
 * test_hashmap.c - the hash maps (src/lib/hashmap.h). strmap: every key of 100,000 found with
 * its value and nothing else found; keys whose hashes are equal kept apart (hchain walked
 * newest first); a map emptied by release is usable again; hostile keys (empty, long, bytes
 * above 0x7f, prefixes of each other). u64map: 100,000 keys through many growths, keys 0 and
 * UINT64_MAX, keys equal in their low bits (one probe chain), overwrite, clear.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

static void test_many(void **state)
{
	const size_t n = 100000;
	char **keys = calloc(n, sizeof(*keys));
	struct strmap m = {0};
	size_t v;

	(void)state;
	assert_non_null(keys);
	for (size_t i = 0; i < n; i++) {
		assert_true(asprintf(&keys[i], "region_%zu", i) > 0);
		assert_int_equal(strmap_put(&m, keys[i], 3 * i), 0);
	}
	assert_int_equal(m.n, n);
	for (size_t i = 0; i < n; i++) {
		char probe[32];

		snprintf(probe, sizeof(probe), "region_%zu", i); /* another copy: by content */
		assert_int_equal(strmap_get(&m, probe, &v), 1);
		assert_int_equal(v, 3 * i);
	}
	assert_int_equal(strmap_get(&m, "region_", &v), 0);
	assert_int_equal(strmap_get(&m, "", &v), 0);
	assert_int_equal(strmap_get(&m, "region_100000", &v), 0);
	strmap_release(&m);
	assert_int_equal(strmap_get(&m, "region_1", &v), 0);
	assert_int_equal(strmap_put(&m, keys[1], 7), 0);
	assert_int_equal(strmap_get(&m, "region_1", &v), 1);
	assert_int_equal(v, 7);
	strmap_release(&m);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* Records with one hash: all found, newest first; other hashes apart. */
static void test_same_hash(void **state)
{
	struct hchain c = {0};
	size_t seen[4], k = 0;

	(void)state;
	assert_int_equal(hchain_first(&c, 42), 0);
	assert_int_equal(hchain_add(&c, 42, 0), 0);
	assert_int_equal(hchain_add(&c, 7, 1), 0);
	assert_int_equal(hchain_add(&c, 42, 2), 0);
	assert_int_equal(hchain_add(&c, 42, 3), 0);
	for (size_t at = hchain_first(&c, 42); at; at = hchain_next(&c, at)) {
		assert_true(k < 4);
		seen[k++] = at - 1;
	}
	assert_int_equal(k, 3);
	assert_int_equal(seen[0], 3);
	assert_int_equal(seen[1], 2);
	assert_int_equal(seen[2], 0);
	assert_int_equal(hchain_first(&c, 7), 2);
	assert_int_equal(hchain_next(&c, 2), 0);
	assert_int_equal(hchain_first(&c, 8), 0);
	hchain_release(&c);
	/* a key of several strings hashes them in a row: ("ab", "c") as "abc", so equal hashes of
	 * different keys are expected, and the caller's full comparison decides */
	assert_true(hash_str(hash_str(HASH_INIT, "ab"), "c") == hash_str(HASH_INIT, "abc"));
	assert_true(hash_str(HASH_INIT, "a") != hash_str(HASH_INIT, "b"));
}

/* Keys a hostile input could give: each found as itself only. */
static void test_hostile_keys(void **state)
{
	char *long_a = malloc(70000), *long_b = malloc(70000);
	const char *keys[6];
	struct strmap m = {0};
	size_t v;

	(void)state;
	assert_non_null(long_a);
	assert_non_null(long_b);
	memset(long_a, 'x', 69999);
	long_a[69999] = 0;
	memcpy(long_b, long_a, 70000);
	long_b[69998] = 'y'; /* differs in the last byte only */
	keys[0] = "";
	keys[1] = long_a;
	keys[2] = long_b;
	keys[3] = "\xff\xfe\x80";
	keys[4] = "ab";
	keys[5] = "abc";
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(strmap_put(&m, keys[i], i + 10), 0);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(strmap_get(&m, keys[i], &v), 1);
		assert_int_equal(v, i + 10);
	}
	assert_int_equal(strmap_get(&m, "a", &v), 0);
	assert_int_equal(strmap_get(&m, "abcd", &v), 0);
	assert_int_equal(strmap_get(&m, "\xff\xfe", &v), 0);
	long_b[69998] = 'z';
	assert_int_equal(strmap_get(&m, long_b, &v), 0);
	strmap_release(&m);
	free(long_a);
	free(long_b);
}

static void test_u64map(void **state)
{
	const size_t n = 100000;
	struct u64map m = {0};
	uint64_t v;

	(void)state;
	assert_int_equal(u64map_get(&m, 0, &v), 0);
	/* keys equal in their low 32 bits, then 0 and UINT64_MAX */
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(u64map_put(&m, i << 32, i * 3 + 1), 0);
	assert_int_equal(u64map_put(&m, UINT64_MAX, 5), 0);
	assert_int_equal(m.n, n + 1);
	assert_true(m.cap >= 2 * m.n);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(u64map_get(&m, i << 32, &v), 1);
		assert_int_equal(v, i * 3 + 1);
	}
	assert_int_equal(u64map_get(&m, 0, &v), 1);
	assert_int_equal(v, 1);
	assert_int_equal(u64map_get(&m, UINT64_MAX, &v), 1);
	assert_int_equal(v, 5);
	assert_int_equal(u64map_get(&m, 1, &v), 0);
	assert_int_equal(u64map_get(&m, (uint64_t)n << 32, &v), 0);
	/* a put of a key there replaces its value */
	assert_int_equal(u64map_put(&m, 7ull << 32, 99), 0);
	assert_int_equal(m.n, n + 1);
	assert_int_equal(u64map_get(&m, 7ull << 32, &v), 1);
	assert_int_equal(v, 99);
	u64map_clear(&m);
	assert_int_equal(m.n, 0);
	assert_int_equal(u64map_get(&m, 7ull << 32, &v), 0);
	assert_int_equal(u64map_put(&m, 7ull << 32, 1), 0);
	assert_int_equal(u64map_get(&m, 7ull << 32, &v), 1);
	assert_int_equal(v, 1);
	u64map_release(&m);
	assert_int_equal(u64map_get(&m, 7ull << 32, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_same_hash),
	    cmocka_unit_test(test_hostile_keys),
	    cmocka_unit_test(test_u64map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
