/*
 * The unit tests' TAP printer (prove reads it): ok() counts and prints one
 * test line, skip() one that did not run, tap_done() the plan and the exit
 * status.  Header-only: each test program is one translation unit.
 */
#ifndef PHPCMP_TAP_H
#define PHPCMP_TAP_H
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A test that could not run here, and why (prove counts it as skipped). */
static void skip(const char *what, const char *why) __attribute__((unused));
static void skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
}

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
#endif
