/*
 * The one error line every phpcmp command writes: "phpcmp: MESSAGE", or
 * "phpcmp COMMAND: MESSAGE" for a command that names itself (review).
 */
#ifndef PHPCMP_SAY_H
#define PHPCMP_SAY_H

/* The line on stderr; -1 (to return it). */
int say_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
