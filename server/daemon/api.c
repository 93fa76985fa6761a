/*
 * The JSON API of docs/api.md: routing, request validation with precise
 * errors, and the conversion of cases, results and runs to JSON.
 *
 * Every string that came from PHP or a case file may hold any bytes; it goes
 * out through text_json(), which keeps valid UTF-8 as is and shows other bytes
 * as \xNN, so a response is always valid JSON.  Byte strings (output,
 * printed) also go out exactly, in base64.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "http.h"
#include "services.h"
#include "proto.h"

#define API_DEFAULT_LIMIT 50
#define API_MAX_LIMIT 500
#define API_DEFAULT_TITLE "submitted case"
#define API_MAX_ITERATIONS 1000000L
#define API_MAX_DEPTH 2147483647LL

enum api_method { M_GET = 1 << 0, M_POST = 1 << 1 };

/* ---- JSON building blocks ---- */

static json_t *api_base64(const char *data, size_t len)
{
	char *text = base64_encode(data, len);
	json_t *j = text != NULL ? json_string(text) : NULL;

	free(text);
	return j;
}

/* "a,b" -> ["a","b"]; "" -> []. */
static json_t *api_list(const char *s)
{
	json_t *a = json_array();
	const char *p = s, *q;

	while (a != NULL && p != NULL && *p != '\0') {
		q = strchr(p, ',');
		json_array_append_new(a, text_jsonn(p, q != NULL ? (size_t)(q - p) : strlen(p), NULL));
		p = q != NULL ? q + 1 : NULL;
	}
	return a;
}

/* Newline-separated lines -> array, without empty lines. */
static json_t *api_lines(const char *s)
{
	json_t *a = json_array();
	const char *p = s, *q;
	size_t n;

	while (a != NULL && p != NULL && *p != '\0') {
		q = strchr(p, '\n');
		n = q != NULL ? (size_t)(q - p) : strlen(p);
		if (n > 0)
			json_array_append_new(a, text_jsonn(p, n, NULL));
		p = q != NULL ? q + 1 : NULL;
	}
	return a;
}

static json_t *api_flag_names(long flags)
{
	json_t *a = json_array();
	const char *name;
	long value;
	size_t i;

	for (i = 0; a != NULL && (name = flags_name_at(i, &value)) != NULL; i++)
		if ((flags & value) == value && value != 0)
			json_array_append_new(a, json_string(name));
	return a;
}

/* "" -> null, else the text. */
static json_t *api_time(const char *s)
{
	return s != NULL && *s != '\0' ? text_json(s) : json_null();
}

/* Did the worker cut s at max (server/common/proto.h)?  Then it ends with the note. */
static int api_cut(const char *s, size_t len, size_t max, const char *note)
{
	size_t n = strlen(note);

	return s != NULL && len == max + n && memcmp(s + max, note, n) == 0;
}

/* The fields of a result kept short of what the case produced. */
static json_t *api_truncated(const struct result *r)
{
	json_t *a = json_array();

	if (a == NULL)
		return NULL;
	if (result_output_too_large(r))
		json_array_append_new(a, json_string("output"));
	if (api_cut(r->printed.data, r->printed.len, PROTO_MAX_PRINTED, PROTO_CUT_PRINTED))
		json_array_append_new(a, json_string("printed"));
	if (r->warnings != NULL &&
	    api_cut(r->warnings, strlen(r->warnings), PROTO_MAX_DIAG, PROTO_CUT_WARNINGS))
		json_array_append_new(a, json_string("warnings"));
	if (r->failure != NULL && api_cut(r->failure, strlen(r->failure), PROTO_MAX_DIAG, PROTO_CUT_FAILURE))
		json_array_append_new(a, json_string("failure"));
	return a;
}

static json_t *api_result_json(const struct result *r, const char *build)
{
	int is_false = r->output_is_false || r->output.data == NULL, utf8 = 1, putf8 = 1;
	json_t *o, *output, *printed;

	output = is_false ? json_false() : text_jsonn(r->output.data, r->output.len, &utf8);
	printed = text_jsonn(r->printed.data, r->printed.len, &putf8);
	o = json_pack("{s:o s:s s:o s:o s:o s:b s:I s:o s:o s:o s:o s:b s:o s:o s:o s:f}", "build",
	    text_json(build), "status", result_status_name(r->status), "signal",
	    r->status == STATUS_CRASH ? json_integer(r->signal) : json_null(), "output", output,
	    "output_base64", is_false ? json_null() : api_base64(r->output.data, r->output.len),
	    "output_utf8", is_false ? 1 : utf8, "error_code", (json_int_t)r->error_code, "error_msg",
	    text_json(r->error_msg), "exception",
	    r->exc_class != NULL ? json_pack("{s:o s:o}", "class", text_json(r->exc_class), "message",
	                               text_json(r->exc_msg != NULL ? r->exc_msg : ""))
	                         : json_null(),
	    "printed", printed, "printed_base64", api_base64(r->printed.data, r->printed.len), "printed_utf8",
	    putf8, "warnings", api_lines(r->warnings), "failure", text_json(r->failure), "instructions",
	    r->instructions >= 0 ? json_integer(r->instructions) : json_null(), "wall_ms", r->wall_ms);
	/* The exact count behind "instructions" (a rounded per-call figure). */
	if (o != NULL)
		json_object_set_new(o, "instructions_total",
		    r->instr_total >= 0 ? json_integer(r->instr_total) : json_null());
	/* Cut at a cap: said, not left to be guessed from the bytes. */
	if (o != NULL)
		json_object_set_new(o, "truncated", api_truncated(r));
	return o;
}

