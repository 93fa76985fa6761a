/* /api/builds: the daemon's builds, registered and retired while it runs (service/builds.c). */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api_internal.h"

/* The worker's state; a busy worker (its lock held for a case) is not waited for. */
static json_t *api_worker_json(struct worker *wk)
{
	enum worker_state state;
	pid_t pid;
	int64_t restarts, cases_run;
	char last_failure[sizeof wk->last_failure], failed_at[32] = "";
	time_t failure_at;
	json_t *w;

	if (pthread_mutex_trylock(&wk->lock) == 0) {
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
		json_object_set_new(
		    w, "last_failure_at", failed_at[0] != '\0' ? json_string(failed_at) : json_null());
		json_object_set_new(w, "last_failure_age_s",
		    failed_at[0] != '\0' ? json_integer((json_int_t)(time(NULL) - failure_at)) : json_null());
	}
	return w;
}

json_t *api_references_list(struct app *app)
{
	struct config *cfg = app->config;
	json_t *list = json_array(), *o;
	int n;

	pthread_mutex_lock(&cfg->builds_lock);
	n = cfg->nbuilds;
	pthread_mutex_unlock(&cfg->builds_lock);
	for (int i = 0; i < n && list != NULL; i++) {
		struct build *b = &cfg->builds[i];
		if (!b->is_reference || __atomic_load_n(&b->retired, __ATOMIC_ACQUIRE))
			continue;
		if ((o = api_build_json(app, b, -1, NULL)) != NULL) {
			struct worker *w = build_worker(app, b);
			json_object_set_new(o, "worker", api_worker_json(w));
			/* active, or failed (it could not start; worker.last_failure says why) */
			json_object_set_new(o, "state",
			    json_string(__atomic_load_n(&w->state, __ATOMIC_RELAXED) == WORKER_FAILED
			            ? "failed"
			            : "active"));
		}
		json_array_append_new(list, o);
	}
	return list;
}

json_t *api_build_json(struct app *app, struct build *b, int role, const struct build *base)
{
	struct build_info info;
	char offset[32];
	json_t *o, *ini;

	worker_build_info(b, &info);
	o = json_pack("{s:o s:o s:s s:o s:o s:o s:o s:o}", "name", text_json(b->name), "role",
	    role >= 0 ? json_string(role_name(role)) : json_null(), "state", role >= 0 ? "active" : "retired",
	    "php_version", text_json(info.php_version), "library", text_json(b->lib_path), "sha256",
	    text_json(b->sha256), "prefix", text_json(b->prefix), "worker",
	    role >= 0 ? api_worker_json(build_worker(app, b)) : json_null());
	if (o == NULL)
		return NULL;
	/* What measuring by hand needs: the compiled core, and where
	 * json_encode's handler sits (callgrind names it by this offset in a
	 * stripped library such as Debian's). */
	snprintf(offset, sizeof offset, "0x%016llx", (unsigned long long)info.handler_offset);
	ini = json_array();
	for (int k = 0; k < b->nini; k++)
		json_array_append_new(ini, text_json(b->ini[k]));
	json_object_set_new(o, "ini", ini);
	json_object_set_new(o, "core", text_json(b->core_path));
	json_object_set_new(o, "json_encode_offset", text_json(offset));
	/* The layers its worker put in place (docs/sandbox.md). */
	json_object_set_new(o, "sandbox", text_json(info.sandbox));
	/* "debian release", "source debug"...; a candidate of another kind
	 * than the base says so (its counts do not compare). */
	json_object_set_new(o, "kind", text_json(b->kind));
	/* A reference runtime (issue 49): what runs it, from its hello. */
	if (b->is_reference)
		json_object_set_new(
		    o, "reference", b->reference[0] != '\0' ? text_json(b->reference) : json_null());
	if (role > 0 && base != NULL && strcmp(b->kind, base->kind) != 0) {
		char warn[256];
		snprintf(warn, sizeof warn, "a %s build against a %s base: instruction counts do not compare",
		    b->kind, base->kind);
		json_object_set_new(o, "warning", text_json(warn));
	}
	return o;
}

