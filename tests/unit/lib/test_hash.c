/*
 * test_hash.c - the one hash function (src/lib/hash.h): 64-bit FNV-1a's published test vectors
 * (Fowler, Noll, Vo: "", "a", "foobar"), the string and byte forms equal, and chaining equal to
 * hashing the concatenation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/hash.h"

static void test_vectors(void **state)
{
	(void)state;
	assert_true(HASH_INIT == 0xcbf29ce484222325ull);
	assert_true(hash_str(HASH_INIT, "") == 0xcbf29ce484222325ull);
	assert_true(hash_str(HASH_INIT, "a") == 0xaf63dc4c8601ec8cull);
	assert_true(hash_str(HASH_INIT, "foobar") == 0x85944171f73967e8ull);
	assert_true(hash_bytes(HASH_INIT, "foobar", 6) == 0x85944171f73967e8ull);
	assert_true(hash_bytes(HASH_INIT, "a", 1) == 0xaf63dc4c8601ec8cull);
}

static void test_chain(void **state)
{
	const unsigned char high[] = {0xff, 0x80, 0x00, 0x7f};

	(void)state;
	assert_true(hash_str(hash_str(HASH_INIT, "foo"), "bar") == hash_str(HASH_INIT, "foobar"));
	assert_true(hash_bytes(hash_bytes(HASH_INIT, "fo", 2), "obar", 4) ==
		    hash_str(HASH_INIT, "foobar"));
	/* bytes above 0x7f are taken unsigned; the NUL counts when it is in the length */
	assert_true(hash_str(HASH_INIT, "\xff\x80") == hash_bytes(HASH_INIT, high, 2));
	assert_true(hash_bytes(HASH_INIT, high, 3) != hash_bytes(HASH_INIT, high, 2));
	assert_true(hash_bytes(HASH_INIT, "a", 0) == HASH_INIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
