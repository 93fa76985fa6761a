/*
 * Unit tests for server/daemon/model/callgrind.c, printing TAP: the format's own
 * examples (valgrind's docs/cl-format), name and subposition compression,
 * recursion levels merged, malformed input; then three real dumps of the
 * "100 rows, 12 string keys each" workload (tests/fixtures/callgrind/):
 * the from-source 8.2.32, the same with keys-fastpath.patch, and Debian's
 * stripped 8.2.32, checked against callgrind_annotate's figures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
	printf("\n");
}

static const struct cg_func *find(const struct cg_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->funcs[i].name, name) == 0)
			return &p->funcs[i];
	return NULL;
}

static int costs(const struct cg_profile *p, const char *name, int64_t self, int64_t incl)
{
	const struct cg_func *f = find(p, name);
	return f && f->self == self && f->inclusive == incl;
}

static int parse(const char *text, struct cg_profile *p)
{
	char err[256];
	int rc = cg_parse(text, strlen(text), p, err, sizeof(err));
	if (rc < 0)
		printf("# %s\n", err);
	return rc;
}

/* The parse error of text, or "(parsed)". */
static const char *error_of(const char *text)
{
	static char err[256];
	struct cg_profile p;
	if (cg_parse(text, strlen(text), &p, err, sizeof(err)) == 0) {
		cg_release(&p);
		return "(parsed)";
	}
	return err;
}

static void spec_examples(void)
{
	struct cg_profile p;
	const char *plain = "# callgrind format\nevents: Instructions\n"
	                    "fl=file1.c\nfn=main\n16 20\ncfn=func1\ncalls=1 50\n16 400\n"
	                    "cfi=file2.c\ncfn=func2\ncalls=3 20\n16 400\n"
	                    "fn=func1\n51 100\ncfi=file2.c\ncfn=func2\ncalls=2 20\n51 300\n"
	                    "fl=file2.c\nfn=func2\n20 700\n";
	const char *compressed = "# callgrind format\nevents: Instructions\n"
	                         "fl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n16 400\n"
	                         "cfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\n"
	                         "fn=(2)\n51 100\ncfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\n"
	                         "fl=(2)\nfn=(3)\n20 700\n";
	const char *texts[] = { plain, compressed };
	for (int i = 0; i < 2; i++) {
		const char *what = i ? "compressed" : "plain";
		ok(parse(texts[i], &p) == 0, "the format's extended example parses (%s)", what);
		ok(p.n == 3 && strcmp(p.event, "Instructions") == 0, "%s: 3 functions, event Instructions",
		    what);
		ok(costs(&p, "main", 20, 820), "%s: main self 20, inclusive 820", what);
		ok(costs(&p, "func1", 100, 400), "%s: func1 self 100, inclusive 400", what);
		ok(costs(&p, "func2", 700, 700), "%s: func2 self 700, inclusive 700", what);
		ok(find(&p, "func2") && strcmp(find(&p, "func2")->file, "file2.c") == 0 &&
		        strcmp(find(&p, "func1")->file, "file1.c") == 0,
		    "%s: each function's file (cfi= names the callee's, fl= the function's)", what);
		ok(p.self_sum == 820 && p.summary == -1, "%s: self costs sum to 820, no summary", what);
		cg_release(&p);
	}

	/* Subposition compression, two positions, Ir not the first event, a summary. */
	const char *instr = "version: 1\npositions: instr line\nevents: Dr Ir\nsummary: 9 100\n"
	                    "ob=(1) /lib/x.so\nfl=(1) a.c\nfn=(1) f\n0x80001234 90 1 10\n+3 * 5 20\n+1 +1 6\n"
	                    "-4 -1 0 30\njump=2 0x80001240 91\njcnd=1 2 +2 *\n* * 0 40\n";
	ok(parse(instr, &p) == 0, "positions: instr line, relative subpositions, jumps");
	ok(strcmp(p.event, "Ir") == 0 && costs(&p, "f", 100, 100),
	    "Ir is counted wherever its column is: 100");
	ok(p.summary == 100 && find(&p, "f") && strcmp(find(&p, "f")->object, "/lib/x.so") == 0,
	    "summary: read in Ir's column; the object kept");
	cg_release(&p);

	/* Recursion levels: self summed, inclusive the outermost level's. */
	const char *rec = "events: Ir\nfl=(1) e.c\nfn=(1) zval\n1 10\ncfn=(2) array\ncalls=1 1\n1 100\n"
	                  "fn=(2)\n1 5\ncfn=(3) zval'2\ncalls=2 1\n1 95\n"
	                  "fn=(3)\n1 30\ncfn=(4) array'2\ncalls=2 1\n1 65\n"
	                  "fn=(4)\n1 25\ncfn=(3)\ncalls=2 1\n1 40\n"
	                  "fl=(2) ???\nfn=(5) 0x00000000001b45a0\n3 7\n";
	ok(parse(rec, &p) == 0, "recursion levels parse");
	ok(p.n == 3, "zval'2 and array'2 merge into zval and array (%zu functions)", p.n);
	ok(costs(&p, "zval", 40, 110), "zval: self 10 + 30, inclusive the outer level's 110");
	ok(costs(&p, "array", 30, 100), "array: self 5 + 25, inclusive 100");
	ok(find(&p, "0x00000000001b45a0") && find(&p, "0x00000000001b45a0")->file == NULL,
	    "a stripped function: its offset as the name, file ??? -> NULL");
	ok(cg_file_self(&p, "e.c") == 70 && cg_file_self(&p, "x/e.c") == -1,
	    "cg_file_self: 70 in e.c; none in x/e.c");
	cg_release(&p);

	ok(cg_file_matches("/src/ext/json/json_encoder.c", "ext/json/json_encoder.c") &&
	        cg_file_matches("json_encoder.c", "json_encoder.c") &&
	        !cg_file_matches("/src/ext/json/my_json_encoder.c", "json_encoder.c") &&
	        !cg_file_matches(NULL, "json_encoder.c"),
	    "cg_file_matches: at a path boundary only");
	ok(strcmp(cg_source_key("/check/work/main/.cache/php/trees/a5/src/ext/json/json_encoder.c"),
	       "ext/json/json_encoder.c") == 0 &&
	        strcmp(cg_source_key("/home/me/php-src/main/main.c"), "main/main.c") == 0 &&
	        strcmp(cg_source_key("/work/main/src/Zend/zend_hash.c"), "Zend/zend_hash.c") == 0 &&
	        strcmp(cg_source_key("???"), "???") == 0 && cg_source_key(NULL) == NULL,
	    "cg_source_key: from the last php-src top folder, wherever the tree is");
	ok(parse("", &p) < 0, "an empty file is not a dump");
}

