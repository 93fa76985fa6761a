/*
 * GET /api/runs/:id/phpt?test=NAME: one test of a phpt run (docs/phpt.md),
 * what the run page opens from a test's row: every build's status, reason,
 * verdict against the base, bucket, output and run-tests' .diff, and the
 * test's sections as they were run (the stored file, split again by
 * server/common/phpt.c; *_EXTERNAL sections are named, not loaded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"
#include "phpt.h"

#define API_PHPT_TEST_MAX 4096 /* a test's name in the query */

/* The sections, in phpt.h's order (run-tests keeps them by name, not by position); bork: why the file is BORK. */
static json_t *api_phpt_sections(const char *source, size_t len, json_t **bork)
{
	struct phpt t;
	json_t *list = json_array();

	*bork = json_null();
	if (list == NULL)
		return NULL;
	if (phpt_parse(&t, source, len, NULL, NULL) < 0 && t.bork[0])
		*bork = json_string(t.bork);
	for (int s = 0; s < PHPT_NSECTIONS; s++) {
		const struct phpt_text *x = &t.sec[s];
		if (x->data == NULL)
			continue;
		size_t n = x->len;
		char *clean = malloc(n * 3 + 1);
		size_t o = 0;
		if (clean == NULL)
			continue;
		for (size_t k = 0; k < n;) {
			size_t m = utf8_seq((const unsigned char *)x->data + k, n - k, NULL);
			if (m == 0) {
				memcpy(clean + o, "\xef\xbf\xbd", 3);
				o += 3;
				k++;
			} else {
				memcpy(clean + o, x->data + k, m);
				o += m;
				k += m;
			}
		}
		json_array_append_new(list,
		    json_pack(
		        "{s:s s:s%}", "name", phpt_section_name((enum phpt_section)s), "text", clean, o));
		free(clean);
	}
	phpt_release(&t);
	return list;
}

void api_route_run_phpt(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *test = http_query(req, "test");
	struct db_run run;
	char err[512], *source = NULL;
	size_t source_len = 0;
	json_t *o = NULL;
	int rc;

	if (test == NULL || test[0] == '\0') {
		api_error(resp, 400, "bad_request",
		    "test: required (a test's name in the run, as its summary gives it)");
		return;
	}
	if (strlen(test) > API_PHPT_TEST_MAX) {
		api_error(resp, 400, "bad_request", "test: at most %d bytes", API_PHPT_TEST_MAX);
		return;
	}
	memset(&run, 0, sizeof run);
	rc = db_run_get(app->db, a->id, &run, err, sizeof err);
	if (rc < 0) {
		api_fail(resp, err);
		return;
	}
	if (rc == 0) {
		api_error(resp, 404, "not_found", "no run %" PRId64, a->id);
		return;
	}
	if (strcmp(run.suite, "phpt") != 0) {
		api_error(
		    resp, 404, "not_found", "run %" PRId64 " is a %s run, not a phpt run", run.id, run.suite);
		db_run_release(&run);
		return;
	}
	rc = db_phpt_test_get(app->db, run.id, test, &o, &source, &source_len, err, sizeof err);
	if (rc < 0) {
		api_fail(resp, err);
	} else if (rc == 0) {
		api_error(resp, 404, "not_found", "run %" PRId64 " has no test \"%.200s\"", run.id, test);
	} else {
		/* each build's name by its role */
		json_t *b;
		size_t i;
		json_array_foreach (json_object_get(o, "builds"), i, b) {
			int role = role_parse(json_string_value(json_object_get(b, "role")));
			if (role >= 0 && role < run.nbuilds)
				json_object_set_new(b, "build", json_string(run.build_names[role]));
		}
		json_t *bork = NULL;
		json_object_set_new(o, "run_id", json_integer((json_int_t)run.id));
		json_object_set_new(
		    o, "sections", source ? api_phpt_sections(source, source_len, &bork) : json_array());
		json_object_set_new(o, "bork", bork ? bork : json_null());
		api_json(resp, 200, o);
	}
	free(source);
	db_run_release(&run);
}
