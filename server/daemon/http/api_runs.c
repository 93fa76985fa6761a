/* /api/runs: queueing, reading, cancelling and resuming runs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api_internal.h"

static json_t *api_run_json(const struct db_run *r)
{
	char url[64], api_url[64];
	json_t *params, *o, *summary;

	snprintf(url, sizeof url, "/#/runs/%" PRId64, r->id);
	snprintf(api_url, sizeof api_url, "/api/runs/%" PRId64, r->id);
	params = run_params_json(&r->params);
	o = json_pack("{s:I s:s s:o s:s s:I s:I s:{s:I s:I} s:{s:s s:s} s:{s:s s:s} s:o s:o s:o s:o s:s s:s}",
	    "id", (json_int_t)r->id, "suite", r->suite, "params", params != NULL ? params : json_object(),
	    "status", r->status, "total", (json_int_t)r->total, "done", (json_int_t)r->done, "counts", "same",
	    (json_int_t)r->same, "differ", (json_int_t)r->differ, "builds", "base",
	    r->build_versions[ROLE_BASE], "head", r->build_versions[ROLE_HEAD], "build_names", "base",
	    r->build_names[ROLE_BASE], "head", r->build_names[ROLE_HEAD], "created_at",
	    api_time(r->created_at), "started_at", api_time(r->started_at), "finished_at",
	    api_time(r->finished_at), "error", text_json(r->error), "url", url, "api_url", api_url);
	/* Cases that did not compile (verdict "error"): counted only when there
	 * are some, as no generated or phpt case can be one. */
	if (o != NULL && r->errors > 0)
		json_object_set_new(
		    json_object_get(o, "counts"), "error", json_integer((json_int_t)r->errors));
	/* Cases a build could not run, the others agreeing (verdict "unsupported"). */
	if (o != NULL && r->unsupported > 0)
		json_object_set_new(
		    json_object_get(o, "counts"), "unsupported", json_integer((json_int_t)r->unsupported));
	/* Every build of the run in order (base first), and the later
	 * candidates in builds/build_names by role ("cand2"...). */
	if (o != NULL) {
		json_t *list = json_array();
		for (int i = 0; i < r->nbuilds; i++) {
			json_array_append_new(list,
			    json_pack("{s:s s:s s:s}", "role", role_name(i), "name", r->build_names[i],
			        "version", r->build_versions[i]));
			if (i > ROLE_HEAD) {
				json_object_set_new(json_object_get(o, "builds"), role_name(i),
				    json_string(r->build_versions[i]));
				json_object_set_new(json_object_get(o, "build_names"), role_name(i),
				    json_string(r->build_names[i]));
			}
		}
		json_object_set_new(o, "build_list", list);
	}
	/* A suite's own summary of the run (generated: rate, coverage...). */
	summary = r->summary != NULL ? json_loads(r->summary, 0, NULL) : NULL;
	if (o != NULL)
		json_object_set_new(o, "summary", summary != NULL ? summary : json_null());
	else
		json_decref(summary);
	return o;
}

/* ---- responses ---- */

/*
 * The reduction's cost and outcome for the run's buckets, in its summary
 * (docs/triage.md): roots, buckets, pending, reductions, executions,
 * seconds, the largest single reduction and the budget it had.  Read when
 * asked (the reducer works after the run has ended), one run at a time.
 * Not for a phpt run: its buckets have no case to reduce.
 */
static void api_run_reduction(struct app *app, int64_t id, json_t *o)
{
	json_t *summary = json_object_get(o, "summary"), *red;
	struct db_roots roots;
	char err[512];

	if (!json_is_object(summary) || strcmp(json_string_value(json_object_get(o, "suite")), "phpt") == 0 ||
	    db_reduce_roots(app->db, id, 0, &roots, err, sizeof err) < 0)
		return;
	red = api_reduction_totals(&roots);
	if (red != NULL) {
		json_object_set_new(red, "roots", json_integer((json_int_t)roots.n));
		json_object_set_new(red, "buckets", json_integer(roots.buckets));
		json_object_set_new(red, "enabled", json_boolean(app->config->reduce_max_executions > 0));
		json_object_set_new(red, "budget",
		    json_pack("{s:i s:i}", "ms", app->config->reduce_budget_ms, "executions",
		        app->config->reduce_max_executions));
		json_object_set_new(summary, "reduction", red);
	}
	db_roots_release(&roots);
}

/* counts.broken: cases of verdict same whose every build crashed, timed
 * out, hit a limit, called exit()... (only when there are some, like
 * counts.error; db_run_broken). */
static void api_run_broken(struct app *app, int64_t id, json_t *o)
{
	char err[512];
	int n = db_run_broken(app->db, id, err, sizeof err);

	if (n > 0)
		json_object_set_new(json_object_get(o, "counts"), "broken", json_integer(n));
}

