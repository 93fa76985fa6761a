/* /api/cases and /api/generated: submitting and reading cases, results as JSON. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

#define API_DEFAULT_TITLE "submitted case"
#define API_TITLE_CODE 72 /* bytes of code in a title made of it */
#define API_MAX_ITERATIONS 1000000L
#define API_MAX_DEPTH 2147483647LL

/* Any key of obj not in known (NULL-terminated) is an error naming it. */
static int api_known_fields(
    json_t *obj, const char *const *known, const char *hint, struct http_response *resp)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach (obj, key, v) {
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i] == NULL) {
			api_error(resp, 400, "bad_request", "unknown field \"%.64s\"%s", key, hint);
			return -1;
		}
	}
	return 0;
}

/* An optional string field: 0 (set *out, NULL when absent or null), -1 on error. */
static int api_opt_string(
    json_t *obj, const char *field, size_t max, int toolarge413, char **out, struct http_response *resp)
{
	json_t *v = json_object_get(obj, field);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		api_error(resp, 400, "bad_request", "%s: expected a string", field);
		return -1;
	}
	if (json_string_length(v) > max) {
		if (toolarge413)
			api_error(resp, 413, "too_large", "%s is %zu bytes, over the %zu byte limit", field,
			    json_string_length(v), max);
		else
			api_error(resp, 400, "bad_request", "%s: over %zu bytes", field, max);
		return -1;
	}
	if (memchr(json_string_value(v), '\0', json_string_length(v)) != NULL) {
		api_error(resp, 400, "bad_request", "%s: must not contain NUL bytes", field);
		return -1;
	}
	if ((*out = strdup(json_string_value(v))) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return -1;
	}
	return 0;
}

