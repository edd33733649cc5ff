/* test_strv.c - arrays of owned strings grown one formatted line at a time (src/lib/strv.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "lib/strv.h"

static int push(char ***v, size_t *n, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int push(char ***v, size_t *n, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = strv_vpushf(v, n, cap, fmt, ap);
	va_end(ap);
	return ret;
}

static void test_lines_kept_in_order(void **state)
{
	char **v = NULL, big[3000];
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(push(&v, &n, &cap, "rank %d: %s", i, i % 2 ? "odd" : "even"), 0);
	assert_int_equal(n, 100);
	assert_true(cap >= 100);
	assert_string_equal(v[0], "rank 0: even");
	assert_string_equal(v[99], "rank 99: odd");
	/* no length limit: a line longer than any fixed buffer is kept whole */
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('a' + i % 26);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(push(&v, &n, &cap, "%s", big), 0);
	assert_string_equal(v[100], big);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines_kept_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