static void api_run_reply(struct app *app, int64_t id, int status, struct http_response *resp)
{
	struct db_run run;

	if (api_run_find(app, id, &run, resp) < 0)
		return;
	if (status == 202)
		snprintf(resp->location, sizeof resp->location, "/api/runs/%" PRId64, id);
	json_t *o = api_run_json(&run);
	api_run_reduction(app, id, o);
	if (o != NULL)
		api_run_broken(app, id, o);
	api_json(resp, status, o);
	db_run_release(&run);
}

static int api_run_row(void *arg, const struct db_run *run)
{
	struct api_list_ctx *ctx = arg;

	return api_list_full(ctx) ? 0 : api_list_add(ctx, run->id, api_run_json(run));
}

static void api_runs_list(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct api_list_ctx ctx = { NULL, 0, 0, 0 };
	int64_t before;
	char err[512], next[128];
	int limit;

	if (api_page(req, &limit, &before, resp) < 0)
		return;
	if ((ctx.items = json_array()) == NULL) {
		api_fail(resp, "out of memory");
		return;
	}
	ctx.limit = limit;
	if (db_runs_list(app->db, before, limit + 1, api_run_row, &ctx, err, sizeof err) < 0) {
		json_decref(ctx.items);
		api_fail(resp, err);
		return;
	}
	/* Each run as GET /api/runs/{id} gives it (read here: the rows come under the database's lock). */
	for (size_t i = 0; i < json_array_size(ctx.items); i++) {
		json_t *item = json_array_get(ctx.items, i);
		api_run_reduction(app, json_integer_value(json_object_get(item, "id")), item);
		api_run_broken(app, json_integer_value(json_object_get(item, "id")), item);
	}
	snprintf(next, sizeof next, "/api/runs?limit=%d&before=%" PRId64, limit, ctx.last_id);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "runs", ctx.items, "next", ctx.more ? json_string(next) : json_null()));
}

#define API_MAX_WAIT_S 600

/*
 * ?wait=SECONDS (0 .. API_MAX_WAIT_S): the answer waits for the run's end
 * (or the wait's).  1 with *seconds, 0 when not asked, -1 with resp filled.
 */
static int api_run_wait_param(const struct http_request *req, int *seconds, struct http_response *resp)
{
	const char *v = http_query(req, "wait");
	int64_t n;

	*seconds = 0;
	if (v == NULL)
		return 0;
	n = strcmp(v, "0") == 0 ? 0 : id_parse(v, strlen(v));
	if ((n < 1 && strcmp(v, "0") != 0) || n > API_MAX_WAIT_S) {
		api_error(resp, 400, "bad_request", "wait: expected whole seconds 0 .. %d", API_MAX_WAIT_S);
		return -1;
	}
	*seconds = (int)n;
	return 1;
}

/* Wait until run id is no longer queued or running, the deadline passes or
 * the daemon stops: 1 ended, 0 still going, -1 with resp filled. */
