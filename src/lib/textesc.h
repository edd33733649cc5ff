/*
 * textesc.h - untrusted text made safe for the terminal and for CSV.
 *
 * Names, paths, argv, thread and host names and error texts come from an experiment, that is
 * from the measured program or whoever wrote the files, and may hold any bytes: an ESC sequence
 * would retitle or reprogram the user's terminal, a newline would forge lines of a report. Every
 * text output (tables, CSV, each printf of such a string in src/output and src/cli, the CLI's
 * error lines) passes them through text_escape(), which writes them visibly and unambiguously:
 *
 *   \   as \\                     newline, CR, tab   as \n \r \t
 *   other control bytes (0x00-0x1f, 0x7f)   as \xNN (ESC is \x1b)
 *   a byte that is not part of valid UTF-8  as \xNN (its value)
 *   C1 controls U+0080 to U+009F, the line and paragraph separators U+2028 and U+2029, and the
 *   bidirectional controls U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069
 *                                           as \uXXXX
 *
 * Everything else, printable ASCII and valid UTF-8 (accents, CJK, emoji), is kept as it is.
 * JSON has its own escape (jsonw_escape).
 */
#ifndef PSC_TEXTESC_H
#define PSC_TEXTESC_H

#include <stddef.h>
#include <stdio.h>

/* Longest escape of one input byte: DST of text_escape() needs TEXT_ESCAPE_MAX * LEN bytes. */
#define TEXT_ESCAPE_MAX 4

/* The LEN bytes at S escaped as above into DST (no NUL written). Returns the bytes written. */
size_t text_escape(char *dst, const char *s, size_t len);

/* True when S (NULL: none) has something text_escape() changes. */
int text_needs_escape(const char *s);

/*
 * S escaped (NULL gives ""), for an argument of printf: S itself when nothing needs escaping,
 * else a copy in one of 8 buffers of the calling thread, valid until 8 more calls of
 * text_safe() in that thread. When memory runs out, "(unprintable)".
 */
const char *text_safe(const char *s);

/* fputs(text_safe(S), F). */
void text_fputs(const char *s, FILE *f);

#endif /* PSC_TEXTESC_H */