static json_t *api_case_json(const struct db_case *dc)
{
	const struct case_spec *c = &dc->spec;

	return json_pack("{s:I s:o s:o s:o s:I s:o s:I s:o s:o s:o s:o}", "id", (json_int_t)dc->id, "title",
	    text_json(c->title), "code", text_json(c->code), "setup", text_json(c->setup), "flags",
	    (json_int_t)c->flags, "flag_names", api_flag_names(c->flags), "depth", (json_int_t)c->depth,
	    "expect", text_json(c->expect), "measure",
	    c->iterations > 0 ? json_integer(c->iterations) : json_null(), "source", text_json(c->source),
	    "created_at", api_time(dc->created_at));
}

static json_t *api_id_or_null(int64_t id)
{
	return id > 0 ? json_integer(id) : json_null();
}

/* A case with one comparison: the body of POST /api/cases and GET /api/cases/{id}. */
static json_t *api_case_comparison_json(const struct db_case *dc, const struct db_comparison *cmp)
{
	char url[64], api_url[64];
	json_t *o, *results;
	int role;

	snprintf(url, sizeof url, "/#/cases/%" PRId64, dc->id);
	snprintf(api_url, sizeof api_url, "/api/cases/%" PRId64, dc->id);
	results = json_object();
	if (cmp != NULL)
		for (role = 0; role < MAX_BUILDS; role++)
			json_object_set_new(results, role_name(role),
			    api_result_json(&cmp->results[role], cmp->build_names[role]));
	o = json_pack("{s:I s:s s:s s:o s:o s:o s:o s:o s:o}", "id", (json_int_t)dc->id, "url", url,
	    "api_url", api_url, "verdict", cmp != NULL ? json_string(cmp->verdict) : json_null(), "differs",
	    cmp != NULL ? api_list(cmp->differs) : json_array(), "case", api_case_json(dc), "results",
	    results, "comparison_id", api_id_or_null(cmp != NULL ? cmp->id : 0), "run_id",
	    api_id_or_null(cmp != NULL ? cmp->run_id : 0));
	return o;
}

static json_t *api_run_json(const struct db_run *r)
{
	char url[64], api_url[64];
	json_t *params, *o, *summary;

	snprintf(url, sizeof url, "/#/runs/%" PRId64, r->id);
	snprintf(api_url, sizeof api_url, "/api/runs/%" PRId64, r->id);
	params = r->params != NULL ? json_loads(r->params, 0, NULL) : NULL;
	o = json_pack("{s:I s:s s:o s:s s:I s:I s:{s:I s:I} s:{s:s s:s} s:{s:s s:s} s:o s:o s:o s:o s:s s:s}",
	    "id", (json_int_t)r->id, "suite", r->suite, "params", params != NULL ? params : json_object(),
	    "status", r->status, "total", (json_int_t)r->total, "done", (json_int_t)r->done, "counts", "same",
	    (json_int_t)r->same, "differ", (json_int_t)r->differ, "builds", "base",
	    r->build_versions[ROLE_BASE], "head", r->build_versions[ROLE_HEAD], "build_names", "base",
	    r->build_names[ROLE_BASE], "head", r->build_names[ROLE_HEAD], "created_at",
	    api_time(r->created_at), "started_at", api_time(r->started_at), "finished_at",
	    api_time(r->finished_at), "error", text_json(r->error), "url", url, "api_url", api_url);
	/* A suite's own summary of the run (generated: rate, coverage...). */
	summary = r->summary != NULL ? json_loads(r->summary, 0, NULL) : NULL;
	if (o != NULL)
		json_object_set_new(o, "summary", summary != NULL ? summary : json_null());
	else
		json_decref(summary);
	return o;
}

/* ---- responses ---- */

static void api_reply(struct http_response *resp, int status, json_t *body)
{
	resp->status = status;
	resp->content_type = "application/json";
	if (body == NULL) {
		api_error(resp, 500, "internal", "out of memory building the response");
		return;
	}
	resp->body = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (resp->body == NULL) {
		api_error(resp, 500, "internal", "out of memory building the response");
		return;
	}
	resp->body_len = strlen(resp->body);
}

void api_error(struct http_response *resp, int status, const char *code, const char *fmt, ...)
{
	static const char fallback[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
	char msg[1024];
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	resp->status = status;
	resp->content_type = "application/json";
	o = json_pack("{s:{s:s s:o}}", "error", "code", code, "message", text_json(msg));
	resp->body = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (resp->body == NULL) {
		resp->status = 500;
		resp->body = strdup(fallback);
	}
	resp->body_len = resp->body != NULL ? strlen(resp->body) : 0;
}

void api_json(struct http_response *resp, int status, json_t *body)
{
	api_reply(resp, status, body);
}

/* The daemon's own failure, the one error mapper: a storage error is mapped
 * by db_error_status() (503 storage_full with Retry-After...), anything
 * else is a 500. */
void api_fail(struct http_response *resp, const char *err)
{
	const char *code;
	int retry, status = db_error_status(&code, &retry);

	api_error(resp, status, code, "%s", err);
	resp->retry_after = retry;
}

/* A query parameter's value, or NULL. */
const char *http_query(const struct http_request *req, const char *key)
{
	size_t i;

	for (i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, key) == 0)
			return req->query[i].value;
	return NULL;
}

/*
 * POST /api/cases in progress at once are bounded (--max-case-requests):
 * each holds a thread waiting for the workers, which run one case at a time.
 * 0 with a slot taken (api_case_slot_give() it back), or -1 with a 503.
 */
static int api_case_slot_take(struct app *app, struct http_response *resp)
{
	int max = app->config->max_case_requests;

	if (__atomic_add_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST) <= max)
		return 0;
	__atomic_sub_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST);
	api_error(resp, 503, "busy",
	    "%d cases are already being run for other requests, the limit "
	    "(max-case-requests); retry after 1 s",
	    max);
	resp->retry_after = 1;
	return -1;
}

static void api_case_slot_give(struct app *app)
{
	__atomic_sub_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST);
}

/* ---- request parsing ---- */

