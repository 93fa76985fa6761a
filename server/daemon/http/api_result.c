/*
 * A build's result of a case as the API shows it (results.ROLE of a case,
 * a reference's answer): byte-exact text or base64, the fields cut at a
 * cap named, big outputs linked rather than inlined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "api_internal.h"
#include "proto.h"

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

static json_t *api_base64(const char *data, size_t len)
{
	char *text = base64_encode(data, len);
	json_t *j = text != NULL ? json_string(text) : NULL;

	free(text);
	return j;
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

static json_t *api_md5(const char *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0, i;
	char hex[2 * EVP_MAX_MD_SIZE + 1];

	if (EVP_Digest(data != NULL ? data : "", len, md, &n, EVP_md5(), NULL) != 1)
		return json_null();
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return json_stringn(hex, 2 * n);
}

/*
 * A result as JSON.  Outputs and printed text over RESULT_INLINE_MAX are not
 * written into the answer (a 16 MiB output of control bytes is 78 MB of
 * JSON, and 64 such answers at once took the daemon to gigabytes): the
 * field is null, "omitted" names it, and <field>_url serves the exact bytes
 * (GET /api/comparisons/{id}/output/{role}); output_size and output_md5
 * are always there.
 */
json_t *api_result_json(
    const struct result *r, const char *build, int64_t comparison_id, const char *role, long requested)
{
	int is_false = r->output_is_false || r->output.data == NULL, utf8 = 1, putf8 = 1;
	int big_output = !is_false && r->output.len > RESULT_INLINE_MAX;
	int big_printed = r->printed.len > RESULT_INLINE_MAX;
	json_t *o, *output, *printed, *omitted;
	char url[96];

	output = is_false ? json_false()
	    : big_output  ? json_null()
	                  : text_jsonn(r->output.data, r->output.len, &utf8);
	if (big_output)
		utf8 = utf8_valid(r->output.data, r->output.len);
	printed = big_printed ? json_null() : text_jsonn(r->printed.data, r->printed.len, &putf8);
	if (big_printed)
		putf8 = utf8_valid(r->printed.data, r->printed.len);
	o = json_pack("{s:o s:s s:o s:o s:o s:b s:I s:o s:o s:o s:o s:b s:o s:o s:o s:f}", "build",
	    text_json(build), "status", result_status_name(r->status), "signal",
	    r->status == STATUS_CRASH ? json_integer(r->signal) : json_null(), "output", output,
	    "output_base64", is_false || big_output ? json_null() : api_base64(r->output.data, r->output.len),
	    "output_utf8", is_false ? 1 : utf8, "error_code", (json_int_t)r->error_code, "error_msg",
	    text_json(r->error_msg), "exception",
	    r->exc_class != NULL ? json_pack("{s:o s:o}", "class", text_json(r->exc_class), "message",
	                               text_json(r->exc_msg != NULL ? r->exc_msg : ""))
	                         : json_null(),
	    "printed", printed, "printed_base64",
	    big_printed ? json_null() : api_base64(r->printed.data, r->printed.len), "printed_utf8", putf8,
	    "warnings", api_lines(r->warnings), "failure", text_json(r->failure), "instructions",
	    r->instructions >= 0 ? json_integer(r->instructions) : json_null(), "wall_ms", r->wall_ms);
	/* Why the case is unsupported on this build (issue 45), null when it ran. */
	if (o != NULL)
		json_object_set_new(o, "unsupported", text_json(r->unsupported));
	/* The exact count behind "instructions" (a rounded per-call figure). */
	if (o != NULL)
		json_object_set_new(o, "instructions_total",
		    r->instr_total >= 0 ? json_integer(r->instr_total) : json_null());
	/* The calls measured, fewer than "measure" asked when the cost budget
	 * (--measure-budget-ms) capped them: said, so the figure is not taken
	 * for what was asked. */
	if (o != NULL && r->iterations >= 0) {
		json_object_set_new(o, "iterations", json_integer(r->iterations));
		json_object_set_new(o, "iterations_capped", json_boolean(r->iterations < requested));
	}
	/* Cut at a cap: said, not left to be guessed from the bytes. */
	if (o != NULL)
		json_object_set_new(o, "truncated", api_truncated(r));
	/* A sanitizer's report in brief; the report itself is "failure". */
	struct sanitizer_summary ms;
	if (o != NULL && r->status == STATUS_MEMORY_ERROR && sanitizer_summarize(r->failure, &ms) == 0) {
		json_t *frames = json_array();
		for (int i = 0; i < ms.nframes; i++)
			json_array_append_new(frames, json_string(ms.frames[i]));
		json_object_set_new(o, "memory_error",
		    json_pack("{s:s s:s s:o}", "kind", ms.kind, "access", ms.access, "frames", frames));
	} else if (o != NULL) {
		json_object_set_new(o, "memory_error", json_null());
	}
	if (o != NULL) {
		json_object_set_new(
		    o, "output_size", is_false ? json_null() : json_integer((json_int_t)r->output.len));
		json_object_set_new(
		    o, "output_md5", is_false ? json_null() : api_md5(r->output.data, r->output.len));
		omitted = json_array();
		if (big_output) {
			json_array_append_new(omitted, json_string("output"));
			api_result_url(comparison_id, "output", role, url, sizeof url);
			json_object_set_new(o, "output_url", json_string(url));
		}
		if (big_printed) {
			json_array_append_new(omitted, json_string("printed"));
			api_result_url(comparison_id, "printed", role, url, sizeof url);
			json_object_set_new(o, "printed_url", json_string(url));
			json_object_set_new(o, "printed_size", json_integer((json_int_t)r->printed.len));
		}
		json_object_set_new(o, "omitted", omitted);
	}
	return o;
}
