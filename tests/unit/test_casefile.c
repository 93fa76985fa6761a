/*
 * Unit tests for server/daemon/model/casefile.c, printing TAP.  The last part parses,
 * formats and re-parses every stored case under the cases folder (argv[1],
 * default "cases", relative to the repository root where make runs it).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "tap.h"

static int streq_null(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static int case_equal(const struct case_spec *a, const struct case_spec *b)
{
	return streq_null(a->title, b->title) && streq_null(a->code, b->code) &&
	    streq_null(a->setup, b->setup) && streq_null(a->expect, b->expect) && a->expectf == b->expectf &&
	    a->flags == b->flags && a->depth == b->depth && a->iterations == b->iterations;
}

static int case_is_clean(const struct case_spec *c)
{
	return !c->title && !c->code && !c->setup && !c->expect && !c->expectf && !c->source &&
	    c->flags == 0 && c->depth == 512 && c->iterations == 0;
}

/* Parsing `text` fails, with `msg` somewhere in the error, leaving c clean. */
static void rejects(const char *name, const char *text, size_t len, const char *msg)
{
	struct case_spec c;
	char err[512] = "", what[800];
	int rc = casefile_parse(text, len, &c, err, sizeof(err));

	snprintf(what, sizeof(what), "%s: rejected with \"%s\" (err: %s)", name, msg, err);
	ok(rc == -1 && strstr(err, msg) != NULL && case_is_clean(&c), what);
	case_release(&c);
}

#define REJECTS(name, text, msg) rejects(name, text, strlen(text), msg)

/* Parse, format, parse again: the same case both times. */
static int round_trip(const char *text, size_t len, char *err, size_t errsize)
{
	struct case_spec a, b;
	char *out, *out2;
	int good;

	if (casefile_parse(text, len, &a, err, errsize) < 0)
		return 0;
	out = casefile_format(&a);
	if (!out) {
		snprintf(err, errsize, "format refused it");
		case_release(&a);
		return 0;
	}
	if (casefile_parse(out, strlen(out), &b, err, errsize) < 0) {
		free(out);
		case_release(&a);
		return 0;
	}
	good = case_equal(&a, &b);
	out2 = casefile_format(&b);
	good = good && out2 && strcmp(out, out2) == 0; /* and formatting is stable */
	if (!good)
		snprintf(err, errsize, "fields differ after the round trip");
	free(out);
	free(out2);
	case_release(&a);
	case_release(&b);
	return good;
}

