/*
 * GET /api/runs/:id/phpt?test=NAME: one test of a phpt run (docs/phpt.md),
 * what the run page opens from a test's row: every build's status, reason,
 * verdict against the base, bucket, output and run-tests' .diff, and the
 * test's sections as they were run (the stored file, split again by
 * server/daemon/model/phpt.c; *_EXTERNAL sections are named, not loaded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"
#include "phpt.h"

#define API_PHPT_TEST_MAX 4096 /* a test's name in the query */

/* Stored text (text_replaced's rule: the exact bytes stay in SQLite); null when none was stored. */
static json_t *api_phpt_text(const struct bytes *b)
{
	return b->data != NULL ? text_replaced(b->data, b->len, SIZE_MAX) : json_null();
}

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
		json_t *text = text_replaced(x->data, x->len, SIZE_MAX);
		if (text != NULL)
			json_array_append_new(list,
			    json_pack(
			        "{s:s s:o}", "name", phpt_section_name((enum phpt_section)s), "text", text));
	}
	phpt_release(&t);
	return list;
}

/* {test, name, verdict, builds: [{role, status, reason, verdict, output, diff, wall_ms,
 * bucket_id, signal, build}]}: each build named by its role in the run. */
static json_t *api_phpt_test_json(const char *test, const struct db_phpt_test *t, const struct db_run *run)
{
	json_t *o, *builds = json_array();

	o = json_pack("{s:s s:o s:o}", "test", test, "name", api_phpt_text(&t->name), "verdict",
	    api_phpt_text(&t->verdict));
	for (size_t i = 0; i < t->nbuilds; i++) {
		const struct db_phpt_test_result *r = &t->builds[i];
		json_t *b = json_pack("{s:o s:o s:o s:o s:o s:o s:o}", "role", api_phpt_text(&r->role),
		    "status", api_phpt_text(&r->status), "reason", api_phpt_text(&r->reason), "verdict",
		    api_phpt_text(&r->verdict), "output", api_phpt_text(&r->output), "diff",
		    api_phpt_text(&r->diff), "wall_ms", json_real(r->wall_ms));
		if (b == NULL)
			continue;
		json_object_set_new(b, "bucket_id", api_id_or_null(r->bucket_id));
		json_object_set_new(b, "signal", r->has_signal ? json_integer(r->signal) : json_null());
		int role = r->role.data != NULL ? role_parse(r->role.data) : -1;
		if (role >= 0 && role < run->nbuilds)
			json_object_set_new(b, "build", json_string(run->build_names[role]));
		json_array_append_new(builds, b);
	}
	if (o != NULL)
		json_object_set_new(o, "builds", builds);
	else
		json_decref(builds);
	return o;
}

void api_route_run_phpt(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *test = http_query(req, "test");
	struct db_run run;
	struct db_phpt_test t;
	char err[512];
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
	if (api_run_find(app, a->id, &run, resp) < 0)
		return;
	if (strcmp(run.suite, "phpt") != 0) {
		api_error(
		    resp, 404, "not_found", "run %" PRId64 " is a %s run, not a phpt run", run.id, run.suite);
		db_run_release(&run);
		return;
	}
	rc = db_phpt_test_get(app->db, run.id, test, &t, err, sizeof err);
	if (rc < 0) {
		api_fail(resp, err);
	} else if (rc == 0) {
		api_error(resp, 404, "not_found", "run %" PRId64 " has no test \"%.200s\"", run.id, test);
	} else if ((o = api_phpt_test_json(test, &t, &run)) == NULL) {
		api_fail(resp, "out of memory");
	} else {
		json_t *bork = NULL;
		json_object_set_new(o, "run_id", json_integer((json_int_t)run.id));
		json_object_set_new(o, "sections",
		    t.source.data != NULL ? api_phpt_sections(t.source.data, t.source.len, &bork)
		                          : json_array());
		json_object_set_new(o, "bork", bork ? bork : json_null());
		api_json(resp, 200, o);
	}
	if (rc > 0)
		db_phpt_test_release(&t);
	db_run_release(&run);
}