static int api_run_wait(struct app *app, int64_t id, int seconds, struct http_response *resp)
{
	int64_t deadline = clock_ms() + (int64_t)seconds * 1000;
	struct db_run run;
	int ended;

	for (;;) {
		if (api_run_find(app, id, &run, resp) < 0)
			return -1;
		ended = strcmp(run.status, "queued") != 0 && strcmp(run.status, "running") != 0;
		db_run_release(&run);
		if (ended)
			return 1;
		if (clock_ms() >= deadline || __atomic_load_n(&app->stopping, __ATOMIC_SEQ_CST))
			return 0;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* The body's "suite" and that suite's parameters into p (run_params_release
 * it): the suite's name (the body's), or NULL with resp filled. */
static const char *api_run_params(json_t *body, struct run_params *p, struct http_response *resp)
{
	json_t *v = json_object_get(body, "suite");
	const char *const *fields;
	char err[512];

	memset(p, 0, sizeof *p);
	if (v == NULL || !json_is_string(v)) {
		api_error(resp, 400, "bad_request", "suite: %s (known: stored, measure, generated, phpt)",
		    v == NULL ? "required" : "expected a string");
		return NULL;
	}
	if (strlen(json_string_value(v)) != json_string_length(v) ||
	    (fields = runs_suite_fields(json_string_value(v))) == NULL) {
		api_error(resp, 400, "bad_request",
		    "suite: unknown suite \"%.64s\" (known: stored, measure, generated, phpt)",
		    json_string_value(v));
		return NULL;
	}
	if (run_params_from_json(body, json_string_value(v), fields, p, err, sizeof err) < 0) {
		api_error(resp, 400, "bad_request", "%s", err);
		return NULL;
	}
	return json_string_value(v);
}

/*
 * The answer to a wait that ran out with no verdict while fail_on_differ or
 * fail_on_error asked for one: 504 wait_expired, the run as it stands (its
 * progress, url, Location) and "no_verdict" saying why -- never a 2xx, so
 * `curl --fail-with-body` fails the CI job instead of passing it unchecked.
 */
static void api_run_no_verdict(struct app *app, int64_t id, int seconds, struct http_response *resp)
{
	char msg[160];
	json_t *o;

	api_run_reply(app, id, 504, resp);
	if (resp->status != 504 || (o = json_loadb(resp->body, resp->body_len, 0, NULL)) == NULL)
		return;
	snprintf(msg, sizeof msg,
	    "the run had not ended when the wait (%d s) ran out: no verdict yet; GET its api_url until its "
	    "status is done",
	    seconds);
	json_object_set_new(o, "no_verdict", json_pack("{s:s s:s}", "code", "wait_expired", "message", msg));
	free(resp->body);
	resp->body = NULL;
	api_json(resp, 504, o);
	snprintf(resp->location, sizeof resp->location, "/api/runs/%" PRId64, id);
}

/*
 * POST /api/runs[?wait=S[&fail_on_differ=1][&fail_on_error=1]]: 202 with
 * the queued run; with wait, the run as it ended (200), or still going
 * when the wait is over (202).  With fail_on_differ, a run that ended with
 * a mismatch, a case error or not done (failed, cancelled, interrupted) is
 * a 409 with the run; with fail_on_error, one with a case every build
 * crashed on, timed out on... (counts.broken) too.  With either, a wait
 * that runs out is 504 wait_expired (api_run_no_verdict), not 202.
 */
static void api_run_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	const char *names[MAX_BUILDS], *suite;
	struct run_params params;
	char err[512];
	int64_t id;
	json_t *body;
	int status, seconds, waiting, fail_on_differ, fail_on_error, ended, nnames;

	if ((waiting = api_run_wait_param(req, &seconds, resp)) < 0 ||
	    (fail_on_differ = api_query_bool(req, "fail_on_differ", resp)) < 0 ||
	    (fail_on_error = api_query_bool(req, "fail_on_error", resp)) < 0)
		return;
	if ((fail_on_differ || fail_on_error) && !waiting) {
		api_error(resp, 400, "bad_request",
		    "%s: needs wait=SECONDS (the run's verdict is known only when it ends)",
		    fail_on_differ ? "fail_on_differ" : "fail_on_error");
		return;
	}
	if ((body = api_body(req, resp)) == NULL)
		return;
	if ((nnames = api_build_names(body, names, resp)) < 0) {
		json_decref(body);
		return;
	}
	if ((suite = api_run_params(body, &params, resp)) == NULL) {
		run_params_release(&params);
		json_decref(body);
		return;
	}
	status = runs_create(app->runs, suite, &params, names, nnames, &id, err, sizeof err);
	run_params_release(&params);
	json_decref(body);
	if (status != 0) {
		api_runs_refusal(resp, status, err);
		return;
	}
	if (!waiting) {
		api_run_reply(app, id, 202, resp);
		return;
	}
	if ((ended = api_run_wait(app, id, seconds, resp)) < 0)
		return;
	if (!ended) {
		if (fail_on_differ || fail_on_error)
			api_run_no_verdict(app, id, seconds, resp);
		else
			api_run_reply(app, id, 202, resp);
		return;
	}
	api_run_reply(app, id, 200, resp);
	if ((fail_on_differ || fail_on_error) && resp->status == 200) {
		json_t *o = json_loadb(resp->body, resp->body_len, 0, NULL);
		json_t *counts = json_object_get(o, "counts");
		const char *st = json_string_value(json_object_get(o, "status"));
		if (o != NULL &&
		    (st == NULL || strcmp(st, "done") != 0 ||
		        (fail_on_differ &&
		            (json_integer_value(json_object_get(counts, "differ")) > 0 ||
		                json_integer_value(json_object_get(counts, "error")) > 0)) ||
		        (fail_on_error && json_integer_value(json_object_get(counts, "broken")) > 0)))
			resp->status = 409;
		json_decref(o);
	}
	if (resp->status == 200 || resp->status == 409)
		snprintf(resp->location, sizeof resp->location, "/api/runs/%" PRId64, id);
}

static void api_run_cancel(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512];
	int status = runs_cancel(app->runs, id, err, sizeof err);

	if (status != 0)
		api_runs_refusal(resp, status, err);
	else
		api_run_reply(app, id, 200, resp);
}

/* POST /api/runs/{id}/resume: queued again, to go on where it stopped. */
static void api_run_resume(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512];
	int status = runs_resume(app->runs, id, err, sizeof err);

	if (status != 0)
		api_runs_refusal(resp, status, err);
	else
		api_run_reply(app, id, 202, resp);
}

void api_route_runs(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_runs_list(app, req, resp);
}

void api_route_run_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_run_post(app, req, resp);
}

