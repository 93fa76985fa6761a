/* Unit tests for the leaf library's small helpers: buf.c, clock.c, id.c,
 * base64.c, roles (result.c) and numbers for people (text.c), printing TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model.h"
#include "tap.h"

static void test_buf(void)
{
	struct buf b = BUF_INIT;
	char *p;
	size_t len;

	buf_adds(&b, "");
	ok(b.data != NULL && b.len == 0 && b.data[0] == '\0', "buf: an empty append leaves \"\"");
	buf_add(&b, "a\0b", 3);
	ok(b.len == 3 && memcmp(b.data, "a\0b", 4) == 0, "buf: bytes with a NUL, NUL-terminated");
	for (int i = 0; i < 1000; i++)
		buf_addf(&b, "%04d", i);
	ok(b.len == 3 + 4000 && strncmp(b.data + 3 + 4 * 999, "0999", 4) == 0 && b.data[b.len] == '\0',
	    "buf: grows over many appends, printf-style");
	buf_addf(&b, "%s", "");
	ok(b.len == 4003, "buf: an empty format adds nothing");
	{
		char big[5000];
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		buf_addf(&b, "[%s]", big);
		ok(b.len == 4003 + 5001 && b.data[b.len - 1] == ']',
		    "buf: a format longer than any fixed buffer");
	}
	p = buf_detach(&b, &len);
	ok(p != NULL && len == 9004 && b.data == NULL && b.len == 0, "buf: detach hands over the bytes");
	free(p);
	b.failed = 1;
	buf_adds(&b, "x");
	ok(b.data == NULL, "buf: after a failure appends do nothing");
	ok(buf_detach(&b, &len) == NULL && len == 0, "buf: detach of a failed buffer is NULL");
	{
		char *d = NULL;
		size_t cap = 0;
		ok(buf_grow(&d, &cap, 1) == 0 && cap >= 1, "buf_grow: first growth");
		ok(buf_grow(&d, &cap, (size_t)-1) < 0 && d != NULL,
		    "buf_grow: an impossible size fails, keeps the data");
		free(d);
	}
	buf_release(&b);
}

static void test_clock(void)
{
	double a = clock_ms(), b = clock_ms();
	ok(a > 0 && b >= a, "clock_ms: monotonic");
}

static void test_id(void)
{
	static const struct {
		const char *s;
		int64_t want;
	} cases[] = {
		{ "1", 1 },
		{ "5", 5 },
		{ "42", 42 },
		{ "9223372036854775807", INT64_MAX },
		{ "0", 0 },
		{ "01", 0 },
		{ "007", 0 },
		{ "+5", 0 },
		{ "-5", 0 },
		{ " 5", 0 },
		{ "5 ", 0 },
		{ "5x", 0 },
		{ "x5", 0 },
		{ "", 0 },
		{ "9223372036854775808", 0 },
		{ "18446744073709551616", 0 },
		{ "99999999999999999999", 0 },
		{ "0x10", 0 },
		{ "1e3", 0 },
		{ "5.0", 0 },
	};
	char what[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "id_parse(\"%s\") = %lld", cases[i].s, (long long)cases[i].want);
		ok(id_parse(cases[i].s, strlen(cases[i].s)) == cases[i].want &&
		        id_parse_str(cases[i].s) == cases[i].want,
		    what);
	}
	ok(id_parse("12", 1) == 1, "id_parse: only len bytes are read");
	ok(id_parse("5\0", 2) == 0, "id_parse: a NUL inside is refused");
	ok(id_parse_str(NULL) == 0 && id_parse(NULL, 0) == 0, "id_parse: NULL is no id");
}

static void test_base64(void)
{
	/* RFC 4648 §10 */
	static const char *const vec[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	char what[64], out[64];

	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		char *e = base64_encode(vec[i][0], strlen(vec[i][0]));
		snprintf(what, sizeof(what), "base64(\"%s\") = \"%s\"", vec[i][0], vec[i][1]);
		ok(e != NULL && strcmp(e, vec[i][1]) == 0, what);
		free(e);
	}
	{
		char *e = base64_encode("\0\xff\xfe", 3);
		ok(e != NULL && strcmp(e, "AP/+") == 0, "base64: NUL and high bytes");
		free(e);
	}
	base64url_encode("\0\xff\xfe", 3, out, sizeof(out));
	ok(strcmp(out, "AP_-") == 0, "base64url: - and _ for + and /");
	base64url_encode("fo", 2, out, sizeof(out));
	ok(strcmp(out, "Zm8") == 0, "base64url: no padding");
	{
		unsigned char r[32];
		for (int i = 0; i < 32; i++)
			r[i] = (unsigned char)(i * 37 + 11);
		base64url_encode(r, sizeof(r), out, sizeof(out));
		ok(strlen(out) == 43 &&
		        strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == 43,
		    "base64url: 32 bytes are 43 characters (an API token's random part)");
	}
	base64url_encode("foobar", 6, out, 8);
	ok(out[0] == '\0', "base64url: too small an output is left empty");
}

