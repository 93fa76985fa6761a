/*
 * libFuzzer harness: the stored case file parser.  Whatever it accepts must
 * format back (casefile_format) into a file that parses to the same case,
 * unless the formatter refuses it (a body it cannot store faithfully).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct case_spec c, again;
	char err[256], err2[256];

	memset(err, 0x55, sizeof(err));
	if (casefile_parse((const char *)data, size, &c, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)))
			abort(); /* the message must be a C string */
		return 0;
	}
	char *text = casefile_format(&c);
	if (text) {
		if (casefile_parse(text, strlen(text), &again, err2, sizeof(err2)) < 0) {
			fprintf(stderr, "formatted case does not parse: %s\n%s\n", err2, text);
			abort();
		}
		/* An empty --SETUP-- and none are the same case. */
		const char *s1 = c.setup && c.setup[0] ? c.setup : NULL;
		const char *s2 = again.setup && again.setup[0] ? again.setup : NULL;
		if (!same_str(c.title, again.title) || !same_str(c.code, again.code) || !same_str(s1, s2) ||
		    !same_str(c.expect, again.expect) || c.flags != again.flags || c.depth != again.depth ||
		    c.iterations != again.iterations) {
			fprintf(stderr, "round trip changed the case:\n%s\n", text);
			abort();
		}
		case_release(&again);
		free(text);
	}
	case_release(&c);
	return 0;
}