/* JSON body check and parse; NULL with resp filled on error. */
json_t *api_body(const struct http_request *req, struct http_response *resp)
{
	json_error_t jerr;
	const char *ct = req->content_type;
	size_t n;
	json_t *j;

	if (ct != NULL) {
		n = strcspn(ct, "; \t");
		if (n != strlen("application/json") || strncasecmp(ct, "application/json", n) != 0) {
			api_error(resp, 415, "unsupported_media_type",
			    "Content-Type %.100s is not application/json", ct);
			return NULL;
		}
	}
	/* NUL inside strings is let through the parser so the field check can name the field. */
	if ((j = json_loadb(req->body, req->body_len,
	         JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr)) == NULL) {
		api_error(resp, 400, "bad_json", "body is not valid JSON: line %d, column %d: %s", jerr.line,
		    jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		api_error(resp, 400, "bad_request", "body: expected a JSON object");
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Any key of obj not in known (NULL-terminated) is an error naming it. */
static int api_known_fields(json_t *obj, const char *const *known, struct http_response *resp)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(obj, key, v)
	{
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i] == NULL) {
			api_error(resp, 400, "bad_request", "unknown field \"%.64s\"", key);
			return -1;
		}
	}
	return 0;
}

/* An optional string field: 0 (set *out, NULL when absent or null), -1 on error. */
static int api_opt_string(
    json_t *obj, const char *field, size_t max, int toolarge413, char **out, struct http_response *resp)
{
	json_t *v = json_object_get(obj, field);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		api_error(resp, 400, "bad_request", "%s: expected a string", field);
		return -1;
	}
	if (json_string_length(v) > max) {
		if (toolarge413)
			api_error(resp, 413, "too_large", "%s is %zu bytes, over the %zu byte limit", field,
			    json_string_length(v), max);
		else
			api_error(resp, 400, "bad_request", "%s: over %zu bytes", field, max);
		return -1;
	}
	if (memchr(json_string_value(v), '\0', json_string_length(v)) != NULL) {
		api_error(resp, 400, "bad_request", "%s: must not contain NUL bytes", field);
		return -1;
	}
	if ((*out = strdup(json_string_value(v))) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return -1;
	}
	return 0;
}

/* An optional integer in [min, max]; def when absent or null. */
static int api_opt_int(json_t *obj, const char *field, json_int_t min, json_int_t max, json_int_t def,
    json_int_t *out, struct http_response *resp)
{
	json_t *v = json_object_get(obj, field);

	*out = def;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		api_error(resp, 400, "bad_request",
		    "%s: expected an integer %" JSON_INTEGER_FORMAT " .. %" JSON_INTEGER_FORMAT, field, min,
		    max);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

static int api_flags_text(json_t *v, const char *field, long *out, struct http_response *resp)
{
	char err[256];

	if (strlen(json_string_value(v)) != json_string_length(v)) {
		api_error(resp, 400, "bad_request", "%s: must not contain NUL bytes", field);
		return -1;
	}
	if (flags_parse(json_string_value(v), out, err, sizeof err) < 0) {
		if (strncmp(err, "unknown flag", 12) == 0)
			api_error(resp, 400, "unknown_flag", "%s: %s", field, err);
		else
			api_error(resp, 400, "bad_request", "%s: %s", field, err);
		return -1;
	}
	return 0;
}

/* flags: an integer >= 0, "A|B", or ["A", "B"]. */
static int api_flags(json_t *obj, long *flags, struct http_response *resp)
{
	json_t *v = json_object_get(obj, "flags"), *item;
	char field[32];
	long one;
	size_t i;

	*flags = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0 || json_integer_value(v) > 0x7fffffff) {
			api_error(resp, 400, "bad_request", "flags: expected an integer 0 .. 2147483647");
			return -1;
		}
		*flags = (long)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v))
		return api_flags_text(v, "flags", flags, resp);
	if (json_is_array(v)) {
		json_array_foreach(v, i, item)
		{
			snprintf(field, sizeof field, "flags[%zu]", i);
			if (!json_is_string(item)) {
				api_error(resp, 400, "bad_request", "%s: expected a flag name", field);
				return -1;
			}
			if (api_flags_text(item, field, &one, resp) < 0)
				return -1;
			*flags |= one;
		}
		return 0;
	}
	api_error(resp, 400, "bad_request",
	    "flags: expected an integer, a \"JSON_A|JSON_B\" string or a list of names");
	return -1;
}

/* The case of a POST /api/cases body; 0, or -1 with resp filled. */
static int api_parse_case(json_t *body, struct case_spec *c, struct http_response *resp)
{
	static const char *const known[] = {
		"title",
		"code",
		"setup",
		"flags",
		"depth",
		"expect",
		"measure",
		NULL,
	};
	json_int_t depth, measure;
	json_t *code;

	if (api_known_fields(body, known, resp) < 0)
		return -1;
	code = json_object_get(body, "code");
	if (code == NULL || !json_is_string(code)) {
		api_error(resp, 400, "bad_request", "code: %s",
		    code == NULL ? "required (PHP code producing the value)" : "expected a string");
		return -1;
	}
	if (api_opt_string(body, "code", MAX_CODE_SIZE, 1, &c->code, resp) < 0)
		return -1;
	if (c->code == NULL || c->code[strspn(c->code, " \t\r\n")] == '\0') {
		api_error(resp, 400, "bad_request", "code: must not be empty");
		return -1;
	}
	if (api_opt_string(body, "title", MAX_TITLE_SIZE, 0, &c->title, resp) < 0 ||
	    api_opt_string(body, "setup", MAX_CODE_SIZE, 1, &c->setup, resp) < 0 ||
	    api_opt_string(body, "expect", MAX_BODY_SIZE, 1, &c->expect, resp) < 0 ||
	    api_flags(body, &c->flags, resp) < 0 ||
	    api_opt_int(body, "depth", 1, API_MAX_DEPTH, 512, &depth, resp) < 0 ||
	    api_opt_int(body, "measure", 1, API_MAX_ITERATIONS, 0, &measure, resp) < 0)
		return -1;
	if (c->title == NULL && (c->title = strdup(API_DEFAULT_TITLE)) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return -1;
	}
	c->depth = (long)depth;
	c->iterations = (long)measure;
	return 0;
}