/* An integer field in min..max: 0 (*present says whether it is there), -1 on error. */
static int api_int_field(json_t *obj, const char *field, json_int_t min, json_int_t max, json_int_t *out,
    int *present, struct http_response *resp)
{
	json_t *v = json_object_get(obj, field);

	if (!(*present = v != NULL))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		api_error(resp, 400, "bad_request",
		    "%s: expected an integer %" JSON_INTEGER_FORMAT " .. %" JSON_INTEGER_FORMAT, field, min,
		    max);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

/* An optional integer field (absent or null: def): 0, or -1 on error. */
static int api_opt_int(json_t *obj, const char *field, json_int_t min, json_int_t max, json_int_t def,
    json_int_t *out, struct http_response *resp)
{
	int present;

	*out = def;
	if (json_is_null(json_object_get(obj, field)))
		return 0;
	return api_int_field(obj, field, min, max, out, &present, resp);
}

/*
 * {"seed":S,"index":I[,"version":V]}: a generated case by where it is
 * (POST /api/generated, POST /api/runs/{id}/cases).  0, or -1 with resp
 * filled.
 */
static int api_generated_ref(json_t *body, uint64_t *seed, uint64_t *index, struct http_response *resp)
{
	static const char *const known[] = { "seed", "index", "version", NULL };
	json_t *version = json_object_get(body, "version");
	json_int_t x;
	int present;

	if (api_known_fields(body, known, " (known: seed, index, version)", resp) < 0)
		return -1;
	if (version != NULL &&
	    (!json_is_integer(version) || json_integer_value(version) != genrun_version())) {
		api_error(resp, 400, "bad_request", "version: this daemon's generator is version %d only",
		    genrun_version());
		return -1;
	}
	if (api_int_field(body, "seed", 0, RUN_MAX_SEED, &x, &present, resp) < 0)
		return -1;
	if (!present) {
		api_error(resp, 400, "bad_request", "seed: required, an integer 0 .. %" PRId64,
		    (int64_t)RUN_MAX_SEED);
		return -1;
	}
	*seed = (uint64_t)x;
	if (api_int_field(body, "index", 0, RUN_MAX_START + RUN_MAX_COUNT, &x, &present, resp) < 0)
		return -1;
	if (!present) {
		api_error(resp, 400, "bad_request", "index: required, an integer 0 .. %" PRId64,
		    (int64_t)RUN_MAX_START + RUN_MAX_COUNT);
		return -1;
	}
	*index = (uint64_t)x;
	return 0;
}

/* ---- endpoints ---- */

static json_t *api_case_json(const struct db_case *dc)
{
	const struct case_spec *c = &dc->spec;
	json_t *o;

	o = json_pack("{s:I s:o s:o s:o s:I s:o s:I s:o s:o s:o s:o}", "id", (json_int_t)dc->id, "title",
	    text_json(c->title), "code", text_json(c->code), "setup", text_json(c->setup), "flags",
	    (json_int_t)c->flags, "flag_names", text_flag_names(c->flags), "depth", (json_int_t)c->depth,
	    "expect", text_json(c->expect), "measure",
	    c->iterations > 0 ? json_integer(c->iterations) : json_null(), "source", text_json(c->source),
	    "created_at", api_time(dc->created_at));
	/* expect is an --EXPECTF-- pattern (run-tests' placeholders), not the bytes */
	if (o != NULL)
		json_object_set_new(o, "expectf", json_boolean(c->expectf));
	return o;
}

/* A case with one comparison: the body of POST /api/cases and GET /api/cases/{id}. */
static json_t *api_case_comparison_json(const struct db_case *dc, const struct db_comparison *cmp)
{
	char url[64], api_url[64], fields[128];
	json_t *o, *results, *candidates;
	unsigned diff;
	int role;

	snprintf(url, sizeof url, "/#/cases/%" PRId64, dc->id);
	snprintf(api_url, sizeof api_url, "/api/cases/%" PRId64, dc->id);
	results = json_object();
	candidates = json_object();
	if (cmp != NULL)
		for (role = 0; role < cmp->nbuilds; role++) {
			json_t *one = api_result_json(&cmp->results[role], cmp->build_names[role], cmp->id,
			    role_name(role), dc->spec.iterations);
			/* The build's PHP, for the answers grouped by build (the case page). */
			if (one != NULL)
				json_object_set_new(one, "php_version", text_json(cmp->build_versions[role]));
			json_object_set_new(results, role_name(role), one);
			if (role == ROLE_BASE)
				continue;
			/* Each candidate against the base, by its build's name. */
			diff = verdict_compare(&cmp->results[ROLE_BASE], &cmp->results[role]);
			verdict_fields(diff, fields, sizeof fields);
			if (cmp->error == NULL &&
			    (cmp->results[ROLE_BASE].unsupported != NULL ||
			        cmp->results[role].unsupported != NULL)) {
				json_object_set_new(candidates, cmp->build_names[role],
				    json_pack("{s:s s:s s:o}", "role", role_name(role), "verdict",
				        "unsupported", "differs", json_array()));
				continue;
			}
			json_object_set_new(candidates, cmp->build_names[role],
			    json_pack("{s:s s:s s:o}", "role", role_name(role), "verdict",
			        cmp->error != NULL ? "error"
			            : diff == 0    ? "same"
			                           : "differ",
			        "differs", api_list(fields)));
		}
	o = json_pack("{s:I s:s s:s s:o s:o s:o s:o s:o s:o s:o}", "id", (json_int_t)dc->id, "url", url,
	    "api_url", api_url, "verdict", cmp != NULL ? json_string(cmp->verdict) : json_null(), "differs",
	    cmp != NULL ? api_list(cmp->differs) : json_array(), "case", api_case_json(dc), "results",
	    results, "comparison_id", api_id_or_null(cmp != NULL ? cmp->id : 0), "run_id",
	    api_id_or_null(cmp != NULL ? cmp->run_id : 0), "candidates", candidates);
	/* A verdict "same" of builds that all ended the same wrong way (all
	 * crashed, timed out, hit the memory limit, called exit()...): how,
	 * so "same" is not read as "worked" (null when they ran to the end). */
	char ended[96];
	if (o != NULL)
		json_object_set_new(o, "ended",
		    cmp != NULL && cmp->nbuilds > 0 && cmp->error == NULL &&
		            strcmp(cmp->verdict, "same") == 0 &&
		            result_ending(&cmp->results[ROLE_BASE], ended, sizeof ended) != NULL
		        ? json_string(ended)
		        : json_null());
	/* The case's --EXPECT-- as a third oracle: which builds' outputs are not it. */
	if (o != NULL) {
		json_t *expected = json_null();
		if (cmp != NULL && dc->spec.expect != NULL) {
			json_t *differ = json_array();
			for (role = 0; role < cmp->nbuilds; role++)
				if (verdict_expected(
				        dc->spec.expect, dc->spec.expectf, &cmp->results[role]) != 0)
					json_array_append_new(differ, json_string(role_name(role)));
			expected = json_pack("{s:s s:o}", "verdict",
			    json_array_size(differ) > 0 ? "differ" : "same", "differ", differ);
		}
		json_object_set_new(o, "expected", expected);
	}
	/* The case error (verdict "error"): what did not compile, where in the
	 * user's code.  Not "error", which names an API error in every answer. */
	json_t *error = cmp != NULL && cmp->error != NULL ? json_loads(cmp->error, 0, NULL) : NULL;
	if (o != NULL)
		json_object_set_new(o, "case_error", error != NULL ? error : json_null());
	else
		json_decref(error);
	return o;
}

/* ---- request parsing ---- */

static int api_flags_text(json_t *v, const char *field, long *out, struct http_response *resp)
{
	char err[256];

	if (strlen(json_string_value(v)) != json_string_length(v)) {
		api_error(resp, 400, "bad_request", "%s: must not contain NUL bytes", field);
		return -1;
	}
	if (flags_parse(json_string_value(v), out, err, sizeof err) < 0) {
		if (strncmp(err, "unknown flag", 12) == 0)
			api_error(resp, 400, "unknown_flag", "%s: %s", field, err);
		else
			api_error(resp, 400, "bad_request", "%s: %s", field, err);
		return -1;
	}
	return 0;
}

/* flags: an integer >= 0, "A|B", or ["A", "B"]. */
static int api_flags(json_t *obj, long *flags, struct http_response *resp)
{
	json_t *v = json_object_get(obj, "flags"), *item;
	char field[32];
	long one;
	size_t i;

	*flags = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0 || json_integer_value(v) > 0x7fffffff) {
			api_error(resp, 400, "bad_request", "flags: expected an integer 0 .. 2147483647");
			return -1;
		}
		*flags = (long)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v))
		return api_flags_text(v, "flags", flags, resp);
	if (json_is_array(v)) {
		json_array_foreach (v, i, item) {
			snprintf(field, sizeof field, "flags[%zu]", i);
			if (!json_is_string(item)) {
				api_error(resp, 400, "bad_request", "%s: expected a flag name", field);
				return -1;
			}
			if (api_flags_text(item, field, &one, resp) < 0)
				return -1;
			*flags |= one;
		}
		return 0;
	}
	api_error(resp, 400, "bad_request",
	    "flags: expected an integer, a \"JSON_A|JSON_B\" string or a list of names");
	return -1;
}