static void test_parse(void)
{
	struct case_spec c;
	char err[512];
	const char *t;

	t = "--TEST--\nminimal\n--VALUE--\n[1, 2]\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && strcmp(c.title, "minimal") == 0 &&
	        strcmp(c.code, "[1, 2]") == 0 && c.setup == NULL && c.expect == NULL && c.flags == 0 &&
	        c.depth == 512 && c.iterations == 0 && c.source == NULL,
	    "minimal case: title and value, defaults for the rest");
	case_release(&c);
	ok(case_is_clean(&c), "case_release leaves an empty case");

	t = "--TEST--\n  every section  \n--FLAGS--\nJSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES\n"
	    "--DEPTH--\n 64 \n--MEASURE--\n200\n--SETUP--\nclass A { public $x = 1; }\n\n"
	    "--VALUE--\n$a = new A;\nreturn $a;\n--EXPECT--\n{\"x\":1}\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && strcmp(c.title, "every section") == 0 &&
	        c.flags == 192 && c.depth == 64 && c.iterations == 200 &&
	        strcmp(c.setup, "class A { public $x = 1; }\n") == 0 &&
	        strcmp(c.code, "$a = new A;\nreturn $a;") == 0 && strcmp(c.expect, "{\"x\":1}") == 0,
	    "every section; only the last newline of a body is dropped");
	case_release(&c);

	t = "--VALUE--\nnull\n--TEST--\norder is free\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && strcmp(c.code, "null") == 0 &&
	        strcmp(c.title, "order is free") == 0,
	    "sections may come in any order");
	case_release(&c);

	t = "--TEST--\nno final newline\n--VALUE--\n1\n--EXPECT--\n1";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && strcmp(c.expect, "1") == 0,
	    "a file without a final newline");
	case_release(&c);

	t = "--TEST--\r\ncrlf\r\n--FLAGS--  \r\nJSON_HEX_TAG\r\n--VALUE--\r\n'<'\r\n--EXPECT--\r\n\"\\u003C\"\r\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && strcmp(c.title, "crlf") == 0 &&
	        c.flags == 1 && strcmp(c.code, "'<'") == 0 && strcmp(c.expect, "\"\\u003C\"") == 0,
	    "CRLF line ends and trailing blanks on a header line");
	case_release(&c);

	t = "--TEST--\nempty expect and setup\n--SETUP--\n--VALUE--\n''\n--EXPECT--\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && c.setup == NULL && c.expect &&
	        c.expect[0] == '\0',
	    "an empty --SETUP-- is none, an empty --EXPECT-- expects \"\"");
	case_release(&c);

	t = "--TEST--\nlookalikes\n--VALUE--\n$x = '--not a header--';\n--$y;\n--lower--\nreturn '-- X --';\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 &&
	        strcmp(c.code, "$x = '--not a header--';\n--$y;\n--lower--\nreturn '-- X --';") == 0,
	    "lines that only resemble headers stay in the body");
	case_release(&c);

	t = "--TEST--\nbytes\n--VALUE--\n\"\\xC3\\x28 \xc3\xa9\"\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 &&
	        strcmp(c.code, "\"\\xC3\\x28 \xc3\xa9\"") == 0,
	    "code is kept byte for byte (escapes and raw UTF-8)");
	case_release(&c);

	t = "--TEST--\nflags as a number\n--FLAGS--\n8388608\n--DEPTH--\n2147483647\n--VALUE--\n1\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && c.flags == 8388608 &&
	        c.depth == 2147483647L,
	    "numeric flags with an unknown bit; the largest depth");
	case_release(&c);

	t = "--TEST--\nexpectf\n--VALUE--\n[PHP_INT_SIZE, 'x']\n--EXPECTF--\n[%d,\"%s\"]\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && c.expectf == 1 &&
	        strcmp(c.expect, "[%d,\"%s\"]") == 0,
	    "--EXPECTF--: the pattern in expect, expectf set");
	case_release(&c);
	t = "--TEST--\nexpect\n--VALUE--\n1\n--EXPECT--\n%d\n";
	ok(casefile_parse(t, strlen(t), &c, err, sizeof(err)) == 0 && c.expectf == 0 &&
	        strcmp(c.expect, "%d") == 0,
	    "--EXPECT--: %%d is itself, expectf not set");
	case_release(&c);
}

