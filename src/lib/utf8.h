/*
 * utf8.h - checking UTF-8. Text from an experiment (names, paths, argv) is arbitrary bytes; every
 * writer that must emit valid text (JSON, the terminal escaping of textesc.h) asks here which
 * bytes form valid UTF-8 and which do not.
 */
#ifndef PSC_UTF8_H
#define PSC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (2 to 4) of the valid UTF-8 sequence of a code point of U+0080 or more at S, which
 * has N bytes (N >= 1), and its code point in *CP (may be NULL); 0 when none starts there: an
 * ASCII byte, a lone continuation byte, an overlong form, a surrogate (U+D800 to U+DFFF),
 * a code point above U+10FFFF, or a sequence cut short by the end of S or by a byte that is
 * not a continuation byte.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n, uint32_t *cp);

#endif /* PSC_UTF8_H */
