/*
 * The JSON API of docs/api.md: the router (one row per endpoint), the
 * answers (api_json, api_error, api_fail: the one error mapper) and request
 * bodies.  Each resource's handlers are in api_<resource>.c.
 *
 * Every string that came from PHP or a case file may hold any bytes; it goes
 * out through text_json(), which keeps valid UTF-8 as is and shows other bytes
 * as \xNN, so a response is always valid JSON.  Byte strings (output,
 * printed) also go out exactly, in base64.
 */
#include <stdarg.h>
#include <strings.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "api_internal.h"

enum api_method { M_GET = 1 << 0, M_POST = 1 << 1, M_DELETE = 1 << 2 };

/* ---- JSON building blocks ---- */

/*
 * Every endpoint of docs/api.md, one row each: adding one is a row and a
 * handler.  A pattern's segments are literals, ":id" (an id, strictly: not
 * one is a 404 naming the "what"), ":role", ":file" or ":name".  Rows with the same pattern
 * make its Allow header; a literal row must come before a ":id" row that
 * would also match its path (/api/buckets/triage before /api/buckets/:id).
 * "open": readable without a token even with --read-auth.  "query": the
 * query parameters a write accepts (space-separated); any other one on a
 * POST is refused with 400, not silently ignored.
 */
static const struct api_route {
	unsigned method;
	const char *pattern;
	api_handler *handler;
	const char *what; /* the resource ":id" names */
	int open;
	const char *query; /* POST: the query parameters accepted, NULL for none */
} api_routes[] = {
	{ M_GET, "/api/health", api_route_health, NULL, 1, NULL },
	{ M_GET, "/api/flags", api_route_flags, NULL, 0, NULL },
	{ M_GET, "/api/builds", api_route_builds, NULL, 0, NULL },
	{ M_POST, "/api/builds", api_route_build_post, NULL, 0, NULL },
	{ M_DELETE, "/api/builds/:name", api_route_build_delete, NULL, 0, NULL },
	{ M_GET, "/api/reviews", api_route_reviews, NULL, 0, NULL },
	{ M_POST, "/api/reviews", api_route_review_post, NULL, 0, NULL },
	{ M_GET, "/api/reviews/:id", api_route_review, "review", 0, NULL },
	{ M_GET, "/api/cases", api_route_cases, NULL, 0, NULL },
	{ M_POST, "/api/cases", api_route_case_post, NULL, 0, "fail_on_differ fail_on_error references" },
	{ M_GET, "/api/cases/:id", api_route_case, "case", 0, NULL },
	{ M_GET, "/api/cases/:id/phpt", api_route_case_phpt, "case", 0, NULL },
	{ M_GET, "/api/cases/:id/casefile", api_route_case_casefile, "case", 0, NULL },
	{ M_GET, "/api/cases/:id/references", api_route_case_references, "case", 0, NULL },
	{ M_GET, "/api/runs", api_route_runs, NULL, 0, NULL },
	{ M_POST, "/api/runs", api_route_run_post, NULL, 0, "wait fail_on_differ fail_on_error" },
	{ M_GET, "/api/runs/:id", api_route_run, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/cases", api_route_run_cases, "run", 0, NULL },
	{ M_POST, "/api/runs/:id/cases", api_route_run_case_post, "run", 0, NULL },
	{ M_POST, "/api/runs/:id/cancel", api_route_run_cancel, "run", 0, NULL },
	{ M_POST, "/api/runs/:id/resume", api_route_run_resume, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/measurements", api_route_run_measurements, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/report.md", api_route_run_report, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/phpt", api_route_run_phpt, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/coverage", api_route_run_coverage, "run", 0, NULL },
	{ M_GET, "/api/runs/:id/coverage/:role/:file", api_route_run_coverage_file, "run", 0, NULL },
	{ M_GET, "/api/workloads/history", api_route_workload_history, NULL, 0, NULL },
	{ M_GET, "/api/comparisons/:id/callgrind/:role", api_route_callgrind, "comparison", 0, NULL },
	{ M_GET, "/api/comparisons/:id/functions", api_route_functions, "comparison", 0, NULL },
	{ M_GET, "/api/comparisons/:id/output/:role", api_route_result_output, "comparison", 0, NULL },
	{ M_GET, "/api/comparisons/:id/printed/:role", api_route_result_printed, "comparison", 0, NULL },
	{ M_POST, "/api/generated", api_route_generated, NULL, 0, "fail_on_differ" },
	{ M_GET, "/api/buckets", api_route_buckets, NULL, 0, NULL },
	{ M_POST, "/api/buckets/triage", api_route_buckets_triage, NULL, 0, NULL },
	{ M_GET, "/api/buckets/:id", api_route_bucket, "bucket", 0, NULL },
	{ M_GET, "/api/buckets/:id/mismatches", api_route_bucket_mismatches, "bucket", 0, NULL },
	{ M_POST, "/api/buckets/:id/triage", api_route_bucket_triage, "bucket", 0, NULL },
	{ M_GET, "/api/triage/events", api_route_triage_events, NULL, 0, NULL },
	{ M_GET, "/api/roots", api_route_roots, NULL, 0, NULL },
	{ M_POST, "/api/roots/:id/triage", api_route_root_triage, "root", 0, NULL },
};
#define API_NROUTES (sizeof(api_routes) / sizeof(api_routes[0]))

/* Does path have pattern's shape?  Fills a (":id" parsed strictly, 0 when it is no id). */
static int api_match(const char *pattern, const char *path, struct api_args *a)
{
	const char *p = pattern, *q = path;

	memset(a, 0, sizeof *a);
	for (;;) {
		size_t pl, ql;

		if (*p != '/' || *q != '/')
			return *p == '\0' && *q == '\0';
		p++, q++;
		pl = strcspn(p, "/");
		ql = strcspn(q, "/");
		if (ql == 0)
			return 0; /* an empty segment or a trailing slash */
		if (pl == 3 && memcmp(p, ":id", 3) == 0) {
			a->id = id_parse(q, ql);
			a->id_text = q;
		} else if (pl == 5 && memcmp(p, ":role", 5) == 0) {
			snprintf(a->role, sizeof a->role, "%.*s", (int)ql, q);
		} else if (pl == 5 && memcmp(p, ":file", 5) == 0) {
			snprintf(a->file, sizeof a->file, "%.*s", (int)ql, q);
		} else if (pl == 5 && memcmp(p, ":name", 5) == 0) {
			snprintf(a->name, sizeof a->name, "%.*s", (int)ql, q);
		} else if (pl != ql || memcmp(p, q, pl) != 0) {
			return 0;
		}
		p += pl;
		q += ql;
	}
}

/* The Allow header of a path by the methods its rows take. */
static const char *const api_allow_names[8] = {
	"GET, HEAD",
	"GET, HEAD",
	"POST",
	"GET, HEAD, POST",
	"DELETE",
	"GET, HEAD, DELETE",
	"POST, DELETE",
	"GET, HEAD, POST, DELETE",
};

/* Is key one of the space-separated names in list? */
static int api_query_listed(const char *list, const char *key)
{
	size_t n = strlen(key);

	while (list != NULL && *list != '\0') {
		size_t len = strcspn(list, " ");
		if (len == n && n > 0 && memcmp(list, key, n) == 0)
			return 1;
		list += len;
		list += strspn(list, " ");
	}
	return 0;
}

/* Answer one /api request; always fills resp. */
static void api_handle(struct app *app, const struct http_request *req, struct http_response *resp)
{
	const struct api_route *r = NULL;
	struct http_request authed;
	struct auth_who who;
	struct svc_error e;
	struct api_args args;
	unsigned method, allowed = 0;
	size_t i;

	memset(resp, 0, sizeof *resp);
	/* The first row of the path's shape picks the pattern; its rows, the methods. */
	for (i = 0; i < API_NROUTES; i++)
		if (api_match(api_routes[i].pattern, req->path, &args))
			break;
	if (i == API_NROUTES) {
		api_error(resp, 404, "not_found", "no such endpoint: %s", req->path);
		return;
	}
	if (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)
		method = M_GET;
	else if (strcmp(req->method, "POST") == 0)
		method = M_POST;
	else if (strcmp(req->method, "DELETE") == 0)
		method = M_DELETE;
	else
		method = 0;
	for (size_t j = i; j < API_NROUTES; j++) {
		if (strcmp(api_routes[j].pattern, api_routes[i].pattern) != 0)
			continue;
		allowed |= api_routes[j].method;
		if (api_routes[j].method & method)
			r = &api_routes[j];
	}
	if (r == NULL) {
		resp->allow = api_allow_names[allowed & 7];
		api_error(resp, 405, "method_not_allowed", "%.16s is not allowed on %s (allowed: %s)",
		    req->method, req->path, resp->allow);
		return;
	}
	if (req->query_overflow) {
		api_error(resp, 400, "bad_request", "too many query parameters: at most %d", HTTP_MAX_QUERY);
		return;
	}
	/* A write's query parameters are its options: one it does not know
	 * would otherwise be ignored without a word (fail_on_differ on a run). */
	if (method != M_GET)
		for (i = 0; i < req->nquery; i++)
			if (!api_query_listed(r->query, req->query[i].key)) {
				if (r->query != NULL)
					api_error(resp, 400, "bad_request",
					    "unknown query parameter %.64s on %s %s (accepted: %s)",
					    req->query[i].key, req->method, r->pattern, r->query);
				else
					api_error(resp, 400, "bad_request",
					    "unknown query parameter %.64s: %s %s takes none",
					    req->query[i].key, req->method, r->pattern);
				return;
			}
	/* Every write is checked here, so an endpoint added later is covered
	 * without a call of its own; handlers find the sender in req->who. */
	if (method != M_GET) {
		if (auth_identity(app, req->authorization, &who, &e) < 0) {
			api_svc(resp, &e);
			return;
		}
		authed = *req;
		authed.who = &who;
		req = &authed;
	} else if (!r->open && auth_read(app, req->authorization, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	if (r->what != NULL && args.id <= 0) {
		api_error(resp, 404, "not_found", "no %s %.32s", r->what, args.id_text);
		return;
	}
	r->handler(app, req, &args, resp);
}

static void api_answer(void *app, const struct http_request *req, struct http_response *resp)
{
	api_handle(app, req, resp);
}

static void api_refusal(struct http_response *resp, int status, const char *code, const char *message)
{
	api_error(resp, status, code, "%s", message);
}

struct http_handler api_http_handler(struct app *app)
{
	struct http_handler h = { api_answer, api_refusal, app };

	return h;
}