static void test_errors(void)
{
	char *big;
	size_t n;

	REJECTS("empty file", "", "missing --TEST--");
	REJECTS("text before the first section", "hello\n--TEST--\nx\n--VALUE--\n1\n",
	    "line 1: text before the first section");
	REJECTS("blank line before the first section", "\n--TEST--\nx\n--VALUE--\n1\n",
	    "line 1: text before the first section");
	REJECTS("unknown section", "--TEST--\nx\n--FILE--\n<?php echo 1;\n--VALUE--\n1\n",
	    "line 3: unknown section --FILE--");
	REJECTS("duplicate section", "--TEST--\nx\n--FLAGS--\n0\n--FLAGS--\n1\n--VALUE--\n1\n",
	    "line 5: duplicate section --FLAGS-- (first at line 3)");
	REJECTS("missing --TEST--", "--VALUE--\n1\n", "missing --TEST-- section");
	REJECTS("both --EXPECT-- and --EXPECTF--",
	    "--TEST--\nx\n--VALUE--\n1\n--EXPECT--\n1\n--EXPECTF--\n%d\n",
	    "line 7: --EXPECTF-- beside --EXPECT-- (line 5): give one of them");
	REJECTS("missing --VALUE--", "--TEST--\nx\n--EXPECT--\n1\n", "missing --VALUE-- section");
	REJECTS("empty --TEST--", "--TEST--\n  \n--VALUE--\n1\n", "line 1: --TEST-- is empty");
	REJECTS(
	    "two-line --TEST--", "--TEST--\none\ntwo\n--VALUE--\n1\n", "line 2: --TEST-- must be one line");
	REJECTS("unknown flag", "--TEST--\nx\n--FLAGS--\nJSON_HEX_TAG|JSON_NOPE\n--VALUE--\n1\n",
	    "line 4: --FLAGS--: unknown flag \"JSON_NOPE\"");
	REJECTS(
	    "empty --FLAGS--", "--TEST--\nx\n--FLAGS--\n\n--VALUE--\n1\n", "line 4: --FLAGS--: empty flags");
	REJECTS("negative flags", "--TEST--\nx\n--FLAGS--\n-1\n--VALUE--\n1\n", "--FLAGS--: negative");
	REJECTS("depth 0", "--TEST--\nx\n--DEPTH--\n0\n--VALUE--\n1\n",
	    "line 4: --DEPTH-- must be an integer from 1 to 2147483647, got \"0\"");
	REJECTS(
	    "negative depth", "--TEST--\nx\n--DEPTH--\n-5\n--VALUE--\n1\n", "--DEPTH-- must be an integer");
	REJECTS("depth not a number", "--TEST--\nx\n--DEPTH--\nabc\n--VALUE--\n1\n", "got \"abc\"");
	REJECTS("depth too large", "--TEST--\nx\n--DEPTH--\n2147483648\n--VALUE--\n1\n", "--DEPTH-- must be");
	REJECTS("depth huge", "--TEST--\nx\n--DEPTH--\n99999999999999999999999\n--VALUE--\n1\n",
	    "--DEPTH-- must be");
	REJECTS("empty depth", "--TEST--\nx\n--DEPTH--\n--VALUE--\n1\n", "--DEPTH-- must be");
	REJECTS("depth 1.5", "--TEST--\nx\n--DEPTH--\n1.5\n--VALUE--\n1\n", "--DEPTH-- must be");
	REJECTS("measure 0", "--TEST--\nx\n--MEASURE--\n0\n--VALUE--\n1\n",
	    "line 4: --MEASURE-- must be an iteration count from 1 to 1000000");
	REJECTS(
	    "measure too large", "--TEST--\nx\n--MEASURE--\n1000001\n--VALUE--\n1\n", "--MEASURE-- must be");
	REJECTS("empty --VALUE--", "--TEST--\nx\n--VALUE--\n", "line 3: --VALUE-- is empty");
	REJECTS("blank --VALUE--", "--TEST--\nx\n--VALUE--\n  \n\t\n--EXPECT--\n1\n",
	    "line 3: --VALUE-- is empty");
	rejects("NUL byte", "--TEST--\nx\0y\n--VALUE--\n1\n", sizeof("--TEST--\nx\0y\n--VALUE--\n1\n") - 1,
	    "line 2: NUL byte");

	/* Sizes: a title, code and setup over their limits, a file over its. */
	n = MAX_BODY_SIZE + 64;
	big = malloc(n + 1);
	if (!big)
		exit(99);
	memcpy(big, "--TEST--\n", 9);
	memset(big + 9, 't', MAX_TITLE_SIZE + 1);
	strcpy(big + 9 + MAX_TITLE_SIZE + 1, "\n--VALUE--\n1\n");
	REJECTS("title too long", big, "line 2: --TEST-- is 513 bytes, over the 512-byte limit");

	memcpy(big, "--TEST--\nx\n--VALUE--\n", 21);
	memset(big + 21, '1', MAX_CODE_SIZE + 1);
	strcpy(big + 21 + MAX_CODE_SIZE + 1, "\n");
	REJECTS("value too large", big, "line 3: --VALUE-- is 262145 bytes, over the 262144-byte limit");
	big[21 + MAX_CODE_SIZE] = '\0';
	strcat(big, "\n");
	{
		struct case_spec c;
		char err[256];

		ok(casefile_parse(big, strlen(big), &c, err, sizeof(err)) == 0 &&
		        strlen(c.code) == MAX_CODE_SIZE,
		    "value of exactly the limit is accepted");
		case_release(&c);
	}

	memcpy(big, "--TEST--\nx\n--SETUP--\n", 21);
	memset(big + 21, '/', MAX_CODE_SIZE + 1);
	strcpy(big + 21 + MAX_CODE_SIZE + 1, "\n--VALUE--\n1\n");
	REJECTS("setup too large", big, "line 3: --SETUP-- is 262145 bytes, over the 262144-byte limit");

	memcpy(big, "--TEST--\nx\n--VALUE--\n1\n--EXPECT--\n", 34);
	memset(big + 34, 'e', n - 34);
	big[n] = '\0';
	REJECTS("file too large", big, "case file is 1048640 bytes, over the 1048576-byte limit");
	free(big);
}

