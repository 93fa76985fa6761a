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
	const struct config *cfg = app->config;
	json_t *builds = json_array();
	int i, closed;

	for (i = 0; i < cfg->nbuilds && builds != NULL; i++)
		json_array_append_new(builds,
		    json_pack("{s:o s:s}", "name", text_json(cfg->builds[i].name), "role", role_name(i)));
	closed = auth_writes_closed_nowait(app);
	api_json(resp, 200,
	    json_pack("{s:s s:o s:{s:s s:s}}", "status", "ok", "builds", builds, "auth", "writes",
	        closed < 0   ? "unknown"
	            : closed ? "token"
	                     : "open",
	        "reads", "token"));
}

static void api_health(struct app *app, struct http_response *resp)
{
	const struct config *cfg = app->config;
	json_t *builds = json_array(), *b, *w;
	struct worker *wk;
	enum worker_state state;
	int i, locked;
	pid_t pid;
	int64_t restarts, cases_run;
	char last_failure[sizeof wk->last_failure], failed_at[32];
	time_t failure_at;
	int closed;

	for (i = 0; i < cfg->nbuilds && builds != NULL; i++) {
		struct build_info info;

		wk = &app->workers[i];
		worker_build_info(&cfg->builds[i], &info);
		/*
		 * A worker's lock is held for the length of a case; health must not
		 * wait behind a slow one.  When it is busy, say so.
		 */
		locked = pthread_mutex_trylock(&wk->lock) == 0;
		if (locked) {
			state = wk->state;
			pid = worker_serving_pid(wk);
			restarts = wk->restarts;
			cases_run = wk->cases_run;
			memcpy(last_failure, wk->last_failure, sizeof last_failure);
			last_failure[sizeof last_failure - 1] = '\0';
			failure_at = wk->last_failure_at;
			pthread_mutex_unlock(&wk->lock);
		} else {
			state = WORKER_BUSY;
			pid = worker_serving_pid(wk);
			restarts = __atomic_load_n(&wk->restarts, __ATOMIC_RELAXED);
			cases_run = __atomic_load_n(&wk->cases_run, __ATOMIC_RELAXED);
			last_failure[0] = '\0';
			failure_at = 0;
		}
		/* When it failed (UTC), so that the page can say so and let it age out. */
		failed_at[0] = '\0';
		if (last_failure[0] != '\0' && failure_at > 0) {
			struct tm tm;
			if (gmtime_r(&failure_at, &tm) != NULL)
				strftime(failed_at, sizeof failed_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
		w = json_pack("{s:s s:o s:I s:I s:o}", "state", worker_state_name(state), "pid",
		    pid > 0 ? json_integer(pid) : json_null(), "restarts", (json_int_t)restarts, "cases_run",
		    (json_int_t)cases_run, "last_failure",
		    last_failure[0] != '\0' ? text_json(last_failure) : json_null());
		if (w != NULL) {
			json_object_set_new(w, "last_failure_at",
			    failed_at[0] != '\0' ? json_string(failed_at) : json_null());
			json_object_set_new(w, "last_failure_age_s",
			    failed_at[0] != '\0' ? json_integer((json_int_t)(time(NULL) - failure_at))
			                         : json_null());
		}
		b = json_pack("{s:o s:s s:o s:o s:o s:o s:o}", "name", text_json(cfg->builds[i].name), "role",
		    role_name(i), "php_version", text_json(info.php_version), "library",
		    text_json(cfg->builds[i].lib_path), "sha256", text_json(cfg->builds[i].sha256), "prefix",
		    text_json(cfg->builds[i].prefix), "worker", w != NULL ? w : json_null());
		/* What measuring by hand needs: the compiled core, and where
		 * json_encode's handler sits (callgrind names it by this offset
		 * in a stripped library such as Debian's). */
		if (b != NULL) {
			char offset[32];
			snprintf(offset, sizeof offset, "0x%016llx", (unsigned long long)info.handler_offset);
			json_t *ini = json_array();
			for (int k = 0; k < cfg->builds[i].nini; k++)
				json_array_append_new(ini, text_json(cfg->builds[i].ini[k]));
			json_object_set_new(b, "ini", ini);
			json_object_set_new(b, "core", text_json(cfg->builds[i].core_path));
			json_object_set_new(b, "json_encode_offset", text_json(offset));
			/* The layers its worker put in place (docs/sandbox.md). */
			json_object_set_new(b, "sandbox", text_json(info.sandbox));
			/* "debian release", "source debug"...; a candidate of another
			 * kind than the base says so (its counts do not compare). */
			json_object_set_new(b, "kind", text_json(cfg->builds[i].kind));
			if (i > 0 && strcmp(cfg->builds[i].kind, cfg->builds[0].kind) != 0) {
				char warn[256];
				snprintf(warn, sizeof warn,
				    "a %s build against a %s base: instruction counts do not compare",
				    cfg->builds[i].kind, cfg->builds[0].kind);
				json_object_set_new(b, "warning", text_json(warn));
			}
		}
		json_array_append_new(builds, b);
	}
	closed = auth_writes_closed_nowait(app);
	api_json(resp, 200,
	    json_pack(
	        "{s:s s:s s:o s:I s:o s:{s:s s:s} s:{s:i s:i s:i s:i s:i s:I s:I s:I s:I s:I s:i s:i s:i s:i}}",
	        "status", "ok", "version", PHPCMP_VERSION, "db", text_json(cfg->db_path), "uptime_s",
	        (json_int_t)((clock_ms() - app->started_ms) / 1000), "builds", builds, "auth", "writes",
	        closed < 0   ? "unknown"
	            : closed ? "token"
	                     : "open",
	        "reads", cfg->read_auth ? "token" : "open", "limits", "max_connections", cfg->max_connections,
	        "max_client_connections", cfg->max_client_connections, "max_client_uploads",
	        cfg->max_client_uploads, "max_case_requests", cfg->max_case_requests, "max_queued_runs",
	        cfg->max_queued_runs, "max_body_bytes", (json_int_t)MAX_BODY_SIZE, "max_code_bytes",
	        (json_int_t)MAX_CODE_SIZE, "max_output_bytes", (json_int_t)PROTO_MAX_OUTPUT,
	        "max_printed_bytes", (json_int_t)PROTO_MAX_PRINTED, "db_max_bytes",
	        (json_int_t)cfg->db_max_bytes, "case_requests",
	        __atomic_load_n(&app->case_requests, __ATOMIC_RELAXED), "measure_budget_ms",
	        cfg->measure_budget_ms, "reduce_case_timeout_ms", cfg->reduce_case_timeout_ms,
	        "reduce_max_pending", cfg->reduce_max_pending));
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
		api_health(app, resp);
}

void api_route_flags(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)app, (void)req, (void)a;
	api_flags_list(resp);
}
