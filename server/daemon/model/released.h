/*
 * Released PHP's answers to a case (issue 49): the references (php-7.4 ...
 * php-8.5) in version order, which of the case's builds each answers as,
 * grouped by identical answer as 3v4l groups versions ("7.4.33 – 8.0.30"),
 * and the one line said of a root cause ("released 7.4.33–8.5.10 all
 * answer as the base: ...").  Plain data and text: the API (http/) makes
 * the JSON, the page (web/js/components/released.js) groups the same way.
 */
#ifndef PHPCMP_RELEASED_H
#define PHPCMP_RELEASED_H

#include "model.h"

#define RELEASED_MAX 16 /* references a daemon may load */

struct released_ref {
	const char *name;        /* "php-8.1" */
	const char *php_version; /* "8.1.34"; "" when its worker never said */
	const struct result *r;  /* NULL: no answer (its worker failed) */
	unsigned as;             /* bit i: answers as the case's role i (verdict_compare) */
	int group;               /* its group's index, -1 without an answer */
	int index;               /* the caller's own (its position before the sort) */
};

struct released_group {
	int members[RELEASED_MAX]; /* indexes into refs, oldest first */
	int n;
	unsigned as;     /* the first member's (every member gives the same answer) */
	char label[256]; /* "7.4.33 – 8.0.30", "7.4.33, 8.2.1" */
};

struct released {
	struct released_ref refs[RELEASED_MAX]; /* oldest first, after released_compute */
	int n;
	struct released_group groups[RELEASED_MAX]; /* by their oldest member */
	int ngroups;
	char summary[512]; /* "" with no reference */
};

/* 1 when a and b are the same answer: status, signal, output bytes, error
 * code and message, exception, warnings, printed; unsupported is one answer. */
int released_same(const struct result *a, const struct result *b);
/* "8.1.34" against "8.0.30" numerically: <0, 0, >0. */
int released_version_cmp(const char *a, const char *b);
/*
 * rs->refs[0..rs->n) filled (name, php_version, r): sort them by version,
 * set each one's roles against the case's results res[0..nbuilds) (names:
 * the builds by role, for candidates named in the summary with three or
 * more builds), group them and write the summary.
 */
void released_compute(struct released *rs, const struct result *res, int nbuilds, const char *const names[]);

#endif
