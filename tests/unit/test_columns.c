/* Unit tests for the JSON the database keeps in columns
 * (server/daemon/model/columns.c): exact texts, as the API serves them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "columns.h"
#include "model.h"
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
	/* The base compiled it: unsupported on the candidate, no case error (issue 45). */
	ok(column_case_error(res, 2, names) == NULL, "compiled on the base: no case error");
	/* The base did not run it (--MIN_PHP--): nothing compiled, a case error. */
	res[0].unsupported = strdup("needs PHP 9.0 or newer (--MIN_PHP--); this build is PHP 8.2.32");
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

/* The summary's field at a path of keys ("builds", "head", "failures"): an integer, or -1. */
static long long summary_int(json_t *o, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(o, a);
	if (b != NULL)
		v = json_object_get(v, b);
	if (c != NULL)
		v = json_object_get(v, c);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static void test_generated_summary(void)
{
	static struct gen_tally t;
	struct gen_sig sig = {
		.key = "output|ok,0,0|ok,0,0", .count = 3, .samples = 1, .sample_ids = { 41 }
	};
	struct run_params p = {
		.given = RUN_SEEDS | RUN_COUNT, .nseeds = 2, .seeds = { 5, 6 }, .count = 1000
	};
	const char *names[] = { "src-8.2.32", "pr" };
	struct gen_summary_context c = {
		.params = &p, .build_names = names, .elapsed_ms = 2000, .peak_rss_kb = 10, .rss_kb = 9
	};
	json_t *o;
	char *text;

	t.nbuilds = 2;
	t.done = 2000;
	t.mismatches = 3;
	t.seeds_done = 1;
	t.corpus[0] = 0xabcdef;
	t.build[1].failures = 2;
	t.build[1].mismatches = 3;
	t.build[1].errors[5] = 4;                /* JSON_ERROR_UTF8 */
	t.build[1].errors[GEN_TALLY_ERRORS] = 1; /* a code past the names */
	t.build[1].crashes_timed = 2;
	t.build[1].crash_ms[GEN_C_NOTICE] = 3;
	t.nlisted = 1;
	t.listed[0] = (struct gen_listed){ 5, 17, 41, "output", "head" };
	t.nsigs = 1;
	t.sigs = &sig;
	text = column_generated_summary(&t, &c);
	o = text != NULL ? json_loads(text, 0, NULL) : NULL;
	ok(summary_int(o, "generator_version", NULL, NULL) == GEN_VERSION &&
	        summary_int(o, "done", NULL, NULL) == 2000 && summary_int(o, "rate", NULL, NULL) == -1 &&
	        json_real_value(json_object_get(o, "rate")) == 1000.0,
	    "a generated summary: the generator's version, cases done, their rate per second");
	ok(json_is_null(json_object_get(o, "corpus_hash")) &&
	        strcmp(json_string_value(json_object_get(json_object_get(o, "corpus_hashes"), "5")),
	            "0000000000abcdef") == 0 &&
	        json_object_size(json_object_get(o, "corpus_hashes")) == 1,
	    "a run going on: the seeds done have their corpus hash, the run none yet");
	ok(summary_int(o, "builds", "head", "failures") == 2 &&
	        summary_int(o, "builds", "head", "mismatches") == 3 &&
	        summary_int(o, "builds", "base", "mismatches") == -1 &&
	        json_object_get(json_object_get(o, "builds"), "head") != NULL &&
	        strcmp(json_string_value(
	                   json_object_get(json_object_get(json_object_get(o, "builds"), "head"), "build")),
	            "pr") == 0,
	    "each build by role, named; a candidate's own mismatches, none for the base");
	json_t *errs = json_object_get(json_object_get(json_object_get(o, "builds"), "head"), "error_codes");
	ok(json_integer_value(json_object_get(errs, "JSON_ERROR_UTF8")) == 4 &&
	        json_integer_value(json_object_get(errs, "other")) == 1 && json_object_size(errs) == 2,
	    "error codes by name, only those met, a code past the names as \"other\"");
	json_t *crash = json_object_get(json_object_get(json_object_get(o, "builds"), "head"), "crash_ms");
	ok(summary_int(crash, "crashes", NULL, NULL) == 2 &&
	        json_real_value(json_object_get(crash, "died_to_noticed")) == 1.5 &&
	        json_object_get(json_object_get(json_object_get(o, "builds"), "base"), "crash_ms") == NULL,
	    "a crash's cost, mean per crash timed; none for a build that never crashed");
	json_t *listed = json_array_get(json_object_get(o, "mismatch_list"), 0);
	json_t *sigs = json_array_get(json_object_get(o, "signatures"), 0);
	ok(summary_int(listed, "case_id", NULL, NULL) == 41 &&
	        strcmp(json_string_value(json_object_get(listed, "candidates")), "head") == 0 &&
	        summary_int(sigs, "mismatches", NULL, NULL) == 3 &&
	        json_integer_value(json_array_get(json_object_get(sigs, "samples"), 0)) == 41,
	    "the listed mismatches and the signatures with their samples");
	json_decref(o);
	free(text);
	t.seeds_done = 2;
	c.final = 1;
	text = column_generated_summary(&t, &c);
	o = text != NULL ? json_loads(text, 0, NULL) : NULL;
	ok(json_is_string(json_object_get(o, "corpus_hash")) &&
	        json_object_size(json_object_get(o, "corpus_hashes")) == 2,
	    "the run ended with every seed done: the corpus hash");
	json_decref(o);
	ok(column_generated_version(text) == GEN_VERSION && column_generated_version("{}") == -1 &&
	        column_generated_version("{") == -1 && column_generated_version(NULL) == -1,
	    "the generator version a stored summary names, -1 when none");
	free(text);
}

static void test_phpt_summary(void)
{
	struct phpt_tally t = { .total = 3, .nbuilds = 3 }, back;
	struct phpt_tally_result r[MAX_BUILDS] = { 0 };
	size_t big = PHPT_TALLY_MAX_TEXT + 10;
	char diff[] = "001- 1", reason[] = "skip: no ext";
	char *out = malloc(big + 1), *text;
	json_t *o, *full;

	snprintf(t.build_names[0], sizeof t.build_names[0], "src-8.2.32");
	snprintf(t.build_names[1], sizeof t.build_names[1], "pr");
	snprintf(t.build_names[2], sizeof t.build_names[2], "twin");
	t.dir = strdup("/x/ext/json/tests");
	/* a FAIL's output over the cut, a two-byte character across it */
	memset(out, 'a', big);
	out[PHPT_TALLY_MAX_TEXT - 1] = '\xc3';
	out[PHPT_TALLY_MAX_TEXT] = '\xa9';
	out[big] = '\0';
	r[0] = (struct phpt_tally_result){ .status = PS_PASS };
	r[1] = (struct phpt_tally_result){ .status = PS_FAIL,
		.output = out,
		.output_len = big,
		.diff = diff,
		.verdict = "regression",
		.bucket_id = 9 };
	r[2] = (struct phpt_tally_result){
		.status = PS_PASS, .output = out, .output_len = big, .verdict = "same"
	};
	ok(phpt_tally_add(&t, "a/bug1.phpt", "Bug #1", "regression", r) == 0, "a regression's row added");
	r[0].status = r[1].status = r[2].status = PS_SKIP;
	r[1] = (struct phpt_tally_result){ .status = PS_SKIP, .reason = reason, .verdict = "same" };
	r[2].output = NULL;
	ok(phpt_tally_add(&t, "a/skip.phpt", "Skipped", "same", r) == 0, "a skipped row added");
	text = column_phpt_summary(&t);
	o = text != NULL ? json_loads(text, 0, NULL) : NULL;
	json_t *row = json_array_get(json_object_get(o, "tests"), 0);
	full = text_replaced(out, big, PHPT_TALLY_MAX_TEXT);
	ok(json_equal(json_object_get(json_object_get(row, "head"), "output"), full) &&
	        json_object_get(json_object_get(row, "cand2"), "output") == NULL,
	    "a failing FILE's output cut as the whole text would be, a character across the cut whole; none for a PASS");
	json_decref(full);
	ok(json_integer_value(
	       json_object_get(json_object_get(json_object_get(o, "counts"), "head"), "FAIL")) == 1 &&
	        json_integer_value(
	            json_object_get(json_object_get(json_object_get(o, "counts"), "base"), "SKIP")) == 1,
	    "counts by build and status");
	json_t *cand = json_object_get(json_object_get(o, "candidates"), "head");
	ok(strcmp(json_string_value(json_array_get(json_object_get(cand, "regressions"), 0)),
	       "a/bug1.phpt") == 0 &&
	        json_integer_value(json_object_get(cand, "same")) == 1 &&
	        json_integer_value(json_object_get(
	            json_object_get(json_object_get(o, "candidates"), "cand2"), "same")) == 2 &&
	        json_array_size(json_object_get(o, "regressions")) == 1 &&
	        json_integer_value(json_object_get(json_object_get(row, "head"), "bucket_id")) == 9 &&
	        json_object_get(json_object_get(row, "base"), "verdict") == NULL,
	    "each candidate's regressions and counts, the run's regressions, a candidate's bucket");
	ok(column_phpt_summary_read(text, &back) == 0 && back.nrows == 2 && back.nbuilds == 3 &&
	        back.rows[0].r[1].status == PS_FAIL && back.rows[1].r[2].status == PS_SKIP &&
	        strcmp(back.rows[0].test, "a/bug1.phpt") == 0 && back.counts[1][PS_FAIL] == 1 &&
	        back.total == 3 && strcmp(back.dir, "/x/ext/json/tests") == 0 &&
	        strcmp(back.build_names[2], "twin") == 0,
	    "read back: the folder, total, builds, counts, each row's test and statuses");
	phpt_tally_release(&back);
	ok(column_phpt_summary_read("{\"seeds\":[1]}", &back) < 0 && back.rows == NULL,
	    "a summary of another suite is not read as a phpt one");
	json_decref(o);
	free(text);
	free(out);
	phpt_tally_release(&t);
}

int main(void)
{
	test_case_error();
	test_reduced_outputs();
	test_triage_changes();
	test_generated_summary();
	test_phpt_summary();
	return tap_done();
}
