/* /api/runs/:id/measurements, report.md, /api/workloads/history, /api/comparisons/:id/callgrind/:role
 * and /api/comparisons/:id/functions. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

void api_route_run_measurements(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	json_t *o;

	if (measure_table(app, a->id, http_query(req, "threshold"), &o, &e) < 0)
		api_svc(resp, &e);
	else
		api_json(resp, 200, o);
}

void api_route_run_report(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;

	if (measure_report_md(app, a->id, http_query(req, "threshold"), http_query(req, "columns"),
	        http_query(req, "json_encoder"), &resp->body, &resp->body_len, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	resp->status = 200;
	resp->content_type = "text/markdown; charset=utf-8";
}

void api_route_workload_history(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	json_t *o;

	(void)a;
	if (measure_history(app, http_query(req, "source"), http_query(req, "case"), http_query(req, "limit"),
	        &o, &e) < 0)
		api_svc(resp, &e);
	else
		api_json(resp, 200, o);
}

void api_route_callgrind(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct export_file f;
	struct svc_error e;

	(void)req;
	if (measure_dump(app, a->id, a->role, &f, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	resp->status = 200;
	resp->body = f.text;
	resp->body_len = f.len;
	resp->content_type = "application/octet-stream";
	snprintf(resp->disposition, sizeof resp->disposition, "%s", f.disposition);
}

void api_route_functions(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	json_t *o;

	if (profile_functions(app, a->id, http_query(req, "vs"), http_query(req, "limit"),
	        http_query(req, "file"), &o, &e) < 0)
		api_svc(resp, &e);
	else
		api_json(resp, 200, o);
}