/* A case sent without a title is named by its code: the first line that is
 * not blank, trimmed, at most API_TITLE_CODE bytes (cut at a character),
 * with "…" when cut or when more follows.  NULL when out of memory. */
static char *api_title_of_code(const char *code)
{
	const char *p = code + strspn(code, " \t\r\n"), *more;
	size_t n = strcspn(p, "\r\n"), cut;
	char *t;

	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	more = p + n;
	more += strspn(more, " \t\r\n");
	cut = n;
	if (cut > API_TITLE_CODE) {
		cut = API_TITLE_CODE;
		while (cut > 0 && ((unsigned char)p[cut] & 0xc0) == 0x80)
			cut--;
	}
	if (cut == 0)
		return strdup(API_DEFAULT_TITLE);
	if (asprintf(&t, "%.*s%s", (int)cut, p, cut < n || *more != '\0' ? "\u2026" : "") < 0)
		return NULL;
	return t;
}

/* The case of a POST /api/cases body; 0, or -1 with resp filled. */
static int api_parse_case(json_t *body, struct case_spec *c, struct http_response *resp)
{
	static const char *const known[] = {
		"title",
		"code",
		"setup",
		"flags",
		"depth",
		"expect",
		"expectf", /* true: expect is an --EXPECTF-- pattern */
		"measure",
		"min_php", /* "8.1": older builds do not run it (unsupported) */
		"builds",  /* api_build_names */
		NULL,
	};
	json_int_t depth, measure;
	json_t *code;

	if (api_known_fields(body, known, "", resp) < 0)
		return -1;
	code = json_object_get(body, "code");
	if (code == NULL || !json_is_string(code)) {
		api_error(resp, 400, "bad_request", "code: %s",
		    code == NULL ? "required (PHP code producing the value)" : "expected a string");
		return -1;
	}
	if (api_opt_string(body, "code", MAX_CODE_SIZE, 1, &c->code, resp) < 0)
		return -1;
	if (c->code == NULL || c->code[strspn(c->code, " \t\r\n")] == '\0') {
		api_error(resp, 400, "bad_request", "code: must not be empty");
		return -1;
	}
	if (api_opt_string(body, "title", MAX_TITLE_SIZE, 0, &c->title, resp) < 0 ||
	    api_opt_string(body, "setup", MAX_CODE_SIZE, 1, &c->setup, resp) < 0 ||
	    api_opt_string(body, "expect", MAX_BODY_SIZE, 1, &c->expect, resp) < 0 ||
	    api_flags(body, &c->flags, resp) < 0 ||
	    api_opt_int(body, "depth", 1, API_MAX_DEPTH, 512, &depth, resp) < 0 ||
	    api_opt_int(body, "measure", 1, API_MAX_ITERATIONS, 0, &measure, resp) < 0)
		return -1;
	if (c->title == NULL && (c->title = api_title_of_code(c->code)) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return -1;
	}
	c->depth = (long)depth;
	c->iterations = (long)measure;
	json_t *xf = json_object_get(body, "expectf");
	if (xf != NULL && !json_is_boolean(xf)) {
		api_error(resp, 400, "bad_request",
		    "expectf: expected true (expect is an --EXPECTF-- pattern) or false");
		return -1;
	}
	if ((c->expectf = json_is_true(xf)) && c->expect == NULL) {
		api_error(resp, 400, "bad_request", "expectf: true needs expect (the --EXPECTF-- pattern)");
		return -1;
	}
	json_t *min = json_object_get(body, "min_php");
	if (min != NULL && !json_is_null(min) &&
	    (!json_is_string(min) || case_min_php_parse(json_string_value(min), &c->min_php) < 0)) {
		api_error(
		    resp, 400, "bad_request", "min_php: expected a PHP version such as \"8.1\" or \"8.1.2\"");
		return -1;
	}
	return 0;
}

