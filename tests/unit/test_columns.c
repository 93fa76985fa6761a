/* Unit tests for the JSON the database keeps in columns
 * (server/common/columns.c): exact texts, as the API serves them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "common.h"
#include "tap.h"

static void is_text(char *got, const char *want, const char *what)
{
	ok(got != NULL && strcmp(got, want) == 0, "%s: %s", what, got != NULL ? got : "(null)");
	free(got);
}

static void test_case_error(void)
{
	struct result res[2];
	const char *names[] = { "src-8.2.32", "pr" };

	result_init(&res[0]);
	result_init(&res[1]);
	ok(column_case_error(res, 2, names) == NULL, "no case error: no column");
	res[1].compile_error = strdup("syntax error, unexpected end of file");
	snprintf(res[1].compile_section, sizeof res[1].compile_section, "value");
	res[1].compile_line = 2;
	is_text(column_case_error(res, 2, names),
	    "{\"message\":\"syntax error, unexpected end of file\",\"section\":\"value\",\"line\":2,"
	    "\"column\":null,\"role\":\"head\",\"build\":\"pr\"}",
	    "the candidate's compile error, its build named, no column known");
	is_text(column_case_error(res, 2, NULL),
	    "{\"message\":\"syntax error, unexpected end of file\",\"section\":\"value\",\"line\":2,"
	    "\"column\":null,\"role\":\"head\",\"build\":\"head\"}",
	    "without names: the role");
	result_release(&res[0]);
	result_release(&res[1]);
}

static void test_reduced_outputs(void)
{
	struct result res[2];
	char *big = malloc(RESULT_INLINE_MAX + 1);

	result_init(&res[0]);
	result_init(&res[1]);
	res[0].output.data = strdup("[1,\"\xff\"]");
	res[0].output.len = 7;
	res[1].status = STATUS_CRASH;
	res[1].signal = 11;
	res[1].output_is_false = 1;
	res[1].error_code = 5;
	res[1].error_msg = strdup("Malformed UTF-8 characters, possibly incorrectly encoded");
	is_text(column_reduced_outputs(2, res),
	    "{\"base\":{\"error_code\":0,\"error_msg\":null,\"exception\":null,\"omitted\":[],\"output\":\"[1,\\\"\\\\xff\\\"]\","
	    "\"output_is_false\":false,\"output_size\":7,\"status\":\"ok\"},"
	    "\"cand2\":{\"error_code\":5,\"error_msg\":\"Malformed UTF-8 characters, possibly incorrectly encoded\","
	    "\"exception\":null,\"omitted\":[],\"output\":null,\"output_is_false\":true,\"output_size\":null,"
	    "\"signal\":11,\"status\":\"crash\"}}",
	    "a base's output with a byte not UTF-8 as \\xNN; a crash's signal; the candidate under its role");
	memset(big, 'a', RESULT_INLINE_MAX + 1);
	free(res[0].output.data);
	res[0].output.data = big;
	res[0].output.len = RESULT_INLINE_MAX + 1;
	char *text = column_reduced_outputs(1, res);
	ok(text != NULL && strstr(text, "\"omitted\":[\"output\"],\"output\":null,") != NULL &&
	        strstr(text, "\"output_size\":65537") != NULL && strlen(text) < 1000,
	    "an output over RESULT_INLINE_MAX: omitted, its size kept, not its bytes");
	free(text);
	result_release(&res[0]);
	result_release(&res[1]);
}

static void test_triage_changes(void)
{
	struct column_triage t = { 0 };

	t.state = (struct column_change){ 1, "new", "fixed" };
	t.assignee = (struct column_change){ 1, NULL, "ana" };
	t.answered_reappearance = 1;
	t.root = 7;
	is_text(column_triage_changes(&t),
	    "{\"assignee\":[null,\"ana\"],\"reappeared\":false,\"root\":7,\"state\":[\"new\",\"fixed\"]}",
	    "the fields that changed, from and to, keys sorted");
	t = (struct column_triage){ 0 };
	t.notes = (struct column_change){ 1, "", "seen \xc3\xa9" };
	is_text(column_triage_changes(&t), "{\"notes\":[\"\",\"seen \xc3\xa9\"]}", "notes alone");
}

int main(void)
{
	test_case_error();
	test_reduced_outputs();
	test_triage_changes();
	return tap_done();
}
