/* The one error line of every command (say.h). */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

int say_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "phpcmp%s%s: ", command != NULL ? " " : "", command != NULL ? command : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}
