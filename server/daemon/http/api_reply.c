/*
 * The API's answers and requests, for every resource file: a JSON body or a
 * JSON error (api_fail: the one mapper of the daemon's own failures, storage
 * full -> 503 everywhere), query parameters, request bodies, pages.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "api_reply.h"

#define API_DEFAULT_LIMIT 50
#define API_MAX_LIMIT 500

/* "" -> null, else the text. */
int api_list_full(struct api_list_ctx *ctx)
{
	if ((int)json_array_size(ctx->items) < ctx->limit)
		return 0;
	ctx->more = 1;
	return 1;
}

int api_list_add(struct api_list_ctx *ctx, int64_t id, json_t *o)
{
	ctx->last_id = id;
	return json_array_append_new(ctx->items, o);
}

json_t *api_time(const char *s)
{
	return s != NULL && *s != '\0' ? text_json(s) : json_null();
}

json_t *api_list(const char *s)
{
	json_t *a = json_array();
	const char *p = s, *q;

	while (a != NULL && p != NULL && *p != '\0') {
		q = strchr(p, ',');
		json_array_append_new(a, text_jsonn(p, q != NULL ? (size_t)(q - p) : strlen(p), NULL));
		p = q != NULL ? q + 1 : NULL;
	}
	return a;
}

json_t *api_id_or_null(int64_t id)
{
	return id > 0 ? json_integer(id) : json_null();
}

void api_result_url(int64_t comparison_id, const char *what, const char *role, char *url, size_t size)
{
	snprintf(url, size, "/api/comparisons/%" PRId64 "/%s/%s", comparison_id, what, role);
}

static void api_reply(struct http_response *resp, int status, json_t *body)
{
	resp->status = status;
	resp->content_type = "application/json";
	if (body == NULL) {
		api_error(resp, 500, "internal", "out of memory building the response");
		return;
	}
	resp->body = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (resp->body == NULL) {
		api_error(resp, 500, "internal", "out of memory building the response");
		return;
	}
	resp->body_len = strlen(resp->body);
}

