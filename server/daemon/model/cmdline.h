/*
 * What every phpcmp command shares on its command line: the one error line
 * ("phpcmp: MESSAGE", or "phpcmp COMMAND: MESSAGE" for a command that names
 * itself, as review does) and the strict reading of an integer option.
 */
#ifndef PHPCMP_CMDLINE_H
#define PHPCMP_CMDLINE_H

/* The line on stderr; -1 (to return it). */
int cmd_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as an integer in min..max, nothing after it: 0 with *out, or -1 with
 * "WHAT: expected an integer MIN .. MAX, got "S"" said. */
int cmd_long(const char *command, const char *what, const char *s, long min, long max, long *out);

#endif
