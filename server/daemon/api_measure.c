/* /api/runs/:id/measurements, report.md, /api/workloads/history, /api/comparisons/:id/callgrind/:role. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

void api_route_run_measurements(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	measure_table(app, a->id, req, resp);
}

void api_route_run_report(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	measure_report_md(app, a->id, req, resp);
}

void api_route_workload_history(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	measure_history(app, req, resp);
}

void api_route_callgrind(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	measure_dump(app, a->id, a->role, resp);
}