/* The case of a POST /api/cases request; 0, or -1 with resp filled (a pure
 * function of the request, for fuzz/fuzz_body.c too). */
int api_case_from_request(const struct http_request *req, struct case_spec *c, struct http_response *resp)
{
	json_t *body;
	int rc;

	if ((body = api_body(req, resp)) == NULL)
		return -1;
	rc = api_parse_case(body, c, resp);
	json_decref(body);
	return rc;
}

/* A boolean query switch: 1, 0, or -1 with resp filled. */
static int api_query_bool(const struct http_request *req, const char *key, struct http_response *resp)
{
	const char *v = http_query(req, key);

	if (v == NULL || strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
		return 0;
	if (*v == '\0' || strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
		return 1;
	api_error(resp, 400, "bad_request", "%s: expected 1 or 0", key);
	return -1;
}

/* ---- endpoints ---- */

static void api_health(struct app *app, struct http_response *resp)
{
	const struct config *cfg = app->config;
	json_t *builds = json_array(), *b, *w;
	struct worker *wk;
	enum worker_state state;
	int i, locked;
	pid_t pid;
	int64_t restarts, cases_run;
	char last_failure[sizeof wk->last_failure];
	char err[512];
	int closed;

	for (i = 0; i < cfg->nbuilds && builds != NULL; i++) {
		wk = &app->workers[i];
		/*
		 * A worker's lock is held for the length of a case; health must not
		 * wait behind a slow one.  When it is busy, say so.
		 */
		locked = pthread_mutex_trylock(&wk->lock) == 0;
		if (locked) {
			state = wk->state;
			pid = wk->pid;
			restarts = wk->restarts;
			cases_run = wk->cases_run;
			memcpy(last_failure, wk->last_failure, sizeof last_failure);
			last_failure[sizeof last_failure - 1] = '\0';
			pthread_mutex_unlock(&wk->lock);
		} else {
			state = WORKER_BUSY;
			pid = __atomic_load_n(&wk->pid, __ATOMIC_RELAXED);
			restarts = __atomic_load_n(&wk->restarts, __ATOMIC_RELAXED);
			cases_run = __atomic_load_n(&wk->cases_run, __ATOMIC_RELAXED);
			last_failure[0] = '\0';
		}
		w = json_pack("{s:s s:o s:I s:I s:o}", "state", worker_state_name(state), "pid",
		    pid > 0 ? json_integer(pid) : json_null(), "restarts", (json_int_t)restarts, "cases_run",
		    (json_int_t)cases_run, "last_failure",
		    last_failure[0] != '\0' ? text_json(last_failure) : json_null());
		b = json_pack("{s:o s:s s:o s:o s:o s:o s:o}", "name", text_json(cfg->builds[i].name), "role",
		    role_name(i), "php_version", text_json(cfg->builds[i].php_version), "library",
		    text_json(cfg->builds[i].lib_path), "sha256", text_json(cfg->builds[i].sha256), "prefix",
		    text_json(cfg->builds[i].prefix), "worker", w != NULL ? w : json_null());
		/* What measuring by hand needs: the compiled core, and where
		 * json_encode's handler sits (callgrind names it by this offset
		 * in a stripped library such as Debian's). */
		if (b != NULL) {
			char offset[32];
			snprintf(offset, sizeof offset, "0x%016llx",
			    (unsigned long long)cfg->builds[i].handler_offset);
			json_t *ini = json_array();
			for (int k = 0; k < cfg->builds[i].nini; k++)
				json_array_append_new(ini, text_json(cfg->builds[i].ini[k]));
			json_object_set_new(b, "ini", ini);
			json_object_set_new(b, "core", text_json(cfg->builds[i].core_path));
			json_object_set_new(b, "json_encode_offset", text_json(offset));
			/* The layers its worker put in place (docs/sandbox.md). */
			json_object_set_new(b, "sandbox", text_json(cfg->builds[i].sandbox));
		}
		json_array_append_new(builds, b);
	}
	closed = auth_writes_closed(app, err, sizeof err);
	api_reply(resp, 200,
	    json_pack("{s:s s:s s:o s:I s:o s:{s:s s:s} s:{s:i s:i s:i s:I s:I s:I s:I s:I s:i}}", "status",
	        "ok", "version", PHPCMP_VERSION, "db", text_json(cfg->db_path), "uptime_s",
	        (json_int_t)((clock_ms() - app->started_ms) / 1000), "builds", builds, "auth", "writes",
	        closed < 0   ? "unknown"
	            : closed ? "token"
	                     : "open",
	        "reads", cfg->read_auth ? "token" : "open", "limits", "max_connections", cfg->max_connections,
	        "max_case_requests", cfg->max_case_requests, "max_queued_runs", cfg->max_queued_runs,
	        "max_body_bytes", (json_int_t)MAX_BODY_SIZE, "max_code_bytes", (json_int_t)MAX_CODE_SIZE,
	        "max_output_bytes", (json_int_t)PROTO_MAX_OUTPUT, "max_printed_bytes",
	        (json_int_t)PROTO_MAX_PRINTED, "db_max_bytes", (json_int_t)cfg->db_max_bytes, "case_requests",
	        __atomic_load_n(&app->case_requests, __ATOMIC_RELAXED)));
}

static void api_flags_list(struct http_response *resp)
{
	json_t *a = json_array();
	const char *name;
	long value;
	size_t i;

	for (i = 0; a != NULL && (name = flags_name_at(i, &value)) != NULL; i++)
		json_array_append_new(a, json_pack("{s:s s:I}", "name", name, "value", (json_int_t)value));
	api_reply(resp, 200, json_pack("{s:o}", "flags", a));
}

static int api_history_row(void *arg, const struct db_case_row *row)
{
	return json_array_append_new(arg,
	    json_pack("{s:I s:o s:o s:o s:o}", "comparison_id", (json_int_t)row->comparison_id, "run_id",
	        api_id_or_null(row->run_id), "verdict", text_json(row->verdict), "differs",
	        api_list(row->differs != NULL ? row->differs : ""), "created_at", api_time(row->created_at)));
}

/*
 * The case with one of its comparisons (comparison_id, or the latest when 0),
 * and its history when asked: 200 or 404 in resp.
 */
static void api_case_reply(struct app *app, int64_t id, int64_t comparison_id, int with_history, int status,
    const char *location, json_t *extra, struct http_response *resp)
{
	struct db_case dc;
	struct db_comparison cmp;
	char err[512];
	json_t *o = NULL, *history;
	int rc, have_cmp = 0;

	rc = db_case_get(app->db, id, &dc, err, sizeof err);
	if (rc <= 0) {
		if (rc < 0)
			api_fail(resp, err);
		else
			api_error(resp, 404, "not_found", "no case %" PRId64, id);
		db_case_release(&dc);
		return;
	}
	rc = db_comparison_get(app->db, id, comparison_id, &cmp, err, sizeof err);
	if (rc < 0)
		goto fail;
	have_cmp = rc == 1;
	if (!have_cmp && comparison_id > 0) {
		api_error(
		    resp, 404, "not_found", "case %" PRId64 " has no comparison %" PRId64, id, comparison_id);
		db_comparison_release(&cmp);
		db_case_release(&dc);
		return;
	}
	if ((o = api_case_comparison_json(&dc, have_cmp ? &cmp : NULL)) == NULL)
		goto oom;
	/* The shown comparison's bucket, when it is a mismatch (triage.c). */
	json_object_set_new(o, "bucket", have_cmp ? triage_case_bucket(app, cmp.id) : json_null());
	if (with_history) {
		if ((history = json_array()) == NULL)
			goto oom;
		json_object_set_new(o, "history", history);
		if (db_case_history(app->db, id, api_history_row, history, err, sizeof err) < 0)
			goto fail;
	}
	if (location != NULL)
		snprintf(resp->location, sizeof resp->location, "%s", location);
	if (extra != NULL)
		json_object_update(o, extra);
	api_reply(resp, status, o);
	db_comparison_release(&cmp);
	db_case_release(&dc);
	return;
oom:
	snprintf(err, sizeof err, "out of memory");
fail:
	json_decref(o);
	api_fail(resp, err);
	db_comparison_release(&cmp);
	db_case_release(&dc);
}

static void api_case_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct build *builds[MAX_BUILDS];
	struct result res[MAX_BUILDS];
	struct case_spec c;
	char err[512], location[64];
	int64_t case_id, comparison_id;
	unsigned diff;
	int i, fail_on_differ, slot = 0;

	case_init(&c);
	for (i = 0; i < MAX_BUILDS; i++)
		result_init(&res[i]);
	if ((fail_on_differ = api_query_bool(req, "fail_on_differ", resp)) < 0)
		goto out;
	if (api_case_from_request(req, &c, resp) < 0)
		goto out;

	if (api_case_slot_take(app, resp) < 0)
		goto out;
	slot = 1;
	if (runs_pair(app, &c, res) < 0) {
		for (i = 0; i < MAX_BUILDS; i++)
			if (res[i].status == STATUS_ERROR && res[i].failure != NULL)
				break;
		api_error(resp, 503, "worker_unavailable", "a worker cannot be started: %s",
		    i < MAX_BUILDS ? res[i].failure : "unknown reason");
		goto out;
	}
	diff = verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]);
	for (i = 0; i < MAX_BUILDS; i++)
		builds[i] = &app->config->builds[i];
	if (db_comparison_store(
	        app->db, &c, 0, builds, res, diff, &case_id, &comparison_id, err, sizeof err) < 0) {
		api_fail(resp, err);
		goto out;
	}
	/* Answer from what was stored, so POST and GET show the same thing. */
	snprintf(location, sizeof location, "/api/cases/%" PRId64, case_id);
	api_case_reply(
	    app, case_id, comparison_id, 0, diff != 0 && fail_on_differ ? 409 : 201, location, NULL, resp);
