/* textesc.c - untrusted text made safe for the terminal and for CSV (textesc.h). */
#include "lib/textesc.h"
#include "lib/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Code points of U+0080 and above that are escaped: they control the terminal or the text's
 * layout and direction rather than show. */
static int cp_escaped(uint32_t cp)
{
	return cp < 0xa0 || cp == 0x061c || cp == 0x200e || cp == 0x200f || cp == 0x2028 ||
	       cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t text_escape(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		uint32_t cp;
		size_t k;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[n++] = (char)c;
			i++;
			continue;
		}
		if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
			dst[n++] = '\\';
			dst[n++] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
			i++;
			continue;
		}
		k = c < 0x80 ? 0 : utf8_seq_len(u + i, len - i, &cp);
		if (k && cp_escaped(cp)) {
			dst[n++] = '\\';
			dst[n++] = 'u';
			for (int sh = 12; sh >= 0; sh -= 4)
				dst[n++] = hex[(cp >> sh) & 15];
			i += k;
		} else if (k) {
			memcpy(dst + n, u + i, k);
			n += k;
			i += k;
		} else {
			/* a control byte, or a byte that is not part of valid UTF-8 */
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[c >> 4];
			dst[n++] = hex[c & 15];
			i++;
		}
	}
	return n;
}

int text_needs_escape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;

	if (!s)
		return 0;
	len = strlen(s);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k;

		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\') {
			i++;
			continue;
		}
		if (u[i] < 0x80)
			return 1;
		k = utf8_seq_len(u + i, len - i, &cp);
		if (!k || cp_escaped(cp))
			return 1;
		i += k;
	}
	return 0;
}

#define RING 8

const char *text_safe(const char *s)
{
	static _Thread_local struct {
		char *p;
		size_t cap;
	} ring[RING];
	static _Thread_local unsigned next;
	size_t len, need;

	if (!s)
		return "";
	if (!text_needs_escape(s))
		return s;
	len = strlen(s);
	need = TEXT_ESCAPE_MAX * len + 1;
	unsigned i = next++ % RING;

	if (ring[i].cap < need) {
		char *p = realloc(ring[i].p, need);

		if (!p)
			return "(unprintable)";
		ring[i].p = p;
		ring[i].cap = need;
	}
	ring[i].p[text_escape(ring[i].p, s, len)] = 0;
	return ring[i].p;
}

void text_fputs(const char *s, FILE *f)
{
	fputs(text_safe(s), f);
}
