/*
 * region-names-prog.c - region names the runtime must take as they come. Modes:
 *   nul         a counted name with a NUL inside its length, in a heap block of exactly that
 *               length (the name ends at the NUL; nothing past the block may be read): 10 times
 *   many N      N distinct names, each begun and ended once
 *   long        two names of 2000 and 1500 bytes that agree in their first 1024: 1 time each
 * Prints what it did, for the test to compare with the report.
 */
#include <perfscope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "nul")) {
		char *name = malloc(7);

		if (!name)
			return 1;
		memcpy(name, "ab\0cdef", 7);
		for (int i = 0; i < 10; i++) {
			psc_region_begin_n(name, 7);
			psc_region_end_n(name, 7);
		}
		free(name);
		printf("nul: 10 boundary pairs of \"ab\"\n");
	} else if (!strcmp(mode, "many") && argc > 2) {
		long n = atol(argv[2]);
		char name[32];

		for (long i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "r%ld", i);
			psc_region_begin(name);
			psc_region_end(name);
		}
		printf("many: %ld names\n", n);
	} else if (!strcmp(mode, "long")) {
		char *a = malloc(2001), *b = malloc(1501);

		if (!a || !b)
			return 1;
		memset(a, 'a', 2000);
		a[2000] = 0;
		memset(b, 'a', 1500);
		b[1499] = 'b';
		b[1500] = 0;
		psc_region_begin(a);
		psc_region_end(a);
		psc_region_begin(b);
		psc_region_end(b);
		free(a);
		free(b);
		printf("long: 2 names cut to one\n");
	} else {
		fprintf(stderr, "usage: region-names-prog nul | many N | long\n");
		return 2;
	}
	return 0;
}
