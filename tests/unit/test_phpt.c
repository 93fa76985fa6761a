/*
 * Unit tests for server/daemon/model/phpt.c, printing TAP: the section grammar
 * and BORK reasons of run-tests.php 8.2, the EXPECT/EXPECTF/EXPECTREGEX
 * comparison and its normalisation, the .diff; then every file of the
 * php-src 8.2.32 source's ext/json/tests (the folder in $PHPCMP_PHPT_DIR,
 * which the Makefile gets from scripts/php-tests.sh).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phpt.h"
#include "tap.h"

static const char *parse_bork(const char *text)
{
	static char reason[PHPT_MAX_BORK + 8];
	struct phpt t;
	int rc = phpt_parse(&t, text, strlen(text), NULL, NULL);
	snprintf(reason, sizeof(reason), "%s", rc == 0 ? "(ok)" : t.bork);
	phpt_release(&t);
	return reason;
}

static void borks(const char *text, const char *reason, const char *what)
{
	const char *got = parse_bork(text);
	ok(strcmp(got, reason) == 0, "%s: BORK \"%s\" (got \"%s\")", what, reason, got);
}

static void grammar(void)
{
	struct phpt t;
	const char *good = "--TEST--\n  A name  \n--INI--\nprecision=14\n--FILE--\n<?php echo 1; ?>\n"
	                   "===DONE===\nignored after DONE\n--EXPECT--  trailing text on a header line\n1\n";
	ok(phpt_parse(&t, good, strlen(good), NULL, NULL) == 0, "a plain test parses");
	char *name = phpt_name(&t);
	ok(strcmp(name, "A name") == 0, "name is trim(--TEST--): \"%s\"", name);
	free(name);
	ok(strcmp(t.sec[PHPT_FILE].data, "<?php echo 1; ?>\n===DONE===\n") == 0,
	    "FILE stops after ===DONE===%s", "");
	ok(strcmp(t.sec[PHPT_INI].data, "precision=14\n") == 0, "INI keeps its lines with their newlines");
	ok(strcmp(t.sec[PHPT_EXPECT].data, "1\n") == 0, "text after a header's closing -- is dropped");
	ok(!phpt_has(&t, PHPT_SKIPIF), "absent section is absent");
	phpt_release(&t);

	const char *eof = "--TEST--\nx\n--FILEEOF--\n<?php\necho 'a';\r\n\r\n--EXPECT--\na\n";
	ok(phpt_parse(&t, eof, strlen(eof), NULL, NULL) == 0, "FILEEOF parses");
	ok(phpt_has(&t, PHPT_FILE) && !phpt_has(&t, PHPT_FILEEOF) &&
	        strcmp(t.sec[PHPT_FILE].data, "<?php\necho 'a';") == 0,
	    "FILEEOF becomes FILE without its trailing newlines");
	phpt_release(&t);

	borks("", "cannot read test", "an empty file");
	borks("--TEXT--\n", "tests must start with --TEST--", "a first line that is not --TEST--");
	borks(
	    "--TEST--\nx\n--FOO--\n--FILE--\n--EXPECT--\n", "Unknown section \"FOO\"", "an unknown section");
	borks("--TEST--\nx\n--FILE--\na\n--FILE--\nb\n--EXPECT--\n", "duplicated FILE section",
	    "a duplicated section");
	ok(strcmp(parse_bork("--TEST--\nx\n--FILE--\n--FILE--\nb\n--EXPECT--\n"), "(ok)") == 0,
	    "an empty section may be repeated (run-tests only refuses a non-empty one)");
	borks("--TEST--\nx\n--FILE--\n0--FILE--\n--EXPECT--\n", "(ok)",
	    "a section holding a line \"0--FILE--\" is text");
	borks("--TEST--\nx\n--EXPECT--\n", "missing section --FILE--", "no FILE");
	borks("--TEST--\nx\n--FILE--\n--FILEEOF--\n--EXPECT--\n", "missing section --FILE--",
	    "FILE and FILEEOF");
	borks("--TEST--\nx\n--FILE--\n", "missing section --EXPECT--, --EXPECTF-- or --EXPECTREGEX--",
	    "no EXPECT");
	borks("--TEST--\nx\n--FILE--\n--EXPECT--\n--EXPECTF--\n",
	    "missing section --EXPECT--, --EXPECTF-- or --EXPECTREGEX--", "two kinds of EXPECT");
	borks("--TEST--\nx\n--REDIRECTTEST--\nreturn [];\n", "(ok)", "REDIRECTTEST needs no FILE nor EXPECT");
	borks("--TEST--\nx\n--FILE_EXTERNAL--\nf.inc\n--EXPECT--\n", "could not load --FILE_EXTERNAL-- f.inc",
	    "FILE_EXTERNAL without a loader");
	borks("--TEST--\nx\n--PHPDBG--\nr\n--EXPECT--\n", "(ok)", "PHPDBG needs no FILE");
	borks("--TEST--\nx\n--test--\n--FILE--\n--EXPECT--\n", "(ok)", "a lower-case --test-- line is text");
	ok(strcmp(parse_bork("--TEST--\nx\n--TEST--\ny\n--FILE--\n--EXPECT--\n"),
	       "duplicated TEST section") == 0 &&
	        strcmp(parse_bork("--TEST--\n--TEST--\n--FILE--\n--EXPECT--\n"),
	            "Unknown section \"TEST\"") == 0,
	    "a second TEST section");
}

static int compare(const char *kind_and_text, const char *out)
{
	char buf[4096];
	struct phpt t;
	snprintf(buf, sizeof(buf), "--TEST--\nt\n--FILE--\n<?php\n%s", kind_and_text);
	if (phpt_parse(&t, buf, strlen(buf), NULL, NULL) < 0) {
		printf("# bork: %s\n", t.bork);
		phpt_release(&t);
		return -1;
	}
	int m = phpt_compare(&t, out, strlen(out), NULL, 0);
	phpt_release(&t);
	return m;
}

static void matches(const char *sec, const char *out, int want, const char *what)
{
	int got = compare(sec, out);
	ok(got == want, "%s: %s", what, want ? "PASS" : "FAIL");
}

static void matching(void)
{
	matches("--EXPECT--\nabc\n", "abc", 1, "EXPECT equal");
	matches("--EXPECT--\nabc\n", " \n\tabc \r\n\n\0", 1, "output trimmed at both ends (PHP trim's list)");
	matches("--EXPECT--\na\r\nb\r\n", "a\nb", 1, "\\r\\n in EXPECT is \\n");
	matches("--EXPECT--\na\nb\n", "a\r\nb", 1, "\\r\\n in the output is \\n");
	matches("--EXPECT--\na \nb\n", "a\nb", 0, "inner trailing spaces count");
	matches("--EXPECT--\na\rb\n", "a\nb", 0, "a lone \\r stays");
	matches("--EXPECT--\n", "", 1, "empty EXPECT, empty output");
	matches("--EXPECTF--\nline %d of %s\n", "line 12 of /tmp/x.php", 1, "EXPECTF %d %s");
	matches("--EXPECTF--\nline %d\n", "line -1", 0, "%d is unsigned");
	matches("--EXPECTF--\nline %i\n", "line -1", 1, "%i is signed");
	matches("--EXPECTF--\n%s\n", "a\nb", 0, "%s stops at a newline");
	matches("--EXPECTF--\n%a\n", "a\nb", 1, "%a crosses lines");
	matches("--EXPECTF--\nx%Ay\n", "xy", 1, "%A may be empty");
	matches("--EXPECTF--\nx%ay\n", "xy", 0, "%a may not");
	matches("--EXPECTF--\nx%Sy\n", "xy", 1, "%S may be empty");
	matches("--EXPECTF--\nx%wy\n", "x \t y", 1, "%w");
	matches("--EXPECTF--\n%x\n", "deadBEEF", 1, "%x");
	matches("--EXPECTF--\n%f %f %f\n", "1.5 -.5 2E+10", 1, "%f");
	matches("--EXPECTF--\n%f\n", "1.", 0, "%f wants digits after a point");
	matches("--EXPECTF--\n%c%c\n", "ab", 1, "%c");
	matches("--EXPECTF--\n%e\n", "/", 1, "%e is the directory separator");
	matches("--EXPECTF--\na%0b\n", "a", 0, "%0 is a NUL byte (which the output lacks)");
	matches("--EXPECTF--\n%r(ab)+%r!\n", "ababab!", 1, "%r...%r is a regex");
	matches("--EXPECTF--\n%r\\d+%r.%d\n", "12.5", 1, "placeholders are still replaced after %r");
	matches("--EXPECTF--\n%r%d+%r\n", "12", 1, "... even inside %r...%r");
	matches("--EXPECTF--\n%rab\n", "%rab", 1, "an unbalanced %r is literal");
	matches("--EXPECTF--\n1.5 (x) [y] *?+ $^ {2} | a-b # c/d\n", "1.5 (x) [y] *?+ $^ {2} | a-b # c/d", 1,
	    "regex characters in EXPECTF are literal");
	matches("--EXPECTF--\n1.5\n", "135", 0, "'.' is literal in EXPECTF");
	matches("--EXPECTF--\n%%d\n", "%5", 1, "%% is not special: a '%' then %d");
	matches("--EXPECTF--\n%q\n", "%q", 1, "an unknown %q is literal");
	matches("--EXPECTF--\n%r/%r\n", "/", 0, "a '/' inside %r ends PHP's pattern: preg_match fails");
	matches("--EXPECTREGEX--\na.c\\d\n", "abc1", 1, "EXPECTREGEX");
	matches("--EXPECTREGEX--\na.c\n", "a\nc", 1, "EXPECTREGEX with /s: '.' matches a newline");
	matches("--EXPECTREGEX--\nabc\n", "abcd", 0, "EXPECTREGEX is anchored");
	matches("--EXPECTREGEX--\n(\n", "(", 0, "a bad regex fails");
	matches("--EXPECTREGEX--\n(a+)+b\n", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0,
	    "catastrophic backtracking stops at PHP's backtrack limit: FAIL");

	size_t n;
	char *re = phpt_expectf_regex("a.%s/%r[0-9]%r", 14, &n);
	ok(strcmp(re, "a\\.[^\\r\\n]+\\/([0-9])") == 0, "EXPECTF regex: %s", re);
	free(re);

	/* a stored case's --EXPECTF-- alone (casefile.c, verdict_expected) */
	ok(phpt_expectf_match("[%d,%f,\"%s\"]", 12, "[8,0.10000000000000001,\"ab\"]", 28) == 1,
	    "phpt_expectf_match: %%d %%f %%s match");
	ok(phpt_expectf_match("[%d]", 4, "[1,2]", 5) == 0,
	    "phpt_expectf_match: anchored, [%%d] is not [1,2]");
	ok(phpt_expectf_match("{%A}\r\n", 6, " {\"a\":1}\n", 9) == 1,
	    "phpt_expectf_match: both trimmed and \\r\\n-normalised, %%A");
	ok(phpt_expectf_match("%r[0-9]+%r", 10, "123", 3) == 1 && phpt_expectf_match("%r(%r", 5, "(", 1) == 0,
	    "phpt_expectf_match: %%r...%%r a regex; one that does not compile does not match");
}

