/* strdist.h - string distance for "did you mean" suggestions (events, options, commands). */
#ifndef PSC_STRDIST_H
#define PSC_STRDIST_H

#include <stddef.h>

/* Levenshtein distance between A and B, ignoring ASCII case; strings longer than 255 bytes
 * compare as far apart (SIZE_MAX). */
size_t edit_distance(const char *a, const char *b);

/* True when CANDIDATE is close enough to TYPED to suggest: distance at most
 * max(2, strlen(TYPED) / 3), or TYPED is a case-insensitive prefix of CANDIDATE. */
int strdist_close(const char *typed, const char *candidate, size_t *score);

#endif /* PSC_STRDIST_H */