out:
	if (slot)
		api_case_slot_give(app);
	for (i = 0; i < MAX_BUILDS; i++)
		result_release(&res[i]);
	case_release(&c);
}

/* A page being built: rows past limit only tell that there is a next page. */
struct api_list_ctx {
	json_t *items;
	int64_t last_id;
	int limit, more;
};

static int api_case_row(void *arg, const struct db_case_row *row)
{
	struct api_list_ctx *ctx = arg;

	if ((int)json_array_size(ctx->items) >= ctx->limit) {
		ctx->more = 1;
		return 0;
	}
	ctx->last_id = row->id;
	return json_array_append_new(ctx->items,
	    json_pack("{s:I s:o s:o s:o s:I s:o s:o s:s s:o s:o s:o}", "id", (json_int_t)row->id, "title",
	        text_json(row->title), "verdict", text_json(row->verdict), "differs",
	        api_list(row->differs != NULL ? row->differs : ""), "flags", (json_int_t)row->flags,
	        "flag_names", api_flag_names(row->flags), "created_at", api_time(row->created_at), "source",
	        row->source != NULL ? "stored" : "submitted", "file", text_json(row->source), "comparison_id",
	        api_id_or_null(row->comparison_id), "run_id", api_id_or_null(row->run_id)));
}

/* limit and before of a listing; 0 or -1 with resp filled. */
static int api_page(const struct http_request *req, int *limit, int64_t *before, struct http_response *resp)
{
	const char *v;
	int64_t n;

	*limit = API_DEFAULT_LIMIT;
	*before = 0;
	if ((v = http_query(req, "limit")) != NULL) {
		n = id_parse(v, strlen(v));
		if (n < 1 || n > API_MAX_LIMIT) {
			api_error(
			    resp, 400, "bad_request", "limit: expected an integer 1 .. %d", API_MAX_LIMIT);
			return -1;
		}
		*limit = (int)n;
	}
	if ((v = http_query(req, "before")) != NULL) {
		if ((*before = id_parse(v, strlen(v))) < 1) {
			api_error(resp, 400, "bad_request", "before: expected a positive integer id");
			return -1;
		}
	}
	return 0;
}

