/* /api/buckets and /api/triage: the triage service (triage.c) over HTTP. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

void api_route_buckets(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_buckets(app, req, resp);
}

void api_route_buckets_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_post(app, 0, req, resp);
}

void api_route_bucket(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	triage_bucket(app, a->id, resp);
}

void api_route_bucket_mismatches(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_mismatches(app, a->id, req, resp);
}

void api_route_bucket_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_post(app, a->id, req, resp);
}

void api_route_triage_events(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_events(app, req, resp);
}
