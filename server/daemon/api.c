/*
 * The JSON API of docs/api.md: routing, request validation with precise
 * errors, and the conversion of cases, results and runs to JSON.
 *
 * Every string that came from PHP or a case file may hold any bytes; it goes
 * out through api_text(), which keeps valid UTF-8 as is and shows other bytes
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

#include "phpcmp.h"
#include "proto.h"

#define API_DEFAULT_LIMIT 50
#define API_MAX_LIMIT 500
#define API_DEFAULT_TITLE "submitted case"
#define API_MAX_ITERATIONS 1000000L
#define API_MAX_DEPTH 2147483647LL

enum api_method { M_GET = 1 << 0, M_POST = 1 << 1 };

/* ---- JSON building blocks ---- */

/* Valid UTF-8 kept, every other byte as \xNN. */
static json_t *api_display(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t i = 0, k, o = 0;
	json_t *j;
	char *buf;

	if ((buf = malloc(len * 4 + 1)) == NULL)
		return NULL;
	while (i < len) {
		if ((k = utf8_seq(p + i, len - i, NULL)) == 0) {
			o += (size_t)sprintf(buf + o, "\\x%02x", p[i]);
			i++;
		} else {
			memcpy(buf + o, p + i, k);
			o += k;
			i += k;
		}
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

/* A byte string as JSON text: itself when valid UTF-8, else its display form. */
static json_t *api_textn(const char *data, size_t len, int *is_utf8)
{
	json_t *j;

	if (data == NULL)
		data = "";
	if ((j = json_stringn(data, len)) != NULL) {
		if (is_utf8 != NULL)
			*is_utf8 = 1;
		return j;
	}
	if (is_utf8 != NULL)
		*is_utf8 = 0;
	return api_display(data, len);
}

/* A C string (NULL -> null) as JSON text. */
static json_t *api_text(const char *s)
{
	return s != NULL ? api_textn(s, strlen(s), NULL) : json_null();
}

static json_t *api_base64(const char *data, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)data;
	size_t i, o = 0;
	uint32_t v;
	json_t *j;
	char *buf;

	if ((buf = malloc((len + 2) / 3 * 4 + 1)) == NULL)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		buf[o++] = tab[v >> 18 & 63];
		buf[o++] = tab[v >> 12 & 63];
		buf[o++] = tab[v >> 6 & 63];
		buf[o++] = tab[v & 63];
	}
	if (i < len) {
		v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
		buf[o++] = tab[v >> 18 & 63];
		buf[o++] = tab[v >> 12 & 63];
		buf[o++] = i + 1 < len ? tab[v >> 6 & 63] : '=';
		buf[o++] = '=';
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

/* "a,b" -> ["a","b"]; "" -> []. */
static json_t *api_list(const char *s)
{
	json_t *a = json_array();
	const char *p = s, *q;

	while (a != NULL && p != NULL && *p != '\0') {
		q = strchr(p, ',');
		json_array_append_new(a, api_textn(p, q != NULL ? (size_t)(q - p) : strlen(p), NULL));
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
			json_array_append_new(a, api_textn(p, n, NULL));
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
	return s != NULL && *s != '\0' ? api_text(s) : json_null();
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

	output = is_false ? json_false() : api_textn(r->output.data, r->output.len, &utf8);
	printed = api_textn(r->printed.data, r->printed.len, &putf8);
	o = json_pack("{s:o s:s s:o s:o s:o s:b s:I s:o s:o s:o s:o s:b s:o s:o s:o s:f}", "build",
	    api_text(build), "status", result_status_name(r->status), "signal",
	    r->status == STATUS_CRASH ? json_integer(r->signal) : json_null(), "output", output,
	    "output_base64", is_false ? json_null() : api_base64(r->output.data, r->output.len),
	    "output_utf8", is_false ? 1 : utf8, "error_code", (json_int_t)r->error_code, "error_msg",
	    api_text(r->error_msg), "exception",
	    r->exc_class != NULL ? json_pack("{s:o s:o}", "class", api_text(r->exc_class), "message",
	                               api_text(r->exc_msg != NULL ? r->exc_msg : ""))
	                         : json_null(),
	    "printed", printed, "printed_base64", api_base64(r->printed.data, r->printed.len), "printed_utf8",
	    putf8, "warnings", api_lines(r->warnings), "failure", api_text(r->failure), "instructions",
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
	    api_text(c->title), "code", api_text(c->code), "setup", api_text(c->setup), "flags",
	    (json_int_t)c->flags, "flag_names", api_flag_names(c->flags), "depth", (json_int_t)c->depth,
	    "expect", api_text(c->expect), "measure",
	    c->iterations > 0 ? json_integer(c->iterations) : json_null(), "source", api_text(c->source),
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
			json_object_set_new(results, app_role_name(role),
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
	    api_time(r->finished_at), "error", api_text(r->error), "url", url, "api_url", api_url);
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
	o = json_pack("{s:{s:s s:o}}", "error", "code", code, "message", api_text(msg));
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

/* The daemon's own failure: a database error is mapped by db_error_status(). */
static void api_internal(struct http_response *resp, const char *err)
{
	const char *code;
	int retry, status = db_error_status(&code, &retry);

	api_error(resp, status, code, "%s", err);
	resp->retry_after = retry;
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

/* A decimal id 1..INT64_MAX, else 0. */
static int64_t api_parse_id(const char *s, size_t len)
{
	int64_t v = 0;
	size_t i;

	if (len == 0 || len > 19)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

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
			pid = worker_serving_pid(wk);
			restarts = wk->restarts;
			cases_run = wk->cases_run;
			memcpy(last_failure, wk->last_failure, sizeof last_failure);
			last_failure[sizeof last_failure - 1] = '\0';
			pthread_mutex_unlock(&wk->lock);
		} else {
			state = WORKER_BUSY;
			pid = worker_serving_pid(wk);
			restarts = __atomic_load_n(&wk->restarts, __ATOMIC_RELAXED);
			cases_run = __atomic_load_n(&wk->cases_run, __ATOMIC_RELAXED);
			last_failure[0] = '\0';
		}
		w = json_pack("{s:s s:o s:I s:I s:o}", "state", worker_state_name(state), "pid",
		    pid > 0 ? json_integer(pid) : json_null(), "restarts", (json_int_t)restarts, "cases_run",
		    (json_int_t)cases_run, "last_failure",
		    last_failure[0] != '\0' ? api_text(last_failure) : json_null());
		b = json_pack("{s:o s:s s:o s:o s:o s:o s:o}", "name", api_text(cfg->builds[i].name), "role",
		    app_role_name(i), "php_version", api_text(cfg->builds[i].php_version), "library",
		    api_text(cfg->builds[i].lib_path), "sha256", api_text(cfg->builds[i].sha256), "prefix",
		    api_text(cfg->builds[i].prefix), "worker", w != NULL ? w : json_null());
		/* What measuring by hand needs: the compiled core, and where
		 * json_encode's handler sits (callgrind names it by this offset
		 * in a stripped library such as Debian's). */
		if (b != NULL) {
			char offset[32];
			snprintf(offset, sizeof offset, "0x%016llx",
			    (unsigned long long)cfg->builds[i].handler_offset);
			json_t *ini = json_array();
			for (int k = 0; k < cfg->builds[i].nini; k++)
				json_array_append_new(ini, api_text(cfg->builds[i].ini[k]));
			json_object_set_new(b, "ini", ini);
			json_object_set_new(b, "core", api_text(cfg->builds[i].core_path));
			json_object_set_new(b, "json_encode_offset", api_text(offset));
			/* The layers its worker put in place (docs/sandbox.md). */
			json_object_set_new(b, "sandbox", api_text(cfg->builds[i].sandbox));
		}
		json_array_append_new(builds, b);
	}
	closed = auth_writes_closed(app, err, sizeof err);
	api_reply(resp, 200,
	    json_pack("{s:s s:s s:o s:I s:o s:{s:s s:s} s:{s:i s:i s:i s:I s:I s:I s:I s:I s:i}}", "status",
	        "ok", "version", PHPCMP_VERSION, "db", api_text(cfg->db_path), "uptime_s",
	        (json_int_t)((app_now_ms() - app->started_ms) / 1000), "builds", builds, "auth", "writes",
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
	        api_id_or_null(row->run_id), "verdict", api_text(row->verdict), "differs",
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
			api_internal(resp, err);
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
	api_internal(resp, err);
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
		api_internal(resp, err);
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
	ctx->last_id = row->cursor > 0 ? row->cursor : row->id;
	return json_array_append_new(ctx->items,
	    json_pack("{s:I s:o s:o s:o s:I s:o s:o s:s s:o s:o s:o}", "id", (json_int_t)row->id, "title",
	        api_text(row->title), "verdict", api_text(row->verdict), "differs",
	        api_list(row->differs != NULL ? row->differs : ""), "flags", (json_int_t)row->flags,
	        "flag_names", api_flag_names(row->flags), "created_at", api_time(row->created_at), "source",
	        row->source != NULL ? "stored" : "submitted", "file", api_text(row->source), "comparison_id",
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
		n = api_parse_id(v, strlen(v));
		if (n < 1 || n > API_MAX_LIMIT) {
			api_error(
			    resp, 400, "bad_request", "limit: expected an integer 1 .. %d", API_MAX_LIMIT);
			return -1;
		}
		*limit = (int)n;
	}
	if ((v = http_query(req, "before")) != NULL) {
		if ((*before = api_parse_id(v, strlen(v))) < 1) {
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
	int rc, generated = 0;

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
				api_internal(resp, err);
			else
				api_error(resp, 404, "not_found", "no run %" PRId64, run_id);
			return;
		}
		generated = strcmp(run.suite, "generated") == 0;
		db_run_release(&run);
	}
	if ((ctx.items = json_array()) == NULL) {
		api_internal(resp, "out of memory");
		return;
	}
	ctx.limit = f.limit;
	f.limit++; /* one more row: is there a next page? */
	/* A generated run lists its mismatches, each stored in full as it is listed. */
	if ((generated ? genrun_cases_list(app, &f, api_case_row, &ctx, err, sizeof err)
	               : db_cases_list(app->db, &f, api_case_row, &ctx, err, sizeof err)) < 0) {
		json_decref(ctx.items);
		api_internal(resp, err);
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
			api_internal(resp, err);
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
		api_internal(resp, "out of memory");
		return;
	}
	ctx.limit = limit;
	if (db_runs_list(app->db, before, limit + 1, api_run_row, &ctx, err, sizeof err) < 0) {
		json_decref(ctx.items);
		api_internal(resp, err);
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
		api_internal(resp, err);
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
		api_internal(resp, "out of memory");
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
		api_internal(resp, err);
		goto out;
	}
	phpt = casefile_format(&c);
	extra = json_pack("{s:{s:i s:I s:I s:{s:b s:b}} s:o}", "generated", "version", genrun_version(),
	    "seed", (json_int_t)seed, "index", (json_int_t)index, "reproduces", "base",
	    verdict_compare(&res[ROLE_BASE], &gen[ROLE_BASE]) == 0, "head",
	    verdict_compare(&res[ROLE_HEAD], &gen[ROLE_HEAD]) == 0, "phpt",
	    phpt != NULL ? api_text(phpt) : json_null());
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

enum route {
	R_NONE,
	R_HEALTH,
	R_FLAGS,
	R_CASES,
	R_CASE,
	R_RUNS,
	R_RUN,
	R_RUN_CASES,
	R_RUN_CANCEL,
	R_RUN_RESUME,
	R_RUN_MEASUREMENTS,
	R_RUN_REPORT,
	R_WORKLOAD_HISTORY,
	R_CALLGRIND,
	R_GENERATED,
	R_CASE_PHPT,
	R_CASE_CASEFILE,
	R_BUCKETS,
	R_BUCKET,
	R_BUCKET_MISMATCHES,
	R_BUCKET_TRIAGE,
	R_BUCKETS_TRIAGE,
	R_TRIAGE_EVENTS,
};

static const struct {
	enum route route;
	unsigned methods;
	const char *allow;
} api_routes[] = {
	{ R_HEALTH, M_GET, "GET, HEAD" },
	{ R_FLAGS, M_GET, "GET, HEAD" },
	{ R_CASES, M_GET | M_POST, "GET, HEAD, POST" },
	{ R_CASE, M_GET, "GET, HEAD" },
	{ R_RUNS, M_GET | M_POST, "GET, HEAD, POST" },
	{ R_RUN, M_GET, "GET, HEAD" },
	{ R_RUN_CASES, M_GET, "GET, HEAD" },
	{ R_RUN_CANCEL, M_POST, "POST" },
	{ R_RUN_RESUME, M_POST, "POST" },
	{ R_RUN_MEASUREMENTS, M_GET, "GET, HEAD" },
	{ R_RUN_REPORT, M_GET, "GET, HEAD" },
	{ R_WORKLOAD_HISTORY, M_GET, "GET, HEAD" },
	{ R_CALLGRIND, M_GET, "GET, HEAD" },
	{ R_GENERATED, M_POST, "POST" },
	{ R_CASE_PHPT, M_GET, "GET, HEAD" },
	{ R_CASE_CASEFILE, M_GET, "GET, HEAD" },
	{ R_BUCKETS, M_GET, "GET, HEAD" },
	{ R_BUCKET, M_GET, "GET, HEAD" },
	{ R_BUCKET_MISMATCHES, M_GET, "GET, HEAD" },
	{ R_BUCKET_TRIAGE, M_POST, "POST" },
	{ R_BUCKETS_TRIAGE, M_POST, "POST" },
	{ R_TRIAGE_EVENTS, M_GET, "GET, HEAD" },
};

/* Split /api/a/b/c/d into up to four segments; the route, its id and the
 * last segment (the role of /api/comparisons/ID/callgrind/ROLE). */
static enum route api_route(const char *path, int64_t *id, char *last, size_t lastsize)
{
	const char *seg[4];
	size_t len[4], n = 0;
	const char *p;

	*id = 0;
	if (strncmp(path, "/api/", 5) != 0)
		return R_NONE;
	p = path + 5;
	for (;;) {
		if (n == 4)
			return R_NONE;
		seg[n] = p;
		len[n] = strcspn(p, "/");
		if (len[n] == 0)
			return R_NONE; /* empty segment or trailing slash */
		p += len[n];
		n++;
		if (*p == '\0')
			break;
		p++;
	}
#define SEG(i, s) (len[i] == strlen(s) && memcmp(seg[i], s, len[i]) == 0)
	snprintf(last, lastsize, "%.*s", (int)len[n - 1], seg[n - 1]);
	if (n == 2 && SEG(0, "workloads") && SEG(1, "history"))
		return R_WORKLOAD_HISTORY;
	if (n == 4 && SEG(0, "comparisons") && SEG(2, "callgrind")) {
		*id = api_parse_id(seg[1], len[1]);
		return R_CALLGRIND;
	}
	if (n == 1 && SEG(0, "generated"))
		return R_GENERATED;
	/* Triage (triage.c): /api/buckets[/triage | /ID[/mismatches | /triage]], /api/triage/events. */
	if (SEG(0, "buckets")) {
		if (n == 1)
			return R_BUCKETS;
		if (n == 2 && SEG(1, "triage"))
			return R_BUCKETS_TRIAGE;
		*id = api_parse_id(seg[1], len[1]);
		if (n == 2)
			return R_BUCKET;
		if (n == 3 && SEG(2, "mismatches"))
			return R_BUCKET_MISMATCHES;
		if (n == 3 && SEG(2, "triage"))
			return R_BUCKET_TRIAGE;
		return R_NONE;
	}
	if (n == 2 && SEG(0, "triage") && SEG(1, "events"))
		return R_TRIAGE_EVENTS;
	if (n == 1 && SEG(0, "health"))
		return R_HEALTH;
	if (n == 1 && SEG(0, "flags"))
		return R_FLAGS;
	if (n == 1 && SEG(0, "cases"))
		return R_CASES;
	if (n == 1 && SEG(0, "runs"))
		return R_RUNS;
	if (n >= 2 && (SEG(0, "cases") || SEG(0, "runs"))) {
		*id = api_parse_id(seg[1], len[1]);
		if (SEG(0, "cases"))
			return n == 2                      ? R_CASE
			    : n == 3 && SEG(2, "phpt")     ? R_CASE_PHPT
			    : n == 3 && SEG(2, "casefile") ? R_CASE_CASEFILE
			                                   : R_NONE;
		if (n == 2)
			return R_RUN;
		if (n == 3 && SEG(2, "cases"))
			return R_RUN_CASES;
		if (n == 3 && SEG(2, "cancel"))
			return R_RUN_CANCEL;
		if (n == 3 && SEG(2, "resume"))
			return R_RUN_RESUME;
		if (n == 3 && SEG(2, "measurements"))
			return R_RUN_MEASUREMENTS;
		if (n == 3 && SEG(2, "report.md"))
			return R_RUN_REPORT;
	}
#undef SEG
	return R_NONE;
}

void api_handle(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct http_request authed;
	struct auth_who who;
	enum route route;
	unsigned method;
	int64_t id;
	size_t i;
	char last[32];

	memset(resp, 0, sizeof *resp);
	route = api_route(req->path, &id, last, sizeof last);
	if (route == R_NONE) {
		api_error(resp, 404, "not_found", "no such endpoint: %s", req->path);
		return;
	}
	if (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)
		method = M_GET;
	else if (strcmp(req->method, "POST") == 0)
		method = M_POST;
	else
		method = 0;
	for (i = 0; api_routes[i].route != route; i++)
		;
	if ((api_routes[i].methods & method) == 0) {
		api_error(resp, 405, "method_not_allowed", "%.16s is not allowed on %s (allowed: %s)",
		    req->method, req->path, api_routes[i].allow);
		resp->allow = api_routes[i].allow;
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
	} else if (route != R_HEALTH && auth_read(app, req, resp) < 0) {
		return;
	}
	switch (route) {
	case R_HEALTH:
		api_health(app, resp);
		break;
	case R_FLAGS:
		api_flags_list(resp);
		break;
	case R_CASES:
		if (method == M_POST)
			api_case_post(app, req, resp);
		else
			api_cases_list(app, req, 0, resp);
		break;
	case R_CASE:
	case R_CASE_PHPT:
	case R_CASE_CASEFILE: {
		const char *cv = http_query(req, "comparison");
		int64_t cmp_id = cv != NULL ? api_parse_id(cv, strlen(cv)) : 0;
		if (id <= 0)
			api_error(resp, 404, "not_found", "no case %.32s", req->path + strlen("/api/cases/"));
		else if (route != R_CASE)
			export_case(app, id, route == R_CASE_PHPT ? "phpt" : "casefile", req, resp);
		else if (cv != NULL && cmp_id <= 0)
			api_error(resp, 400, "bad_request", "comparison: expected a positive integer id");
		else
			api_case_reply(app, id, cmp_id, 1, 200, NULL, NULL, resp);
		break;
	}
	case R_RUNS:
		if (method == M_POST)
			api_run_post(app, req, resp);
		else
			api_runs_list(app, req, resp);
		break;
	case R_RUN:
	case R_RUN_CASES:
	case R_RUN_CANCEL:
	case R_RUN_RESUME:
	case R_RUN_MEASUREMENTS:
	case R_RUN_REPORT:
		if (id <= 0)
			api_error(resp, 404, "not_found", "no run %.32s", req->path + strlen("/api/runs/"));
		else if (route == R_RUN)
			api_run_reply(app, id, 200, resp);
		else if (route == R_RUN_CASES)
			api_cases_list(app, req, id, resp);
		else if (route == R_RUN_MEASUREMENTS)
			measure_table(app, id, req, resp);
		else if (route == R_RUN_REPORT)
			measure_report_md(app, id, req, resp);
		else if (route == R_RUN_RESUME)
			api_run_resume(app, id, resp);
		else
			api_run_cancel(app, id, resp);
		break;
	case R_WORKLOAD_HISTORY:
		measure_history(app, req, resp);
		break;
	case R_CALLGRIND:
		if (id <= 0)
			api_error(resp, 404, "not_found", "no comparison %.32s",
			    req->path + strlen("/api/comparisons/"));
		else
			measure_dump(app, id, last, resp);
		break;
	case R_GENERATED:
		api_generated_post(app, req, resp);
		break;
	case R_BUCKETS:
		triage_buckets(app, req, resp);
		break;
	case R_BUCKETS_TRIAGE:
		triage_post(app, 0, req, resp);
		break;
	case R_BUCKET:
	case R_BUCKET_MISMATCHES:
	case R_BUCKET_TRIAGE:
		if (id <= 0)
			api_error(
			    resp, 404, "not_found", "no bucket %.32s", req->path + strlen("/api/buckets/"));
		else if (route == R_BUCKET)
			triage_bucket(app, id, resp);
		else if (route == R_BUCKET_MISMATCHES)
			triage_mismatches(app, id, req, resp);
		else
			triage_post(app, id, req, resp);
		break;
	case R_TRIAGE_EVENTS:
		triage_events(app, req, resp);
		break;
	case R_NONE:
		break;
	}
}