static char *diff_of(const char *sec, const char *out)
{
	char buf[4096];
	struct phpt t;
	size_t n;
	snprintf(buf, sizeof(buf), "--TEST--\nt\n--FILE--\n<?php\n%s", sec);
	if (phpt_parse(&t, buf, strlen(buf), NULL, NULL) < 0) {
		phpt_release(&t);
		return strdup("(bork)");
	}
	char *d = phpt_diff(&t, out, strlen(out), &n);
	phpt_release(&t);
	return d;
}

static void diffs(const char *sec, const char *out, const char *want, const char *what)
{
	char *d = diff_of(sec, out);
	ok(d && strcmp(d, want) == 0, "diff: %s", what);
	if (d && strcmp(d, want) != 0)
		printf("# got:\n%s\n# want:\n%s\n", d, want);
	free(d);
}

/* Wanted diffs are run-tests.php 8.2.32's generate_diff() on the same
 * inputs (its functions run under Debian's php8.2-cli). */
static void diffing(void)
{
	diffs("--EXPECT--\na\nb\nc\n", "a\nB\nc", "     a\n002+ B\n002- b\n     c", "one line changed");
	diffs("--EXPECT--\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10",
	    "--\n     3\n     4\n     5\n006+ six\n006- 6\n     7\n     8\n     9\n--",
	    "three lines of context, '--' where cut");
	diffs("--EXPECT--\na\nb\n", "a\nb\nc", "     a\n     b\n003+ c", "a line added at the end");
	diffs("--EXPECTF--\nint(%d)\nstring(%d) \"%s\"\n", "int(1)\nstring(3) \"ab\nc\"",
	    "     int(%d)\n002+ string(3) \"ab\n002- string(%d) \"%s\"\n003+ c\"",
	    "EXPECTF lines compared as regexes");
	diffs("--EXPECT--\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n",
	    "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nY\n15\n16",
	    "     1\n     2\n003+ X\n003- 3\n     4\n     5\n     6\n--\n     11\n     12\n     13\n014+ Y\n014- 14\n     15\n"
	    "     16",
	    "two changes far apart");
}

