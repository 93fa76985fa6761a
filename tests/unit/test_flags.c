/* Unit tests for server/common/flags.c, printing TAP. */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "tap.h"

/* The json_encode flags of PHP 8.2's ext/json/php_json.h. */
static const struct {
	const char *name;
	long value;
} expected[] = {
	{ "JSON_HEX_TAG", 1 },
	{ "JSON_HEX_AMP", 2 },
	{ "JSON_HEX_APOS", 4 },
	{ "JSON_HEX_QUOT", 8 },
	{ "JSON_FORCE_OBJECT", 16 },
	{ "JSON_NUMERIC_CHECK", 32 },
	{ "JSON_UNESCAPED_SLASHES", 64 },
	{ "JSON_PRETTY_PRINT", 128 },
	{ "JSON_UNESCAPED_UNICODE", 256 },
	{ "JSON_PARTIAL_OUTPUT_ON_ERROR", 512 },
	{ "JSON_PRESERVE_ZERO_FRACTION", 1024 },
	{ "JSON_UNESCAPED_LINE_TERMINATORS", 2048 },
	{ "JSON_INVALID_UTF8_IGNORE", 1048576 },
	{ "JSON_INVALID_UTF8_SUBSTITUTE", 2097152 },
	{ "JSON_THROW_ON_ERROR", 4194304 },
};
#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

