/* Byte strings that may hold anything (NUL, invalid UTF-8). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

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

/*
 * Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid;
 * strict RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF.
 * *cp (when cp is not NULL) gets its code point.
 */
size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c = p[0], min;
	size_t len;

	if (c < 0x80) {
		len = 1;
		goto out;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
out:
	if (cp)
		*cp = c;
	return len;
}

int utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, k; i < len; i += k)
		if ((k = utf8_seq(p + i, len - i, NULL)) == 0)
			return 0;
	return 1;
}

/* A whole regular file of at most max bytes, NUL-terminated (it may hold
 * NULs too: *len says how much was read).  NULL with why in err. */
char *bytes_read_file(const char *path, size_t max, size_t *len, char *err, size_t errsize)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errsize, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		snprintf(err, errsize, "not a regular file of at most %zu bytes", max);
		goto fail;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		snprintf(err, errsize, "out of memory");
		goto fail;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}
