/* What every command shares on its command line (cmdline.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmdline.h"

int cmd_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "phpcmp%s%s: ", command != NULL ? " " : "", command != NULL ? command : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int cmd_long(const char *command, const char *what, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return cmd_error(
		    command, "%s: expected an integer %ld .. %ld, got \"%s\"", what, min, max, s);
	*out = v;
	return 0;
}
