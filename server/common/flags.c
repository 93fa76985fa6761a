/*
 * json_encode flags: names <-> bits.
 *
 * The table is every flag json_encode() honours in PHP 8.2, with the values
 * of ext/json/php_json.h (PHP_JSON_*).  That is 15 names.  PRODUCT.md's
 * "14 encode flags" are the ones that shape the output -- all of these but
 * JSON_THROW_ON_ERROR, which only changes how a failure is reported (an
 * exception instead of false + json_last_error()); a generator combining
 * flags at random leaves it out so error codes stay comparable.  It is
 * listed here because cases name it.
 *
 * Not listed: JSON_OBJECT_AS_ARRAY (1) and JSON_BIGINT_AS_STRING (2) are
 * json_decode-only and share their bits with JSON_HEX_TAG / JSON_HEX_AMP, so
 * accepting them here would silently mean something else.
 *
 * Names must be known; numbers may carry any non-negative value, because
 * users test unknown bits on purpose (json_encode ignores them).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"

static const struct {
	const char *name;
	long value;
} flags_table[] = {
	{ "JSON_HEX_TAG", 1L << 0 },
	{ "JSON_HEX_AMP", 1L << 1 },
	{ "JSON_HEX_APOS", 1L << 2 },
	{ "JSON_HEX_QUOT", 1L << 3 },
	{ "JSON_FORCE_OBJECT", 1L << 4 },
	{ "JSON_NUMERIC_CHECK", 1L << 5 },
	{ "JSON_UNESCAPED_SLASHES", 1L << 6 },
	{ "JSON_PRETTY_PRINT", 1L << 7 },
	{ "JSON_UNESCAPED_UNICODE", 1L << 8 },
	{ "JSON_PARTIAL_OUTPUT_ON_ERROR", 1L << 9 },
	{ "JSON_PRESERVE_ZERO_FRACTION", 1L << 10 },
	{ "JSON_UNESCAPED_LINE_TERMINATORS", 1L << 11 },
	{ "JSON_INVALID_UTF8_IGNORE", 1L << 20 },
	{ "JSON_INVALID_UTF8_SUBSTITUTE", 1L << 21 },
	{ "JSON_THROW_ON_ERROR", 1L << 22 },
};

#define FLAGS_N (sizeof(flags_table) / sizeof(flags_table[0]))

size_t flags_count(void)
{
	return FLAGS_N;
}

const char *flags_name_at(size_t i, long *value)
{
	if (i >= FLAGS_N)
		return NULL;
	if (value)
		*value = flags_table[i].value;
	return flags_table[i].name;
}

const char *flags_name(long bit)
{
	for (size_t i = 0; i < FLAGS_N; i++)
		if (flags_table[i].value == bit)
			return flags_table[i].name;
	return NULL;
}

/* One '|'-separated token, already trimmed: a known name or a decimal. */
static int flags_token(const char *tok, size_t len, long *value, char *err, size_t errsize)
{
	int shown = len > 64 ? 64 : (int)len; /* names in messages stay short */

	if (len == 0) {
		snprintf(err, errsize, "empty flag name (expected JSON_NAME|JSON_NAME or a number)");
		return -1;
	}
	if (isdigit((unsigned char)tok[0])) {
		long v = 0;
		for (size_t i = 0; i < len; i++) {
			if (!isdigit((unsigned char)tok[i])) {
				snprintf(err, errsize, "unknown flag \"%.*s\"", shown, tok);
				return -1;
			}
			int d = tok[i] - '0';
			if (v > (LONG_MAX - d) / 10) {
				snprintf(err, errsize, "flags value %.*s is out of range", shown, tok);
				return -1;
			}
			v = v * 10 + d;
		}
		*value = v;
		return 0;
	}
	for (size_t i = 0; i < FLAGS_N; i++) {
		if (strlen(flags_table[i].name) == len && memcmp(flags_table[i].name, tok, len) == 0) {
			*value = flags_table[i].value;
			return 0;
		}
	}
	if (tok[0] == '-')
		snprintf(err, errsize, "negative flags value %.*s", shown, tok);
	else
		snprintf(err, errsize, "unknown flag \"%.*s\"", shown, tok);
	return -1;
}

int flags_parse(const char *s, long *flags, char *err, size_t errsize)
{
	long acc = 0;
	const char *p = s;

	if (err && errsize)
		err[0] = '\0';
	for (;;) {
		const char *bar = strchr(p, '|');
		const char *end = bar ? bar : p + strlen(p);
		const char *a = p, *b = end;
		long v;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		/* A lone empty string is "no flags given", not a stray '|'. */
		if (a == b && !bar && p == s) {
			snprintf(err, errsize, "empty flags (use 0 for none)");
			return -1;
		}
		if (flags_token(a, (size_t)(b - a), &v, err, errsize) < 0)
			return -1;
		acc |= v;
		if (!bar)
			break;
		p = bar + 1;
	}
	*flags = acc;
	return 0;
}

void flags_format(long flags, char *buf, size_t bufsize)
{
	size_t len = 0;
	long rest = flags;

	if (bufsize == 0)
		return;
	buf[0] = '\0';
	if (flags == 0) {
		snprintf(buf, bufsize, "0");
		return;
	}
	for (size_t i = 0; i < FLAGS_N; i++) {
		if (!(flags & flags_table[i].value))
			continue;
		rest &= ~flags_table[i].value;
		int n = snprintf(buf + len, bufsize - len, "%s%s", len ? "|" : "", flags_table[i].name);
		if (n < 0 || (size_t)n >= bufsize - len)
			return; /* truncated; buf stays NUL-terminated */
		len += (size_t)n;
	}
	/* Bits without a name stay visible as a number flags_parse takes back. */
	if (rest)
		snprintf(buf + len, bufsize - len, "%s%ld", len ? "|" : "", rest);
}