/* GET /api/cases and GET /api/runs/{id}/cases. */
static void api_cases_list(
    struct app *app, const struct http_request *req, int64_t run_id, struct http_response *resp)
{
	struct db_case_filter f;
	struct api_list_ctx ctx = { NULL, 0, 0, 0 };
	struct db_run run;
	const char *v;
	char err[512], next[256];
	int rc;

	memset(&f, 0, sizeof f);
	f.run_id = run_id;
	if ((v = http_query(req, "verdict")) != NULL) {
		if (strcmp(v, "same") != 0 && strcmp(v, "differ") != 0) {
			api_error(resp, 400, "bad_request", "verdict: expected same or differ");
			return;
		}
		f.verdict = v;
	}
	if ((v = http_query(req, "source")) != NULL) {
		if (strcmp(v, "stored") == 0)
			f.source = 1;
		else if (strcmp(v, "submitted") == 0)
			f.source = 2;
		else {
			api_error(resp, 400, "bad_request", "source: expected stored or submitted");
			return;
		}
	}
	if (api_page(req, &f.limit, &f.before, resp) < 0)
		return;
	if (run_id > 0) {
		if ((rc = db_run_get(app->db, run_id, &run, err, sizeof err)) <= 0) {
			if (rc < 0)
				api_fail(resp, err);
			else
				api_error(resp, 404, "not_found", "no run %" PRId64, run_id);
			return;
		}
		db_run_release(&run);
	}
	if ((ctx.items = json_array()) == NULL) {
		api_fail(resp, "out of memory");
		return;
	}
	ctx.limit = f.limit;
	f.limit++; /* one more row: is there a next page? */
	if (db_cases_list(app->db, &f, api_case_row, &ctx, err, sizeof err) < 0) {
		json_decref(ctx.items);
		api_fail(resp, err);
		return;
	}
	if (run_id > 0)
		snprintf(next, sizeof next, "/api/runs/%" PRId64 "/cases?", run_id);
	else
		snprintf(next, sizeof next, "/api/cases?");
	snprintf(next + strlen(next), sizeof next - strlen(next), "%s%s%s%slimit=%d&before=%" PRId64,
	    f.verdict != NULL ? "verdict=" : "", f.verdict != NULL ? f.verdict : "",
	    f.verdict != NULL ? "&" : "",
	    f.source == 1       ? "source=stored&"
	        : f.source == 2 ? "source=submitted&"
	                        : "",
	    ctx.limit, ctx.last_id);
	api_reply(resp, 200,
	    json_pack("{s:o s:o}", "cases", ctx.items, "next", ctx.more ? json_string(next) : json_null()));
}

static void api_run_reply(struct app *app, int64_t id, int status, struct http_response *resp)
{
	struct db_run run;
	char err[512];
	int rc;

	if ((rc = db_run_get(app->db, id, &run, err, sizeof err)) <= 0) {
		if (rc < 0)
			api_fail(resp, err);
		else
			api_error(resp, 404, "not_found", "no run %" PRId64, id);
		return;
	}
	if (status == 202)
		snprintf(resp->location, sizeof resp->location, "/api/runs/%" PRId64, id);
	api_reply(resp, status, api_run_json(&run));
	db_run_release(&run);
}

static int api_run_row(void *arg, const struct db_run *run)
{
	struct api_list_ctx *ctx = arg;

	if ((int)json_array_size(ctx->items) >= ctx->limit) {
		ctx->more = 1;
		return 0;
	}
	ctx->last_id = run->id;
	return json_array_append_new(ctx->items, api_run_json(run));
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
	snprintf(next, sizeof next, "/api/runs?limit=%d&before=%" PRId64, limit, ctx.last_id);
	api_reply(resp, 200,
	    json_pack("{s:o s:o}", "runs", ctx.items, "next", ctx.more ? json_string(next) : json_null()));
}

/* A runs_* refusal (an HTTP status and why) as the API's error. */
static void api_runs_refused(struct http_response *resp, int status, const char *err)
{
	switch (status) {
	case 400:
		api_error(resp, 400, "bad_request", "%s", err);
		break;
	case 404:
		api_error(resp, 404, "not_found", "%s", err);
		break;
	case 409:
		api_error(resp, 409, "conflict", "%s", err);
		break;
	case 429:
		api_error(resp, 429, "too_many_runs", "%s", err);
		resp->retry_after = 30;
		break;
	default:
		api_fail(resp, err);
		break;
	}
}

static void api_run_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	char err[512];
	int64_t id;
	json_t *body;
	int status;

	if ((body = api_body(req, resp)) == NULL)
		return;
	status = runs_create(app->runs, body, &id, err, sizeof err);
	json_decref(body);
	if (status != 0)
		api_runs_refused(resp, status, err);
	else
		api_run_reply(app, id, 202, resp);
}

static void api_run_cancel(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512];
	int status = runs_cancel(app->runs, id, err, sizeof err);

	if (status != 0)
		api_runs_refused(resp, status, err);
	else
		api_run_reply(app, id, 200, resp);
}

/* POST /api/runs/{id}/resume: queued again, to go on where it stopped. */
static void api_run_resume(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512];
	int status = runs_resume(app->runs, id, err, sizeof err);

	if (status != 0)
		api_runs_refused(resp, status, err);
	else
		api_run_reply(app, id, 202, resp);
}