/* The case of a POST /api/cases request; 0, or -1 with resp filled (a pure
 * function of the request, for fuzz/fuzz_body.c too). */
int api_case_from_request(const struct http_request *req, struct case_spec *c, struct http_response *resp)
{
	json_t *body;
	int rc;

	if ((body = api_body(req, resp)) == NULL)
		return -1;
	rc = api_parse_case(body, c, resp);
	json_decref(body);
	return rc;
}

static int api_history_row(void *arg, const struct db_case_row *row)
{
	return json_array_append_new(arg,
	    json_pack("{s:I s:o s:o s:o s:o}", "comparison_id", (json_int_t)row->comparison_id, "run_id",
	        api_id_or_null(row->run_id), "verdict", text_json(row->verdict), "differs",
	        api_list(row->differs != NULL ? row->differs : ""), "created_at", api_time(row->created_at)));
}

/*
 * The case with one of its comparisons (comparison_id, or the latest when 0),
 * and its history when asked: 200 or 404 in resp.
 */
static void api_case_reply(struct app *app, int64_t id, int64_t comparison_id, int with_history, int status,
    const char *location, json_t *extra, struct http_response *resp)
{
	struct db_case dc;
	struct db_comparison cmp;
	char err[512];
	json_t *o = NULL, *history;
	int rc, have_cmp = 0;

	rc = db_case_get(app->db, id, &dc, err, sizeof err);
	if (rc <= 0) {
		if (rc < 0)
			api_fail(resp, err);
		else
			api_error(resp, 404, "not_found", "no case %" PRId64, id);
		db_case_release(&dc);
		return;
	}
	rc = db_comparison_get(app->db, id, comparison_id, &cmp, err, sizeof err);
	if (rc < 0)
		goto fail;
	have_cmp = rc == 1;
	if (!have_cmp && comparison_id > 0) {
		api_error(
		    resp, 404, "not_found", "case %" PRId64 " has no comparison %" PRId64, id, comparison_id);
		db_comparison_release(&cmp);
		db_case_release(&dc);
		return;
	}
	if ((o = api_case_comparison_json(&dc, have_cmp ? &cmp : NULL)) == NULL)
		goto oom;
	/* The shown comparison's bucket, when it is a mismatch (triage.c). */
	json_object_set_new(o, "bucket", have_cmp ? api_case_bucket(app, cmp.id) : json_null());
	if (with_history) {
		if ((history = json_array()) == NULL)
			goto oom;
		json_object_set_new(o, "history", history);
		if (db_case_history(app->db, id, api_history_row, history, err, sizeof err) < 0)
			goto fail;
	}
	if (location != NULL)
		snprintf(resp->location, sizeof resp->location, "%s", location);
	if (extra != NULL)
		json_object_update(o, extra);
	api_json(resp, status, o);
	db_comparison_release(&cmp);
	db_case_release(&dc);
	return;
oom:
	snprintf(err, sizeof err, "out of memory");
fail:
	json_decref(o);
	api_fail(resp, err);
	db_comparison_release(&cmp);
	db_case_release(&dc);
}

/*
 * 422 case_error: the case's code did not compile on some build (or its
 * value statements have no return), said against the user's own lines:
 * {"error":{"code":"case_error","message":"value, line 1, column 9: ...",
 * "section","line","column","role","build","detail"}}.
 */
