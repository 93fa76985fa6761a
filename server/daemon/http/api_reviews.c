/* /api/reviews: phpcmp review --url's verdicts and reports (service/reviews.c, docs/review.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

#define API_REVIEW_MAX_BUILDS 16

/* A review as the API shows it; with its report when r->report_md is set. */
static json_t *api_review_json(const struct db_review *r)
{
	char url[64], api_url[64];
	json_t *o, *builds, *runs;

	snprintf(url, sizeof url, "/#/reviews/%" PRId64, r->id);
	snprintf(api_url, sizeof api_url, "/api/reviews/%" PRId64, r->id);
	builds = r->builds != NULL ? json_loads(r->builds, 0, NULL) : NULL;
	runs = r->runs != NULL ? json_loads(r->runs, 0, NULL) : NULL;
	o = json_pack("{s:I s:s s:s s:o s:o s:o s:o s:o s:s s:s}", "id", (json_int_t)r->id, "url", url,
	    "api_url", api_url, "label", text_json(r->label), "verdict", text_json(r->verdict), "builds",
	    builds != NULL ? builds : json_array(), "runs", runs != NULL ? runs : json_object(), "created_by",
	    r->created_by[0] != '\0' ? text_json(r->created_by) : json_null(), "created_at", r->created_at,
	    "report_url", api_url);
	if (o != NULL && r->report_md != NULL)
		json_object_set_new(o, "report_md", text_json(r->report_md));
	return o;
}

static int api_review_row(void *arg, const struct db_review *r)
{
	struct api_list_ctx *ctx = arg;

	return api_list_full(ctx) ? 0 : api_list_add(ctx, r->id, api_review_json(r));
}

void api_route_reviews(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct api_list_ctx ctx = { NULL, 0, 0, 0 };
	char err[512], next[128];
	int64_t before;
	int limit;

	(void)a;
	if (api_page(req, &limit, &before, resp) < 0)
		return;
	if ((ctx.items = json_array()) == NULL) {
		api_fail(resp, "out of memory");
		return;
	}
	ctx.limit = limit;
	if (db_review_list(app->db, limit + 1, before, api_review_row, &ctx, err, sizeof err) < 0) {
		json_decref(ctx.items);
		api_fail(resp, err);
		return;
	}
	snprintf(next, sizeof next, "/api/reviews?limit=%d&before=%" PRId64, limit, ctx.last_id);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "reviews", ctx.items, "next", ctx.more ? json_string(next) : json_null()));
}

void api_route_review(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct db_review r;
	char err[512];
	int rc;

	(void)req;
	if ((rc = db_review_get(app->db, a->id, &r, err, sizeof err)) < 0) {
		api_fail(resp, err);
		return;
	}
	if (rc == 0) {
		api_error(resp, 404, "not_found", "no review %" PRId64, a->id);
		return;
	}
	api_json(resp, 200, api_review_json(&r));
	db_review_release(&r);
}

/* The body's fields into in (strings point into body; builds and runs are
 * dumped into *builds_text and *runs_text, the caller's to free): 0, or -1
 * after answering 400. */
static int api_review_parse(
    json_t *body, struct review_input *in, char **builds_text, char **runs_text, struct http_response *resp)
{
	json_t *label = json_object_get(body, "label"), *verdict = json_object_get(body, "verdict");
	json_t *builds = json_object_get(body, "builds"), *runs = json_object_get(body, "runs");
	json_t *report = json_object_get(body, "report_md"), *v;
	const char *key;
	size_t i;

	json_object_foreach (body, key, v)
		if (strcmp(key, "label") != 0 && strcmp(key, "verdict") != 0 && strcmp(key, "builds") != 0 &&
		    strcmp(key, "runs") != 0 && strcmp(key, "report_md") != 0) {
			api_error(resp, 400, "bad_request",
			    "unknown field \"%.64s\" (known: label, verdict, builds, runs, report_md)", key);
			return -1;
		}
	if (!json_is_string(label) || !build_name_ok(json_string_value(label), json_string_length(label)))
		return api_error(resp, 400, "bad_request", "label: 1 to 63 of A-Z a-z 0-9 . _ - @"), -1;
	if (!json_is_string(verdict) ||
	    (strcmp(json_string_value(verdict), "same") != 0 &&
	        strcmp(json_string_value(verdict), "differ") != 0))
		return api_error(resp, 400, "bad_request", "verdict: \"same\" or \"differ\""), -1;
	if (!json_is_string(report) || strlen(json_string_value(report)) != json_string_length(report))
		return api_error(
		           resp, 400, "bad_request", "report_md: expected the report's Markdown, no NUL"),
		       -1;
	if (builds == NULL)
		builds = json_array();
	else
		json_incref(builds);
	if (!json_is_array(builds) || json_array_size(builds) > API_REVIEW_MAX_BUILDS) {
		json_decref(builds);
		return api_error(resp, 400, "bad_request", "builds: expected a list of at most %d objects",
		           API_REVIEW_MAX_BUILDS),
		       -1;
	}
	json_array_foreach (builds, i, v)
		if (!json_is_object(v) || !json_is_string(json_object_get(v, "name"))) {
			json_decref(builds);
			return api_error(
			           resp, 400, "bad_request", "builds[%zu]: expected {\"name\": ...}", i),
			       -1;
		}
	if (runs != NULL && (!json_is_object(runs) || json_object_size(runs) > REVIEW_MAX_RUNS)) {
		json_decref(builds);
		return api_error(resp, 400, "bad_request", "runs: expected {\"NAME\": RUN_ID}, at most %d",
		           REVIEW_MAX_RUNS),
		       -1;
	}
	in->nruns = 0;
	json_object_foreach (runs, key, v) {
		if (!json_is_integer(v) || json_integer_value(v) <= 0) {
			json_decref(builds);
			return api_error(resp, 400, "bad_request", "runs.%.64s: expected a run id", key), -1;
		}
		in->run_names[in->nruns] = key;
		in->run_ids[in->nruns++] = json_integer_value(v);
	}
	in->label = json_string_value(label);
	in->verdict = json_string_value(verdict);
	in->report_md = json_string_value(report);
	*builds_text = json_dumps(builds, JSON_COMPACT);
	*runs_text = json_dumps(runs != NULL ? runs : json_object(), JSON_COMPACT);
	json_decref(builds);
	if (*builds_text == NULL || *runs_text == NULL)
		return api_error(resp, 500, "internal", "out of memory"), -1;
	in->builds = *builds_text;
	in->runs = *runs_text;
	return 0;
}

void api_route_review_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct review_input in;
	struct svc_error e;
	char *builds = NULL, *runs = NULL;
	json_t *body;
	int64_t id;

	(void)a;
	memset(&in, 0, sizeof in);
	if ((body = api_body(req, resp)) == NULL)
		return;
	if (api_review_parse(body, &in, &builds, &runs, resp) == 0) {
		if (reviews_add(app, &in,
		        req->who != NULL && req->who->name[0] != '\0' ? req->who->name : NULL, &id, &e) < 0) {
			api_svc(resp, &e);
		} else {
			struct db_review r;
			char err[512];
			if (db_review_get(app->db, id, &r, err, sizeof err) == 1) {
				api_json(resp, 201, api_review_json(&r));
				snprintf(resp->location, sizeof resp->location, "/api/reviews/%" PRId64, id);
				db_review_release(&r);
			} else {
				api_fail(resp, err);
			}
		}
	}
	free(builds);
	free(runs);
	json_decref(body);
}
