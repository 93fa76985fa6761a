/*
 * Shared by the HTTP API's files only (api.c and api_<resource>.c): the
 * route handlers the router's table names, and helpers of more than one
 * resource.
 */
#ifndef PHPCMP_API_INTERNAL_H
#define PHPCMP_API_INTERNAL_H

#include "http.h"
#include "services.h"

/* What a route's pattern captured: ":id" (strictly an id, else 0) and ":role". */
struct api_args {
	int64_t id;
	const char *id_text; /* the path from the id's segment on, for "no case 01" */
	char role[32];
	char file[128]; /* ":file", cut at 127 bytes */
	char name[128]; /* ":name", cut at 127 bytes */
};

typedef void api_handler(
    struct app *, const struct http_request *, const struct api_args *, struct http_response *);

/* The handlers of api.c's table, by resource file. */
/* api_builds.c */
api_handler api_route_builds;
api_handler api_route_build_post;
api_handler api_route_build_delete;
/* api_reviews.c */
api_handler api_route_reviews;
api_handler api_route_review_post;
api_handler api_route_review;
/* A build as the API shows it (health, /api/builds); role -1: not in a run
 * of its own (retired, an asan flavour); base: the active base, that a
 * candidate of another kind is warned about (NULL with role -1). */
struct json_t *api_build_json(struct app *, struct build *, int role, const struct build *base);
/* api_cases.c */
api_handler api_route_cases;
api_handler api_route_case_post;
api_handler api_route_case;
api_handler api_route_generated;
api_handler api_route_result_output;
api_handler api_route_result_printed;
/* api_runs.c */
api_handler api_route_runs;
api_handler api_route_run_post;
api_handler api_route_run;
api_handler api_route_run_cases;
api_handler api_route_run_case_post;
api_handler api_route_run_cancel;
api_handler api_route_run_resume;
api_handler api_route_run_coverage;
api_handler api_route_run_coverage_file;
/* api_health.c */
api_handler api_route_health;
api_handler api_route_flags;
/* api_triage.c */
api_handler api_route_buckets;
api_handler api_route_roots;
/* api_triage.c: a bucket as the API shows it (without its runs and trail); the bucket of a
 * comparison (null when none). */
struct json_t *api_bucket_json(const struct db_bucket *);
struct json_t *api_case_bucket(struct app *, int64_t comparison_id);
/* api_reduce.c: a bucket's JSON (consumed) led by its minimal case and root (a new object). */
struct json_t *api_reduce_lead(struct app *, struct json_t *bucket);
/* api_reduce.c: the reduction's progress and cost over a listing of roots (a new object). */
struct json_t *api_reduction_totals(const struct db_roots *);
api_handler api_route_buckets_triage;
api_handler api_route_bucket;
api_handler api_route_bucket_mismatches;
api_handler api_route_bucket_triage;
api_handler api_route_root_triage;
api_handler api_route_triage_events;
/* api_measure.c */
api_handler api_route_run_measurements;
api_handler api_route_run_report;
api_handler api_route_workload_history;
api_handler api_route_callgrind;
api_handler api_route_functions;
/* api_phpt.c */
api_handler api_route_run_phpt;
/* api_export.c */
api_handler api_route_case_phpt;
api_handler api_route_case_casefile;

/* A page being built: rows past limit only tell that there is a next page. */
struct api_list_ctx {
	struct json_t *items;
	int64_t last_id;
	int limit, more;
};

/* api_reply.c */
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

/* api_cases.c: the cases of a listing (run_id > 0: that run's). */
void api_cases_list(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp);
/* api_cases.c: POST /api/runs/{id}/cases, one listed mismatch of a generated run stored in full. */
void api_run_case_post(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp);

#endif