static void malformed(void)
{
	struct {
		const char *text, *err;
	} cases[] = {
		{ "fn=a\n1 2\n", "line 2: a cost line before the events: line" },
		{ "events: Ir\n1 2\n", "line 2: a cost line before any fn=" },
		{ "events: Ir\nfn=(7)\n", "line 2: fn=(7) is used before it is defined" },
		{ "events: Ir\nfl=(3)\n", "line 2: fl=(3) is used before it is defined" },
		{ "events: Ir\nfn=f\ncalls=1 2\nfn=g\n", "line 4: calls= is not followed by its cost line" },
		{ "events: Ir\nfn=f\ncalls=1 2\n", "line 3: calls= is not followed by its cost line" },
		{ "events: Ir\nfn=f\n1 x\n", "line 3: a malformed cost line (positions: 1)" },
		{ "events: Ir\nfn=f\n1 99999999999999999999\n",
		    "line 3: a malformed cost line (positions: 1)" },
		{ "events: Ir\nfn=f\nhello world\n", "line 3: not a callgrind line: \"hello world\"" },
		{ "events: Ir\nxx=1\n", "line 2: not a callgrind line: \"xx=1\"" },
		{ "events:\n", "line 1: events: names no event" },
		{ "positions: instr bb line col\n", "line 1: positions: expected instr, bb and/or line" },
		{ "summary: 5\n", "line 1: a malformed summary: line" },
		{ "events: Ir\nfn=(1x) f\n", "line 2: fn=: a bad name id" },
		{ "# only a comment\n", "line 1: no events: line (not a callgrind file)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = error_of(cases[i].text);
		ok(strcmp(got, cases[i].err) == 0, "malformed %zu: \"%s\" (got \"%s\")", i, cases[i].err,
		    got);
	}
	/* A NUL inside a line (the text has a length, not a terminator). */
	struct cg_profile p;
	char err[128];
	const char nul[] = "events: Ir\nfn=f\n1 2\0\n";
	ok(cg_parse(nul, sizeof(nul) - 1, &p, err, sizeof(err)) < 0 && strstr(err, "line 3") != NULL,
	    "a NUL byte in a line is refused (%s)", err);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		rewind(f);
		if (n >= 0 && (b = malloc((size_t)n + 1)) != NULL)
			*len = fread(b, 1, (size_t)n, f);
	}
	fclose(f);
	return b;
}

