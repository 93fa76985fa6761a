/*
 * Text of any bytes as JSON, the one way every endpoint shows it: itself
 * when it is UTF-8, else with each byte that is not part of a valid UTF-8
 * sequence written as \xNN (the page shows those as chips).  And numbers
 * grouped by thousands, and code as inline code, the one way every
 * Markdown report (review's, a run's report.md) shows them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "model.h"

/* The bytes as a JSON string, each byte outside a valid UTF-8 sequence
 * written as \xNN (hex) or as U+FFFD; cut once max bytes are written. */
static json_t *text_mapped(const char *data, size_t len, size_t max, int hex)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t i = 0, k, o = 0;
	json_t *j;
	char *out;

	if ((out = malloc(len * 4 + 1)) == NULL)
		return NULL;
	while (i < len && o < max) {
		if ((k = utf8_seq(p + i, len - i, NULL)) == 0) {
			if (hex) {
				o += (size_t)snprintf(out + o, 5, "\\x%02x", p[i]);
			} else {
				memcpy(out + o, "\xef\xbf\xbd", 3);
				o += 3;
			}
			i++;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
		}
	}
	j = json_stringn(out, o);
	free(out);
	return j;
}

json_t *text_display(const char *data, size_t len)
{
	return text_mapped(data, len, SIZE_MAX, 1);
}

json_t *text_replaced(const char *data, size_t len, size_t max)
{
	return text_mapped(data, len, max, 0);
}

json_t *text_jsonn(const char *data, size_t len, int *is_utf8)
{
	json_t *j;

	if (data == NULL)
		data = "";
	if ((j = json_stringn(data, len)) != NULL) {
		if (is_utf8 != NULL)
			*is_utf8 = 1;
		return j;
	}
	if (is_utf8 != NULL)
		*is_utf8 = 0;
	return text_display(data, len);
}

json_t *text_json(const char *s)
{
	return s != NULL ? text_jsonn(s, strlen(s), NULL) : json_null();
}

json_t *text_flag_names(long flags)
{
	json_t *a = json_array();
	const char *name;
	long value;

	for (size_t i = 0; a != NULL && (name = flags_name_at(i, &value)) != NULL; i++)
		if (value != 0 && (flags & value) == value)
			json_array_append_new(a, json_string(name));
	return a;
}

void text_grouped(const char *number, char *out, size_t size)
{
	size_t sign = number[0] == '-', whole = sign + strspn(number + sign, "0123456789"), o = 0;

	if (size == 0)
		return;
	for (size_t i = 0; number[i] != '\0' && o + 1 < size; i++) {
		if (i > sign && i < whole && (whole - i) % 3 == 0)
			out[o++] = ',';
		if (o + 1 < size)
			out[o++] = number[i];
	}
	out[o] = '\0';
}

void text_md_code(struct buf *o, const char *s, size_t n, size_t max)
{
	size_t shown = n > max ? max : n;
	const char *fence = memchr(s, '`', n) != NULL ? "`` " : "`";

	buf_adds(o, fence);
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			buf_addf(o, "\\x%02X", c);
		else if (c == '|')
			buf_adds(o, "\\|");
		else
			buf_add(o, &s[i], 1);
	}
	if (shown < n)
		buf_addf(o, "… (%zu bytes)", n);
	buf_adds(o, fence[1] == '`' ? " ``" : "`");
}
