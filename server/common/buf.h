/*
 * The one growable byte buffer (buf.c): always NUL-terminated, and once an
 * append fails (out of memory) every later one is a no-op with failed set,
 * so a caller checks once at the end.  Also compiled into the worker loader
 * and each build's core (server/core/SOURCES).
 */
#ifndef PHPCMP_BUF_H
#define PHPCMP_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data; /* NULL until the first append */
	size_t len, cap;
	int failed;
};

#define BUF_INIT              \
	{                     \
		NULL, 0, 0, 0 \
	}

/* Make room for need bytes in total in *data (cap in *cap): 0, or -1 out of memory. */
int buf_grow(char **data, size_t *cap, size_t need);
void buf_add(struct buf *, const void *data, size_t len);
void buf_adds(struct buf *, const char *s);
void buf_addf(struct buf *, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *, const char *fmt, va_list ap);
/* Take the bytes (NUL-terminated; NULL if failed or empty-and-never-added) and reset b. */
char *buf_detach(struct buf *, size_t *len);
void buf_release(struct buf *);

#endif