/* ---- the real files ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(PHPT_MAX_FILE + 1);
	*len = fread(buf, 1, PHPT_MAX_FILE + 1, f);
	fclose(f);
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An output an EXPECTF text should match: each placeholder given a value
 * of its kind. */
static char *instance_of(const char *w)
{
	size_t n = strlen(w), k = 0;
	char *o = malloc(n * 8 + 1);
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '%' && i + 1 < n && strchr("sSaAwidxfce", w[i + 1])) {
			const char *v = "";
			switch (w[i + 1]) {
			case 's':
			case 'S':
			case 'a':
			case 'A':
				v = "/tmp/x.php";
				break;
			case 'w':
				v = " ";
				break;
			case 'i':
				v = "-3";
				break;
			case 'd':
				v = "42";
				break;
			case 'x':
				v = "7f";
				break;
			case 'f':
				v = "1.5";
				break;
			case 'c':
				v = "z";
				break;
			case 'e':
				v = "/";
				break;
			}
			memcpy(o + k, v, strlen(v));
			k += strlen(v);
			i++;
		} else {
			o[k++] = w[i];
		}
	}
	o[k] = '\0';
	return o;
}

static void real_files(void)
{
	const char *dir = getenv("PHPCMP_PHPT_DIR");
	char path[4096];
	if (!dir || !*dir) {
		ok(0, "PHPCMP_PHPT_DIR names the 8.2.32 source's ext/json/tests (scripts/php-tests.sh)");
		return;
	}
	DIR *d = opendir(dir);
	ok(d != NULL, "%s opens", dir);
	if (!d)
		return;
	char *names[512];
	size_t nn = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nn < 512) {
		size_t l = strlen(e->d_name);
		if (l > 5 && strcmp(e->d_name + l - 5, ".phpt") == 0)
			names[nn++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof(*names), by_name);
	ok(nn == 76, "76 .phpt files in ext/json/tests (got %zu)", nn);

	int borked = 0, counts[PHPT_NSECTIONS] = { 0 }, self_pass = 0, crlf_pass = 0, mutant_fail = 0,
	    diff_ok = 0;
	int expectf = 0, expectf_pass = 0;
	for (size_t i = 0; i < nn; i++) {
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		char *buf = slurp(path, &len);
		struct phpt t;
		if (!buf || phpt_parse(&t, buf, len, NULL, NULL) < 0) {
			printf("# %s: BORK %s\n", names[i], t.bork);
			borked++;
			phpt_release(&t);
			free(buf);
			continue;
		}
		for (int s = 0; s < PHPT_NSECTIONS; s++)
			counts[s] += phpt_has(&t, s);
		const struct phpt_text *x = phpt_has(&t, PHPT_EXPECT) ? &t.sec[PHPT_EXPECT]
		                                                      : &t.sec[PHPT_EXPECTF];
		size_t wl;
		char *w = phpt_normalise(x->data, x->len, &wl);
		char *out = phpt_has(&t, PHPT_EXPECT) ? strdup(w) : instance_of(w);
		if (phpt_has(&t, PHPT_EXPECTF))
			expectf++;
		/* the expectation itself (placeholders filled in) passes ... */
		if (phpt_compare(&t, out, strlen(out), NULL, 0) == PHPT_MATCH_PASS) {
			self_pass++;
			expectf_pass += phpt_has(&t, PHPT_EXPECTF);
		} else {
			printf("# %s: its own expectation does not pass\n", names[i]);
		}
		/* ... with \r\n line ends and trailing blank lines too ... */
		char *crlf = malloc(strlen(out) * 2 + 8);
		size_t k = 0;
		for (const char *p = out; *p; p++) {
			if (*p == '\n')
				crlf[k++] = '\r';
			crlf[k++] = *p;
		}
		memcpy(crlf + k, "\r\n\r\n", 5);
		crlf_pass += phpt_compare(&t, crlf, strlen(crlf), NULL, 0) == PHPT_MATCH_PASS;
		/* ... and one more line in the middle fails, the diff naming it */
		size_t ol = strlen(out);
		const char *mid = memchr(out + ol / 2, '\n', ol - ol / 2);
		size_t at = mid ? (size_t)(mid - out) : ol;
		char *mut = malloc(ol + 32);
		memcpy(mut, out, at);
		memcpy(mut + at, "\nphpcmp-extra-line", 18);
		memcpy(mut + at + 18, out + at, ol - at + 1);
		if (phpt_compare(&t, mut, strlen(mut), NULL, 0) == PHPT_MATCH_FAIL)
			mutant_fail++;
		else
			printf("# %s: a mutated output passes\n", names[i]);
		size_t dl;
		char *df = phpt_diff(&t, mut, strlen(mut), &dl);
		if (df && strstr(df, "+ phpcmp-extra-line"))
			diff_ok++;
		else
			printf("# %s: diff lacks the extra line:\n%s\n", names[i], df ? df : "(null)");
		free(df);
		free(mut);
		free(crlf);
		free(out);
		free(w);
		phpt_release(&t);
		free(buf);
	}
	ok(borked == 0, "no file is BORK (%d)", borked);
	ok(counts[PHPT_TEST] == 76 && counts[PHPT_FILE] == 76, "76 TEST and FILE sections");
	ok(counts[PHPT_EXPECT] == 63 && counts[PHPT_EXPECTF] == 13, "63 EXPECT, 13 EXPECTF (got %d, %d)",
	    counts[PHPT_EXPECT], counts[PHPT_EXPECTF]);
	ok(counts[PHPT_INI] == 10 && counts[PHPT_SKIPIF] == 5, "10 INI, 5 SKIPIF (got %d, %d)",
	    counts[PHPT_INI], counts[PHPT_SKIPIF]);
	ok(self_pass == 76, "each file's own expectation passes (%d of 76; EXPECTF %d of %d)", self_pass,
	    expectf_pass, expectf);
	ok(crlf_pass == 76, "... with \\r\\n line ends and trailing blank lines (%d)", crlf_pass);
	ok(mutant_fail == 76, "an extra line in the middle fails each (%d)", mutant_fail);
	ok(diff_ok == 76, "... and its diff shows the line as added (%d)", diff_ok);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
}

int main(void)
{
	grammar();
	matching();
	diffing();
	real_files();
	return tap_done();
}