static void api_case_error(const char *text, struct http_response *resp)
{
	json_t *e = text != NULL ? json_loads(text, 0, NULL) : NULL;
	if (e == NULL) {
		api_fail(resp, "out of memory");
		return;
	}
	char where[96];
	json_t *line = json_object_get(e, "line"), *col = json_object_get(e, "column");
	snprintf(where, sizeof where, "%s", json_string_value(json_object_get(e, "section")));
	if (json_is_integer(line))
		snprintf(where + strlen(where), sizeof where - strlen(where), ", line %" JSON_INTEGER_FORMAT,
		    json_integer_value(line));
	if (json_is_integer(col))
		snprintf(where + strlen(where), sizeof where - strlen(where),
		    ", column %" JSON_INTEGER_FORMAT, json_integer_value(col));
	json_t *msg = json_object_get(e, "message");
	char *full = NULL;
	if (asprintf(&full, "the case does not compile: %s: %s", where,
	        json_is_string(msg) ? json_string_value(msg) : "") < 0)
		full = NULL;
	json_object_set(e, "detail", msg);
	json_object_set_new(e, "message", json_string(full != NULL ? full : "the case does not compile"));
	free(full);
	json_object_set_new(e, "code", json_string("case_error"));
	api_json(resp, 422, json_pack("{s:o}", "error", e));
}

static void api_case_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct case_outcome out = { 0 };
	struct svc_error e;
	struct case_spec c;
	const char *names[MAX_BUILDS];
	char location[64], client[FAIRQ_KEY];
	int fail_on_differ, fail_on_error, references, nnames = -1;
	json_t *body = NULL, *extra = NULL;

	case_init(&c);
	if ((fail_on_differ = api_query_bool(req, "fail_on_differ", resp)) < 0 ||
	    (fail_on_error = api_query_bool(req, "fail_on_error", resp)) < 0 ||
	    (references = api_query_bool(req, "references", resp)) < 0 ||
	    (body = api_body(req, resp)) == NULL || api_parse_case(body, &c, resp) < 0 ||
	    (nnames = api_build_names(body, names, resp)) < 0) {
		json_decref(body);
		case_release(&c);
		return;
	}
	/* A measured case waits its turn among the clients': by the token's
	 * name when one was sent, else by the peer's address. */
	if (req->who != NULL && req->who->name[0] != '\0')
		snprintf(client, sizeof client, "token %s", req->who->name);
	else
		snprintf(client, sizeof client, "address %s", req->peer);
	if (cases_submit(app, &c, names, nnames, client, &out, &e) < 0) {
		if (e.status == SVC_UNPROCESSABLE && out.case_error != NULL)
			api_case_error(out.case_error, resp);
		else
			api_svc(resp, &e);
	} else {
		/* Answer from what was stored, so POST and GET show the same thing. */
		int64_t case_id = out.case_id, comparison_id = out.comparison_id;
		int status = (out.diff != 0 && fail_on_differ) || (out.broken && fail_on_error) ? 409 : 201;
		snprintf(location, sizeof location, "/api/cases/%" PRId64, case_id);
		/* ?references=1: every released PHP's answer too (api_references.c),
		 * run once the builds' place in the pipeline is given back. */
		if (references)
			cases_done(app, &out);
		json_t *refs = references ? api_references_json(app, case_id, resp) : NULL;
		if (references && refs == NULL)
			goto done;
		extra = refs != NULL ? json_pack("{s:o}", "references", refs) : NULL;
		/* fail_on_error: a case "same" because every build crashed, timed
		 * out... ("ended") fails like a mismatch does with fail_on_differ. */
		api_case_reply(app, case_id, comparison_id, 0, status, location, extra, resp);
	}
done:
	json_decref(extra);
	cases_done(app, &out);
	case_release(&c);
	json_decref(body);
}

static int api_case_row(void *arg, const struct db_case_row *row)
{
	struct api_list_ctx *ctx = arg;
	json_t *o;

	if (api_list_full(ctx))
		return 0;
	o = json_pack("{s:o s:o s:o s:o s:I s:o s:o s:s s:o s:o s:o}", "id", api_id_or_null(row->id), "title",
	    text_json(row->title), "verdict", text_json(row->verdict), "differs",
	    api_list(row->differs != NULL ? row->differs : ""), "flags", (json_int_t)row->flags, "flag_names",
	    text_flag_names(row->flags), "created_at", api_time(row->created_at), "source",
	    row->source != NULL  ? "stored"
	        : row->reduced   ? "reduced"
	        : row->generated ? "generated"
	                         : "submitted",
	    "file", text_json(row->source), "comparison_id", api_id_or_null(row->comparison_id), "run_id",
	    api_id_or_null(row->run_id));
	/* A generated run's mismatch says which generated case it is: with id null,
	 * POST /api/runs/{run_id}/cases {"seed","index"} stores it in full. */
	if (o != NULL && row->generated && row->id <= 0)
		json_object_del(o, "differs"); /* not known until it is stored (docs/api.md) */
	if (o != NULL && row->generated)
		json_object_set_new(o, "generated",
		    json_pack("{s:i s:I s:I}", "version", genrun_version(), "seed", (json_int_t)row->gen_seed,
		        "index", (json_int_t)row->gen_index));
	return api_list_add(ctx, row->cursor > 0 ? row->cursor : row->id, o);
}

