/*
 * libFuzzer harness: the json_encode flags parser.  Accepted flags must
 * format (flags_format) into text that parses back to the same value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160], buf[1024];
	long flags, again;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* flags_parse takes a C string: a NUL ends it early */
	memset(err, 0x55, sizeof(err));
	if (flags_parse(s, &flags, err, sizeof(err)) == 0) {
		if (flags < 0)
			abort();
		flags_format(flags, buf, sizeof(buf));
		if (flags_parse(buf, &again, err, sizeof(err)) < 0 || again != flags) {
			fprintf(stderr, "\"%s\" -> %ld -> \"%s\" does not parse back\n", s, flags, buf);
			abort();
		}
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	free(s);
	return 0;
}
