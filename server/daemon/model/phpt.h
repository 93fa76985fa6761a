/*
 * php-src's .phpt test files, read and judged as run-tests.php (8.2) does:
 * the section grammar and its BORK reasons, the normalisation of output
 * and expectation, --EXPECT-- / --EXPECTF-- / --EXPECTREGEX-- matching
 * (PCRE2, as PHP's preg_match), and run-tests' .diff.  Pure: no PHP, no
 * files except through the caller's loader for the *_EXTERNAL sections.
 * Linked into the daemon; docs/phpt.md describes the semantics.
 */
#ifndef PHPCMP_PHPT_H
#define PHPCMP_PHPT_H

#include <stddef.h>

/* Every section run-tests.php 8.2 accepts (TestFile::ALLOWED_SECTIONS). */
enum phpt_section {
	PHPT_TEST,
	PHPT_EXPECT,
	PHPT_EXPECTF,
	PHPT_EXPECTREGEX,
	PHPT_EXPECTREGEX_EXTERNAL,
	PHPT_EXPECT_EXTERNAL,
	PHPT_EXPECTF_EXTERNAL,
	PHPT_EXPECTHEADERS,
	PHPT_POST,
	PHPT_POST_RAW,
	PHPT_GZIP_POST,
	PHPT_DEFLATE_POST,
	PHPT_PUT,
	PHPT_GET,
	PHPT_COOKIE,
	PHPT_ARGS,
	PHPT_FILE,
	PHPT_FILEEOF,
	PHPT_FILE_EXTERNAL,
	PHPT_REDIRECTTEST,
	PHPT_CAPTURE_STDIO,
	PHPT_STDIN,
	PHPT_CGI,
	PHPT_PHPDBG,
	PHPT_INI,
	PHPT_ENV,
	PHPT_EXTENSIONS,
	PHPT_SKIPIF,
	PHPT_XFAIL,
	PHPT_XLEAK,
	PHPT_CLEAN,
	PHPT_CREDITS,
	PHPT_DESCRIPTION,
	PHPT_CONFLICTS,
	PHPT_WHITESPACE_SENSITIVE,
	PHPT_FLAKY,
	PHPT_NSECTIONS
};

#define PHPT_MAX_FILE (4u << 20) /* a test file, and each external section */
#define PHPT_MAX_BORK 512

struct phpt_text {
	char *data; /* NUL-terminated copy (may hold NULs), malloc'd; NULL if absent */
	size_t len;
};

struct phpt {
	struct phpt_text sec[PHPT_NSECTIONS];
	char bork[PHPT_MAX_BORK]; /* why the test is BORK, or "" */
};

/*
 * Reads *_EXTERNAL sections: the file NAME next to the test (run-tests
 * strips ".." and trims it).  0 and a malloc'd copy in *data, or -1.
 */
typedef int (*phpt_loader)(void *ctx, const char *name, char **data, size_t *len);

/*
 * Split buf into sections and validate them as TestFile's constructor
 * does.  0, or -1 with t->bork set (a malformed test: BORK) or with
 * t->bork empty when out of memory.  Always phpt_release t afterwards.
 * load may be NULL: a test with an *_EXTERNAL section is then BORK.
 */
int phpt_parse(struct phpt *t, const char *buf, size_t len, phpt_loader load, void *ctx);
void phpt_release(struct phpt *t);

const char *phpt_section_name(enum phpt_section);
/* isset($sections[NAME]) */
int phpt_has(const struct phpt *t, enum phpt_section s);
/* !empty($sections[NAME]): present, not "" and not "0" */
int phpt_not_empty(const struct phpt *t, enum phpt_section s);
/* trim(--TEST--), malloc'd */
char *phpt_name(const struct phpt *t);
/* Whether a file's name or path names a test: it ends in .phpt, after at least one byte. */
int phpt_is_test_path(const char *path);

/*
 * run-tests' normalisation: PHP's trim() (" \t\n\r\0\x0B" at both ends),
 * then every "\r\n" becomes "\n".  malloc'd, NUL-terminated, *outlen set.
 */
char *phpt_normalise(const char *s, size_t len, size_t *outlen);

/*
 * The regular expression of an EXPECTF text (already trimmed and
 * normalised): literal parts preg_quote'd, %r...%r kept as groups, the
 * placeholders %e %s %S %a %A %w %i %d %x %f %c %0 replaced.  malloc'd.
 */
char *phpt_expectf_regex(const char *wanted, size_t len, size_t *outlen);

/* A test's outcome on one build: run-tests' own, then phpcmp's. */
enum phpt_status {
	PS_PASS,
	PS_FAIL,
	PS_SKIP,
	PS_BORK,
	PS_XFAIL,
	PS_XPASS,
	PS_CRASH,
	PS_TIMEOUT,
	PS_ERROR,        /* phpcmp could not run it (a worker that cannot start) */
	PS_MEMORY_ERROR, /* a sanitizer build reported a memory error, whatever it printed */
	PS_COUNT
};
/* "PASS" .. "XPASS", "crash", "timeout", "error", "memory-error". */
const char *phpt_status_name(enum phpt_status);
/* The inverse: the status, or -1 for a name that is none. */
int phpt_status_parse(const char *name);

enum phpt_match {
	PHPT_MATCH_FAIL = 0,
	PHPT_MATCH_PASS = 1,
};

/*
 * Compare a test's raw output with its --EXPECT(F|REGEX)-- after the
 * normalisation above: PASS or FAIL.  A regex that does not compile or
 * whose match errors (PHP's backtrack limit) is a FAIL, as preg_match's
 * false is in run-tests; why goes to err when given.
 */
enum phpt_match phpt_compare(const struct phpt *t, const char *out, size_t outlen, char *err, size_t errsize);
/*
 * An output against an --EXPECTF-- text alone, as phpt_compare judges a
 * test's: both trimmed and \r\n-normalised, the text's placeholders as
 * run-tests.php makes them (phpt_expectf_regex), PCRE2 with PHP's limits.
 * 1 it matches, 0 it does not (or the pattern does not compile), -1 out of
 * memory.  A stored case's --EXPECTF-- (casefile.c, verdict_expected).
 */
int phpt_expectf_match(const char *expectf, size_t len, const char *out, size_t outlen);

/*
 * run-tests' .diff of a failed test (generate_diff, 3 lines of context):
 * "NNN- expected" / "NNN+ actual" lines, regex lines compared as regexes.
 * malloc'd, NUL-terminated; NULL when out of memory.
 */
char *phpt_diff(const struct phpt *t, const char *out, size_t outlen, size_t *difflen);

/* preg_match('/^' . re . '$/s', subject) as PHP 8.2 runs it: 1, 0, or -1
 * (bad pattern or match error, message in err). */
int phpt_preg_match(
    const char *re, size_t relen, const char *subject, size_t sublen, char *err, size_t errsize);

#endif
