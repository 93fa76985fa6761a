/*
 * api_reply.c: what every resource file answers with and reads requests
 * through: a JSON body or the API's JSON error, the one mapping of the
 * daemon's own failures (storage, services, the runner) to statuses, and
 * the pieces of listings and bodies more than one resource uses.
 */
#ifndef PHPCMP_API_REPLY_H
#define PHPCMP_API_REPLY_H

#include "http.h"
#include "services.h"

/* A request's JSON object body, or NULL after answering 400/413/415. */
struct json_t *api_body(const struct http_request *, struct http_response *resp);
/* Fill resp with a JSON body (takes the reference). */
void api_json(struct http_response *, int status, struct json_t *body);
/* A boolean query switch (1/true/empty, 0/false): 1, 0, or -1 with resp filled (400). */
int api_query_bool(const struct http_request *req, const char *key, struct http_response *resp);
/* The daemon's own failure: a storage error (db_last_error) as its answer
 * (503 storage_full, Retry-After...), else 500 internal. */
void api_fail(struct http_response *, const char *err);
/* A service's error (services.h) as its HTTP answer. */
struct svc_error;
void api_svc(struct http_response *, const struct svc_error *);
/* The runner's refusal (engine.h, enum runs_refusal) and why, as its HTTP answer. */
void api_runs_refusal(struct http_response *, int refusal, const char *err);
/* Fill resp with a JSON error. */
void api_error(struct http_response *, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A page being built: rows past limit only tell that there is a next page. */
struct api_list_ctx {
	struct json_t *items;
	int64_t last_id;
	int limit, more;
};

/* A listing's row callbacks: is the page full (then there is a next page:
 * ctx->more set)?  1 or 0. */
int api_list_full(struct api_list_ctx *ctx);
/* Item o (taken) appended as the row of this id (the next page's cursor): 0, -1. */
int api_list_add(struct api_list_ctx *ctx, int64_t id, struct json_t *o);
/* A body's "builds" (names, base first; runs and cases) into names[] (they
 * point into body): their count, 0 when absent (every active build), or -1
 * after answering 400. */
int api_build_names(struct json_t *body, const char *names[MAX_BUILDS], struct http_response *resp);
/* A database time ("" or NULL: null). */
struct json_t *api_time(const char *s);
/* A comma-separated list as an array: "a,b" -> ["a","b"]; "" -> []. */
struct json_t *api_list(const char *s);
/* Run id into *run (release it): 0, or -1 after answering (404 no such run, 500). */
int api_run_find(struct app *, int64_t id, struct db_run *run, struct http_response *resp);
/* An id, or null for 0 (none). */
struct json_t *api_id_or_null(int64_t id);
/* Where a result's exact bytes are served: /api/comparisons/{id}/{output|printed}/{role}. */
void api_result_url(int64_t comparison_id, const char *what, const char *role, char *url, size_t size);
/* limit and before of a listing; 0 or -1 with resp filled. */
int api_page(const struct http_request *req, int *limit, int64_t *before, struct http_response *resp);

#endif