void api_route_run(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_reply(app, a->id, 200, resp);
}

void api_route_run_cases(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	api_cases_list(app, req, a->id, resp);
}

void api_route_run_case_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	api_run_case_post(app, req, a->id, resp);
}

void api_route_run_cancel(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_cancel(app, a->id, resp);
}

void api_route_run_resume(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_resume(app, a->id, resp);
}

/* One build's coverage as GET /api/runs/:id/coverage lists it, with the
 * URLs of gcovr's reports and of each file's annotated source. */
static json_t *api_coverage_json(int64_t run_id, const struct db_coverage *c)
{
	static const char *const kinds[][2] = { { "html", "index.html" }, { "cobertura", "coverage.xml" },
		{ "json", "coverage.json" } };
	json_t *files = c->files != NULL ? json_loads(c->files, 0, NULL) : NULL, *o, *dl, *src, *f;
	char url[256];
	size_t k;

	o = json_pack("{s:s s:s s:o s:o s:o}", "role", c->role, "build", c->build, "files",
	    files != NULL ? files : json_null(), "error", text_json(c->error), "created_at",
	    text_json(c->created_at));
	if (o == NULL || !json_is_array(files))
		return o;
	dl = json_object();
	src = json_object();
	for (k = 0; k < 3; k++) {
		snprintf(
		    url, sizeof(url), "/api/runs/%" PRId64 "/coverage/%s/%s", run_id, c->role, kinds[k][1]);
		json_object_set_new(dl, kinds[k][0], json_string(url));
	}
	json_array_foreach (files, k, f) {
		const char *name = json_string_value(json_object_get(f, "file"));
		const char *slash = name ? strrchr(name, '/') : NULL;
		snprintf(url, sizeof(url), "/api/runs/%" PRId64 "/coverage/%s/%s.json", run_id, c->role,
		    slash      ? slash + 1
		        : name ? name
		               : "");
		json_object_set_new(src, name ? name : "", json_string(url));
	}
	json_object_set_new(dl, "source", src);
	json_object_set_new(o, "downloads", dl);
	return o;
}

/* GET /api/runs/:id/coverage: the summaries of a run made with "coverage": true. */
void api_route_run_coverage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct db_coverage *rows;
	struct db_run run;
	json_t *list;
	char err[512];
	size_t n;

	(void)req;
	if (api_run_find(app, a->id, &run, resp) < 0)
		return;
	int wanted = run.params.coverage;
	const char *status = !wanted                                                  ? "not_requested"
	    : strcmp(run.status, "queued") == 0 || strcmp(run.status, "running") == 0 ? "pending"
	                                                                              : "done";
	db_run_release(&run);
	if (db_coverage_list(app->db, a->id, &rows, &n, err, sizeof err) < 0) {
		api_fail(resp, err);
		return;
	}
	list = json_array();
	for (size_t i = 0; list != NULL && i < n; i++)
		json_array_append_new(list, api_coverage_json(a->id, &rows[i]));
	db_coverage_list_release(rows, n);
	api_json(resp, 200,
	    json_pack("{s:I, s:b, s:s, s:o}", "run_id", (json_int_t)a->id, "requested", wanted, "status",
	        status, "builds", list));
}

/* GET /api/runs/:id/coverage/:role/:file: gcovr's HTML, Cobertura XML and
 * JSON, and the page's annotated sources (NAME.c.json), as they were written. */
void api_route_run_coverage_file(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	char path[8192], err[512];
	size_t len;

	(void)req;
	if (a->id <= 0) {
		api_error(resp, 404, "not_found", "no run %.32s", a->id_text);
		return;
	}
	switch (coverage_file(app, a->id, a->role, a->file, path, sizeof path, err, sizeof err)) {
	case -1:
		api_error(resp, 400, "bad_request", "%s", err);
		return;
	case -2:
		api_error(resp, 404, "not_found", "%s", err);
		return;
	}
	if ((resp->body = bytes_read_file(path, 64u << 20, &len, err, sizeof err)) == NULL) {
		api_fail(resp, err);
		return;
	}
	resp->body_len = len;
	resp->status = 200;
	const char *dot = strrchr(a->file, '.');
	resp->content_type = dot == NULL ? "application/octet-stream"
	    : strcmp(dot, ".html") == 0  ? "text/html; charset=utf-8"
	    : strcmp(dot, ".css") == 0   ? "text/css; charset=utf-8"
	    : strcmp(dot, ".xml") == 0   ? "application/xml"
	    : strcmp(dot, ".json") == 0  ? "application/json"
	                                 : "application/octet-stream";
	if (strcmp(a->file, "coverage.xml") == 0)
		snprintf(resp->disposition, sizeof resp->disposition,
		    "attachment; filename=\"phpcmp-run-%" PRId64 "-%s-cobertura.xml\"", a->id, a->role);
}
