/*
 * tmpdir.h - scratch directories and files for unit tests: made under $TMPDIR (else /tmp),
 * removed with everything in them. Include after <cmocka.h>; failures are cmocka failures.
 */
#ifndef PSC_TEST_TMPDIR_H
#define PSC_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

/* Make a fresh directory named psc-TAG.XXXXXX under $TMPDIR (else /tmp) into DIR (SIZE
 * bytes). 0, or -1 when it could not be made. */
static inline int tmpdir_make(char *dir, size_t size, const char *tag)
{
	const char *base = getenv("TMPDIR");

	if (snprintf(dir, size, "%s/psc-%s.XXXXXX", base && *base ? base : "/tmp", tag) >=
	    (int)size)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

/* Remove DIR and everything under it. 0, or -1 on failure. */
static inline int tmpdir_remove(const char *dir)
{
	char cmd[4200];

	if (snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= (int)sizeof(cmd))
		return -1;
	return system(cmd) ? -1 : 0;
}

/* DIR/NAME into PATH (SIZE bytes), failing the test when it does not fit. */
static inline void tmpdir_join(char *path, size_t size, const char *dir, const char *name)
{
	int n = snprintf(path, size, "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < size);
}

/* Write TEXT as the whole content of PATH, failing the test when it cannot. */
static inline void tmpdir_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#endif /* PSC_TEST_TMPDIR_H */
