/* The one growable byte buffer (buf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int buf_grow(char **data, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 256;
	char *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > (size_t)-1 / 2)
			return -1;
		n *= 2;
	}
	if ((p = realloc(*data, n)) == NULL)
		return -1;
	*data = p;
	*cap = n;
	return 0;
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->failed)
		return;
	if (len > (size_t)-1 - b->len - 1 || buf_grow(&b->data, &b->cap, b->len + len + 1) < 0) {
		b->failed = 1;
		return;
	}
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->failed)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || buf_grow(&b->data, &b->cap, b->len + (size_t)n + 1) < 0) {
		b->failed = 1;
		return;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p = b->failed ? NULL : b->data;

	if (b->failed)
		free(b->data);
	if (len)
		*len = p ? b->len : 0;
	memset(b, 0, sizeof(*b));
	return p;
}

void buf_release(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
