/* chrome-text.c - JSON text pieces of the Chrome trace writer: numbers and strings (chrome.h). */
#include "chrome.h"

#include <string.h>

static const char digits2[] = "00010203040506070809"
			      "10111213141516171819"
			      "20212223242526272829"
			      "30313233343536373839"
			      "40414243444546474849"
			      "50515253545556575859"
			      "60616263646566676869"
			      "70717273747576777879"
			      "80818283848586878889"
			      "90919293949596979899";

size_t chrome_format_u64(char *dst, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		p -= 2;
		memcpy(p, digits2 + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(dst, p, n);
	return n;
}

size_t chrome_format_us(char *dst, int64_t ns)
{
	uint64_t v = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, r = v % 1000;
	size_t n = 0;

	if (ns < 0)
		dst[n++] = '-';
	n += chrome_format_u64(dst + n, v / 1000);
	dst[n++] = '.';
	dst[n++] = (char)('0' + r / 100);
	memcpy(dst + n, digits2 + (r % 100) * 2, 2);
	return n + 2;
}

/* Length of the valid UTF-8 sequence at S (N bytes left), 0 if none starts there. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
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
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t chrome_json_escape(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			dst[n++] = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)c;
			i++;
		} else if (c < 0x20) {
			memcpy(dst + n, "\\u00", 4);
			dst[n + 4] = hex[c >> 4];
			dst[n + 5] = hex[c & 15];
			n += 6;
			i++;
		} else {
			size_t k = utf8_len(u + i, len - i);

			if (k) {
				memcpy(dst + n, u + i, k);
				n += k;
				i += k;
			} else {
				memcpy(dst + n, "\\ufffd", 6);
				n += 6;
				i++;
			}
		}
	}
	return n;
}
