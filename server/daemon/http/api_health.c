/* /api/health and /api/flags. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api_internal.h"
#include "proto.h"

/*
 * Under --read-auth, without read rights (no token, or one that is not
 * valid): that the daemon is up and its builds' names, nothing else (no
 * worker pids, paths, versions or limits to aim an attack with).
 */
static void api_health_public(struct app *app, struct http_response *resp)
{
	struct build *active[MAX_BUILDS];
	json_t *builds = json_array();
	int i, n, closed;

	n = build_list(app->config, active);
	for (i = 0; i < n && builds != NULL; i++)
		json_array_append_new(
		    builds, json_pack("{s:o s:s}", "name", text_json(active[i]->name), "role", role_name(i)));
	closed = auth_writes_closed_nowait(app);
	api_json(resp, 200,
	    json_pack("{s:s s:o s:{s:s s:s}}", "status", "ok", "builds", builds, "auth", "writes",
	        closed < 0   ? "unknown"
	            : closed ? "token"
	                     : "open",
	        "reads", "token"));
}

/* The reference runtimes beside the builds (issue 49): in no run unless named as its base. */
static json_t *api_health_references(struct app *app, json_t *o)
{
	if (o != NULL)
		json_object_set_new(o, "references", api_references_list(app));
	return o;
}

static void api_health(struct app *app, const struct http_config *server, struct http_response *resp)
{
	const struct config *cfg = app->config;
	struct build *active[MAX_BUILDS];
	json_t *builds = json_array();
	int i, n, closed;

	n = build_list(app->config, active);
	for (i = 0; i < n && builds != NULL; i++)
		json_array_append_new(builds, api_build_json(app, active[i], i, active[ROLE_BASE]));
	closed = auth_writes_closed_nowait(app);
	api_json(resp, 200,
	    api_health_references(app,
	        json_pack(
	            "{s:s s:s s:o s:I s:o s:{s:s s:s} s:{s:i s:i s:i s:i s:i s:I s:I s:I s:I s:I s:i s:i s:i s:i}}",
	            "status", "ok", "version", PHPCMP_VERSION, "db", text_json(cfg->db_path), "uptime_s",
	            (json_int_t)((clock_ms() - app->started_ms) / 1000), "builds", builds, "auth", "writes",
	            closed < 0   ? "unknown"
	                : closed ? "token"
	                         : "open",
	            "reads", cfg->read_auth ? "token" : "open", "limits", "max_connections",
	            server->max_connections, "max_client_connections", server->max_client_connections,
	            "max_client_uploads", server->max_client_uploads, "max_case_requests",
	            cfg->max_case_requests, "max_queued_runs", cfg->max_queued_runs, "max_body_bytes",
	            (json_int_t)MAX_BODY_SIZE, "max_code_bytes", (json_int_t)MAX_CODE_SIZE,
	            "max_output_bytes", (json_int_t)PROTO_MAX_OUTPUT, "max_printed_bytes",
	            (json_int_t)PROTO_MAX_PRINTED, "db_max_bytes", (json_int_t)cfg->db_max_bytes,
	            "case_requests", __atomic_load_n(&app->case_requests, __ATOMIC_RELAXED),
	            "measure_budget_ms", cfg->measure_budget_ms, "reduce_case_timeout_ms",
	            cfg->reduce_case_timeout_ms, "reduce_max_pending", cfg->reduce_max_pending)));
}

static void api_flags_list(struct http_response *resp)
{
	json_t *a = json_array();
	const char *name;
	long value;
	size_t i;

	for (i = 0; a != NULL && (name = flags_name_at(i, &value)) != NULL; i++)
		json_array_append_new(a, json_pack("{s:s s:I}", "name", name, "value", (json_int_t)value));
	api_json(resp, 200, json_pack("{s:o}", "flags", a));
}

void api_route_health(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;

	(void)a;
	if (app->config->read_auth &&
	    (req->authorization == NULL || auth_read(app, req->authorization, &e) < 0))
		api_health_public(app, resp);
	else
		api_health(app, req->server, resp);
}

void api_route_flags(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)app, (void)req, (void)a;
	api_flags_list(resp);
}