/* Is run run_id a generated run: 1, 0 another suite's, -1 after answering (no such run: 404). */
static int api_run_generated(struct app *app, int64_t run_id, struct http_response *resp)
{
	struct db_run run;
	int generated;

	if (api_run_find(app, run_id, &run, resp) < 0)
		return -1;
	generated = strcmp(run.suite, "generated") == 0;
	db_run_release(&run);
	return generated;
}

/* GET /api/cases and GET /api/runs/{id}/cases. */
void api_cases_list(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp)
{
	struct db_case_filter f;
	struct api_list_ctx ctx = { NULL, 0, 0, 0 };
	const char *v;
	char err[512], next[256];
	int generated = 0;

	memset(&f, 0, sizeof f);
	f.run_id = run_id;
	if ((v = http_query(req, "verdict")) != NULL) {
		if (strcmp(v, "same") != 0 && strcmp(v, "differ") != 0 && strcmp(v, "error") != 0 &&
		    strcmp(v, "unsupported") != 0) {
			api_error(
			    resp, 400, "bad_request", "verdict: expected same, differ, error or unsupported");
			return;
		}
		f.verdict = v;
	}
	/* ?source=stored,submitted,reduced (one or more): a mask (db_case_filter). */
	if ((v = http_query(req, "source")) != NULL) {
		static const char *const names[] = { "stored", "submitted", "reduced" };
		if (strlen(v) > 32) {
			api_error(resp, 400, "bad_request", "source: at most 32 bytes");
			return;
		}
		for (const char *p = v, *q;; p = q + 1) {
			size_t n = strcspn(p, ","), i;
			q = p + n;
			for (i = 0; i < 3 && !(strlen(names[i]) == n && strncmp(names[i], p, n) == 0); i++)
				;
			if (i == 3) {
				api_error(resp, 400, "bad_request",
				    "source: expected stored, submitted or reduced (or several, comma-separated)");
				return;
			}
			f.source |= 1 << i;
			if (*q == '\0')
				break;
		}
	}
	if (api_page(req, &f.limit, &f.before, resp) < 0)
		return;
	if (run_id > 0 && (generated = api_run_generated(app, run_id, resp)) < 0)
		return;
	if ((ctx.items = json_array()) == NULL) {
		api_fail(resp, "out of memory");
		return;
	}
	ctx.limit = f.limit;
	f.limit++; /* one more row: is there a next page? */
	/* A generated run lists its mismatches, stored in full or not (read-only). */
	if ((generated ? genrun_cases_list(app, &f, api_case_row, &ctx, err, sizeof err)
	               : db_cases_list(app->db, &f, api_case_row, &ctx, err, sizeof err)) < 0) {
		json_decref(ctx.items);
		api_fail(resp, err);
		return;
	}
	if (run_id > 0)
		snprintf(next, sizeof next, "/api/runs/%" PRId64 "/cases?", run_id);
	else
		snprintf(next, sizeof next, "/api/cases?");
	snprintf(next + strlen(next), sizeof next - strlen(next), "%s%s%s%s%s%slimit=%d&before=%" PRId64,
	    f.verdict != NULL ? "verdict=" : "", f.verdict != NULL ? f.verdict : "",
	    f.verdict != NULL ? "&" : "", f.source != 0 ? "source=" : "",
	    f.source != 0 ? http_query(req, "source") : "", f.source != 0 ? "&" : "", ctx.limit, ctx.last_id);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "cases", ctx.items, "next", ctx.more ? json_string(next) : json_null()));
}

/*
 * POST /api/generated {"seed":S,"index":I}: a generated case, made again from
 * (generator version, seed, index), run from its PHP source on both builds
 * like a submitted case and stored.  The answer is POST /api/cases's plus
 * "generated" (which case, and whether its source reproduces on each build
 * what the generated value gave) and "phpt" (the case in the stored format,
 * to save under cases/).
 */
