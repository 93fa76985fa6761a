/*
 * json_encode's flags by name: the one table of JSON_* names (flags.c),
 * used by case files, the generator's rendering, the page and the API.
 * In the library all three programs share: the worker core compiles it
 * too (the generator renders flags by name).
 */
#ifndef PHPCMP_FLAGS_H
#define PHPCMP_FLAGS_H

#include <stddef.h>

/* Parse "JSON_A|JSON_B" or a decimal int. 0 ok, -1 with the unknown name in err. */
int flags_parse(const char *s, long *flags, char *err, size_t errsize);
/* Flag name for a single bit, or NULL. */
const char *flags_name(long bit);
/* "JSON_A|JSON_B" (or "0") into buf. */
void flags_format(long flags, char *buf, size_t bufsize);
/* Number of known flags and each one, for listing. */
size_t flags_count(void);
const char *flags_name_at(size_t i, long *value);

#endif