/*
 * POST /api/generated {"seed":S,"index":I}: a generated case, made again from
 * (generator version, seed, index), run from its PHP source on both builds
 * like a submitted case and stored.  The answer is POST /api/cases's plus
 * "generated" (which case, and whether its source reproduces on each build
 * what the generated value gave) and "phpt" (the case in the stored format,
 * to save under cases/).
 */
static void api_generated_post(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct build *builds[MAX_BUILDS];
	struct result res[MAX_BUILDS], gen[MAX_BUILDS];
	struct case_spec c;
	char err[512], location[64], *phpt = NULL;
	int64_t case_id, comparison_id;
	uint64_t seed, index;
	json_t *body, *extra = NULL;
	unsigned diff;
	int i, rc, fail_on_differ, slot = 0;

	case_init(&c);
	for (i = 0; i < MAX_BUILDS; i++) {
		result_init(&res[i]);
		result_init(&gen[i]);
		builds[i] = &app->config->builds[i];
	}
	if ((fail_on_differ = api_query_bool(req, "fail_on_differ", resp)) < 0)
		goto out;
	if ((body = api_body(req, resp)) == NULL)
		goto out;
	rc = genrun_parse_ref(body, &seed, &index, err, sizeof err);
	json_decref(body);
	if (rc < 0) {
		api_error(resp, 400, "bad_request", "%s", err);
		goto out;
	}
	if (genrun_case_spec(seed, index, &c) < 0) {
		api_fail(resp, "out of memory");
		goto out;
	}
	/* It runs a case on the workers like POST /api/cases: the same bound. */
	if (api_case_slot_take(app, resp) < 0)
		goto out;
	slot = 1;
	if (runs_pair(app, &c, res) < 0) {
		api_error(resp, 503, "worker_unavailable", "a worker cannot be started");
		goto out;
	}
	for (i = 0; i < MAX_BUILDS; i++) {
		result_release(&gen[i]);
		if (genrun_detail(app, i, seed, index, &gen[i]) < 0) {
			api_error(resp, 503, "worker_unavailable", "a worker cannot be started");
			goto out;
		}
	}
	diff = verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]);
	if (db_comparison_store(
	        app->db, &c, 0, builds, res, diff, &case_id, &comparison_id, err, sizeof err) < 0 ||
	    db_generated_case(app->db, case_id, genrun_version(), seed, index, err, sizeof err) < 0) {
		api_fail(resp, err);
		goto out;
	}
	phpt = casefile_format(&c);
	extra = json_pack("{s:{s:i s:I s:I s:{s:b s:b}} s:o}", "generated", "version", genrun_version(),
	    "seed", (json_int_t)seed, "index", (json_int_t)index, "reproduces", "base",
	    verdict_compare(&res[ROLE_BASE], &gen[ROLE_BASE]) == 0, "head",
	    verdict_compare(&res[ROLE_HEAD], &gen[ROLE_HEAD]) == 0, "phpt",
	    phpt != NULL ? text_json(phpt) : json_null());
	snprintf(location, sizeof location, "/api/cases/%" PRId64, case_id);
	api_case_reply(
	    app, case_id, comparison_id, 0, diff != 0 && fail_on_differ ? 409 : 201, location, extra, resp);
out:
	if (slot)
		api_case_slot_give(app);
	json_decref(extra);
	free(phpt);
	for (i = 0; i < MAX_BUILDS; i++) {
		result_release(&res[i]);
		result_release(&gen[i]);
	}
	case_release(&c);
}

/* ---- routing ---- */

/* What a route's pattern captured: ":id" (strictly an id, else 0) and ":role". */
struct api_args {
	int64_t id;
	const char *id_text; /* the path from the id's segment on, for "no case 01" */
	char role[32];
};

typedef void api_handler(
    struct app *, const struct http_request *, const struct api_args *, struct http_response *);

static void api_route_health(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req, (void)a;
	api_health(app, resp);
}

static void api_route_flags(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)app, (void)req, (void)a;
	api_flags_list(resp);
}

static void api_route_cases(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_cases_list(app, req, 0, resp);
}

static void api_route_case_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_case_post(app, req, resp);
}

static void api_route_case(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *cv = http_query(req, "comparison");
	int64_t cmp_id = id_parse_str(cv);

	if (cv != NULL && cmp_id <= 0)
		api_error(resp, 400, "bad_request", "comparison: expected a positive integer id");
	else
		api_case_reply(app, a->id, cmp_id, 1, 200, NULL, NULL, resp);
}

static void api_route_case_phpt(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	export_case(app, a->id, "phpt", req, resp);
}

static void api_route_case_casefile(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	export_case(app, a->id, "casefile", req, resp);
}

static void api_route_runs(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_runs_list(app, req, resp);
}

static void api_route_run_post(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_run_post(app, req, resp);
}

static void api_route_run(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_reply(app, a->id, 200, resp);
}

static void api_route_run_cases(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	api_cases_list(app, req, a->id, resp);
}

static void api_route_run_cancel(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_cancel(app, a->id, resp);
}

static void api_route_run_resume(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	api_run_resume(app, a->id, resp);
}

static void api_route_run_measurements(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	measure_table(app, a->id, req, resp);
}

static void api_route_run_report(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	measure_report_md(app, a->id, req, resp);
}

static void api_route_workload_history(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	measure_history(app, req, resp);
}

static void api_route_callgrind(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	measure_dump(app, a->id, a->role, resp);
}

static void api_route_generated(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	api_generated_post(app, req, resp);
}

static void api_route_buckets(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_buckets(app, req, resp);
}

static void api_route_buckets_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_post(app, 0, req, resp);
}

static void api_route_bucket(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	triage_bucket(app, a->id, resp);
}

static void api_route_bucket_mismatches(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_mismatches(app, a->id, req, resp);
}

static void api_route_bucket_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_post(app, a->id, req, resp);
}

static void api_route_triage_events(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_events(app, req, resp);
}

