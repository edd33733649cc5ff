/* utf8.c - checking UTF-8 (utf8.h). */
#include "lib/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	uint32_t v;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 0; /* ASCII, a continuation byte, 0xc0/0xc1 (overlong) or above U+10FFFF */
	}
	if (len > n)
		return 0;
	/* the second byte's range rules out overlong forms, surrogates and U+110000 up */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	v = v << 6 | (s[1] & 0x3f);
	for (size_t i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (cp)
		*cp = v;
	return len;
}