static void test_format(void)
{
	struct case_spec c;
	char *out, err[256];

	case_init(&c);
	c.title = strdup("built in C");
	c.code = strdup("$a = [1];\nreturn $a;");
	c.setup = strdup("function f() {}\n");
	c.expect = strdup("[1]");
	c.flags = 1 | 128 | 4096;
	c.depth = 10;
	c.iterations = 5;
	c.source = strdup("cases/x.phpt");
	out = casefile_format(&c);
	ok(out &&
	        strcmp(out,
	            "--TEST--\nbuilt in C\n--FLAGS--\nJSON_HEX_TAG|JSON_PRETTY_PRINT|4096\n"
	            "--DEPTH--\n10\n--MEASURE--\n5\n--SETUP--\nfunction f() {}\n\n"
	            "--VALUE--\n$a = [1];\nreturn $a;\n--EXPECT--\n[1]\n") == 0,
	    "format writes every section in order, flags by name, unknown bits as a number");
	ok(out && round_trip(out, strlen(out), err, sizeof(err)), "and that text round-trips");
	free(out);

	c.flags = 0;
	c.depth = 512;
	c.iterations = 0;
	free(c.setup);
	c.setup = NULL;
	free(c.expect);
	c.expect = NULL;
	out = casefile_format(&c);
	ok(out && strcmp(out, "--TEST--\nbuilt in C\n--VALUE--\n$a = [1];\nreturn $a;\n") == 0,
	    "defaults are left out");
	free(out);

	free(c.code);
	c.code = strdup("$x = 1;\n--EXPECT--\nreturn $x;");
	ok(casefile_format(&c) == NULL, "format refuses a body line that reads as a header");
	free(c.code);
	c.code = strdup("1\r");
	ok(casefile_format(&c) == NULL, "format refuses a body ending in CR");
	free(c.code);
	c.code = strdup(" \n ");
	ok(casefile_format(&c) == NULL, "format refuses blank code");
	free(c.code);
	c.code = NULL;
	ok(casefile_format(&c) == NULL, "format refuses a case without code");
	c.code = strdup("1");
	free(c.title);
	c.title = strdup("two\nlines");
	ok(casefile_format(&c) == NULL, "format refuses a multi-line title");
	free(c.title);
	c.title = strdup("--DEPTH--");
	ok(casefile_format(&c) == NULL, "format refuses a title that reads as a header (fuzz regression)");
	free(c.title);
	c.title = strdup("ok");
	c.flags = -1;
	ok(casefile_format(&c) == NULL, "format refuses negative flags");
	c.flags = 0;
	c.depth = 0;
	ok(casefile_format(&c) == NULL, "format refuses depth 0");
	c.depth = 512;
	c.expect = strdup("line\n--VALUE--");
	ok(casefile_format(&c) == NULL, "format refuses an expect line that reads as a header");
	case_release(&c);
	ok(case_is_clean(&c), "case_release frees every field");

	{
		/* clang-format off */
		static const char *const texts[] = {
			"--TEST--\nt\n--VALUE--\n1\n",
			"--TEST--\nt\n--VALUE--\n1\n\n\n--EXPECT--\n\n\n",
			"--TEST--\nt\n--VALUE--\n'x'\n--EXPECT--\n",
			"--TEST--\nt\n--VALUE--\n  indented  \n",
			"--TEST--\r\nt\r\n--VALUE--\r\n1\r\n",
			"--TEST--\nt\n--VALUE--\n[1.5]\n--EXPECTF--\n[%f]\n",
		};
		/* clang-format on */
		int good = 1;

		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
			if (!round_trip(texts[i], strlen(texts[i]), err, sizeof(err)))
				good = 0;
		ok(good, "blank lines, empty expect, indentation, CRLF and --EXPECTF-- round-trip");
	}
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		*len = fread(buf, 1, (size_t)n, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

static int stored_total, stored_measured;

static void test_stored_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent **names = NULL;
	int n;

	if (!d)
		return;
	closedir(d);
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[4096], err[512], what[4700];
		const char *name = names[i]->d_name;
		size_t len = strlen(name), flen = 0;
		struct stat st;

		if (name[0] == '.' || snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
		    stat(path, &st) < 0) {
			free(names[i]);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < 4) {
			test_stored_dir(path, depth + 1);
		} else if (S_ISREG(st.st_mode) && len > 5 && strcmp(name + len - 5, ".phpt") == 0) {
			char *text = read_all(path, &flen);
			struct case_spec c;

			err[0] = '\0';
			if (text && casefile_parse(text, flen, &c, err, sizeof(err)) == 0) {
				stored_measured += c.iterations == 200;
				case_release(&c);
			}
			snprintf(what, sizeof(what), "%s parses, formats and parses back the same%s%s", path,
			    err[0] ? ": " : "", err);
			ok(text && round_trip(text, flen, err, sizeof(err)), what);
			stored_total++;
			free(text);
		}
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "cases";
	char what[256];

	test_parse();
	test_errors();
	test_format();
	test_stored_dir(dir, 0);
	snprintf(what, sizeof(what),
	    "%s holds at least 40 cases (%d) and the 11 workloads measured 200x (%d)", dir, stored_total,
	    stored_measured);
	ok(stored_total >= 40 && stored_measured >= 11, what);
	return tap_done();
}
