/* strdist.c - Levenshtein distance with two rows on the stack. */
#include "lib/strdist.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[256], prev[256];

	if (la > 255 || lb > 255)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
		}
		memcpy(prev, row, (lb + 1) * sizeof(row[0]));
	}
	return prev[lb];
}

int strdist_close(const char *typed, const char *candidate, size_t *score)
{
	size_t len = strlen(typed);
	size_t limit = len / 3 > 2 ? len / 3 : 2;
	size_t d;

	if (len >= 3 && !strncasecmp(candidate, typed, len)) {
		*score = 1;
		return 1;
	}
	d = edit_distance(typed, candidate);
	*score = d;
	return d <= limit;
}