/* printed and warnings never make a mismatch; every field of the verdict does. */
static void test_verdict(void)
{
	struct result a, b;
	char list[128];

	result_init(&a);
	result_init(&b);
	bytes_set(&a.output, "1", 1);
	bytes_set(&b.output, "1", 1);
	bytes_set(&a.printed, "hello", 5);
	bytes_set(&b.printed, "bye", 3);
	a.warnings = strdup("Deprecated: x");
	b.warnings = strdup("");
	ok(verdict_compare(&a, &b) == 0, "verdict: printed bytes and warnings alone are no difference");
	verdict_fields(~0u, list, sizeof list);
	ok(strcmp(list, "status,output,error_code,error_msg,exception,expected") == 0,
	    "verdict: its fields are status, output, error_code, error_msg, exception, expected");
	/* --EXPECT-- as an oracle (issue 46): the exact output, nothing else. */
	ok(verdict_expected(NULL, 0, &a) == 0 && verdict_expected("1", 0, &a) == 0,
	    "verdict_expected: none, or met");
	ok(verdict_expected("2", 0, &a) == DIFF_OUTPUT && verdict_expected("11", 0, &a) == DIFF_OUTPUT,
	    "verdict_expected: another output");
	/* --EXPECTF--: run-tests' placeholders (phpt_expectf_match) */
	ok(verdict_expected("%d", 1, &a) == 0 && verdict_expected(" %i\n", 1, &a) == 0 &&
	        verdict_expected("%s", 1, &a) == 0,
	    "verdict_expected: an --EXPECTF-- pattern met (trimmed, as run-tests)");
	ok(verdict_expected("%d%d", 1, &a) == DIFF_OUTPUT && verdict_expected("%d", 0, &a) == DIFF_OUTPUT,
	    "verdict_expected: an --EXPECTF-- pattern missed; %%d itself as --EXPECT--");
	{
		struct result two[2] = { a, b }, crashed;
		char why[64];
		result_init(&crashed);
		crashed.status = STATUS_CRASH;
		crashed.signal = 11;
		ok(verdict_expected("1", 0, &crashed) == DIFF_STATUS,
		    "verdict_expected: no output is a status");
		ok(verdict_expected_all("1", 0, two, 2) == 0 &&
		        verdict_expected_all("2", 0, two, 2) == DIFF_EXPECTED,
		    "verdict_expected_all: DIFF_EXPECTED when a build misses it");
		ok(result_ending(&a, why, sizeof why) == NULL,
		    "result_ending: none for a result that ran to its end");
		ok(result_ending(&crashed, why, sizeof why) != NULL && strcmp(why, "crashed: SIGSEGV") == 0,
		    "result_ending: crashed: SIGSEGV");
		crashed.status = STATUS_ERROR;
		crashed.failure = (char *)"exit() called in value\n";
		ok(strcmp(result_ending(&crashed, why, sizeof why), "called exit()") == 0,
		    "result_ending: exit()");
		crashed.failure = (char *)"PHP Fatal error: Allowed memory size of 1 bytes exhausted";
		ok(strcmp(result_ending(&crashed, why, sizeof why), "hit the memory limit") == 0,
		    "result_ending: the memory limit");
	}
	b.error_code = 5;
	ok(verdict_compare(&a, &b) == DIFF_ERROR_CODE, "verdict: an error code is a difference");
	result_release(&a);
	result_release(&b);
}