void api_error(struct http_response *resp, int status, const char *code, const char *fmt, ...)
{
	static const char fallback[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
	char msg[1024];
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	resp->status = status;
	resp->content_type = "application/json";
	o = json_pack("{s:{s:s s:o}}", "error", "code", code, "message", text_json(msg));
	resp->body = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (resp->body == NULL) {
		resp->status = 500;
		resp->body = strdup(fallback);
	}
	resp->body_len = resp->body != NULL ? strlen(resp->body) : 0;
}

void api_json(struct http_response *resp, int status, json_t *body)
{
	api_reply(resp, status, body);
}

/* The daemon's own failure, the one error mapper: a storage error
 * (db_last_error) is 503 while it may pass (full, read-only, unavailable,
 * busy: with Retry-After), 500 storage_corrupt; anything else a 500. */
void api_fail(struct http_response *resp, const char *err)
{
	static const struct {
		int status, retry_after;
		const char *code;
	} answer[] = {
		[DB_ERR_NONE] = { 500, 0, "internal" },
		[DB_ERR_FULL] = { 503, 60, "storage_full" },
		[DB_ERR_READONLY] = { 503, 60, "storage_readonly" },
		[DB_ERR_UNAVAILABLE] = { 503, 60, "storage_unavailable" },
		[DB_ERR_BUSY] = { 503, 1, "storage_busy" },
		[DB_ERR_CORRUPT] = { 500, 0, "storage_corrupt" },
		[DB_ERR_OTHER] = { 500, 0, "internal" },
	};
	enum db_error e = db_last_error();

	api_error(resp, answer[e].status, answer[e].code, "%s", err);
	resp->retry_after = answer[e].retry_after;
}

/* A service's error (services.h) as an answer: the one mapping of svc_status.  A
 * service's own code (e->code) replaces the status's. */
void api_svc(struct http_response *resp, const struct svc_error *e)
{
	static const struct {
		int status, retry_after;
		const char *code;
	} answer[] = {
		[SVC_OK] = { 500, 0, "internal" },
		[SVC_BAD_REQUEST] = { 400, 0, "bad_request" },
		[SVC_UNAUTHORIZED] = { 401, 0, "token_required" },
		[SVC_NOT_FOUND] = { 404, 0, "not_found" },
		[SVC_CONFLICT] = { 409, 0, "conflict" },
		[SVC_UNPROCESSABLE] = { 422, 0, "unprocessable" },
		[SVC_BUSY] = { 503, 1, "busy" },
		[SVC_UNAVAILABLE] = { 503, 0, "unavailable" },
		[SVC_STORAGE] = { 0, 0, NULL }, /* api_fail: storage says which */
		[SVC_INTERNAL] = { 500, 0, "internal" },
	};
	unsigned s = (unsigned)e->status < sizeof answer / sizeof answer[0] ? e->status : SVC_INTERNAL;

	if (s == SVC_STORAGE) {
		api_fail(resp, e->message);
		return;
	}
	api_error(resp, answer[s].status, e->code != NULL ? e->code : answer[s].code, "%s", e->message);
	if (answer[s].retry_after > 0)
		resp->retry_after = answer[s].retry_after;
	if (s == SVC_UNAUTHORIZED)
		resp->www_authenticate = e->challenge;
}

void api_runs_refusal(struct http_response *resp, int status, const char *err)
{
	switch (status) {
	case RUNS_BAD_REQUEST:
		api_error(resp, 400, "bad_request", "%s", err);
		break;
	case RUNS_NOT_SERVED:
		api_error(resp, 400, "phpt_dir_not_served", "%s", err);
		break;
	case RUNS_NOT_FOUND:
		api_error(resp, 404, "not_found", "%s", err);
		break;
	case RUNS_UNPROCESSABLE:
		api_error(resp, 422, "reference_unsupported", "%s", err);
		break;
	case RUNS_CONFLICT:
		api_error(resp, 409, "conflict", "%s", err);
		break;
	case RUNS_TOO_MANY:
		api_error(resp, 429, "too_many_runs", "%s", err);
		resp->retry_after = 30;
		break;
	default:
		api_fail(resp, err);
		break;
	}
}

/* A boolean query switch: 1, 0, or -1 with resp filled. */
int api_query_bool(const struct http_request *req, const char *key, struct http_response *resp)
{
	const char *v = http_query(req, key);

	if (v == NULL || strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
		return 0;
	if (*v == '\0' || strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
		return 1;
	api_error(resp, 400, "bad_request", "%s: expected 1 or 0", key);
	return -1;
}

/* JSON body check and parse; NULL with resp filled on error. */
json_t *api_body(const struct http_request *req, struct http_response *resp)
{
	json_error_t jerr;
	const char *ct = req->content_type;
	size_t n;
	json_t *j;

	if (ct != NULL) {
		n = strcspn(ct, "; \t");
		if (n != strlen("application/json") || strncasecmp(ct, "application/json", n) != 0) {
			api_error(resp, 415, "unsupported_media_type",
			    "Content-Type %.100s is not application/json", ct);
			return NULL;
		}
	}
	/* NUL inside strings is let through the parser so the field check can name the field. */
	if ((j = json_loadb(req->body, req->body_len,
	         JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr)) == NULL) {
		api_error(resp, 400, "bad_json", "body is not valid JSON: line %d, column %d: %s", jerr.line,
		    jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		api_error(resp, 400, "bad_request", "body: expected a JSON object");
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The body's "builds" (names, base first) into names[] (they point into
 * body): their count, 0 when absent (every active build), or -1 after
 * answering 400. */
int api_build_names(json_t *body, const char *names[MAX_BUILDS], struct http_response *resp)
{
	json_t *v = json_object_get(body, "builds"), *name;
	size_t i;

	if (v == NULL)
		return 0;
	if (!json_is_array(v) || json_array_size(v) < 2 || json_array_size(v) > MAX_BUILDS) {
		api_error(resp, 400, "bad_request",
		    "builds: expected a list of 2 to %d build names, the base first", MAX_BUILDS);
		return -1;
	}
	json_array_foreach (v, i, name) {
		if (!json_is_string(name) || strlen(json_string_value(name)) != json_string_length(name)) {
			api_error(resp, 400, "bad_request", "builds[%zu]: expected a build name", i);
			return -1;
		}
		names[i] = json_string_value(name);
	}
	return (int)json_array_size(v);
}

/* limit and before of a listing; 0 or -1 with resp filled. */
int api_page(const struct http_request *req, int *limit, int64_t *before, struct http_response *resp)
{
	const char *v;
	int64_t n;

	*limit = API_DEFAULT_LIMIT;
	*before = 0;
	if ((v = http_query(req, "limit")) != NULL) {
		n = id_parse(v, strlen(v));
		if (n < 1 || n > API_MAX_LIMIT) {
			api_error(
			    resp, 400, "bad_request", "limit: expected an integer 1 .. %d", API_MAX_LIMIT);
			return -1;
		}
		*limit = (int)n;
	}
	if ((v = http_query(req, "before")) != NULL) {
		if ((*before = id_parse(v, strlen(v))) < 1) {
			api_error(resp, 400, "bad_request", "before: expected a positive integer id");
			return -1;
		}
	}
	return 0;
}

int api_run_find(struct app *app, int64_t id, struct db_run *run, struct http_response *resp)
{
	char err[512];
	int rc = db_run_get(app->db, id, run, err, sizeof err);

	if (rc > 0)
		return 0;
	if (rc < 0)
		api_fail(resp, err);
	else
		api_error(resp, 404, "not_found", "no run %" PRId64, id);
	return -1;
}
