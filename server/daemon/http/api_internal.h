/*
 * Shared by the HTTP API's files only (api.c and api_<resource>.c): the
 * route handlers the router's table names, and helpers of more than one
 * resource.
 */
#ifndef PHPCMP_API_INTERNAL_H
#define PHPCMP_API_INTERNAL_H

#include "api.h"
#include "api_reply.h"
#include "services.h"

/* api_cases.c: the case of a POST /api/cases request (body, Content-Type):
 * 0, or -1 with resp filled (fuzz/fuzz_body.c drives it). */
int api_case_from_request(const struct http_request *, struct case_spec *, struct http_response *resp);

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
/* The reference runtimes (issue 49) as GET /api/builds and health list them. */
struct json_t *api_references_list(struct app *);
/* api_cases.c */
api_handler api_route_cases;
api_handler api_route_case_post;
api_handler api_route_case;
api_handler api_route_generated;
api_handler api_route_result_output;
api_handler api_route_result_printed;
/* api_result.c: a result as the API shows it (results.ROLE of a case; build: its name). */
struct json_t *api_result_json(
    const struct result *r, const char *build, int64_t comparison_id, const char *role, long requested);
/* api_references.c: released PHP's answers to a case (issue 49) */
api_handler api_route_case_references;
/* The case's "references" object (GET /api/cases/{id}/references), run where
 * not kept; NULL with resp filled when it cannot be made. */
struct json_t *api_references_json(struct app *, int64_t case_id, struct http_response *resp);
/* A root's "released" line from what is kept (null until its case's
 * references were asked: GET /api/cases/{id}/references). */
struct json_t *api_released_line(struct app *, int64_t case_id);
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

/* api_cases.c: the cases of a listing (run_id > 0: that run's). */
void api_cases_list(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp);
/* api_cases.c: POST /api/runs/{id}/cases, one listed mismatch of a generated run stored in full. */
void api_run_case_post(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp);

#endif