static void test_roles(void)
{
	ok(strcmp(role_name(ROLE_BASE), "base") == 0 && strcmp(role_name(ROLE_HEAD), "head") == 0,
	    "role_name: base and head");
}

/* A case error on any build; what a run's report says of how the run stands. */
static void test_case_error_and_status_note(void)
{
	struct result r[3];
	char note[256];

	for (int i = 0; i < 3; i++)
		result_init(&r[i]);
	ok(result_case_error(r, 3) == -1, "result_case_error: none when every build compiled");
	r[2].compile_error = strdup("Unclosed '['");
	/* Compiled on another build: unsupported there, no case error (issue 45). */
	ok(result_case_error(r, 3) == -1, "result_case_error: none when another build compiled");
	ok(result_case_error(r + 2, 1) == 0, "result_case_error: the build that did not compile, alone");
	ok(result_case_error(r, 2) == -1, "result_case_error: only the first n builds");
	r[1].compile_error = strdup("Unclosed '['");
	r[0].unsupported = strdup("needs PHP 9.0 or newer");
	ok(result_case_error(r, 3) == 1, "result_case_error: the first of several, none compiled");
	for (int i = 0; i < 3; i++)
		result_release(&r[i]);
	ok(r[1].compile_error == NULL, "result_release: frees the case error");

	ok(strcmp(run_status_note("done", NULL, note, sizeof note), "") == 0,
	    "run_status_note: done, nothing");
	ok(strcmp(run_status_note("running", NULL, note, sizeof note), " (the run is not done yet)") == 0,
	    "run_status_note: running");
	ok(strcmp(run_status_note("queued", "x", note, sizeof note), " (the run is not done yet)") == 0,
	    "run_status_note: queued");
	ok(strcmp(run_status_note("failed", "dir: cannot open x", note, sizeof note),
	       "\n\n**The run failed:** dir: cannot open x") == 0,
	    "run_status_note: failed, and why");
	ok(strcmp(run_status_note("failed", NULL, note, sizeof note),
	       "\n\n**The run failed** (no reason was recorded)") == 0,
	    "run_status_note: failed with no reason");
	ok(strcmp(run_status_note("cancelled", NULL, note, sizeof note), "\n\n**The run was cancelled**") ==
	        0,
	    "run_status_note: cancelled");
	ok(strcmp(run_status_note("interrupted", "the daemon stopped", note, sizeof note),
	       "\n\n**The run was interrupted:** the daemon stopped") == 0,
	    "run_status_note: interrupted, and why");
}

static void test_grouped(void)
{
	static const char *const cases[][2] = {
		{ "0", "0" },
		{ "999", "999" },
		{ "1000", "1,000" },
		{ "3298.00", "3,298.00" },
		{ "684066.00", "684,066.00" },
		{ "1234567", "1,234,567" },
		{ "-123.00", "-123.00" },
		{ "-1234.5", "-1,234.5" },
		{ "nan", "nan" },
	};
	char out[32];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		text_grouped(cases[i][0], out, sizeof out);
		ok(strcmp(out, cases[i][1]) == 0, "text_grouped %s -> %s (got %s)", cases[i][0], cases[i][1],
		    out);
	}
	text_grouped("1234567", out, 6);
	ok(strcmp(out, "1,234") == 0, "text_grouped cut to fit: %s", out);
}

static void test_flag_names(void)
{
	json_t *a = text_flag_names(64 | 256);
	char *t = json_dumps(a, JSON_COMPACT);
	ok(strcmp(t, "[\"JSON_UNESCAPED_SLASHES\",\"JSON_UNESCAPED_UNICODE\"]") == 0,
	    "text_flag_names(320): the names in flags.c's order (got %s)", t);
	free(t);
	json_decref(a);
	a = text_flag_names(0);
	ok(json_array_size(a) == 0, "text_flag_names(0): []");
	json_decref(a);
}

int main(void)
{
	test_buf();
	test_clock();
	test_id();
	test_base64();
	test_verdict();
	test_roles();
	test_case_error_and_status_note();
	test_grouped();
	test_flag_names();
	return tap_done();
}