/* A TAP description is one line: show \t and \n as escapes. */
static const char *shown(const char *s)
{
	static char buf[128];
	size_t n = 0;

	for (; *s && n < sizeof(buf) - 3; s++) {
		if (*s == '\n' || *s == '\t') {
			buf[n++] = '\\';
			buf[n++] = *s == '\n' ? 'n' : 't';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void parses(const char *s, long want)
{
	char err[160] = "", what[256];
	long f = -7;
	int rc = flags_parse(s, &f, err, sizeof(err));

	snprintf(what, sizeof(what), "parse \"%s\" = %ld (got rc %d, %ld%s%s)", shown(s), want, rc, f,
	    err[0] ? ", " : "", err);
	ok(rc == 0 && f == want, what);
}

static void fails(const char *s, const char *msg_part)
{
	char err[160] = "", what[300];
	long f = -7;
	int rc = flags_parse(s, &f, err, sizeof(err));

	snprintf(what, sizeof(what), "parse \"%s\" fails with \"%s\" (err: %s)", shown(s), msg_part, err);
	ok(rc == -1 && strstr(err, msg_part) != NULL && f == -7, what);
}

static void formats(long flags, const char *want)
{
	char buf[512], what[700];

	flags_format(flags, buf, sizeof(buf));
	snprintf(what, sizeof(what), "format %ld = \"%s\" (got \"%s\")", flags, want, buf);
	ok(strcmp(buf, want) == 0, what);
}

int main(void)
{
	char buf[512], what[256];
	long all = 0, v;

	ok(flags_count() == NEXPECTED, "15 json_encode flags are known");
	for (size_t i = 0; i < NEXPECTED; i++) {
		const char *name = flags_name_at(i, &v);
		long parsed = -1;
		char err[128];

		snprintf(what, sizeof(what), "%s = %ld: listed, named, parsed, formatted", expected[i].name,
		    expected[i].value);
		flags_format(expected[i].value, buf, sizeof(buf));
		ok(name && strcmp(name, expected[i].name) == 0 && v == expected[i].value &&
		        flags_name(expected[i].value) && strcmp(flags_name(expected[i].value), name) == 0 &&
		        flags_parse(name, &parsed, err, sizeof(err)) == 0 && parsed == v &&
		        strcmp(buf, name) == 0,
		    what);
		all |= expected[i].value;
	}
	ok(flags_name_at(NEXPECTED, &v) == NULL, "flags_name_at past the end is NULL");
	ok(flags_name(0) == NULL && flags_name(3) == NULL && flags_name(4096) == NULL,
	    "flags_name of 0, of two bits, of an unknown bit is NULL");

	parses("0", 0);
	parses("00", 0);
	parses("3", 3);
	parses("320", 320);
	parses("8388608", 8388608); /* unknown bits are allowed as numbers */
	parses("9223372036854775807", 9223372036854775807L);
	parses("JSON_HEX_TAG|JSON_HEX_AMP", 3);
	parses("JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES", 192);
	parses("  JSON_HEX_TAG|  JSON_HEX_QUOT  ", 9);
	parses("\tJSON_HEX_TAG |\n JSON_THROW_ON_ERROR\n", 4194305);
	parses("JSON_PRETTY_PRINT|8388608", 128 | 8388608);
	parses("JSON_HEX_TAG|JSON_HEX_TAG", 1);
	parses("JSON_HEX_TAG|2", 3);

	fails("JSON_FOO", "unknown flag \"JSON_FOO\"");
	fails("JSON_HEX_TAG|JSON_NOPE", "unknown flag \"JSON_NOPE\"");
	fails("JSON_HEX_TAG | JSON_NOPE ", "unknown flag \"JSON_NOPE\"");
	fails("JSON_OBJECT_AS_ARRAY", "unknown flag \"JSON_OBJECT_AS_ARRAY\"");   /* decode-only */
	fails("JSON_BIGINT_AS_STRING", "unknown flag \"JSON_BIGINT_AS_STRING\""); /* decode-only */
	fails("json_hex_tag", "unknown flag \"json_hex_tag\""); /* PHP's names are case-sensitive */
	fails("", "empty flags");
	fails("   ", "empty flags");
	fails("JSON_HEX_TAG||JSON_HEX_AMP", "empty flag name");
	fails("JSON_HEX_TAG|", "empty flag name");
	fails("|JSON_HEX_TAG", "empty flag name");
	fails("-1", "negative flags value -1");
	fails("JSON_HEX_TAG|-4", "negative flags value -4");
	fails("99999999999999999999", "out of range");
	fails("12abc", "unknown flag \"12abc\"");
	fails("0x10", "unknown flag \"0x10\"");
	fails("3.5", "unknown flag \"3.5\"");
	{
		char longname[300], err[160];
		long f;

		memset(longname, 'X', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		ok(flags_parse(longname, &f, err, sizeof(err)) == -1 && strlen(err) < 100,
		    "an absurdly long unknown name is cut short in the message");
		ok(flags_parse("JSON_FOO", &f, err, 8) == -1 && strlen(err) == 7,
		    "the message fits a small err buffer");
	}

	formats(0, "0");
	formats(1, "JSON_HEX_TAG");
	formats(192, "JSON_UNESCAPED_SLASHES|JSON_PRETTY_PRINT");
	formats(4096, "4096");
	formats(1 | 4096 | 8388608, "JSON_HEX_TAG|8392704");
	formats(all,
	    "JSON_HEX_TAG|JSON_HEX_AMP|JSON_HEX_APOS|JSON_HEX_QUOT|JSON_FORCE_OBJECT|"
	    "JSON_NUMERIC_CHECK|JSON_UNESCAPED_SLASHES|JSON_PRETTY_PRINT|JSON_UNESCAPED_UNICODE|"
	    "JSON_PARTIAL_OUTPUT_ON_ERROR|JSON_PRESERVE_ZERO_FRACTION|JSON_UNESCAPED_LINE_TERMINATORS|"
	    "JSON_INVALID_UTF8_IGNORE|JSON_INVALID_UTF8_SUBSTITUTE|JSON_THROW_ON_ERROR");

	{
		const long samples[] = { 0, 1, 3, 128, 320, 4096, all, all | 4096, 8388608 | 64,
			0x7fffffffL };
		int good = 1;

		for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
			long back = -1;
			char err[160];

			flags_format(samples[i], buf, sizeof(buf));
			if (flags_parse(buf, &back, err, sizeof(err)) != 0 || back != samples[i])
				good = 0;
		}
		ok(good, "format then parse gives the flags back, unknown bits included");
	}
	{
		char small[10];

		memset(small, '#', sizeof(small));
		flags_format(all, small, sizeof(small));
		ok(memchr(small, '\0', sizeof(small)) != NULL,
		    "format into a small buffer stays NUL-terminated");
		memset(small, '#', sizeof(small));
		flags_format(1, small, 0);
		ok(small[0] == '#', "format into a zero-size buffer writes nothing");
	}

	return tap_done();
}
