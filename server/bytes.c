/* Byte strings that may hold anything (NUL, invalid UTF-8). */
#include <stdlib.h>
#include <string.h>

#include "phpcmp.h"

void bytes_set(struct bytes *b, const void *data, size_t len)
{
	free(b->data);
	b->data = malloc(len + 1);
	if (!b->data) {
		b->len = 0;
		return;
	}
	if (len)
		memcpy(b->data, data, len);
	b->data[len] = '\0';
	b->len = len;
}

void bytes_release(struct bytes *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* Strict UTF-8 (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF. */
int utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		unsigned c = *p;
		size_t n;
		unsigned min;
		if (c < 0x80) {
			p++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1; min = 0x80; c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2; min = 0x800; c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3; min = 0x10000; c &= 0x07;
		} else {
			return 0;
		}
		if ((size_t)(end - p) <= n)
			return 0;
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (p[i] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return 0;
		p += n + 1;
	}
	return 1;
}