static int load(const char *name, struct cg_profile *p)
{
	char path[256], err[256];
	size_t len = 0;
	snprintf(path, sizeof(path), "tests/fixtures/callgrind/%s", name);
	char *text = slurp(path, &len);
	if (!text) {
		printf("# cannot read %s (run from the repository's root)\n", path);
		return -1;
	}
	int rc = cg_parse(text, len, p, err, sizeof(err));
	if (rc < 0)
		printf("# %s: %s\n", name, err);
	free(text);
	return rc;
}

static void real_dumps(void)
{
	struct cg_profile src, fast, deb;
	const char *enc = "ext/json/json_encoder.c";

	/* The figures of callgrind_annotate --auto=no on the same files; it splits a
	 * function's self cost by inlined file (json_encoder.c 48,564,000 +
	 * zend_smart_str.h 11,773,200 for php_json_escape_string), we keep it whole. */
	ok(load("rows-12-keys-src.out", &src) == 0, "the from-source 8.2.32 dump parses");
	ok(src.summary == 141533600 && src.self_sum == src.summary,
	    "src: the self costs sum to summary: 141,533,600");
	ok(costs(&src, "zif_json_encode", 17400, 141533600),
	    "src: zif_json_encode (the toggle-collect function) is inclusive of everything");
	ok(costs(&src, "php_json_escape_string", 48564000 + 11773200, 66443200),
	    "src: php_json_escape_string self 60,337,200, inclusive 66,443,200");
	ok(find(&src, "php_json_encode_zval") && find(&src, "php_json_encode_zval")->inclusive == 141506000,
	    "src: php_json_encode_zval inclusive 141,506,000 (its outer level; zval'2 merged in)");
	ok(find(&src, "php_json_encode_array") &&
	        cg_file_matches(find(&src, "php_json_encode_array")->file, enc),
	    "src: php_json_encode_array is in %s", enc);
	ok(cg_file_self(&src, enc) == 92180600, "src: json_encoder.c's functions: 92,180,600 (got %lld)",
	    (long long)cg_file_self(&src, enc));

	ok(load("rows-12-keys-fastpath.out", &fast) == 0, "the keys-fastpath dump parses");
	ok(costs(&fast, "php_json_escape_string", 28895400, 31604000),
	    "keys-fastpath: php_json_escape_string does half the work (28,895,400 self)");
	ok(find(&fast, "php_json_encode_array") && find(&fast, "php_json_encode_array")->self == 42792000,
	    "keys-fastpath: php_json_encode_array copies the keys itself (42,792,000 self)");
	ok(cg_file_self(&fast, enc) < cg_file_self(&src, enc), "keys-fastpath: json_encoder.c costs less");
	ok(find(&fast, "zend_dtoa") && find(&src, "zend_dtoa") &&
	        find(&fast, "zend_dtoa")->self == find(&src, "zend_dtoa")->self,
	    "keys-fastpath: zend_dtoa (values) costs the same");

	ok(load("rows-12-keys-debian.out", &deb) == 0, "Debian's stripped 8.2.32 dump parses");
	ok(deb.self_sum == deb.summary && deb.summary == 148476000, "debian: self costs sum to 148,476,000");
	ok(cg_file_self(&deb, enc) == -1, "debian: no function has a source file: json_encoder.c is unknown");
	ok(find(&deb, "zend_dtoa") && find(&deb, "zend_dtoa")->file == NULL,
	    "debian: exported symbols resolve (zend_dtoa), without a file");
	ok(find(&deb, "0x00000000001b3e70") != NULL, "debian: static functions by their offset (0x1b3e70)");
	cg_release(&src);
	cg_release(&fast);
	cg_release(&deb);
}

int main(void)
{
	spec_examples();
	malformed();
	real_dumps();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