void api_route_builds(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct config *cfg = app->config;
	struct build *active[MAX_BUILDS];
	json_t *list = json_array(), *o;
	int i, n, nactive;

	(void)req, (void)a;
	nactive = build_list(cfg, active);
	pthread_mutex_lock(&cfg->builds_lock);
	n = cfg->nbuilds;
	pthread_mutex_unlock(&cfg->builds_lock);
	/* Every build registered: the active ones by role, their asan flavours
	 * (--asan: in no run of their own), then the retired ones (their runs
	 * still name them). */
	for (i = 0; i < nactive && list != NULL; i++)
		json_array_append_new(list, api_build_json(app, active[i], i, active[ROLE_BASE]));
	for (i = 0; i < n && list != NULL; i++) {
		struct build *b = &cfg->builds[i];
		if (b->asan_of == 0 || __atomic_load_n(&b->retired, __ATOMIC_ACQUIRE))
			continue;
		if ((o = api_build_json(app, b, -1, NULL)) != NULL) {
			json_object_set_new(o, "state", json_string("active"));
			json_object_set_new(o, "asan_of", text_json(cfg->builds[b->asan_of - 1].name));
			json_object_set_new(o, "worker", api_worker_json(build_worker(app, b)));
		}
		json_array_append_new(list, o);
	}
	/* The reference runtimes: in no run unless one names it as its base. */
	json_t *refs = api_references_list(app);
	if (refs != NULL && list != NULL)
		json_array_extend(list, refs);
	json_decref(refs);
	for (i = 0; i < n && list != NULL; i++)
		if (__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE))
			json_array_append_new(list, api_build_json(app, &cfg->builds[i], -1, NULL));
	/* Where a client (phpcmp review --url) puts the builds it registers. */
	char dir[PATH_MAX];
	if (realpath(cfg->builds_dir, dir) == NULL)
		snprintf(dir, sizeof dir, "%s", cfg->builds_dir);
	api_json(resp, 200, json_pack("{s:o s:o}", "builds", list, "builds_dir", text_json(dir)));
}

/* A required string field of at most max bytes, no NUL: it, or NULL after answering 400. */
static const char *api_text_field(json_t *body, const char *field, size_t max, struct http_response *resp)
{
	json_t *v = json_object_get(body, field);

	if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > max ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		api_error(
		    resp, 400, "bad_request", "%s: expected a string of 1 to %zu bytes, no NUL", field, max);
		return NULL;
	}
	return json_string_value(v);
}

void api_route_build_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct build *b, *active[MAX_BUILDS];
	const char *key, *name, *prefix;
	struct svc_error e;
	json_t *body, *v;
	int n;

	(void)a;
	if ((body = api_body(req, resp)) == NULL)
		return;
	json_object_foreach (body, key, v)
		if (strcmp(key, "name") != 0 && strcmp(key, "prefix") != 0) {
			api_error(
			    resp, 400, "bad_request", "unknown field \"%.64s\" (known: name, prefix)", key);
			goto out;
		}
	if ((name = api_text_field(body, "name", 63, resp)) == NULL ||
	    (prefix = api_text_field(body, "prefix", 1024, resp)) == NULL)
		goto out;
	if (builds_add(app, name, prefix, &b, &e) < 0) {
		api_svc(resp, &e);
		goto out;
	}
	/* Its role now: its place among the active builds. */
	n = build_list(app->config, active);
	while (n > 0 && active[n - 1] != b)
		n--;
	api_json(resp, 201, api_build_json(app, b, n - 1, active[ROLE_BASE]));
out:
	json_decref(body);
}

void api_route_build_delete(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	struct build *b;

	(void)req;
	if (builds_retire(app, a->name, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	b = build_find(app->config, a->name);
	api_json(resp, 200, b != NULL ? api_build_json(app, b, -1, NULL) : json_object());
}