/*
 * Every endpoint of docs/api.md, one row each: adding one is a row and a
 * handler.  A pattern's segments are literals, ":id" (an id, strictly: not
 * one is a 404 naming the "what") or ":role".  Rows with the same pattern
 * make its Allow header; a literal row must come before a ":id" row that
 * would also match its path (/api/buckets/triage before /api/buckets/:id).
 * "open": readable without a token even with --read-auth.
 */
static const struct api_route {
	unsigned method;
	const char *pattern;
	api_handler *handler;
	const char *what; /* the resource ":id" names */
	int open;
} api_routes[] = {
	{ M_GET, "/api/health", api_route_health, NULL, 1 },
	{ M_GET, "/api/flags", api_route_flags, NULL, 0 },
	{ M_GET, "/api/cases", api_route_cases, NULL, 0 },
	{ M_POST, "/api/cases", api_route_case_post, NULL, 0 },
	{ M_GET, "/api/cases/:id", api_route_case, "case", 0 },
	{ M_GET, "/api/cases/:id/phpt", api_route_case_phpt, "case", 0 },
	{ M_GET, "/api/cases/:id/casefile", api_route_case_casefile, "case", 0 },
	{ M_GET, "/api/runs", api_route_runs, NULL, 0 },
	{ M_POST, "/api/runs", api_route_run_post, NULL, 0 },
	{ M_GET, "/api/runs/:id", api_route_run, "run", 0 },
	{ M_GET, "/api/runs/:id/cases", api_route_run_cases, "run", 0 },
	{ M_POST, "/api/runs/:id/cancel", api_route_run_cancel, "run", 0 },
	{ M_POST, "/api/runs/:id/resume", api_route_run_resume, "run", 0 },
	{ M_GET, "/api/runs/:id/measurements", api_route_run_measurements, "run", 0 },
	{ M_GET, "/api/runs/:id/report.md", api_route_run_report, "run", 0 },
	{ M_GET, "/api/workloads/history", api_route_workload_history, NULL, 0 },
	{ M_GET, "/api/comparisons/:id/callgrind/:role", api_route_callgrind, "comparison", 0 },
	{ M_POST, "/api/generated", api_route_generated, NULL, 0 },
	{ M_GET, "/api/buckets", api_route_buckets, NULL, 0 },
	{ M_POST, "/api/buckets/triage", api_route_buckets_triage, NULL, 0 },
	{ M_GET, "/api/buckets/:id", api_route_bucket, "bucket", 0 },
	{ M_GET, "/api/buckets/:id/mismatches", api_route_bucket_mismatches, "bucket", 0 },
	{ M_POST, "/api/buckets/:id/triage", api_route_bucket_triage, "bucket", 0 },
	{ M_GET, "/api/triage/events", api_route_triage_events, NULL, 0 },
};
#define API_NROUTES (sizeof(api_routes) / sizeof(api_routes[0]))

/* Does path have pattern's shape?  Fills a (":id" parsed strictly, 0 when it is no id). */
static int api_match(const char *pattern, const char *path, struct api_args *a)
{
	const char *p = pattern, *q = path;

	memset(a, 0, sizeof *a);
	for (;;) {
		size_t pl, ql;

		if (*p != '/' || *q != '/')
			return *p == '\0' && *q == '\0';
		p++, q++;
		pl = strcspn(p, "/");
		ql = strcspn(q, "/");
		if (ql == 0)
			return 0; /* an empty segment or a trailing slash */
		if (pl == 3 && memcmp(p, ":id", 3) == 0) {
			a->id = id_parse(q, ql);
			a->id_text = q;
		} else if (pl == 5 && memcmp(p, ":role", 5) == 0) {
			snprintf(a->role, sizeof a->role, "%.*s", (int)ql, q);
		} else if (pl != ql || memcmp(p, q, pl) != 0) {
			return 0;
		}
		p += pl;
		q += ql;
	}
}

void api_handle(struct app *app, const struct http_request *req, struct http_response *resp)
{
	const struct api_route *r = NULL;
	struct http_request authed;
	struct auth_who who;
	struct api_args args;
	unsigned method, allowed = 0;
	size_t i;

	memset(resp, 0, sizeof *resp);
	/* The first row of the path's shape picks the pattern; its rows, the methods. */
	for (i = 0; i < API_NROUTES; i++)
		if (api_match(api_routes[i].pattern, req->path, &args))
			break;
	if (i == API_NROUTES) {
		api_error(resp, 404, "not_found", "no such endpoint: %s", req->path);
		return;
	}
	if (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)
		method = M_GET;
	else if (strcmp(req->method, "POST") == 0)
		method = M_POST;
	else
		method = 0;
	for (size_t j = i; j < API_NROUTES; j++) {
		if (strcmp(api_routes[j].pattern, api_routes[i].pattern) != 0)
			continue;
		allowed |= api_routes[j].method;
		if (api_routes[j].method & method)
			r = &api_routes[j];
	}
	if (r == NULL) {
		resp->allow = allowed == (M_GET | M_POST) ? "GET, HEAD, POST"
		    : allowed == M_POST                   ? "POST"
		                                          : "GET, HEAD";
		api_error(resp, 405, "method_not_allowed", "%.16s is not allowed on %s (allowed: %s)",
		    req->method, req->path, resp->allow);
		return;
	}
	if (req->query_overflow) {
		api_error(resp, 400, "bad_request", "too many query parameters: at most %d", HTTP_MAX_QUERY);
		return;
	}
	/* Every write is checked here, so an endpoint added later is covered
	 * without a call of its own; handlers find the sender in req->who. */
	if (method == M_POST) {
		if (auth_identity(app, req, &who, resp) < 0)
			return;
		authed = *req;
		authed.who = &who;
		req = &authed;
	} else if (!r->open && auth_read(app, req, resp) < 0) {
		return;
	}
	if (r->what != NULL && args.id <= 0) {
		api_error(resp, 404, "not_found", "no %s %.32s", r->what, args.id_text);
		return;
	}
	r->handler(app, req, &args, resp);
}
