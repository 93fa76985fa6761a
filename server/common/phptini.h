/*
 * Which --INI-- settings a .phpt test may make (docs/phpt.md, "Settings").
 * A test's settings are made at PHP_INI_SYSTEM, where PHP checks no
 * open_basedir: a setting that names a file (error_log, browscap,
 * include_path, auto_prepend_file, opcache.file_cache...) or widens what
 * a script may do would run as the daemon's user.  So a test may make
 * only the settings of an allow-list, none of which names a file; the
 * daemon (phptrun.c) refuses the test (BORK) before it runs and the
 * worker core (phptcore.c) checks again the names PHP's INI parser gave.
 * Shared by both (server/core/SOURCES lists it).  Pure: no PHP.
 */
#ifndef PHPCMP_PHPTINI_H
#define PHPCMP_PHPTINI_H

#include <stddef.h>

enum phptini_verdict {
	PHPTINI_ALLOWED, /* on the allow-list */
	PHPTINI_WORKER,  /* held by the sandbox or startup-only: the worker decides (SKIP) */
	PHPTINI_REFUSED, /* why says which and why */
};

/* name and value as trimmed: the verdict; why (without the name) filled when REFUSED. */
enum phptini_verdict phptini_check(const char *name, const char *value, char *why, size_t whysize);
/* Whether the sandbox makes this setting (server/worker/sandbox.c): a test
 * may name it only with the value already in force (phptcore.c checks). */
int phptini_sandbox_held(const char *name);

#endif
