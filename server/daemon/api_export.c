/* /api/cases/:id/phpt and /casefile: exports (export.c) over HTTP. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

void api_route_case_phpt(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	export_case(app, a->id, "phpt", req, resp);
}

void api_route_case_casefile(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	export_case(app, a->id, "casefile", req, resp);
}
