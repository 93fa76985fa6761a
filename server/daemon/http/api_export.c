/* /api/cases/:id/phpt and /casefile: exports (export.c) over HTTP. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

/* GET /api/cases/:id/phpt or /casefile (?comparison=ID) as a file. */
static void api_export(struct app *app, const struct http_request *req, int64_t case_id, const char *format,
    struct http_response *resp)
{
	const char *cv = http_query(req, "comparison");
	int64_t comparison_id = id_parse_str(cv);
	struct export_file f;
	struct svc_error e;

	if (cv != NULL && comparison_id < 1) {
		api_error(resp, 400, "bad_request", "comparison: expected a positive integer id");
		return;
	}
	if (export_case(app, case_id, comparison_id, format, &f, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	resp->status = 200;
	resp->body = f.text;
	resp->body_len = f.len;
	resp->content_type = "text/plain; charset=utf-8";
	snprintf(resp->disposition, sizeof resp->disposition, "%s", f.disposition);
}

void api_route_case_phpt(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	api_export(app, req, a->id, "phpt", resp);
}

void api_route_case_casefile(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	api_export(app, req, a->id, "casefile", resp);
}