static void api_generated_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct case_outcome out = { 0 };
	struct svc_error e;
	char location[64];
	uint64_t seed, index;
	json_t *body, *extra, *reproduces;
	int rc, fail_on_differ;

	if ((fail_on_differ = api_query_bool(req, "fail_on_differ", resp)) < 0)
		return;
	if ((body = api_body(req, resp)) == NULL)
		return;
	rc = api_generated_ref(body, &seed, &index, resp);
	json_decref(body);
	if (rc < 0)
		return;
	if (cases_generated(app, seed, index, &out, &e) < 0) {
		api_svc(resp, &e);
		cases_done(app, &out);
		return;
	}
	/* By role ("base", "head", "cand2"...), whether the source reproduces the generated value. */
	reproduces = json_object();
	for (int i = 0; i < out.nbuilds; i++)
		json_object_set_new(reproduces, role_name(i), json_boolean(out.reproduces[i]));
	extra = json_pack("{s:{s:i s:I s:I s:o} s:o}", "generated", "version", genrun_version(), "seed",
	    (json_int_t)seed, "index", (json_int_t)index, "reproduces", reproduces, "phpt",
	    out.phpt != NULL ? text_json(out.phpt) : json_null());
	snprintf(location, sizeof location, "/api/cases/%" PRId64, out.case_id);
	api_case_reply(app, out.case_id, out.comparison_id, 0, out.diff != 0 && fail_on_differ ? 409 : 201,
	    location, extra, resp);
	json_decref(extra);
	cases_done(app, &out);
}

/*
 * POST /api/runs/{id}/cases {"seed":S,"index":I}: one mismatch of a generated
 * run, listed by its (seed, index), stored in full -- made again on every
 * build the run had, with a comparison in the run.  201 stored now, 200
 * stored before; the answer is the case as GET /api/cases/{id} shows it.
 */
void api_run_case_post(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp)
{
	struct case_outcome out;
	struct svc_error e;
	char location[64];
	uint64_t seed, index;
	json_t *body;
	int rc, generated;

	if ((generated = api_run_generated(app, run_id, resp)) < 0)
		return;
	if (!generated) {
		api_error(resp, 409, "not_generated",
		    "run %" PRId64 " is not a generated run: its cases are stored in full already", run_id);
		return;
	}
	if ((body = api_body(req, resp)) == NULL)
		return;
	rc = api_generated_ref(body, &seed, &index, resp);
	json_decref(body);
	if (rc < 0)
		return;
	if (cases_store_listed(app, run_id, seed, index, &out, &e) < 0) {
		api_svc(resp, &e);
	} else {
		snprintf(location, sizeof location, "/api/cases/%" PRId64, out.case_id);
		api_case_reply(
		    app, out.case_id, out.comparison_id, 0, out.stored_now ? 201 : 200, location, NULL, resp);
	}
	cases_done(app, &out);
}

/* ---- routing ---- */

void api_route_cases(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_cases_list(app, req, 0, resp);
}

void api_route_case_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_case_post(app, req, resp);
}

void api_route_case(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *cv = http_query(req, "comparison");
	int64_t cmp_id = id_parse_str(cv);

	if (cv != NULL && cmp_id <= 0)
		api_error(resp, 400, "bad_request", "comparison: expected a positive integer id");
	else
		api_case_reply(app, a->id, cmp_id, 1, 200, NULL, NULL, resp);
}

void api_route_generated(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_generated_post(app, req, resp);
}

/*
 * GET /api/comparisons/{id}/output/{role} and .../printed/{role}: the exact
 * bytes (up to 16 MiB).  One copy per stored value however many clients
 * download it at once: the bytes are read once (that result's column alone,
 * not the whole comparison) and every answer sends from that copy, which
 * goes when the last of them is sent.  At most API_MAX_DOWNLOADS answers
 * at once and API_DOWNLOAD_BYTES held; beyond, 503 busy.  A client reading
 * slowly holds its connection and its share of the copy, not a place
 * among --max-connections (http.c) nor the database.
 */
#define API_MAX_DOWNLOADS 16
#define API_DOWNLOAD_BYTES (64u << 20)

struct api_download {
	int64_t comparison_id;
	int role, printed;
	char *data;
	size_t len;
	int refs;    /* answers sending it or waiting for it; 0: a free slot */
	int loading; /* the first answer is reading it from the database */
	int failed;  /* ...and could not: the others answer 503 */
};

static struct api_download api_downloads[API_MAX_DOWNLOADS];
static int api_downloads_active; /* answers holding a place */
static size_t api_downloads_bytes;
static pthread_mutex_t api_downloads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t api_downloads_loaded = PTHREAD_COND_INITIALIZER;

