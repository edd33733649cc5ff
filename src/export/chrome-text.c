/* chrome-text.c - JSON text pieces of the Chrome trace writer: numbers (chrome.h); strings are
 * escaped by jsonw_escape (jsonw.h). */
#include "export/chrome.h"

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