/* Drop one answer's reference (and its place); under api_downloads_lock. */
static void api_download_unref(struct api_download *d)
{
	api_downloads_active--;
	if (--d->refs == 0) {
		api_downloads_bytes -= d->len;
		free(d->data);
		memset(d, 0, sizeof *d);
	}
}

static void api_download_release(void *arg)
{
	pthread_mutex_lock(&api_downloads_lock);
	api_download_unref(arg);
	pthread_mutex_unlock(&api_downloads_lock);
}

static void api_download_busy(struct http_response *resp, const char *why)
{
	api_error(resp, 503, "busy", "%s; retry in 1 s", why);
	resp->retry_after = 1;
}

static void api_result_bytes(
    struct app *app, int64_t comparison_id, int printed, const char *role, struct http_response *resp)
{
	struct api_download *d = NULL;
	char err[512], *data;
	size_t len;
	int r = !strcmp(role, "base") ? ROLE_BASE : !strcmp(role, "head") ? ROLE_HEAD : -1, rc, is_false, i;
	int no_output;

	if (r < 0) {
		api_error(resp, 404, "not_found", "no build role \"%.16s\" (base or head)", role);
		return;
	}
	pthread_mutex_lock(&api_downloads_lock);
	if (api_downloads_active >= API_MAX_DOWNLOADS) {
		pthread_mutex_unlock(&api_downloads_lock);
		api_download_busy(resp, "the daemon is sending 16 downloads, its limit");
		return;
	}
	api_downloads_active++; /* this answer's place, held until MHD is done */
	for (i = 0; i < API_MAX_DOWNLOADS && d == NULL; i++)
		if (api_downloads[i].refs > 0 && api_downloads[i].comparison_id == comparison_id &&
		    api_downloads[i].role == r && api_downloads[i].printed == printed)
			d = &api_downloads[i];
	if (d != NULL) {
		/* Being sent already, or being read: wait for the one copy. */
		d->refs++;
		while (d->loading)
			pthread_cond_wait(&api_downloads_loaded, &api_downloads_lock);
		if (d->failed) {
			api_download_unref(d);
			pthread_mutex_unlock(&api_downloads_lock);
			api_download_busy(resp, "these bytes could not be read just now");
			return;
		}
		pthread_mutex_unlock(&api_downloads_lock);
	} else {
		/* A free slot exists: every used one holds a place, and this
		 * answer holds one with none yet. */
		for (i = 0; i < API_MAX_DOWNLOADS && d == NULL; i++)
			if (api_downloads[i].refs == 0)
				d = &api_downloads[i];
		d->comparison_id = comparison_id;
		d->role = r;
		d->printed = printed;
		d->refs = 1;
		d->loading = 1;
		pthread_mutex_unlock(&api_downloads_lock);
		rc = db_result_bytes(
		    app->db, comparison_id, role, printed, &data, &len, &is_false, err, sizeof err);
		no_output = rc > 0 && !printed && (is_false || data == NULL);
		pthread_mutex_lock(&api_downloads_lock);
		d->loading = 0;
		if (rc <= 0 || no_output || api_downloads_bytes + len > API_DOWNLOAD_BYTES) {
			d->failed = 1;
			pthread_cond_broadcast(&api_downloads_loaded);
			api_download_unref(d);
			pthread_mutex_unlock(&api_downloads_lock);
			free(data);
			if (rc < 0)
				api_fail(resp, err);
			else if (rc == 0)
				api_error(resp, 404, "not_found", "no comparison %" PRId64, comparison_id);
			else if (no_output)
				api_error(resp, 404, "not_found",
				    "json_encode() returned false on %s: there is no output", role);
			else
				api_download_busy(resp, "the daemon holds 64 MiB of downloads, its limit");
			return;
		}
		d->data = data;
		d->len = len;
		api_downloads_bytes += len;
		pthread_cond_broadcast(&api_downloads_loaded);
		pthread_mutex_unlock(&api_downloads_lock);
	}
	resp->status = 200;
	resp->shared = d->data;
	resp->shared_len = d->len;
	resp->release = api_download_release;
	resp->release_arg = d;
	resp->content_type = "application/octet-stream";
	snprintf(resp->disposition, sizeof resp->disposition, "inline; filename=\"phpcmp-%" PRId64 "-%s.%s\"",
	    comparison_id, role, printed ? "printed" : "json");
}

void api_route_result_output(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_result_bytes(app, a->id, 0, a->role, resp);
}

void api_route_result_printed(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_result_bytes(app, a->id, 1, a->role, resp);
}
